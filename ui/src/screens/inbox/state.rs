//! The inbox's state: the current view, the thread list, folders and the
//! selected thread. Lives in context, outside components.

use super::queues::Queues;
use crate::components::attachments::{AttachmentDrafts, Tray};
use crate::ipc::invoke;
use crate::latest::Latest;
use leptos::prelude::*;
use pizza_protocol::{
    ApiError, AttachmentView, ContextUse, Folder, FolderId, FolderListParams, ThreadId,
    ThreadListParams, ThreadSummary, ThreadView, ViewCounts, cmd,
};

/// A question the user must answer before something destructive happens.
#[derive(Clone)]
pub(crate) struct ConfirmRequest {
    pub(crate) title: String,
    pub(crate) body: String,
    pub(crate) confirm_label: &'static str,
    pub(crate) on_confirm: std::rc::Rc<dyn Fn()>,
}

#[derive(Clone, Copy)]
pub(crate) struct Inbox {
    pub(crate) view: RwSignal<ThreadView>,
    pub(crate) folder: RwSignal<Option<FolderId>>,
    pub(crate) threads: RwSignal<Vec<ThreadSummary>>,
    pub(crate) next_cursor: RwSignal<Option<String>>,
    pub(crate) counts: RwSignal<ViewCounts>,
    pub(crate) folders: RwSignal<Vec<Folder>>,
    pub(crate) selected: RwSignal<Option<ThreadId>>,
    /// A message to scroll to and flash once the thread is open (a search hit).
    pub(crate) focus_seq: RwSignal<Option<i64>>,
    /// `Some` while the sidebar shows search.
    pub(crate) search: RwSignal<Option<String>>,
    /// Bumped whenever the host says threads changed.
    pub(crate) revision: RwSignal<u64>,
    pub(crate) error: RwSignal<Option<ApiError>>,
    pub(crate) confirm: RwSignal<Option<ConfirmRequestHandle>>,
    /// The owner the inbox was made under: a question outlives whatever
    /// asked it (a menu that closes as its item is chosen).
    owner: StoredValue<Owner, LocalStorage>,
    /// Asks the sidebar's search box to take focus.
    pub(crate) focus_search: RwSignal<u64>,
    /// A thread whose title is being edited in the sidebar.
    pub(crate) renaming: RwSignal<Option<ThreadId>>,
    /// Threads with a live run (the sidebar's running dot), whoever started
    /// it: each list page says which of its threads have one, and run events
    /// keep that current in between.
    pub(crate) running: RwSignal<std::collections::HashSet<ThreadId>>,
    /// The messages the host holds for each thread's next runs.
    pub(crate) queues: RwSignal<Queues>,
    /// The open thread's context use: stored with the thread, then each
    /// live model call's.
    pub(crate) context: RwSignal<Option<ContextUse>>,
    /// Each composer's files for its next message; kept per thread like
    /// drafts, and outside the composer so an upload can land after it closed.
    pub(crate) attachments: RwSignal<AttachmentDrafts>,
    /// A sent image shown full size.
    pub(crate) viewing: RwSignal<Option<AttachmentView>>,
    /// The thread list's pages and the folders asked for: an answer to an
    /// older question (before the filter changed) never replaces a newer one.
    list_asked: Latest,
    folders_asked: Latest,
}

/// `ConfirmRequest` holds an `Rc`, which signals can't; keep it in a local store.
pub(crate) type ConfirmRequestHandle = StoredValue<ConfirmRequest, LocalStorage>;

/// The list's first page of a view, as the inbox asks for it.
fn first_page(view: ThreadView, folder_id: Option<FolderId>) -> ThreadListParams {
    ThreadListParams {
        view,
        folder_id,
        cursor: None,
        limit: None,
    }
}

/// Asks for what a new window's inbox lists first (all threads, as
/// [`Inbox::new`] starts) before the page mounts: its first read takes
/// that answer (ipc/ahead.rs).
pub(crate) fn send_first_page_ahead() {
    crate::ipc::send_ahead::<cmd::ThreadList>(&first_page(ThreadView::All, None));
}

