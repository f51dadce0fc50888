//! The env-variable and header rows of the server form: name, value and a
//! "secret" box each. A saved row's value box starts empty with the
//! placeholder "unchanged": the saved value is never sent back to the
//! window, and an empty box keeps it.

use super::form_model::KeyValueDraft;
use leptos::prelude::*;

/// One row's signals; `key` keeps a row's inputs when another is removed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RowSignals {
    key: u32,
    name: RwSignal<String>,
    value: RwSignal<String>,
    secret: RwSignal<bool>,
    saved: bool,
}

/// The rows of one kind (env or headers), in order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rows {
    rows: RwSignal<Vec<RowSignals>>,
    next_key: StoredValue<u32>,
}

impl Rows {
    pub(crate) fn new(drafts: Vec<KeyValueDraft>) -> Self {
        let rows = Self {
            rows: RwSignal::new(Vec::new()),
            next_key: StoredValue::new(0),
        };
        for draft in drafts {
            rows.push(draft);
        }
        rows
    }

    fn push(self, draft: KeyValueDraft) {
        let key = self.next_key.get_value();
        self.next_key.set_value(key + 1);
        let row = RowSignals {
            key,
            name: RwSignal::new(draft.name),
            value: RwSignal::new(draft.value),
            secret: RwSignal::new(draft.secret),
            saved: draft.saved,
        };
        self.rows.update(|rows| rows.push(row));
    }

    fn remove(self, key: u32) {
        self.rows.update(|rows| rows.retain(|r| r.key != key));
    }

    /// The rows as typed now.
    pub(crate) fn drafts(self) -> Vec<KeyValueDraft> {
        self.rows.with_untracked(|rows| {
            rows.iter()
                .map(|r| KeyValueDraft {
                    name: r.name.get_untracked(),
                    value: r.value.get_untracked(),
                    secret: r.secret.get_untracked(),
                    saved: r.saved,
                })
                .collect()
        })
    }
}

/// The rows of `kind` ("env" or "headers"); `edited` runs on every change.
#[component]
pub(crate) fn KeyValueRows(
    rows: Rows,
    kind: &'static str,
    legend: &'static str,
    hint: &'static str,
    name_placeholder: &'static str,
    invalid: Signal<bool>,
    edited: Callback<()>,
) -> impl IntoView {
    let each = move || rows.rows.get();
    view! {
        <fieldset class="field mcp-rows" data-testid=format!("mcp-form-{kind}")>
            <legend>{legend}</legend>
            <p class="hint muted mcp-rows__hint">{hint}</p>
            <ul class="mcp-rows__list" role="list">
                <For each=each key=|row| row.key let:row>
                    <li class="mcp-rows__row">
                        <input class="input mono mcp-rows__name" spellcheck="false" autocomplete="off"
                            data-testid=format!("mcp-form-{kind}-name-{}", row.key)
                            aria-label=format!("{legend}: name")
                            placeholder=name_placeholder aria-invalid=move || invalid.get()
                            prop:value=move || row.name.get()
                            on:input=move |ev| { row.name.set(event_target_value(&ev)); edited.run(()) } />
                        <input class="input mono mcp-rows__value" spellcheck="false" autocomplete="off"
                            type=move || if row.secret.get() { "password" } else { "text" }
                            data-testid=format!("mcp-form-{kind}-value-{}", row.key)
                            aria-label=format!("{legend}: value")
                            placeholder=if row.saved { "unchanged" } else { "value" }
                            prop:value=move || row.value.get()
                            on:input=move |ev| { row.value.set(event_target_value(&ev)); edited.run(()) } />
                        <label class="toggle mcp-rows__secret" title="Keep the value in the system keychain">
                            <input type="checkbox" data-testid=format!("mcp-form-{kind}-secret-{}", row.key)
                                prop:checked=move || row.secret.get()
                                on:change=move |ev| { row.secret.set(event_target_checked(&ev)); edited.run(()) } />
                            <span class="muted">"secret"</span>
                        </label>
                        <button type="button" class="link" data-testid=format!("mcp-form-{kind}-remove-{}", row.key)
                            aria-label=format!("Remove this {}", if kind == "env" { "variable" } else { "header" })
                            on:click=move |_| { rows.remove(row.key); edited.run(()) }>"Remove"</button>
                    </li>
                </For>
            </ul>
            <button type="button" class="button" data-testid=format!("mcp-form-{kind}-add")
                on:click=move |_| { rows.push(KeyValueDraft::default()); edited.run(()) }>
                {if kind == "env" { "+ Variable" } else { "+ Header" }}
            </button>
        </fieldset>
    }
}
