//! A schedule in the words a trigger list shows: the common shapes a
//! schedule editor's presets produce, and the raw expression for the rest.

use crate::schedule::Schedule;

/// How many times of day a phrase lists before it gives up on words.
const MAX_TIMES: usize = 4;

const WEEKDAY_NAMES: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const WEEKDAY_ABBREVIATIONS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const MONTH_ABBREVIATIONS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];

pub(crate) fn describe(schedule: &Schedule) -> String {
    match phrase(schedule.fields()) {
        Some(words) if schedule.zone_is_default() || zone_cannot_matter(schedule.fields()) => words,
        Some(words) => format!("{words}, {}", schedule.zone()),
        None => format!("cron `{}`, {}", schedule.expression(), schedule.zone()),
    }
}

/// Every minute, or every 5 or 15: every zone in use is offset from UTC by
/// whole quarter hours, so these fire at the same instants in all of them.
/// (Every hour does not: 09:00 in Kolkata is 03:30 UTC.)
fn zone_cannot_matter(fields: &[String; 5]) -> bool {
    let minute_step = match fields[0].as_str() {
        "*" => Some(1),
        other => other
            .strip_prefix("*/")
            .and_then(|step| step.parse::<u32>().ok()),
    };
    let every_day = fields[1..].iter().all(|field| field == "*");
    every_day && minute_step.is_some_and(|step| step > 0 && 15 % step == 0)
}

/// One field, in the shapes the phrases use.
#[derive(Debug, PartialEq)]
enum Shape {
    Any,
    Every(u32),
    /// Sorted, without duplicates.
    Values(Vec<u32>),
}

#[derive(Clone, Copy)]
enum Kind {
    Minute,
    Hour,
    DayOfMonth,
    Month,
    DayOfWeek,
}

