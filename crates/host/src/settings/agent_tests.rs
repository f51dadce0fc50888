//! Settings › General › Agent: the persona and the tool-call limit, read
//! by every run, refused by field with nothing written.

use pizza_llm::{FakeModel, FakeTurn};
use pizza_protocol::{
    AgentSettings, DEFAULT_MAX_SUBAGENT_TOOL_CALLS, DEFAULT_MAX_TOOL_CALLS, ErrorCode,
    PERSONA_MAX_CHARS, SettingsGetParams, SettingsPatch, Theme,
};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;

use crate::runs::tests::{open, start, subscribe, until_finished};

#[tokio::test]
async fn the_persona_and_limit_are_saved_and_every_run_uses_them() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("Bonjour.")]);
    let host = open(&root, &model).await;
    let defaults = host.settings_get(SettingsGetParams {}).await.unwrap();
    assert_eq!(defaults.agent, AgentSettings::default());
    assert_eq!(defaults.agent.max_tool_calls, DEFAULT_MAX_TOOL_CALLS);

    let saved = host
        .settings_update(SettingsPatch {
            persona: Some("  Answer in French.  ".to_owned()),
            max_tool_calls: Some(-1),
            ..SettingsPatch::default()
        })
        .await
        .unwrap();
    assert_eq!(
        saved.agent,
        AgentSettings {
            persona: "Answer in French.".to_owned(),
            max_tool_calls: -1,
            max_subagent_tool_calls: DEFAULT_MAX_SUBAGENT_TOOL_CALLS,
            mcp_tool_timeout_secs: pizza_protocol::DEFAULT_MCP_TOOL_TIMEOUT_SECS,
            eval_timeout_secs: pizza_protocol::DEFAULT_EVAL_TIMEOUT_SECS,
        }
    );
    let started = host.run_start(start(None, "Hello")).await.unwrap();
    let mut frames = subscribe(&host, &started.thread_id, None).await;
    until_finished(&mut frames).await;
    let system = model.requests()[0].system.clone().unwrap_or_default();
    assert!(system.contains("Answer in French."), "{system}");

    // A blank persona clears it.
    let cleared = host
        .settings_update(SettingsPatch {
            persona: Some("   ".to_owned()),
            ..SettingsPatch::default()
        })
        .await
        .unwrap();
    assert_eq!(cleared.agent.persona, "");
}

#[tokio::test]
async fn a_refused_field_is_named_and_nothing_in_the_patch_is_written() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::default()).await;
    let before = host.settings_get(SettingsGetParams {}).await.unwrap();
    let too_long = "x".repeat(PERSONA_MAX_CHARS + 1);
    let refused = host
        .settings_update(SettingsPatch {
            theme: Some(Theme::Dark),
            persona: Some(too_long),
            ..SettingsPatch::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidInput);
    assert!(
        refused.message.starts_with("persona:"),
        "{}",
        refused.message
    );
    for bad in [0, -2, 10_001] {
        let refused = host
            .settings_update(SettingsPatch {
                theme: Some(Theme::Dark),
                max_tool_calls: Some(bad),
                ..SettingsPatch::default()
            })
            .await
            .unwrap_err();
        assert!(
            refused.message.starts_with("max_tool_calls:"),
            "{bad}: {}",
            refused.message
        );
    }
    assert_eq!(
        host.settings_get(SettingsGetParams {}).await.unwrap(),
        before
    );
}

#[tokio::test]
async fn the_subagent_limit_is_saved_survives_reopening_and_is_refused_by_field() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::default()).await;
    let defaults = host.settings_get(SettingsGetParams {}).await.unwrap();
    assert_eq!(
        defaults.agent.max_subagent_tool_calls,
        DEFAULT_MAX_SUBAGENT_TOOL_CALLS
    );
    for bad in [0, -2, 10_001] {
        let refused = host
            .settings_update(SettingsPatch {
                max_tool_calls: Some(7),
                max_subagent_tool_calls: Some(bad),
                ..SettingsPatch::default()
            })
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidInput);
        assert!(
            refused.message.starts_with("max_subagent_tool_calls:"),
            "{bad}: {}",
            refused.message
        );
    }
    assert_eq!(
        host.settings_get(SettingsGetParams {}).await.unwrap(),
        defaults
    );
    for limit in [-1, 25] {
        let saved = host
            .settings_update(SettingsPatch {
                max_subagent_tool_calls: Some(limit),
                ..SettingsPatch::default()
            })
            .await
            .unwrap();
        assert_eq!(
            saved.agent,
            AgentSettings {
                max_subagent_tool_calls: limit,
                ..AgentSettings::default()
            }
        );
    }
    host.close().await;
    let host = open(&root, &FakeModel::default()).await;
    let reopened = host.settings_get(SettingsGetParams {}).await.unwrap();
    assert_eq!(reopened.agent.max_subagent_tool_calls, 25);
}
