#![doc = include_str!("../README.md")]

mod bundle;
mod catalog;
mod error;
mod plugin;
mod plugin_install;
mod skill_md;
mod tool_ref;
mod user_skills;
mod watch;
mod zip_import;

pub use bundle::{
    BundleFile, MAX_BUNDLE_BYTES, MAX_BUNDLE_FILES, MAX_FILE_BYTES, MAX_PATH_CHARS, RawSkill,
    SKILL_FILE, SkillBundle, check_file_path,
};
pub use catalog::{
    Catalog, CatalogEntry, CatalogSources, EnablementOverlay, NoPlugins, PluginSkill, PluginSkills,
    Readiness, SkillListing, SkillSource, USER_SKILLS_FOLDER, readiness, user_skills_dir,
};
pub use error::{Error, Result};
pub use plugin::{
    McpServersDecl, PLUGIN_MANIFEST, PLUGINS_FOLDER, Plugin, PluginManifest, PluginSet,
    PluginState, load_plugins, user_plugins_dir,
};
pub use plugin_install::{
    InstallPreview, MAX_PLUGIN_FILES, MAX_PLUGIN_PACKED_BYTES, MAX_PLUGIN_UNPACKED_BYTES, install,
    preview_install, remove_plugin,
};
pub use skill_md::{
    DESCRIPTION_MAX_CHARS, DISPLAY_NAME_MAX_CHARS, Decision, InterruptRule, NAME_MAX_CHARS,
    SkillManifest, parse_skill_md, validate_name,
};
pub use tool_ref::{
    BUILTIN_TOOLS, BuiltinToolResolver, FILESYSTEM_TOOLS, McpToolMatch, Resolution,
    TOOL_REF_MAX_CHARS, ToolRef, ToolResolver,
};
pub use user_skills::{delete_user_skill, save_user_skill, write_user_skill};
pub use watch::UserSkillsWatcher;
pub use zip_import::{
    MAX_ZIP_FILES, MAX_ZIP_PACKED_BYTES, MAX_ZIP_UNPACKED_BYTES, import_zip, import_zip_file,
};

/// The enablement overlay's kind for skills (`pizza_store::Store::enablement("skill")`).
pub const SKILL_KIND: &str = "skill";
/// The enablement overlay's kind for plugins, keyed by plugin name.
pub const PLUGIN_KIND: &str = "plugin";
