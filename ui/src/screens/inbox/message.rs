//! One message card in the feed.

use super::delegation::{DelegationCard, TASK_TOOL, committed_task_call};
use super::stream::RunState;
use leptos::prelude::*;
use pizza_protocol::{MessagePart, MessageView, Role, Source, is_external_link};

/// Text longer than this (bytes) renders block by block.
const BLOCKWISE_FROM: usize = 4_000;

#[component]
pub(crate) fn MessageCard(
    message: MessageView,
    on_fork: Option<Callback<String>>,
) -> impl IntoView {
    // A `task` call's result is its delegation card's report, shown there.
    let run = use_context::<RunState>();
    let parts: Vec<MessagePart> = message
        .parts
        .into_iter()
        .filter(|part| match (part, run) {
            (MessagePart::ToolResult { call_id, .. }, Some(run)) => !run
                .messages
                .with_untracked(|m| committed_task_call(m, call_id)),
            _ => true,
        })
        .collect();
    if parts.is_empty() && message.role == Role::Tool {
        return ().into_any();
    }
    let (label, class) = match message.role {
        Role::User => ("You", "msg msg--user"),
        Role::Assistant => ("Pizza Bot", "msg msg--assistant"),
        Role::Tool => ("Tool", "msg msg--tool"),
        Role::System => ("System", "msg msg--system"),
    };
    let id = message.id.clone();
    let fork = on_fork.map(|on_fork| {
        let id = id.clone();
        view! {
            <button class="msg__action link" data-testid="fork-here" title="Start a new thread from this point"
                on:click=move |_| on_fork.run(id.clone())>
                "Fork from here"
            </button>
        }
    });
    view! {
        <article class=class id=format!("msg-{}", message.seq) data-seq=message.seq data-testid="message" data-message-id=id>
            <header class="msg__header">
                <span class="msg__role">{label}</span>
                {fork}
            </header>
            {parts.into_iter().map(part_view).collect_view()}
        </article>
    }
    .into_any()
}

fn part_view(part: MessagePart) -> AnyView {
    match part {
        // A long answer renders as blocks, as it streamed: off-screen blocks
        // then skip layout and paint (see `.markdown__block`).
        MessagePart::Text { text } if text.len() > BLOCKWISE_FROM => view! {
            <div class="markdown">
                {super::streamed::blocks(&text).into_iter().map(|block| view! {
                    <div class="markdown__block" inner_html=crate::markdown::to_html(&block)></div>
                }).collect_view()}
            </div>
        }
        .into_any(),
        MessagePart::Text { text } => {
            view! { <div class="markdown" inner_html=crate::markdown::to_html(&text)></div> }
                .into_any()
        }
        MessagePart::Reasoning { text } => view! {
            <details class="reasoning">
                <summary>"Reasoning"</summary>
                <div class="markdown" inner_html=crate::markdown::to_html(&text)></div>
            </details>
        }
        .into_any(),
        MessagePart::ToolCall {
            id,
            name,
            arguments,
        } if name == TASK_TOOL => view! { <DelegationCard call_id=id arguments /> }.into_any(),
        MessagePart::ToolCall {
            name, arguments, ..
        } => {
            let (short, args) = call_text(&name, &arguments);
            view! {
                <details class="tool" data-tool=name.clone()>
                    <summary><span class="tool__name">{humanize(&name)}</span>" "<span class="muted mono">{short}</span></summary>
                    <pre class="tool__body">{args}</pre>
                </details>
            }
            .into_any()
        }
        MessagePart::ToolResult {
            content, is_error, ..
        } => {
            let short = one_line(&content, 80);
            view! {
                <details class="tool" class:tool--error=is_error>
                    <summary>{if is_error { "✗ error " } else { "✓ result " }}<span class="muted mono">{short}</span></summary>
                    <pre class="tool__body">{content}</pre>
                </details>
            }
            .into_any()
        }
        MessagePart::Notice { text } => view! { <p class="notice">{text}</p> }.into_any(),
        MessagePart::Attachment { attachment } => {
            view! { <super::attachments::AttachmentPart attachment /> }.into_any()
        }
        MessagePart::Sources { sources } => view! {
            <nav class="sources" aria-label="Sources" data-testid="sources">
                <span class="sources__label muted">"Sources"</span>
                {sources.into_iter().map(source_chip).collect_view()}
            </nav>
        }
        .into_any(),
    }
}

