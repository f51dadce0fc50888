//! What the tools see through a `CompositeFs`: the state files, the memory
//! folder and granted folders side by side.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pizza_tools::{
    Access, CancellationToken, CompositeFs, Grant, Mounts, ThreadFiles, ToolContext, ToolError,
    ToolRegistry,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

struct Setup {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    state: ThreadFiles,
    registry: ToolRegistry,
}

impl Setup {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("notes/sub")).unwrap();
        std::fs::create_dir_all(root.join("out")).unwrap();
        std::fs::write(root.join("notes/caf\u{e9}.md"), "espresso\n").unwrap();
        std::fs::write(root.join("notes/100%.txt"), "percent\n").unwrap();
        std::fs::write(root.join("notes/\u{fb01}le.md"), "ligature\n").unwrap();
        std::fs::write(root.join("notes/blob.bin"), [0xff, 0xfe, 0x00, 0x01]).unwrap();
        std::fs::write(root.join("notes/sub/deep.md"), "deep espresso\n").unwrap();
        Self {
            _tmp: tmp,
            root,
            state: ThreadFiles::new(BTreeMap::from([(
                "/plan.md".to_owned(),
                "the plan\n".to_owned(),
            )])),
            registry: ToolRegistry::with_builtins(),
        }
    }

    fn mounts(&self, memory: bool) -> Mounts {
        Mounts {
            grants: vec![
                grant("notes", self.root.join("notes"), Access::ReadOnly),
                grant("out", self.root.join("out"), Access::ReadWrite),
            ],
            memories: memory.then(|| self.root.join("data/memories")),
        }
    }

    async fn call_with(
        &self,
        mounts: Mounts,
        tool: &str,
        args: Value,
    ) -> Result<String, ToolError> {
        let fs = CompositeFs::new(self.state.clone(), Arc::new(mounts));
        let tool = self.registry.resolve(tool, &args)?;
        let ctx = ToolContext {
            thread_id: "t".into(),
            call_id: "c".into(),
            fs: Arc::new(fs),
            nested: None,
        };
        tool.call(&ctx, args, CancellationToken::new())
            .await
            .map(|output| output.to_text())
    }

    async fn call(&self, tool: &str, args: Value) -> Result<String, ToolError> {
        self.call_with(self.mounts(true), tool, args).await
    }
}

fn grant(id: &str, path: PathBuf, access: Access) -> Grant {
    Grant {
        id: id.to_owned(),
        path,
        access,
    }
}

#[tokio::test]
async fn the_root_shows_state_files_memory_and_grants() {
    let s = Setup::new();
    assert_eq!(
        s.call("ls", json!({})).await.unwrap(),
        "/local/\n/memories/\n/plan.md (9 bytes)"
    );
    assert_eq!(
        s.call_with(Mounts::default(), "ls", json!({}))
            .await
            .unwrap(),
        "/plan.md (9 bytes)"
    );
    assert_eq!(
        s.call("ls", json!({"path": "/local"})).await.unwrap(),
        "/local/notes/\n/local/out/"
    );
    assert_eq!(
        s.call("ls", json!({"path": "/local/notes"})).await.unwrap(),
        "/local/notes/%EF%AC%81le.md (9 bytes)\n/local/notes/100%25.txt (8 bytes)\n\
         /local/notes/blob.bin (4 bytes)\n/local/notes/caf%C3%A9.md (9 bytes)\n/local/notes/sub/"
    );
}

#[tokio::test]
async fn encoded_names_are_decoded_and_equivalent_names_recovered_on_read() {
    let s = Setup::new();
    for path in [
        "/local/notes/caf%C3%A9.md",
        "/local/notes/caf\u{e9}.md",
        "/local/notes/cafe\u{301}.md",
    ] {
        let page = s
            .call("read_file", json!({"file_path": path}))
            .await
            .unwrap();
        assert_eq!(page, "     1\tespresso", "{path}");
    }
    let page = s
        .call("read_file", json!({"file_path": "/local/notes/file.md"}))
        .await;
    assert_eq!(page.unwrap(), "     1\tligature");
    let page = s
        .call("read_file", json!({"file_path": "/local/notes/100%25.txt"}))
        .await;
    assert_eq!(page.unwrap(), "     1\tpercent");

    // Writes need the exact name: an equivalent spelling is a new file.
    s.call(
        "write_file",
        json!({"file_path": "/local/out/caf\u{e9}.md", "content": "a"}),
    )
    .await
    .unwrap();
    s.call(
        "write_file",
        json!({"file_path": "/local/out/cafe%CC%81.md", "content": "b"}),
    )
    .await
    .unwrap();
    let mut names: Vec<String> = std::fs::read_dir(s.root.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec!["cafe\u{301}.md".to_owned(), "caf\u{e9}.md".to_owned()]
    );
}

