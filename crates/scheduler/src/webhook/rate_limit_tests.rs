use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;

use super::*;

fn three_a_minute() -> RequestWindows {
    RequestWindows::new(RateLimit {
        requests: 3,
        per: Duration::from_secs(60),
    })
}

#[test]
fn requests_past_the_limit_wait_for_the_oldest_to_leave_the_window() {
    let mut windows = three_a_minute();
    let start = Instant::now();
    assert_eq!(windows.admit("a", start), Ok(()));
    assert_eq!(windows.admit("a", start + Duration::from_secs(10)), Ok(()));
    assert_eq!(windows.admit("a", start + Duration::from_secs(20)), Ok(()));
    assert_eq!(
        windows.admit("a", start + Duration::from_secs(30)),
        Err(Duration::from_secs(30))
    );
    // Refused requests do not push the window back.
    assert_eq!(
        windows.admit("a", start + Duration::from_secs(59)),
        Err(Duration::from_secs(1))
    );
    assert_eq!(windows.admit("a", start + Duration::from_secs(60)), Ok(()));
    assert_eq!(
        windows.admit("a", start + Duration::from_secs(61)),
        Err(Duration::from_secs(9))
    );
}

#[test]
fn each_trigger_has_its_own_window() {
    let mut windows = three_a_minute();
    let now = Instant::now();
    for _ in 0..3 {
        assert_eq!(windows.admit("a", now), Ok(()));
    }
    assert!(windows.admit("a", now).is_err());
    assert_eq!(windows.admit("b", now), Ok(()));
}

#[test]
fn a_limit_of_zero_refuses_everything_for_a_window() {
    let mut windows = RequestWindows::new(RateLimit {
        requests: 0,
        per: Duration::from_secs(5),
    });
    assert_eq!(
        windows.admit("a", Instant::now()),
        Err(Duration::from_secs(5))
    );
}

#[test]
fn empty_windows_are_swept_once_many_triggers_are_tracked() {
    let mut windows = three_a_minute();
    let start = Instant::now();
    for index in 0..=TRACKED_TRIGGERS_BEFORE_SWEEP {
        assert_eq!(windows.admit(&format!("t{index}"), start), Ok(()));
    }
    let later = start + Duration::from_secs(120);
    assert_eq!(windows.admit("fresh", later), Ok(()));
    assert_eq!(windows.admitted.len(), 1);
}

#[test]
fn retry_after_rounds_up_to_whole_seconds() {
    assert_eq!(retry_after_seconds(Duration::from_millis(1)), 1);
    assert_eq!(retry_after_seconds(Duration::ZERO), 1);
    assert_eq!(retry_after_seconds(Duration::from_secs(30)), 30);
    assert_eq!(retry_after_seconds(Duration::from_millis(30_001)), 31);
}
