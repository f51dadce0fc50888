//! The window's frame: rail, sidebar, main pane and status bar.

use crate::components::status_bar::StatusBar;
use crate::keys::{Shortcut, shortcut};
use crate::screen::Screen;
use crate::screens::automations::{AutomationsPane, AutomationsSidebar};
use crate::screens::inbox::{
    self, AttachmentViewer, ConfirmDialog, DropOverlay, InboxPane, InboxSidebar, state::Inbox,
};
use crate::screens::mcp::{McpPane, McpSidebar};
use crate::screens::settings::{SettingsPane, SettingsSidebar};
use crate::screens::skills::{SkillsPane, SkillsSidebar};
use leptos::prelude::*;
use pizza_protocol::AppEvent;

#[component]
pub(crate) fn Shell() -> impl IntoView {
    let place = crate::place::from_address();
    let screen = RwSignal::new(crate::place::screen_of(&place));
    let help_open = RwSignal::new(false);
    crate::clock::provide_midnight();
    crate::screens::settings::provide_section_state();
    crate::screens::automations::provide_state();
    crate::screens::skills::provide_state();
    crate::screens::mcp::provide_state();
    let inbox = Inbox::new();
    provide_context(inbox);
    provide_context(screen);
    inbox.start_sync();
    crate::events::listen(AppEvent::THREADS_CHANGED, move |_| inbox.changed());
    inbox::track_running(inbox);
    inbox::track_queues(inbox);
    crate::place::restore_and_follow(place, screen, inbox);
    let section = crate::screens::settings::use_section();
    crate::snapshot::follow(move || {
        crate::place::mounts_as_is(screen.get_untracked(), inbox, section.get_untracked())
    });
    crate::notify::follow_clicks(screen, inbox);
    let dragging = RwSignal::new(false);
    inbox::follow_drops(inbox, screen, dragging);

    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() == "Escape" && help_open.get_untracked() {
            help_open.set(false);
            return;
        }
        let Some(action) = shortcut(&ev) else { return };
        ev.prevent_default();
        match action {
            Shortcut::Settings => screen.set(Screen::Settings),
            Shortcut::Help => help_open.update(|open| *open = !*open),
            Shortcut::NewThread => {
                screen.set(Screen::Inbox);
                inbox::new_thread(inbox);
            }
            Shortcut::Search => {
                screen.set(Screen::Inbox);
                inbox.focus_search.update(|n| *n += 1);
            }
            Shortcut::OpenThread(index) => {
                screen.set(Screen::Inbox);
                if let Some(thread) = inbox.threads.with_untracked(|t| t.get(index).cloned()) {
                    inbox.open(thread.id, None);
                }
            }
            Shortcut::DeleteThread => {
                if screen.get_untracked() == Screen::Inbox
                    && let Some(id) = inbox.selected.get_untracked()
                {
                    let title = inbox.thread(&id).map(|t| t.title).unwrap_or_default();
                    inbox::confirm_delete(inbox, id, &title);
                }
            }
        }
    });
    on_cleanup(move || handle.remove());

    view! {
        <div class="shell">
            <Rail screen />
            <aside class="sidebar" aria-label="Sidebar">
                {move || match screen.get() {
                    Screen::Inbox => view! { <InboxSidebar /> }.into_any(),
                    Screen::Skills => view! { <SkillsSidebar /> }.into_any(),
                    Screen::Mcp => view! { <McpSidebar /> }.into_any(),
                    Screen::Automations => view! { <AutomationsSidebar /> }.into_any(),
                    Screen::Settings => view! { <SettingsSidebar /> }.into_any(),
                }}
            </aside>
            <main class="pane" id="main">
                {move || match screen.get() {
                    Screen::Inbox => view! { <InboxPane /> }.into_any(),
                    Screen::Skills => view! { <SkillsPane /> }.into_any(),
                    Screen::Mcp => view! { <McpPane /> }.into_any(),
                    Screen::Automations => view! { <AutomationsPane /> }.into_any(),
                    Screen::Settings => view! { <SettingsPane /> }.into_any(),
                }}
            </main>
            <StatusBar help_open screen />
            <Show when=move || help_open.get()>
                <ShortcutHelp help_open />
            </Show>
            <AttachmentViewer />
            <ConfirmDialog />
            <DropOverlay dragging />
        </div>
    }
}

#[component]
fn Rail(screen: RwSignal<Screen>) -> impl IntoView {
    let item =
        move |target: Screen, label: &'static str, glyph: &'static str, testid: &'static str| {
            view! {
                <button
                    class="rail__item"
                    class:rail__item--active=move || screen.get() == target
                    aria-current=move || (screen.get() == target).then_some("page")
                    title=label
                    aria-label=label
                    data-testid=testid
                    on:click=move |_| screen.set(target)
                >
                    <span aria-hidden="true">{glyph}</span>
                </button>
            }
        };
    view! {
        <nav class="rail" aria-label="Sections">
            {item(Screen::Inbox, "Inbox", "⌂", "rail-inbox")}
            {item(Screen::Skills, "Skills", "✦", "rail-skills")}
            {item(Screen::Mcp, "MCP", "⇄", "rail-mcp")}
            {item(Screen::Automations, "Automations", "◷", "rail-automations")}
            <div class="rail__spacer"></div>
            {item(Screen::Settings, "Settings", "⚙", "rail-settings")}
        </nav>
    }
}

#[component]
fn ShortcutHelp(help_open: RwSignal<bool>) -> impl IntoView {
    let rows = [
        ("Ctrl/⌘ N", "New thread"),
        ("Ctrl/⌘ F", "Search messages"),
        ("Ctrl/⌘ 1–9", "Open the n-th thread"),
        ("Delete", "Delete the open thread (asks first)"),
        ("Ctrl/⌘ ,", "Settings"),
        ("Ctrl/⌘ /", "Show or hide this list"),
        ("Esc", "Close, or leave a field"),
    ];
    view! {
        <div class="overlay" role="dialog" aria-label="Keyboard shortcuts" on:click=move |_| help_open.set(false)>
            <div class="overlay__card" on:click=|ev| ev.stop_propagation()>
                <h2>"Keyboard shortcuts"</h2>
                <dl class="shortcuts">
                    {rows
                        .into_iter()
                        .map(|(keys, what)| view! { <dt><kbd>{keys}</kbd></dt><dd>{what}</dd> })
                        .collect_view()}
                </dl>
            </div>
        </div>
    }
}
