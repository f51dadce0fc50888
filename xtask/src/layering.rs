//! `cargo xtask layering`: the crate graph DESIGN.md §2 allows, checked
//! against what `cargo metadata` says the workspace really depends on.
//!
//! Two rules. A workspace crate depends (normal or build) only on the
//! workspace crates its row of [`ALLOWED`] names; a dev-dependency may also
//! be `pizza-test-support`. And each heavy dependency has one owner
//! ([`HEAVY`]): no other workspace crate reaches it, directly or through
//! third-party crates, except through a crate that brings its own
//! ([`CARRIERS`]).

use crate::step;
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::fmt;

const PROTOCOL: &str = "pizza-protocol";
const LLM: &str = "pizza-llm";
const PROVIDERS: &str = "pizza-providers";
const STORE: &str = "pizza-store";
const MCP: &str = "pizza-mcp";
const SANDBOX: &str = "pizza-sandbox";
const PAGES: &str = "pizza-pages";
const WEBEXT: &str = "pizza-webext";
const LAUNCH: &str = "pizza-launch";
const EXTENSIONS: &str = "pizza-extensions";
const TOOLS: &str = "pizza-tools";
const AGENT: &str = "pizza-agent";
const SCHEDULER: &str = "pizza-scheduler";
const HOST: &str = "pizza-host";
const TEST_SUPPORT: &str = "pizza-test-support";
const APP: &str = "pizza-bot";
const UI: &str = "pizza-ui";
const SCENARIOS: &str = "pizza-tests";
const XTASK: &str = "xtask";

/// The libraries the headless host composes ("all above" in the table).
const LIBRARIES: &[&str] = &[
    PROTOCOL, LLM, PROVIDERS, STORE, MCP, SANDBOX, EXTENSIONS, TOOLS, AGENT, SCHEDULER,
];

/// DESIGN.md §2: the workspace crates each workspace crate may depend on,
/// for the crates that exist and the planned ones. A crate missing here
/// fails the check, so a new crate starts by saying where it sits.
/// Nothing lists `pizza-bot` or `pizza-ui`: nothing may depend on them.
const ALLOWED: &[(&str, &[&str])] = &[
    (PROTOCOL, &[]),
    (LLM, &[]),
    (PROVIDERS, &[LLM]),
    (STORE, &[PROTOCOL]),
    (MCP, &[PROTOCOL]),
    (SANDBOX, &[]),
    (EXTENSIONS, &[PROTOCOL]),
    (TOOLS, &[LLM, MCP, SANDBOX, EXTENSIONS, PROTOCOL]),
    // Never providers, mcp (only through tools) or scheduler.
    (AGENT, &[LLM, TOOLS, EXTENSIONS, STORE, PROTOCOL]),
    (SCHEDULER, &[STORE, PROTOCOL]),
    (HOST, LIBRARIES),
    // Mock servers, a temp store and the MCP test-server launcher: the
    // contracts they serve, never the code under test.
    (TEST_SUPPORT, &[PROTOCOL, LLM, STORE, MCP]),
    // Handing back pages of code: the app's process and, through the web
    // process extension, WebKit's web processes.
    (PAGES, &[]),
    (WEBEXT, &[PAGES]),
    // Where the data lives and handing a launch to the running app: the
    // app's process and `pizza-bot-open`, which loads none of its libraries.
    (LAUNCH, &[]),
    // The composition root delegates to the host.
    (APP, &[HOST, PROTOCOL, PAGES, LAUNCH]),
    (UI, &[PROTOCOL]),
    // Cross-crate scenarios drive the libraries; the app only as a binary.
    (
        SCENARIOS,
        &[
            PROTOCOL,
            LLM,
            PROVIDERS,
            STORE,
            MCP,
            SANDBOX,
            EXTENSIONS,
            TOOLS,
            AGENT,
            SCHEDULER,
            HOST,
            TEST_SUPPORT,
        ],
    ),
    (XTASK, &[]),
];

/// Each heavy dependency (with its companion crates, `sqlx-core`,
/// `tauri-plugin-dialog`, …) and the one workspace crate that owns it.
const HEAVY: &[(&str, &str)] = &[
    ("sqlx", STORE),
    ("rmcp", MCP),
    ("boa", SANDBOX),
    ("tauri", APP),
    ("keyring", APP),
    ("notify-rust", APP),
    ("reqwest", PROVIDERS),
];

/// Third-party crates that bring a heavy dependency of their own, which
/// then does not make their user a second owner: rmcp's HTTP transport is
/// reqwest (DESIGN.md §2), and so are tauri's mobile targets.
const CARRIERS: &[(&str, &str)] = &[("reqwest", "rmcp"), ("reqwest", "tauri")];

