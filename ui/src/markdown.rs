//! Markdown to HTML for the feed. Raw HTML in messages is shown as text, never
//! interpreted; code blocks get a copy button (handled by the feed's click
//! delegate through `data-copy`).

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd, html};

pub(crate) fn to_html(source: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(source, options).flat_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => vec![Event::Text(raw)],
        Event::Start(Tag::CodeBlock(kind)) => {
            let lang = match &kind {
                CodeBlockKind::Fenced(lang) if !lang.is_empty() => escape(lang.split_whitespace().next().unwrap_or("")),
                _ => String::new(),
            };
            let label = if lang.is_empty() { String::new() } else { format!("<span class=\"code__lang\">{lang}</span>") };
            vec![
                Event::Html(
                    format!(
                        "<div class=\"code\"><div class=\"code__bar\">{label}<button type=\"button\" class=\"code__copy\" data-copy>Copy</button></div>"
                    )
                    .into(),
                ),
                Event::Start(Tag::CodeBlock(kind)),
            ]
        }
        Event::End(TagEnd::CodeBlock) => vec![Event::End(TagEnd::CodeBlock), Event::Html("</div>".into())],
        other => vec![other],
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
}

fn escape(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '.'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_is_text() {
        let html = to_html("hi <script>alert(1)</script> <b>x</b>");
        assert!(!html.contains("<script>"));
        assert!(html.contains("&lt;script&gt;"));
    }

    #[test]
    fn code_blocks_get_a_copy_button() {
        let html = to_html("```rust\nfn main() {}\n```");
        assert!(html.contains("data-copy"));
        assert!(html.contains("code__lang\">rust"));
    }
}
