use super::*;
use pizza_protocol::{SettingsGetParams, SettingsPatch, Theme};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;

/// A host on `root` with default options and no Ollama probe, for the
/// tests of every module.
pub(crate) async fn open(root: &TempDataRoot) -> Host {
    Host::open(
        DataRoot::prepare(root.path()).unwrap(),
        HostOptions::default().with_ollama_probe(None),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn creates_a_private_data_root_and_reports_it() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let info = host.app_info(AppInfoParams {}).await.unwrap();
    assert_eq!(info.name, "Pizza Bot");
    assert_eq!(info.version, env!("CARGO_PKG_VERSION"));
    assert_eq!(info.data_root, root.path().display().to_string());
    assert_eq!(info.protocol_version, PROTOCOL_VERSION);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(root.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
}

#[tokio::test]
async fn theme_survives_reopen() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    assert_eq!(host.theme(), Theme::System);
    assert_eq!(
        host.settings_get(SettingsGetParams {}).await.unwrap().theme,
        Theme::System
    );
    let updated = host
        .settings_update(SettingsPatch {
            theme: Some(Theme::Dark),
            ..SettingsPatch::default()
        })
        .await
        .unwrap();
    assert_eq!(updated.theme, Theme::Dark);
    assert_eq!(host.theme(), Theme::Dark, "kept for the next window");
    host.close().await;
    let host = open(&root).await;
    // Read at open: a window made before any settings read starts dark.
    assert_eq!(host.theme(), Theme::Dark);
    assert_eq!(
        host.settings_get(SettingsGetParams {}).await.unwrap().theme,
        Theme::Dark
    );
}

#[tokio::test]
async fn an_empty_patch_changes_nothing() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let before = host.settings_get(SettingsGetParams {}).await.unwrap();
    let after = host
        .settings_update(SettingsPatch::default())
        .await
        .unwrap();
    assert_eq!(before, after);
}

#[tokio::test]
async fn an_invalid_stored_theme_reads_as_the_default() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    host.store().set_setting("ui.theme", "neon").await.unwrap();
    assert_eq!(
        host.settings_get(SettingsGetParams {}).await.unwrap().theme,
        Theme::System
    );
}

#[test]
fn a_data_root_from_a_newer_version_is_refused() {
    let root = TempDataRoot::new().unwrap();
    std::fs::create_dir_all(root.path()).unwrap();
    std::fs::write(
        root.path().join("pizza-bot.json"),
        br#"{"data_version": 99, "written_by": "9.0.0"}"#,
    )
    .unwrap();
    let err = DataRoot::prepare(root.path()).unwrap_err();
    assert!(
        matches!(err, HostError::DataRootTooNew { found: 99, .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains(&root.path().display().to_string()),
        "{message}"
    );
    assert!(message.contains("newer version"), "{message}");
}

#[test]
fn an_unwritable_data_root_names_the_path_and_reason() {
    let root = TempDataRoot::new().unwrap();
    // A path below a regular file fails even for root, unlike permission bits.
    std::fs::write(root.base().join("file"), b"").unwrap();
    let path = root.base().join("file").join("data");
    let err = DataRoot::prepare(&path).unwrap_err();
    let message = err.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains("Not a directory"), "{message}");
}
