//! pizza-test-support's integration tests, one binary.

// Helpers outside `#[test]` fns unwrap too: a failed step is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod everything_http;
    mod mcp_test_server;
}
