//! A small JSON Schema validator for the subset tool schemas use: `type`
//! (one or a list), `properties`, `required`, `additionalProperties: false`,
//! `enum`, `items`, `minimum`/`maximum`. Unknown keywords are ignored, so a
//! richer schema (from MCP, later) is checked as far as this subset goes.

use serde_json::Value;

/// Checks `value` against `schema`; the error names the first offending
/// location (`$.path`) in words a model can act on.
pub fn validate(schema: &Value, value: &Value) -> Result<(), String> {
    check(schema, value, "$")
}

fn check(schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    let Some(schema) = schema.as_object() else {
        return Ok(());
    };
    if let Some(types) = schema.get("type") {
        let allowed: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !allowed.is_empty() && !allowed.iter().any(|t| is_type(value, t)) {
            return Err(format!(
                "{at} must be {}, got {}",
                allowed.join(" or "),
                type_name(value)
            ));
        }
    }
    if let Some(Value::Array(options)) = schema.get("enum")
        && !options.contains(value)
    {
        let list: Vec<String> = options.iter().map(Value::to_string).collect();
        return Err(format!("{at} must be one of {}", list.join(", ")));
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            return Err(format!("{at} must be at least {min}"));
        }
        if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            return Err(format!("{at} must be at most {max}"));
        }
    }
    if let Value::Object(object) = value {
        let properties = schema.get("properties").and_then(Value::as_object);
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !object.contains_key(name) {
                    return Err(format!("{at} is missing the required property `{name}`"));
                }
            }
        }
        for (name, item) in object {
            let child = format!("{at}.{name}");
            match properties.and_then(|p| p.get(name)) {
                Some(sub) => check(sub, item, &child)?,
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    let known: Vec<&str> = properties
                        .map(|p| p.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    return Err(format!(
                        "{at} has an unknown property `{name}` (allowed: {})",
                        known.join(", ")
                    ));
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(item_schema)) = (value, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            check(item_schema, item, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

fn is_type(value: &Value, t: &str) -> bool {
    match t {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        _ => true,
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "tags": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["path"],
            "additionalProperties": false
        })
    }

    #[test]
    fn accepts_valid_arguments() {
        validate(
            &schema(),
            &json!({"path": "/a", "limit": 3, "mode": "a", "tags": ["x"]}),
        )
        .unwrap();
    }

    #[test]
    fn names_the_first_problem() {
        let cases = [
            (json!("str"), "$ must be object, got a string"),
            (json!({}), "$ is missing the required property `path`"),
            (json!({"path": 1}), "$.path must be string, got an integer"),
            (
                json!({"path": "/a", "limit": 0}),
                "$.limit must be at least 1",
            ),
            (
                json!({"path": "/a", "limit": 1.5}),
                "$.limit must be integer, got a number",
            ),
            (
                json!({"path": "/a", "mode": "c"}),
                "$.mode must be one of \"a\", \"b\"",
            ),
            (
                json!({"path": "/a", "tags": [1]}),
                "$.tags[0] must be string, got an integer",
            ),
            (
                json!({"path": "/a", "x": 1}),
                "$ has an unknown property `x` (allowed: limit, mode, path, tags)",
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(validate(&schema(), &value).unwrap_err(), expected);
        }
    }
}
