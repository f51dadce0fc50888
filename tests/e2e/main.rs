//! End-to-end tests: the real app in a real WebKitGTK webview, driven over
//! WebDriver. `cargo xtask test` builds the app and provides the display and
//! session bus; run alone, these tests fail (never skip) when they can't start.

mod attachments;
mod automations;
mod chat;
mod desktop;
mod drafts;
mod eval;
mod files;
mod harness;
mod hidden;
mod history;
mod import;
mod inbox;
mod keyboard;
mod local_providers;
mod logs;
mod mcp;
mod notifications;
mod providers;
mod seed;
mod shell;
mod skills;
mod tray;
mod x11;
