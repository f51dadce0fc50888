//! The Skills commands on a real data root and a real built-in folder: the
//! merge and override rules, refusals that write nothing, switches that
//! survive a restart, ZIP import, the watcher, and the roster runs get.

use std::fs;
use std::io::{Cursor, Write};
use std::path::Path;

use pizza_protocol::{
    AppEvent, ErrorCode, SkillFields, SkillFileText, SkillFileView, SkillImportParams,
    SkillListParams, SkillNameParams, SkillReadiness, SkillReadinessState, SkillSaveParams,
    SkillSetEnabledParams, SkillSourceKind, SkillView,
};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;
use tokio::sync::broadcast;

use crate::{DataRoot, Host, HostOptions};

pub(crate) fn skill_md(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Use for {name} work; returns a short report.\n{extra}---\n\n# {name}\n\nDo the {name} work.\n"
    )
}

pub(crate) fn write_skill(dir: &Path, name: &str, text: &str, files: &[(&str, &[u8])]) {
    let folder = dir.join(name);
    fs::create_dir_all(&folder).unwrap();
    fs::write(folder.join("SKILL.md"), text).unwrap();
    for (path, bytes) in files {
        let path = folder.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
}

/// A data root, a built-in folder with `guide` (a reference file) and
/// `remote` (an MCP ref), and the host on both.
pub(crate) struct Fixture {
    pub(crate) root: TempDataRoot,
    pub(crate) builtin: tempfile::TempDir,
    pub(crate) host: Host,
}

impl Fixture {
    pub(crate) async fn new() -> Self {
        let root = TempDataRoot::new().unwrap();
        let builtin = tempfile::tempdir().unwrap();
        write_skill(
            builtin.path(),
            "guide",
            &skill_md("guide", "metadata:\n  display-name: The Guide\n"),
            &[
                ("references/faq.md", b"# FAQ\n"),
                ("logo.png", &[0x89, 0xff, 0x00]),
            ],
        );
        write_skill(
            builtin.path(),
            "remote",
            &skill_md("remote", "tools: [read_file, \"mcp:x:*\"]\n"),
            &[],
        );
        let host = open(&root, builtin.path()).await;
        Self {
            root,
            builtin,
            host,
        }
    }

    async fn reopen(self) -> Self {
        self.host.close().await;
        let host = open(&self.root, self.builtin.path()).await;
        Self { host, ..self }
    }

    fn user_dir(&self) -> std::path::PathBuf {
        self.root.path().join("skills")
    }

    async fn view(&self, name: &str) -> Option<SkillView> {
        self.host
            .skill_list(SkillListParams {})
            .await
            .unwrap()
            .skills
            .into_iter()
            .find(|s| s.name == name)
    }
}

async fn open(root: &TempDataRoot, builtin: &Path) -> Host {
    Host::open(
        DataRoot::prepare(root.path()).unwrap(),
        HostOptions::default()
            .with_ollama_probe(None)
            .with_builtin_skills(builtin.to_owned()),
    )
    .await
    .unwrap()
}

pub(crate) fn ready() -> SkillReadiness {
    SkillReadiness {
        state: SkillReadinessState::Ready,
        reasons: Vec::new(),
    }
}

pub(crate) fn save(name: &str, skill_md: String) -> SkillSaveParams {
    SkillSaveParams {
        name: name.to_owned(),
        skill_md,
        files: None,
    }
}

pub(crate) fn named(name: &str) -> SkillNameParams {
    SkillNameParams {
        name: name.to_owned(),
    }
}

/// Waits for the next `skills_changed`.
async fn skills_changed(events: &mut broadcast::Receiver<AppEvent>) {
    loop {
        let event = tokio::time::timeout(std::time::Duration::from_secs(10), events.recv())
            .await
            .expect("a skills_changed notice")
            .unwrap();
        if event == AppEvent::SkillsChanged {
            return;
        }
    }
}

#[tokio::test]
async fn the_list_merges_builtin_and_user_skills_with_override_and_readiness() {
    let fx = Fixture::new().await;
    write_skill(&fx.user_dir(), "mine", &skill_md("mine", ""), &[]);
    write_skill(
        &fx.user_dir(),
        "guide",
        &skill_md("guide", "metadata:\n  display-name: My Guide\n"),
        &[],
    );
    let fx = fx.reopen().await;
    let list = fx.host.skill_list(SkillListParams {}).await.unwrap().skills;
    let description = |name: &str| format!("Use for {name} work; returns a short report.");
    assert_eq!(
        list,
        vec![
            SkillView {
                name: "guide".to_owned(),
                display_name: "My Guide".to_owned(),
                description: description("guide"),
                source: SkillSourceKind::User,
                overridden: true,
                enabled: true,
                readiness: ready(),
            },
            SkillView {
                name: "mine".to_owned(),
                display_name: "mine".to_owned(),
                description: description("mine"),
                source: SkillSourceKind::User,
                overridden: false,
                enabled: true,
                readiness: ready(),
            },
            SkillView {
                name: "remote".to_owned(),
                display_name: "remote".to_owned(),
                description: description("remote"),
                source: SkillSourceKind::Builtin,
                overridden: false,
                enabled: true,
                readiness: SkillReadiness {
                    state: SkillReadinessState::Unavailable,
                    reasons: vec!["MCP server x is not configured".to_owned()],
                },
            },
        ]
    );
}

#[tokio::test]
async fn get_reads_the_fields_and_the_files_text_when_it_is_text() {
    let fx = Fixture::new().await;
    let detail = fx.host.skill_get(named("guide")).await.unwrap();
    assert_eq!(detail.skill.display_name, "The Guide");
    assert_eq!(
        detail.skill_md,
        skill_md("guide", "metadata:\n  display-name: The Guide\n")
    );
    assert_eq!(
        detail.fields,
        Some(SkillFields {
            display_name: "The Guide".to_owned(),
            description: "Use for guide work; returns a short report.".to_owned(),
            tools: Vec::new(),
            interrupt_on: Vec::new(),
            body: "# guide\n\nDo the guide work.".to_owned(),
        })
    );
    assert_eq!(
        detail.files,
        vec![
            SkillFileView {
                path: "logo.png".to_owned(),
                size: 3,
                text: None,
            },
            SkillFileView {
                path: "references/faq.md".to_owned(),
                size: 6,
                text: Some("# FAQ\n".to_owned()),
            },
        ]
    );
    let remote = fx.host.skill_get(named("remote")).await.unwrap();
    let fields = remote.fields.unwrap();
    assert_eq!(fields.tools, vec!["read_file", "mcp:x:*"]);

    let missing = fx.host.skill_get(named("nope")).await.unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn a_broken_user_skill_is_unavailable_and_opens_as_written() {
    let fx = Fixture::new().await;
    let broken = "---\nname: [unclosed\n---\nbody\n";
    write_skill(&fx.user_dir(), "broken", broken, &[]);
    let fx = fx.reopen().await;
    let view = fx.view("broken").await.unwrap();
    assert_eq!(view.readiness.state, SkillReadinessState::Unavailable);
    assert!(
        view.readiness.reasons[0].contains("front matter"),
        "{:?}",
        view.readiness
    );
    let detail = fx.host.skill_get(named("broken")).await.unwrap();
    assert_eq!(detail.skill_md, broken);
    assert_eq!(detail.fields, None);
}

#[tokio::test]
async fn save_creates_refuses_bad_input_writing_nothing_and_overrides_a_builtin() {
    let fx = Fixture::new().await;
    let mut events = fx.host.subscribe();
    let saved = fx
        .host
        .skill_save(SkillSaveParams {
            files: Some(vec![SkillFileText {
                path: "notes/a.md".to_owned(),
                text: "A".to_owned(),
            }]),
            ..save("fresh", skill_md("fresh", ""))
        })
        .await
        .unwrap();
    assert_eq!(saved.source, SkillSourceKind::User);
    assert_eq!(saved.readiness, ready());
    skills_changed(&mut events).await;
    assert_eq!(
        fs::read_to_string(fx.user_dir().join("fresh/notes/a.md")).unwrap(),
        "A"
    );

    let no_description = "---\nname: bad\n---\n\nBody.\n".to_owned();
    let refused = fx
        .host
        .skill_save(save("bad", no_description))
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidInput);
    assert!(
        refused.message.starts_with("description:"),
        "{}",
        refused.message
    );
    let mismatched = fx
        .host
        .skill_save(save("other", skill_md("bad", "")))
        .await
        .unwrap_err();
    assert!(
        mismatched.message.starts_with("name:"),
        "{}",
        mismatched.message
    );
    assert!(!fx.user_dir().join("bad").exists());
    assert!(!fx.user_dir().join("other").exists());
    assert_eq!(fx.view("bad").await, None);

    // Editing a built-in saves the person's copy; its files come along.
    let edited = skill_md("guide", "metadata:\n  display-name: Edited\n");
    let overridden = fx.host.skill_save(save("guide", edited)).await.unwrap();
    assert_eq!(
        (
            overridden.source,
            overridden.overridden,
            overridden.display_name.as_str()
        ),
        (SkillSourceKind::User, true, "Edited")
    );
    let files: Vec<String> = fx
        .host
        .skill_get(named("guide"))
        .await
        .unwrap()
        .files
        .into_iter()
        .map(|f| f.path)
        .collect();
    assert_eq!(files, vec!["logo.png", "references/faq.md"]);
    let shipped = fx.builtin.path().join("guide/SKILL.md");
    assert_eq!(
        fs::read_to_string(shipped).unwrap(),
        skill_md("guide", "metadata:\n  display-name: The Guide\n")
    );
}

#[tokio::test]
async fn deleting_an_override_reveals_the_builtin_and_a_builtin_cannot_be_deleted() {
    let fx = Fixture::new().await;
    fx.host
        .skill_save(save("guide", skill_md("guide", "")))
        .await
        .unwrap();
    fx.host.skill_delete(named("guide")).await.unwrap();
    let revealed = fx.view("guide").await.unwrap();
    assert_eq!(
        (
            revealed.source,
            revealed.overridden,
            revealed.display_name.as_str()
        ),
        (SkillSourceKind::Builtin, false, "The Guide")
    );
    assert!(!fx.user_dir().join("guide").exists());

    let refused = fx.host.skill_delete(named("guide")).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidInput);
    assert!(
        refused.message.starts_with("name: guide "),
        "{}",
        refused.message
    );
    assert!(fx.builtin.path().join("guide/SKILL.md").exists());
    let missing = fx.host.skill_delete(named("nope")).await.unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn a_switch_survives_reopening_the_host() {
    let fx = Fixture::new().await;
    let off = fx
        .host
        .skill_set_enabled(SkillSetEnabledParams {
            name: "guide".to_owned(),
            enabled: false,
        })
        .await
        .unwrap();
    assert!(!off.enabled);
    let fx = fx.reopen().await;
    assert!(!fx.view("guide").await.unwrap().enabled);
    assert!(fx.view("remote").await.unwrap().enabled);
    let (subagents, _) = fx.host.inner.skills.roster();
    assert!(subagents.iter().all(|s| s.name != "guide"));
}

fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (path, bytes) in entries {
        writer.start_file(*path, options).unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

#[tokio::test]
async fn a_zip_imports_as_the_persons_skill_and_a_bad_one_writes_nothing() {
    let fx = Fixture::new().await;
    let text = skill_md("zipped", "");
    let archive = fx.root.base().join("zipped.zip");
    fs::write(
        &archive,
        zip_of(&[
            ("zipped/SKILL.md", text.as_bytes()),
            ("zipped/references/r.md", b"R"),
        ]),
    )
    .unwrap();
    let imported = fx
        .host
        .skill_import(SkillImportParams {
            path: archive.display().to_string(),
        })
        .await
        .unwrap();
    assert_eq!(
        (imported.name.as_str(), imported.source, imported.readiness),
        ("zipped", SkillSourceKind::User, ready())
    );
    assert_eq!(
        fs::read(fx.user_dir().join("zipped/references/r.md")).unwrap(),
        b"R"
    );

    let traversal = fx.root.base().join("evil.zip");
    fs::write(
        &traversal,
        zip_of(&[
            ("SKILL.md", skill_md("evil", "").as_bytes()),
            ("../x.md", b"x"),
        ]),
    )
    .unwrap();
    let refused = fx
        .host
        .skill_import(SkillImportParams {
            path: traversal.display().to_string(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidInput);
    assert!(
        refused.message.starts_with("../x.md:"),
        "{}",
        refused.message
    );
    assert!(!fx.user_dir().join("evil").exists());
}

#[tokio::test]
async fn the_watcher_picks_up_a_hand_written_skill() {
    let fx = Fixture::new().await;
    let mut events = fx.host.subscribe();
    fx.host.start_skill_watch().await.unwrap();
    write_skill(&fx.user_dir(), "by-hand", &skill_md("by-hand", ""), &[]);
    // Each write may be seen on its own; wait until the last is read.
    loop {
        skills_changed(&mut events).await;
        if fx
            .view("by-hand")
            .await
            .is_some_and(|view| view.readiness == ready())
        {
            break;
        }
    }
    let (subagents, _) = fx.host.inner.skills.roster();
    assert!(subagents.iter().any(|s| s.name == "by-hand"));
}

#[tokio::test]
async fn a_save_with_files_replaces_the_text_files_and_keeps_those_not_shown_as_text() {
    let fx = Fixture::new().await;
    fx.host
        .skill_save(SkillSaveParams {
            files: Some(vec![SkillFileText {
                path: "notes.md".to_owned(),
                text: "new".to_owned(),
            }]),
            ..save("guide", skill_md("guide", ""))
        })
        .await
        .unwrap();
    let folder = fx.user_dir().join("guide");
    assert_eq!(
        fs::read(folder.join("logo.png")).unwrap(),
        [0x89, 0xff, 0x00]
    );
    assert_eq!(fs::read_to_string(folder.join("notes.md")).unwrap(), "new");
    assert!(!folder.join("references/faq.md").exists());
}
