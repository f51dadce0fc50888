use super::*;
use pretty_assertions::assert_eq;

#[test]
fn a_listed_tool_is_qualified_and_described() {
    let listed = json!({"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}});
    let tool = McpToolDef::from_listed("everything", &listed).unwrap();
    assert_eq!(tool.qualified_name, "everything__echo");
    assert_eq!(tool.description, "The tool echo of MCP server everything.");
    assert_eq!(tool.definition["description"], "");
}

#[test]
fn the_hash_ignores_key_order_and_sees_every_change() {
    let a = json!({"name": "x", "description": "d", "inputSchema": {"type": "object", "properties": {"a": {}, "b": {}}}});
    let b = json!({"inputSchema": {"properties": {"b": {}, "a": {}}, "type": "object"}, "description": "d", "name": "x"});
    assert_eq!(definition_hash(&a), definition_hash(&b));
    let changed = json!({"name": "x", "description": "d!", "inputSchema": {"type": "object"}});
    assert_ne!(definition_hash(&a), definition_hash(&changed));
}

#[test]
fn a_top_level_union_becomes_one_object() {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "anyOf": [
            {"type": "object", "properties": {"path": {"type": "string"}, "mode": {"type": "string"}}, "required": ["path", "mode"]},
            {"type": "object", "properties": {"path": {"type": "string"}, "url": {"type": "string"}}, "required": ["path"]}
        ]
    });
    let fixed = fix_schema(&schema);
    assert_eq!(fixed["type"], "object");
    assert!(fixed.get("$schema").is_none() && fixed.get("anyOf").is_none());
    let mut props: Vec<&String> = fixed["properties"].as_object().unwrap().keys().collect();
    props.sort();
    assert_eq!(props, ["mode", "path", "url"]);
    assert_eq!(fixed["required"], json!(["path"]));
}

#[test]
fn a_schema_without_properties_gets_them() {
    assert_eq!(
        fix_schema(&json!({"type": "object"})),
        json!({"type": "object", "properties": {}})
    );
    assert_eq!(
        fix_schema(&json!(true)),
        json!({"type": "object", "properties": {}})
    );
}