/// One cited source: a web page is a link (the feed's click handler opens
/// it in the browser through `link_open`, like any link in an answer); a
/// document is its name. The quoted passage shows on hover.
fn source_chip(source: Source) -> AnyView {
    let label = source_label(&source);
    let hint = match (&source.cited_text, &source.url) {
        (Some(quote), _) => format!("“{}”", one_line(quote, 200)),
        (None, Some(url)) => url.clone(),
        (None, None) => label.clone(),
    };
    match source.url.filter(|url| is_external_link(url)) {
        Some(url) => view! {
            <a class="source" href=url title=hint data-testid="source">{label}</a>
        }
        .into_any(),
        None => view! {
            <span class="source source--document" title=hint data-testid="source">{label}</span>
        }
        .into_any(),
    }
}

/// What a source's chip says: its title, else the page's host name, else
/// the address as it is.
fn source_label(source: &Source) -> String {
    if let Some(title) = source
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        return one_line(title, 60);
    }
    let url = source.url.as_deref().unwrap_or_default();
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = host.rsplit_once('@').map_or(host, |(_, host)| host);
    let host = host.strip_prefix("www.").unwrap_or(host);
    if host.is_empty() {
        one_line(url, 60)
    } else {
        host.to_owned()
    }
}

/// A call's one-line summary and its body: the arguments as JSON, except
/// a program (`eval`), which shows as the code it runs.
pub(crate) fn call_text(name: &str, arguments: &serde_json::Value) -> (String, String) {
    if name == EVAL_TOOL
        && let Some(code) = arguments.get("code").and_then(serde_json::Value::as_str)
    {
        return (one_line(code, 80), code.to_owned());
    }
    (
        one_line(&serde_json::to_string(arguments).unwrap_or_default(), 80),
        serde_json::to_string_pretty(arguments).unwrap_or_default(),
    )
}

/// The name of the tool that runs a program over the thread's files.
const EVAL_TOOL: &str = "eval";

/// `read_file` → `Read file`; `eval` → `Program`.
pub(crate) fn humanize(name: &str) -> String {
    if name == EVAL_TOOL {
        return "Program".to_owned();
    }
    let spaced = name.replace(['_', '-'], " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_shows_as_its_code_and_other_calls_as_json() {
        let code = "const n = 1;\nreturn n + 1;";
        let (short, body) = call_text("eval", &serde_json::json!({ "code": code }));
        assert_eq!(body, code);
        assert_eq!(short, "const n = 1; return n + 1;");
        assert_eq!(humanize("eval"), "Program");
        let (short, body) = call_text("read_file", &serde_json::json!({ "file_path": "/a" }));
        assert_eq!(short, r#"{"file_path":"/a"}"#);
        assert!(body.contains("\"file_path\": \"/a\""), "{body}");
    }

    #[test]
    fn a_source_is_named_by_its_title_else_its_host() {
        let source = |url: Option<&str>, title: Option<&str>| Source {
            url: url.map(str::to_owned),
            title: title.map(str::to_owned),
            cited_text: None,
        };
        assert_eq!(
            source_label(&source(Some("https://a.example/x"), Some(" Rome "))),
            "Rome"
        );
        assert_eq!(
            source_label(&source(Some("https://www.b.example:8080/p?q=1"), None)),
            "b.example:8080"
        );
        assert_eq!(source_label(&source(None, Some("notes.pdf"))), "notes.pdf");
        assert_eq!(
            source_label(&source(Some("mailto:x@y.example"), None)),
            "y.example"
        );
    }
}
