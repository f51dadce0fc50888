//! One catalog from three sources — built-in, plugin, user — with the user
//! copy winning on a name clash, the enablement overlay and readiness.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::bundle::SkillBundle;
use crate::tool_ref::{Resolution, ToolResolver};

mod readiness;

pub use readiness::{Readiness, readiness};

/// The folder under the data root that holds the user's skills.
pub const USER_SKILLS_FOLDER: &str = "skills";

/// `<data root>/skills`.
pub fn user_skills_dir(data_root: &Path) -> PathBuf {
    data_root.join(USER_SKILLS_FOLDER)
}

/// Where a skill comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkillSource {
    /// Shipped with the app.
    Builtin,
    /// Shipped by the plugin with this id.
    Plugin(String),
    /// Written by the person under `<data root>/skills/`.
    User,
}

impl SkillSource {
    /// The source identity the enablement overlay is keyed by: `builtin`,
    /// `plugin:<id>`, `user`.
    pub fn key(&self) -> String {
        match self {
            Self::Builtin => "builtin".to_owned(),
            Self::Plugin(id) => format!("plugin:{id}"),
            Self::User => "user".to_owned(),
        }
    }

    /// Which wins on a name clash: user over plugin over built-in.
    fn precedence(&self) -> u8 {
        match self {
            Self::Builtin => 0,
            Self::Plugin(_) => 1,
            Self::User => 2,
        }
    }
}

/// A skill a plugin ships: its bundle, or why it could not be read.
#[derive(Debug, Clone)]
pub struct PluginSkill {
    pub plugin_id: String,
    /// The skill's folder name, shown when the bundle is broken.
    pub name: String,
    pub bundle: Result<Arc<SkillBundle>, String>,
}

/// The seam plugins fill: the skills every loaded plugin ships.
pub trait PluginSkills: Send + Sync + fmt::Debug {
    fn plugin_skills(&self) -> Vec<PluginSkill>;
}

/// No plugins: a catalog without a [`crate::PluginSet`].
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPlugins;

impl PluginSkills for NoPlugins {
    fn plugin_skills(&self) -> Vec<PluginSkill> {
        Vec::new()
    }
}

/// Where the catalog reads from.
#[derive(Debug, Clone)]
pub struct CatalogSources {
    /// The shipped `skills/` folder; `None` when the app has none.
    pub builtin_dir: Option<PathBuf>,
    /// `<data root>/skills` ([`user_skills_dir`]); missing means empty.
    pub user_dir: PathBuf,
    pub plugins: Arc<dyn PluginSkills>,
}

impl CatalogSources {
    pub fn new(builtin_dir: Option<PathBuf>, user_dir: PathBuf) -> Self {
        Self {
            builtin_dir,
            user_dir,
            plugins: Arc::new(NoPlugins),
        }
    }
}

/// One skill of the merged catalog.
#[derive(Debug, Clone)]
pub struct CatalogEntry {
    /// The folder name (the skill's name when it parsed).
    pub name: String,
    pub source: SkillSource,
    /// The source this entry hides (a user override of a built-in), if any.
    pub overrides: Option<SkillSource>,
    /// Its folder on disk; `None` for a plugin skill handed over in memory.
    /// A broken skill's text is read from here ([`crate::RawSkill::read`]) to fix it.
    pub folder: Option<PathBuf>,
    /// The bundle, or the reason it could not be loaded.
    pub bundle: Result<Arc<SkillBundle>, String>,
}

impl CatalogEntry {
    /// Whether this entry hides a skill of the same name from another source.
    pub fn overridden(&self) -> bool {
        self.overrides.is_some()
    }
}

/// The enablement switches of skills, keyed (source, id) — the store's
/// `enablement("skill")` rows. A skill without a switch is enabled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnablementOverlay {
    switches: BTreeMap<(String, String), bool>,
}

impl EnablementOverlay {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn from_switches<S: Into<String>>(
        switches: impl IntoIterator<Item = (S, S, bool)>,
    ) -> Self {
        let mut overlay = Self::new();
        for (source, id, enabled) in switches {
            overlay.set(source, id, enabled);
        }
        overlay
    }

