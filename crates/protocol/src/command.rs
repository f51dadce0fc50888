//! The command table: every IPC command is declared here exactly once.

use serde::{Serialize, de::DeserializeOwned};

/// One IPC command: its wire name and its params/response types.
///
/// The UI calls `invoke::<C>(params)` and the host registers one handler per
/// command; both sides name the command only through this trait.
pub trait Command {
    /// The wire name, `resource_verb`.
    const NAME: &'static str;
    /// What the UI sends.
    type Params: Serialize + DeserializeOwned + Send + 'static;
    /// What the host answers on success.
    type Response: Serialize + DeserializeOwned + Send + 'static;
}

/// A command that also streams events: the caller passes a channel in the
/// [`STREAM_CHANNEL_ARG`] argument, the host sends `Event`s over it (some
/// possibly before the answer) until either side ends the stream.
///
/// The UI calls `subscribe::<C>(params, on_event)` and the host registers the
/// command with `register_streaming::<C>`; the event type comes from here.
pub trait StreamingCommand: Command {
    /// One message on the stream.
    type Event: Serialize + DeserializeOwned + Send + 'static;
}

/// The invoke argument that carries a streaming command's channel; it is not
/// part of the command's params.
pub const STREAM_CHANNEL_ARG: &str = "on_event";

/// How [`STREAM_CHANNEL_ARG`] names the page's channel: this prefix, then
/// the page's id for it (a `u32`), as in Tauri's own format.
pub const STREAM_CHANNEL_PREFIX: &str = "__CHANNEL__:";

/// The name of a streaming entry; the event type only marks it as one.
macro_rules! streaming_name {
    ($name:literal $event:ty) => {
        $name
    };
}

