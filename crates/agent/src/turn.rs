//! The step that opens a turn: the person's message, with the calls a
//! stopped run left unanswered closed first (providers refuse a transcript
//! with an unanswered call), and a fresh budget. The host commits it in the
//! transaction that creates the run ([`pizza_store::Store::start_turn`]), so
//! a message the window was told of is never lost.

use pizza_store::{AttachmentRef, Message, NewMessage, StepCommit};

use crate::agent::Agent;
use crate::error::{Error, Result};
use crate::meta::StepMeta;
use crate::transcript::{pending_calls, tool_result_message, user_message};

/// What [`Agent::open_turn`] prepared.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenedTurn {
    pub step: StepCommit,
    /// The head checkpoint it was prepared from.
    pub head: Option<String>,
}

impl OpenedTurn {
    /// The opening step of a thread's first turn.
    pub fn first(text: &str, attachments: &[AttachmentRef]) -> Result<Self> {
        let mut meta = StepMeta::default();
        meta.new_turn();
        Ok(Self {
            step: StepCommit {
                messages: turn_messages(&[], text, attachments)?,
                files: Vec::new(),
                interrupt: None,
                metadata: meta.to_value(),
            },
            head: None,
        })
    }
}

/// Why a turn cannot begin while a tool call waits for the person.
pub const AWAITING_DECISION: &str =
    "The thread is waiting for your decision on a tool call; answer it first.";

impl Agent {
    /// Prepares the opening step of a turn on the thread as it is now.
    /// `Conflict` ([`AWAITING_DECISION`]) while a decision is pending.
    pub async fn open_turn(
        &self,
        thread_id: &str,
        text: &str,
        attachments: &[AttachmentRef],
    ) -> Result<OpenedTurn> {
        let state = self.store.state(thread_id, None).await?;
        if state.interrupt.is_some() {
            return Err(Error::conflict(AWAITING_DECISION));
        }
        let mut meta = StepMeta::read(state.checkpoint.as_ref().map(|c| &c.metadata));
        let messages = turn_messages(&state.messages, text, attachments)?;
        meta.new_turn();
        Ok(OpenedTurn {
            step: StepCommit {
                messages,
                files: Vec::new(),
                interrupt: None,
                metadata: meta.to_value(),
            },
            head: state.checkpoint.map(|c| c.id),
        })
    }
}

/// The messages that open a turn after `transcript`.
pub(crate) fn turn_messages(
    transcript: &[Message],
    text: &str,
    attachments: &[AttachmentRef],
) -> Result<Vec<NewMessage>> {
    if text.trim().is_empty() && attachments.is_empty() {
        return Err(Error::invalid("the message is empty"));
    }
    let mut messages: Vec<NewMessage> = pending_calls(transcript)?
        .into_iter()
        .map(|call| {
            tool_result_message(
                &call.id,
                "This call was not run: the run stopped before it finished.",
                true,
            )
        })
        .collect();
    messages.push(user_message(text, attachments));
    Ok(messages)
}
