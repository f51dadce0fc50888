//! The turn of the day, as a signal: what the page words relative to today
//! (the thread list's day groups, the automations' "Tomorrow 09:00") is
//! redrawn at local midnight in a window left open overnight.

use leptos::prelude::*;

#[derive(Debug, Clone, Copy)]
struct Midnight(RwSignal<u32>);

/// Starts the page's one midnight timer; the shell's children read it.
pub(crate) fn provide_midnight() {
    let midnight = RwSignal::new(0_u32);
    wake_at_midnight(midnight);
    provide_context(Midnight(midnight));
}

/// Makes the calling reactive scope run again just after each local
/// midnight (nothing outside the shell).
pub(crate) fn track_midnight() {
    if let Some(Midnight(midnight)) = use_context::<Midnight>() {
        midnight.track();
    }
}

/// Local midnight `days_ahead` days from today, in ms since the epoch.
pub(crate) fn local_midnight(days_ahead: u32) -> f64 {
    let day = js_sys::Date::new_0();
    day.set_hours(24 * days_ahead);
    day.set_minutes(0);
    day.set_seconds(0);
    day.set_milliseconds(0);
    day.get_time()
}

/// Bumps `midnight` a second after each local midnight, until it is
/// disposed.
fn wake_at_midnight(midnight: RwSignal<u32>) {
    let wait = (local_midnight(1) + 1000.0 - js_sys::Date::now()).max(1000.0);
    set_timeout(
        move || {
            if midnight.try_update(|tick| *tick += 1).is_some() {
                wake_at_midnight(midnight);
            }
        },
        std::time::Duration::from_millis(wait as u64),
    );
}
