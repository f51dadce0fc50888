//! The integration tests of pizza-tools, one binary.

// Helpers outside #[test] functions panic on setup failures too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    // The host-folder backend and its attacks are Unix (links, FIFOs, openat).
    #[cfg(unix)]
    mod boundary;
    #[cfg(unix)]
    mod boundary_corpus;
    #[cfg(unix)]
    mod boundary_races;
    #[cfg(unix)]
    mod composite_fs;
    #[cfg(unix)]
    mod eval;
    mod fs_tools;
    mod registry;
}
