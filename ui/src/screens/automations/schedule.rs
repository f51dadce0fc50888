//! The editor's pure logic: schedule presets to cron and back, the ready
//! `curl` line of a webhook, which field a refused save names, and fire
//! times in words. Kept free of the DOM so it is tested natively.

use serde_json::json;

/// The schedule shapes the editor offers; each fills the raw cron field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Preset {
    /// The cron field as typed.
    Custom,
    Hourly,
    Daily,
    Weekdays,
    Weekly,
}

impl Preset {
    pub(crate) const ALL: [Preset; 5] = [
        Preset::Custom,
        Preset::Hourly,
        Preset::Daily,
        Preset::Weekdays,
        Preset::Weekly,
    ];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Custom => "custom",
            Self::Hourly => "hourly",
            Self::Daily => "daily",
            Self::Weekdays => "weekdays",
            Self::Weekly => "weekly",
        }
    }

    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::Custom => "Custom",
            Self::Hourly => "Hourly",
            Self::Daily => "Daily at…",
            Self::Weekdays => "Weekdays at…",
            Self::Weekly => "Weekly on…",
        }
    }

    pub(crate) fn parse(value: &str) -> Self {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == value)
            .unwrap_or(Self::Custom)
    }

    /// Whether the preset asks for a time of day.
    pub(crate) fn has_time(self) -> bool {
        matches!(self, Self::Daily | Self::Weekdays | Self::Weekly)
    }
}

/// Weekday names in cron's numbering (0 = Sunday).
pub(crate) const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// A preset with its time of day and weekday.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PresetChoice {
    pub(crate) preset: Preset,
    pub(crate) hour: u8,
    pub(crate) minute: u8,
    /// 0 = Sunday, as cron counts.
    pub(crate) weekday: u8,
}

impl Default for PresetChoice {
    fn default() -> Self {
        Self {
            preset: Preset::Weekdays,
            hour: 9,
            minute: 0,
            weekday: 1,
        }
    }
}

impl PresetChoice {
    /// The cron expression for this choice; `None` for [`Preset::Custom`].
    pub(crate) fn cron(self) -> Option<String> {
        let (m, h) = (self.minute.min(59), self.hour.min(23));
        match self.preset {
            Preset::Custom => None,
            Preset::Hourly => Some("0 * * * *".to_owned()),
            Preset::Daily => Some(format!("{m} {h} * * *")),
            Preset::Weekdays => Some(format!("{m} {h} * * 1-5")),
            Preset::Weekly => Some(format!("{m} {h} * * {}", self.weekday.min(6))),
        }
    }

    /// The time field's value, `HH:MM`.
    pub(crate) fn time(self) -> String {
        format!("{:02}:{:02}", self.hour, self.minute)
    }

    /// Recognises a stored expression as one of the presets, so editing a
    /// trigger shows the choice that made it; anything else is custom.
    pub(crate) fn of(cron: &str) -> Self {
        let custom = Self {
            preset: Preset::Custom,
            ..Self::default()
        };
        let fields: Vec<&str> = cron.split_whitespace().collect();
        let [minute, hour, "*", "*", weekday] = fields.as_slice() else {
            return custom;
        };
        if (*minute, *hour, *weekday) == ("0", "*", "*") {
            return Self {
                preset: Preset::Hourly,
                ..Self::default()
            };
        }
        let (Some(minute), Some(hour)) = (number(minute, 59), number(hour, 23)) else {
            return custom;
        };
        let at = |preset, weekday| Self {
            preset,
            hour,
            minute,
            weekday,
        };
        match *weekday {
            "*" => at(Preset::Daily, 1),
            "1-5" => at(Preset::Weekdays, 1),
            day => match number(day, 6) {
                Some(day) => at(Preset::Weekly, day),
                None => custom,
            },
        }
    }
}

/// A plain decimal number up to `max`, as cron writes one.
fn number(text: &str, max: u8) -> Option<u8> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u8>().ok().filter(|n| *n <= max)
}

/// Reads an `<input type=time>` value (`HH:MM`, maybe with seconds).
pub(crate) fn parse_time(value: &str) -> Option<(u8, u8)> {
    let mut parts = value.split(':');
    let hour = number(parts.next()?, 23)?;
    let minute = number(parts.next()?, 59)?;
    Some((hour, minute))
}

