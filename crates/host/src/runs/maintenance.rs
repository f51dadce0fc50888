//! Run-end maintenance, serialized per thread: unread and awaiting-action
//! flags, the automatic title, the activity row and the app events.
//! (Preview and last activity move with every committed step, in the store.)

use std::sync::{Arc, PoisonError};
use std::time::Duration;

use pizza_agent::{CancellationToken, RunOutcome};
use pizza_llm::{Message, ModelRequest};
use pizza_protocol::{ApiError, AppEvent, RunStatus};
use pizza_store as store;

use super::RunService;
use super::model::ResolvedModel;
use super::store_err;
use crate::activity::ActivityDetail;

/// A title is a glance, not a summary.
const TITLE_MAX_WORDS: usize = 6;
const TITLE_MAX_CHARS: usize = 60;
/// The title request is best effort; a slow model must not hold the thread's
/// maintenance for long.
const TITLE_TIMEOUT: Duration = Duration::from_secs(30);
/// How much of the exchange the title request quotes.
const TITLE_CONTEXT_CHARS: usize = 2_000;
const TITLE_PROMPT: &str = "Write a title of 2 to 6 words for the conversation the user quotes. \
Answer with the title only: no quotes, no final punctuation.";

/// The model's answer made into a title: one line, no quotes or trailing
/// punctuation, at most 6 words and 60 characters. `None` when nothing is left.
pub(crate) fn clean_title(raw: &str) -> Option<String> {
    let line = raw.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line
        .trim_start_matches(|c: char| c == '#' || c.is_whitespace())
        .trim_start_matches("Title:")
        .trim_matches(|c: char| {
            matches!(c, '"' | '\'' | '“' | '”' | '*' | '`') || c.is_whitespace()
        })
        .trim_end_matches(['.', '!', '?', ':', ';', ','])
        .trim();
    let mut title = String::new();
    for word in line.split_whitespace().take(TITLE_MAX_WORDS) {
        let extra = usize::from(!title.is_empty()) + word.chars().count();
        if title.chars().count() + extra > TITLE_MAX_CHARS {
            break;
        }
        if !title.is_empty() {
            title.push(' ');
        }
        title.push_str(word);
    }
    if title.is_empty() {
        // One word longer than the limit: cut it.
        title = line.chars().take(TITLE_MAX_CHARS).collect();
    }
    (!title.is_empty()).then_some(title)
}

fn clip(text: &str) -> String {
    text.chars().take(TITLE_CONTEXT_CHARS).collect()
}

impl RunService {
    fn maintenance_lock(&self, thread_id: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self
            .maintenance
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // Locks nobody holds or waits for are dropped, so the map stays small.
        locks.retain(|_, lock| Arc::strong_count(lock) > 1);
        Arc::clone(locks.entry(thread_id.to_owned()).or_default())
    }

    pub(super) async fn after_run(
        &self,
        thread_id: &str,
        run_id: &str,
        outcome: &RunOutcome,
        model: &ResolvedModel,
    ) {
        let lock = self.maintenance_lock(thread_id);
        let _serial = lock.lock().await;
        if let Err(error) = self.maintain(thread_id, run_id, outcome, model).await {
            tracing::warn!(code = %error.code, thread_id, run_id, "run-end maintenance failed");
        }
    }

