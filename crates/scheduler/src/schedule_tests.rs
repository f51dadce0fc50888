use chrono::{DateTime, Duration, Utc};
use pretty_assertions::assert_eq;

use super::{Schedule, Zone};

fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

fn schedule(cron: &str, zone: &str) -> Schedule {
    Schedule::parse(cron, Some(zone), Zone::UTC).unwrap()
}

fn next_n(schedule: &Schedule, after: &str, count: usize) -> Vec<DateTime<Utc>> {
    schedule.next_n(utc(after), count)
}

fn instants(texts: &[&str]) -> Vec<DateTime<Utc>> {
    texts.iter().map(|text| utc(text)).collect()
}

#[test]
fn a_daily_time_skipped_by_spring_forward_fires_once_at_the_end_of_the_gap_in_paris() {
    // 29 March 2026: Paris goes from 02:00 CET straight to 03:00 CEST.
    let job = schedule("30 2 * * *", "Europe/Paris");
    assert_eq!(
        next_n(&job, "2026-03-27T12:00:00Z", 3),
        instants(&[
            "2026-03-28T01:30:00Z", // 02:30 CET
            "2026-03-29T01:00:00Z", // 03:00 CEST, the first instant after the gap
            "2026-03-30T00:30:00Z", // 02:30 CEST
        ])
    );
}

#[test]
fn a_daily_time_skipped_by_spring_forward_fires_once_at_the_end_of_the_gap_in_new_york() {
    // 8 March 2026: New York goes from 02:00 EST straight to 03:00 EDT.
    let job = schedule("30 2 * * *", "America/New_York");
    assert_eq!(
        next_n(&job, "2026-03-07T12:00:00Z", 3),
        instants(&[
            "2026-03-08T07:00:00Z", // 03:00 EDT
            "2026-03-09T06:30:00Z", // 02:30 EDT
            "2026-03-10T06:30:00Z",
        ])
    );
}

#[test]
fn a_daily_time_repeated_by_fall_back_fires_once_in_paris() {
    // 25 October 2026: Paris shows 02:00–02:59 twice (CEST, then CET).
    let job = schedule("30 2 * * *", "Europe/Paris");
    assert_eq!(
        next_n(&job, "2026-10-24T12:00:00Z", 2),
        instants(&[
            "2026-10-25T00:30:00Z", // 02:30 CEST; not again at 02:30 CET (01:30Z)
            "2026-10-26T01:30:00Z", // 02:30 CET
        ])
    );
    // Asked from between the two passes, it still does not fire the second.
    assert_eq!(
        job.next_after(utc("2026-10-25T01:00:00Z")),
        Some(utc("2026-10-26T01:30:00Z"))
    );
}

#[test]
fn a_daily_time_repeated_by_fall_back_fires_once_in_new_york() {
    // 1 November 2026: New York shows 01:00–01:59 twice (EDT, then EST).
    let job = schedule("30 1 * * *", "America/New_York");
    assert_eq!(
        next_n(&job, "2026-10-31T12:00:00Z", 2),
        instants(&[
            "2026-11-01T05:30:00Z", // 01:30 EDT; not again at 01:30 EST (06:30Z)
            "2026-11-02T06:30:00Z", // 01:30 EST
        ])
    );
}

#[test]
fn an_hourly_job_runs_every_real_hour_through_both_changes() {
    let job = schedule("@hourly", "America/New_York");
    // Fall back: 01:00 EDT and 01:00 EST are an hour apart, both run.
    assert_eq!(
        next_n(&job, "2026-11-01T04:30:00Z", 3),
        instants(&[
            "2026-11-01T05:00:00Z",
            "2026-11-01T06:00:00Z",
            "2026-11-01T07:00:00Z",
        ])
    );
    // Spring forward: 02:00 does not exist; the hours go on from 03:00.
    assert_eq!(
        next_n(&job, "2026-03-08T06:30:00Z", 2),
        instants(&["2026-03-08T07:00:00Z", "2026-03-08T08:00:00Z"])
    );
}

#[test]
fn a_wall_clock_time_stays_put_while_its_utc_instant_moves() {
    let job = schedule("0 9 * * *", "Europe/Paris");
    assert_eq!(
        next_n(&job, "2026-03-28T00:00:00Z", 2),
        instants(&["2026-03-28T08:00:00Z", "2026-03-29T07:00:00Z"])
    );
}

#[test]
fn next_after_is_strictly_after_at_any_precision() {
    let job = schedule("0 9 * * *", "UTC");
    assert_eq!(
        job.next_after(utc("2026-06-01T09:00:00Z")),
        Some(utc("2026-06-02T09:00:00Z"))
    );
    assert_eq!(
        job.next_after(utc("2026-06-01T09:00:30Z")),
        Some(utc("2026-06-02T09:00:00Z"))
    );
    assert_eq!(
        job.next_after(utc("2026-06-01T08:59:59.999Z")),
        Some(utc("2026-06-01T09:00:00Z"))
    );
}

