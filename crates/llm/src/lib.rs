#![doc = include_str!("../README.md")]

mod client;
mod collect;
mod error;
mod event;
#[cfg(feature = "test-support")]
mod fake;
mod message;
mod request;

pub use client::{AttachmentLimits, AttachmentSupport, EventStream, ModelClient, ModelDescriptor};
pub use collect::{Completion, StreamCollector, collect_stream};
pub use error::{Error, ErrorKind, Result};
pub use event::{Source, StopReason, StreamEvent, Usage};
#[cfg(feature = "test-support")]
pub use fake::{FakeModel, FakeStep, FakeTurn};
pub use message::{ContentPart, DocumentSource, ImageSource, Message, Role, ToolCall};
pub use request::{ModelRequest, ReasoningEffort, ToolChoice, ToolSpec};

/// Re-exported so callers of [`ModelClient::stream`] need not depend on tokio-util.
pub use tokio_util::sync::CancellationToken;
