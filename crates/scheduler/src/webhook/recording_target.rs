//! A [`WebhookTarget`] for listener tests: triggers with known secrets and
//! a scripted outcome, and a record of every `fire`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use super::secret::hash_secret;
use super::{
    RateLimit, SecretHash, WebhookFired, WebhookOptions, WebhookRefusal, WebhookServer,
    WebhookTarget,
};

pub(super) const SECRET: &str = "pzb_test-secret-0123456789abcdef";

#[derive(Debug, Clone, Copy)]
pub(super) enum Outcome {
    Fires,
    Busy,
    Unavailable,
}

#[derive(Debug, Default)]
pub(super) struct RecordingTarget {
    triggers: HashMap<String, (SecretHash, Outcome)>,
    fired: Mutex<Vec<(String, Option<String>)>>,
}

impl RecordingTarget {
    /// A target with `trigger_id` → `outcome`, each with [`SECRET`].
    pub(super) fn with(triggers: &[(&str, Outcome)]) -> Arc<Self> {
        Arc::new(Self {
            triggers: triggers
                .iter()
                .map(|(id, outcome)| ((*id).to_owned(), (hash_secret(SECRET).unwrap(), *outcome)))
                .collect(),
            fired: Mutex::default(),
        })
    }

    /// Every `fire` call so far: trigger id and prompt override.
    pub(super) fn fired(&self) -> Vec<(String, Option<String>)> {
        self.fired.lock().unwrap().clone()
    }
}

#[async_trait]
impl WebhookTarget for RecordingTarget {
    async fn secret_of(&self, trigger_id: &str) -> Option<SecretHash> {
        self.triggers.get(trigger_id).map(|(hash, _)| hash.clone())
    }

    async fn fire(
        &self,
        trigger_id: &str,
        prompt: Option<String>,
    ) -> Result<WebhookFired, WebhookRefusal> {
        let count = {
            let mut fired = self.fired.lock().unwrap();
            fired.push((trigger_id.to_owned(), prompt));
            fired.len()
        };
        match self.triggers.get(trigger_id).map(|(_, outcome)| *outcome) {
            Some(Outcome::Fires) => Ok(WebhookFired {
                thread_id: format!("thread-{count}"),
                run_id: format!("run-{count}"),
            }),
            Some(Outcome::Busy) => Err(WebhookRefusal::Busy(
                "the previous run of this trigger is still running".to_owned(),
            )),
            Some(Outcome::Unavailable) | None => Err(WebhookRefusal::Unavailable(
                "the run could not be started".to_owned(),
            )),
        }
    }
}

/// A listener on a free port firing `target`, with a rate limit high enough
/// that only the rate-limit tests meet it.
pub(super) async fn listen(target: Arc<RecordingTarget>) -> WebhookServer {
    listen_limited(target, 1_000).await
}

pub(super) async fn listen_limited(
    target: Arc<RecordingTarget>,
    per_minute: usize,
) -> WebhookServer {
    let options = WebhookOptions::default().with_rate_limit(RateLimit {
        requests: per_minute,
        per: std::time::Duration::from_secs(60),
    });
    WebhookServer::start_with(0, target, options).await.unwrap()
}
