use pretty_assertions::assert_eq;

use crate::{Error, Schedule, Zone};

fn refusal(cron: &str) -> String {
    Schedule::parse(cron, None, Zone::UTC)
        .unwrap_err()
        .to_string()
}

#[test]
fn aliases_and_spacing_are_stored_in_one_canonical_form() {
    for (given, stored) in [
        ("@daily", "@daily"),
        ("  @DAILY ", "@daily"),
        ("@Midnight", "@midnight"),
        ("@annually", "@annually"),
        ("0  9 *\t* 1-5", "0 9 * * 1-5"),
        (" 30 7 * * * ", "30 7 * * *"),
    ] {
        let schedule = Schedule::parse(given, None, Zone::UTC).unwrap();
        assert_eq!(schedule.expression(), stored, "{given:?}");
    }
}

#[test]
fn each_alias_means_its_five_fields() {
    for (alias, fields) in [
        ("@hourly", "0 * * * *"),
        ("@daily", "0 0 * * *"),
        ("@midnight", "0 0 * * *"),
        ("@weekly", "0 0 * * 0"),
        ("@monthly", "0 0 1 * *"),
        ("@yearly", "0 0 1 1 *"),
        ("@annually", "0 0 1 1 *"),
    ] {
        let by_alias = Schedule::parse(alias, None, Zone::UTC).unwrap();
        let by_fields = Schedule::parse(fields, None, Zone::UTC).unwrap();
        let start = chrono::DateTime::parse_from_rfc3339("2026-05-17T10:11:12Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        assert_eq!(
            by_alias.next_n(start, 3),
            by_fields.next_n(start, 3),
            "{alias}"
        );
    }
}

#[test]
fn names_of_days_and_months_are_accepted_in_any_case() {
    for cron in [
        "0 9 * * MON-FRI",
        "0 9 * * mon,wed",
        "0 0 1 jan *",
        "0 0 * * 7",
    ] {
        assert!(Schedule::parse(cron, None, Zone::UTC).is_ok(), "{cron}");
    }
}

#[test]
fn a_refused_expression_names_the_field() {
    assert_eq!(refusal(""), "cron: the expression is empty");
    assert_eq!(refusal("   "), "cron: the expression is empty");
    assert_eq!(
        refusal("0 9 * *"),
        "cron: expected 5 fields (minute hour day-of-month month day-of-week), found 4"
    );
    assert_eq!(
        refusal("0 0 9 * * *"),
        "cron: expected 5 fields (minute hour day-of-month month day-of-week), found 6"
    );
    assert_eq!(
        refusal("@reboot"),
        "cron: `@reboot` is not a schedule name; use @hourly, @daily, @weekly, @monthly, \
         @yearly or five fields"
    );
    assert_eq!(
        refusal("0 0 31 2 *"),
        "cron: the expression never matches a real date (such as 31 February)"
    );
    for (cron, message) in [
        (
            "60 * * * *",
            "cron: minute field `60`: a number is out of range (allowed: 0–59)",
        ),
        (
            "* 24 * * *",
            "cron: hour field `24`: a number is out of range (allowed: 0–23)",
        ),
        (
            "* * 0 * *",
            "cron: day-of-month field `0`: a number is out of range (allowed: 1–31)",
        ),
        (
            "* * * 13 *",
            "cron: month field `13`: a number is out of range (allowed: 1–12 or JAN–DEC)",
        ),
        (
            "* * * * 8",
            "cron: day-of-week field `8`: a number is out of range (allowed: 0–7 or SUN–SAT)",
        ),
        (
            "* * * * FUNDAY",
            "cron: day-of-week field `FUNDAY`: contains illegal character 'F' in part 'FUNDAY'",
        ),
        (
            "*/0 * * * *",
            "cron: minute field `*/0`: step cannot be zero",
        ),
        (
            "1-2-3 * * * *",
            "cron: minute field `1-2-3`: invalid range syntax",
        ),
    ] {
        assert_eq!(refusal(cron), message, "{cron}");
    }
}

#[test]
fn an_unknown_zone_is_refused_by_name() {
    let error = Schedule::parse("0 9 * * *", Some("Mars/Olympus_Mons"), Zone::UTC).unwrap_err();
    assert_eq!(
        error,
        Error::UnknownZone {
            name: "Mars/Olympus_Mons".to_owned()
        }
    );
    assert_eq!(error.field(), "timezone");
    assert_eq!(
        error.to_string(),
        "timezone: unknown zone `Mars/Olympus_Mons`; use an IANA name such as Europe/Paris"
    );
    assert_eq!(
        Schedule::parse("nope", None, Zone::UTC)
            .unwrap_err()
            .field(),
        "cron"
    );
}
