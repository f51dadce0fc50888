//! pizza-test-support's integration tests, one binary.

mod suite {
    mod mcp_test_server;
}
