//! The roster runs start with: only ready, enabled skills, their tools,
//! gates and files, and the unavailable ones named.

use pizza_protocol::{
    DecisionKind, SkillFileText, SkillInterrupt, SkillSaveParams, SkillSetEnabledParams,
};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;

use crate::skills::tests::{Fixture, named, save, skill_md};

#[tokio::test]
async fn the_roster_has_only_ready_enabled_skills_with_their_gates_and_files() {
    let fx = Fixture::new().await;
    let gated = skill_md(
        "gated",
        "tools: [write_file]\ninterruptOn:\n  write_file: true\n  edit_file:\n    allowedDecisions: [approve, reject]\n",
    );
    fx.host
        .skill_save(SkillSaveParams {
            files: Some(vec![SkillFileText {
                path: "ref.md".to_owned(),
                text: "ref".to_owned(),
            }]),
            ..save("gated", gated)
        })
        .await
        .unwrap();
    fx.host
        .skill_save(save("quiet", skill_md("quiet", "")))
        .await
        .unwrap();
    fx.host
        .skill_set_enabled(SkillSetEnabledParams {
            name: "quiet".to_owned(),
            enabled: false,
        })
        .await
        .unwrap();
    let (subagents, unavailable) = fx.host.inner.skills.roster();
    let names: Vec<&str> = subagents.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, vec!["gated", "guide"]);
    let gated = &subagents[0];
    assert_eq!(gated.system_prompt, "# gated\n\nDo the gated work.");
    assert_eq!(
        gated.description,
        "Use for gated work; returns a short report."
    );
    let tools: Vec<&str> = gated.tools.names().collect();
    assert_eq!(
        tools,
        vec!["edit_file", "glob", "grep", "ls", "read_file", "write_file"]
    );
    assert_eq!(
        gated.interrupt_on,
        [
            (
                "edit_file".to_owned(),
                vec![DecisionKind::Approve, DecisionKind::Reject]
            ),
            ("write_file".to_owned(), DecisionKind::ALL.to_vec()),
        ]
        .into_iter()
        .collect()
    );
    assert_eq!(gated.files, vec![("ref.md".to_owned(), b"ref".to_vec())]);
    assert_eq!(
        unavailable,
        vec![pizza_agent::UnavailableSkill {
            name: "remote".to_owned(),
            reasons: vec!["MCP server x is not configured".to_owned()],
        }]
    );
    let detail = fx.host.skill_get(named("gated")).await.unwrap();
    assert_eq!(
        detail.fields.unwrap().interrupt_on,
        vec![
            SkillInterrupt {
                tool: "edit_file".to_owned(),
                allowed: vec![DecisionKind::Approve, DecisionKind::Reject],
            },
            SkillInterrupt {
                tool: "write_file".to_owned(),
                allowed: DecisionKind::ALL.to_vec(),
            },
        ]
    );
}

#[tokio::test]
async fn each_run_gets_the_roster_as_it_is_when_it_starts() {
    use crate::runs::tests::{open, start, subscribe, until_finished};
    use pizza_llm::{FakeModel, FakeTurn};

    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("One."), FakeTurn::text("Two.")]);
    let host = open(&root, &model).await;
    let remote = skill_md("remote", "tools: [\"mcp:x:*\"]\n");
    host.skill_save(save("remote", remote)).await.unwrap();
    let first = host.run_start(start(None, "Hello")).await.unwrap();
    until_finished(&mut subscribe(&host, &first.thread_id, None).await).await;
    host.skill_set_enabled(SkillSetEnabledParams {
        name: "remote".to_owned(),
        enabled: false,
    })
    .await
    .unwrap();
    let second = host
        .run_start(start(Some(&first.thread_id), "Again"))
        .await
        .unwrap();
    until_finished(&mut subscribe(&host, &second.thread_id, Some(0)).await).await;
    let named_unavailable = |i: usize| -> bool {
        model.requests()[i]
            .system
            .clone()
            .unwrap_or_default()
            .contains("- remote: MCP server x is not configured")
    };
    assert!(
        named_unavailable(0),
        "an enabled, unavailable skill is named"
    );
    assert!(!named_unavailable(1), "a disabled one is not");
}