    async fn maintain(
        &self,
        thread_id: &str,
        run_id: &str,
        outcome: &RunOutcome,
        model: &ResolvedModel,
    ) -> Result<(), ApiError> {
        let looking = self.presence.is_viewing(thread_id);
        let mut thread = self
            .store
            .update_thread(
                thread_id,
                store::ThreadUpdate {
                    unread: (!looking).then_some(true),
                    awaiting_action: Some(outcome.interrupt.is_some()),
                    ..store::ThreadUpdate::default()
                },
            )
            .await
            .map_err(store_err)?;
        if outcome.status == RunStatus::Succeeded
            && !thread.user_titled
            && self.first_success(thread_id).await?
            && let Some(title) = self.generate_title(thread_id, model).await
            && self
                .store
                .set_auto_title(thread_id, &title)
                .await
                .map_err(store_err)?
        {
            thread.title = title;
        }
        // What a notification quotes: the answer's start, the gated tools.
        let answer = if outcome.status == RunStatus::Succeeded {
            self.last_answer(thread_id).await
        } else {
            None
        };
        let detail = ActivityDetail {
            title: Some(thread.title.clone()),
            error: outcome.error.as_ref().map(|e| e.message.clone()),
            error_code: outcome.error.as_ref().map(|e| e.code.as_str().to_owned()),
            answer,
            tools: outcome
                .interrupt
                .iter()
                .flat_map(|i| i.requests.iter().map(|r| r.tool.clone()))
                .collect(),
        };
        let entry = self
            .store
            .append_activity(store::NewActivity {
                thread_id: thread_id.to_owned(),
                run_id: Some(run_id.to_owned()),
                status: outcome.status.into(),
                detail: detail.to_value(),
            })
            .await
            .map_err(store_err)?;
        self.threads.threads_changed(Some(thread_id));
        self.events.emit(AppEvent::Activity {
            cursor: entry.cursor,
            thread_id: thread_id.to_owned(),
            run_id: entry.run_id,
            status: outcome.status,
            title: thread.title,
            message: outcome.error.as_ref().map(|e| e.message.clone()),
            created_at: entry.created_at,
        });
        self.notifications.announce().await;
        Ok(())
    }

    /// The start of the thread's last non-empty assistant message.
    async fn last_answer(&self, thread_id: &str) -> Option<String> {
        let page = self.store.messages_before(thread_id, None, 10).await.ok()?;
        page.messages
            .iter()
            .rev()
            .find(|m| m.role == store::Role::Assistant && !m.text.trim().is_empty())
            .map(|m| crate::notify::answer_excerpt(&m.text))
    }

    /// Whether the run that just succeeded is the thread's first success.
    async fn first_success(&self, thread_id: &str) -> Result<bool, ApiError> {
        let runs = self
            .store
            .thread_runs(thread_id, 500)
            .await
            .map_err(store_err)?;
        Ok(runs
            .iter()
            .filter(|r| r.status == store::RunStatus::Succeeded)
            .count()
            == 1)
    }

    /// Asks the run's model for a title; any failure leaves the title as it is.
    async fn generate_title(&self, thread_id: &str, model: &ResolvedModel) -> Option<String> {
        let page = self.store.messages_before(thread_id, None, 20).await.ok()?;
        let question = page.messages.iter().find(|m| m.role == store::Role::User)?;
        let answer = page
            .messages
            .iter()
            .rev()
            .find(|m| m.role == store::Role::Assistant && !m.text.trim().is_empty())?;
        let quote = format!(
            "User: {}\n\nAssistant: {}",
            clip(&question.text),
            clip(&answer.text)
        );
        let mut request = ModelRequest::new(model.model_id.clone(), vec![Message::user(quote)]);
        request.system = Some(TITLE_PROMPT.to_owned());
        request.max_output_tokens = Some(32);
        let call = async {
            let stream = model
                .client
                .stream(request, CancellationToken::new())
                .await?;
            pizza_llm::collect_stream(stream).await
        };
        match tokio::time::timeout(TITLE_TIMEOUT, call).await {
            Ok(Ok(completion)) => clean_title(&completion.message.text()),
            Ok(Err(error)) => {
                tracing::debug!(%error, thread_id, "title request failed");
                None
            }
            Err(_) => {
                tracing::debug!(thread_id, "title request timed out");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::clean_title;
    use pretty_assertions::assert_eq;

    #[test]
    fn titles_are_cleaned_and_bounded() {
        assert_eq!(
            clean_title("\"Planning a Trip to Rome.\"\n"),
            Some("Planning a Trip to Rome".to_owned())
        );
        assert_eq!(
            clean_title("Title: one two three four five six seven eight"),
            Some("one two three four five six".to_owned())
        );
        let long = "Supercalifragilisticexpialidocious ".repeat(4);
        assert!(clean_title(&long).unwrap().chars().count() <= 60);
        assert_eq!(clean_title("  \n "), None);
    }
}
