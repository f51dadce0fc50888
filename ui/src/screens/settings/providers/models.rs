//! A provider's models: which ones the picker offers, each one's context
//! window with where it comes from (the provider's listing, the bundled
//! catalog, or the person's own value, which they set and clear here) and,
//! when the provider says, its price.

use crate::ipc::invoke;
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;
use pizza_protocol::{
    ContextSource, ModelEnablement, ModelInfo, ModelListParams, ModelOverrideSetParams, ModelPrice,
    cmd, split_model_id,
};

/// `1234567` → `1,234,567`.
fn thousands(n: u32) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn dollars(micros: u64) -> String {
    // Prices are small: f64 holds them exactly enough for display.
    #[allow(clippy::cast_precision_loss)]
    let usd = micros as f64 / 1_000_000.0;
    if usd >= 0.01 {
        format!("${usd:.2}")
    } else {
        format!("${usd:.4}")
    }
}

/// `$3.00 / $15.00 per M tokens (in / out)`, or `free`.
fn price_label(price: ModelPrice) -> String {
    if price.input_micros_per_mtok == 0 && price.output_micros_per_mtok == 0 {
        return "free".to_owned();
    }
    format!(
        "{} in · {} out per M tokens",
        dollars(price.input_micros_per_mtok),
        dollars(price.output_micros_per_mtok)
    )
}

fn source_label(source: ContextSource) -> &'static str {
    match source {
        ContextSource::Provider => "from the provider",
        ContextSource::Catalog => "from the bundled catalog",
        ContextSource::Override => "yours",
    }
}

fn source_key(source: Option<ContextSource>) -> &'static str {
    match source {
        Some(ContextSource::Provider) => "provider",
        Some(ContextSource::Catalog) => "catalog",
        Some(ContextSource::Override) => "override",
        None => "unknown",
    }
}

/// What was typed as a token count: digits, with `,` `_` or spaces between
/// thousands. The host checks the range.
fn parse_tokens(text: &str) -> Result<u32, String> {
    let digits: String = text
        .chars()
        .filter(|c| !matches!(c, ',' | '_' | ' ' | '\u{a0}'))
        .collect();
    if digits.is_empty() {
        return Err("Enter a number of tokens, or choose “Use default”.".to_owned());
    }
    digits
        .parse::<u32>()
        .map_err(|_| format!("“{}” is not a whole number of tokens.", text.trim()))
}

#[component]
pub(super) fn ModelRows(
    models: Vec<ModelInfo>,
    enablement: RwSignal<ModelEnablement>,
    on_enablement: Callback<ModelEnablement>,
    /// The provider's models listed again after an override changed.
    on_listed: Callback<Vec<ModelInfo>>,
) -> impl IntoView {
    view! {
        <ul class="provider-models" role="list">
            {models
                .into_iter()
                .map(|model| view! { <ModelRow model enablement on_enablement on_listed /> })
                .collect_view()}
        </ul>
    }
}

