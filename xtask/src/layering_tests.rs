use super::*;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// One crate of a fixture: its name, whether it is a workspace member, and
/// its dependencies with their kinds (`None` for normal).
type FixtureCrate = (String, bool, Vec<(String, Option<&'static str>)>);

/// A small crate graph in `cargo metadata`'s shape: workspace crates and
/// third-party ones, each with its dependencies and their kinds.
#[derive(Default)]
struct Fixture {
    crates: Vec<FixtureCrate>,
}

impl Fixture {
    /// Today's workspace, with the heavy dependencies where they belong
    /// and the crates that bring their own.
    fn today() -> Self {
        let mut graph = Self::default();
        graph
            .member(PROTOCOL, &["serde"])
            .member(LLM, &["serde"])
            .member(PROVIDERS, &[LLM, "reqwest"])
            .member(STORE, &[PROTOCOL, "sqlx"])
            .member(TOOLS, &[LLM, "rustix"])
            .member(AGENT, &[LLM, TOOLS, STORE, PROTOCOL])
            .member(HOST, &[PROTOCOL, STORE, LLM, PROVIDERS, AGENT, TOOLS])
            .member(TEST_SUPPORT, &["hyper", "zbus"])
            .member(
                APP,
                &[
                    PROTOCOL,
                    HOST,
                    "tauri",
                    "tauri-plugin-dialog",
                    "keyring",
                    "notify-rust",
                ],
            )
            .member(UI, &[PROTOCOL, "leptos"])
            .member(SCENARIOS, &[])
            .member(XTASK, &["serde"])
            .external("serde", &[])
            .external("reqwest", &["hyper"])
            .external("hyper", &[])
            .external("sqlx", &["sqlx-core"])
            .external("sqlx-core", &[])
            .external("rustix", &[])
            .external("zbus", &[])
            .external("leptos", &["serde"])
            // tauri's mobile targets use reqwest: that is tauri's own.
            .external("tauri", &["reqwest", "serde"])
            .external("tauri-plugin-dialog", &["tauri"])
            .external("keyring", &["zbus"])
            .external("notify-rust", &["zbus"]);
        graph
            .dev(HOST, TEST_SUPPORT)
            .dev(PROVIDERS, TEST_SUPPORT)
            .dev(APP, TEST_SUPPORT)
            .dev(SCENARIOS, STORE)
            .dev(SCENARIOS, TEST_SUPPORT)
            // A crate naming itself to turn on its test features.
            .dev(LLM, LLM);
        graph
    }

    fn member(&mut self, name: &str, deps: &[&str]) -> &mut Self {
        self.add(name, true, deps)
    }

    fn external(&mut self, name: &str, deps: &[&str]) -> &mut Self {
        self.add(name, false, deps)
    }

    fn add(&mut self, name: &str, member: bool, deps: &[&str]) -> &mut Self {
        let deps = deps.iter().map(|d| ((*d).to_owned(), None)).collect();
        self.crates.push((name.to_owned(), member, deps));
        self
    }

    fn depend(&mut self, from: &str, to: &str, kind: Option<&'static str>) -> &mut Self {
        let entry = self
            .crates
            .iter_mut()
            .find(|(name, _, _)| name == from)
            .unwrap();
        entry.2.push((to.to_owned(), kind));
        self
    }

    fn normal(&mut self, from: &str, to: &str) -> &mut Self {
        self.depend(from, to, None)
    }

    fn dev(&mut self, from: &str, to: &str) -> &mut Self {
        self.depend(from, to, Some("dev"))
    }

    fn id(&self, name: &str) -> String {
        let member = self.crates.iter().any(|(n, m, _)| n == name && *m);
        if member {
            format!("path+file:///work/{name}#0.1.0")
        } else {
            format!("registry+https://github.com/rust-lang/crates.io-index#{name}@1.0.0")
        }
    }

    fn metadata(&self) -> Metadata {
        let packages: Vec<Value> = self
            .crates
            .iter()
            .map(|(name, _, deps)| {
                let deps: Vec<Value> = deps
                    .iter()
                    .map(|(to, kind)| json!({"name": to, "kind": kind, "req": "*"}))
                    .collect();
                json!({"id": self.id(name), "name": name, "version": "1.0.0", "dependencies": deps})
            })
            .collect();
        let members: Vec<String> = self
            .crates
            .iter()
            .filter(|(_, member, _)| *member)
            .map(|(name, _, _)| self.id(name))
            .collect();
        let nodes: Vec<Value> = self
            .crates
            .iter()
            .map(|(name, _, deps)| {
                let deps: Vec<Value> = deps
                    .iter()
                    .filter(|(to, _)| to != name)
                    .map(|(to, kind)| {
                        json!({"name": to.replace('-', "_"), "pkg": self.id(to), "dep_kinds": [{"kind": kind, "target": null}]})
                    })
                    .collect();
                json!({"id": self.id(name), "deps": deps, "features": []})
            })
            .collect();
        serde_json::from_value(json!({
            "packages": packages,
            "workspace_members": members,
            "resolve": {"nodes": nodes, "root": null},
            "version": 1,
        }))
        .unwrap()
    }

    fn violations(&self) -> Vec<Violation> {
        violations(&self.metadata())
    }
}

fn forbidden(from: &str, to: &str, kind: &str) -> Violation {
    Violation::Forbidden {
        from: from.to_owned(),
        to: to.to_owned(),
        kind: kind.to_owned(),
    }
}

fn second_owner(heavy: &str, owner: &str, path: &[&str]) -> Violation {
    Violation::SecondOwner {
        heavy: heavy.to_owned(),
        owner: owner.to_owned(),
        path: path.iter().map(|p| (*p).to_owned()).collect(),
    }
}

#[test]
fn the_designed_graph_passes() {
    assert_eq!(Fixture::today().violations(), vec![]);
}

#[test]
fn the_real_workspace_passes() {
    let metadata = workspace_metadata().unwrap();
    let found: Vec<String> = violations(&metadata)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn the_agent_on_providers_is_refused_by_name() {
    let mut graph = Fixture::today();
    graph.normal(AGENT, PROVIDERS);
    let found = graph.violations();
    assert_eq!(found, vec![forbidden(AGENT, PROVIDERS, "normal")]);
    assert_eq!(
        found[0].to_string(),
        "pizza-agent → pizza-providers (normal dependency) is not allowed: pizza-agent may depend on \
         pizza-llm, pizza-tools, pizza-extensions, pizza-store, pizza-protocol"
    );
}

#[test]
fn the_ui_depends_on_the_contract_only() {
    let mut graph = Fixture::today();
    graph.normal(UI, HOST);
    assert_eq!(graph.violations(), vec![forbidden(UI, HOST, "normal")]);
}

#[test]
fn nothing_depends_on_the_app() {
    let mut graph = Fixture::today();
    graph.dev(SCENARIOS, APP);
    graph.depend(HOST, APP, Some("build"));
    assert_eq!(
        graph.violations(),
        vec![
            forbidden(HOST, APP, "build"),
            forbidden(SCENARIOS, APP, "dev"),
        ]
    );
}

#[test]
fn the_contract_crates_depend_on_no_workspace_crate() {
    let mut graph = Fixture::today();
    graph.normal(PROTOCOL, LLM).normal(LLM, PROTOCOL);
    assert_eq!(
        graph.violations(),
        vec![
            forbidden(LLM, PROTOCOL, "normal"),
            forbidden(PROTOCOL, LLM, "normal")
        ]
    );
    assert!(
        graph.violations()[1]
            .to_string()
            .ends_with("pizza-protocol may depend on no workspace crate")
    );
}

#[test]
fn test_support_is_for_dev_dependencies_only() {
    let mut graph = Fixture::today();
    graph.dev(AGENT, TEST_SUPPORT).normal(TOOLS, TEST_SUPPORT);
    assert_eq!(
        graph.violations(),
        vec![forbidden(TOOLS, TEST_SUPPORT, "normal")]
    );
}

#[test]
fn a_dev_dependency_is_held_to_the_table_too() {
    let mut graph = Fixture::today();
    graph.dev(AGENT, PROVIDERS);
    assert_eq!(graph.violations(), vec![forbidden(AGENT, PROVIDERS, "dev")]);
}

#[test]
fn sqlx_in_the_host_is_a_second_owner() {
    let mut graph = Fixture::today();
    graph.normal(HOST, "sqlx");
    let found = graph.violations();
    assert_eq!(found, vec![second_owner("sqlx", STORE, &[HOST, "sqlx"])]);
    assert_eq!(
        found[0].to_string(),
        "pizza-host → sqlx gives sqlx a second owner: only pizza-store may depend on it"
    );
}

#[test]
fn a_heavy_dependency_through_a_third_party_crate_is_named_with_its_path() {
    let mut graph = Fixture::today();
    graph
        .external("tiny-orm", &["sqlx-core"])
        .normal(AGENT, "tiny-orm");
    assert_eq!(
        graph.violations(),
        vec![second_owner(
            "sqlx",
            STORE,
            &[AGENT, "tiny-orm", "sqlx-core"]
        )]
    );
}

#[test]
fn tauri_and_its_plugins_belong_to_the_app() {
    let mut graph = Fixture::today();
    graph
        .normal(HOST, "tauri-plugin-dialog")
        .dev(TOOLS, "keyring");
    assert_eq!(
        graph.violations(),
        vec![
            second_owner("keyring", APP, &[TOOLS, "keyring"]),
            second_owner("tauri", APP, &[HOST, "tauri-plugin-dialog"]),
        ]
    );
}

#[test]
fn rmcp_may_bring_its_own_reqwest_but_nothing_else_may() {
    let mut graph = Fixture::today();
    graph
        .member(MCP, &[PROTOCOL, "rmcp"])
        .external("rmcp", &["reqwest"])
        .normal(TOOLS, MCP);
    assert_eq!(graph.violations(), vec![]);
    // The legacy SSE transport uses rmcp's reqwest directly.
    graph.normal(MCP, "reqwest");
    assert_eq!(graph.violations(), vec![]);

    graph
        .external("http-kit", &["reqwest"])
        .normal(MCP, "http-kit");
    assert_eq!(
        graph.violations(),
        vec![second_owner(
            "reqwest",
            PROVIDERS,
            &[MCP, "http-kit", "reqwest"]
        )]
    );
}

#[test]
fn the_planned_crates_have_their_places() {
    let mut graph = Fixture::today();
    graph
        .member(MCP, &[PROTOCOL, "rmcp"])
        .member(SANDBOX, &["boa_engine"])
        .member(EXTENSIONS, &[PROTOCOL])
        .member(SCHEDULER, &[STORE, PROTOCOL])
        .external("rmcp", &[])
        .external("boa_engine", &[])
        .normal(TOOLS, MCP)
        .normal(TOOLS, SANDBOX)
        .normal(TOOLS, EXTENSIONS)
        .normal(AGENT, EXTENSIONS)
        .normal(HOST, MCP)
        .normal(HOST, SCHEDULER)
        .normal(HOST, EXTENSIONS);
    assert_eq!(graph.violations(), vec![]);

    graph
        .normal(AGENT, MCP)
        .normal(AGENT, SCHEDULER)
        .normal(SANDBOX, "boa_gc")
        .external("boa_gc", &[])
        .normal(TOOLS, "boa_engine");
    assert_eq!(
        graph.violations(),
        vec![
            forbidden(AGENT, MCP, "normal"),
            forbidden(AGENT, SCHEDULER, "normal"),
            second_owner("boa", SANDBOX, &[TOOLS, "boa_engine"]),
        ]
    );
}

#[test]
fn a_crate_missing_from_the_table_fails_until_placed() {
    let mut graph = Fixture::today();
    graph.member("pizza-widgets", &[PROTOCOL]);
    assert_eq!(
        graph.violations(),
        vec![Violation::Unplaced {
            krate: "pizza-widgets".to_owned()
        }]
    );
}

#[test]
fn the_table_names_only_its_own_crates_and_never_the_app_or_the_ui() {
    let placed: BTreeSet<&str> = ALLOWED.iter().map(|(name, _)| *name).collect();
    assert_eq!(placed.len(), ALLOWED.len(), "a crate has two rows");
    for (krate, allowed) in ALLOWED {
        for dependency in *allowed {
            assert!(
                placed.contains(dependency),
                "{krate} allows unknown {dependency}"
            );
            assert!(
                ![APP, UI, *krate].contains(dependency),
                "{krate} allows {dependency}"
            );
        }
    }
    for (_, owner) in HEAVY {
        assert!(placed.contains(owner), "{owner}");
    }
}
