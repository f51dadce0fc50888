use std::fs;
use std::sync::Arc;

use pizza_extensions::{
    BuiltinToolResolver, BundleFile, Catalog, CatalogSources, EnablementOverlay, PluginSkill,
    PluginSkills, RawSkill, Readiness, Resolution, SkillBundle, SkillSource, ToolRef, ToolResolver,
    delete_user_skill, save_user_skill, user_skills_dir,
};
use pretty_assertions::assert_eq;

use super::support::{skill_md, write_skill};

struct Dirs {
    _root: tempfile::TempDir,
    builtin: std::path::PathBuf,
    user: std::path::PathBuf,
}

fn dirs() -> Dirs {
    let root = tempfile::tempdir().unwrap();
    let builtin = root.path().join("shipped");
    let user = user_skills_dir(&root.path().join("data"));
    fs::create_dir_all(&builtin).unwrap();
    Dirs {
        _root: root,
        builtin,
        user,
    }
}

fn load(d: &Dirs) -> Catalog {
    Catalog::load(CatalogSources::new(Some(d.builtin.clone()), d.user.clone()))
}

fn names(bundles: &[Arc<SkillBundle>]) -> Vec<&str> {
    bundles.iter().map(|b| b.name()).collect()
}

#[test]
fn the_user_copy_wins_and_deleting_it_reveals_the_builtin() {
    let d = dirs();
    write_skill(
        &d.builtin,
        "guide",
        &skill_md("guide", ""),
        &[("references/a.md", b"A")],
    );
    write_skill(&d.builtin, "other", &skill_md("other", ""), &[]);
    fs::write(d.builtin.join("README.md"), "not a skill").unwrap();
    let resolver = BuiltinToolResolver::default();
    let mut catalog = load(&d);
    assert_eq!(catalog.entries().len(), 2);
    let guide = catalog.entry("guide").unwrap();
    assert_eq!(
        (&guide.source, guide.overridden()),
        (&SkillSource::Builtin, false)
    );
    assert_eq!(
        guide.bundle.as_ref().unwrap().files[0].path,
        "references/a.md"
    );

    let edited = skill_md("guide", "metadata:\n  display-name: My guide\n");
    save_user_skill(&d.user, "guide", &edited, vec![]).unwrap();
    catalog.reload();
    let guide = catalog.entry("guide").unwrap();
    assert_eq!(guide.source, SkillSource::User);
    assert_eq!(guide.overrides, Some(SkillSource::Builtin));
    let listing = catalog.listing(&resolver);
    assert_eq!(listing[0].display_name, "My guide");
    assert!(listing[0].overridden);
    assert_eq!(listing[0].readiness, Readiness::Ready);
    assert_eq!(
        catalog.builtin("guide").unwrap().source,
        SkillSource::Builtin
    );

    delete_user_skill(&d.user, "guide").unwrap();
    catalog.reload();
    let guide = catalog.entry("guide").unwrap();
    assert_eq!(
        (&guide.source, guide.overridden()),
        (&SkillSource::Builtin, false)
    );
    assert_eq!(
        names(&catalog.ready_skills(&resolver)),
        vec!["guide", "other"]
    );
}

#[test]
fn a_broken_user_skill_is_unavailable_with_its_error_and_the_rest_load() {
    let d = dirs();
    write_skill(&d.builtin, "guide", &skill_md("guide", ""), &[]);
    write_skill(&d.user, "mine", &skill_md("mine", ""), &[]);
    write_skill(&d.user, "broken", "---\nname: [oops\n---\nbody\n", &[]);
    write_skill(&d.user, "misnamed", &skill_md("another", ""), &[]);
    fs::create_dir_all(d.user.join("empty")).unwrap();
    fs::create_dir_all(d.user.join(".saving-x")).unwrap();
    let resolver = BuiltinToolResolver::default();
    let catalog = load(&d);
    let listing = catalog.listing(&resolver);
    let shown: Vec<(&str, bool)> = listing
        .iter()
        .map(|l| (l.name.as_str(), l.readiness == Readiness::Ready))
        .collect();
    assert_eq!(
        shown,
        vec![
            ("broken", false),
            ("empty", false),
            ("guide", true),
            ("mine", true),
            ("misnamed", false)
        ]
    );
    let Readiness::Unavailable { reasons } = &listing[0].readiness else {
        panic!("{listing:?}");
    };
    assert!(
        reasons[0].starts_with("front matter: malformed YAML"),
        "{reasons:?}"
    );
    assert_eq!(listing[0].description, "");
    let Readiness::Unavailable { reasons } = &listing[4].readiness else {
        panic!("{listing:?}");
    };
    assert!(
        reasons[0].starts_with("name: another must equal"),
        "{reasons:?}"
    );
    assert_eq!(
        names(&catalog.ready_skills(&resolver)),
        vec!["guide", "mine"]
    );
}

