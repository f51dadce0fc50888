//! `skill_*`: the Skills page's catalog (built-in, plugin, the person's
//! own), the editor's reads and writes, the switches, ZIP import, and the
//! roster every run starts with. The catalog is re-read after every change
//! (and when the user folder changes on disk), then `skills_changed` tells
//! the window to re-read it.

mod deps;
mod roster;
pub(crate) mod surface;
mod views;

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use pizza_agent::{Subagent, UnavailableSkill};
use pizza_extensions::{
    BundleFile, Catalog, CatalogEntry, CatalogSources, EnablementOverlay, PluginSkills, RawSkill,
    SKILL_KIND, SkillSource, UserSkillsWatcher,
};
use pizza_protocol::{
    ApiError, AppEvent, SkillDetail, SkillFileText, SkillImportChooseParams, SkillImportParams,
    SkillList, SkillListParams, SkillNameParams, SkillSaveParams, SkillSetEnabledParams, SkillView,
};
use pizza_store::Store;
use pizza_tools::ToolRegistry;
use tokio::sync::{Mutex, mpsc};

use deps::servers_of;
use surface::ToolSurface;

use crate::desktop::OpenDialog;
use crate::events::AppEvents;
use crate::{Host, HostError};

pub(crate) use roster::Roster;
use views::{fields, file_view, shown_as_text, skill_view};

/// One reading of the catalog with the switches applied, and the roster
/// compiled from it: replaced whole, so a run never sees half a change.
#[derive(Debug)]
struct Snapshot {
    catalog: Catalog,
    roster: Roster,
    /// What the roster was compiled against: readiness is read from it too,
    /// so a skill never shows ready before runs can use it.
    surface: Arc<ToolSurface>,
}

#[derive(Debug)]
pub(crate) struct SkillService {
    store: Store,
    events: AppEvents,
    /// What a skill's refs may name: the built-in tools and what the MCP
    /// servers have now.
    surface: RwLock<Arc<ToolSurface>>,
    snapshot: RwLock<Arc<Snapshot>>,
    /// One change at a time, so two reloads never overwrite each other's
    /// newer reading with an older one.
    changes: Mutex<()>,
    watcher: std::sync::Mutex<Option<UserSkillsWatcher>>,
}

fn store_error(err: pizza_store::Error) -> ApiError {
    HostError::from(err).into()
}

/// The extension crate's refusals already start with their field or file.
fn extension_error(err: pizza_extensions::Error) -> ApiError {
    match err {
        pizza_extensions::Error::NotFound(name) => not_found(&name),
        pizza_extensions::Error::Io { .. } => {
            ApiError::general("Could not read or write the skills folder.")
                .with_details(err.to_string())
        }
        other => ApiError::new(other.code(), other.to_string()),
    }
}

fn not_found(name: &str) -> ApiError {
    ApiError::not_found(format!("There is no skill named {name}."))
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    crate::error::off_thread("Reading the skills stopped unexpectedly.", work).await
}

/// The files a skill has now: its bundle's, or a broken skill's as on disk.
fn current_files(entry: &CatalogEntry) -> Vec<BundleFile> {
    match (&entry.bundle, &entry.folder) {
        (Ok(bundle), _) => bundle.files.clone(),
        (Err(_), Some(folder)) => RawSkill::read(folder)
            .map(|raw| raw.files)
            .unwrap_or_default(),
        (Err(_), None) => Vec::new(),
    }
}

/// The editor's text files, plus the current files it was not shown as
/// text (binary, or too large) and so could not send back.
fn with_files_not_shown(given: Vec<SkillFileText>, current: Vec<BundleFile>) -> Vec<BundleFile> {
    let mut files: Vec<BundleFile> = given
        .into_iter()
        .map(|file| BundleFile::new(file.path, file.text.into_bytes()))
        .collect();
    let kept: Vec<BundleFile> = current
        .into_iter()
        .filter(|file| shown_as_text(file).is_none() && !files.iter().any(|f| f.path == file.path))
        .collect();
    files.extend(kept);
    files
}

fn required_name(name: &str) -> Result<&str, ApiError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(ApiError::invalid_input("name: is required"));
    }
    Ok(name)
}

