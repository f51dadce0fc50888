//! The Pizza Bot desktop binary: the composition root. It resolves the data
//! root, starts logging, opens the headless [`pizza_host::Host`], and wires it
//! to the window through one adapter per protocol command.

mod attachment_scheme;
mod autostart;
mod builtin_skills;
mod commands;
mod desktop_font;
mod desktop_theme;
mod eval_worker;
mod events;
mod first_paint;
mod frames;
mod ipc;
mod keychain;
mod links;
mod logging;
mod main_window;
mod mapped_pages;
mod navigate;
mod network_process;
mod notifications;
mod opener;
mod outbox;
mod quick_ask;
mod session_bus;
mod shortcut;
mod sleep;
mod startup;
mod tray;
mod type_ahead;
mod ui_assets;
mod web_extension;
mod web_preload;
mod webview;

use std::process::ExitCode;

pub use ipc::CommandRegistry;
pub use keychain::{KEYCHAIN_SERVICE, KeychainSecrets};
pub use notifications::DesktopNotifier;

/// Runs the app until the user quits; the exit code reports startup failures.
pub fn run() -> ExitCode {
    // Asked on a terminal: answered there, without starting the app (nor
    // reaching one already running).
    if let Some(answer) = startup::terminal_answer(std::env::args()) {
        println!("{answer}");
        return ExitCode::SUCCESS;
    }
    // Before anything is loaded at run time (see mapped_pages.rs).
    mapped_pages::note_start();
    // Before any thread starts (see crates/pages).
    pizza_pages::hold_allocator_thresholds();
    startup::run()
}