    pub fn set(&mut self, source: impl Into<String>, id: impl Into<String>, enabled: bool) {
        self.switches.insert((source.into(), id.into()), enabled);
    }

    pub fn is_enabled(&self, source: &SkillSource, id: &str) -> bool {
        self.switches
            .get(&(source.key(), id.to_owned()))
            .copied()
            .unwrap_or(true)
    }
}

/// What the Skills page shows of one skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillListing {
    pub name: String,
    /// `metadata.display-name`, or the name.
    pub display_name: String,
    /// Empty when the `SKILL.md` is broken.
    pub description: String,
    pub source: SkillSource,
    pub overridden: bool,
    pub enabled: bool,
    pub readiness: Readiness,
}

/// The merged catalog. Reading is synchronous file I/O: call `load` and
/// `reload` off the async threads (`spawn_blocking`).
#[derive(Debug, Clone)]
pub struct Catalog {
    sources: CatalogSources,
    /// Built-in skills are shipped and never change while the app runs:
    /// read once, so a reload only reads the user folder and plugins.
    builtin: Vec<CatalogEntry>,
    entries: Vec<CatalogEntry>,
    overlay: EnablementOverlay,
}

impl Catalog {
    /// Reads every source. Never fails: a skill that cannot be read is an
    /// entry with its reason.
    pub fn load(sources: CatalogSources) -> Self {
        let builtin = match &sources.builtin_dir {
            Some(dir) => read_folder(dir, &SkillSource::Builtin),
            None => Vec::new(),
        };
        let mut catalog = Self {
            sources,
            builtin,
            entries: Vec::new(),
            overlay: EnablementOverlay::new(),
        };
        catalog.reload();
        catalog
    }

    /// Re-reads the user folder and the plugins' skills (changes on disk
    /// show without a restart); the built-in skills are kept.
    pub fn reload(&mut self) {
        let user = read_folder(&self.sources.user_dir, &SkillSource::User);
        let plugins = self
            .sources
            .plugins
            .plugin_skills()
            .into_iter()
            .map(|p| CatalogEntry {
                name: p.name,
                source: SkillSource::Plugin(p.plugin_id),
                overrides: None,
                folder: None,
                bundle: p.bundle,
            });
        self.entries = merge(self.builtin.iter().cloned().chain(plugins).chain(user));
    }

    /// Replaces the enablement switches (after `skill_set_enabled`).
    pub fn set_enablement(&mut self, overlay: EnablementOverlay) {
        self.overlay = overlay;
    }

    pub fn user_dir(&self) -> &Path {
        &self.sources.user_dir
    }

    /// Every skill, by name.
    pub fn entries(&self) -> &[CatalogEntry] {
        &self.entries
    }

    pub fn entry(&self, name: &str) -> Option<&CatalogEntry> {
        self.entries
            .binary_search_by(|e| e.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.entries[i])
    }

    /// The shipped built-in skill of that name, even while a user override hides it.
    pub fn builtin(&self, name: &str) -> Option<&CatalogEntry> {
        self.builtin.iter().find(|e| e.name == name)
    }

    pub fn is_enabled(&self, entry: &CatalogEntry) -> bool {
        self.overlay.is_enabled(&entry.source, &entry.name)
    }

    /// Every skill as the Skills page shows it.
    pub fn listing(&self, resolver: &dyn ToolResolver) -> Vec<SkillListing> {
        self.entries
            .iter()
            .map(|entry| {
                let (display_name, description) = match &entry.bundle {
                    Ok(b) => (
                        b.manifest.shown_name().to_owned(),
                        b.manifest.description.clone(),
                    ),
                    Err(_) => (entry.name.clone(), String::new()),
                };
                SkillListing {
                    name: entry.name.clone(),
                    display_name,
                    description,
                    source: entry.source.clone(),
                    overridden: entry.overridden(),
                    enabled: self.is_enabled(entry),
                    readiness: entry_readiness(entry, resolver),
                }
            })
            .collect()
    }