#[test]
fn disabled_skills_are_marked_and_never_ready() {
    let d = dirs();
    write_skill(&d.builtin, "guide", &skill_md("guide", ""), &[]);
    write_skill(&d.user, "mine", &skill_md("mine", ""), &[]);
    let resolver = BuiltinToolResolver::default();
    let mut catalog = load(&d);
    catalog.set_enablement(EnablementOverlay::from_switches([
        ("builtin", "guide", false),
        ("user", "mine", true),
        ("user", "guide", true),
    ]));
    let enabled: Vec<(String, bool)> = catalog
        .listing(&resolver)
        .into_iter()
        .map(|l| (l.name, l.enabled))
        .collect();
    assert_eq!(
        enabled,
        vec![("guide".into(), false), ("mine".into(), true)]
    );
    assert_eq!(names(&catalog.ready_skills(&resolver)), vec!["mine"]);
    assert_eq!(catalog.unready_skills(&resolver), vec![]);

    // A user override keeps its own switch: the built-in's "off" does not hide it.
    save_user_skill(&d.user, "guide", &skill_md("guide", ""), vec![]).unwrap();
    catalog.reload();
    assert_eq!(
        names(&catalog.ready_skills(&resolver)),
        vec!["guide", "mine"]
    );
}

#[test]
fn an_mcp_ref_makes_a_skill_unavailable_with_the_reason_not_an_error() {
    let d = dirs();
    write_skill(
        &d.user,
        "issues",
        &skill_md(
            "issues",
            "tools: [read_file, mcp:github:*, mcp:github:create_issue, mcp:jira:search]\n",
        ),
        &[],
    );
    write_skill(&d.user, "plain", &skill_md("plain", "tools: grep\n"), &[]);
    let resolver = BuiltinToolResolver::default();
    let catalog = load(&d);
    let unready = catalog.unready_skills(&resolver);
    assert_eq!(
        unready,
        vec![(
            "issues".to_owned(),
            Readiness::Unavailable {
                reasons: vec![
                    "MCP server github is not configured".to_owned(),
                    "MCP server jira is not configured".to_owned()
                ]
            }
        )]
    );
    assert_eq!(names(&catalog.ready_skills(&resolver)), vec!["plain"]);
}

#[derive(Debug)]
struct OnePlugin(Arc<SkillBundle>);

impl PluginSkills for OnePlugin {
    fn plugin_skills(&self) -> Vec<PluginSkill> {
        vec![PluginSkill {
            plugin_id: "acme".to_owned(),
            name: self.0.name().to_owned(),
            bundle: Ok(Arc::clone(&self.0)),
        }]
    }
}

#[test]
fn plugin_skills_join_the_catalog_and_a_user_copy_overrides_them() {
    let d = dirs();
    let bundle = Arc::new(
        SkillBundle::from_parts("acme-helper", skill_md("acme-helper", ""), vec![]).unwrap(),
    );
    let mut sources = CatalogSources::new(None, d.user.clone());
    sources.plugins = Arc::new(OnePlugin(bundle));
    let mut catalog = Catalog::load(sources);
    let entry = catalog.entry("acme-helper").unwrap();
    assert_eq!(entry.source, SkillSource::Plugin("acme".to_owned()));
    assert_eq!(entry.source.key(), "plugin:acme");
    write_skill(&d.user, "acme-helper", &skill_md("acme-helper", ""), &[]);
    catalog.reload();
    let entry = catalog.entry("acme-helper").unwrap();
    assert_eq!(entry.source, SkillSource::User);
    assert_eq!(
        entry.overrides,
        Some(SkillSource::Plugin("acme".to_owned()))
    );
}

