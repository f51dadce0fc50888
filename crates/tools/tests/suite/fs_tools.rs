use std::collections::BTreeMap;
use std::sync::Arc;

use pizza_tools::{CancellationToken, ThreadFiles, ToolContext, ToolError, ToolRegistry};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

struct Harness {
    registry: ToolRegistry,
    files: ThreadFiles,
}

impl Harness {
    fn new(files: &[(&str, &str)]) -> Self {
        let files = files
            .iter()
            .map(|(p, c)| ((*p).to_owned(), (*c).to_owned()))
            .collect::<BTreeMap<_, _>>();
        Self {
            registry: ToolRegistry::with_builtins(),
            files: ThreadFiles::new(files),
        }
    }

    async fn call(&self, name: &str, args: Value) -> Result<String, ToolError> {
        let tool = self.registry.resolve(name, &args)?;
        let ctx = ToolContext {
            thread_id: "t".into(),
            call_id: "c".into(),
            fs: Arc::new(self.files.clone()),
            nested: None,
        };
        tool.call(&ctx, args, CancellationToken::new())
            .await
            .map(|output| output.to_text())
    }
}

fn sample() -> Harness {
    Harness::new(&[
        ("/notes.md", "# Notes\nbuy flour\nbuy Tomatoes\n"),
        ("/recipes/pizza.md", "dough\ntomato sauce\nmozzarella\n"),
        ("/recipes/drinks/lemonade.txt", "lemons\nsugar\n"),
    ])
}

#[tokio::test]
async fn ls_lists_one_level() {
    let h = sample();
    assert_eq!(
        h.call("ls", json!({})).await.unwrap(),
        "/notes.md (31 bytes)\n/recipes/"
    );
    assert_eq!(
        h.call("ls", json!({"path": "/recipes/"})).await.unwrap(),
        "/recipes/drinks/\n/recipes/pizza.md (30 bytes)"
    );
    let err = h.call("ls", json!({"path": "/missing"})).await.unwrap_err();
    assert_eq!(err.to_string(), "/missing: no such file or directory");
}

#[tokio::test]
async fn read_file_numbers_lines_and_pages() {
    let h = sample();
    assert_eq!(
        h.call("read_file", json!({"file_path": "/notes.md"}))
            .await
            .unwrap(),
        "     1\t# Notes\n     2\tbuy flour\n     3\tbuy Tomatoes"
    );
    assert_eq!(
        h.call(
            "read_file",
            json!({"file_path": "/notes.md", "offset": 1, "limit": 1})
        )
        .await
        .unwrap(),
        "     2\tbuy flour\n[Showing lines 2-2 of 3. Continue with read_file offset=2.]"
    );
    let err = h
        .call("read_file", json!({"file_path": "/nope.md"}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::NotFound { .. }));
}

#[tokio::test]
async fn bad_paths_are_refused_with_a_reason() {
    let h = sample();
    for path in ["notes.md", "/recipes/../notes.md", "/a\\b", "/a\u{0}b"] {
        let err = h
            .call("read_file", json!({"file_path": path}))
            .await
            .unwrap_err();
        assert!(
            matches!(err, ToolError::InvalidPath { .. }),
            "{path:?}: {err}"
        );
    }
    let err = h
        .call("write_file", json!({"file_path": "rel.md", "content": "x"}))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("must be absolute"), "{err}");
    assert!(!h.files.has_changes());
}

#[tokio::test]
async fn glob_matches_relative_and_absolute_patterns() {
    let h = sample();
    assert_eq!(
        h.call("glob", json!({"pattern": "**/*.md"})).await.unwrap(),
        "/notes.md\n/recipes/pizza.md"
    );
    assert_eq!(
        h.call("glob", json!({"pattern": "*.md"})).await.unwrap(),
        "/notes.md"
    );
    assert_eq!(
        h.call("glob", json!({"pattern": "*", "path": "/recipes/drinks"}))
            .await
            .unwrap(),
        "/recipes/drinks/lemonade.txt"
    );
    assert_eq!(
        h.call("glob", json!({"pattern": "*.pdf"})).await.unwrap(),
        "No files match \"*.pdf\" in /."
    );
}

#[tokio::test]
async fn grep_has_three_output_modes_and_filters() {
    let h = sample();
    assert_eq!(
        h.call("grep", json!({"pattern": "tomato"})).await.unwrap(),
        "/recipes/pizza.md"
    );
    assert_eq!(
        h.call(
            "grep",
            json!({"pattern": "tomato", "case_insensitive": true, "output_mode": "content"})
        )
        .await
        .unwrap(),
        "/notes.md:3: buy Tomatoes\n/recipes/pizza.md:2: tomato sauce"
    );
    assert_eq!(
        h.call("grep", json!({"pattern": "^buy", "output_mode": "count"}))
            .await
            .unwrap(),
        "/notes.md: 2"
    );
    assert_eq!(
        h.call("grep", json!({"pattern": "s", "glob": "*.txt"}))
            .await
            .unwrap(),
        "/recipes/drinks/lemonade.txt"
    );
    let err = h.call("grep", json!({"pattern": "("})).await.unwrap_err();
    assert!(err.to_string().contains("bad regex"), "{err}");
}

#[tokio::test]
async fn writes_and_edits_become_pending_changes() {
    let h = sample();
    assert_eq!(
        h.call(
            "write_file",
            json!({"file_path": "/todo/today.md", "content": "bake"})
        )
        .await
        .unwrap(),
        "Created /todo/today.md (4 characters)."
    );
    assert_eq!(
        h.call(
            "edit_file",
            json!({"file_path": "/notes.md", "old_string": "flour", "new_string": "00 flour"})
        )
        .await
        .unwrap(),
        "Replaced 1 occurrence in /notes.md."
    );
    let err = h
        .call(
            "edit_file",
            json!({"file_path": "/notes.md", "old_string": "buy", "new_string": "get"}),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("appears 2 times"), "{err}");
    assert_eq!(
        h.files.take_changes(),
        vec![
            (
                "/notes.md".to_owned(),
                Some("# Notes\nbuy 00 flour\nbuy Tomatoes\n".to_owned())
            ),
            ("/todo/today.md".to_owned(), Some("bake".to_owned())),
        ]
    );
}
