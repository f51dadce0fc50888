//! The logs viewer: the newest lines of the rotated log files, filtered by
//! level and text, the folder they are in, and diagnostics to paste into a
//! bug report.

use crate::ipc::invoke;
use crate::latest::Latest;
use leptos::prelude::*;
use pizza_protocol::{
    AppDiagnosticsParams, LogLevel, LogOpenFolderParams, LogRead, LogReadParams, cmd,
};

/// The level filter's choices: `None` shows every line.
const LEVELS: [(Option<LogLevel>, &str); 5] = [
    (None, "All levels"),
    (Some(LogLevel::Error), "Errors"),
    (Some(LogLevel::Warn), "Warnings and errors"),
    (Some(LogLevel::Info), "Info and above"),
    (Some(LogLevel::Debug), "Debug and above"),
];

fn level_class(level: Option<LogLevel>) -> &'static str {
    match level {
        Some(LogLevel::Error) => "logs__line logs__line--error",
        Some(LogLevel::Warn) => "logs__line logs__line--warn",
        Some(LogLevel::Debug | LogLevel::Trace) => "logs__line muted",
        Some(LogLevel::Info) | None => "logs__line",
    }
}

/// What the diagnostics button last did.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Diagnostics {
    Copied(String),
    /// The clipboard refused: the text is shown to copy by hand.
    NotCopied(String),
}

#[component]
pub(super) fn Logs() -> impl IntoView {
    let level = RwSignal::new(None::<LogLevel>);
    let query = RwSignal::new(String::new());
    let read = RwSignal::new(None::<LogRead>);
    let error = RwSignal::new(None::<String>);
    let diagnostics = RwSignal::new(None::<Diagnostics>);
    let refreshed = RwSignal::new(0u64);
    // Answers can overtake each other while the person types: only the
    // newest request's answer is shown.
    let asked = Latest::new();
    let lines_ref = NodeRef::<leptos::html::Div>::new();

    Effect::new(move |_| {
        refreshed.track();
        let params = LogReadParams {
            level: level.get(),
            query: Some(query.get()).filter(|q| !q.trim().is_empty()),
            limit: None,
        };
        let ticket = asked.ask();
        leptos::task::spawn_local(async move {
            let answer = invoke::<cmd::LogRead>(&params).await;
            if !ticket.is_newest() {
                return;
            }
            match answer {
                Ok(answer) => {
                    read.set(Some(answer));
                    error.set(None);
                    // Newest last: show the end.
                    request_animation_frame(move || {
                        if let Some(lines) = lines_ref.get_untracked() {
                            lines.set_scroll_top(lines.scroll_height());
                        }
                    });
                }
                Err(e) => error.set(Some(e.message)),
            }
        });
    });

    let open_folder = move |_| {
        leptos::task::spawn_local(async move {
            if let Err(e) = invoke::<cmd::LogOpenFolder>(&LogOpenFolderParams {}).await {
                error.set(Some(e.message));
            }
        });
    };
    let copy_diagnostics = move |_| {
        leptos::task::spawn_local(async move {
            match invoke::<cmd::AppDiagnostics>(&AppDiagnosticsParams {}).await {
                Ok(answer) => {
                    let copied = copy_text(&answer.text).await;
                    diagnostics.set(Some(if copied {
                        Diagnostics::Copied(answer.text)
                    } else {
                        Diagnostics::NotCopied(answer.text)
                    }));
                }
                Err(e) => error.set(Some(e.message)),
            }
        });
    };

    view! {
        <section class="logs" aria-labelledby="logs-title">
            <h2 id="logs-title">"Logs"</h2>
            <p class="hint muted">
                "What Pizza Bot did recently, newest last. Keys and tokens are removed before anything is written. "
                {move || read.get().map(|r| view! { <span class="mono" data-testid="logs-dir">{r.dir}</span> })}
            </p>
            <div class="logs__toolbar">
                <select aria-label="Level" data-testid="logs-level"
                    on:change=move |ev| {
                        let value = event_target_value(&ev);
                        level.set(LEVELS.iter().find(|(l, _)| l.map_or("all", LogLevel::as_str) == value).and_then(|(l, _)| *l));
                    }>
                    {LEVELS.into_iter().map(|(l, label)| view! {
                        <option value=l.map_or("all", LogLevel::as_str) selected=move || level.get() == l>{label}</option>
                    }).collect_view()}
                </select>
                <input type="search" class="logs__search" placeholder="Search the logs" aria-label="Search the logs"
                    data-testid="logs-search" prop:value=move || query.get()
                    on:input=move |ev| query.set(event_target_value(&ev)) />
                <button class="button" data-testid="logs-refresh" on:click=move |_| refreshed.update(|n| *n += 1)>"Refresh"</button>
                <button class="button" data-testid="logs-open-folder" on:click=open_folder>"Open folder"</button>
                <button class="button" data-testid="logs-copy-diagnostics" on:click=copy_diagnostics>"Copy diagnostics"</button>
            </div>
            {move || error.get().map(|message| view! { <p class="banner banner--error" role="alert">{message}</p> })}
            {move || diagnostics.get().map(|d| {
                let (note, text) = match d {
                    Diagnostics::Copied(text) => ("Diagnostics copied to the clipboard; paste them into your report.", text),
                    Diagnostics::NotCopied(text) => ("The clipboard is not available here: select the text below and copy it.", text),
                };
                view! {
                    <p class="saved" role="status" data-testid="logs-diagnostics-note">{note}</p>
                    <textarea class="logs__diagnostics mono" readonly rows="8" aria-label="Diagnostics"
                        data-testid="logs-diagnostics" prop:value=text></textarea>
                }
            })}
            <div class="logs__lines mono" role="log" aria-label="Log lines" tabindex="0" data-testid="logs-lines" node_ref=lines_ref>
                {move || read.get().map(|r| {
                    if r.lines.is_empty() {
                        let empty = if query.with(|q| q.trim().is_empty()) && level.get().is_none() {
                            "Nothing has been logged yet."
                        } else {
                            "No log lines match."
                        };
                        return view! { <p class="muted" data-testid="logs-empty">{empty}</p> }.into_any();
                    }
                    let more = r.truncated.then(|| view! {
                        <p class="muted" data-testid="logs-truncated">"Older lines are left out; search or filter to find them."</p>
                    });
                    view! {
                        {more}
                        {r.lines.into_iter().map(|line| view! {
                            <div class=level_class(line.level) data-testid="log-line">{line.text}</div>
                        }).collect_view()}
                    }.into_any()
                })}
            </div>
        </section>
    }
}

/// Puts `text` on the clipboard; `false` when the webview refuses.
async fn copy_text(text: &str) -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let promise = window.navigator().clipboard().write_text(text);
    wasm_bindgen_futures::JsFuture::from(promise).await.is_ok()
}
