#![doc = include_str!("../README.md")]

mod describe;
mod error;
mod expression;
mod runtime;
mod schedule;
pub mod webhook;

pub use error::{Error, Result};
#[cfg(any(test, feature = "test-support"))]
pub use runtime::ManualClock;
pub use runtime::{
    CLOCK_JUMP, FireError, Fired, LATE_AFTER, Launch, Launched, NAP, Nap, Scheduler, Sink,
    StartOptions, SystemClock, WallClock,
};
pub use schedule::{Schedule, Zone};

/// Re-exported so callers name instants with the same types as the scheduler.
pub use chrono::{DateTime, Utc};

#[cfg(test)]
mod runtime_support;
#[cfg(test)]
mod runtime_tests;
