//! The desktop commands: the quick-ask window and its global shortcut.

use serde::{Deserialize, Serialize};

use crate::thread::ThreadId;

/// The quick-ask shortcut the app registers when the user has not chosen one.
pub const DEFAULT_QUICK_ASK_SHORTCUT: &str = "Ctrl+Shift+Space";

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuickAskHideParams {}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuickAskTypedAheadParams {}

/// What was typed into a quick-ask window made anew before its page could
/// take keys: the text (Backspace applied), and whether Enter followed it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypedAhead {
    pub text: String,
    /// Enter was pressed after the text: the page sends the question.
    pub send: bool,
}

/// Shows the main window on a thread and hides the quick-ask window.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuickAskOpenThreadParams {
    pub thread_id: ThreadId,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShortcutGetParams {}

/// Chooses the quick-ask shortcut, e.g. `Ctrl+Shift+Space`; `None` turns it off.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShortcutSetParams {
    #[serde(default)]
    pub accelerator: Option<String>,
}

/// The quick-ask shortcut as the system sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShortcutStatus {
    /// The chosen shortcut; `None` when turned off.
    pub accelerator: Option<String>,
    /// Whether pressing it opens quick-ask right now.
    pub active: bool,
    /// Why it is not active, as a sentence saying what to do.
    pub problem: Option<String>,
    /// False where this system cannot have global shortcuts at all.
    pub supported: bool,
}

/// The main window's screens, as the window reports where it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowScreen {
    #[default]
    Inbox,
    Skills,
    Mcp,
    Automations,
    Settings,
}

impl WindowScreen {
    pub const ALL: [WindowScreen; 5] = [
        WindowScreen::Inbox,
        WindowScreen::Skills,
        WindowScreen::Mcp,
        WindowScreen::Automations,
        WindowScreen::Settings,
    ];

    /// Its name on the wire and in the page's address (`?screen=`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Inbox => "inbox",
            Self::Skills => "skills",
            Self::Mcp => "mcp",
            Self::Automations => "automations",
            Self::Settings => "settings",
        }
    }

    /// The screen named `name` (as [`Self::as_str`] spells it).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|screen| screen.as_str() == name)
    }
}

/// Where the main window is: its screen and open thread. The host keeps it,
/// across restarts too, and a window made again after it was released
/// (closed to the tray), or at the next start, gets it in its page's address
/// (`?screen=…&thread=…`), so it lands where the person left it from its
/// first paint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowPlace {
    pub screen: WindowScreen,
    #[serde(default)]
    pub thread_id: Option<ThreadId>,
}

/// What the main window shows, as markup for the next window to show while
/// its page starts; none when it is too large to keep.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowSnapshot {
    #[serde(default)]
    pub html: Option<String>,
}

/// The window painted its inbox for the first time: `page_ms` after its
/// page started loading; on the way, the UI's code started at `app_ms` and
/// the thread list arrived at `list_ms` (both since the page started), and
/// the last window's snapshot was painted at `snapshot_ms` if it had one;
/// `module_handed` when the UI's code came from the app in the page's
/// process (`crates/webext`), not fetched. From the quick-ask window
/// (`quick_ask`), its input painted, focused. Logged, for the start-up and
/// reopen figures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowPaintedParams {
    pub page_ms: u64,
    #[serde(default)]
    pub quick_ask: bool,
    #[serde(default)]
    pub app_ms: u64,
    #[serde(default)]
    pub list_ms: u64,
    #[serde(default)]
    pub snapshot_ms: Option<u64>,
    #[serde(default)]
    pub module_handed: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page's address and the wire name a screen alike.
    #[test]
    fn a_screens_name_is_its_wire_name_and_reads_back() {
        for screen in WindowScreen::ALL {
            assert_eq!(
                serde_json::to_value(screen).unwrap(),
                serde_json::json!(screen.as_str())
            );
            assert_eq!(WindowScreen::from_name(screen.as_str()), Some(screen));
        }
        assert_eq!(WindowScreen::from_name("Settings"), None);
        assert_eq!(WindowScreen::from_name(""), None);
    }
}