/// The example prompt of the ready `curl` line.
pub(crate) const CURL_EXAMPLE_PROMPT: &str = "Describe this run's task here";

/// A `curl` command that fires a webhook trigger with `prompt`, ready to
/// paste into a POSIX shell.
pub(crate) fn curl_line(url: &str, secret: &str, prompt: &str) -> String {
    let body = json!({ "prompt": prompt }).to_string();
    format!(
        "curl -X POST -H {} -H {} -d {} {}",
        shell_quote(&format!("Authorization: Bearer {secret}")),
        shell_quote("Content-Type: application/json"),
        shell_quote(&body),
        shell_quote(url),
    )
}

/// Single quotes keep everything literal; a single quote itself closes,
/// escapes and reopens them.
fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@%+,".contains(&b));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The editor fields a refused save can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Name,
    Prompt,
    Model,
    Cron,
    Timezone,
}

impl Field {
    const ALL: [Field; 5] = [
        Field::Name,
        Field::Prompt,
        Field::Model,
        Field::Cron,
        Field::Timezone,
    ];

    fn key(self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::Prompt => "prompt",
            Self::Model => "model",
            Self::Cron => "cron",
            Self::Timezone => "timezone",
        }
    }
}

/// Splits a refusal into the field it names (its message starts with
/// `field: `) and the sentence to show beside that field.
pub(crate) fn field_of(message: &str) -> Option<(Field, String)> {
    let (key, rest) = message.split_once(':')?;
    let field = Field::ALL.into_iter().find(|f| f.key() == key.trim())?;
    Some((field, rest.trim().to_owned()))
}

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 86_400_000;
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// A time in the person's zone: "Today 09:00", "Tomorrow 09:00",
/// "Yesterday 09:00", "Wed 3 Dec 09:00" this year, "3 Dec 2025 09:00"
/// otherwise. Offsets are minutes east of UTC at each instant (so a DST
/// change between now and then is honoured).
pub(crate) fn local_time_label(
    at_ms: i64,
    at_offset_min: i64,
    now_ms: i64,
    now_offset_min: i64,
) -> String {
    let local = at_ms + at_offset_min * MINUTE_MS;
    let today = (now_ms + now_offset_min * MINUTE_MS).div_euclid(DAY_MS);
    let day = local.div_euclid(DAY_MS);
    let minutes = local.rem_euclid(DAY_MS) / MINUTE_MS;
    let clock = format!("{:02}:{:02}", minutes / 60, minutes % 60);
    let (year, month, date) = civil_from_days(day);
    let month = MONTHS[(month - 1) as usize];
    match day - today {
        0 => format!("Today {clock}"),
        1 => format!("Tomorrow {clock}"),
        -1 => format!("Yesterday {clock}"),
        _ if civil_from_days(today).0 == year => {
            let weekday = &WEEKDAYS[(day + 4).rem_euclid(7) as usize][..3];
            format!("{weekday} {date} {month} {clock}")
        }
        _ => format!("{date} {month} {year} {clock}"),
    }
}

/// (year, month 1–12, day 1–31) of a day counted from 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let date = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, date)
}