#[cfg(unix)]
#[test]
fn a_link_inside_a_skill_folder_is_not_followed() {
    let d = dirs();
    let outside = d.builtin.parent().unwrap().join("secret.txt");
    fs::write(&outside, "secret").unwrap();
    write_skill(
        &d.user,
        "mine",
        &skill_md("mine", ""),
        &[("notes.md", b"n")],
    );
    std::os::unix::fs::symlink(&outside, d.user.join("mine/leak.txt")).unwrap();
    std::os::unix::fs::symlink(d.builtin.parent().unwrap(), d.user.join("mine/up")).unwrap();
    let catalog = load(&d);
    let bundle = catalog.entry("mine").unwrap().bundle.clone().unwrap();
    let paths: Vec<&str> = bundle.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, vec!["notes.md"]);
}

#[test]
fn oversized_files_make_the_skill_unavailable_naming_the_file() {
    let d = dirs();
    let big = vec![0u8; (pizza_extensions::MAX_FILE_BYTES + 1) as usize];
    write_skill(
        &d.user,
        "big",
        &skill_md("big", ""),
        &[("data/huge.bin", &big)],
    );
    let catalog = load(&d);
    let reason = catalog
        .entry("big")
        .unwrap()
        .bundle
        .as_ref()
        .unwrap_err()
        .clone();
    assert!(reason.starts_with("data/huge.bin: "), "{reason}");
}

#[test]
fn a_broken_skill_can_still_be_opened_to_fix_it() {
    let d = dirs();
    let broken = "---\nname: [oops\n---\nbody\n";
    write_skill(&d.user, "broken", broken, &[("notes.md", b"n")]);
    let catalog = load(&d);
    let entry = catalog.entry("broken").unwrap();
    assert!(entry.bundle.is_err());
    let raw = RawSkill::read(entry.folder.as_ref().unwrap()).unwrap();
    assert_eq!(raw.skill_md, broken);
    assert_eq!(raw.files, vec![BundleFile::new("notes.md", "n")]);
}

/// A resolver whose `slow` server is still listing its tools.
struct Discovering;

impl ToolResolver for Discovering {
    fn resolve(&self, tool: &ToolRef) -> Resolution {
        match tool.mcp_server() {
            Some("slow") => Resolution::Loading,
            Some("fast") => tool.resolve_in(["search", "fetch"]),
            _ => BuiltinToolResolver::default().resolve(tool),
        }
    }
}

#[test]
fn readiness_is_loading_while_a_server_lists_its_tools_and_unavailable_wins() {
    let d = dirs();
    write_skill(
        &d.user,
        "waits",
        &skill_md("waits", "tools: [mcp:fast:*, mcp:slow:*]\n"),
        &[],
    );
    write_skill(
        &d.user,
        "ready",
        &skill_md("ready", "tools: [ls, mcp:fast:se*]\n"),
        &[],
    );
    write_skill(
        &d.user,
        "missing",
        &skill_md("missing", "tools: [mcp:slow:*, mcp:fast:nope]\n"),
        &[],
    );
    let catalog = load(&d);
    let readiness: Vec<(String, Readiness)> = catalog
        .listing(&Discovering)
        .into_iter()
        .map(|l| (l.name, l.readiness))
        .collect();
    assert_eq!(
        readiness,
        vec![
            (
                "missing".to_owned(),
                Readiness::Unavailable {
                    reasons: vec!["MCP server fast has no tool nope".to_owned()]
                }
            ),
            ("ready".to_owned(), Readiness::Ready),
            ("waits".to_owned(), Readiness::Loading),
        ]
    );
    assert_eq!(names(&catalog.ready_skills(&Discovering)), vec!["ready"]);
}

#[test]
fn a_catalog_can_be_shared_across_tasks() {
    fn shared<T: Send + Sync + Clone + 'static>() {}
    shared::<Catalog>();
    shared::<Arc<SkillBundle>>();
}
