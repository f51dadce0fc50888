//! The integration tests of pizza-tools, one binary.

// Helpers outside #[test] functions panic on setup failures too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod boundary;
    mod boundary_corpus;
    mod boundary_races;
    mod composite_fs;
    mod fs_tools;
    mod registry;
}
