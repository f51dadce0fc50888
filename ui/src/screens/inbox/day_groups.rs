//! The thread list's groups: Pinned, then Today / Yesterday / Previous 7
//! days / Older by the thread's last activity, local midnight by local
//! midnight.

use super::state::Inbox;
use leptos::prelude::*;
use pizza_protocol::ThreadSummary;

const DAY_MS: f64 = 86_400_000.0;

/// The group of pinned threads, first.
pub(super) const PINNED: &str = "Pinned";

/// The groups after Pinned, newest first: a thread is in the first one whose
/// start (local midnight today, less whole days; the last has none) it is
/// not older than. The list carries this table (`data-day-groups`) for
/// `ui/snapshot.js`, which regroups the rows of a snapshot shown on a later
/// day by it.
pub(super) const DAY_GROUPS: [(&str, Option<u32>); 4] = [
    ("Today", Some(0)),
    ("Yesterday", Some(1)),
    ("Previous 7 days", Some(7)),
    ("Older", None),
];

pub(super) fn groups() -> impl Iterator<Item = &'static str> {
    std::iter::once(PINNED).chain(DAY_GROUPS.iter().map(|(name, _)| *name))
}

pub(super) fn group_of(thread: &ThreadSummary, today: f64) -> &'static str {
    if thread.pinned {
        return PINNED;
    }
    let at = thread.last_activity_at as f64;
    let (name, _) = DAY_GROUPS
        .iter()
        .find(|(_, days)| days.is_none_or(|days| at >= today - f64::from(days) * DAY_MS))
        .unwrap_or(&DAY_GROUPS[DAY_GROUPS.len() - 1]);
    name
}

/// Local midnight today, moved on at every midnight and whenever the list
/// is read again: a window left open overnight regroups its threads.
pub(super) fn follow_today(inbox: Inbox) -> Memo<f64> {
    Memo::new(move |_| {
        crate::clock::track_midnight();
        inbox.threads.track();
        crate::clock::local_midnight(0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pizza_protocol::ThreadSource;

    fn thread(last_activity_at: i64, pinned: bool) -> ThreadSummary {
        ThreadSummary {
            id: "t".into(),
            title: String::new(),
            folder_id: None,
            pinned,
            unread: false,
            awaiting_action: false,
            source: ThreadSource::default(),
            model: None,
            created_at: 0,
            last_activity_at,
            preview: String::new(),
            parent_thread_id: None,
            last_seq: 0,
            live_run_id: None,
            last_run: None,
        }
    }

    #[test]
    fn a_thread_is_in_the_first_group_it_is_not_older_than() {
        let day = DAY_MS as i64;
        let today = 100 * day;
        let group = |at: i64| group_of(&thread(at, false), today as f64);
        assert_eq!(group(today), "Today");
        assert_eq!(group(today - 1), "Yesterday");
        assert_eq!(group(today - day), "Yesterday");
        assert_eq!(group(today - day - 1), "Previous 7 days");
        assert_eq!(group(today - 7 * day), "Previous 7 days");
        assert_eq!(group(today - 7 * day - 1), "Older");
        assert_eq!(group_of(&thread(today, true), today as f64), PINNED);
        assert_eq!(
            groups().collect::<Vec<_>>(),
            ["Pinned", "Today", "Yesterday", "Previous 7 days", "Older"]
        );
    }

    /// `ui/snapshot.js` reads the table as `[[name, days or null], …]`.
    #[test]
    fn the_day_groups_reach_the_snapshot_as_name_and_days() {
        assert_eq!(
            serde_json::to_string(&DAY_GROUPS).unwrap(),
            r#"[["Today",0],["Yesterday",1],["Previous 7 days",7],["Older",null]]"#
        );
    }
}
