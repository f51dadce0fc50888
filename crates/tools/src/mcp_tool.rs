//! The MCP tool adapter: one discovered tool of a connected server as a
//! [`Tool`]. Only skills' subagents are given these (their `mcp:` refs), so
//! a skill's approval gate is never bypassed.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use pizza_mcp::{CallOutput, CallPart, McpError, McpPool, McpToolDef};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::{Result, ToolError};
use crate::tool::{OutputPart, Tool, ToolContext, ToolOutput};

/// The longest arguments text an approval sentence quotes.
const DESCRIBE_ARGS_MAX_CHARS: usize = 300;

/// What an MCP tool call asks the host, read at each call so a changed
/// setting or a review takes effect at once.
pub trait McpCallPolicy: Send + Sync + fmt::Debug {
    /// How long one call may take.
    fn timeout(&self) -> Duration;
    /// The tool's definition (`hash`) differs from the one the person last
    /// reviewed: every call asks until they review it.
    fn needs_review(&self, tool: &McpToolDef) -> bool;
}

pub struct McpTool {
    pool: McpPool,
    def: Arc<McpToolDef>,
    policy: Arc<dyn McpCallPolicy>,
}

impl fmt::Debug for McpTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpTool")
            .field("name", &self.def.qualified_name)
            .finish_non_exhaustive()
    }
}

impl McpTool {
    pub fn new(pool: McpPool, def: Arc<McpToolDef>, policy: Arc<dyn McpCallPolicy>) -> Self {
        Self { pool, def, policy }
    }

    pub fn definition(&self) -> &McpToolDef {
        &self.def
    }
}

#[async_trait::async_trait]
impl Tool for McpTool {
    /// The model's name for it, `<server>__<tool>` (not the server's own).
    #[allow(clippy::misnamed_getters)]
    fn name(&self) -> &str {
        &self.def.qualified_name
    }

    fn description(&self) -> &str {
        &self.def.description
    }

    fn parameters(&self) -> Value {
        self.def.model_schema.clone()
    }

    fn must_ask(&self, _args: &Value) -> bool {
        self.policy.needs_review(&self.def)
    }

    fn describe_call(&self, args: &Value) -> String {
        let mut shown = args.to_string();
        if shown.chars().count() > DESCRIBE_ARGS_MAX_CHARS {
            shown = shown
                .chars()
                .take(DESCRIBE_ARGS_MAX_CHARS)
                .collect::<String>()
                + "…";
        }
        let review = if self.policy.needs_review(&self.def) {
            " Its definition changed since you last reviewed it."
        } else {
            ""
        };
        format!(
            "Call {} on MCP server {} with {shown}.{review}",
            self.def.name, self.def.server
        )
    }

    async fn call(
        &self,
        _ctx: &ToolContext,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput> {
        let called = self
            .pool
            .call(
                &self.def.server,
                &self.def.name,
                args,
                self.policy.timeout(),
                cancel,
            )
            .await;
        match called {
            Ok(output) => Ok(tool_output(output)),
            Err(McpError::Cancelled) => Err(ToolError::Cancelled),
            // The model can try again later or do without.
            Err(e) => Ok(ToolOutput {
                parts: vec![OutputPart::Text(e.to_string())],
                is_error: true,
            }),
        }
    }
}

/// A result as the model reads it: text as is; an image of a type models
/// take as an image part (kept as an attachment by the agent); anything
/// else (audio, a resource, an image too large or of another type) as a
/// line saying what it is.
pub fn tool_output(output: CallOutput) -> ToolOutput {
    let mut parts: Vec<OutputPart> = Vec::new();
    let mut has_text = false;
    let mut images = 0;
    for part in output.parts {
        let text = match part {
            CallPart::Text(text) => {
                has_text = true;
                text
            }
            CallPart::Image { mime, data } => match image_part(&mime, &data, images + 1) {
                Ok(image) => {
                    images += 1;
                    parts.push(image);
                    continue;
                }
                Err(notice) => notice,
            },
            CallPart::Audio { mime } => format!("[The tool returned audio ({mime}).]"),
            CallPart::ResourceLink { uri, name } => format!("[resource {name}: {uri}]"),
            CallPart::Resource { uri, text } => match text {
                Some(text) => format!("[resource {uri}]\n{text}"),
                None => format!("[binary resource {uri}]"),
            },
        };
        parts.push(OutputPart::Text(text));
    }
    if let Some(structured) = output.structured.filter(|_| !has_text) {
        parts.push(OutputPart::Text(structured.to_string()));
    }
    if parts.is_empty() {
        parts.push(OutputPart::Text("(the tool returned nothing)".to_owned()));
    }
    ToolOutput {
        parts,
        is_error: output.is_error,
    }
}

/// An image part from a server's base64 data, or the notice that stands
/// in for it.
fn image_part(mime: &str, data: &str, number: usize) -> Result<OutputPart, String> {
    let kb = (data.len() * 3 / 4).div_ceil(1024);
    let unshown =
        |why: &str| format!("[The tool returned an image ({mime}, about {kb} KB) {why}.]");
    let extension = match mime {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        _ => return Err(unshown("of a type models cannot view")),
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|_| unshown("that arrived damaged"))?;
    if bytes.is_empty() || bytes.len() as u64 > pizza_protocol::ATTACHMENT_MAX_BYTES {
        return Err(unshown("too large to keep"));
    }
    Ok(OutputPart::Image {
        name: format!("image-{number}.{extension}"),
        mime: if extension == "jpg" {
            "image/jpeg".to_owned()
        } else {
            mime.to_owned()
        },
        data: bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_become_text_the_model_reads() {
        let out = tool_output(CallOutput::from_result(&json!({
            "content": [
                {"type": "text", "text": "sum is 3"},
                {"type": "image", "data": "aGVsbG8gd29ybGQ=", "mimeType": "image/png"}
            ],
            "structuredContent": {"sum": 3}
        })));
        assert_eq!(
            out.parts[1],
            OutputPart::Image {
                name: "image-1.png".into(),
                mime: "image/png".into(),
                data: b"hello world".to_vec(),
            }
        );
        let text = out.to_text();
        assert_eq!(text, "sum is 3\n[image image-1.png]");
        let odd = tool_output(CallOutput::from_result(&json!({
            "content": [{"type": "image", "data": "aGk=", "mimeType": "image/tiff"}]
        })));
        assert!(odd.to_text().contains("of a type models cannot view"));
        let only_structured = tool_output(CallOutput::from_result(&json!({
            "content": [], "structuredContent": {"sum": 3}, "isError": true
        })));
        assert_eq!(only_structured.to_text(), r#"{"sum":3}"#);
        assert!(only_structured.is_error);
    }
}
