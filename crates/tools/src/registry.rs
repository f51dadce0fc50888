//! The set of tools a run offers.

use std::collections::BTreeMap;
use std::sync::Arc;

use pizza_llm::ToolSpec;
use serde_json::Value;

use crate::error::{Result, ToolError};
use crate::schema;
use crate::tool::Tool;

/// Tools by name. Any `Arc<dyn Tool>` registers: the built-ins, and later
/// MCP tools and other adapters.
#[derive(Debug, Clone, Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// The six built-in filesystem tools.
    pub fn with_builtins() -> Self {
        let mut registry = Self::new();
        for tool in crate::builtin::builtin_tools() {
            registry.register(tool);
        }
        registry
    }

    /// Adds `tool`, replacing any tool of the same name (returned).
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> Option<Arc<dyn Tool>> {
        self.tools.insert(tool.name().to_owned(), tool)
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// What the model is told about the tools, sorted by name.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .values()
            .map(|tool| ToolSpec {
                name: tool.name().to_owned(),
                description: tool.description().to_owned(),
                input_schema: tool.parameters(),
            })
            .collect()
    }

    /// The tool named `name`, with `args` checked against its schema.
    pub fn resolve(&self, name: &str, args: &Value) -> Result<Arc<dyn Tool>> {
        let tool = self.tools.get(name).ok_or_else(|| ToolError::UnknownTool {
            name: name.to_owned(),
            available: self.names().collect::<Vec<_>>().join(", "),
        })?;
        if let Value::String(raw) = args {
            // The model's argument text did not parse as JSON.
            return Err(ToolError::invalid_arguments(
                name,
                format!("the arguments are not valid JSON: {raw}"),
            ));
        }
        schema::validate(&tool.parameters(), args)
            .map_err(|message| ToolError::invalid_arguments(name, message))?;
        Ok(Arc::clone(tool))
    }

    /// Checks `args` against the schema of tool `name`.
    pub fn validate(&self, name: &str, args: &Value) -> Result<()> {
        self.resolve(name, args).map(|_| ())
    }
}
