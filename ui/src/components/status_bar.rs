//! The status bar along the bottom of the main window: the version, provider
//! and MCP health, the open thread's context gauge, and shortcut help.

use crate::app_state::AppState;
use crate::ipc::invoke;
use crate::notify::NotificationHint;
use crate::screen::Screen;
use crate::screens::inbox::ContextGauge;
use crate::screens::mcp::McpStatusLine;
use crate::screens::settings::Section;
use leptos::prelude::*;
use pizza_protocol::{AppEvent, ProviderInfo, ProviderListParams, ProviderStatus, cmd};

/// How the providers stand, in one dot and one sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProviderHealth {
    /// A `status-dot--*` class: `ready`, `degraded` or `error`.
    pub(crate) dot: &'static str,
    pub(crate) text: String,
}

/// The first problem of the providers in use, else that they are fine.
/// Providers neither configured nor found on this machine are not in use.
pub(crate) fn provider_health(providers: &[ProviderInfo]) -> ProviderHealth {
    let in_use: Vec<&ProviderInfo> = providers
        .iter()
        .filter(|p| p.configured || !matches!(p.status, ProviderStatus::Unconfigured))
        .collect();
    let problem = in_use.iter().find_map(|p| match &p.status {
        ProviderStatus::Error { message, .. } => Some(("error", p.name.as_str(), message)),
        ProviderStatus::Degraded { message, .. } => Some(("degraded", p.name.as_str(), message)),
        ProviderStatus::Ready | ProviderStatus::Unconfigured => None,
    });
    if let Some((dot, name, message)) = problem {
        return ProviderHealth {
            dot,
            text: format!("{name}: {message}"),
        };
    }
    if in_use
        .iter()
        .any(|p| matches!(p.status, ProviderStatus::Ready))
    {
        return ProviderHealth {
            dot: "ready",
            text: "Providers ok".to_owned(),
        };
    }
    ProviderHealth {
        dot: "error",
        text: "No model provider is set up".to_owned(),
    }
}

#[component]
pub(crate) fn StatusBar(help_open: RwSignal<bool>, screen: RwSignal<Screen>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let version = move || {
        state
            .info
            .get()
            .map(|info| format!("Pizza Bot {}", info.version))
            .unwrap_or_default()
    };
    view! {
        <footer class="statusbar">
            <span class="statusbar__item muted">{version}</span>
            <ProviderLine screen />
            <McpStatusLine screen />
            <NotificationHint />
            <span class="statusbar__spacer"></span>
            <ContextGauge />
            <button class="statusbar__item link" data-testid="status-shortcuts"
                on:click=move |_| help_open.update(|o| *o = !*o)>
                "? Shortcuts"
            </button>
        </footer>
    }
}

/// Provider health; re-read when the person moves between screens (so a
/// change made in Settings shows on leaving it) and when a run ends (a
/// provider's failure shows in its status).
#[component]
fn ProviderLine(screen: RwSignal<Screen>) -> impl IntoView {
    let health = RwSignal::new(None::<ProviderHealth>);
    let section = crate::screens::settings::use_section();
    let ended = RwSignal::new(0u64);
    crate::events::listen(AppEvent::ACTIVITY, move |_| ended.update(|n| *n += 1));
    Effect::new(move |_| {
        screen.track();
        ended.track();
        leptos::task::spawn_local(async move {
            match invoke::<cmd::ProviderList>(&ProviderListParams {}).await {
                Ok(list) => health.set(Some(provider_health(&list.providers))),
                Err(error) => health.set(Some(ProviderHealth {
                    dot: "error",
                    text: error.message,
                })),
            }
        });
    });
    move || {
        health.get().map(|health| {
            view! {
                <button class="statusbar__item link statusbar__mcp" data-testid="status-providers"
                    data-health=health.dot title="Open Settings › Providers"
                    on:click=move |_| {
                        section.set(Section::Providers);
                        screen.set(Screen::Settings);
                    }>
                    <span class=format!("status-dot status-dot--{}", health.dot) aria-hidden="true"></span>
                    <span class="statusbar__text">{health.text}</span>
                </button>
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pizza_protocol::ErrorCode;
    use pretty_assertions::assert_eq;

    fn provider(name: &str, configured: bool, status: ProviderStatus) -> ProviderInfo {
        serde_json::from_value(serde_json::json!({
            "id": name.to_lowercase(),
            "name": name,
            "status": status,
            "configured": configured,
            "fields": [],
        }))
        .unwrap()
    }

    #[test]
    fn the_first_problem_of_a_provider_in_use_shows() {
        let error = ProviderStatus::Error {
            code: ErrorCode::AuthExpired,
            retryable: false,
            message: "The key was refused.".into(),
        };
        let providers = [
            provider("Ollama", false, ProviderStatus::Ready),
            provider("OpenAI", true, ProviderStatus::Ready),
            provider("Gemini", false, ProviderStatus::Unconfigured),
            provider("Anthropic", true, error),
        ];
        assert_eq!(
            provider_health(&providers),
            ProviderHealth {
                dot: "error",
                text: "Anthropic: The key was refused.".into()
            }
        );
        assert_eq!(provider_health(&providers[..3]).text, "Providers ok");
        assert_eq!(
            provider_health(&providers[2..3]).text,
            "No model provider is set up"
        );
    }
}
