//! A connected server's tools on its card: each expands in place for its
//! description and input schema; one whose definition changed since it was
//! last reviewed shows the diff and can be marked reviewed.

use super::state::McpState;
use crate::ipc::invoke;
use crate::screens::inbox::line_kind;
use leptos::prelude::*;
use pizza_protocol::{McpToolReviewParams, McpToolView, cmd};

/// Marks the server's tools (or one of them) reviewed; a refusal goes to
/// the card's error line.
pub(crate) fn review(
    state: McpState,
    id: String,
    tool: Option<String>,
    card_error: RwSignal<Option<(String, String)>>,
) {
    let params = McpToolReviewParams { id, tool };
    leptos::task::spawn_local(async move {
        match invoke::<cmd::McpToolReview>(&params).await {
            Ok(view) => {
                state.upsert(view);
                let _ = card_error.try_set(None);
            }
            Err(e) => {
                let _ = card_error.try_set(Some((e.code.as_str().to_owned(), e.message)));
            }
        }
    });
}

/// A unified diff with its lines coloured as the approval cards do.
#[component]
fn Diff(diff: String) -> impl IntoView {
    let lines = diff
        .lines()
        .map(|line| {
            let kind = line_kind(line);
            view! { <span class=format!("diff__line diff__line--{kind}") data-line=kind>{format!("{line}\n")}</span> }
        })
        .collect_view();
    view! { <pre class="diff mono">{lines}</pre> }
}

#[component]
pub(crate) fn ToolList(
    server: String,
    tools: Vec<McpToolView>,
    card_error: RwSignal<Option<(String, String)>>,
) -> impl IntoView {
    let state = super::state::use_mcp();
    let rows = tools
        .into_iter()
        .map(|tool| {
            let first_line = tool.description.lines().next().unwrap_or_default().to_owned();
            let drift = tool.changed.clone().map(|diff| {
                let (id, name) = (server.clone(), tool.name.clone());
                view! {
                    <div class="mcp-tool__drift" role="status" data-testid=format!("mcp-drift-{}-{}", server, tool.name)>
                        <p class="mcp-tool__drift-title">
                            <span class="status-dot status-dot--degraded" aria-hidden="true"></span>
                            "changed since you last reviewed — every call asks first until you mark it reviewed"
                        </p>
                        <Diff diff />
                        <button type="button" class="button" data-testid=format!("mcp-review-tool-{}-{}", server, tool.name)
                            on:click=move |_| review(state, id.clone(), Some(name.clone()), card_error)>
                            "Mark this tool reviewed"
                        </button>
                    </div>
                }
            });
            view! {
                <li class="mcp-tool" class:mcp-tool--changed=tool.changed.is_some()
                    data-testid=format!("mcp-tool-{}-{}", server, tool.name)>
                    <details class="mcp-tool__details">
                        <summary>
                            <span class="mono mcp-tool__name">{tool.name.clone()}</span>
                            {tool.changed.is_some().then(|| view! { <span class="badge mcp-tool__changed">"changed"</span> })}
                            <span class="muted mcp-tool__first-line">{first_line}</span>
                        </summary>
                        <p class="mcp-tool__description">{tool.description.clone()}</p>
                        <p class="hint muted">"The model calls it as " <span class="mono">{tool.qualified_name.clone()}</span> "."</p>
                        <pre class="mono mcp-tool__schema" data-testid=format!("mcp-schema-{}-{}", server, tool.name)>
                            {tool.input_schema.clone()}
                        </pre>
                    </details>
                    {drift}
                </li>
            }
        })
        .collect_view();
    view! { <ul class="mcp-tools" role="list" aria-label="Tools">{rows}</ul> }
}