#[component]
fn ModelRow(
    model: ModelInfo,
    enablement: RwSignal<ModelEnablement>,
    on_enablement: Callback<ModelEnablement>,
    on_listed: Callback<Vec<ModelInfo>>,
) -> impl IntoView {
    let model_id = split_model_id(&model.id)
        .map(|(_, rest)| rest.to_owned())
        .unwrap_or_default();
    let checked_id = model_id.clone();
    let toggle_id = model_id.clone();
    let editing = RwSignal::new(false);
    let draft = RwSignal::new(String::new());
    let row_error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let key = StoredValue::new(model.id.clone());
    let provider = StoredValue::new(model.provider.clone());
    let input_ref = NodeRef::<leptos::html::Input>::new();

    let apply = move |tokens: Option<u32>| {
        busy.set(true);
        let params = ModelOverrideSetParams {
            model: key.get_value(),
            context_window: tokens,
        };
        leptos::task::spawn_local(async move {
            let outcome = async {
                invoke::<cmd::ModelOverrideSet>(&params).await?;
                invoke::<cmd::ModelList>(&ModelListParams {
                    include_disabled: true,
                })
                .await
            }
            .await;
            match outcome {
                Ok(list) => {
                    editing.set(false);
                    row_error.set(None);
                    let provider = provider.get_value();
                    on_listed.run(
                        list.models
                            .into_iter()
                            .filter(|m| m.provider == provider)
                            .collect(),
                    );
                }
                Err(e) => row_error.set(Some(e.message)),
            }
            busy.set(false);
        });
    };
    let save = move || match parse_tokens(&draft.get_untracked()) {
        Ok(tokens) => apply(Some(tokens)),
        Err(message) => row_error.set(Some(message)),
    };
    let start_editing = {
        let current = model.context_window;
        move || {
            draft.set(current.map(thousands).unwrap_or_default());
            row_error.set(None);
            editing.set(true);
            request_animation_frame(move || {
                if let Some(input) = input_ref.get_untracked() {
                    let _ = input.focus();
                    input.select();
                }
            });
        }
    };

    let context = match (model.context_window, model.context_source) {
        (Some(tokens), Some(source)) => {
            let mut text = format!("{} tokens · {}", thousands(tokens), source_label(source));
            if source == ContextSource::Override
                && let Some(default) = model.default_context_window
            {
                text.push_str(&format!(" (default {})", thousands(default)));
            }
            text
        }
        (Some(tokens), None) => format!("{} tokens", thousands(tokens)),
        (None, _) => "context window unknown".to_owned(),
    };
    let is_override = model.context_source == Some(ContextSource::Override);
    let source = source_key(model.context_source);

    view! {
        <li class="provider-models__item" data-testid=format!("provider-model-{model_id}")>
            <div class="provider-models__row">
                <label class="provider-models__name">
                    <input
                        type="checkbox"
                        data-testid=format!("enable-{model_id}")
                        disabled=move || matches!(enablement.get(), ModelEnablement::All)
                        prop:checked=move || enablement.get().allows(&checked_id)
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            let mut models = match enablement.get_untracked() {
                                ModelEnablement::Selected { models } => models,
                                ModelEnablement::All => Vec::new(),
                            };
                            models.retain(|m| m != &toggle_id);
                            if on {
                                models.push(toggle_id.clone());
                            }
                            on_enablement.run(ModelEnablement::Selected { models });
                        }
                    />
                    " " {model.name.clone()}
                </label>
                <span class="muted provider-models__context" data-testid="model-context" data-source=source>
                    {context}
                </span>
                {model.price.map(|price| view! {
                    <span class="muted provider-models__price" data-testid="model-price">{price_label(price)}</span>
                })}
                <button
                    type="button"
                    class="button button--small"
                    data-testid="model-context-edit"
                    aria-expanded=move || editing.get().to_string()
                    on:click=move |_| start_editing()
                >
                    "Context…"
                </button>
            </div>
            <Show when=move || editing.get()>
                <div class="provider-models__override" role="group" aria-label="Context window">
                    <input
                        class="input input--narrow"
                        type="text"
                        inputmode="numeric"
                        autocomplete="off"
                        aria-label="Context window in tokens"
                        aria-invalid=move || row_error.get().is_some().to_string()
                        data-testid="model-context-input"
                        node_ref=input_ref
                        prop:value=move || draft.get()
                        on:input=move |ev| draft.set(event_target_value(&ev))
                        on:keydown=move |ev: KeyboardEvent| match ev.key().as_str() {
                            // Not the provider form's submit.
                            "Enter" => {
                                ev.prevent_default();
                                save();
                            }
                            "Escape" => {
                                ev.prevent_default();
                                editing.set(false);
                            }
                            _ => {}
                        }
                    />
                    " tokens "
                    <button type="button" class="button" data-testid="model-context-save" disabled=move || busy.get() on:click=move |_| save()>"Set"</button>
                    {is_override.then(|| view! {
                        <button type="button" class="button" data-testid="model-context-clear" disabled=move || busy.get() on:click=move |_| apply(None)>"Use default"</button>
                    })}
                    <button type="button" class="button" on:click=move |_| editing.set(false)>"Cancel"</button>
                    {move || row_error.get().map(|message| view! {
                        <p class="hint error" role="alert" data-testid="model-context-error">{message}</p>
                    })}
                </div>
            </Show>
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_prices_read_plainly() {
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(parse_tokens(" 128,000 "), Ok(128_000));
        assert!(parse_tokens("12k").is_err());
        assert!(parse_tokens("").is_err());
        assert_eq!(
            price_label(ModelPrice {
                input_micros_per_mtok: 3_000_000,
                output_micros_per_mtok: 15_000_000,
            }),
            "$3.00 in · $15.00 out per M tokens"
        );
        assert_eq!(
            price_label(ModelPrice {
                input_micros_per_mtok: 0,
                output_micros_per_mtok: 0,
            }),
            "free"
        );
    }
}
