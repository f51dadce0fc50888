//! Integration tests: one binary, real folders in temp dirs, real ZIPs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod catalog;
    mod parse;
    mod refs;
    mod shipped;
    mod support;
    mod user_skills;
    mod watch;
    mod zip_import;
}
