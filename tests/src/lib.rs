//! Cross-crate scenarios and end-to-end tests live in this crate's test targets.
