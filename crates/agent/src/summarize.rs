//! Summarization: when the next request would fill most of the context
//! window, older turns are replaced by a summary in what is sent. The stored
//! transcript stays whole; the summary is kept in checkpoint metadata so it
//! is computed once, not on every call.

use std::fmt::Write as _;
use std::sync::Arc;

use pizza_llm::{ContentPart, Message, ModelRequest, Role, ToolSpec};
use pizza_store::Role as StoredRole;

use crate::meta::Summary;
use crate::run::{RunLoop, Stop};
use crate::transcript::to_model_message;

pub(crate) const SUMMARY_PROMPT: &str = "You summarize the earlier part of a conversation between \
a user and an AI assistant so the assistant can continue without it. Keep the user's goals and \
instructions, decisions made, facts and numbers found, files written and their purpose, and open \
questions. Write plain prose and short lists; do not address the user.";
pub(crate) const SUMMARY_HEADER: &str = "[Summary of the earlier conversation]";
/// Characters of one tool result shown to the summarizer.
const RESULT_CHARS: usize = 2_000;

/// A rough token count: four characters per token over the JSON the
/// provider will receive. Cheap, and errs on the side of summarizing early.
pub(crate) fn estimate_tokens(text_len: usize) -> usize {
    text_len.div_ceil(4)
}

fn message_tokens(message: &Message) -> usize {
    estimate_tokens(serde_json::to_string(message).map_or(0, |s| s.len()))
}

struct Entry {
    seq: i64,
    role: StoredRole,
    message: Message,
}

fn with_summary(summary: Option<&Summary>, entries: &[Entry]) -> Vec<Message> {
    let upto = summary.map_or(0, |s| s.upto_seq);
    let mut out = Vec::new();
    if let Some(summary) = summary {
        out.push(Message::user(format!("{SUMMARY_HEADER}\n{}", summary.text)));
    }
    out.extend(
        entries
            .iter()
            .filter(|e| e.seq > upto)
            .map(|e| e.message.clone()),
    );
    out
}

/// The messages to send: the transcript, with older turns replaced by the
/// stored summary, summarizing further first if the request would pass the
/// threshold.
pub(crate) async fn prepare(
    run: &mut RunLoop<'_>,
    system: &str,
    tools: &[ToolSpec],
) -> Result<Vec<Message>, Stop> {
    let mut entries = Vec::new();
    for stored in &run.messages {
        if let Some(message) = to_model_message(stored)? {
            entries.push(Entry {
                seq: stored.seq,
                role: stored.role,
                message,
            });
        }
    }
    let messages = with_summary(run.meta.summary.as_ref(), &entries);
    let Some(window) = run.input.context_window.filter(|w| *w > 0) else {
        return Ok(messages);
    };
    let config = Arc::clone(&run.profile);
    let fixed = estimate_tokens(system.len())
        + estimate_tokens(serde_json::to_string(tools).map_or(0, |s| s.len()));
    let used: usize = fixed + messages.iter().map(message_tokens).sum::<usize>();
    let window = f64::from(window);
    if (used as f64) <= window * config.summarize_at {
        return Ok(messages);
    }

    // Keep the newest turns within the keep budget, cutting only where a
    // user or assistant message starts so no tool result loses its call.
    let upto = run.meta.summary.as_ref().map_or(0, |s| s.upto_seq);
    let open: Vec<&Entry> = entries.iter().filter(|e| e.seq > upto).collect();
    let keep_budget = window * config.keep_recent;
    let mut kept = 0usize;
    let mut cut = None;
    for (index, entry) in open.iter().enumerate().rev() {
        kept += message_tokens(&entry.message);
        if kept as f64 > keep_budget {
            break;
        }
        if index > 0 && entry.role != StoredRole::Tool {
            cut = Some(index);
        }
    }
    let Some(cut) = cut else {
        // Nothing can be summarized without splitting the newest turn; send
        // as is and let the provider report the context length.
        return Ok(messages);
    };
    let older = &open[..cut];
    let upto_seq = older.last().map_or(upto, |e| e.seq);
    let text = summarize(run, older).await?;
    run.meta.summary = Some(Summary { upto_seq, text });
    Ok(with_summary(run.meta.summary.as_ref(), &entries))
}

async fn summarize(run: &mut RunLoop<'_>, older: &[&Entry]) -> Result<String, Stop> {
    let mut transcript = String::new();
    if let Some(previous) = &run.meta.summary {
        let _ = writeln!(transcript, "Summary so far:\n{}\n", previous.text);
    }
    for entry in older {
        render(&mut transcript, &entry.message);
    }
    let request = ModelRequest {
        model: run.input.model_id.clone(),
        system: Some(SUMMARY_PROMPT.to_owned()),
        messages: vec![Message::user(format!(
            "Summarize this conversation so far:\n\n{transcript}"
        ))],
        max_output_tokens: run.profile.max_output_tokens,
        ..ModelRequest::default()
    };
    let completion = run.stream(request, false).await?;
    Ok(completion.message.text())
}

fn render(out: &mut String, message: &Message) {
    let who = match message.role {
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::Tool => "Tool",
        Role::System => "System",
    };
    for part in &message.content {
        match part {
            ContentPart::Text { text } => {
                let _ = writeln!(out, "{who}: {text}");
            }
            ContentPart::ToolCall(call) => {
                let _ = writeln!(out, "{who} called {} with {}", call.name, call.arguments);
            }
            ContentPart::ToolResult {
                content, is_error, ..
            } => {
                let text: String = content
                    .iter()
                    .filter_map(|c| match c {
                        ContentPart::Text { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect::<String>()
                    .chars()
                    .take(RESULT_CHARS)
                    .collect();
                let label = if *is_error {
                    "Tool error"
                } else {
                    "Tool result"
                };
                let _ = writeln!(out, "{label}: {text}");
            }
            _ => {}
        }
    }
}
