//! The typed keys read what earlier versions wrote under the same strings.

use super::*;
use crate::tests::open;
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;

#[test]
fn the_key_strings_are_the_ones_earlier_versions_wrote() {
    let names = [
        THEME.name().to_owned(),
        MEMORIES_ENABLED.name().to_owned(),
        AGENT_MAX_TOOL_CALLS.name().to_owned(),
        AGENT_REQUIRE_APPROVAL.name().to_owned(),
        AGENT_PERSONA.name().to_owned(),
        NOTIFICATIONS_CURSOR.name().to_owned(),
        NOTIFY_RUN_FINISHED.name().to_owned(),
        NOTIFY_ACTION_REQUIRED.name().to_owned(),
        DEFAULT_MODEL.name().to_owned(),
        DEFAULT_MODEL_AUTO.name().to_owned(),
        CONTEXT_OVERRIDES.name().to_owned(),
        QUICK_ASK_SHORTCUT.name().to_owned(),
        provider("openai").name().to_owned(),
    ];
    assert_eq!(
        names.each_ref().map(String::as_str),
        [
            "ui.theme",
            "memory.enabled",
            "agent.max_tool_calls",
            "agent.require_approval",
            "agent.persona",
            "notifications.cursor",
            "notifications.run_finished",
            "notifications.action_required",
            "models.default",
            "models.default_auto",
            "models.context_overrides",
            "desktop.quick_ask_shortcut",
            "providers.openai",
        ]
    );
}

#[tokio::test]
async fn values_written_by_key_string_read_back_typed() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let store = host.store();
    // As the code before the typed table wrote them: raw strings, JSON values.
    store.set_setting("ui.theme", "dark").await.unwrap();
    store.set_setting("memory.enabled", &true).await.unwrap();
    store.set_setting("agent.max_tool_calls", &7).await.unwrap();
    store
        .set_setting("agent.require_approval", &["eval", "write_file"])
        .await
        .unwrap();
    store
        .set_setting("notifications.cursor", &42)
        .await
        .unwrap();
    store
        .set_setting(
            "models.context_overrides",
            &serde_json::json!({"fake:m": 1000}),
        )
        .await
        .unwrap();
    store
        .set_setting("desktop.quick_ask_shortcut", "Ctrl+Alt+P")
        .await
        .unwrap();

    assert_eq!(THEME.read(store).await.unwrap(), Some(Theme::Dark));
    assert_eq!(MEMORIES_ENABLED.read(store).await.unwrap(), Some(true));
    assert_eq!(AGENT_MAX_TOOL_CALLS.read(store).await.unwrap(), Some(7));
    assert_eq!(
        AGENT_REQUIRE_APPROVAL.read_or_default(store).await.unwrap(),
        ["eval".to_owned(), "write_file".to_owned()].into()
    );
    assert_eq!(NOTIFICATIONS_CURSOR.read(store).await.unwrap(), Some(42));
    assert_eq!(
        CONTEXT_OVERRIDES.read_or_default(store).await.unwrap(),
        [("fake:m".to_owned(), 1000)].into()
    );
    assert_eq!(
        QUICK_ASK_SHORTCUT.read(store).await.unwrap().as_deref(),
        Some("Ctrl+Alt+P")
    );
    assert_eq!(AGENT_PERSONA.read(store).await.unwrap(), None);

    DEFAULT_MODEL
        .write(store, &"fake:m".to_owned())
        .await
        .unwrap();
    assert_eq!(
        store
            .setting_opt::<String>("models.default")
            .await
            .unwrap()
            .as_deref(),
        Some("fake:m")
    );
    DEFAULT_MODEL.delete(store).await.unwrap();
    assert_eq!(DEFAULT_MODEL.read(store).await.unwrap(), None);
}
