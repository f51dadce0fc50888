//! Cross-crate scenarios without a window: the agent over a real store,
//! calling the real provider wire formats against local mock servers.

// Helpers outside #[test] functions panic on setup failures too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod attachments;
mod reasoning_replay;
