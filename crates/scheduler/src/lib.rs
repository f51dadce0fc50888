#![doc = include_str!("../README.md")]

mod describe;
mod error;
mod expression;
mod schedule;
pub mod webhook;

pub use error::{Error, Result};
pub use schedule::{Schedule, Zone};

/// Re-exported so callers name instants with the same types as the scheduler.
pub use chrono::{DateTime, Utc};
