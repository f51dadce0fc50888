//! `composer_get` / `composer_draft_save` / `composer_history_add`: what the
//! person typed and has not sent, and what they sent, kept in the store so a
//! restart loses neither. The window debounces its saves.

use pizza_protocol::{
    ApiError, ComposerDraftSaveParams, ComposerGetParams, ComposerHistoryAddParams, ComposerState,
    Draft, MESSAGE_TEXT_MAX_BYTES, PROMPT_HISTORY_MAX,
};

use crate::{Host, HostError};

fn store_err(err: pizza_store::Error) -> ApiError {
    HostError::from(err).into()
}

/// Text the composer could not send is not worth keeping either.
fn check_length(text: &str) -> Result<(), ApiError> {
    if text.len() > MESSAGE_TEXT_MAX_BYTES {
        return Err(ApiError::invalid_input(
            "This text is longer than a message may be (1 MiB). Shorten it, or attach it as a file.",
        ));
    }
    Ok(())
}

impl Host {
    pub async fn composer_get(&self, _: ComposerGetParams) -> Result<ComposerState, ApiError> {
        let drafts = self.inner.store.drafts().await.map_err(store_err)?;
        let history = self.inner.store.prompt_history().await.map_err(store_err)?;
        Ok(ComposerState {
            drafts: drafts
                .into_iter()
                .map(|draft| Draft {
                    thread_id: draft.thread_id,
                    text: draft.text,
                })
                .collect(),
            history,
        })
    }

    pub async fn composer_draft_save(
        &self,
        params: ComposerDraftSaveParams,
    ) -> Result<(), ApiError> {
        check_length(&params.text)?;
        self.inner
            .store
            .save_draft(&params.thread_id, &params.text)
            .await
            .map_err(store_err)
    }

    pub async fn composer_history_add(
        &self,
        params: ComposerHistoryAddParams,
    ) -> Result<(), ApiError> {
        check_length(&params.text)?;
        self.inner
            .store
            .add_prompt(&params.text, PROMPT_HISTORY_MAX)
            .await
            .map_err(store_err)
    }
}

#[cfg(test)]
mod tests {
    use pizza_protocol::{
        ComposerDraftSaveParams, ComposerGetParams, ComposerHistoryAddParams, Draft, ErrorCode,
        ThreadCreateParams,
    };
    use pizza_test_support::data_root::TempDataRoot;
    use pretty_assertions::assert_eq;

    use crate::tests::open;

    fn draft(thread_id: &str, text: &str) -> ComposerDraftSaveParams {
        ComposerDraftSaveParams {
            thread_id: thread_id.to_owned(),
            text: text.to_owned(),
        }
    }

    #[tokio::test]
    async fn drafts_and_sent_prompts_survive_a_restart() {
        let root = TempDataRoot::new().unwrap();
        let host = open(&root).await;
        let thread = host
            .thread_create(ThreadCreateParams::default())
            .await
            .unwrap();
        host.composer_draft_save(draft(&thread.id, "Plan a pizza\nnight"))
            .await
            .unwrap();
        for text in ["first prompt", "second prompt"] {
            host.composer_history_add(ComposerHistoryAddParams { text: text.into() })
                .await
                .unwrap();
        }
        let refused = host
            .composer_draft_save(draft("no-such-thread", "lost"))
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::NotFound);
        let long = "x".repeat(pizza_protocol::MESSAGE_TEXT_MAX_BYTES + 1);
        let refused = host
            .composer_draft_save(draft(&thread.id, &long))
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidInput);
        host.close().await;

        let host = open(&root).await;
        let state = host.composer_get(ComposerGetParams {}).await.unwrap();
        assert_eq!(
            state.drafts,
            vec![Draft {
                thread_id: thread.id.clone(),
                text: "Plan a pizza\nnight".into()
            }]
        );
        assert_eq!(state.history, ["first prompt", "second prompt"]);

        // Sending clears the draft.
        host.composer_draft_save(draft(&thread.id, ""))
            .await
            .unwrap();
        let state = host.composer_get(ComposerGetParams {}).await.unwrap();
        assert!(state.drafts.is_empty());
    }
}
