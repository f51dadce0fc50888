//! What the model list shows beside a model's name: where its context
//! window comes from, and what it costs.

/// Where a model's effective context window comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextSource {
    /// The provider's own listing said it.
    Provider,
    /// The bundled model snapshot knows the model.
    Snapshot,
    /// The person set it.
    Override,
}

/// A model's price in millionths of a US dollar per million tokens: whole
/// numbers, so a price compares and serialises exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelPrice {
    pub input_micros_per_mtok: u64,
    pub output_micros_per_mtok: u64,
}

impl ModelPrice {
    /// From US dollars per token (OpenRouter's unit).
    pub fn from_usd_per_token(input: f64, output: f64) -> Self {
        // Dollars per token × 10^6 tokens × 10^6 micros. Prices are far
        // below u64::MAX after scaling, and `as` saturates anyway.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let scale = |usd: f64| (usd * 1e12).round().max(0.0) as u64;
        Self {
            input_micros_per_mtok: scale(input),
            output_micros_per_mtok: scale(output),
        }
    }
}

/// One listed model's context window provenance and price.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ModelFacts {
    /// `None` when nobody knows the model's window.
    pub context_source: Option<ContextSource>,
    /// The window without the person's override (what clearing it restores).
    pub default_context_window: Option<u32>,
    pub price: Option<ModelPrice>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_scale_to_micros_per_million() {
        assert_eq!(
            ModelPrice::from_usd_per_token(0.000_003, 0.000_015),
            ModelPrice {
                input_micros_per_mtok: 3_000_000,
                output_micros_per_mtok: 15_000_000,
            }
        );
        assert_eq!(
            ModelPrice::from_usd_per_token(0.0, 0.000_000_037_5).output_micros_per_mtok,
            37_500
        );
    }
}
