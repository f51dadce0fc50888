//! Version 1 rows: written before the store had a transcript type of its
//! own, as the window's message parts. Reasoning had no signature and a tool
//! result was one string; both read as the version 2 parts they mean.

use serde::Deserialize;
use serde_json::Value;

use super::{Part, ResultPart};

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum V1Part {
    Text {
        text: String,
    },
    Reasoning {
        text: String,
    },
    ToolCall {
        id: String,
        name: String,
        arguments: Value,
    },
    ToolResult {
        call_id: String,
        content: String,
        #[serde(default)]
        is_error: bool,
    },
    Notice {
        text: String,
    },
}

impl From<V1Part> for Part {
    fn from(part: V1Part) -> Self {
        match part {
            V1Part::Text { text } => Part::Text { text },
            V1Part::Reasoning { text } => Part::Reasoning {
                text,
                signature: None,
                encrypted: None,
            },
            V1Part::ToolCall {
                id,
                name,
                arguments,
            } => Part::ToolCall {
                id,
                name,
                arguments,
            },
            V1Part::ToolResult {
                call_id,
                content,
                is_error,
            } => Part::ToolResult {
                call_id,
                content: vec![ResultPart::Text { text: content }],
                is_error,
            },
            V1Part::Notice { text } => Part::Notice { text },
        }
    }
}

/// `None` when the row is not a version 1 part list (a damaged row): the
/// caller shows its plain text instead of hiding the message.
pub(super) fn decode(content: &str) -> Option<Vec<Part>> {
    let parts: Vec<V1Part> = serde_json::from_str(content).ok()?;
    Some(parts.into_iter().map(Part::from).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn version_one_rows_read_as_what_they_meant() {
        let row = r#"[{"type":"reasoning","text":"hm"},
            {"type":"tool_result","call_id":"c","content":"done","is_error":true}]"#;
        assert_eq!(
            decode(row).unwrap(),
            vec![
                Part::Reasoning {
                    text: "hm".into(),
                    signature: None,
                    encrypted: None
                },
                Part::ToolResult {
                    call_id: "c".into(),
                    content: vec![ResultPart::text("done")],
                    is_error: true
                }
            ]
        );
        assert_eq!(decode(r#"{"not": "parts"}"#), None);
    }
}
