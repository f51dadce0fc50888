//! Thread and folder commands over the store, and the `threads_changed` notice.

use crate::events::AppEvents;
use crate::runs::registry::RunRegistry;
use crate::{Host, HostError};
use pizza_protocol::{
    ApiError, AppEvent, Folder, FolderCreateParams, FolderDeleteParams, FolderListParams,
    FolderUpdateParams, RunBrief, SearchHit, SnippetPart, ThreadCreateParams, ThreadDetail,
    ThreadForkParams, ThreadGetParams, ThreadIdParams, ThreadListParams, ThreadListResponse,
    ThreadSearchParams, ThreadSummary, ThreadUpdateParams, ThreadView, ViewCounts,
};
use pizza_store as store;
use pizza_store::ForkAt;
use std::collections::HashMap;
use std::sync::Arc;

mod convert;
mod delegations;
mod export;
mod history;
mod import;

pub(crate) use convert::{message_view, summary};

/// Page size when the UI does not say.
const DEFAULT_PAGE: u32 = 50;
/// The store's title limit.
const FORK_TITLE_MAX: usize = 200;

fn store_err(err: store::Error) -> ApiError {
    HostError::from(err).into()
}

/// Threads and folders over the store, with each thread's live run (from
/// the run registry) and last outcome, and the `threads_changed` notice.
#[derive(Debug)]
pub(crate) struct ThreadService {
    store: store::Store,
    events: AppEvents,
    registry: Arc<RunRegistry>,
    /// Files chosen in the save dialog, each good for one export.
    export_targets: export::ExportTargets,
}

impl ThreadService {
    pub(crate) fn new(store: store::Store, events: AppEvents, registry: Arc<RunRegistry>) -> Self {
        Self {
            store,
            events,
            registry,
            export_targets: export::ExportTargets::default(),
        }
    }

    pub(crate) async fn thread_create(
        &self,
        params: ThreadCreateParams,
    ) -> Result<ThreadSummary, ApiError> {
        let thread = self
            .store
            .create_thread(store::NewThread {
                title: params.title,
                folder_id: params.folder_id,
                ..store::NewThread::default()
            })
            .await
            .map_err(store_err)?;
        self.threads_changed(Some(&thread.id));
        Ok(summary(thread))
    }

    pub(crate) async fn thread_list(
        &self,
        params: ThreadListParams,
    ) -> Result<ThreadListResponse, ApiError> {
        let folder = match params.folder_id {
            Some(id) => store::FolderFilter::Folder(id),
            None => store::FolderFilter::Any,
        };
        let view = match params.view {
            ThreadView::All => store::ThreadView::All,
            ThreadView::Unread => store::ThreadView::Unread,
            ThreadView::Action => store::ThreadView::Action,
        };
        let query = store::ThreadQuery {
            view,
            folder: folder.clone(),
            cursor: params.cursor,
            limit: params.limit.unwrap_or(DEFAULT_PAGE),
        };
        let (page, counts) = tokio::try_join!(
            self.store.list_threads(&query),
            self.store.thread_counts(&folder)
        )
        .map_err(store_err)?;
        let ids: Vec<String> = page.threads.iter().map(|t| t.id.clone()).collect();
        // One query for the whole page's outcomes, never one per thread.
        let mut last_runs = self.store.last_ended_runs(&ids).await.map_err(store_err)?;
        Ok(ThreadListResponse {
            threads: page
                .threads
                .into_iter()
                .map(|thread| {
                    let last_run = last_runs.remove(&thread.id);
                    self.with_runs(summary(thread), last_run)
                })
                .collect(),
            next_cursor: page.next_cursor,
            counts: ViewCounts {
                all: counts.all,
                unread: counts.unread,
                action: counts.action,
            },
        })
    }

    pub(crate) async fn thread_get(
        &self,
        params: ThreadGetParams,
    ) -> Result<ThreadDetail, ApiError> {
        let store = &self.store;
        let thread = store.thread(&params.thread_id).await.map_err(store_err)?;
        let limit = params.limit.unwrap_or(DEFAULT_PAGE);
        let ids = [thread.id.clone()];
        let (page, head, queued, mut last_runs, resumable) = tokio::try_join!(
            store.messages_before(&thread.id, params.before_seq, limit),
            // Only the newest checkpoint: its interrupt is the pending one.
            store.history(&thread.id, None, 1),
            store.queued_messages(&thread.id),
            store.last_ended_runs(&ids),
            store.thread_resumable(&thread.id)
        )
        .map_err(store_err)?;
        let last_run = last_runs.remove(&thread.id);
        let delegations = delegations::delegations(store, &thread.id, &page.messages)
            .await
            .map_err(store_err)?;
        Ok(ThreadDetail {
            thread: self.with_runs(summary(thread), last_run),
            messages: page.messages.iter().map(message_view).collect(),
            has_more_before: page.has_more,
            // An interrupt the agent wrote always parses; a damaged one shows none.
            pending_interrupt: head
                .first()
                .and_then(|c| c.interrupt.clone())
                .and_then(|value| serde_json::from_value(value).ok()),
            context: head
                .first()
                .and_then(|c| pizza_agent::stored_context(Some(&c.metadata))),
            queued: queued.into_iter().map(Into::into).collect(),
            resumable,
            delegations,
        })
    }