/// Zones offered in the time-zone field's list; any IANA name may be typed.
pub(crate) const COMMON_TIMEZONES: [&str; 24] = [
    "UTC",
    "Europe/London",
    "Europe/Dublin",
    "Europe/Lisbon",
    "Europe/Paris",
    "Europe/Berlin",
    "Europe/Madrid",
    "Europe/Rome",
    "Europe/Amsterdam",
    "Europe/Stockholm",
    "Europe/Warsaw",
    "Europe/Athens",
    "Europe/Moscow",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "Asia/Shanghai",
    "Asia/Tokyo",
    "Asia/Singapore",
    "Australia/Sydney",
    "Pacific/Auckland",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(preset: Preset, hour: u8, minute: u8, weekday: u8) -> PresetChoice {
        PresetChoice {
            preset,
            hour,
            minute,
            weekday,
        }
    }

    #[test]
    fn presets_fill_the_cron_field() {
        assert_eq!(choice(Preset::Custom, 9, 0, 1).cron(), None);
        assert_eq!(
            choice(Preset::Hourly, 9, 30, 1).cron().as_deref(),
            Some("0 * * * *")
        );
        assert_eq!(
            choice(Preset::Daily, 7, 5, 1).cron().as_deref(),
            Some("5 7 * * *")
        );
        assert_eq!(
            choice(Preset::Weekdays, 9, 0, 1).cron().as_deref(),
            Some("0 9 * * 1-5")
        );
        assert_eq!(
            choice(Preset::Weekly, 18, 45, 0).cron().as_deref(),
            Some("45 18 * * 0")
        );
    }

    #[test]
    fn a_stored_expression_is_recognised_as_its_preset() {
        for made in [
            choice(Preset::Daily, 7, 5, 1),
            choice(Preset::Weekdays, 9, 0, 1),
            choice(Preset::Weekly, 18, 45, 6),
        ] {
            let cron = made.cron().unwrap();
            assert_eq!(PresetChoice::of(&cron), made, "{cron}");
        }
        assert_eq!(PresetChoice::of("0 * * * *").preset, Preset::Hourly);
        for custom in [
            "* * * * *",
            "*/5 9 * * *",
            "0 9 1 * *",
            "0 24 * * *",
            "0 9 * * 7",
            "@daily",
            "",
        ] {
            assert_eq!(PresetChoice::of(custom).preset, Preset::Custom, "{custom}");
        }
    }

    #[test]
    fn time_fields_are_read_and_written_as_hh_mm() {
        assert_eq!(parse_time("09:05"), Some((9, 5)));
        assert_eq!(parse_time("23:59:00"), Some((23, 59)));
        assert_eq!(parse_time("24:00"), None);
        assert_eq!(parse_time("9"), None);
        assert_eq!(choice(Preset::Daily, 9, 5, 1).time(), "09:05");
    }

    #[test]
    fn the_curl_line_is_ready_to_paste() {
        assert_eq!(
            curl_line(
                "http://127.0.0.1:47821/triggers/t1",
                "s3cr3t-s3cr3t-s3cr3t",
                "Bake it"
            ),
            "curl -X POST -H 'Authorization: Bearer s3cr3t-s3cr3t-s3cr3t' \
             -H 'Content-Type: application/json' -d '{\"prompt\":\"Bake it\"}' \
             http://127.0.0.1:47821/triggers/t1"
        );
        // A quote in the prompt cannot end the shell word early.
        assert!(
            curl_line("http://x/t", "s", "Tom's \"pie\"")
                .contains(r#"-d '{"prompt":"Tom'\''s \"pie\""}'"#)
        );
    }

    #[test]
    fn a_refusal_is_placed_beside_the_field_it_names() {
        assert_eq!(
            field_of("cron: expected 5 fields, found 4"),
            Some((Field::Cron, "expected 5 fields, found 4".to_owned()))
        );
        assert_eq!(
            field_of("timezone: unknown zone Mars/Base").map(|f| f.0),
            Some(Field::Timezone)
        );
        assert_eq!(
            field_of("name: A name is required.").map(|f| f.0),
            Some(Field::Name)
        );
        assert_eq!(
            field_of("model: not enabled").map(|f| f.0),
            Some(Field::Model)
        );
        assert_eq!(field_of("The database is busy: try again"), None);
    }

    #[test]
    fn fire_times_read_in_the_persons_zone() {
        // 2026-12-01 08:00 UTC, a Tuesday; Paris is UTC+1 in winter.
        let now = 1_796_112_000_000;
        let hour = 3_600_000;
        assert_eq!(local_time_label(now, 60, now, 60), "Today 09:00");
        assert_eq!(
            local_time_label(now + 24 * hour, 60, now, 60),
            "Tomorrow 09:00"
        );
        assert_eq!(
            local_time_label(now - 24 * hour, 60, now, 60),
            "Yesterday 09:00"
        );
        assert_eq!(
            local_time_label(now + 48 * hour, 60, now, 60),
            "Thu 3 Dec 09:00"
        );
        assert_eq!(
            local_time_label(now + 40 * 24 * hour, 0, now, 0),
            "10 Jan 2027 08:00"
        );
        // Late evening UTC is already tomorrow east of it.
        assert_eq!(
            local_time_label(now + 15 * hour, 120, now, 120),
            "Tomorrow 01:00"
        );
    }
}
