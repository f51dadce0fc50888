//! One tool a server offers, as the model and the MCP page see it: its
//! qualified name, a description that is never empty, an input schema the
//! providers accept, and the hash of its definition for drift review.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

/// Between the server id and the tool name in what the model sees.
pub const TOOL_SEPARATOR: &str = "__";

/// The model's name for a server's tool.
pub fn qualified_name(server: &str, tool: &str) -> String {
    format!("{server}{TOOL_SEPARATOR}{tool}")
}

/// A discovered tool.
#[derive(Debug, Clone, PartialEq)]
pub struct McpToolDef {
    pub server: String,
    /// The server's own name for it.
    pub name: String,
    /// `<server>__<name>`.
    pub qualified_name: String,
    /// Never empty: the server's, or a sentence naming the tool.
    pub description: String,
    /// The schema as the server sent it.
    pub input_schema: Value,
    /// The schema the model is given (see [`fix_schema`]).
    pub model_schema: Value,
    /// SHA-256 (hex) of the definition as sent: name, description, schema.
    pub hash: String,
    /// The definition as sent, for the drift diff.
    pub definition: Value,
}

impl McpToolDef {
    /// From a `tools/list` entry (`{name, description?, inputSchema, …}`).
    pub fn from_listed(server: &str, listed: &Value) -> Option<Self> {
        let name = listed.get("name")?.as_str()?.to_owned();
        let sent_description = listed
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_owned();
        let input_schema = listed
            .get("inputSchema")
            .cloned()
            .unwrap_or_else(|| json!({"type": "object"}));
        let definition = json!({
            "name": name,
            "description": sent_description,
            "inputSchema": input_schema,
        });
        let description = if sent_description.is_empty() {
            listed
                .get("title")
                .and_then(Value::as_str)
                .filter(|t| !t.trim().is_empty())
                .map(|t| format!("{t} (MCP server {server})."))
                .unwrap_or_else(|| format!("The tool {name} of MCP server {server}."))
        } else {
            sent_description
        };
        Some(Self {
            server: server.to_owned(),
            qualified_name: qualified_name(server, &name),
            hash: definition_hash(&definition),
            model_schema: fix_schema(&input_schema),
            name,
            description,
            input_schema,
            definition,
        })
    }
}

/// The hash drift review compares: of the definition with its keys sorted,
/// so the same definition always hashes the same.
pub fn definition_hash(definition: &Value) -> String {
    let canonical = canonical(definition).to_string();
    let digest = Sha256::digest(canonical.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A copy with every object's keys in order.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for key in keys {
                out.insert(key.clone(), canonical(&map[key]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// An input schema every provider takes: an object at the top with
/// `properties`, a top-level union (`anyOf`/`oneOf`/`allOf`, which OpenAI
/// and Gemini refuse) merged into one object whose required fields are
/// those every branch requires, and no `$schema`.
pub fn fix_schema(schema: &Value) -> Value {
    let Some(object) = schema.as_object() else {
        return json!({"type": "object", "properties": {}});
    };
    let mut out = object.clone();
    out.remove("$schema");
    let branches: Vec<Value> = ["anyOf", "oneOf", "allOf"]
        .iter()
        .filter_map(|key| out.remove(*key))
        .filter_map(|v| v.as_array().cloned())
        .flatten()
        .collect();
    let mut properties = out
        .remove("properties")
        .and_then(|p| p.as_object().cloned())
        .unwrap_or_default();
    let mut required: Option<Vec<String>> = out.remove("required").as_ref().map(strings);
    if !branches.is_empty() {
        let mut every: Option<Vec<String>> = None;
        for branch in &branches {
            if let Some(props) = branch.get("properties").and_then(Value::as_object) {
                for (key, value) in props {
                    properties
                        .entry(key.clone())
                        .or_insert_with(|| value.clone());
                }
            }
            let needed = branch.get("required").map(strings).unwrap_or_default();
            every = Some(match every {
                None => needed,
                Some(so_far) => so_far.into_iter().filter(|k| needed.contains(k)).collect(),
            });
        }
        let mut merged = required.unwrap_or_default();
        for key in every.unwrap_or_default() {
            if !merged.contains(&key) {
                merged.push(key);
            }
        }
        required = Some(merged);
    }
    out.insert("type".to_owned(), json!("object"));
    out.insert("properties".to_owned(), Value::Object(properties));
    if let Some(required) = required.filter(|r| !r.is_empty()) {
        out.insert("required".to_owned(), json!(required));
    }
    Value::Object(out)
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "tooldef_tests.rs"]
mod tests;
