#![doc = include_str!("../README.md")]

mod call;
mod command;
mod error;
mod pool;
mod process;
mod request;
mod wire;
mod worker;

pub use command::{WORKER_PROGRAM, WorkerCommand};
pub use error::{EvalError, EvalFailure, Result};
pub use pool::Sandbox;
pub use request::{Bridge, BridgeCall, EvalOutcome, EvalRequest, Limits};
pub use worker::worker_main;
