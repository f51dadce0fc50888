//! The one place the store's row types meet the protocol's: every other
//! crate converts with `From`, never with its own copy of the match.
//! (Message roles need none: the store uses the protocol's `Role`.)

use pizza_protocol as protocol;

use crate::attachments::Attachment;
use crate::queue::QueuedMessage;
use crate::runs::RunStatus;
use crate::threads::ThreadSource;

impl From<protocol::RunStatus> for RunStatus {
    fn from(status: protocol::RunStatus) -> Self {
        match status {
            protocol::RunStatus::Running => Self::Running,
            protocol::RunStatus::Succeeded => Self::Succeeded,
            protocol::RunStatus::Failed => Self::Failed,
            protocol::RunStatus::Interrupted => Self::Interrupted,
            protocol::RunStatus::Cancelled => Self::Cancelled,
            protocol::RunStatus::TimedOut => Self::TimedOut,
        }
    }
}

impl From<RunStatus> for protocol::RunStatus {
    fn from(status: RunStatus) -> Self {
        match status {
            RunStatus::Running => Self::Running,
            RunStatus::Succeeded => Self::Succeeded,
            RunStatus::Failed => Self::Failed,
            RunStatus::Interrupted => Self::Interrupted,
            RunStatus::Cancelled => Self::Cancelled,
            RunStatus::TimedOut => Self::TimedOut,
        }
    }
}

impl From<protocol::ThreadSource> for ThreadSource {
    fn from(source: protocol::ThreadSource) -> Self {
        match source {
            protocol::ThreadSource::User => Self::User,
            protocol::ThreadSource::Trigger => Self::Trigger,
            protocol::ThreadSource::Fork => Self::Fork,
        }
    }
}

impl From<ThreadSource> for protocol::ThreadSource {
    fn from(source: ThreadSource) -> Self {
        match source {
            ThreadSource::User => Self::User,
            ThreadSource::Trigger => Self::Trigger,
            ThreadSource::Fork => Self::Fork,
        }
    }
}

impl From<QueuedMessage> for protocol::QueuedMessage {
    fn from(message: QueuedMessage) -> Self {
        Self {
            id: message.id,
            text: message.text,
            model: message.model,
            attachments: message.attachments.iter().map(Attachment::view).collect(),
            created_at: message.created_at,
        }
    }
}
