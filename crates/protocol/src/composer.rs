//! The composer's unsent drafts and sent prompts, kept by the host so they
//! survive a restart.

use serde::{Deserialize, Serialize};

use crate::ThreadId;

/// How many sent prompts ↑ recalls; older ones are forgotten.
pub const PROMPT_HISTORY_MAX: usize = 100;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComposerGetParams {}

/// Everything the composer keeps between runs of the app.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComposerState {
    /// Each thread's unsent text, the newest first.
    pub drafts: Vec<Draft>,
    /// The prompts sent, oldest first, at most [`PROMPT_HISTORY_MAX`].
    pub history: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draft {
    pub thread_id: ThreadId,
    pub text: String,
}

/// Keeps a thread's unsent text; an empty text clears it. At most
/// [`crate::MESSAGE_TEXT_MAX_BYTES`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComposerDraftSaveParams {
    pub thread_id: ThreadId,
    pub text: String,
}

/// A prompt the person sent, for ↑ recall. At most
/// [`crate::MESSAGE_TEXT_MAX_BYTES`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComposerHistoryAddParams {
    pub text: String,
}