impl SkillService {
    /// Reads the catalog and the switches; a skill that cannot be read is
    /// listed as unavailable, never an error here.
    pub(crate) async fn open(
        store: Store,
        events: AppEvents,
        builtin_dir: Option<PathBuf>,
        data_root: &Path,
        host_tools: ToolRegistry,
        plugins: Arc<dyn PluginSkills>,
    ) -> Result<Arc<Self>, HostError> {
        let surface = ToolSurface::builtin(&host_tools);
        let overlay = read_overlay(&store).await?;
        let mut sources =
            CatalogSources::new(builtin_dir, pizza_extensions::user_skills_dir(data_root));
        sources.plugins = plugins;
        let tools = Arc::clone(&surface);
        let snapshot = tokio::task::spawn_blocking(move || {
            let mut catalog = Catalog::load(sources);
            catalog.set_enablement(overlay);
            let roster = Roster::compile(&catalog, &tools.resolver, &tools.registry);
            Snapshot {
                catalog,
                roster,
                surface: tools,
            }
        })
        .await
        .map_err(|e| HostError::SkillsUnreadable {
            reason: e.to_string(),
        })?;
        Ok(Arc::new(Self {
            store,
            events,
            surface: RwLock::new(surface),
            snapshot: RwLock::new(Arc::new(snapshot)),
            changes: Mutex::new(()),
            watcher: std::sync::Mutex::new(None),
        }))
    }

