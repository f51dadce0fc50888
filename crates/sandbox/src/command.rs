//! Which program runs as the worker.

use std::ffi::OsString;
use std::path::PathBuf;

/// The worker's program and arguments: the app's own binary with
/// [`crate::WORKER_ARG`], or the `pizza-eval-worker` test binary.
#[derive(Debug, Clone)]
pub struct WorkerCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

/// The test worker's file name.
const TEST_WORKER: &str = "pizza-eval-worker";

impl WorkerCommand {
    pub fn new(program: impl Into<PathBuf>, args: Vec<OsString>) -> Self {
        Self {
            program: program.into(),
            args,
        }
    }

    /// For tests of other crates: the `pizza-eval-worker` binary in the
    /// target folder of the running test executable. A test executable is
    /// `target/<profile>/deps/name-hash`, a bench or example may sit one
    /// level higher, so both parents are tried. `None` if it is not built.
    pub fn test_worker() -> Option<Self> {
        let exe = std::env::current_exe().ok()?;
        let name = format!("{TEST_WORKER}{}", std::env::consts::EXE_SUFFIX);
        let deps = exe.parent()?;
        [deps.parent(), Some(deps)]
            .into_iter()
            .flatten()
            .map(|dir| dir.join(&name))
            .find(|path| path.is_file())
            .map(|program| Self::new(program, Vec::new()))
    }

    /// The app's own binary in worker mode.
    pub fn current_exe() -> std::io::Result<Self> {
        Ok(Self::new(
            std::env::current_exe()?,
            vec![OsString::from(crate::WORKER_ARG)],
        ))
    }
}