/// A workspace crate that uses, directly (never through another crate), the heavy dependency one of its
/// own heavy dependencies carries: pizza-mcp writes the legacy SSE
/// transport rmcp no longer ships on rmcp's reqwest (DESIGN.md §2).
const COMPANIONS: &[(&str, &str)] = &[("reqwest", MCP)];

/// Runs `cargo metadata` on the workspace and fails naming every edge the
/// layering does not allow.
pub(crate) fn check() -> Result<()> {
    let metadata = workspace_metadata()?;
    let found = violations(&metadata);
    if found.is_empty() {
        eprintln!(
            "layering: {} workspace crates, every dependency allowed by DESIGN.md §2",
            metadata.workspace_members.len()
        );
        return Ok(());
    }
    let lines: Vec<String> = found.iter().map(|v| format!("  {v}")).collect();
    bail!(
        "the crate graph breaks DESIGN.md §2 (the table is in xtask/src/layering.rs):\n{}",
        lines.join("\n")
    )
}

/// The workspace's resolved graph, all targets' dependencies included.
fn workspace_metadata() -> Result<Metadata> {
    let output = std::process::Command::new(step::cargo_bin())
        .args(["metadata", "--format-version", "1"])
        .current_dir(crate::workspace_root())
        .output()
        .context("running cargo metadata")?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    serde_json::from_slice(&output.stdout).context("reading cargo metadata")
}

/// The part of `cargo metadata --format-version 1` the check reads.
#[derive(Debug, Deserialize)]
pub(crate) struct Metadata {
    packages: Vec<Package>,
    workspace_members: Vec<String>,
    resolve: Option<Resolve>,
}

#[derive(Debug, Deserialize)]
struct Package {
    id: String,
    name: String,
    dependencies: Vec<Dependency>,
}

/// A dependency as declared in a manifest (`name` is the package's, even
/// when renamed).
#[derive(Debug, Deserialize)]
struct Dependency {
    name: String,
    kind: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Resolve {
    nodes: Vec<Node>,
}

#[derive(Debug, Deserialize)]
struct Node {
    id: String,
    deps: Vec<NodeDep>,
}

#[derive(Debug, Deserialize)]
struct NodeDep {
    pkg: String,
    dep_kinds: Vec<DepKind>,
}

#[derive(Debug, Deserialize)]
struct DepKind {
    kind: Option<String>,
}

/// One edge the layering does not allow.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Violation {
    /// A workspace crate the table does not place.
    Unplaced { krate: String },
    /// A workspace crate depends on one its row does not allow.
    Forbidden {
        from: String,
        to: String,
        kind: String,
    },
    /// A crate other than the owner reaches a heavy dependency; `path`
    /// runs from the crate to it.
    SecondOwner {
        heavy: String,
        owner: String,
        path: Vec<String>,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unplaced { krate } => write!(
                f,
                "{krate} is not in the layering table: add its row (which workspace crates it may depend on)"
            ),
            Self::Forbidden { from, to, kind } => {
                let allowed = allowed_for(from).unwrap_or(&[]);
                let allowed = if allowed.is_empty() {
                    "no workspace crate".to_owned()
                } else {
                    allowed.join(", ")
                };
                write!(
                    f,
                    "{from} → {to} ({kind} dependency) is not allowed: {from} may depend on {allowed}"
                )
            }
            Self::SecondOwner { heavy, owner, path } => write!(
                f,
                "{} gives {heavy} a second owner: only {owner} may depend on it",
                path.join(" → ")
            ),
        }
    }
}

fn allowed_for(krate: &str) -> Option<&'static [&'static str]> {
    ALLOWED
        .iter()
        .find(|(name, _)| *name == krate)
        .map(|(_, allowed)| *allowed)
}

/// Whether `package` is `heavy` or one of its companion crates
/// (`sqlx-sqlite`, `boa_engine`, `tauri-plugin-dialog`).
fn in_family(package: &str, heavy: &str) -> bool {
    package
        .strip_prefix(heavy)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '_']))
}

fn kind_name(kind: Option<&str>) -> &'static str {
    match kind {
        Some("dev") => "dev",
        Some("build") => "build",
        _ => "normal",
    }
}

