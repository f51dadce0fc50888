//! The Pizza Bot desktop binary: the composition root. It resolves the data
//! root, starts logging, opens the headless [`pizza_host::Host`], and wires it
//! to the window through one adapter per protocol command.

mod commands;
mod data_root;
mod ipc;
mod logging;
mod startup;

use std::process::ExitCode;

pub use ipc::CommandRegistry;

/// Runs the app until the user quits; the exit code reports startup failures.
pub fn run() -> ExitCode {
    startup::run()
}
