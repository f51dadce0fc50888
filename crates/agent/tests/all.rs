//! The integration tests of pizza-agent, one binary: a real SQLite store on
//! a temp dir, `FakeModel` for the model, events through a channel sink.

// Helpers outside #[test] functions panic on setup failures too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod approvals;
    mod cancel;
    mod eval;
    mod harness;
    mod hitl;
    mod limits;
    mod recovery;
    mod summarize;
    mod tasks;
    mod tasks_hitl;
    mod tool_images;
    mod turns;
}