    pub(crate) async fn thread_update(
        &self,
        params: ThreadUpdateParams,
    ) -> Result<ThreadSummary, ApiError> {
        let update = store::ThreadUpdate {
            title: params.title,
            pinned: params.pinned,
            unread: params.unread,
            folder_id: params.folder.map(|f| f.folder_id),
            ..store::ThreadUpdate::default()
        };
        let thread = self
            .store
            .update_thread(&params.thread_id, update)
            .await
            .map_err(store_err)?;
        self.threads_changed(Some(&thread.id));
        Ok(summary(thread))
    }

    pub(crate) async fn thread_delete(&self, params: ThreadIdParams) -> Result<(), ApiError> {
        self.store
            .delete_thread(&params.thread_id)
            .await
            .map_err(store_err)?;
        self.threads_changed(Some(&params.thread_id));
        Ok(())
    }

    pub(crate) async fn thread_fork(
        &self,
        params: ThreadForkParams,
    ) -> Result<ThreadSummary, ApiError> {
        self.fork_at(&params.thread_id, ForkAt::Message(&params.message_id))
            .await
    }

    /// Forks a thread, the fork titled after its parent.
    pub(super) async fn fork_at(
        &self,
        thread_id: &str,
        at: ForkAt<'_>,
    ) -> Result<ThreadSummary, ApiError> {
        let parent = self.store.thread(thread_id).await.map_err(store_err)?;
        let title = fork_title(&parent.title);
        let thread = self
            .store
            .fork(thread_id, at, Some(&title))
            .await
            .map_err(store_err)?;
        self.threads_changed(Some(&thread.id));
        Ok(summary(thread))
    }

    pub(crate) async fn thread_search(
        &self,
        params: ThreadSearchParams,
    ) -> Result<Vec<SearchHit>, ApiError> {
        let hits = self
            .store
            .search(&params.q, params.limit.unwrap_or(DEFAULT_PAGE))
            .await
            .map_err(store_err)?;
        // Titles for the hits' threads, each read once.
        let mut titles: HashMap<String, String> = HashMap::new();
        for hit in &hits {
            if !titles.contains_key(&hit.thread_id) {
                let thread = self.store.thread(&hit.thread_id).await.map_err(store_err)?;
                titles.insert(thread.id, thread.title);
            }
        }
        Ok(hits
            .into_iter()
            .map(|hit| SearchHit {
                thread_title: titles.get(&hit.thread_id).cloned().unwrap_or_default(),
                snippet: snippet_parts(&hit.snippet),
                role: hit.role,
                thread_id: hit.thread_id,
                message_id: hit.message_id,
                seq: hit.seq,
            })
            .collect())
    }

    pub(crate) async fn folder_create(
        &self,
        params: FolderCreateParams,
    ) -> Result<Folder, ApiError> {
        let folder = self
            .store
            .create_folder(&params.name)
            .await
            .map_err(store_err)?;
        self.threads_changed(None);
        Ok(convert::folder(folder))
    }

    pub(crate) async fn folder_list(
        &self,
        _params: FolderListParams,
    ) -> Result<Vec<Folder>, ApiError> {
        let folders = self.store.list_folders().await.map_err(store_err)?;
        Ok(folders.into_iter().map(convert::folder).collect())
    }

    pub(crate) async fn folder_update(
        &self,
        params: FolderUpdateParams,
    ) -> Result<Folder, ApiError> {
        let update = store::FolderUpdate {
            name: params.name,
            sort_order: params.sort_order,
        };
        let folder = self
            .store
            .update_folder(&params.folder_id, update)
            .await
            .map_err(store_err)?;
        self.threads_changed(None);
        Ok(convert::folder(folder))
    }

    pub(crate) async fn folder_delete(&self, params: FolderDeleteParams) -> Result<(), ApiError> {
        self.store
            .delete_folder(&params.folder_id)
            .await
            .map_err(store_err)?;
        self.threads_changed(None);
        Ok(())
    }

