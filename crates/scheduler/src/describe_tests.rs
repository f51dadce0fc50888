use pretty_assertions::assert_eq;

use crate::{Schedule, Zone};

fn paris() -> Zone {
    Zone::named("Europe/Paris").unwrap()
}

/// Described for a host whose own zone is Paris.
fn described(cron: &str, timezone: Option<&str>) -> String {
    Schedule::parse(cron, timezone, paris()).unwrap().describe()
}

#[test]
fn the_shapes_the_editor_presets_make_read_as_words() {
    let cases = [
        ("0 * * * *", "Every hour"),
        ("@hourly", "Every hour"),
        ("15 * * * *", "Every hour at :15"),
        ("* * * * *", "Every minute"),
        ("*/15 * * * *", "Every 15 minutes"),
        ("*/1 * * * *", "Every minute"),
        ("0 */1 * * *", "Every hour"),
        ("0 */6 * * *", "Every 6 hours"),
        ("30 7 * * *", "Every day at 07:30"),
        ("@daily", "Every day at 00:00"),
        ("@midnight", "Every day at 00:00"),
        ("0 9,17 * * *", "Every day at 09:00 and 17:00"),
        ("0,30 9 * * *", "Every day at 09:00 and 09:30"),
        ("0 9 * * 1-5", "Every weekday at 09:00"),
        ("0 9 ? * 1-5", "Every weekday at 09:00"),
        ("0 9 * * 0-6", "Every day at 09:00"),
        ("0 9 * 1-12 1-7", "Every day at 09:00"),
        ("0 9 * * mon-fri", "Every weekday at 09:00"),
        ("0 9 * * 1,2,3,4,5", "Every weekday at 09:00"),
        ("0 10 * * 1", "Every Monday at 10:00"),
        ("0 10 * * MON", "Every Monday at 10:00"),
        ("@weekly", "Every Sunday at 00:00"),
        ("0 8 * * 7", "Every Sunday at 08:00"),
        ("0 8 * * 1,4", "Every Monday and Thursday at 08:00"),
        ("0 8 * * 0,6", "Every Saturday and Sunday at 08:00"),
        (
            "0 8 * * 5,1,3",
            "Every Monday, Wednesday and Friday at 08:00",
        ),
        ("@monthly", "Every month on the 1st at 00:00"),
        ("0 6 2,22 * *", "Every month on the 2nd and 22nd at 06:00"),
        ("0 6 13 * *", "Every month on the 13th at 06:00"),
        ("@yearly", "Every year on 1 January at 00:00"),
        ("0 12 24 dec *", "Every year on 24 December at 12:00"),
    ];
    for (cron, words) in cases {
        assert_eq!(described(cron, None), words, "{cron}");
    }
}

#[test]
fn a_zone_other_than_the_hosts_is_named() {
    assert_eq!(
        described("0 9 * * 1-5", Some("America/New_York")),
        "Every weekday at 09:00, America/New_York"
    );
    assert_eq!(
        described("@hourly", Some("Asia/Kolkata")),
        "Every hour, Asia/Kolkata"
    );
    // Every 15 minutes is the same instants in every zone.
    assert_eq!(
        described("*/15 * * * *", Some("Asia/Kolkata")),
        "Every 15 minutes"
    );
    assert_eq!(described("* * * * *", Some("Asia/Kolkata")), "Every minute");
    assert_eq!(
        described("*/20 * * * *", Some("Asia/Kolkata")),
        "Every 20 minutes, Asia/Kolkata"
    );
    // Naming the host's own zone is the same as naming none.
    assert_eq!(
        described("0 9 * * 1-5", Some("Europe/Paris")),
        "Every weekday at 09:00"
    );
    let on_a_utc_host = Schedule::parse("0 9 * * 1-5", Some("Europe/Paris"), Zone::UTC).unwrap();
    assert_eq!(
        on_a_utc_host.describe(),
        "Every weekday at 09:00, Europe/Paris"
    );
}

#[test]
fn what_has_no_plain_phrase_shows_the_expression_and_its_zone() {
    let cases = [
        ("0 9 L * *", "cron `0 9 L * *`, Europe/Paris"),
        ("0 9 * * 5#2", "cron `0 9 * * 5#2`, Europe/Paris"),
        ("0 9 15W * *", "cron `0 9 15W * *`, Europe/Paris"),
        ("0 9 1 * +MON", "cron `0 9 1 * +MON`, Europe/Paris"),
        ("0 9-17/2 * * *", "cron `0 9-17/2 * * *`, Europe/Paris"),
        // Day of month and day of week together mean either, which no
        // short phrase says plainly.
        ("0 9 1 * 1", "cron `0 9 1 * 1`, Europe/Paris"),
        ("0 9 15 * 0-6", "cron `0 9 15 * 0-6`, Europe/Paris"),
        ("0 9 * 6 1", "cron `0 9 * 6 1`, Europe/Paris"),
        ("0 9 1,15 1 *", "cron `0 9 1,15 1 *`, Europe/Paris"),
        (
            "0,30 9,12,18 * * *",
            "cron `0,30 9,12,18 * * *`, Europe/Paris",
        ),
        ("*/5 9 * * *", "cron `*/5 9 * * *`, Europe/Paris"),
        ("5,35 * * * *", "cron `5,35 * * * *`, Europe/Paris"),
        // Steps that do not divide the hour or the day are uneven at the wrap.
        ("*/7 * * * *", "cron `*/7 * * * *`, Europe/Paris"),
        ("0 */5 * * *", "cron `0 */5 * * *`, Europe/Paris"),
    ];
    for (cron, words) in cases {
        assert_eq!(described(cron, None), words, "{cron}");
    }
    assert_eq!(
        described("0 9 L * *", Some("America/New_York")),
        "cron `0 9 L * *`, America/New_York"
    );
}
