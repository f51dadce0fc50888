use std::sync::Arc;

use pizza_tools::{
    CancellationToken, ThreadFiles, Tool, ToolContext, ToolError, ToolOutput, ToolRegistry,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

#[derive(Debug)]
struct Echo;

#[async_trait::async_trait]
impl Tool for Echo {
    fn name(&self) -> &str {
        "echo"
    }
    fn description(&self) -> &str {
        "Echoes `text`."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    }
    async fn call(
        &self,
        _ctx: &ToolContext,
        args: Value,
        _cancel: CancellationToken,
    ) -> pizza_tools::Result<ToolOutput> {
        Ok(ToolOutput::text(args["text"].as_str().unwrap_or_default()))
    }
}

#[test]
fn builtins_are_offered_to_the_model_sorted_with_schemas() {
    let registry = ToolRegistry::with_builtins();
    let names: Vec<String> = registry.specs().into_iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        ["edit_file", "glob", "grep", "ls", "read_file", "write_file"]
    );
    for spec in registry.specs() {
        assert_eq!(spec.input_schema["type"], "object", "{}", spec.name);
        assert!(!spec.description.is_empty());
    }
}

#[tokio::test]
async fn any_arc_dyn_tool_registers_and_its_args_are_validated() {
    let mut registry = ToolRegistry::with_builtins();
    assert!(registry.register(Arc::new(Echo)).is_none());
    assert_eq!(registry.len(), 7);

    let err = registry.validate("echo", &json!({"text": 3})).unwrap_err();
    assert_eq!(
        err,
        ToolError::invalid_arguments("echo", "$.text must be string, got an integer")
    );
    let err = registry.validate("nope", &json!({})).unwrap_err();
    assert!(matches!(err, ToolError::UnknownTool { .. }));
    assert!(err.to_string().contains("echo, edit_file"), "{err}");
    // Argument text that was not JSON reaches the registry as a string.
    let err = registry
        .validate("echo", &json!("{\"text\": "))
        .unwrap_err();
    assert!(err.to_string().contains("not valid JSON"), "{err}");

    let tool = registry.resolve("echo", &json!({"text": "hi"})).unwrap();
    let ctx = ToolContext {
        thread_id: "t".into(),
        call_id: "c".into(),
        fs: Arc::new(ThreadFiles::default()),
        nested: None,
    };
    let out = tool
        .call(&ctx, json!({"text": "hi"}), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(out, ToolOutput::text("hi"));
}

#[test]
fn each_tool_says_whether_it_asks_and_describes_its_call() {
    let registry = ToolRegistry::with_builtins();
    let args = json!({"file_path": "/report.md"});
    let asks_for = |args: &Value| -> Vec<&str> {
        registry
            .names()
            .filter(|name| registry.get(name).unwrap().asks_by_default(args))
            .collect()
    };
    assert_eq!(
        asks_for(&json!({"file_path": "/local/notes/report.md"})),
        ["edit_file", "write_file"]
    );
    // The thread's own files change nothing outside the thread.
    assert_eq!(asks_for(&args), Vec::<&str>::new());
    let describe = |name: &str| registry.get(name).unwrap().describe_call(&args);
    assert_eq!(describe("write_file"), "Write the file /report.md.");
    assert_eq!(describe("edit_file"), "Edit the file /report.md.");
    assert_eq!(describe("read_file"), "Run read_file on /report.md.");
    assert_eq!(
        Echo.describe_call(&json!({"text": "x"})),
        "Run the tool echo."
    );
}

#[test]
fn writes_ask_by_default_outside_the_thread_only() {
    let registry = ToolRegistry::with_builtins();
    let write = registry.get("write_file").unwrap();
    let asks = |path: &str| write.asks_by_default(&json!({"file_path": path, "content": ""}));
    for path in [
        "/local/notes/a.md",
        "/local/notes/deep/b.md",
        "/memories/facts.md",
        "/memories",
        "/local/../notes.md",
    ] {
        assert!(asks(path), "{path} should ask");
    }
    for path in [
        "/notes.md",
        "/localish.md",
        "/memoriesX/a.md",
        "/docs/local/a.md",
    ] {
        assert!(!asks(path), "{path} should not ask");
    }
    assert_eq!(
        write.change_target(&json!({"file_path": "/local/notes/a.md/", "content": ""})),
        Some("/local/notes/a.md".to_owned())
    );
    let read = registry.get("read_file").unwrap();
    assert_eq!(read.change_target(&json!({"file_path": "/a.md"})), None);
}

#[tokio::test]
async fn previews_show_a_diff_or_the_new_content() {
    use pizza_protocol::ChangePreview;
    let registry = ToolRegistry::with_builtins();
    let fs = ThreadFiles::new([("/plan.md".to_owned(), "one\ntwo\nthree\n".to_owned())].into());
    let preview = |tool: &str, args: Value| {
        let tool = registry.get(tool).unwrap();
        let fs = fs.clone();
        async move { tool.preview(&fs, &args).await }
    };
    assert_eq!(
        preview(
            "edit_file",
            json!({"file_path": "/plan.md", "old_string": "two", "new_string": "2"})
        )
        .await,
        Some(ChangePreview::Diff {
            path: "/plan.md".into(),
            diff: "@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n".into()
        })
    );
    assert_eq!(
        preview(
            "write_file",
            json!({"file_path": "/plan.md", "content": "one\nthree\n"})
        )
        .await,
        Some(ChangePreview::Diff {
            path: "/plan.md".into(),
            diff: "@@ -1,3 +1,2 @@\n one\n-two\n three\n".into()
        })
    );
    assert_eq!(
        preview(
            "write_file",
            json!({"file_path": "/new.md", "content": "hello\n"})
        )
        .await,
        Some(ChangePreview::NewFile {
            path: "/new.md".into(),
            content: "hello\n".into()
        })
    );
    // An edit that would fail shows nothing: its error comes when it runs.
    assert_eq!(
        preview(
            "edit_file",
            json!({"file_path": "/plan.md", "old_string": "four", "new_string": "4"})
        )
        .await,
        None
    );
    assert_eq!(
        preview("read_file", json!({"file_path": "/plan.md"})).await,
        None
    );
}

#[tokio::test]
async fn a_file_state_changes_with_its_bytes() {
    use pizza_tools::{FileState, FileSystem, file_state};
    let fs = ThreadFiles::default();
    assert_eq!(file_state(&fs, "/a.md").await.unwrap(), FileState::Absent);
    fs.write("/a.md", "one".into()).await.unwrap();
    let first = file_state(&fs, "/a.md").await.unwrap();
    assert_eq!(file_state(&fs, "/a.md").await.unwrap(), first);
    fs.write("/a.md", "two".into()).await.unwrap();
    assert_ne!(file_state(&fs, "/a.md").await.unwrap(), first);
}