    /// The summary with the thread's live run (from the registry, so a run
    /// a schedule started shows too) and its last outcome.
    fn with_runs(&self, mut summary: ThreadSummary, last_run: Option<store::Run>) -> ThreadSummary {
        summary.live_run_id = self.registry.live_run(&summary.id);
        summary.last_run = last_run.map(run_brief);
        summary
    }

    pub(crate) fn threads_changed(&self, thread_id: Option<&str>) {
        self.events.emit(AppEvent::ThreadsChanged {
            thread_id: thread_id.map(str::to_owned),
        });
    }
}

/// The thread and folder commands: thin calls of the service.
impl Host {
    pub async fn thread_create(
        &self,
        params: ThreadCreateParams,
    ) -> Result<ThreadSummary, ApiError> {
        self.inner.threads.thread_create(params).await
    }

    pub async fn thread_list(
        &self,
        params: ThreadListParams,
    ) -> Result<ThreadListResponse, ApiError> {
        self.inner.threads.thread_list(params).await
    }

    pub async fn thread_get(&self, params: ThreadGetParams) -> Result<ThreadDetail, ApiError> {
        self.inner.threads.thread_get(params).await
    }

    pub async fn thread_update(
        &self,
        params: ThreadUpdateParams,
    ) -> Result<ThreadSummary, ApiError> {
        self.inner.threads.thread_update(params).await
    }

    /// Stops the thread's live run and waits for its end first; no run
    /// starts on the thread while it is deleted.
    pub async fn thread_delete(&self, params: ThreadIdParams) -> Result<(), ApiError> {
        let _held = self.runs().hold_stopping(&params.thread_id).await?;
        self.inner.threads.thread_delete(params).await
    }

    /// `CONFLICT` while the thread has a live run; none starts while it forks.
    pub async fn thread_fork(&self, params: ThreadForkParams) -> Result<ThreadSummary, ApiError> {
        let _held = self.runs().hold_idle(&params.thread_id)?;
        self.inner.threads.thread_fork(params).await
    }

    pub async fn thread_search(
        &self,
        params: ThreadSearchParams,
    ) -> Result<Vec<SearchHit>, ApiError> {
        self.inner.threads.thread_search(params).await
    }

    pub async fn folder_create(&self, params: FolderCreateParams) -> Result<Folder, ApiError> {
        self.inner.threads.folder_create(params).await
    }

    pub async fn folder_update(&self, params: FolderUpdateParams) -> Result<Folder, ApiError> {
        self.inner.threads.folder_update(params).await
    }

    pub async fn folder_delete(&self, params: FolderDeleteParams) -> Result<(), ApiError> {
        self.inner.threads.folder_delete(params).await
    }

    pub async fn folder_list(&self, params: FolderListParams) -> Result<Vec<Folder>, ApiError> {
        self.inner.threads.folder_list(params).await
    }

    pub async fn thread_export(
        &self,
        params: pizza_protocol::ThreadExportParams,
    ) -> Result<pizza_protocol::ThreadExportResponse, ApiError> {
        self.inner.threads.thread_export(params).await
    }
}

/// A fork's title: two rows with one title would be indistinguishable in
/// the sidebar.
fn fork_title(parent: &str) -> String {
    format!("{parent} (fork)")
        .chars()
        .take(FORK_TITLE_MAX)
        .collect()
}

/// A run as lists show it. The store keeps the error code as the protocol
/// spells it; a code that is not a protocol code (the store's own
/// `INTERRUPTED_BY_RESTART`) shows as none.
fn run_brief(run: store::Run) -> RunBrief {
    RunBrief {
        error_code: run
            .error
            .and_then(|e| serde_json::from_value(serde_json::Value::String(e.code)).ok()),
        status: run.status.into(),
        run_id: run.id,
    }
}

/// Splits the store's marked snippet into plain and highlighted runs, so the
/// UI never renders message text as HTML.
fn snippet_parts(snippet: &str) -> Vec<SnippetPart> {
    let mut parts = Vec::new();
    let mut hit = false;
    let mut text = String::new();
    for c in snippet.chars() {
        let toggle = match c {
            store::MARK_START => Some(true),
            store::MARK_END => Some(false),
            _ => None,
        };
        match toggle {
            Some(next) => {
                if !text.is_empty() {
                    parts.push(SnippetPart {
                        text: std::mem::take(&mut text),
                        hit,
                    });
                }
                hit = next;
            }
            None => text.push(c),
        }
    }
    if !text.is_empty() {
        parts.push(SnippetPart { text, hit });
    }
    parts
}

#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod tests_answers;
