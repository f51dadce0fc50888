//! The MCP page's state: the configured servers with their live status, the
//! plugins, what the editor has open and the pending import or install. The
//! shell owns it: the server list is re-read on every `mcp_status`,
//! `plugins_changed` and `skills_changed` for the window's lifetime, because
//! the status bar shows it on every page.

use crate::ipc::invoke;
use crate::latest::Latest;
use leptos::prelude::*;
use pizza_protocol::{
    ApiError, McpImportPreview, McpImportSource, McpServerListParams, McpServerView,
    PluginInstallPreview, PluginListParams, PluginView, cmd,
};

/// What the editor on the right shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Editing {
    New,
    Existing(String),
    /// The "Paste JSON" tab of the add form.
    Paste,
}

/// An import the person is looking at: where it reads from and what it
/// would bring in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PendingImport {
    pub(crate) source: McpImportSource,
    pub(crate) preview: McpImportPreview,
}

/// A plugin the person chose, waiting for their trust.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PendingInstall {
    pub(crate) path: String,
    pub(crate) preview: PluginInstallPreview,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct McpState {
    pub(crate) servers: RwSignal<Vec<McpServerView>>,
    /// Why `.mcp.json` on disk is not in use, when it is not.
    pub(crate) config_error: RwSignal<Option<String>>,
    /// False until the first answer: the status bar says nothing before.
    pub(crate) loaded: RwSignal<bool>,
    pub(crate) plugins: RwSignal<Vec<PluginView>>,
    pub(crate) editing: RwSignal<Option<Editing>>,
    pub(crate) import: RwSignal<Option<PendingImport>>,
    pub(crate) install: RwSignal<Option<PendingInstall>>,
    /// The list could not be read.
    pub(crate) error: RwSignal<Option<ApiError>>,
    /// A sentence about the last import, install or delete: (went well, text).
    pub(crate) notice: RwSignal<Option<(bool, String)>>,
    /// Bumped whenever the host says servers, plugins or skills changed.
    pub(crate) revision: RwSignal<u64>,
}

impl McpState {
    pub(crate) fn new() -> Self {
        Self {
            servers: RwSignal::new(Vec::new()),
            config_error: RwSignal::new(None),
            loaded: RwSignal::new(false),
            plugins: RwSignal::new(Vec::new()),
            editing: RwSignal::new(None),
            import: RwSignal::new(None),
            install: RwSignal::new(None),
            error: RwSignal::new(None),
            notice: RwSignal::new(None),
            revision: RwSignal::new(0),
        }
    }

    pub(crate) fn changed(self) {
        self.revision.update(|r| *r += 1);
    }

    /// Re-reads the server list on every change, for as long as the
    /// component that starts it (the shell) lives.
    pub(crate) fn sync_servers(self) {
        let asked = Latest::new();
        Effect::new(move |_| {
            self.revision.track();
            let ticket = asked.ask();
            leptos::task::spawn_local(async move {
                let answer = invoke::<cmd::McpServerList>(&McpServerListParams {}).await;
                if !ticket.is_newest() {
                    return;
                }
                match answer {
                    Ok(list) => {
                        self.servers.set(list.servers);
                        self.config_error.set(list.config_error);
                        self.loaded.set(true);
                        self.error.set(None);
                    }
                    Err(error) => self.error.set(Some(error)),
                }
                crate::snapshot::painted(crate::snapshot::Part::Mcp);
            });
        });
    }

    /// Re-reads the plugins on every change while the page is shown.
    pub(crate) fn sync_plugins(self) {
        let asked = Latest::new();
        Effect::new(move |_| {
            self.revision.track();
            let ticket = asked.ask();
            leptos::task::spawn_local(async move {
                let answer = invoke::<cmd::PluginList>(&PluginListParams {}).await;
                if !ticket.is_newest() {
                    return;
                }
                match answer {
                    Ok(list) => {
                        let _ = self.plugins.try_set(list.plugins);
                    }
                    Err(error) => {
                        let _ = self.error.try_set(Some(error));
                    }
                }
            });
        });
    }

    /// Puts a server the host just answered with into the list, so the page
    /// shows it before the next re-read.
    pub(crate) fn upsert(self, server: McpServerView) {
        self.servers
            .update(|list| match list.iter_mut().find(|s| s.id == server.id) {
                Some(slot) => *slot = server,
                None => list.push(server),
            });
    }

    pub(crate) fn upsert_plugin(self, plugin: PluginView) {
        self.plugins.update(
            |list| match list.iter_mut().find(|p| p.name == plugin.name) {
                Some(slot) => *slot = plugin,
                None => list.push(plugin),
            },
        );
    }

    pub(crate) fn server(self, id: &str) -> Option<McpServerView> {
        self.servers
            .with_untracked(|list| list.iter().find(|s| s.id == id).cloned())
    }
}

pub(crate) fn use_mcp() -> McpState {
    expect_context::<McpState>()
}