/// Every edge in `metadata` the layering does not allow, sorted.
pub(crate) fn violations(metadata: &Metadata) -> Vec<Violation> {
    let members: BTreeSet<&str> = metadata
        .workspace_members
        .iter()
        .map(String::as_str)
        .collect();
    let workspace: Vec<&Package> = metadata
        .packages
        .iter()
        .filter(|p| members.contains(p.id.as_str()))
        .collect();
    let workspace_names: BTreeSet<&str> = workspace.iter().map(|p| p.name.as_str()).collect();
    let mut found = BTreeSet::new();

    for package in &workspace {
        let Some(allowed) = allowed_for(&package.name) else {
            found.insert(Violation::Unplaced {
                krate: package.name.clone(),
            });
            continue;
        };
        for dependency in &package.dependencies {
            let to = dependency.name.as_str();
            // A crate naming itself (to turn on its own test features) is no edge.
            if to == package.name || !workspace_names.contains(to) {
                continue;
            }
            let kind = kind_name(dependency.kind.as_deref());
            let ok = allowed.contains(&to) || (kind == "dev" && to == TEST_SUPPORT);
            if !ok {
                found.insert(Violation::Forbidden {
                    from: package.name.clone(),
                    to: to.to_owned(),
                    kind: kind.to_owned(),
                });
            }
        }
    }

    if let Some(resolve) = &metadata.resolve {
        let graph = Graph::new(metadata, resolve, &members);
        for package in &workspace {
            for (heavy, owner) in HEAVY {
                if package.name == *owner {
                    continue;
                }
                let companion = COMPANIONS
                    .iter()
                    .any(|(carried, user)| carried == heavy && *user == package.name);
                // A companion's own direct use is allowed, nothing else.
                if let Some(path) = graph.path_to(&package.id, heavy, companion) {
                    found.insert(Violation::SecondOwner {
                        heavy: (*heavy).to_owned(),
                        owner: (*owner).to_owned(),
                        path,
                    });
                }
            }
        }
    }
    found.into_iter().collect()
}

/// The resolved package graph, by package id.
struct Graph<'a> {
    names: HashMap<&'a str, &'a str>,
    edges: HashMap<&'a str, Vec<(&'a str, bool)>>,
    members: &'a BTreeSet<&'a str>,
}

impl<'a> Graph<'a> {
    fn new(metadata: &'a Metadata, resolve: &'a Resolve, members: &'a BTreeSet<&'a str>) -> Self {
        let names = metadata
            .packages
            .iter()
            .map(|p| (p.id.as_str(), p.name.as_str()))
            .collect();
        let edges = resolve
            .nodes
            .iter()
            .map(|node| {
                let deps = node
                    .deps
                    .iter()
                    .map(|dep| {
                        let built_in = dep.dep_kinds.is_empty()
                            || dep
                                .dep_kinds
                                .iter()
                                .any(|k| k.kind.as_deref() != Some("dev"));
                        (dep.pkg.as_str(), built_in)
                    })
                    .collect();
                (node.id.as_str(), deps)
            })
            .collect();
        Self {
            names,
            edges,
            members,
        }
    }

    fn name(&self, id: &'a str) -> &'a str {
        self.names.get(id).copied().unwrap_or(id)
    }

    /// The shortest path (by package name) from workspace crate `start` to
    /// a crate of `heavy`'s family through third-party crates, leaving out
    /// carriers of `heavy`. Other workspace crates are not entered: each is
    /// checked on its own. The start's dev-dependencies count (tests are
    /// code the crate owns); a third-party crate's are not built.
    /// `skip_direct` leaves out the start's own direct edges to the family.
    fn path_to(&self, start: &'a str, heavy: &str, skip_direct: bool) -> Option<Vec<String>> {
        let mut parent: HashMap<&'a str, &'a str> = HashMap::new();
        let mut queue = VecDeque::from([start]);
        while let Some(id) = queue.pop_front() {
            for &(next, built_in) in self.edges.get(id).into_iter().flatten() {
                if (id != start && !built_in)
                    || next == start
                    || self.members.contains(next)
                    || parent.contains_key(next)
                {
                    continue;
                }
                let name = self.name(next);
                if skip_direct && id == start && in_family(name, heavy) {
                    continue;
                }
                parent.insert(next, id);
                if in_family(name, heavy) {
                    let mut path = vec![name.to_owned()];
                    let mut at = id;
                    while at != start {
                        path.push(self.name(at).to_owned());
                        at = parent.get(at).copied().unwrap_or(start);
                    }
                    path.push(self.name(start).to_owned());
                    path.reverse();
                    return Some(path);
                }
                let carries = CARRIERS
                    .iter()
                    .any(|(carried, carrier)| *carried == heavy && *carrier == name);
                if !carries {
                    queue.push_back(next);
                }
            }
        }
        None
    }
}

#[cfg(test)]
#[path = "layering_tests.rs"]
mod tests;
