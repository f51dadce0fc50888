use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::catalog::{Catalog, CatalogSources, SkillSource};

pub(crate) fn skill_md(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Use for {name} work; returns a short report.\n{extra}---\n\n# {name}\n\nDo the {name} work.\n"
    )
}

/// Writes `files` (path, text) under `dir`.
pub(crate) fn write_tree(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

fn manifest(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

fn load_one(dir: &Path) -> Plugin {
    let plugins = load_plugins(None, dir);
    assert_eq!(plugins.len(), 1, "{plugins:?}");
    plugins.into_iter().next().unwrap()
}

#[test]
fn a_full_manifest_is_read_and_unsupported_fields_are_noted() {
    let dir = tempfile::tempdir().unwrap();
    let plugin_json = manifest(&json!({
        "name": "acme-tools",
        "version": "1.2.0",
        "description": "Acme's tools.",
        "author": {"name": "Ann Acme", "email": "ann@acme.test", "url": "https://acme.test"},
        "homepage": "https://acme.test/tools",
        "repository": {"type": "git", "url": "https://github.com/acme/tools"},
        "license": "MIT",
        "keywords": ["acme", "tools"],
        "commands": ["./commands/deploy.md"],
        "agents": "./agents/",
        "hooks": {"PreToolUse": []},
        "outputStyles": "./styles/",
        "pizzaBot": {"ui": {}},
    }));
    write_tree(
        &dir.path().join("acme-tools"),
        &[
            (PLUGIN_MANIFEST, &plugin_json),
            ("skills/report/SKILL.md", &skill_md("report", "")),
            ("skills/report/references/a.md", "A"),
            ("commands/deploy.md", "deploy"),
        ],
    );
    let plugin = load_one(dir.path());
    assert_eq!(plugin.state, PluginState::Loaded, "{:?}", plugin.detail);
    let manifest = plugin.manifest.clone().unwrap();
    assert_eq!(
        (
            manifest.name.as_str(),
            manifest.version.as_deref(),
            manifest.author.as_deref(),
            manifest.repository.as_deref(),
            manifest.license.as_deref(),
            manifest.keywords.clone(),
            manifest.enabled,
        ),
        (
            "acme-tools",
            Some("1.2.0"),
            Some("Ann Acme"),
            Some("https://github.com/acme/tools"),
            Some("MIT"),
            vec!["acme".to_owned(), "tools".to_owned()],
            true,
        )
    );
    assert_eq!(
        plugin.detail,
        vec![
            "agents are not supported and were left out",
            "commands are not supported and were left out",
            "hooks are not supported and were left out",
            "output styles are not supported and were left out",
            "pizzaBot is not supported and was left out",
        ]
    );
    assert_eq!(plugin.skill_names(), vec!["report"]);
    let bundle = plugin.skills[0].bundle.as_ref().unwrap();
    assert_eq!(bundle.files[0].path, "references/a.md");
    assert_eq!(plugin.skills[0].plugin_id, "acme-tools");
    assert_eq!(plugin.mcp_servers, None);
    let view = plugin.view(true);
    assert_eq!(
        (
            view.author.as_deref(),
            view.homepage.as_deref(),
            view.builtin
        ),
        (Some("Ann Acme"), Some("https://acme.test/tools"), false)
    );
}

#[test]
fn author_as_text_and_convention_folders_are_noted_without_fields() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        &dir.path().join("mini"),
        &[
            (PLUGIN_MANIFEST, r#"{"name": "mini", "author": "Bo"}"#),
            ("agents/helper.md", "helper"),
        ],
    );
    let plugin = load_one(dir.path());
    assert_eq!(plugin.state, PluginState::Loaded);
    assert_eq!(plugin.manifest.unwrap().author.as_deref(), Some("Bo"));
    assert_eq!(
        plugin.detail,
        vec!["agents are not supported and were left out"]
    );
    assert!(plugin.skills.is_empty());
}

#[test]
fn skills_paths_may_be_one_or_several_and_a_skill_folder_itself() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("multi");
    write_tree(
        &root,
        &[
            (
                PLUGIN_MANIFEST,
                r#"{"name": "multi", "skills": ["./extra/", "single/solo", "missing"]}"#,
            ),
            ("extra/alpha/SKILL.md", &skill_md("alpha", "")),
            ("extra/beta/SKILL.md", &skill_md("beta", "")),
            ("single/solo/SKILL.md", &skill_md("solo", "")),
            // Not read: the manifest names other folders.
            ("skills/ignored/SKILL.md", &skill_md("ignored", "")),
        ],
    );
    let plugin = load_one(dir.path());
    assert_eq!(plugin.state, PluginState::Loaded);
    assert_eq!(plugin.skill_names(), vec!["alpha", "beta", "solo"]);
    assert_eq!(
        plugin.detail,
        vec!["The skills folder missing is not in the plugin; no skills were read from it."]
    );

    let one = tempfile::tempdir().unwrap();
    write_tree(
        &one.path().join("one"),
        &[
            (PLUGIN_MANIFEST, r#"{"name": "one", "skills": "kit"}"#),
            ("kit/gamma/SKILL.md", &skill_md("gamma", "")),
        ],
    );
    assert_eq!(load_one(one.path()).skill_names(), vec!["gamma"]);
}

#[test]
fn mcp_servers_inline_from_a_file_or_the_default_file() {
    let dir = tempfile::tempdir().unwrap();
    let servers = json!({"db": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/db", "args": ["--ro"]}});
    write_tree(
        &dir.path().join("inline"),
        &[(
            PLUGIN_MANIFEST,
            &manifest(&json!({"name": "inline", "mcpServers": servers})),
        )],
    );
    write_tree(
        &dir.path().join("in-file"),
        &[
            (
                PLUGIN_MANIFEST,
                r#"{"name": "in-file", "mcpServers": "./config/servers.json"}"#,
            ),
            (
                "config/servers.json",
                &manifest(&json!({"web": {"type": "http", "url": "https://x.test/mcp"}})),
            ),
        ],
    );
    write_tree(
        &dir.path().join("default-file"),
        &[
            (PLUGIN_MANIFEST, r#"{"name": "default-file"}"#),
            (".mcp.json", &manifest(&json!({"mcpServers": servers}))),
        ],
    );
    let plugins = load_plugins(None, dir.path());
    let by_name: BTreeMap<&str, &Plugin> = plugins.iter().map(|p| (p.name.as_str(), p)).collect();
    for plugin in &plugins {
        assert_eq!(plugin.state, PluginState::Loaded, "{:?}", plugin.detail);
    }
    assert_eq!(by_name["inline"].mcp_servers, Some(servers.clone()));
    assert_eq!(by_name["default-file"].mcp_servers, Some(servers));
    assert_eq!(by_name["in-file"].server_ids(), vec!["web"]);
    assert_eq!(by_name["in-file"].view(true).servers, vec!["web"]);
}

#[test]
fn a_plugin_skill_declaring_hooks_is_refused_alone() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        &dir.path().join("guarded"),
        &[
            (PLUGIN_MANIFEST, r#"{"name": "guarded"}"#),
            ("skills/good/SKILL.md", &skill_md("good", "")),
            (
                "skills/hooked/SKILL.md",
                &skill_md("hooked", "hooks:\n  PreToolUse: []\npermissionMode: plan\n"),
            ),
            (
                "skills/served/SKILL.md",
                &skill_md("served", "mcpServers: {}\n"),
            ),
            ("skills/broken/SKILL.md", "no front matter"),
        ],
    );
    let plugin = load_one(dir.path());
    assert_eq!(plugin.state, PluginState::Loaded);
    let outcomes: Vec<(String, Result<(), String>)> = plugin
        .skills
        .iter()
        .map(|s| {
            (
                s.name.clone(),
                s.bundle.as_ref().map(|_| ()).map_err(Clone::clone),
            )
        })
        .collect();
    let hooked = "SKILL.md: a plugin's skill may not declare hooks, permissionMode";
    let served = "SKILL.md: a plugin's skill may not declare mcpServers";
    let broken = "front matter: SKILL.md must start with YAML front matter between two --- lines";
    assert_eq!(
        outcomes,
        vec![
            ("broken".to_owned(), Err(broken.to_owned())),
            ("good".to_owned(), Ok(())),
            ("hooked".to_owned(), Err(hooked.to_owned())),
            ("served".to_owned(), Err(served.to_owned())),
        ]
    );
    assert_eq!(
        plugin.detail,
        vec![
            format!("The skill broken was left out: {broken}"),
            format!("The skill hooked was left out: {hooked}"),
            format!("The skill served was left out: {served}"),
        ]
    );
}

#[test]
fn failed_and_incompatible_plugins_are_listed_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_tree(&d.join("no-manifest"), &[("skills/x/SKILL.md", "x")]);
    write_tree(&d.join("bad-json"), &[(PLUGIN_MANIFEST, "{nope")]);
    write_tree(&d.join("not-object"), &[(PLUGIN_MANIFEST, "[1, 2]")]);
    write_tree(
        &d.join("Bad_Name"),
        &[(PLUGIN_MANIFEST, r#"{"name": "Bad_Name"}"#)],
    );
    write_tree(
        &d.join("elsewhere"),
        &[(PLUGIN_MANIFEST, r#"{"name": "other"}"#)],
    );
    write_tree(
        &d.join("escapes"),
        &[(
            PLUGIN_MANIFEST,
            r#"{"name": "escapes", "skills": "../outside"}"#,
        )],
    );
    write_tree(
        &d.join("absolute"),
        &[(
            PLUGIN_MANIFEST,
            r#"{"name": "absolute", "mcpServers": "/etc/mcp.json"}"#,
        )],
    );
    write_tree(
        &d.join("bad-mcp"),
        &[
            (PLUGIN_MANIFEST, r#"{"name": "bad-mcp"}"#),
            (".mcp.json", "{oops"),
        ],
    );
    write_tree(
        &d.join("bad-server"),
        &[(
            PLUGIN_MANIFEST,
            r#"{"name": "bad-server", "mcpServers": {"x": 3}}"#,
        )],
    );
    write_tree(
        &d.join("missing-mcp"),
        &[(
            PLUGIN_MANIFEST,
            r#"{"name": "missing-mcp", "mcpServers": "none.json"}"#,
        )],
    );
    write_tree(
        &d.join("two"),
        &[
            (PLUGIN_MANIFEST, r#"{"name": "two"}"#),
            ("inner/.claude-plugin/plugin.json", r#"{"name": "inner"}"#),
        ],
    );
    write_tree(
        &d.join("wrong-type"),
        &[(PLUGIN_MANIFEST, r#"{"name": "wrong-type", "version": 3}"#)],
    );
    write_tree(&d.join("fine"), &[(PLUGIN_MANIFEST, r#"{"name": "fine"}"#)]);
    // A dot-folder is an install in progress, a loose file no plugin.
    write_tree(
        d,
        &[
            (".installing-x/.claude-plugin/plugin.json", "{}"),
            ("loose.txt", "x"),
        ],
    );

    let found: Vec<(String, PluginState, String)> = load_plugins(None, d)
        .into_iter()
        .map(|p| (p.name, p.state, p.detail.join(" | ")))
        .collect();
    let failed = PluginState::Failed;
    let incompatible = PluginState::Incompatible;
    let expect = |name: &str, state, detail: &str| (name.to_owned(), state, detail.to_owned());
    assert_eq!(
        found,
        vec![
            expect(
                "Bad_Name",
                incompatible,
                "plugin.json: name \"Bad_Name\" must be kebab-case: lower-case letters and digits in words joined by single hyphens, at most 64 characters, like my-plugin"
            ),
            expect(
                "absolute",
                incompatible,
                "plugin.json: mcpServers path \"/etc/mcp.json\" must be relative to the plugin's folder, not absolute"
            ),
            expect(
                "bad-json",
                failed,
                "plugin.json: is not valid JSON: key must be a string at line 1 column 2"
            ),
            expect(
                "bad-mcp",
                incompatible,
                ".mcp.json: is not valid JSON: key must be a string at line 1 column 2"
            ),
            expect(
                "bad-server",
                incompatible,
                "plugin.json: mcpServers: server x must be an object with a command or a url"
            ),
            expect(
                "elsewhere",
                incompatible,
                "plugin.json: name other must equal its folder's name, elsewhere"
            ),
            expect(
                "escapes",
                incompatible,
                "plugin.json: skills path \"../outside\" must stay inside the plugin's folder (no ..)"
            ),
            expect("fine", PluginState::Loaded, ""),
            expect(
                "missing-mcp",
                incompatible,
                "none.json: is missing: plugin.json names it in mcpServers"
            ),
            expect(
                "no-manifest",
                failed,
                "plugin.json: is missing: a plugin has .claude-plugin/plugin.json"
            ),
            expect("not-object", failed, "plugin.json: must be a JSON object"),
            expect(
                "two",
                incompatible,
                "inner/.claude-plugin/plugin.json: is a second plugin manifest; a plugin has exactly one"
            ),
            expect(
                "wrong-type",
                incompatible,
                "plugin.json: version must be text"
            ),
        ]
    );
}

#[cfg(unix)]
#[test]
fn a_link_leading_out_of_the_plugin_is_incompatible() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    write_tree(
        &outside,
        &[
            ("stolen/SKILL.md", &skill_md("stolen", "")),
            ("mcp.json", "{}"),
        ],
    );
    let plugins = dir.path().join("plugins");
    write_tree(
        &plugins.join("linked"),
        &[(
            PLUGIN_MANIFEST,
            r#"{"name": "linked", "mcpServers": "servers.json"}"#,
        )],
    );
    std::os::unix::fs::symlink(&outside, plugins.join("linked/skills")).unwrap();
    std::os::unix::fs::symlink(
        outside.join("mcp.json"),
        plugins.join("linked/servers.json"),
    )
    .unwrap();
    let plugin = load_one(&plugins);
    assert_eq!(plugin.state, PluginState::Incompatible);
    assert_eq!(
        plugin.detail,
        vec![
            "skills: leads outside the plugin's folder through a link",
            "servers.json: leads outside the plugin's folder through a link",
        ]
    );
    assert!(plugin.skills.is_empty());
}

#[test]
fn the_set_applies_switches_and_hands_over_loaded_skills_only() {
    let shipped = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    let with_skill = |dir: &Path, plugin: &str, skill: &str, extra: &str| {
        write_tree(
            &dir.join(plugin),
            &[
                (
                    PLUGIN_MANIFEST,
                    &format!(r#"{{"name": "{plugin}"{extra}}}"#),
                ),
                (&format!("skills/{skill}/SKILL.md"), &skill_md(skill, "")),
            ],
        );
    };
    with_skill(shipped.path(), "shared", "from-shipped", "");
    with_skill(shipped.path(), "kept", "kept-skill", "");
    with_skill(
        shipped.path(),
        "quiet",
        "quiet-skill",
        r#", "enabled": false"#,
    );
    with_skill(user.path(), "shared", "from-user", "");
    with_skill(user.path(), "off", "off-skill", "");
    write_tree(&user.path().join("broken"), &[(PLUGIN_MANIFEST, "[]")]);

    let plugins = load_plugins(Some(shipped.path()), user.path());
    let shared = plugins.iter().find(|p| p.name == "shared").unwrap();
    assert!(!shared.builtin, "the user's copy wins");
    assert_eq!(shared.skill_names(), vec!["from-user"]);

    let disabled: BTreeSet<String> = ["off".to_owned(), "broken".to_owned()].into();
    let set = PluginSet::new(plugins.clone(), &disabled);
    let states: Vec<(&str, PluginState, bool)> = set
        .plugins()
        .iter()
        .map(|p| (p.name.as_str(), p.state, set.is_enabled(&p.name)))
        .collect();
    assert_eq!(
        states,
        vec![
            ("broken", PluginState::Failed, false),
            ("kept", PluginState::Loaded, true),
            ("off", PluginState::Disabled, false),
            ("quiet", PluginState::Disabled, false),
            ("shared", PluginState::Loaded, true),
        ]
    );
    assert_eq!(set.get("kept").unwrap().name, "kept");
    assert!(set.get("nope").is_none());
    let mut skills: Vec<(String, String)> = set
        .plugin_skills()
        .into_iter()
        .map(|s| (s.plugin_id, s.name))
        .collect();
    skills.sort();
    assert_eq!(
        skills,
        vec![
            ("kept".to_owned(), "kept-skill".to_owned()),
            ("shared".to_owned(), "from-user".to_owned()),
        ]
    );
    let views = set.views();
    assert_eq!(
        views
            .iter()
            .map(|v| (v.name.as_str(), v.enabled))
            .collect::<Vec<_>>(),
        vec![
            ("broken", false),
            ("kept", true),
            ("off", false),
            ("quiet", false),
            ("shared", true)
        ]
    );

    // A switch turns on a plugin its manifest ships off.
    let switches = BTreeMap::from([("quiet".to_owned(), true)]);
    let set = PluginSet::with_switches(plugins, &switches);
    assert_eq!(set.get("quiet").unwrap().state, PluginState::Loaded);

    // The catalog reads the set through its seam.
    let skills_dir = tempfile::tempdir().unwrap();
    let mut sources = CatalogSources::new(None, skills_dir.path().to_owned());
    sources.plugins = std::sync::Arc::new(set);
    let catalog = Catalog::load(sources);
    let entry = catalog.entry("quiet-skill").unwrap();
    assert_eq!(entry.source, SkillSource::Plugin("quiet".to_owned()));
    assert!(entry.bundle.is_ok());
}
