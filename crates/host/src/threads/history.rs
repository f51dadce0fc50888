//! The history and files panels: `thread_history`, `checkpoint_get`,
//! `checkpoint_fork`, `thread_file_list`, `thread_file_get` and
//! `thread_file_save`.
//!
//! A checkpoint's state is read-only here: viewing it never changes the
//! thread, and forking from it makes a new thread. "Save as…" writes where
//! the person chose in the native save dialog; the page names only the
//! state file, never where it goes.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use pizza_protocol::{
    ApiError, CheckpointForkParams, CheckpointGetParams, CheckpointSource, CheckpointState,
    CheckpointView, FILE_PREVIEW_MAX_BYTES, FilePreview, ThreadFileContent, ThreadFileListParams,
    ThreadFileParams, ThreadFileSaved, ThreadFileView, ThreadIdParams, ThreadSummary,
    attachment_media_type,
};
use pizza_store as store;
use pizza_store::ForkAt;

use super::export::export_path;
use super::{DEFAULT_PAGE, ThreadService, message_view, store_err};
use crate::Host;
use crate::desktop::SaveDialog;

/// The longest file name the save dialog suggests.
const SUGGESTED_NAME_MAX_CHARS: usize = 120;

impl ThreadService {
    pub(crate) async fn thread_history(
        &self,
        params: ThreadIdParams,
    ) -> Result<Vec<CheckpointView>, ApiError> {
        let entries = self
            .store
            .history_entries(&params.thread_id, None, store::HISTORY_PAGE_MAX)
            .await
            .map_err(store_err)?;
        Ok(entries.into_iter().map(checkpoint_view).collect())
    }

    pub(crate) async fn checkpoint_get(
        &self,
        params: CheckpointGetParams,
    ) -> Result<CheckpointState, ApiError> {
        let store = &self.store;
        let checkpoint = store
            .checkpoint(&params.thread_id, &params.checkpoint_id)
            .await
            .map_err(store_err)?;
        // Nothing newer than the checkpoint, however the page was asked for.
        let end = checkpoint.message_seq + 1;
        let before = params.before_seq.map_or(end, |seq| seq.min(end));
        let limit = params.limit.unwrap_or(DEFAULT_PAGE);
        let (entry, page, files) = tokio::try_join!(
            store.history_entries(&params.thread_id, Some(checkpoint.step + 1), 1),
            store.messages_before(&params.thread_id, Some(before), limit),
            store.state_files(&params.thread_id, Some(&checkpoint.id)),
        )
        .map_err(store_err)?;
        let checkpoint = entry
            .into_iter()
            .next()
            .filter(|e| e.checkpoint.id == checkpoint.id)
            .map(checkpoint_view)
            .ok_or_else(|| ApiError::not_found("That checkpoint is no longer there."))?;
        Ok(CheckpointState {
            checkpoint,
            messages: page.messages.iter().map(message_view).collect(),
            has_more_before: page.has_more,
            files: files.into_iter().map(file_view).collect(),
        })
    }

    pub(crate) async fn checkpoint_fork(
        &self,
        params: CheckpointForkParams,
    ) -> Result<ThreadSummary, ApiError> {
        self.fork_at(&params.thread_id, ForkAt::Checkpoint(&params.checkpoint_id))
            .await
    }

    pub(crate) async fn thread_file_list(
        &self,
        params: ThreadFileListParams,
    ) -> Result<Vec<ThreadFileView>, ApiError> {
        let files = self
            .store
            .state_files(&params.thread_id, params.checkpoint_id.as_deref())
            .await
            .map_err(store_err)?;
        Ok(files.into_iter().map(file_view).collect())
    }

    pub(crate) async fn thread_file_get(
        &self,
        params: ThreadFileParams,
    ) -> Result<ThreadFileContent, ApiError> {
        let file = self.state_file(&params).await?;
        let view = file_view(store::StateFileInfo {
            path: params.path,
            size: file.content.len() as u64,
            modified_at: file.modified_at,
        });
        let preview = preview(&view, file.content);
        Ok(ThreadFileContent {
            file: view,
            preview,
        })
    }

    async fn state_file(&self, params: &ThreadFileParams) -> Result<store::StateFile, ApiError> {
        self.store
            .state_file(
                &params.thread_id,
                &params.path,
                params.checkpoint_id.as_deref(),
            )
            .await
            .map_err(store_err)
    }
}

/// The history commands: thin calls of the service, and "Save as…", which
/// needs the desktop shell's dialog.
impl Host {
    pub async fn thread_history(
        &self,
        params: ThreadIdParams,
    ) -> Result<Vec<CheckpointView>, ApiError> {
        self.inner.threads.thread_history(params).await
    }

    pub async fn checkpoint_get(
        &self,
        params: CheckpointGetParams,
    ) -> Result<CheckpointState, ApiError> {
        self.inner.threads.checkpoint_get(params).await
    }

    /// A checkpoint never changes, so a live run on the thread does not
    /// stand in the way.
    pub async fn checkpoint_fork(
        &self,
        params: CheckpointForkParams,
    ) -> Result<ThreadSummary, ApiError> {
        self.inner.threads.checkpoint_fork(params).await
    }

