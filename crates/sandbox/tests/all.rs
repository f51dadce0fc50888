//! The sandbox's integration tests: one binary, modules under `suite/`
//! (declared inline: a `tests/suite.rs` would be a test binary of its own).

// Helpers outside `#[test]` functions panic on purpose too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod attacks;
    mod behaviour;
    mod support;
}
