#![doc = include_str!("../README.md")]

mod attachments;
mod checkpoints;
mod clock;
mod drafts;
mod enablement;
mod error;
mod folders;
mod fork;
mod grants;
mod history;
mod import;
mod mcp_reviews;
mod messages;
mod migrate;
mod occurrences;
mod protocol_types;
mod queue;
mod runs;
mod search;
mod settings;
mod store;
mod tasks;
mod text;
mod threads;
mod tool_allowances;
pub mod transcript;
mod triggers;
mod turns;

pub use attachments::{Attachment, NewAttachment};
pub use checkpoints::{
    Checkpoint, CommittedStep, FILE_PATH_MAX_CHARS, FileChange, HISTORY_PAGE_MAX, StateFile,
    StateUpdate, StepCommit, ThreadState,
};
pub use clock::{Clock, ManualClock, SystemClock};
pub use drafts::Draft;
pub use enablement::{ENABLEMENT_ID_MAX_CHARS, ENABLEMENT_KIND_MAX_CHARS, Enablement};
pub use error::{DatabaseError, Error, Result};
pub use folders::{Folder, FolderUpdate};
pub use fork::ForkAt;
pub use grants::{GRANT_ID_MAX_CHARS, GRANT_PATH_MAX_CHARS, Grant};
pub use history::{CheckpointEntry, StateFileInfo};
pub use import::{ImportedMessage, ImportedThread};
pub use mcp_reviews::McpToolReview;
pub use messages::{MESSAGE_PAGE_MAX, Message, MessagePage, NewMessage, Role};
pub use migrate::SCHEMA_VERSION;
pub use occurrences::{
    CAUGHT_UP_MISSED_RUN, GAVE_UP_AFTER_MAX_ATTEMPTS, NewOccurrence, OCCURRENCE_MAX_ATTEMPTS,
    OCCURRENCE_PAGE_MAX, Occurrence, OccurrenceLaunch, OccurrenceOutcome, OccurrencePage,
    OccurrenceReason, OccurrenceStatus, Recorded, SKIPPED_PREVIOUS_RUNNING,
};
pub use queue::{QUEUE_MAX_PER_THREAD, QueuedMessage};
pub use runs::{
    ACTIVITY_PAGE_MAX, ACTIVITY_RETAINED, ActivityEntry, INTERRUPTED_BY_RESTART, NewActivity, Run,
    RunError, RunOutcome, RunSource, RunStatus,
};
pub use search::{MARK_END, MARK_START, SEARCH_LIMIT_MAX, SearchHit};
pub use store::{DB_FILE_NAME, Durability, Store, StoreOptions};
pub use tasks::{TaskState, TaskStep};
pub use threads::{
    FolderFilter, NewThread, THREAD_PAGE_MAX, Thread, ThreadPage, ThreadQuery, ThreadSource,
    ThreadUpdate, ThreadView, ViewCounts,
};
pub use transcript::{AttachmentRef, CitedSource, Part, ResultPart};
pub use triggers::{
    NewTrigger, SecretHash, TRIGGER_NAME_MAX_CHARS, TRIGGER_PROMPT_MAX_CHARS,
    TRIGGER_SCHEDULE_MAX_CHARS, Trigger, TriggerKind, TriggerSummary, TriggerUpdate,
};
pub use turns::{TurnStart, TurnStarted, TurnThread};

#[cfg(test)]
mod store_tests;