    /// The enabled skills that are ready now: what becomes subagents.
    /// Disabled skills are left out before readiness is asked.
    pub fn ready_skills(&self, resolver: &dyn ToolResolver) -> Vec<Arc<SkillBundle>> {
        self.entries
            .iter()
            .filter(|e| self.is_enabled(e))
            .filter_map(|e| match &e.bundle {
                Ok(b) if readiness(b, resolver) == Readiness::Ready => Some(Arc::clone(b)),
                _ => None,
            })
            .collect()
    }

    /// The enabled skills that are not ready, with why: what the root
    /// prompt names so the model can tell the person.
    pub fn unready_skills(&self, resolver: &dyn ToolResolver) -> Vec<(String, Readiness)> {
        self.entries
            .iter()
            .filter(|e| self.is_enabled(e))
            .map(|e| (e.name.clone(), entry_readiness(e, resolver)))
            .filter(|(_, r)| *r != Readiness::Ready)
            .collect()
    }
}

fn entry_readiness(entry: &CatalogEntry, resolver: &dyn ToolResolver) -> Readiness {
    match &entry.bundle {
        Ok(bundle) => readiness(bundle, resolver),
        Err(reason) => Readiness::Unavailable {
            reasons: vec![reason.clone()],
        },
    }
}

/// One entry per name, the highest-precedence source winning and
/// remembering which source it hides.
fn merge(entries: impl Iterator<Item = CatalogEntry>) -> Vec<CatalogEntry> {
    let mut by_name: BTreeMap<String, CatalogEntry> = BTreeMap::new();
    for mut entry in entries {
        match by_name.remove(&entry.name) {
            None => {
                by_name.insert(entry.name.clone(), entry);
            }
            Some(held) if entry.source.precedence() > held.source.precedence() => {
                entry.overrides = Some(held.overrides.unwrap_or(held.source));
                by_name.insert(entry.name.clone(), entry);
            }
            Some(held) => {
                tracing::warn!(
                    skill = %entry.name,
                    kept = %held.source.key(),
                    dropped = %entry.source.key(),
                    "two sources of equal rank ship a skill of one name; keeping the first"
                );
                by_name.insert(held.name.clone(), held);
            }
        }
    }
    by_name.into_values().collect()
}

/// Reads every skill folder in `dir`. Dot-folders (saves in progress) and
/// loose files are not skills; a folder that fails to load is an entry
/// with its error, so it never hides the others.
fn read_folder(dir: &Path, source: &SkillSource) -> Vec<CatalogEntry> {
    let listing = match fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            tracing::warn!(dir = %dir.display(), error = %e, "cannot list a skills folder");
            return Vec::new();
        }
    };
    let mut seen = BTreeSet::new();
    let mut entries = Vec::new();
    for item in listing.flatten() {
        let Some(name) = item.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let is_dir = item.file_type().is_ok_and(|t| t.is_dir());
        if name.starts_with('.') || !is_dir || !seen.insert(name.clone()) {
            continue;
        }
        let folder = item.path();
        let bundle = SkillBundle::load(&folder)
            .map(Arc::new)
            .map_err(|e| e.to_string());
        if let Err(reason) = &bundle {
            tracing::warn!(skill = %name, source = %source.key(), %reason, "a skill cannot be loaded");
        }
        entries.push(CatalogEntry {
            name,
            source: source.clone(),
            overrides: None,
            folder: Some(folder),
            bundle,
        });
    }
    entries
}

/// Readiness from one resolution per declared ref.
pub(crate) fn fold_resolutions(resolutions: impl IntoIterator<Item = Resolution>) -> Readiness {
    let mut reasons: Vec<String> = Vec::new();
    let mut loading = false;
    for resolution in resolutions {
        match resolution {
            Resolution::Ready(_) => {}
            Resolution::Loading => loading = true,
            Resolution::Unavailable(reason) => {
                if !reasons.contains(&reason) {
                    reasons.push(reason);
                }
            }
        }
    }
    if !reasons.is_empty() {
        Readiness::Unavailable { reasons }
    } else if loading {
        Readiness::Loading
    } else {
        Readiness::Ready
    }
}