impl Inbox {
    pub(crate) fn new() -> Self {
        Self {
            view: RwSignal::new(ThreadView::All),
            folder: RwSignal::new(None),
            threads: RwSignal::new(Vec::new()),
            next_cursor: RwSignal::new(None),
            counts: RwSignal::new(ViewCounts::default()),
            folders: RwSignal::new(Vec::new()),
            selected: RwSignal::new(None),
            focus_seq: RwSignal::new(None),
            search: RwSignal::new(None),
            revision: RwSignal::new(0),
            error: RwSignal::new(None),
            confirm: RwSignal::new(None),
            owner: StoredValue::new_local(Owner::current().unwrap_or_default()),
            focus_search: RwSignal::new(0),
            renaming: RwSignal::new(None),
            running: RwSignal::new(std::collections::HashSet::new()),
            queues: RwSignal::new(Queues::default()),
            context: RwSignal::new(None),
            attachments: RwSignal::new(AttachmentDrafts::default()),
            viewing: RwSignal::new(None),
            list_asked: Latest::new(),
            folders_asked: Latest::new(),
        }
    }

    /// Re-reads the first page of the current view and the folders whenever
    /// the view, the folder filter or the host's data changes.
    pub(crate) fn start_sync(self) {
        Effect::new(move |_| {
            let view = self.view.get();
            let folder_id = self.folder.get();
            self.revision.track();
            let ticket = self.list_asked.ask();
            leptos::task::spawn_local(async move {
                let answer = invoke::<cmd::ThreadList>(&first_page(view, folder_id)).await;
                if !ticket.is_newest() {
                    return;
                }
                match answer {
                    Ok(page) => {
                        self.note_live_runs(&page.threads);
                        self.threads.set(page.threads);
                        self.next_cursor.set(page.next_cursor);
                        self.counts.set(page.counts);
                        crate::place::inbox_painted();
                    }
                    Err(error) => self.error.set(Some(error)),
                }
                crate::snapshot::painted(crate::snapshot::Part::List);
            });
        });
        Effect::new(move |_| {
            self.revision.track();
            let ticket = self.folders_asked.ask();
            leptos::task::spawn_local(async move {
                let answer = invoke::<cmd::FolderList>(&FolderListParams {}).await;
                if !ticket.is_newest() {
                    return;
                }
                match answer {
                    Ok(folders) => {
                        // A deleted folder can't stay the filter.
                        if let Some(current) = self.folder.get_untracked()
                            && !folders.iter().any(|f| f.id == current)
                        {
                            self.folder.set(None);
                        }
                        self.folders.set(folders);
                    }
                    Err(error) => self.error.set(Some(error)),
                }
            });
        });
    }

    pub(crate) fn load_more(self) {
        let Some(cursor) = self.next_cursor.get_untracked() else {
            return;
        };
        let params = ThreadListParams {
            view: self.view.get_untracked(),
            folder_id: self.folder.get_untracked(),
            cursor: Some(cursor),
            limit: None,
        };
        // A list read again since makes this page's cursor meaningless.
        let ticket = self.list_asked.join();
        leptos::task::spawn_local(async move {
            let answer = invoke::<cmd::ThreadList>(&params).await;
            if !ticket.is_newest() {
                return;
            }
            match answer {
                Ok(page) => {
                    self.note_live_runs(&page.threads);
                    self.threads.update(|threads| threads.extend(page.threads));
                    self.next_cursor.set(page.next_cursor);
                }
                Err(error) => self.error.set(Some(error)),
            }
        });
    }

    /// Takes the live runs a list page reports as the truth for its threads:
    /// the host re-sends `threads_changed` when a run starts or ends, so the
    /// newest page is at least as new as the events before it.
    fn note_live_runs(self, threads: &[ThreadSummary]) {
        self.running.update(|running| {
            for thread in threads {
                if thread.live_run_id.is_some() {
                    running.insert(thread.id.clone());
                } else {
                    running.remove(&thread.id);
                }
            }
        });
    }

    pub(crate) fn open(self, id: ThreadId, focus_seq: Option<i64>) {
        self.focus_seq.set(focus_seq);
        self.selected.set(Some(id));
    }

    /// The files waiting for a thread's next message; problems with them
    /// show in the inbox's banner.
    pub(crate) fn tray(self, thread_id: ThreadId) -> Tray {
        Tray::new(self.attachments, Some(thread_id), self.error)
    }

    pub(crate) fn ask(self, request: ConfirmRequest) {
        let handle = self
            .owner
            .get_value()
            .with(|| StoredValue::new_local(request));
        self.confirm.set(Some(handle));
    }

    pub(crate) fn changed(self) {
        self.revision.update(|r| *r += 1);
    }

    pub(crate) fn report(self, error: ApiError) {
        self.error.set(Some(error));
    }

    pub(crate) fn thread(self, id: &str) -> Option<ThreadSummary> {
        self.threads
            .with_untracked(|threads| threads.iter().find(|t| t.id == id).cloned())
    }
}

pub(crate) fn use_inbox() -> Inbox {
    expect_context::<Inbox>()
}
