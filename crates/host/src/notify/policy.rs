//! What an activity entry says as a notification: pure functions, no I/O.

use pizza_protocol::NotificationPrefs;
use pizza_store as store;

use super::{Notification, NotificationKind};
use crate::activity::ActivityDetail;

/// Longest thread title a notification shows, "…" included.
pub(crate) const TITLE_MAX_CHARS: usize = 48;
/// How much of the answer a "Run finished" notification quotes.
pub(crate) const ANSWER_MAX_CHARS: usize = 120;
/// How much of the answer the activity entry keeps for it.
pub(crate) const ANSWER_KEPT_CHARS: usize = 400;
/// Set on runs the app's restart interrupted (see the store).
const INTERRUPTED_BY_RESTART: &str = store::INTERRUPTED_BY_RESTART;

/// The notification for one activity entry under the user's toggles; `None`
/// for outcomes that stay silent: a cancel, a run the app's restart
/// interrupted (the window offers Resume, and the app is open anyway when
/// that is noticed), or a kind the user turned off.
pub(crate) fn notification_for(
    entry: &store::ActivityEntry,
    prefs: NotificationPrefs,
) -> Option<Notification> {
    let detail = ActivityDetail::of(entry);
    let title = truncate(
        non_empty(detail.title.as_deref()).unwrap_or("Untitled thread"),
        TITLE_MAX_CHARS,
    );
    let (kind, summary, second) = match entry.status {
        store::RunStatus::Succeeded => {
            let answer = non_empty(detail.answer.as_deref())
                .map(|a| truncate(&one_line(a), ANSWER_MAX_CHARS))
                .unwrap_or_default();
            (NotificationKind::Finished, "Run finished", answer)
        }
        store::RunStatus::Failed => {
            let hint = non_empty(detail.error.as_deref())
                .unwrap_or("The run stopped with an error. Open the thread for details.");
            (NotificationKind::Failed, "Run failed", hint.to_owned())
        }
        store::RunStatus::TimedOut => {
            let hint = non_empty(detail.error.as_deref())
                .unwrap_or("The model did not answer in time. Open the thread to try again.");
            (NotificationKind::Failed, "Run timed out", hint.to_owned())
        }
        store::RunStatus::Interrupted => {
            if non_empty(detail.error_code.as_deref()) == Some(INTERRUPTED_BY_RESTART) {
                return None;
            }
            let tools = tool_names(&detail.tools);
            if tools.is_empty() {
                return None;
            }
            (
                NotificationKind::ActionRequired,
                "Action required",
                approval_sentence(&tools),
            )
        }
        store::RunStatus::Cancelled | store::RunStatus::Running => return None,
    };
    let wanted = match kind {
        NotificationKind::Finished | NotificationKind::Failed => prefs.run_finished,
        NotificationKind::ActionRequired => prefs.action_required,
    };
    if !wanted {
        return None;
    }
    let body = if second.is_empty() {
        title
    } else {
        format!("{title}\n{second}")
    };
    Some(Notification {
        thread_id: entry.thread_id.clone(),
        summary: summary.to_owned(),
        body,
        kind,
        approval: None,
    })
}

fn non_empty(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|s| !s.is_empty())
}

fn tool_names(tools: &[String]) -> Vec<String> {
    let mut names: Vec<String> = tools
        .iter()
        .map(|tool| humanize_tool(tool))
        .filter(|n| !n.is_empty())
        .collect();
    names.dedup();
    names
}

/// "Write file needs your approval." / "Write file and Edit file need …".
fn approval_sentence(tools: &[String]) -> String {
    match tools {
        [one] => format!("{one} needs your approval."),
        [first @ .., last] => format!("{} and {last} need your approval.", first.join(", ")),
        [] => String::new(),
    }
}

/// A tool's wire name as people read it: `write_file` → "Write file",
/// `mcp:github:create_issue` → "Create issue".
pub(crate) fn humanize_tool(name: &str) -> String {
    let base = name.rsplit([':', '/']).next().unwrap_or(name);
    let words = base
        .split(|c: char| c == '_' || c == '-' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Whitespace runs (newlines included) as single spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` in at most `max` characters: cut at a word boundary when one is
/// near, never inside a character, ending in "…" when anything was cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let keep: String = text.chars().take(max.saturating_sub(1)).collect();
    // Cut after the last whole word unless that throws away most of the room.
    let cut = match keep.rfind(char::is_whitespace) {
        Some(at) if keep[..at].chars().count() >= max / 2 => &keep[..at],
        _ => keep.as_str(),
    };
    let cut = cut.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':'));
    format!("{cut}…")
}

/// The start of an answer as the activity entry keeps it.
pub(crate) fn answer_excerpt(text: &str) -> String {
    truncate(&one_line(text), ANSWER_KEPT_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn titles_are_cut_on_a_word_or_char_boundary() {
        assert_eq!(truncate("Short title", 48), "Short title");
        let long = "Planning the quarterly offsite for the whole team in Lisbon";
        let cut = truncate(long, 48);
        assert_eq!(cut, "Planning the quarterly offsite for the whole…");
        assert!(cut.chars().count() <= 48);
        let word = "ü".repeat(60);
        let cut = truncate(&word, 48);
        assert_eq!(cut.chars().count(), 48);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn tool_names_read_as_words() {
        assert_eq!(humanize_tool("write_file"), "Write file");
        assert_eq!(humanize_tool("mcp:github:create_issue"), "Create issue");
        assert_eq!(
            approval_sentence(&["Write file".to_owned(), "Edit file".to_owned()]),
            "Write file and Edit file need your approval."
        );
    }
}
