//! Which program runs as the worker.

use std::ffi::OsString;
use std::path::PathBuf;

/// The worker program's file name: this crate's `pizza-eval-worker` binary,
/// shipped beside the app (it links boa and little else, so the app's own
/// binary carries no interpreter and a worker starts in a few milliseconds
/// without loading the windowing libraries).
pub const WORKER_PROGRAM: &str = "pizza-eval-worker";

/// The worker's program and arguments.
#[derive(Debug, Clone)]
pub struct WorkerCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

impl WorkerCommand {
    pub fn new(program: impl Into<PathBuf>, args: Vec<OsString>) -> Self {
        Self {
            program: program.into(),
            args,
        }
    }

    /// The worker program in the first of `dirs` that has it.
    pub fn find_in(dirs: impl IntoIterator<Item = PathBuf>) -> Option<Self> {
        let name = format!("{WORKER_PROGRAM}{}", std::env::consts::EXE_SUFFIX);
        dirs.into_iter()
            .map(|dir| dir.join(&name))
            .find(|path| path.is_file())
            .map(|program| Self::new(program, Vec::new()))
    }

    /// For tests of other crates: the worker in the target folder of the
    /// running test executable. A test executable is
    /// `target/<profile>/deps/name-hash`, a bench or example may sit one
    /// level higher, so both parents are tried. `None` if it is not built.
    pub fn test_worker() -> Option<Self> {
        let exe = std::env::current_exe().ok()?;
        let deps = exe.parent()?;
        Self::find_in(
            [deps.parent(), Some(deps)]
                .into_iter()
                .flatten()
                .map(PathBuf::from),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_folder_holding_the_worker_wins() {
        let temp = tempfile::tempdir().unwrap();
        let (empty, first, second) = (
            temp.path().join("empty"),
            temp.path().join("first"),
            temp.path().join("second"),
        );
        for dir in [&empty, &first, &second] {
            std::fs::create_dir(dir).unwrap();
        }
        for dir in [&first, &second] {
            std::fs::write(dir.join(WORKER_PROGRAM), b"").unwrap();
        }
        let found = WorkerCommand::find_in([empty.clone(), first.clone(), second]).unwrap();
        assert_eq!(found.program, first.join(WORKER_PROGRAM));
        assert!(found.args.is_empty());
        assert!(WorkerCommand::find_in([empty.clone(), temp.path().join("missing")]).is_none());
        // A folder named like the program is not the program.
        std::fs::create_dir(empty.join(WORKER_PROGRAM)).unwrap();
        assert!(WorkerCommand::find_in([empty]).is_none());
    }
}
