//! The bundled, trimmed models.dev-style snapshot (`models.json`), used when
//! a provider does not report a model's limits. Refresh with
//! `scripts/refresh-models.sh`; nothing is downloaded at build or run time.

use std::collections::HashMap;
use std::sync::OnceLock;

use pizza_llm::ModelDescriptor;
use serde::Deserialize;

#[derive(Deserialize)]
struct Entry {
    name: String,
    context: u32,
    output: Option<u32>,
    #[serde(default)]
    tools: bool,
    #[serde(default)]
    vision: bool,
    #[serde(default)]
    reasoning: bool,
}

fn table() -> &'static HashMap<String, Entry> {
    static TABLE: OnceLock<HashMap<String, Entry>> = OnceLock::new();
    TABLE
        .get_or_init(|| serde_json::from_str(include_str!("../../models.json")).unwrap_or_default())
}

/// The snapshot's entry for `model`: an exact id, else the longest known id
/// it starts with (dated and tagged variants: `claude-sonnet-4-5-20250929`,
/// `qwen3:8b`), ignoring a `vendor/` or `models/` prefix.
pub fn snapshot_model(model: &str) -> Option<ModelDescriptor> {
    let id = model.rsplit('/').next().unwrap_or(model);
    let table = table();
    let (key, entry) = table.get_key_value(id).or_else(|| {
        table
            .iter()
            .filter(|(known, _)| id.starts_with(known.as_str()))
            .max_by_key(|(known, _)| known.len())
    })?;
    let _ = key;
    Some(ModelDescriptor {
        id: model.to_owned(),
        name: entry.name.clone(),
        context_window: Some(entry.context),
        max_output_tokens: entry.output,
        supports_tools: entry.tools,
        supports_vision: entry.vision,
        supports_reasoning: entry.reasoning,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_parses_and_matches_variants() {
        assert!(table().len() > 10, "models.json failed to parse");
        assert_eq!(
            snapshot_model("claude-sonnet-4-5-20250929")
                .unwrap()
                .context_window,
            Some(200_000)
        );
        assert_eq!(
            snapshot_model("openai/gpt-4o").unwrap().context_window,
            Some(128_000)
        );
        assert!(snapshot_model("no-such-model").is_none());
    }
}
