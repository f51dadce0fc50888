#![doc = include_str!("../README.md")]

mod app;
mod approval;
mod attachment;
mod automations;
mod command;
mod composer;
mod desktop;
mod error;
mod event;
mod folder;
mod grant;
mod history;
mod import;
mod link;
mod logs;
mod mcp;
mod memory;
mod notification;
mod outbox;
mod plugin;
mod provider;
mod run;
mod run_commands;
mod scope;
mod settings;
mod skill;
mod thread;
mod trigger;

pub use app::{AppInfo, AppInfoParams, BuildProfile};
pub use approval::{
    ApprovalList, ApprovalListParams, ApprovalPolicy, ApprovalResetParams, ApprovalSetParams,
    ChangePreview, RememberScope, ToolApproval,
};
pub use attachment::{
    ATTACHMENT_MAX_BYTES, ATTACHMENT_NAME_MAX_BYTES, ATTACHMENT_REF_PREFIX, ATTACHMENT_SCHEME,
    ATTACHMENTS_PER_MESSAGE_MAX, AttachmentAddParams, AttachmentIdParams, AttachmentKind,
    AttachmentPickParams, AttachmentPickResponse, AttachmentRefusal, AttachmentSource,
    AttachmentView, attachment_kind, attachment_media_type, attachment_src, check_attachment_name,
    format_size, is_attachment_id, unsupported_type_message,
};
pub use automations::{
    Automations, AutomationsGetParams, AutomationsPatch, DEFAULT_WEBHOOK_PORT, WebhookListener,
};
pub use command::{
    COMMANDS, Command, STREAM_CHANNEL_ARG, STREAM_CHANNEL_PREFIX, STREAMING_COMMANDS,
    StreamingCommand, cmd,
};
pub use composer::{
    ComposerDraftSaveParams, ComposerGetParams, ComposerHistoryAddParams, ComposerState, Draft,
    PROMPT_HISTORY_MAX,
};
pub use desktop::{
    DEFAULT_QUICK_ASK_SHORTCUT, QuickAskHideParams, QuickAskOpenThreadParams,
    QuickAskTypedAheadParams, ShortcutGetParams, ShortcutSetParams, ShortcutStatus, TypedAhead,
    WindowPaintedParams, WindowPlace, WindowScreen, WindowSnapshot,
};
pub use error::{ApiError, ErrorCode, ErrorReason};
pub use event::{AppEvent, WindowEvent};
pub use folder::{
    FOLDER_NAME_MAX, Folder, FolderCreateParams, FolderDeleteParams, FolderListParams,
    FolderUpdateParams,
};
pub use grant::{
    GRANT_ID_MAX, GRANT_PATH_MAX, GrantAccess, GrantAddParams, GrantList, GrantListParams,
    GrantRemoveParams, GrantUpdateParams, GrantView,
};
pub use history::{
    CheckpointForkParams, CheckpointGetParams, CheckpointSource, CheckpointState, CheckpointView,
    FILE_PREVIEW_MAX_BYTES, FilePreview, ThreadFileContent, ThreadFileListParams, ThreadFileParams,
    ThreadFileSaved, ThreadFileView,
};
pub use import::{
    IMPORT_PREVIEW_MAX, ImportConversation, ImportFormat, ThreadImportChooseParams,
    ThreadImportParams, ThreadImportPreview,
};
pub use link::{LINK_MAX, LinkOpenParams, is_external_link};
pub use logs::{
    AppDiagnostics, AppDiagnosticsParams, LOG_LINE_MAX_CHARS, LOG_QUERY_MAX_CHARS,
    LOG_READ_DEFAULT_LINES, LOG_READ_MAX_LINES, LogLevel, LogLine, LogOpenFolderParams, LogRead,
    LogReadParams,
};
pub use mcp::{
    McpEntryValue, McpImportCandidate, McpImportParams, McpImportPreview, McpImportPreviewParams,
    McpImportSource, McpKeyValue, McpServerEntry, McpServerIdParams, McpServerList,
    McpServerListParams, McpServerSaveParams, McpServerSetEnabledParams, McpServerView,
    McpSkillDraft, McpStatus, McpToolReviewParams, McpToolView, McpTransportKind, REDACTED,
};
pub use memory::{
    MEMORY_CONTENT_MAX, MEMORY_NAME_MAX, MEMORY_PREVIEW_CHARS, MemoryEntry, MemoryFile, MemoryList,
    MemoryListParams, MemoryNameParams, MemoryWriteParams,
};
pub use notification::{
    NotificationStatus, NotificationStatusParams, NotificationTakePendingParams,
};
pub use outbox::{DragPhase, OUTBOX_WAIT_SECS, OutboxTakeParams, PageMessage};
pub use plugin::{
    PluginInstallChooseParams, PluginInstallParams, PluginInstallPreview, PluginList,
    PluginListParams, PluginNameParams, PluginSetEnabledParams, PluginStatus, PluginView,
};
pub use provider::{
    AuthField, AuthFieldKind, COMPATIBLE_PREFIX, ContextSource, LocalServer, LocalServerKind,
    LocalServerList, ModelDefault, ModelDefaultGetParams, ModelDefaultSetParams, ModelEnablement,
    ModelInfo, ModelList, ModelListParams, ModelOverride, ModelOverrideSetParams, ModelPrice,
    ProviderAddParams, ProviderCatalogState, ProviderConfigureParams, ProviderDiscoverParams,
    ProviderIdParams, ProviderInfo, ProviderList, ProviderListParams, ProviderStatus,
    ProviderTestResult, split_model_id,
};
pub use run::{
    ApprovalRequest, DecidedFrom, Decision, DecisionKind, Interrupt, InterruptResponse, RunEvent,
    RunEventFrame, RunId, RunStatus,
};
pub use run_commands::{
    MESSAGE_TEXT_MAX_BYTES, QueueAddParams, QueueAddResponse, QueueRemoveParams, RunCancelParams,
    RunCancelResponse, RunRespondParams, RunStartParams, RunStartResponse, ThreadSubscribeParams,
    ThreadSubscribeResponse, ThreadUnsubscribeParams, ThreadViewingParams,
};
pub use scope::{QUICK_ASK_COMMANDS, WindowScope};
pub use settings::{
    AgentSettings, DEFAULT_EVAL_TIMEOUT_SECS, DEFAULT_MAX_SUBAGENT_TOOL_CALLS,
    DEFAULT_MAX_TOOL_CALLS, DEFAULT_MCP_TOOL_TIMEOUT_SECS, EVAL_TIMEOUT_MAX_SECS,
    MAX_TOOL_CALLS_LIMIT, MCP_TOOL_TIMEOUT_MAX_SECS, NotificationPrefs, PERSONA_MAX_CHARS,
    Settings, SettingsGetParams, SettingsPatch, Theme,
};
pub use skill::{
    SKILL_FILE_TEXT_MAX_BYTES, SkillDetail, SkillFields, SkillFileText, SkillFileView,
    SkillImportChooseParams, SkillImportParams, SkillInterrupt, SkillList, SkillListParams,
    SkillNameParams, SkillReadiness, SkillReadinessState, SkillSaveParams, SkillSetEnabledParams,
    SkillSourceKind, SkillView,
};
pub use thread::Source;
pub use thread::{ContextUse, DelegatedCall, DelegationView};
pub use thread::{
    ExportChooseParams, ExportFormat, ExportTarget, FolderId, FolderMove, MessageId, MessagePart,
    MessageView, QueuedMessage, Role, RunBrief, SearchHit, SnippetPart, ThreadCreateParams,
    ThreadDetail, ThreadExportParams, ThreadExportResponse, ThreadForkParams, ThreadGetParams,
    ThreadId, ThreadIdParams, ThreadListParams, ThreadListResponse, ThreadSearchParams,
    ThreadSource, ThreadSummary, ThreadUpdateParams, ThreadView, ViewCounts,
};
pub use trigger::{
    OccurrenceList, OccurrenceListParams, OccurrenceReason, OccurrenceStatus, OccurrenceView,
    TRIGGER_NAME_MAX_CHARS, TRIGGER_PREVIEW_FIRES, TRIGGER_PROMPT_MAX_CHARS, TriggerFired,
    TriggerIdParams, TriggerKind, TriggerList, TriggerListParams, TriggerPreview,
    TriggerPreviewParams, TriggerSaveParams, TriggerSaved, TriggerSecret, TriggerSetEnabledParams,
    TriggerView,
};

/// Bumped whenever a command or DTO changes incompatibly.
pub const PROTOCOL_VERSION: u32 = 1;
