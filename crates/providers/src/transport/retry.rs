//! Backoff and `retry-after`.

use std::time::Duration;

use reqwest::header::HeaderMap;

use super::TransportConfig;

/// Exponential backoff with "equal jitter": half fixed, half random, so
/// clients that failed together do not retry together.
pub(crate) fn backoff_delay(config: &TransportConfig, attempt: u32) -> Duration {
    let factor = 2u32.saturating_pow(attempt.min(16));
    let full = config
        .initial_backoff
        .saturating_mul(factor)
        .min(config.max_backoff);
    let half = full / 2;
    half + half.mul_f64(fastrand::f64())
}

/// `retry-after-ms` (OpenAI, Anthropic) or `retry-after` in seconds. HTTP
/// dates are rare from model APIs and fall back to backoff.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let read = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<f64>().ok())
            .filter(|value| value.is_finite() && *value >= 0.0)
    };
    if let Some(ms) = read("retry-after-ms") {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    read("retry-after").map(Duration::from_secs_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let config = TransportConfig {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(1000),
            ..TransportConfig::default()
        };
        for attempt in 0..10 {
            let delay = backoff_delay(&config, attempt);
            let full = (100u64 << attempt).min(1000);
            assert!(
                delay >= Duration::from_millis(full / 2),
                "{attempt}: {delay:?}"
            );
            assert!(delay <= Duration::from_millis(full), "{attempt}: {delay:?}");
        }
    }

    #[test]
    fn reads_retry_after_headers() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", "150".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(150)));
    }
}
