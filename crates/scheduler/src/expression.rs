//! A cron expression as a trigger stores it: `@name` aliases expanded to the
//! five fields, checked field by field so a refusal names the field.

use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};

use crate::error::{Error, Result};

/// The five fields, in order, as a person reads them in an error.
const FIELD_NAMES: [&str; 5] = ["minute", "hour", "day-of-month", "month", "day-of-week"];

/// What each field accepts, for the "out of range" sentence.
const FIELD_RANGES: [&str; 5] = ["0–59", "0–23", "1–31", "1–12 or JAN–DEC", "0–7 or SUN–SAT"];

/// The `@` names cron users expect, with the five fields each stands for.
const ALIASES: &[(&str, &str)] = &[
    ("@hourly", "0 * * * *"),
    ("@daily", "0 0 * * *"),
    ("@midnight", "0 0 * * *"),
    ("@weekly", "0 0 * * 0"),
    ("@monthly", "0 0 1 * *"),
    ("@yearly", "0 0 1 1 *"),
    ("@annually", "0 0 1 1 *"),
];

/// A parsed expression: its canonical text and the matcher built from it.
#[derive(Debug, Clone)]
pub(crate) struct Expression {
    /// What is stored and shown: an alias in lower case, or the five fields
    /// separated by single spaces.
    pub(crate) canonical: String,
    /// The five fields the alias stands for (the same as `canonical` without one).
    pub(crate) fields: [String; 5],
    pub(crate) cron: Cron,
}

pub(crate) fn parse(text: &str) -> Result<Expression> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(Error::cron("the expression is empty"));
    }
    let (canonical, five) = if trimmed.starts_with('@') {
        let name = trimmed.to_ascii_lowercase();
        let Some((alias, five)) = ALIASES.iter().find(|(alias, _)| *alias == name) else {
            return Err(Error::cron(format!(
                "`{trimmed}` is not a schedule name; use @hourly, @daily, @weekly, @monthly, \
                 @yearly or five fields"
            )));
        };
        ((*alias).to_owned(), (*five).to_owned())
    } else {
        let joined = trimmed.split_whitespace().collect::<Vec<_>>().join(" ");
        (joined.clone(), joined)
    };
    let parts: Vec<&str> = five.split(' ').collect();
    let fields: [String; 5] = match parts.as_slice() {
        [minute, hour, day, month, weekday] => [
            (*minute).to_owned(),
            (*hour).to_owned(),
            (*day).to_owned(),
            (*month).to_owned(),
            (*weekday).to_owned(),
        ],
        _ => {
            return Err(Error::cron(format!(
                "expected 5 fields (minute hour day-of-month month day-of-week), found {}",
                parts.len()
            )));
        }
    };
    let cron = parser()
        .parse(&five)
        .map_err(|whole| name_the_field(&fields, &whole))?;
    Ok(Expression {
        canonical,
        fields,
        cron,
    })
}

fn parser() -> CronParser {
    // Minute granularity only: a sixth field would be read as seconds or a
    // year by different tools, so it is refused rather than guessed.
    CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build()
}

/// croner's message does not say which field it refused; trying each field
/// alone among wildcards finds it.
fn name_the_field(fields: &[String; 5], whole: &croner::errors::CronError) -> Error {
    for (index, field) in fields.iter().enumerate() {
        let mut alone = ["*"; 5];
        alone[index] = field;
        if let Err(error) = parser().parse(&alone.join(" ")) {
            let mut reason = plain(&error);
            if reason == "number out of bounds" {
                reason = format!(
                    "a number is out of range (allowed: {})",
                    FIELD_RANGES[index]
                );
            }
            return Error::cron(format!("{} field `{field}`: {reason}", FIELD_NAMES[index]));
        }
    }
    Error::cron(plain(whole))
}

/// croner's message as the tail of a sentence: no kind prefix, no type
/// name, no capital, no full stop.
fn plain(error: &croner::errors::CronError) -> String {
    use croner::errors::CronError;
    let message = match error {
        CronError::InvalidPattern(message)
        | CronError::IllegalCharacters(message)
        | CronError::ComponentError(message) => message.clone(),
        other => other.to_string(),
    };
    let message = message
        .trim()
        .trim_end_matches('.')
        .replace("CronPattern ", "");
    let mut characters = message.chars();
    match characters.next() {
        Some(first) => first.to_lowercase().chain(characters).collect(),
        None => message,
    }
}

#[cfg(test)]
#[path = "expression_tests.rs"]
mod tests;