    fn current(&self) -> Arc<Snapshot> {
        Arc::clone(&self.snapshot.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn surface(&self) -> Arc<ToolSurface> {
        Arc::clone(&self.surface.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// New MCP facts (a status or tool list changed, servers were added or
    /// removed): readiness and the roster follow, the switches stay.
    pub(crate) async fn set_surface(&self, surface: Arc<ToolSurface>) {
        *self.surface.write().unwrap_or_else(PoisonError::into_inner) = surface;
        if let Err(error) = self.refresh(false).await {
            tracing::warn!(?error, "could not recompile the skills after an MCP change");
        }
    }

    /// Re-reads the plugins' skills (a plugin was installed, removed or switched).
    pub(crate) async fn reload_plugins(&self) {
        if let Err(error) = self.refresh(true).await {
            tracing::warn!(?error, "could not reload the skills after a plugin change");
        }
    }

    /// The enabled skills whose refs name MCP server `server`.
    pub(crate) fn skills_using(&self, server: &str) -> Vec<String> {
        let snapshot = self.current();
        snapshot
            .catalog
            .entries()
            .iter()
            .filter(|entry| snapshot.catalog.is_enabled(entry))
            .filter(|entry| {
                entry
                    .bundle
                    .as_ref()
                    .is_ok_and(|bundle| servers_of(bundle).iter().any(|s| s == server))
            })
            .map(|entry| entry.name.clone())
            .collect()
    }

    /// The subagents and unavailable skills a run starting now gets.
    pub(crate) fn roster(&self) -> (Vec<Arc<Subagent>>, Vec<UnavailableSkill>) {
        let snapshot = self.current();
        (
            snapshot.roster.subagents.clone(),
            snapshot.roster.unavailable.clone(),
        )
    }

    /// Re-reads the switches (and the user folder when `from_disk`),
    /// recompiles the roster, swaps it in and tells the window.
    async fn refresh(&self, from_disk: bool) -> Result<Arc<Snapshot>, ApiError> {
        let _one_at_a_time = self.changes.lock().await;
        let overlay = read_overlay(&self.store).await.map_err(ApiError::from)?;
        let mut catalog = self.current().catalog.clone();
        let tools = self.surface();
        let snapshot = Arc::new(
            blocking(move || {
                if from_disk {
                    catalog.reload();
                }
                catalog.set_enablement(overlay);
                let roster = Roster::compile(&catalog, &tools.resolver, &tools.registry);
                Snapshot {
                    catalog,
                    roster,
                    surface: tools,
                }
            })
            .await?,
        );
        *self
            .snapshot
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::clone(&snapshot);
        self.events.emit(AppEvent::SkillsChanged);
        Ok(snapshot)
    }

    fn view_in(&self, snapshot: &Snapshot, name: &str) -> Result<SkillView, ApiError> {
        snapshot
            .catalog
            .listing(&snapshot.surface.resolver)
            .into_iter()
            .find(|listing| listing.name == name)
            .map(skill_view)
            .ok_or_else(|| not_found(name))
    }

    pub(crate) fn skill_list(&self) -> SkillList {
        let snapshot = self.current();
        SkillList {
            skills: snapshot
                .catalog
                .listing(&snapshot.surface.resolver)
                .into_iter()
                .map(skill_view)
                .collect(),
        }
    }

    pub(crate) async fn skill_get(&self, name: &str) -> Result<SkillDetail, ApiError> {
        let snapshot = self.current();
        let skill = self.view_in(&snapshot, name)?;
        let entry = snapshot
            .catalog
            .entry(name)
            .ok_or_else(|| not_found(name))?;
        let (skill_md, fields, files) = match (&entry.bundle, &entry.folder) {
            (Ok(bundle), _) => (
                bundle.skill_md.clone(),
                Some(fields(&bundle.manifest)),
                bundle.files.iter().map(file_view).collect(),
            ),
            // A broken skill opens as written, so the editor can fix it.
            (Err(_), Some(folder)) => {
                let folder = folder.clone();
                let raw = blocking(move || RawSkill::read(&folder))
                    .await?
                    .map_err(extension_error)?;
                (
                    raw.skill_md,
                    None,
                    raw.files.iter().map(file_view).collect(),
                )
            }
            (Err(_), None) => (String::new(), None, Vec::new()),
        };
        Ok(SkillDetail {
            skill,
            skill_md,
            fields,
            files,
        })
    }

    /// Creates or replaces the user skill. `files: None` keeps the files
    /// the skill has now (an override starts with the built-in's); a list
    /// replaces the text files, while files the editor is not shown as text
    /// (binary, or over 64 KiB) are kept unless the list names them.
    pub(crate) async fn skill_save(&self, params: SkillSaveParams) -> Result<SkillView, ApiError> {
        let name = required_name(&params.name)?.to_owned();
        let snapshot = self.current();
        let entry = snapshot.catalog.entry(&name).cloned();
        let user_dir = snapshot.catalog.user_dir().to_owned();
        let (saved_name, skill_md) = (name.clone(), params.skill_md);
        blocking(move || {
            let current = entry.as_ref().map(current_files).unwrap_or_default();
            let files = match params.files {
                None => current,
                Some(given) => with_files_not_shown(given, current),
            };
            pizza_extensions::save_user_skill(&user_dir, &saved_name, &skill_md, files)
        })
        .await?
        .map_err(extension_error)?;
        let snapshot = self.refresh(true).await?;
        self.view_in(&snapshot, &name)
    }

    pub(crate) async fn skill_delete(&self, name: &str) -> Result<(), ApiError> {
        let name = required_name(name)?;
        let snapshot = self.current();
        let entry = snapshot
            .catalog
            .entry(name)
            .ok_or_else(|| not_found(name))?;
        if entry.source != SkillSource::User {
            return Err(ApiError::invalid_input(format!(
                "name: {name} ships with the app and cannot be deleted; switch it off instead"
            )));
        }
        let user_dir = snapshot.catalog.user_dir().to_owned();
        let doomed = name.to_owned();
        blocking(move || pizza_extensions::delete_user_skill(&user_dir, &doomed))
            .await?
            .map_err(extension_error)?;
        // A later skill of that name starts switched on.
        let user = SkillSource::User.key();
        if let Err(error) = self.store.clear_enablement(SKILL_KIND, &user, name).await {
            tracing::warn!(%error, skill = name, "could not forget a deleted skill's switch");
        }
        self.refresh(true).await?;
        Ok(())
    }

    pub(crate) async fn skill_set_enabled(
        &self,
        params: SkillSetEnabledParams,
    ) -> Result<SkillView, ApiError> {
        let name = required_name(&params.name)?;
        let snapshot = self.current();
        let entry = snapshot
            .catalog
            .entry(name)
            .ok_or_else(|| not_found(name))?;
        let source = entry.source.key();
        if params.enabled {
            self.check_dependencies(entry)?;
        }
        self.store
            .set_enablement(SKILL_KIND, &source, name, params.enabled)
            .await
            .map_err(store_error)?;
        let snapshot = self.refresh(false).await?;
        self.view_in(&snapshot, name)
    }

    pub(crate) async fn skill_import(
        &self,
        params: SkillImportParams,
    ) -> Result<SkillView, ApiError> {
        let path = params.path.trim();
        if path.is_empty() {
            return Err(ApiError::invalid_input("path: choose a ZIP file"));
        }
        let path = PathBuf::from(path);
        let user_dir = self.current().catalog.user_dir().to_owned();
        let name = blocking(move || {
            let bundle = pizza_extensions::import_zip_file(&path)?;
            pizza_extensions::write_user_skill(&user_dir, &bundle)?;
            Ok::<_, pizza_extensions::Error>(bundle.name().to_owned())
        })
        .await?
        .map_err(extension_error)?;
        let snapshot = self.refresh(true).await?;
        self.view_in(&snapshot, &name)
    }

    /// Watches the user folder: a hand-made change reloads the catalog.
    /// Bursts of file events coalesce into one pending reload.
    pub(crate) fn start_watch(self: &Arc<Self>) -> Result<(), ApiError> {
        let mut watcher = self.watcher.lock().unwrap_or_else(PoisonError::into_inner);
        if watcher.is_some() {
            return Ok(());
        }
        let user_dir = self.current().catalog.user_dir().to_owned();
        let (changed, mut changes) = mpsc::channel::<()>(1);
        let started = UserSkillsWatcher::start(&user_dir, move || {
            // Full means a reload is already pending; it will see this change.
            let _ = changed.try_send(());
        })
        .map_err(extension_error)?;
        *watcher = Some(started);
        let service = Arc::downgrade(self);
        // Ends when the watcher (and so the sender) is dropped with the service.
        tokio::spawn(async move {
            while changes.recv().await.is_some() {
                let Some(service) = service.upgrade() else {
                    break;
                };
                if let Err(error) = service.refresh(true).await {
                    tracing::warn!(?error, "could not reload the skills after a change on disk");
                }
            }
        });
        Ok(())
    }
}

async fn read_overlay(store: &Store) -> Result<EnablementOverlay, HostError> {
    let rows = store.enablement(SKILL_KIND).await?;
    Ok(EnablementOverlay::from_switches(
        rows.into_iter()
            .map(|row| (row.source, row.id, row.enabled)),
    ))
}

impl Host {
    fn skills(&self) -> &Arc<SkillService> {
        &self.inner.skills
    }

    pub async fn skill_list(&self, _params: SkillListParams) -> Result<SkillList, ApiError> {
        Ok(self.skills().skill_list())
    }

    pub async fn skill_get(&self, params: SkillNameParams) -> Result<SkillDetail, ApiError> {
        self.skills().skill_get(&params.name).await
    }

    pub async fn skill_save(&self, params: SkillSaveParams) -> Result<SkillView, ApiError> {
        self.skills().skill_save(params).await
    }

    pub async fn skill_delete(&self, params: SkillNameParams) -> Result<(), ApiError> {
        self.skills().skill_delete(&params.name).await
    }

    pub async fn skill_set_enabled(
        &self,
        params: SkillSetEnabledParams,
    ) -> Result<SkillView, ApiError> {
        self.skills().skill_set_enabled(params).await
    }

    pub async fn skill_import(&self, params: SkillImportParams) -> Result<SkillView, ApiError> {
        self.skills().skill_import(params).await
    }

    /// Shows the native open dialog for a skill ZIP; `None` when the
    /// person cancelled. The path it answers is then given to `skill_import`.
    pub async fn skill_import_choose(
        &self,
        _params: SkillImportChooseParams,
    ) -> Result<Option<String>, ApiError> {
        let dialog = OpenDialog {
            title: "Import a skill".to_owned(),
            filter_name: "Skill ZIP".to_owned(),
            extension: "zip".to_owned(),
        };
        let chosen = self.inner.desktop.choose_open_file(dialog).await?;
        Ok(chosen.map(|path| path.display().to_string()))
    }

    /// Reloads the catalog (and tells the window) whenever the person's
    /// skills folder changes on disk. Call once the runtime is up.
    pub async fn start_skill_watch(&self) -> Result<(), ApiError> {
        self.skills().start_watch()
    }
}

#[cfg(test)]
#[path = "skills_tests.rs"]
pub(crate) mod tests;
