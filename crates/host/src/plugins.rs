//! `plugin_*`: Claude-Code-format plugins shipped with the app or installed
//! under `<data root>/plugins`. A plugin contributes skills (to the catalog)
//! and MCP servers (to the pool); installing, removing or switching one
//! reloads both live, then `plugins_changed` tells the window.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use pizza_extensions::{PLUGIN_KIND, PluginSet, PluginSkill, PluginSkills};
use pizza_mcp::{PluginOrigin, ServerConfig, parse_servers, summary};
use pizza_protocol::{
    ApiError, AppEvent, PluginInstallChooseParams, PluginInstallParams, PluginInstallPreview,
    PluginList, PluginListParams, PluginNameParams, PluginSetEnabledParams, PluginView,
};
use pizza_store::Store;

use crate::Host;
use crate::desktop::OpenDialog;

/// The enablement overlay's source for plugins (they are keyed by name).
const PLUGIN_SOURCE: &str = "plugin";

/// The plugin set as last read; the skills catalog reads its skills here.
#[derive(Debug, Default)]
pub(crate) struct SharedPlugins(RwLock<PluginSet>);

impl SharedPlugins {
    fn get(&self) -> PluginSet {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl PluginSkills for SharedPlugins {
    fn plugin_skills(&self) -> Vec<PluginSkill> {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .plugin_skills()
    }
}

#[derive(Debug)]
pub(crate) struct PluginService {
    store: Store,
    builtin_dir: Option<PathBuf>,
    user_dir: PathBuf,
    set: Arc<SharedPlugins>,
}

fn extension_error(err: pizza_extensions::Error) -> ApiError {
    match err {
        pizza_extensions::Error::NotFound(name) => {
            ApiError::not_found(format!("There is no installed plugin named {name}."))
        }
        pizza_extensions::Error::Io { .. } => {
            ApiError::general("Could not read or write the plugins folder.")
                .with_details(err.to_string())
        }
        other => ApiError::new(other.code(), other.to_string()),
    }
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    crate::error::off_thread("Reading the plugins stopped unexpectedly.", work).await
}

/// The servers a plugin's `mcpServers` configures; a malformed object is
/// logged and contributes none (the plugin loaded it already checked).
fn plugin_servers(set: &PluginSet) -> Vec<ServerConfig> {
    let mut servers = Vec::new();
    for (plugin, object) in set.mcp_servers() {
        let origin = PluginOrigin {
            name: plugin.name.clone(),
            root: plugin.root.clone(),
        };
        match parse_servers(object, Some(&origin)) {
            Ok(parsed) => servers.extend(parsed),
            Err(error) => {
                tracing::warn!(plugin = %plugin.name, %error, "a plugin's MCP servers cannot be used");
            }
        }
    }
    servers
}

impl PluginService {
    pub(crate) async fn open(
        store: Store,
        builtin_dir: Option<PathBuf>,
        data_root: &Path,
    ) -> Result<Arc<Self>, crate::HostError> {
        let service = Arc::new(Self {
            store,
            builtin_dir,
            user_dir: pizza_extensions::user_plugins_dir(data_root),
            set: Arc::new(SharedPlugins::default()),
        });
        if let Err(error) = service.read().await {
            tracing::warn!(?error, "the plugins could not be read");
        }
        Ok(service)
    }

    pub(crate) fn shared(&self) -> Arc<SharedPlugins> {
        Arc::clone(&self.set)
    }

    /// Re-reads the folders and the switches.
    async fn read(&self) -> Result<(), ApiError> {
        let switches: BTreeMap<String, bool> = self
            .store
            .enablement(PLUGIN_KIND)
            .await
            .map_err(|e| ApiError::from(crate::HostError::from(e)))?
            .into_iter()
            .map(|row| (row.id, row.enabled))
            .collect();
        let (builtin, user) = (self.builtin_dir.clone(), self.user_dir.clone());
        let plugins =
            blocking(move || pizza_extensions::load_plugins(builtin.as_deref(), &user)).await?;
        *self.set.0.write().unwrap_or_else(PoisonError::into_inner) =
            PluginSet::with_switches(plugins, &switches);
        Ok(())
    }

    pub(crate) fn servers(&self) -> Vec<ServerConfig> {
        plugin_servers(&self.set.get())
    }

    fn view(&self, name: &str) -> Result<PluginView, ApiError> {
        self.set
            .get()
            .views()
            .into_iter()
            .find(|v| v.name == name)
            .ok_or_else(|| ApiError::not_found(format!("There is no plugin named {name}.")))
    }
}

impl Host {
    fn plugins(&self) -> &Arc<PluginService> {
        &self.inner.plugins
    }

    /// After a change: the plugins are re-read, their servers and skills
    /// follow, the window is told.
    async fn plugins_changed(&self) -> Result<(), ApiError> {
        self.plugins().read().await?;
        self.inner
            .mcp
            .set_plugin_servers(self.plugins().servers())
            .await;
        self.inner.skills.reload_plugins().await;
        self.inner.events.emit(AppEvent::PluginsChanged);
        Ok(())
    }

    pub async fn plugin_list(&self, _params: PluginListParams) -> Result<PluginList, ApiError> {
        Ok(PluginList {
            plugins: self.plugins().set.get().views(),
        })
    }

    pub async fn plugin_install_preview(
        &self,
        params: PluginInstallParams,
    ) -> Result<PluginInstallPreview, ApiError> {
        let source = required_path(&params.path)?;
        let user_dir = self.plugins().user_dir.clone();
        let preview = blocking(move || pizza_extensions::preview_install(&source, &user_dir))
            .await?
            .map_err(extension_error)?;
        let commands = match &preview.mcp_servers {
            Some(object) => {
                let origin = PluginOrigin {
                    name: preview.name.clone(),
                    root: self.plugins().user_dir.join(&preview.name),
                };
                parse_servers(object, Some(&origin))
                    .map_err(|e| ApiError::invalid_input(e.to_string()))?
                    .iter()
                    .map(|server| format!("{}: {}", server.id, summary(&server.transport)))
                    .collect()
            }
            None => Vec::new(),
        };
        Ok(PluginInstallPreview {
            name: preview.name,
            version: preview.version,
            description: preview.description,
            skills: preview.skills,
            commands,
            detail: preview.detail,
            replaces: preview.replaces,
        })
    }

    pub async fn plugin_install(
        &self,
        params: PluginInstallParams,
    ) -> Result<PluginView, ApiError> {
        let source = required_path(&params.path)?;
        let user_dir = self.plugins().user_dir.clone();
        let installed = blocking(move || pizza_extensions::install(&source, &user_dir))
            .await?
            .map_err(extension_error)?;
        self.plugins_changed().await?;
        self.plugins().view(&installed.name)
    }

    /// Stops the plugin's servers, then removes its folder.
    pub async fn plugin_remove(&self, params: PluginNameParams) -> Result<(), ApiError> {
        let name = params.name.trim().to_owned();
        let set = self.plugins().set.get();
        let Some(plugin) = set.get(&name) else {
            return Err(ApiError::not_found(format!(
                "There is no plugin named {name}."
            )));
        };
        if plugin.builtin {
            return Err(ApiError::invalid_input(format!(
                "name: {name} ships with the app and cannot be removed; switch it off instead"
            )));
        }
        let remaining: Vec<ServerConfig> = self
            .plugins()
            .servers()
            .into_iter()
            .filter(|s| s.plugin.as_ref().is_none_or(|p| p.name != name))
            .collect();
        self.inner.mcp.set_plugin_servers(remaining).await;
        let user_dir = self.plugins().user_dir.clone();
        let doomed = name.clone();
        blocking(move || pizza_extensions::remove_plugin(&doomed, &user_dir))
            .await?
            .map_err(extension_error)?;
        if let Err(error) = self
            .inner
            .store
            .clear_enablement(PLUGIN_KIND, PLUGIN_SOURCE, &name)
            .await
        {
            tracing::warn!(%error, plugin = %name, "could not forget a removed plugin's switch");
        }
        self.plugins_changed().await
    }

    pub async fn plugin_set_enabled(
        &self,
        params: PluginSetEnabledParams,
    ) -> Result<PluginView, ApiError> {
        let name = params.name.trim().to_owned();
        self.plugins().view(&name)?;
        self.inner
            .store
            .set_enablement(PLUGIN_KIND, PLUGIN_SOURCE, &name, params.enabled)
            .await
            .map_err(|e| ApiError::from(crate::HostError::from(e)))?;
        self.plugins_changed().await?;
        self.plugins().view(&name)
    }

    /// The native picker for a plugin ZIP, or a folder.
    pub async fn plugin_install_choose(
        &self,
        params: PluginInstallChooseParams,
    ) -> Result<Option<String>, ApiError> {
        let chosen = if params.folder {
            self.inner
                .desktop
                .choose_folder("Install a plugin folder".to_owned())
                .await?
        } else {
            let dialog = OpenDialog {
                title: "Install a plugin".to_owned(),
                filter_name: "Plugin ZIP".to_owned(),
                extension: "zip".to_owned(),
            };
            self.inner.desktop.choose_open_file(dialog).await?
        };
        Ok(chosen.map(|path| path.display().to_string()))
    }
}

fn required_path(path: &str) -> Result<PathBuf, ApiError> {
    let path = path.trim();
    if path.is_empty() {
        return Err(ApiError::invalid_input(
            "path: choose a plugin ZIP or folder",
        ));
    }
    Ok(PathBuf::from(path))
}
