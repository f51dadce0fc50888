//! End-to-end tests: the real app in a real WebKitGTK webview, driven over
//! WebDriver. `cargo xtask test` builds the app and provides the display and
//! session bus; run alone, these tests fail (never skip) when they can't start.

mod attachments;
mod automations;
mod chat;
mod desktop;
mod eval;
mod files;
mod harness;
mod inbox;
mod mcp;
mod notifications;
mod providers;
mod seed;
mod shell;
mod skills;
mod tray;
mod x11;