macro_rules! commands {
    ($(
        $(#[$doc:meta])*
        $ty:ident = $name:literal, $params:ty => $response:ty $(, streams $event:ty)?;
    )*) => {
        /// Marker types, one per command; use them with `invoke::<cmd::X>`.
        pub mod cmd {
            $(
                $(#[$doc])*
                #[derive(Debug, Clone, Copy)]
                pub struct $ty;

                impl super::Command for $ty {
                    const NAME: &'static str = $name;
                    type Params = $params;
                    type Response = $response;
                }

                $(
                    impl super::StreamingCommand for $ty {
                        type Event = $event;
                    }
                )?
            )*
        }

        /// Every declared command name, in declaration order.
        pub const COMMANDS: &[&str] = &[$($name),*];

        /// The names of the commands that stream, in declaration order; each
        /// is also in [`COMMANDS`].
        pub const STREAMING_COMMANDS: &[&str] = &[$($(streaming_name!($name $event),)?)*];
    };
}

commands! {
    /// Name, version, data root and build of the running app.
    AppInfo = "app_info", crate::AppInfoParams => crate::AppInfo;
    /// What a bug report needs (versions, system, provider and MCP states),
    /// as text; never a secret.
    AppDiagnostics = "app_diagnostics", crate::AppDiagnosticsParams => crate::AppDiagnostics;
    /// The newest log lines across the rotated files, filtered by level and
    /// text; newest last.
    LogRead = "log_read", crate::LogReadParams => crate::LogRead;
    /// Shows the log folder in the system's file manager.
    LogOpenFolder = "log_open_folder", crate::LogOpenFolderParams => ();
    /// The UI preferences.
    SettingsGet = "settings_get", crate::SettingsGetParams => crate::Settings;
    /// Changes some UI preferences; answers the whole new value.
    SettingsUpdate = "settings_update", crate::SettingsPatch => crate::Settings;

    /// Every tool a run offers, with its approval policy.
    ApprovalList = "approval_list", crate::ApprovalListParams => crate::ApprovalList;
    /// Sets or clears one tool's approval policy; the next run obeys it.
    ApprovalSet = "approval_set", crate::ApprovalSetParams => crate::ApprovalList;
    /// Back to the defaults: no tool policy, no thread allowance.
    ApprovalReset = "approval_reset", crate::ApprovalResetParams => crate::ApprovalList;

    /// A new, empty thread.
    ThreadCreate = "thread_create", crate::ThreadCreateParams => crate::ThreadSummary;
    /// One page of a view (all, unread, action), with the count of each view.
    ThreadList = "thread_list", crate::ThreadListParams => crate::ThreadListResponse;
    /// A thread's metadata and a page of its messages, newest page first.
    ThreadGet = "thread_get", crate::ThreadGetParams => crate::ThreadDetail;
    /// Renames, pins, marks read/unread or moves a thread.
    ThreadUpdate = "thread_update", crate::ThreadUpdateParams => crate::ThreadSummary;
    /// Deletes a thread and everything in it.
    ThreadDelete = "thread_delete", crate::ThreadIdParams => ();
    /// A new thread holding a copy of the thread up to a message.
    ThreadFork = "thread_fork", crate::ThreadForkParams => crate::ThreadSummary;
    /// The thread's checkpoints, newest first.
    ThreadHistory = "thread_history", crate::ThreadIdParams => Vec<crate::CheckpointView>;
    /// The state at one checkpoint, read-only: a page of its messages and its files.
    CheckpointGet = "checkpoint_get", crate::CheckpointGetParams => crate::CheckpointState;
    /// A new thread that starts as the thread was at a checkpoint.
    CheckpointFork = "checkpoint_fork", crate::CheckpointForkParams => crate::ThreadSummary;
    /// The files the agent wrote in the thread, now or at a checkpoint.
    ThreadFileList = "thread_file_list", crate::ThreadFileListParams => Vec<crate::ThreadFileView>;
    /// One state file with a preview (text, a simple image, or none).
    ThreadFileGet = "thread_file_get", crate::ThreadFileParams => crate::ThreadFileContent;
    /// Saves a state file where the person chooses in the native save
    /// dialog; `None` when they cancelled.
    ThreadFileSave = "thread_file_save", crate::ThreadFileParams => Option<crate::ThreadFileSaved>;
    /// Full-text search over every message.
    ThreadSearch = "thread_search", crate::ThreadSearchParams => Vec<crate::SearchHit>;
    /// Asks where to save an export in the native save dialog; `None` when
    /// the person cancelled. The answer's token is good for one export.
    ExportChoose = "export_choose", crate::ExportChooseParams => Option<crate::ExportTarget>;
    /// Writes the thread as Markdown or JSON Lines to the file chosen with
    /// `export_choose`; `PERMISSION_DENIED` without a fresh token.
    ThreadExport = "thread_export", crate::ThreadExportParams => crate::ThreadExportResponse;
    /// Asks for a file to import in the native open dialog; `None` when the
    /// person cancelled. The path it answers goes to `thread_import_preview`.
    ThreadImportChoose = "thread_import_choose", crate::ThreadImportChooseParams => Option<String>;
    /// What importing a file would bring in (its format, the conversations
    /// with titles, times and message counts); writes nothing.
    ThreadImportPreview = "thread_import_preview", crate::ThreadImportParams => crate::ThreadImportPreview;
    /// Imports every conversation of a Pizza Bot JSON Lines export or a
    /// ChatGPT or Claude.ai `conversations.json` as read threads, all or
    /// none; `INVALID_INPUT` names the bad line.
    ThreadImport = "thread_import", crate::ThreadImportParams => Vec<crate::ThreadSummary>;

    /// Every granted folder.
    GrantList = "grant_list", crate::GrantListParams => crate::GrantList;
    /// Grants a folder (read-only unless asked); `CONFLICT` for overlaps.
    GrantAdd = "grant_add", crate::GrantAddParams => crate::GrantView;
    /// Makes a grant read-only or writable.
    GrantUpdate = "grant_update", crate::GrantUpdateParams => crate::GrantView;
    /// Removes a grant; the next tool call no longer sees the folder.
    GrantRemove = "grant_remove", crate::GrantRemoveParams => ();

    /// The memory files, with previews, and whether the agent sees them.
    MemoryList = "memory_list", crate::MemoryListParams => crate::MemoryList;
    /// One memory file's whole content.
    MemoryGet = "memory_get", crate::MemoryNameParams => crate::MemoryFile;
    /// Creates or replaces a memory file.
    MemoryWrite = "memory_write", crate::MemoryWriteParams => crate::MemoryFile;
    /// Deletes a memory file.
    MemoryDelete = "memory_delete", crate::MemoryNameParams => ();

    FolderCreate = "folder_create", crate::FolderCreateParams => crate::Folder;
    FolderList = "folder_list", crate::FolderListParams => Vec<crate::Folder>;
    /// Renames or reorders a folder.
    FolderUpdate = "folder_update", crate::FolderUpdateParams => crate::Folder;
    /// Deletes a folder; its threads move back to the inbox.
    FolderDelete = "folder_delete", crate::FolderDeleteParams => ();

    /// Every known provider: status, form schema, stored non-secret values.
    ProviderList = "provider_list", crate::ProviderListParams => crate::ProviderList;
    /// Validates and saves a provider's settings; secrets go to the keychain.
    ProviderConfigure = "provider_configure", crate::ProviderConfigureParams => crate::ProviderInfo;
    /// Forgets a provider and deletes its keychain secrets.
    ProviderRemove = "provider_remove", crate::ProviderIdParams => crate::ProviderList;
    /// Lists the provider's models now (no cache) and reports its status.
    ProviderTest = "provider_test", crate::ProviderIdParams => crate::ProviderTestResult;
    /// Adds a named OpenAI-compatible server as a provider of its own
    /// (`compatible:<slug>`); `CONFLICT` when the name is taken.
    ProviderAdd = "provider_add", crate::ProviderAddParams => crate::ProviderInfo;
    /// Looks for Ollama, a llama.cpp server and LM Studio on this machine
    /// (short timeouts); lists those that answer.
    ProviderDiscover = "provider_discover", crate::ProviderDiscoverParams => crate::LocalServerList;
    /// The models of every usable provider.
    ModelList = "model_list", crate::ModelListParams => crate::ModelList;
    /// The default model: the user's choice, else the automatic pick.
    ModelDefaultGet = "model_default_get", crate::ModelDefaultGetParams => crate::ModelDefault;
    /// Chooses the default model (`None`: automatic).
    ModelDefaultSet = "model_default_set", crate::ModelDefaultSetParams => crate::ModelDefault;
    /// Overrides (or clears) a model's context window.
    ModelOverrideSet = "model_override_set", crate::ModelOverrideSetParams => crate::ModelOverride;

    /// Starts a run (on a new thread without `thread_id`); answered before
    /// any model work. `CONFLICT` while the thread has a live run.
    RunStart = "run_start", crate::RunStartParams => crate::RunStartResponse;
    /// Cancels the thread's live run if it is still the given run.
    RunCancel = "run_cancel", crate::RunCancelParams => crate::RunCancelResponse;
    /// Answers the pending interrupt; a new run continues the work.
    RunRespond = "run_respond", crate::RunRespondParams => crate::RunStartResponse;
    /// Continues a run the app's restart interrupted, from its last checkpoint.
    RunResume = "run_resume", crate::ThreadIdParams => crate::RunStartResponse;
    /// Drops the offer to resume a run the app's restart interrupted.
    RunDiscard = "run_discard", crate::ThreadIdParams => ();
    /// Stores a file (a path, or pasted bytes) for the next message.
    AttachmentAdd = "attachment_add", crate::AttachmentAddParams => crate::AttachmentView;
    /// Opens the native file picker and stores each chosen file.
    AttachmentPick = "attachment_pick", crate::AttachmentPickParams => crate::AttachmentPickResponse;
    /// Removes an attachment not sent yet (its chip's ×); a sent one stays.
    AttachmentRemove = "attachment_remove", crate::AttachmentIdParams => ();
    /// Opens a sent attachment with the system's default app.
    AttachmentOpen = "attachment_open", crate::AttachmentIdParams => ();
    /// Sends a message, or queues it in the host while the thread is busy.
    QueueAdd = "queue_add", crate::QueueAddParams => crate::QueueAddResponse;
    /// Removes a queued message before it is sent.
    QueueRemove = "queue_remove", crate::QueueRemoveParams => ();
    /// Every thread's unsent draft and the prompts sent, for the composer
    /// after a restart.
    ComposerGet = "composer_get", crate::ComposerGetParams => crate::ComposerState;
    /// Keeps a thread's unsent text (empty clears it); `NOT_FOUND` for a
    /// deleted thread.
    ComposerDraftSave = "composer_draft_save", crate::ComposerDraftSaveParams => ();
    /// Remembers a sent prompt for ↑ recall; only the newest 100 are kept.
    ComposerHistoryAdd = "composer_history_add", crate::ComposerHistoryAddParams => ();
    /// Streams the thread's run events: the buffered ones after `since`, then
    /// the live ones, until `thread_unsubscribe` or the window goes.
    ThreadSubscribe = "thread_subscribe", crate::ThreadSubscribeParams => crate::ThreadSubscribeResponse,
        streams crate::RunEventFrame;
    /// Which thread the user is looking at, for the unread rule.
    ThreadViewing = "thread_viewing", crate::ThreadViewingParams => ();
    /// Ends a `thread_subscribe` stream; unknown ids are already ended.
    ThreadUnsubscribe = "thread_unsubscribe", crate::ThreadUnsubscribeParams => ();
    /// The main window's screen and open thread, as they change.
    WindowPlaceSet = "window_place_set", crate::WindowPlace => ();
    /// What the main window shows, for the next window to show at once.
    WindowSnapshotSet = "window_snapshot_set", crate::WindowSnapshot => ();
    /// The window painted its inbox for the first time (logged).
    WindowPainted = "window_painted", crate::WindowPaintedParams => ();
    /// What the host has for the calling window since its last call, oldest
    /// first; waits up to `OUTBOX_WAIT_SECS` for something, then answers
    /// nothing. The page asks again as each answer comes.
    OutboxTake = "outbox_take", crate::OutboxTakeParams => Vec<crate::PageMessage>;

    /// Hides the quick-ask window; its run keeps going.
    QuickAskHide = "quick_ask_hide", crate::QuickAskHideParams => ();
    /// Takes, once, what was typed into a quick-ask window made anew before
    /// its page could take keys (called when its input has the focus).
    QuickAskTypedAhead = "quick_ask_typed_ahead", crate::QuickAskTypedAheadParams => crate::TypedAhead;
    /// Shows the main window on the thread and hides the quick-ask window.
    QuickAskOpenThread = "quick_ask_open_thread", crate::QuickAskOpenThreadParams => ();
    /// The quick-ask global shortcut and whether it works here.
    ShortcutGet = "shortcut_get", crate::ShortcutGetParams => crate::ShortcutStatus;
    /// Registers a new quick-ask shortcut; a taken or invalid one is refused
    /// and the previous one stays.
    ShortcutSet = "shortcut_set", crate::ShortcutSetParams => crate::ShortcutStatus;

    /// Whether native notifications can be shown (a notification service is running).
    NotificationStatus = "notification_status", crate::NotificationStatusParams => crate::NotificationStatus;
    /// Takes the thread a clicked notification asks to show, once.
    NotificationTakePending = "notification_take_pending", crate::NotificationTakePendingParams => Option<crate::ThreadId>;

    /// Opens an `http`, `https` or `mailto` link in the system's browser or
    /// mail app; any other link is `INVALID_INPUT`. The webview itself never
    /// navigates away from the app.
    LinkOpen = "link_open", crate::LinkOpenParams => ();

    /// Every trigger with its schedule in words, next fire and last outcome.
    TriggerList = "trigger_list", crate::TriggerListParams => crate::TriggerList;
    /// The next fire times of a cron expression in a zone, and its words;
    /// `INVALID_INPUT` naming the field.
    TriggerPreview = "trigger_preview", crate::TriggerPreviewParams => crate::TriggerPreview;
    /// Creates or updates a trigger; bad input is `INVALID_INPUT` naming the
    /// field, and nothing is saved.
    /// A new webhook trigger's secret is in the answer, once.
    TriggerSave = "trigger_save", crate::TriggerSaveParams => crate::TriggerSaved;
    /// Deletes a trigger and its history.
    TriggerDelete = "trigger_delete", crate::TriggerIdParams => ();
    /// Arms or disarms a trigger.
    TriggerSetEnabled = "trigger_set_enabled", crate::TriggerSetEnabledParams => crate::TriggerView;
    /// One page of a trigger's history, newest first.
    OccurrenceList = "occurrence_list", crate::OccurrenceListParams => crate::OccurrenceList;
    /// Fires a trigger now (reason `manual`), in a new thread, even while
    /// automations are paused or the trigger is disabled.
    TriggerRunNow = "trigger_run_now", crate::TriggerIdParams => crate::TriggerFired;
    /// Gives a webhook trigger a new secret, shown once; the old one stops working.
    TriggerRotateSecret = "trigger_rotate_secret", crate::TriggerIdParams => crate::TriggerSecret;
    /// Every skill (built-in, plugin, the person's own) with its source,
    /// override flag, switch and readiness.
    SkillList = "skill_list", crate::SkillListParams => crate::SkillList;
    /// One skill's `SKILL.md` and sibling files, for the editor.
    SkillGet = "skill_get", crate::SkillNameParams => crate::SkillDetail;
    /// Creates or replaces the person's skill (an override of a built-in of
    /// that name); bad input is `INVALID_INPUT` naming the field or file, and
    /// nothing is written.
    SkillSave = "skill_save", crate::SkillSaveParams => crate::SkillView;
    /// Deletes the person's copy of a skill; a built-in it overrode shows again.
    SkillDelete = "skill_delete", crate::SkillNameParams => ();
    /// Switches a skill on or off (remembered across restarts).
    SkillSetEnabled = "skill_set_enabled", crate::SkillSetEnabledParams => crate::SkillView;
    /// Imports a skill from a ZIP file as the person's own; a refused archive
    /// is `INVALID_INPUT` naming the file, and nothing is written.
    SkillImport = "skill_import", crate::SkillImportParams => crate::SkillView;
    /// Asks for a skill ZIP in the native open dialog; `None` when the
    /// person cancelled.
    SkillImportChoose = "skill_import_choose", crate::SkillImportChooseParams => Option<String>;
    /// Every configured MCP server (env and header values redacted) with
    /// its status, tools and stderr tail.
    McpServerList = "mcp_server_list", crate::McpServerListParams => crate::McpServerList;
    /// Adds or replaces a server in `.mcp.json` (secret values go to the
    /// keychain); it connects in the background.
    McpServerSave = "mcp_server_save", crate::McpServerSaveParams => crate::McpServerView;
    /// Removes a server; `RESOURCE_IN_USE` while an enabled skill needs it.
    McpServerDelete = "mcp_server_delete", crate::McpServerIdParams => ();
    /// Switches a server on or off; off is `RESOURCE_IN_USE` while an
    /// enabled skill needs it.
    McpServerSetEnabled = "mcp_server_set_enabled", crate::McpServerSetEnabledParams => crate::McpServerView;
    /// Connects again a server in `error` or `crashed`, now.
    McpServerReconnect = "mcp_server_reconnect", crate::McpServerIdParams => crate::McpServerView;
    /// Marks a server's tools reviewed in their current definition.
    McpToolReview = "mcp_tool_review", crate::McpToolReviewParams => crate::McpServerView;
    /// Drafts a skill that uses every tool of a connected server.
    McpSkillDraft = "mcp_skill_draft", crate::McpServerIdParams => crate::McpSkillDraft;
    /// What an import would bring in, clashes flagged; nothing is written.
    McpImportPreview = "mcp_import_preview", crate::McpImportPreviewParams => crate::McpImportPreview;
    /// Brings the chosen servers in.
    McpImport = "mcp_import", crate::McpImportParams => crate::McpServerList;
    /// Every plugin found, with its status and what it ships.
    PluginList = "plugin_list", crate::PluginListParams => crate::PluginList;
    /// What installing this ZIP or folder would bring in, for the trust prompt.
    PluginInstallPreview = "plugin_install_preview", crate::PluginInstallParams => crate::PluginInstallPreview;
    /// Installs a plugin from a ZIP or folder (replacing one of its name).
    PluginInstall = "plugin_install", crate::PluginInstallParams => crate::PluginView;
    /// Removes an installed plugin, stopping its servers first.
    PluginRemove = "plugin_remove", crate::PluginNameParams => ();
    /// Switches a plugin (its skills and servers) on or off.
    PluginSetEnabled = "plugin_set_enabled", crate::PluginSetEnabledParams => crate::PluginView;
    /// Asks for a plugin ZIP or folder in the native open dialog; `None`
    /// when the person cancelled.
    PluginInstallChoose = "plugin_install_choose", crate::PluginInstallChooseParams => Option<String>;
    /// Asks for an MCP configuration file to import; `None` when cancelled.
    McpImportChoose = "mcp_import_choose", crate::SkillImportChooseParams => Option<String>;
    /// The automations switch, start at login and the webhook listener.
    AutomationsGet = "automations_get", crate::AutomationsGetParams => crate::Automations;
    /// Changes them; absent fields stay as they are.
    AutomationsUpdate = "automations_update", crate::AutomationsPatch => crate::Automations;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn names_are_unique_and_resource_verb() {
        let unique: BTreeSet<_> = COMMANDS.iter().collect();
        assert_eq!(unique.len(), COMMANDS.len(), "duplicate command name");
        for name in COMMANDS {
            let (resource, verb) = name.split_once('_').unwrap_or(("", ""));
            assert!(
                !resource.is_empty()
                    && !verb.is_empty()
                    && name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{name} is not resource_verb"
            );
        }
    }

    #[test]
    fn marker_names_match_the_table() {
        assert_eq!(cmd::AppInfo::NAME, "app_info");
        assert_eq!(cmd::SettingsUpdate::NAME, "settings_update");
    }

    #[test]
    fn streaming_commands_are_declared_commands_with_their_event() {
        assert_eq!(STREAMING_COMMANDS, [cmd::ThreadSubscribe::NAME]);
        for name in STREAMING_COMMANDS {
            assert!(
                COMMANDS.contains(name),
                "{name} streams but is not declared"
            );
        }
        fn event_of<C: StreamingCommand>() -> std::any::TypeId
        where
            C::Event: 'static,
        {
            std::any::TypeId::of::<C::Event>()
        }
        assert_eq!(
            event_of::<cmd::ThreadSubscribe>(),
            std::any::TypeId::of::<crate::RunEventFrame>()
        );
    }
}
