//! `pizza-bot-open`: what the desktop entry, a desktop's keyboard shortcut
//! or a script starts to open Pizza Bot. It takes the app's options
//! (`--thread <id>`, `--quick-ask`, `--hidden`) and hands them to the app
//! running on the data root, or, when none answers, becomes the app beside
//! it (`exec`: same process, same arguments). See the library's docs.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, ExitCode};

/// Exit code when the app beside this program cannot be started.
const EXIT_NO_APP: u8 = 127;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if pizza_launch::terminal_question(&args).is_none()
        && pizza_launch::hand_over_to_running_app(&args)
    {
        return ExitCode::SUCCESS;
    }
    let app = match std::env::current_exe() {
        Ok(me) => me.with_file_name(pizza_launch::APP_PROGRAM),
        Err(error) => {
            eprintln!("pizza-bot-open: cannot tell where Pizza Bot is installed: {error}");
            return ExitCode::from(EXIT_NO_APP);
        }
    };
    become_app(&app, args.get(1..).unwrap_or_default())
}

/// Replaces this process with the app (the desktop's launch tracking and a
/// script's `$!` then see the app itself); returns only when it could not.
#[cfg(unix)]
fn become_app(app: &Path, args: &[OsString]) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let error = Command::new(app).args(args).exec();
    eprintln!("pizza-bot-open: cannot start {}: {error}", app.display());
    ExitCode::from(EXIT_NO_APP)
}

/// Without `exec`: starts the app and ends with it.
#[cfg(not(unix))]
fn become_app(app: &Path, args: &[OsString]) -> ExitCode {
    match Command::new(app).args(args).status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => ExitCode::from(
            status
                .code()
                .and_then(|c| u8::try_from(c).ok())
                .unwrap_or(1),
        ),
        Err(error) => {
            eprintln!("pizza-bot-open: cannot start {}: {error}", app.display());
            ExitCode::from(EXIT_NO_APP)
        }
    }
}