#[tokio::test]
async fn searches_cover_every_mount_and_skip_binary_files() {
    let s = Setup::new();
    let found = s
        .call(
            "grep",
            json!({"pattern": "espresso", "output_mode": "content"}),
        )
        .await
        .unwrap();
    assert_eq!(
        found,
        "/local/notes/caf%C3%A9.md:1: espresso\n/local/notes/sub/deep.md:1: deep espresso\n\
         [1 files were skipped: binary, too large or unreadable.]"
    );
    let err = s
        .call("read_file", json!({"file_path": "/local/notes/blob.bin"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "/local/notes/blob.bin is a binary file (not UTF-8 text); only text files can be read"
    );
    let globbed = s.call("glob", json!({"pattern": "**/*.md"})).await.unwrap();
    assert_eq!(
        globbed,
        "/local/notes/%EF%AC%81le.md\n/local/notes/caf%C3%A9.md\n/local/notes/sub/deep.md\n/plan.md"
    );
}

#[tokio::test]
async fn writes_land_in_writable_grants_and_memory_only() {
    let s = Setup::new();
    let ok = s
        .call(
            "write_file",
            json!({"file_path": "/local/out/a/b/new.md", "content": "hello"}),
        )
        .await
        .unwrap();
    assert_eq!(ok, "Created /local/out/a/b/new.md (5 characters).");
    assert_eq!(
        std::fs::read_to_string(s.root.join("out/a/b/new.md")).unwrap(),
        "hello"
    );
    let edited = s
        .call(
            "edit_file",
            json!({"file_path": "/local/out/a/b/new.md", "old_string": "hello", "new_string": "bye"}),
        )
        .await
        .unwrap();
    assert_eq!(edited, "Replaced 1 occurrence in /local/out/a/b/new.md.");
    // No temporary file is left behind.
    assert_eq!(
        std::fs::read_dir(s.root.join("out/a/b")).unwrap().count(),
        1
    );

    let err = s
        .call(
            "write_file",
            json!({"file_path": "/local/notes/x.md", "content": "x"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "/local/notes/x.md: permission denied: /local/notes/ is read-only; the person can make it \
         writable in Settings › Files"
    );

    s.call(
        "write_file",
        json!({"file_path": "/memories/topic.md", "content": "remember"}),
    )
    .await
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(s.root.join("data/memories/topic.md")).unwrap(),
        "remember"
    );
    for (tool, args) in [
        ("ls", json!({"path": "/memories"})),
        ("read_file", json!({"file_path": "/memories/topic.md"})),
        (
            "write_file",
            json!({"file_path": "/memories/new.md", "content": "x"}),
        ),
    ] {
        let err = s.call_with(s.mounts(false), tool, args).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}: permission denied: Memory is off; the person can turn it on in Settings › Memory.",
                if tool == "ls" {
                    "/memories"
                } else if tool == "read_file" {
                    "/memories/topic.md"
                } else {
                    "/memories/new.md"
                }
            )
        );
    }

    // State files behave as before, and the reserved folders are not theirs.
    s.call(
        "write_file",
        json!({"file_path": "/plan.md", "content": "new plan"}),
    )
    .await
    .unwrap();
    assert_eq!(
        s.state.take_changes(),
        vec![("/plan.md".to_owned(), Some("new plan".to_owned()))]
    );
    for path in ["/local", "/memories", "/local/out"] {
        let err = s
            .call("write_file", json!({"file_path": path, "content": "x"}))
            .await
            .unwrap_err();
        assert!(
            matches!(err, ToolError::PermissionDenied { .. }),
            "{path}: {err:?}"
        );
    }
    assert!(!s.state.has_changes());
}

#[tokio::test]
async fn a_writable_grant_inside_a_read_only_one_is_suggested() {
    let s = Setup::new();
    let mut mounts = s.mounts(true);
    mounts
        .grants
        .push(grant("sub", s.root.join("notes/sub"), Access::ReadWrite));
    let err = s
        .call_with(
            mounts,
            "write_file",
            json!({"file_path": "/local/notes/sub/deep.md", "content": "x"}),
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .ends_with("or write to /local/sub/deep.md, which is writable"),
        "{err}"
    );
}

#[tokio::test]
async fn big_folders_are_listed_and_walked_within_bounds() {
    let s = Setup::new();
    let big = s.root.join("out/big");
    std::fs::create_dir_all(&big).unwrap();
    for i in 0..1_005 {
        std::fs::write(big.join(format!("f{i:05}.txt")), "").unwrap();
    }
    let listing = s
        .call("ls", json!({"path": "/local/out/big"}))
        .await
        .unwrap();
    assert_eq!(listing.lines().count(), 1_001);
    assert!(listing.ends_with("[only the first 1000 entries are shown; use glob to narrow down.]"));

    let wide = s.root.join("out/wide");
    for d in 0..21 {
        let dir = wide.join(format!("d{d}"));
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..1_000 {
            std::fs::write(dir.join(format!("{i}.txt")), "").unwrap();
        }
    }
    let globbed = s
        .call(
            "glob",
            json!({"pattern": "**/*.txt", "path": "/local/out/wide"}),
        )
        .await
        .unwrap();
    assert!(
        globbed.ends_with("[The search stopped after 20000 entries of /local/out/wide; search a smaller folder for complete results.]"),
        "{}",
        &globbed[globbed.len() - 200..]
    );
    assert!(Path::new(&s.root).exists());
}
