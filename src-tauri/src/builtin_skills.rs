//! Where the shipped skills are: `$PIZZA_BUILTIN_SKILLS_DIR`, else the
//! bundle's resources (the `.deb` installs the repo's `skills/` there), else
//! the checkout's `skills/` in a debug build run from the workspace.

use std::path::{Path, PathBuf};

pub(crate) const ENV_BUILTIN_SKILLS_DIR: &str = "PIZZA_BUILTIN_SKILLS_DIR";

/// `bundle.resources` names `../skills`; the bundler files a `..` part as `_up_`.
const RESOURCE_SUBDIR: &str = "_up_/skills";

/// The built-in skills folder; `None` (with a warning) when there is none,
/// and the app runs with the person's skills only.
pub(crate) fn resolve(package_info: &tauri::PackageInfo) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(ENV_BUILTIN_SKILLS_DIR).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let resources = tauri::utils::platform::resource_dir(package_info, &tauri::Env::default())
        .ok()
        .map(|dir| dir.join(RESOURCE_SUBDIR));
    let found = first_folder(resources.into_iter().chain(checkout_skills()));
    if found.is_none() {
        tracing::warn!("no built-in skills folder was found; only your own skills are listed");
    }
    found
}

fn first_folder(candidates: impl IntoIterator<Item = PathBuf>) -> Option<PathBuf> {
    candidates.into_iter().find(|dir| Path::is_dir(dir))
}

/// The checkout's folder, for a debug build run from the workspace; a
/// release build never reads from where it was compiled.
fn checkout_skills() -> Option<PathBuf> {
    cfg!(debug_assertions).then(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../skills")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::{Call, CommandRegistry, HostSlot};
    use pizza_protocol::ErrorCode;
    use pizza_test_support::data_root::TempDataRoot;

    #[test]
    fn the_first_existing_folder_wins_and_a_debug_build_finds_the_checkouts() {
        let temp = tempfile::tempdir().unwrap();
        let missing = temp.path().join("missing");
        assert_eq!(
            first_folder([missing.clone(), temp.path().to_owned()]),
            Some(temp.path().to_owned())
        );
        assert_eq!(first_folder([missing]), None);
        let checkout = checkout_skills().unwrap();
        assert!(checkout.join("pizza-bot-guide/SKILL.md").is_file());
    }

    #[tokio::test]
    async fn the_shipped_guide_is_listed_ready_and_only_the_main_window_changes_skills() {
        let root = TempDataRoot::new().unwrap();
        let host = pizza_host::Host::open(
            pizza_host::DataRoot::prepare(root.path()).unwrap(),
            pizza_host::HostOptions::default()
                .with_ollama_probe(None)
                .with_builtin_skills(checkout_skills().unwrap()),
        )
        .await
        .unwrap();
        let slot = HostSlot::Ready(host);
        let registry = CommandRegistry::new();
        let list = registry
            .dispatch(&slot, "skill_list", serde_json::json!({}))
            .await
            .unwrap();
        let guide = list["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "pizza-bot-guide")
            .unwrap();
        assert_eq!(guide["source"], "builtin");
        assert_eq!(guide["readiness"]["state"], "ready");
        let off = serde_json::json!({"name": "pizza-bot-guide", "enabled": false});
        let refused = registry
            .dispatch_with(
                &slot,
                "skill_set_enabled",
                off,
                Call {
                    window: "quick-ask".to_owned(),
                    outbox: None,
                    channel: None,
                },
            )
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::PermissionDenied);
    }
}
