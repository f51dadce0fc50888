//! What a gated file change will do, on its approval card: the new file's
//! content, or a diff of the change with its context.

use leptos::prelude::*;
use pizza_protocol::ChangePreview;

/// How one line of a unified diff reads.
pub(crate) fn line_kind(line: &str) -> &'static str {
    if line.starts_with("@@") {
        "hunk"
    } else if line.starts_with('+') {
        "add"
    } else if line.starts_with('-') {
        "del"
    } else {
        "same"
    }
}

#[component]
pub(super) fn PreviewView(preview: ChangePreview) -> impl IntoView {
    let (kind, title, path, body) = match preview {
        ChangePreview::NewFile { path, content } => {
            let lines = content
                .lines()
                .map(|line| view! { <span class=format!("diff__line diff__line--add") data-line="add">{format!("{line}\n")}</span> })
                .collect_view();
            ("new_file", "New file", path, lines)
        }
        ChangePreview::Diff { path, diff } => {
            let lines = diff
                .lines()
                .map(|line| {
                    let kind = line_kind(line);
                    view! {
                        <span class=format!("diff__line diff__line--{kind}") data-line=kind>{format!("{line}\n")}</span>
                    }
                })
                .collect_view();
            ("diff", "Changes to", path, lines)
        }
    };
    view! {
        <figure class="approval__preview" data-testid="approval-preview" data-kind=kind>
            <figcaption class="approval__preview-title">{title} " " <span class="mono">{path}</span></figcaption>
            <pre class="diff mono">{body}</pre>
        </figure>
    }
}
