//! Cross-crate scenarios without a window: the agent over a real store,
//! calling the real provider wire formats against local mock servers.

mod reasoning_replay;
