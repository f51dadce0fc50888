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
    let asks: Vec<&str> = registry
        .names()
        .filter(|name| registry.get(name).unwrap().asks_by_default(&args))
        .collect();
    assert_eq!(asks, ["edit_file", "write_file"]);
    let describe = |name: &str| registry.get(name).unwrap().describe_call(&args);
    assert_eq!(describe("write_file"), "Write the file /report.md.");
    assert_eq!(describe("edit_file"), "Edit the file /report.md.");
    assert_eq!(describe("read_file"), "Run read_file on /report.md.");
    assert_eq!(
        Echo.describe_call(&json!({"text": "x"})),
        "Run the tool echo."
    );
}
