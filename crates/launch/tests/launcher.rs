//! `pizza-bot-open` as a program: with no app answering on the session bus
//! it becomes the program beside it with its arguments untouched, and says
//! so plainly when there is none.
//!
//! One test: programs written here are started at once, and another test
//! thread starting a process meanwhile could hold them open for writing
//! (`ETXTBSY`).

use std::path::Path;
use std::process::Command;

/// A copy of the launcher in `dir`, so what is "beside it" is the test's.
fn launcher_in(dir: &Path) -> std::io::Result<std::path::PathBuf> {
    let copy = dir.join("pizza-bot-open");
    std::fs::copy(env!("CARGO_BIN_EXE_pizza-bot-open"), &copy)?;
    Ok(copy)
}

/// The launcher with no session bus to reach, on a data root of its own.
fn launch(launcher: &Path, data_root: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(launcher);
    command.args(args).env("PIZZA_DATA_ROOT", data_root).env(
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/nonexistent/pizza-bot-test-bus",
    );
    command
}

#[test]
fn with_no_app_answering_it_becomes_the_app_beside_it_or_says_there_is_none()
-> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let launcher = launcher_in(dir.path())?;
    // Stands in for the app: prints its arguments, one per line, and its pid.
    let app = dir.path().join("pizza-bot");
    std::fs::write(
        &app,
        "#!/bin/sh\nfor a in \"$@\"; do echo \"arg:$a\"; done\necho \"pid:$$\"\n",
    )?;
    std::fs::set_permissions(&app, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;

    let data = dir.path().join("data");
    let child = launch(&launcher, &data, &["--thread", "thread one", "--quick-ask"])
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let pid = child.id();
    let output = child.wait_with_output()?;
    assert!(output.status.success(), "{:?}", output.status);
    let text = String::from_utf8(output.stdout)?;
    assert_eq!(
        text,
        format!("arg:--thread\narg:thread one\narg:--quick-ask\npid:{pid}\n"),
        "the app gets the launch's arguments, in the launcher's own process"
    );

    // Asked on a terminal: never handed over, answered by the app.
    let output = launch(&launcher, &data, &["-V"]).output()?;
    assert_eq!(
        String::from_utf8(output.stdout)?.lines().next(),
        Some("arg:-V")
    );

    // Without the app beside it, it says so.
    std::fs::remove_file(&app)?;
    let output = launch(&launcher, &data, &[]).output()?;
    assert_eq!(output.status.code(), Some(127));
    let said = String::from_utf8(output.stderr)?;
    assert!(
        said.contains("pizza-bot-open: cannot start") && said.contains("pizza-bot"),
        "{said}"
    );
    Ok(())
}
