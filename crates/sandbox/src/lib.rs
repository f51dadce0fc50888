#![doc = include_str!("../README.md")]

mod call;
mod command;
mod error;
mod pool;
mod process;
mod request;
mod wire;
mod worker;

pub use command::WorkerCommand;
pub use error::{EvalError, EvalFailure, Result};
pub use pool::Sandbox;
pub use request::{Bridge, BridgeCall, EvalOutcome, EvalRequest, Limits};
pub use worker::worker_main;

/// The argument that starts the app's binary as an eval worker.
pub const WORKER_ARG: &str = "--eval-worker";