#[test]
fn next_n_previews_five_weekday_fires_over_a_weekend() {
    let job = schedule("0 9 * * 1-5", "Europe/Paris");
    // Friday 5 June 2026, after that day's fire.
    assert_eq!(
        next_n(&job, "2026-06-05T10:00:00Z", 5),
        instants(&[
            "2026-06-08T07:00:00Z",
            "2026-06-09T07:00:00Z",
            "2026-06-10T07:00:00Z",
            "2026-06-11T07:00:00Z",
            "2026-06-12T07:00:00Z",
        ])
    );
}

#[test]
fn the_default_zone_is_used_when_the_trigger_names_none() {
    let paris = Zone::named("Europe/Paris").unwrap();
    for timezone in [None, Some(""), Some("  ")] {
        let job = Schedule::parse("0 9 * * *", timezone, paris).unwrap();
        assert_eq!(job.zone(), paris);
        assert!(job.zone_is_default());
        assert_eq!(
            job.next_after(utc("2026-06-01T00:00:00Z")),
            Some(utc("2026-06-01T07:00:00Z"))
        );
    }
    let own = Schedule::parse("0 9 * * *", Some("America/New_York"), paris).unwrap();
    assert_eq!(own.zone().name(), "America/New_York");
    assert!(!own.zone_is_default());
    let same = Schedule::parse("0 9 * * *", Some("Europe/Paris"), paris).unwrap();
    assert!(same.zone_is_default());
}

#[test]
fn a_missed_week_of_a_daily_job_fires_once_at_the_latest_time() {
    let job = schedule("0 9 * * *", "Europe/Paris");
    let fired = utc("2026-06-01T07:00:00Z");
    let now = utc("2026-06-08T12:00:00Z");
    assert_eq!(
        job.missed_since(fired, now),
        Some(utc("2026-06-08T07:00:00Z"))
    );
    // Caught up: from that fire, nothing more is due until the next morning.
    assert_eq!(job.missed_since(utc("2026-06-08T07:00:00Z"), now), None);
}

#[test]
fn missed_since_counts_a_fire_at_now_but_not_one_at_since() {
    let job = schedule("0 9 * * *", "UTC");
    let nine = utc("2026-06-01T09:00:00Z");
    assert_eq!(
        job.missed_since(nine - Duration::seconds(1), nine),
        Some(nine)
    );
    assert_eq!(job.missed_since(nine, nine + Duration::hours(1)), None);
    assert_eq!(
        job.missed_since(nine - Duration::hours(2), nine - Duration::hours(1)),
        None
    );
}

#[test]
fn a_clock_that_went_back_has_missed_nothing() {
    let job = schedule("* * * * *", "UTC");
    let since = utc("2026-06-01T09:00:00Z");
    assert_eq!(job.missed_since(since, since - Duration::hours(3)), None);
    assert_eq!(job.missed_since(since, since), None);
}

#[test]
fn a_fire_moved_by_spring_forward_is_caught_up_at_its_moved_time() {
    let job = schedule("30 2 * * *", "Europe/Paris");
    assert_eq!(
        job.missed_since(utc("2026-03-28T01:30:00Z"), utc("2026-03-29T02:00:00Z")),
        Some(utc("2026-03-29T01:00:00Z"))
    );
}

/// The fires after `since`, walked forward one by one, telling the latest
/// one up to a `now` that only grows.
struct ForwardWalk<'a> {
    job: &'a Schedule,
    upcoming: Option<DateTime<Utc>>,
    latest: Option<DateTime<Utc>>,
}

impl<'a> ForwardWalk<'a> {
    fn new(job: &'a Schedule, since: DateTime<Utc>) -> Self {
        Self {
            job,
            upcoming: job.next_after(since),
            latest: None,
        }
    }

    fn latest_up_to(&mut self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        while let Some(fire) = self.upcoming.filter(|fire| *fire <= now) {
            self.latest = Some(fire);
            self.upcoming = self.job.next_after(fire);
        }
        self.latest
    }
}

#[test]
fn missed_since_agrees_with_walking_forward_across_daylight_saving_changes() {
    let expressions = [
        "30 2 * * *",
        "30 1 * * *",
        "0 * * * *",
        "*/20 * * * *",
        "15 1-3 * * *",
        "0 9 * * 1-5",
        "0 0 1 * *",
    ];
    let zones = [
        "Europe/Paris",
        "America/New_York",
        "Australia/Lord_Howe",
        "UTC",
    ];
    // Windows that end every 10 minutes through both changes of 2026.
    // (Lord Howe moves its clock by half an hour, on 5 April and 4 October.)
    let starts = [
        "2026-03-07T00:00:00Z",
        "2026-03-28T12:00:00Z",
        "2026-04-04T06:00:00Z",
        "2026-10-03T06:00:00Z",
        "2026-10-24T12:00:00Z",
        "2026-10-31T12:00:00Z",
    ];
    for expression in expressions {
        for zone in zones {
            let job = schedule(expression, zone);
            for start in starts {
                // `since` off the hour too, as a fire or an arming leaves it.
                for offset in [0, 37, 95] {
                    let since = utc(start) + Duration::minutes(offset);
                    let mut walk = ForwardWalk::new(&job, since);
                    for step in 0..(36 * 6) {
                        let now = since + Duration::minutes(10 * step);
                        assert_eq!(
                            job.missed_since(since, now),
                            walk.latest_up_to(now),
                            "{expression} in {zone}, since {since}, now {now}"
                        );
                    }
                }
            }
        }
    }
}
