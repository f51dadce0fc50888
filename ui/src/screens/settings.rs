//! Settings: a section list on the left, the section's form on the right.

use crate::app_state::AppState;
use crate::ipc::invoke;
use crate::theme;

mod about;
mod agent;
mod approvals;
mod confirm;
mod files;
mod memory;
mod notifications;
mod providers;
mod shortcut;
use leptos::prelude::*;
use pizza_protocol::{SettingsPatch, Theme, cmd};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Section {
    /// The section Settings opens on.
    #[default]
    General,
    Providers,
    Files,
    Memory,
    Approvals,
    Notifications,
    About,
}

impl Section {
    const ALL: [Section; 7] = [
        Section::General,
        Section::Providers,
        Section::Files,
        Section::Memory,
        Section::Approvals,
        Section::Notifications,
        Section::About,
    ];

    fn label(self) -> &'static str {
        match self {
            Self::General => "General",
            Self::Providers => "Providers",
            Self::Files => "Files",
            Self::Memory => "Memory",
            Self::Approvals => "Approvals",
            Self::Notifications => "Notifications",
            Self::About => "About",
        }
    }
}

/// The selected section, shared by the sidebar list and the pane; the shell
/// provides it so the choice survives switching screens.
pub(crate) fn provide_section_state() {
    provide_context(RwSignal::new(Section::default()));
}

/// The selected section, for another screen to send the person to one
/// (the status bar's provider line).
pub(crate) fn use_section() -> RwSignal<Section> {
    section()
}

fn section() -> RwSignal<Section> {
    use_context::<RwSignal<Section>>().unwrap_or_else(|| RwSignal::new(Section::default()))
}

#[component]
pub(crate) fn SettingsSidebar() -> impl IntoView {
    let current = section();
    view! {
        <div class="sidebar__header">
            <h2 class="sidebar__title">"Settings"</h2>
        </div>
        <ul class="list" role="list">
            {Section::ALL
                .into_iter()
                .map(|s| {
                    view! {
                        <li>
                            <button
                                class="list__item"
                                class:list__item--active=move || current.get() == s
                                data-testid=format!("settings-{}", s.label().to_lowercase())
                                on:click=move |_| current.set(s)
                            >
                                {s.label()}
                            </button>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}

#[component]
pub(crate) fn SettingsPane() -> impl IntoView {
    let current = section();
    view! {
        {move || match current.get() {
            Section::General => view! { <General /> }.into_any(),
            Section::Providers => view! { <providers::Providers /> }.into_any(),
            Section::Files => view! { <files::Files /> }.into_any(),
            Section::Memory => view! { <memory::Memory /> }.into_any(),
            Section::Approvals => view! { <approvals::Approvals /> }.into_any(),
            Section::Notifications => view! { <notifications::Notifications /> }.into_any(),
            Section::About => view! { <about::About /> }.into_any(),
        }}
    }
}

#[component]
fn General() -> impl IntoView {
    let state = expect_context::<AppState>();
    let error = RwSignal::new(None::<String>);
    let saved = RwSignal::new(false);
    let choose = move |theme: Theme| {
        let previous = state.settings.get_untracked().theme;
        theme::apply(theme);
        leptos::task::spawn_local(async move {
            let patch = SettingsPatch {
                theme: Some(theme),
                ..SettingsPatch::default()
            };
            match invoke::<cmd::SettingsUpdate>(&patch).await {
                Ok(settings) => {
                    state.settings.set(settings);
                    error.set(None);
                    saved.set(true);
                }
                Err(e) => {
                    // Nothing was saved: show the theme that is really stored.
                    theme::apply(previous);
                    error.set(Some(e.message));
                }
            }
        });
    };
    view! {
        <section class="form" aria-labelledby="general-title">
            <h1 id="general-title">"General"</h1>
            <fieldset class="field">
                <legend>"Theme"</legend>
                <div class="segmented" role="radiogroup" aria-label="Theme">
                    {Theme::ALL
                        .into_iter()
                        .map(|t| {
                            let label = match t {
                                Theme::System => "System",
                                Theme::Light => "Light",
                                Theme::Dark => "Dark",
                            };
                            view! {
                                <button
                                    class="segmented__option"
                                    role="radio"
                                    aria-checked=move || (state.settings.get().theme == t).to_string()
                                    data-testid=format!("theme-{}", t.as_str())
                                    on:click=move |_| choose(t)
                                >
                                    {label}
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
                <p class="hint muted">"System follows your desktop’s light or dark setting."</p>
            </fieldset>
            <shortcut::ShortcutField />
            <crate::screens::automations::StartAtLoginSetting />
            <agent::AgentSettings />
            <Show when=move || saved.get()>
                <p class="saved" role="status">"Saved"</p>
            </Show>
            {move || error.get().map(|message| view! { <p class="banner banner--error" role="alert">{message}</p> })}
        </section>
    }
}
