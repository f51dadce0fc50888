//! Integration tests: one binary, real SQLite files in temp dirs.

// clippy.toml allows these in #[test] fns only; helpers here are test code too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod attachments;
    mod checkpoints;
    mod crash;
    mod enablement;
    mod folders;
    mod fork;
    mod grants;
    mod history;
    mod occurrence_crash;
    mod occurrences;
    mod queue;
    mod runs;
    mod search;
    mod settings;
    mod support;
    mod tasks;
    mod threads;
    mod tool_allowances;
    mod triggers;
    mod turns;
}