    pub async fn thread_file_list(
        &self,
        params: ThreadFileListParams,
    ) -> Result<Vec<ThreadFileView>, ApiError> {
        self.inner.threads.thread_file_list(params).await
    }

    pub async fn thread_file_get(
        &self,
        params: ThreadFileParams,
    ) -> Result<ThreadFileContent, ApiError> {
        self.inner.threads.thread_file_get(params).await
    }

    /// Shows the native save dialog for a state file and writes it there
    /// (`None`: the person cancelled). An image kept as base64 is saved as
    /// the image itself.
    pub async fn thread_file_save(
        &self,
        params: ThreadFileParams,
    ) -> Result<Option<ThreadFileSaved>, ApiError> {
        let threads = &self.inner.threads;
        let file = threads.state_file(&params).await?;
        let name = suggested_name(&params.path);
        let mime = file_mime(&params.path);
        let (filter_name, extension) = match name.rsplit_once('.') {
            Some((_, ext)) if !ext.is_empty() => (format!("{} files", ext.to_uppercase()), ext),
            _ => ("All files".to_owned(), "*"),
        };
        let dialog = SaveDialog {
            title: "Save file".to_owned(),
            suggested_name: name.clone(),
            filter_name,
            extension: extension.to_owned(),
        };
        let Some(chosen) = self.inner.desktop.choose_save_file(dialog).await? else {
            return Ok(None);
        };
        let path = export_path(&chosen.display().to_string())?;
        let bytes = image_bytes(mime, &file.content).unwrap_or_else(|| file.content.into_bytes());
        let size = bytes.len() as u64;
        let target = path.clone();
        tokio::task::spawn_blocking(move || pizza_tools::write_atomic(&target, &bytes))
            .await
            .map_err(|e| ApiError::general("Saving was interrupted.").with_details(e.to_string()))?
            .map_err(|e| ApiError::general(format!("Could not write {}: {e}.", path.display())))?;
        Ok(Some(ThreadFileSaved {
            path: path.display().to_string(),
            bytes: size,
        }))
    }
}

pub(super) fn checkpoint_view(entry: store::CheckpointEntry) -> CheckpointView {
    let c = entry.checkpoint;
    let source = match c.metadata.get("source").and_then(|s| s.as_str()) {
        Some("fork") => CheckpointSource::Fork,
        Some("update") => CheckpointSource::Edit,
        _ => CheckpointSource::Run,
    };
    CheckpointView {
        id: c.id,
        parent_id: c.parent_id,
        step: c.step,
        message_seq: c.message_seq,
        files_version: c.files_version,
        has_interrupt: c.interrupt.is_some(),
        created_at: c.created_at,
        source,
        messages_added: u64::try_from(entry.messages_added).unwrap_or(0),
        files_changed: entry.files_changed,
        preview: entry.preview,
    }
}

fn file_view(file: store::StateFileInfo) -> ThreadFileView {
    ThreadFileView {
        mime: file_mime(&file.path).to_owned(),
        path: file.path,
        size: file.size,
        modified_at: file.modified_at,
    }
}

/// The type a state file's name suggests. State files are text, so a name
/// with no known type is plain text.
fn file_mime(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name.to_ascii_lowercase().ends_with(".svg") {
        return "image/svg+xml";
    }
    attachment_media_type(name, None).map_or("text/plain", |(mime, _)| mime)
}

/// What the panel can show of a file: its text, an image it can draw
/// without help (an SVG, or a raster image the agent wrote as base64), or
/// only its size and type.
fn preview(file: &ThreadFileView, content: String) -> FilePreview {
    if file.size > FILE_PREVIEW_MAX_BYTES {
        return FilePreview::None;
    }
    match file.mime.as_str() {
        "image/svg+xml" => FilePreview::Image {
            src: format!("data:image/svg+xml;base64,{}", BASE64.encode(content)),
        },
        mime if mime.starts_with("image/") => match image_bytes(mime, &content) {
            Some(bytes) => FilePreview::Image {
                src: format!("data:{mime};base64,{}", BASE64.encode(bytes)),
            },
            None => FilePreview::None,
        },
        "application/pdf" => FilePreview::None,
        _ => FilePreview::Text { text: content },
    }
}

/// The bytes of a raster image kept as base64 (bare or as a `data:` URL);
/// `None` for anything else.
fn image_bytes(mime: &str, content: &str) -> Option<Vec<u8>> {
    if !mime.starts_with("image/") || mime == "image/svg+xml" {
        return None;
    }
    let content = content.trim();
    let encoded = match content.strip_prefix("data:") {
        Some(url) => url.split_once(";base64,")?.1,
        None => content,
    };
    let compact: String = encoded.split_whitespace().collect();
    BASE64
        .decode(compact)
        .ok()
        .filter(|bytes| !bytes.is_empty())
}

/// The file's own name, safe to suggest in a save dialog.
fn suggested_name(path: &str) -> String {
    let name: String = path
        .rsplit('/')
        .find(|part| !part.trim().is_empty())
        .unwrap_or("file")
        .chars()
        .map(|c| if matches!(c, '\\' | '\0') { '_' } else { c })
        .take(SUGGESTED_NAME_MAX_CHARS)
        .collect();
    if name.trim_matches('.').is_empty() {
        "file".to_owned()
    } else {
        name
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
