//! Editing a gated call's arguments before it runs: a field per argument
//! (text, number, switch, or JSON for lists and objects) or the raw JSON,
//! with Revert back to what the model asked for. The host validates the
//! result against the tool's schema again.

use leptos::prelude::*;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum View {
    Fields,
    Json,
}

/// The editor. `save` gets the edited arguments; `cancel` leaves edit mode.
#[component]
pub(crate) fn EditArguments(
    original: Value,
    save: impl Fn(Value) + Clone + Send + Sync + 'static,
    cancel: impl Fn() + Clone + Send + Sync + 'static,
) -> impl IntoView {
    let original = StoredValue::new(original);
    // The fields view works on top-level object members; anything else is
    // edited as JSON only.
    let structured = original.with_value(Value::is_object);
    let view_mode = RwSignal::new(if structured { View::Fields } else { View::Json });
    let value = RwSignal::new(original.get_value());
    let json = RwSignal::new(pretty(&original.get_value()));
    let problem = RwSignal::new(None::<String>);
    // Bumped by Revert so the field controls are built again from the value.
    let generation = RwSignal::new(0u32);

    // Leaving the JSON view needs JSON that parses into an object.
    let switch_to = move |target: View| {
        if target == view_mode.get_untracked() {
            return;
        }
        if target == View::Fields {
            match serde_json::from_str::<Value>(&json.get_untracked()) {
                Ok(parsed) if parsed.is_object() => value.set(parsed),
                Ok(_) => {
                    problem.set(Some(
                        "The arguments must be a JSON object to edit them as fields.".into(),
                    ));
                    return;
                }
                Err(error) => {
                    problem.set(Some(format!("Not valid JSON: {error}")));
                    return;
                }
            }
        } else {
            json.set(pretty(&value.get_untracked()));
        }
        problem.set(None);
        view_mode.set(target);
    };
    let revert = move |_| {
        value.set(original.get_value());
        json.set(pretty(&original.get_value()));
        problem.set(None);
        generation.update(|g| *g += 1);
    };
    let submit = move |_| {
        let result = match view_mode.get_untracked() {
            View::Fields => Ok(value.get_untracked()),
            View::Json => serde_json::from_str::<Value>(&json.get_untracked())
                .map_err(|error| format!("Not valid JSON: {error}")),
        };
        match result {
            Ok(arguments) => save(arguments),
            Err(message) => problem.set(Some(message)),
        }
    };
    let tab = move |target: View, label: &'static str, testid: &'static str| {
        view! {
            <button class="segmented__option" role="tab" data-testid=testid
                aria-selected=move || (view_mode.get() == target).to_string()
                aria-checked=move || (view_mode.get() == target).to_string()
                on:click=move |_| switch_to(target)>{label}</button>
        }
    };
    view! {
        <div class="approval__edit" data-testid="edit-arguments">
            {structured.then(|| view! {
                <div class="segmented approval__tabs" role="tablist" aria-label="Edit as">
                    {tab(View::Fields, "Fields", "edit-view-fields")}
                    {tab(View::Json, "JSON", "edit-view-json")}
                </div>
            })}
            {move || match (view_mode.get(), generation.get()).0 {
                View::Fields => view! { <Fields value /> }.into_any(),
                View::Json => view! {
                    <textarea class="approval__json mono" rows="8" aria-label="Arguments (JSON)" data-testid="edit-json"
                        prop:value=move || json.get() on:input=move |ev| json.set(event_target_value(&ev))></textarea>
                }.into_any(),
            }}
            {move || problem.get().map(|p| view! { <p class="hint banner banner--error" role="alert" data-testid="edit-problem">{p}</p> })}
            <div class="approval__buttons">
                <button class="button button--primary" data-testid="edit-save" on:click=submit>"Run with these arguments"</button>
                <button class="button" data-testid="edit-revert" on:click=revert>"Revert"</button>
                <button class="button" on:click=move |_| cancel()>"Cancel"</button>
            </div>
        </div>
    }
}

/// One control per top-level argument, typed by its current value.
#[component]
fn Fields(value: RwSignal<Value>) -> impl IntoView {
    let names: Vec<String> = value.with_untracked(|v| {
        v.as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    });
    let set = move |name: &str, new: Value| {
        value.update(|v| {
            if let Some(map) = v.as_object_mut() {
                map.insert(name.to_owned(), new);
            }
        });
    };
    let get = move |name: &str| value.with(|v| v.get(name).cloned().unwrap_or(Value::Null));
    view! {
        <div class="approval__fields">
            {names.into_iter().map(|name| {
                let id = format!("edit-field-{name}");
                let label = name.replace('_', " ");
                let field = StoredValue::new(name.clone());
                let control = match value.with_untracked(|v| v.get(&name).cloned()) {
                    Some(Value::String(text)) => {
                        let rows = text.lines().count().clamp(1, 12);
                        view! {
                            <textarea class="approval__json" id=id.clone() rows=rows data-testid=id.clone()
                                prop:value=move || get(&field.get_value()).as_str().unwrap_or_default().to_owned()
                                on:input=move |ev| set(&field.get_value(), Value::String(event_target_value(&ev)))></textarea>
                        }.into_any()
                    }
                    Some(Value::Bool(_)) => view! {
                        <input type="checkbox" id=id.clone() data-testid=id.clone()
                            prop:checked=move || get(&field.get_value()).as_bool().unwrap_or(false)
                            on:change=move |ev| set(&field.get_value(), Value::Bool(event_target_checked(&ev))) />
                    }.into_any(),
                    Some(Value::Number(_)) => view! {
                        <NumberField id=id.clone() current=Signal::derive(move || get(&field.get_value()))
                            set=move |n| set(&field.get_value(), n) />
                    }.into_any(),
                    _ => view! {
                        <JsonField id=id.clone() current=get(&name) set=move |v| set(&field.get_value(), v) />
                    }.into_any(),
                };
                view! {
                    <label class="approval__name" for=id.clone()>{label}</label>
                    <div class="approval__control">{control}</div>
                }
            }).collect_view()}
        </div>
    }
}

/// A number; text that is not a number is kept in the box and flagged, not
/// stored.
#[component]
fn NumberField(
    id: String,
    current: Signal<Value>,
    set: impl Fn(Value) + Send + Sync + 'static,
) -> impl IntoView {
    let invalid = RwSignal::new(false);
    let on_input = move |ev: leptos::ev::Event| {
        let parsed = serde_json::from_str::<serde_json::Number>(event_target_value(&ev).trim());
        invalid.set(parsed.is_err());
        if let Ok(number) = parsed {
            set(Value::Number(number));
        }
    };
    view! {
        <input type="number" class="input" id=id.clone() data-testid=id step="any"
            aria-invalid=move || invalid.get().to_string()
            prop:value=move || current.get().to_string()
            on:input=on_input />
    }
}

/// A list, object or null, edited as JSON; invalid text is flagged and the
/// last valid value kept.
#[component]
fn JsonField(
    id: String,
    current: Value,
    set: impl Fn(Value) + Send + Sync + 'static,
) -> impl IntoView {
    let invalid = RwSignal::new(false);
    let on_input = move |ev: leptos::ev::Event| {
        let parsed = serde_json::from_str::<Value>(&event_target_value(&ev));
        invalid.set(parsed.is_err());
        if let Ok(value) = parsed {
            set(value);
        }
    };
    view! {
        <textarea class="approval__json mono" id=id.clone() data-testid=id rows="3"
            aria-invalid=move || invalid.get().to_string()
            on:input=on_input>{pretty(&current)}</textarea>
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}
