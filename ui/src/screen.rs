//! Which screen the main window shows; the shell provides it as context so
//! any screen can send the user to another.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Screen {
    Inbox,
    Skills,
    Mcp,
    Automations,
    Settings,
}
