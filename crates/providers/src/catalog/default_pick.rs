//! The automatic default model. The app stores the pick; this function only
//! decides, so it is pure and easy to test.

use super::{CatalogListing, CatalogStatus};

/// Families in order of preference for an agent that calls tools.
const FAMILY_RANK: &[&str] = &[
    "claude-sonnet",
    "gpt-5",
    "claude-opus",
    "gemini-2.5-pro",
    "gpt-4.1",
    "anthropic.claude-sonnet",
    "us.anthropic.claude-sonnet",
    "gpt-4o",
    "claude-haiku",
    "gemini-2.5-flash",
    "o4-mini",
    "qwen3",
    "gpt-oss",
    "llama3",
];

/// `provider:model` to use by default.
///
/// A remembered pick stays unless every listing is `Ready` and none of them
/// has it any more: a degraded or failed listing may be hiding it, and a
/// default that silently moves would point scheduled automations at a
/// different model.
pub fn automatic_default_model(
    remembered: Option<&str>,
    listings: &[CatalogListing],
) -> Option<String> {
    let complete =
        !listings.is_empty() && listings.iter().all(|l| l.status == CatalogStatus::Ready);
    if let Some(remembered) = remembered {
        let present = listings.iter().any(|l| {
            l.models
                .iter()
                .any(|m| format!("{}:{}", l.provider_id, m.id) == remembered)
        });
        if present || !complete {
            return Some(remembered.to_owned());
        }
    }
    let candidates = listings
        .iter()
        .flat_map(|l| l.models.iter().map(move |m| (l.provider_id.as_str(), m)))
        .filter(|(_, m)| m.supports_tools);
    let rank = |id: &str| {
        let id = id.rsplit('/').next().unwrap_or(id);
        FAMILY_RANK
            .iter()
            .position(|family| id.starts_with(family))
            .unwrap_or(FAMILY_RANK.len())
    };
    // Stable: among equals, the first provider and first-listed model win.
    candidates
        .enumerate()
        .min_by_key(|(order, (_, m))| (rank(&m.id), *order))
        .map(|(_, (provider, m))| format!("{provider}:{}", m.id))
}
