//! Running commands with a visible, timed step line.

use anyhow::{Context, Result, bail};
use std::process::{Command, ExitStatus};
use std::time::Instant;

pub(crate) fn cargo_bin() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// Runs `cargo <args>` in the workspace root.
pub(crate) fn cargo(args: &[&str]) -> Result<()> {
    let mut command = Command::new(cargo_bin());
    command.args(args).current_dir(crate::workspace_root());
    run(&mut command)
}

/// Runs a command to completion, failing on a non-zero exit.
pub(crate) fn run(command: &mut Command) -> Result<()> {
    timed(command, |command, shown| {
        command
            .status()
            .with_context(|| format!("could not start `{shown}`"))
    })
}

/// Runs `command` through `wait` (which starts it and waits for its exit)
/// between the step's lines, failing on a non-zero exit.
pub(crate) fn timed(
    command: &mut Command,
    wait: impl FnOnce(&mut Command, &str) -> Result<ExitStatus>,
) -> Result<()> {
    let shown = show(command);
    let started = Instant::now();
    eprintln!("\n==> {shown}");
    let status = wait(command, &shown)?;
    eprintln!("<== {:.1}s  {shown}", started.elapsed().as_secs_f64());
    if !status.success() {
        bail!("`{shown}` failed ({status})");
    }
    Ok(())
}

fn show(command: &Command) -> String {
    let mut parts = vec![command.get_program().to_string_lossy().into_owned()];
    parts.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
    parts.join(" ")
}

/// Whether a program is on PATH.
pub(crate) fn have(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}
