//! Plain timing benchmark: `cargo bench -p pizza-scheduler`.
//!
//! Prints, for 10,000 cron triggers across a mix of expressions and zones:
//! parsing them all, the next fire of each (target < 50 ms, what the
//! scheduler computes when it rebuilds every schedule), a five-fire preview
//! of each, and the missed-fire rule over a week away. Each figure is the
//! median of several rounds.

use std::error::Error;
use std::hint::black_box;
use std::time::{Duration, Instant};

use pizza_scheduler::{DateTime, Schedule, Utc, Zone};

const TRIGGERS: usize = 10_000;
const ROUNDS: usize = 7;

const EXPRESSIONS: &[&str] = &[
    "@hourly",
    "@daily",
    "@weekly",
    "@monthly",
    "*/5 * * * *",
    "*/15 * * * *",
    "0 9 * * 1-5",
    "30 7 * * *",
    "0 10 * * 1",
    "0 9,17 * * *",
    "30 2 * * *",
    "0 */6 * * *",
    "0 9 1,15 * *",
    "0 9 L * *",
    "0 9 * * 5#2",
    "45 23 * * 0,6",
    "0 12 24 12 *",
];

const ZONES: &[&str] = &[
    "UTC",
    "Europe/Paris",
    "America/New_York",
    "America/Los_Angeles",
    "Asia/Kolkata",
    "Asia/Tokyo",
    "Australia/Sydney",
    "Australia/Lord_Howe",
    "America/Sao_Paulo",
    "Pacific/Chatham",
];

fn main() -> Result<(), Box<dyn Error>> {
    let host_zone = Zone::named("Europe/Paris")?;
    let specs: Vec<(&str, &str)> = (0..TRIGGERS)
        .map(|index| {
            (
                EXPRESSIONS[index % EXPRESSIONS.len()],
                ZONES[(index / EXPRESSIONS.len()) % ZONES.len()],
            )
        })
        .collect();

    let mut schedules = Vec::new();
    let parse = median(|| {
        schedules = specs
            .iter()
            .map(|(cron, zone)| Schedule::parse(cron, Some(zone), host_zone))
            .collect::<Result<Vec<_>, _>>()
            .unwrap_or_default();
    });
    if schedules.len() != TRIGGERS {
        return Err("a benchmark expression did not parse".into());
    }

    // Start just before a spring-forward night in Europe and a fall-back one
    // in the south, so some fires cross a change.
    let now: DateTime<Utc> = DateTime::parse_from_rfc3339("2026-03-28T23:59:30Z")?.into();
    let next = median(|| {
        for schedule in &schedules {
            black_box(schedule.next_after(black_box(now)));
        }
    });
    let preview = median(|| {
        for schedule in &schedules {
            black_box(schedule.next_n(black_box(now), 5));
        }
    });
    let week_ago = now - chrono_days(7);
    let missed = median(|| {
        for schedule in &schedules {
            black_box(schedule.missed_since(black_box(week_ago), black_box(now)));
        }
    });

    println!(
        "pizza-scheduler, {TRIGGERS} triggers ({} expressions × {} zones), median of {ROUNDS}:",
        EXPRESSIONS.len(),
        ZONES.len()
    );
    report("parse", parse, None);
    report("next fire of each", next, Some(Duration::from_millis(50)));
    report("next 5 fires of each", preview, None);
    report("missed fire of each, a week away", missed, None);
    Ok(())
}

fn chrono_days(days: i64) -> chrono::TimeDelta {
    chrono::TimeDelta::days(days)
}

fn median(mut run: impl FnMut()) -> Duration {
    let mut samples: Vec<Duration> = (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect();
    samples.sort_unstable();
    samples[ROUNDS / 2]
}

fn report(what: &str, took: Duration, target: Option<Duration>) {
    let per_trigger = took.as_secs_f64() * 1e6 / TRIGGERS as f64;
    let verdict = match target {
        Some(target) if took <= target => format!("  (target < {} ms: met)", target.as_millis()),
        Some(target) => format!("  (target < {} ms: MISSED)", target.as_millis()),
        None => String::new(),
    };
    println!(
        "  {what:<34} {:>8.2} ms  ({per_trigger:.2} µs per trigger){verdict}",
        took.as_secs_f64() * 1e3
    );
}
