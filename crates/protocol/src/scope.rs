//! Which commands each window may call: one table, keyed by the webview's
//! label. The host refuses a command from a window outside its scope with
//! `PERMISSION_DENIED`, so a page that is tricked into calling something its
//! window never needs cannot do it.
//!
//! The main window may call every command; a command added to
//! [`crate::COMMANDS`] is therefore main-only until it is named here for
//! another window.

use crate::command::{COMMANDS, Command, cmd};

/// A window the app opens, by its webview label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WindowScope {
    /// The app's main window (label `main`): every command.
    Main,
    /// The small quick-ask window (label `quick-ask`): ask, watch the answer
    /// stream, decide an approval it raises, open a link or the thread in
    /// the main window, hide itself. It never deletes, exports or changes grants,
    /// providers or settings.
    QuickAsk,
}

/// What the quick-ask window calls, and nothing more (the UI's quick-ask
/// module and the feed components it renders; a test in the app compares).
pub const QUICK_ASK_COMMANDS: &[&str] = &[
    cmd::AppInfo::NAME,
    cmd::SettingsGet::NAME,
    cmd::RunStart::NAME,
    // A pasted screenshot goes with the question; its chip's × removes it.
    cmd::AttachmentAdd::NAME,
    cmd::AttachmentRemove::NAME,
    cmd::RunRespond::NAME,
    // The feed's live run offers Resume and Discard after a restart.
    cmd::RunResume::NAME,
    cmd::RunDiscard::NAME,
    cmd::ThreadSubscribe::NAME,
    cmd::ThreadUnsubscribe::NAME,
    cmd::LinkOpen::NAME,
    cmd::QuickAskHide::NAME,
    // Keys typed before its page could take them.
    cmd::QuickAskTypedAhead::NAME,
    // App events, the notice that it was shown, and its stream's messages.
    cmd::OutboxTake::NAME,
    cmd::QuickAskOpenThread::NAME,
    // When its input painted, for the host's log (the desktop bench's figure).
    cmd::WindowPainted::NAME,
];

impl WindowScope {
    /// Every window, for tables and tests.
    pub const ALL: [WindowScope; 2] = [Self::Main, Self::QuickAsk];

    /// The webview label the app gives this window.
    pub const fn label(self) -> &'static str {
        match self {
            Self::Main => "main",
            Self::QuickAsk => "quick-ask",
        }
    }

    /// The window with `label`; `None` for a webview the app did not make,
    /// which may call nothing.
    pub fn for_label(label: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|scope| scope.label() == label)
    }

    /// The commands this window may call.
    pub fn commands(self) -> &'static [&'static str] {
        match self {
            Self::Main => COMMANDS,
            Self::QuickAsk => QUICK_ASK_COMMANDS,
        }
    }

    /// Whether this window may call the command named `name`.
    pub fn allows(self, name: &str) -> bool {
        self.commands().contains(&name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip_and_strangers_get_nothing() {
        for scope in WindowScope::ALL {
            assert_eq!(WindowScope::for_label(scope.label()), Some(scope));
        }
        assert_eq!(WindowScope::for_label("devtools"), None);
    }

    #[test]
    fn every_scoped_command_is_declared() {
        for scope in WindowScope::ALL {
            for name in scope.commands() {
                assert!(COMMANDS.contains(name), "{name} is not a command");
            }
        }
    }

    #[test]
    fn quick_ask_cannot_delete_export_or_change_grants_providers_or_settings() {
        let refused = [
            cmd::ThreadDelete::NAME,
            cmd::ThreadExport::NAME,
            cmd::ExportChoose::NAME,
            cmd::SettingsUpdate::NAME,
            cmd::GrantAdd::NAME,
            cmd::GrantUpdate::NAME,
            cmd::GrantRemove::NAME,
            cmd::ProviderConfigure::NAME,
            cmd::ProviderRemove::NAME,
            cmd::ModelDefaultSet::NAME,
            cmd::ModelOverrideSet::NAME,
            cmd::MemoryWrite::NAME,
            cmd::MemoryDelete::NAME,
            cmd::ShortcutSet::NAME,
        ];
        for name in refused {
            assert!(!WindowScope::QuickAsk.allows(name), "quick-ask may {name}");
            assert!(WindowScope::Main.allows(name), "main may not {name}");
        }
    }
}
