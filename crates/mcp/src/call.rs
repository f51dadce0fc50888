//! A tool call's result, read from the server's `CallToolResult`: its
//! content parts, `structuredContent` and `isError`.

use serde_json::Value;

/// One part of a result.
#[derive(Debug, Clone, PartialEq)]
pub enum CallPart {
    Text(String),
    /// Base64 data as the server sent it.
    Image {
        mime: String,
        data: String,
    },
    Audio {
        mime: String,
    },
    /// A link to a resource the server holds.
    ResourceLink {
        uri: String,
        name: String,
    },
    /// An embedded resource: its text, or only its URI for a blob.
    Resource {
        uri: String,
        text: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct CallOutput {
    pub parts: Vec<CallPart>,
    pub structured: Option<Value>,
    /// The tool reports a failure the model should read and recover from.
    pub is_error: bool,
}

impl CallOutput {
    /// From the result as JSON (`{content, structuredContent?, isError?}`).
    pub fn from_result(result: &Value) -> Self {
        let parts = result
            .get("content")
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(part).collect())
            .unwrap_or_default();
        Self {
            parts,
            structured: result
                .get("structuredContent")
                .filter(|v| !v.is_null())
                .cloned(),
            is_error: result
                .get("isError")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }
    }
}

fn text_of(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn part(item: &Value) -> Option<CallPart> {
    match item.get("type")?.as_str()? {
        "text" => Some(CallPart::Text(text_of(item, "text"))),
        "image" => Some(CallPart::Image {
            mime: text_of(item, "mimeType"),
            data: text_of(item, "data"),
        }),
        "audio" => Some(CallPart::Audio {
            mime: text_of(item, "mimeType"),
        }),
        "resource_link" => Some(CallPart::ResourceLink {
            uri: text_of(item, "uri"),
            name: text_of(item, "name"),
        }),
        "resource" => {
            let resource = item.get("resource")?;
            Some(CallPart::Resource {
                uri: text_of(resource, "uri"),
                text: resource
                    .get("text")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn every_kind_of_part_is_read() {
        let result = json!({
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "iVBO", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "file:///a", "name": "a"},
                {"type": "resource", "resource": {"uri": "test://1", "text": "body"}},
                {"type": "mystery"}
            ],
            "structuredContent": {"n": 1},
            "isError": true
        });
        let out = CallOutput::from_result(&result);
        assert_eq!(
            out.parts,
            vec![
                CallPart::Text("hi".into()),
                CallPart::Image {
                    mime: "image/png".into(),
                    data: "iVBO".into()
                },
                CallPart::ResourceLink {
                    uri: "file:///a".into(),
                    name: "a".into()
                },
                CallPart::Resource {
                    uri: "test://1".into(),
                    text: Some("body".into())
                },
            ]
        );
        assert_eq!(out.structured, Some(json!({"n": 1})));
        assert!(out.is_error);
    }
}
