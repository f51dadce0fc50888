//! A trigger's schedule: a cron expression read in an IANA time zone.

use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::Tz;

use crate::error::{Error, Result};
use crate::expression::{self, Expression};

/// An IANA time zone, with its rules compiled in (no zoneinfo files read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Zone(Tz);

impl Zone {
    pub const UTC: Zone = Zone(Tz::UTC);

    /// The zone with this IANA name (`Europe/Paris`), exactly as the
    /// database spells it.
    pub fn named(name: &str) -> Result<Self> {
        let name = name.trim();
        name.parse::<Tz>()
            .map(Zone)
            .map_err(|_| Error::UnknownZone {
                name: name.to_owned(),
            })
    }

    pub fn name(self) -> &'static str {
        self.0.name()
    }
}

impl std::fmt::Display for Zone {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

/// When a cron trigger fires: the expression, its zone, and whether that
/// zone is the trigger's own or the host's default.
///
/// Every time in and out is an instant (`DateTime<Utc>`); the zone only
/// decides which instants the wall-clock fields name. Across daylight saving
/// changes it follows the Open Cron Pattern Specification, as Vixie cron
/// does: a time the clock skips (02:30 on a spring-forward night) fires at
/// the first instant after the gap, and a time the clock repeats (01:30 on a
/// fall-back night) fires once, on its first pass; a job that runs every
/// minute or hour keeps running through both passes.
///
/// No method reads the clock: `now` is always passed in.
#[derive(Debug, Clone)]
pub struct Schedule {
    expression: Expression,
    zone: Zone,
    zone_is_default: bool,
}

impl Schedule {
    /// Parses a five-field cron expression (`30 9 * * 1-5`) or one of
    /// `@hourly`, `@daily`, `@midnight`, `@weekly`, `@monthly`, `@yearly`,
    /// `@annually`, read in `timezone` — or in `default_zone` (the host's)
    /// when the trigger names none (`None` or blank).
    ///
    /// Refuses, naming the field: a malformed expression, one with another
    /// number of fields, one that never matches a real date (31 February),
    /// and a zone the IANA database does not know.
    pub fn parse(cron: &str, timezone: Option<&str>, default_zone: Zone) -> Result<Self> {
        let expression = expression::parse(cron)?;
        let (zone, zone_is_default) = match timezone.map(str::trim) {
            Some(name) if !name.is_empty() => {
                let zone = Zone::named(name)?;
                (zone, zone == default_zone)
            }
            _ => (default_zone, true),
        };
        let schedule = Self {
            expression,
            zone,
            zone_is_default,
        };
        schedule.refuse_if_never_fires()?;
        Ok(schedule)
    }

    /// The expression as it should be stored: an alias in lower case, or
    /// the five fields separated by single spaces.
    pub fn expression(&self) -> &str {
        &self.expression.canonical
    }

    pub fn zone(&self) -> Zone {
        self.zone
    }

    /// Whether the zone is the default the schedule was parsed with (the
    /// trigger named none, or named the host's own).
    pub fn zone_is_default(&self) -> bool {
        self.zone_is_default
    }

    pub(crate) fn fields(&self) -> &[String; 5] {
        &self.expression.fields
    }

    /// The first fire strictly after `instant`; `None` when the expression
    /// has no fire left before the year 5000.
    pub fn next_after(&self, instant: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let local = instant.with_timezone(&self.zone.0);
        self.expression
            .cron
            .find_next_occurrence(&local, false)
            .ok()
            .map(|fire| fire.with_timezone(&Utc))
    }

    /// The next `count` fires after `instant`, in order (fewer if the
    /// schedule runs out) — what a trigger editor previews.
    pub fn next_n(&self, instant: DateTime<Utc>, count: usize) -> Vec<DateTime<Utc>> {
        // A preview is a handful; a huge count must not reserve memory up front.
        let mut fires = Vec::with_capacity(count.min(16));
        let mut cursor = instant;
        while fires.len() < count {
            let Some(fire) = self.next_after(cursor) else {
                break;
            };
            fires.push(fire);
            cursor = fire;
        }
        fires
    }

    /// The missed-fire rule: if one or more fires fell in `(since, now]`,
    /// the latest of them — the one fire that catches up, however many
    /// were missed; `None` when nothing was due.
    ///
    /// `since` is when the trigger last fired or was armed; a fire exactly
    /// at `since` already happened, one exactly at `now` is due.
    pub fn missed_since(&self, since: DateTime<Utc>, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        // Whether anything is due is decided by the forward search, the one
        // that arms timers, so the two can never disagree; the backward
        // search only picks the latest when several were missed.
        let first = self.next_after(since)?;
        if first > now {
            return None;
        }
        let latest = self
            .expression
            .cron
            .find_previous_occurrence(&now.with_timezone(&self.zone.0), true)
            .ok()
            .map(|fire| fire.with_timezone(&Utc))
            .filter(|latest| *latest >= first && *latest <= now);
        Some(latest.unwrap_or(first))
    }

    /// Plain words for the trigger list: "Every weekday at 09:00,
    /// Europe/Paris", or "cron `…`, zone" for what it cannot phrase.
    pub fn describe(&self) -> String {
        crate::describe::describe(self)
    }

    fn refuse_if_never_fires(&self) -> Result<()> {
        // A fixed start, not the clock: any expression that can match at all
        // matches within 28 years of it (29 February on a given weekday).
        let reference = Utc.with_ymd_and_hms(2000, 1, 1, 0, 0, 0).single();
        match reference.and_then(|start| self.next_after(start)) {
            Some(_) => Ok(()),
            None => Err(Error::cron(
                "the expression never matches a real date (such as 31 February)",
            )),
        }
    }
}

#[cfg(test)]
#[path = "schedule_tests.rs"]
mod tests;
