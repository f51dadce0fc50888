//! The crate's one integration test binary; each file in `suite/` is a topic.
mod suite {
    mod fake_model;
}
