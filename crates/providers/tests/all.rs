//! The crate's one integration test binary: every wire format against the
//! mock provider server, replaying streams in each provider's documented format.
// Helpers outside #[test] fns panic on setup failure, as tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]
mod suite {
    mod anthropic;
    mod bedrock;
    mod catalog;
    mod citations;
    mod common;
    mod failures;
    mod fixtures;
    mod gemini;
    mod ollama;
    mod openai_chat;
    mod openai_compatible;
    mod openai_responses;
}