fn phrase(fields: &[String; 5]) -> Option<String> {
    // Cron runs on either day when both day fields are given, even when one
    // of them covers every day ("15 * 0-6" is every day): no short phrase.
    let literal_any = |field: &str| field == "*" || field == "?";
    if !literal_any(&fields[2]) && !literal_any(&fields[4]) {
        return None;
    }
    let minute = shape(&fields[0], Kind::Minute)?;
    let hour = shape(&fields[1], Kind::Hour)?;
    let day = shape(&fields[2], Kind::DayOfMonth)?;
    let month = shape(&fields[3], Kind::Month)?;
    let weekday = shape(&fields[4], Kind::DayOfWeek)?;
    let every_day = day == Shape::Any && month == Shape::Any && weekday == Shape::Any;

    match (&minute, &hour) {
        (Shape::Any, Shape::Any) if every_day => return Some("Every minute".to_owned()),
        // A step that does not divide the hour restarts at :00 with a short
        // gap ("*/7" fires at :56 and then :00): not "every 7 minutes".
        (Shape::Every(step), Shape::Any) if every_day && 60 % step == 0 => {
            return Some(format!("Every {step} minutes"));
        }
        (Shape::Values(minutes), Shape::Any) if every_day => {
            return match minutes.as_slice() {
                [0] => Some("Every hour".to_owned()),
                [minute] => Some(format!("Every hour at :{minute:02}")),
                _ => None,
            };
        }
        (Shape::Values(minutes), Shape::Every(step))
            if every_day && minutes == &[0] && 24 % step == 0 =>
        {
            return Some(format!("Every {step} hours"));
        }
        _ => {}
    }

    let (Shape::Values(minutes), Shape::Values(hours)) = (&minute, &hour) else {
        return None;
    };
    let times = times_of_day(hours, minutes)?;
    let days = match (&day, &month, &weekday) {
        (Shape::Any, Shape::Any, Shape::Any) => "Every day".to_owned(),
        (Shape::Any, Shape::Any, Shape::Values(weekdays)) => days_of_week(weekdays),
        (Shape::Values(days), Shape::Any, Shape::Any) => {
            let ordinals: Vec<String> = days.iter().map(|day| ordinal(*day)).collect();
            format!("Every month on the {}", list(&ordinals))
        }
        (Shape::Values(days), Shape::Values(months), Shape::Any) => {
            match (&days[..], &months[..]) {
                ([day], [month]) => {
                    let name = MONTH_NAMES.get(usize::try_from(*month).ok()?.checked_sub(1)?)?;
                    format!("Every year on {day} {name}")
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(format!("{days} at {times}"))
}

fn times_of_day(hours: &[u32], minutes: &[u32]) -> Option<String> {
    if hours.len() * minutes.len() > MAX_TIMES {
        return None;
    }
    let times: Vec<String> = hours
        .iter()
        .flat_map(|hour| {
            minutes
                .iter()
                .map(move |minute| format!("{hour:02}:{minute:02}"))
        })
        .collect();
    Some(list(&times))
}

fn days_of_week(weekdays: &[u32]) -> String {
    if weekdays == [1, 2, 3, 4, 5] {
        return "Every weekday".to_owned();
    }
    // The week a person reads starts on Monday; Sunday (0) goes last.
    let mut ordered: Vec<u32> = weekdays.iter().copied().filter(|day| *day != 0).collect();
    if weekdays.contains(&0) {
        ordered.push(0);
    }
    let names: Vec<String> = ordered
        .iter()
        .filter_map(|day| WEEKDAY_NAMES.get(usize::try_from(*day).ok()?))
        .map(|name| (*name).to_owned())
        .collect();
    format!("Every {}", list(&names))
}

/// "a", "a and b", "a, b and c".
fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [only] => only.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn ordinal(day: u32) -> String {
    let suffix = match (day % 10, day % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{day}{suffix}")
}

/// The shapes above, or `None` for anything else (`L`, `W`, `#`, `+`,
/// stepped ranges): those fall back to the raw expression.
fn shape(field: &str, kind: Kind) -> Option<Shape> {
    if field == "*" || field == "?" {
        return Some(Shape::Any);
    }
    if let Some(step) = field.strip_prefix("*/") {
        return match step.parse().ok()? {
            0 => None,
            1 => Some(Shape::Any),
            step => Some(Shape::Every(step)),
        };
    }
    let mut values = Vec::new();
    for item in field.split(',') {
        match item.split_once('-') {
            Some((start, end)) => {
                let (start, end) = (value(start, kind)?, value(end, kind)?);
                if start > end {
                    return None;
                }
                values.extend(start..=end);
            }
            None => values.push(value(item, kind)?),
        }
    }
    if let Kind::DayOfWeek = kind {
        // 7 is Sunday too.
        for day in &mut values {
            if *day == 7 {
                *day = 0;
            }
        }
    }
    values.sort_unstable();
    values.dedup();
    // Every value the field has is the same as `*` ("0-6" for the weekday).
    let every_value = match kind {
        Kind::DayOfWeek => 7,
        Kind::Month => 12,
        Kind::Minute | Kind::Hour | Kind::DayOfMonth => usize::MAX,
    };
    if values.len() == every_value {
        return Some(Shape::Any);
    }
    Some(Shape::Values(values))
}

fn value(text: &str, kind: Kind) -> Option<u32> {
    if let Ok(number) = text.parse::<u32>() {
        return Some(number);
    }
    let upper = text.to_ascii_uppercase();
    let names: &[&str] = match kind {
        Kind::DayOfWeek => &WEEKDAY_ABBREVIATIONS,
        Kind::Month => &MONTH_ABBREVIATIONS,
        Kind::Minute | Kind::Hour | Kind::DayOfMonth => return None,
    };
    let index = names.iter().position(|name| *name == upper)?;
    let number = u32::try_from(index).ok()?;
    Some(match kind {
        Kind::Month => number + 1,
        _ => number,
    })
}

#[cfg(test)]
#[path = "describe_tests.rs"]
mod tests;
