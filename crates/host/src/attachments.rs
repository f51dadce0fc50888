//! Attachments: `attachment_add`, `attachment_pick`, `attachment_remove` and
//! `attachment_open`, and the check a message's attachments pass before a
//! run starts.
//!
//! Everything a person can get wrong is refused here with a sentence for
//! the file's chip, before a byte is stored: an unknown type, an empty or
//! over-cap file, a file that vanished, a folder, a name with path
//! separators or control characters, a file larger than the model's
//! provider takes. The store writes the bytes once (identical bytes in a
//! thread once) and the message carries only a reference.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use pizza_llm::AttachmentSupport;
use pizza_protocol::{
    ATTACHMENT_MAX_BYTES, ATTACHMENTS_PER_MESSAGE_MAX, ApiError, AttachmentAddParams,
    AttachmentIdParams, AttachmentKind, AttachmentPickParams, AttachmentPickResponse,
    AttachmentRefusal, AttachmentSource, AttachmentView, attachment_media_type,
    check_attachment_name, format_size, unsupported_type_message,
};
use pizza_store::{Attachment, AttachmentRef, NewAttachment, Store};

use crate::desktop::DesktopService;
use crate::providers::ProviderService;
use crate::{Host, HostError};

/// Unsent uploads older than this are swept at start-up.
const UNSENT_KEPT_MS: i64 = 24 * 60 * 60 * 1000;

#[derive(Debug)]
pub(crate) struct AttachmentService {
    store: Store,
    providers: Arc<ProviderService>,
    desktop: Arc<DesktopService>,
}

/// A file's bytes with the name and type it is stored under.
struct Upload {
    name: String,
    mime: &'static str,
    kind: AttachmentKind,
    bytes: Vec<u8>,
}

impl AttachmentService {
    pub(crate) fn new(
        store: Store,
        providers: Arc<ProviderService>,
        desktop: Arc<DesktopService>,
    ) -> Self {
        Self {
            store,
            providers,
            desktop,
        }
    }

    /// Drops uploads that were never sent and files nothing refers to, on
    /// its own task: the start never waits for it.
    pub(crate) fn sweep_in_background(&self) {
        let store = self.store.clone();
        tokio::spawn(async move {
            let cutoff = now_ms() - UNSENT_KEPT_MS;
            match store.sweep_attachments(cutoff).await {
                Ok(0) => {}
                Ok(removed) => tracing::info!(removed, "swept unsent attachments"),
                Err(error) => tracing::warn!(%error, "could not sweep attachments"),
            }
        });
    }

    pub(crate) async fn add(
        &self,
        params: AttachmentAddParams,
    ) -> Result<AttachmentView, ApiError> {
        let upload = match params.source {
            AttachmentSource::Path { path } => read_path(Path::new(&path)).await?,
            AttachmentSource::Bytes { name, data, mime } => {
                from_bytes(name, &data, mime.as_deref())?
            }
        };
        if let Some(support) = self.support_for(params.thread_id.as_deref()).await {
            check_provider_cap(
                &upload.name,
                upload.kind,
                upload.bytes.len() as u64,
                &support,
            )?;
        }
        let stored = self
            .store
            .add_attachment(NewAttachment {
                thread_id: params.thread_id.as_deref(),
                name: &upload.name,
                mime: upload.mime,
                bytes: &upload.bytes,
            })
            .await
            .map_err(HostError::from)?;
        Ok(stored.view())
    }

    pub(crate) async fn pick(
        &self,
        params: AttachmentPickParams,
    ) -> Result<AttachmentPickResponse, ApiError> {
        let paths = self.desktop.choose_files("Attach files".to_owned()).await?;
        let mut answer = AttachmentPickResponse::default();
        for path in paths {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string());
            let added = self
                .add(AttachmentAddParams {
                    thread_id: params.thread_id.clone(),
                    source: AttachmentSource::Path {
                        path: path.display().to_string(),
                    },
                })
                .await;
            match added {
                Ok(view) => answer.added.push(view),
                Err(error) => answer.refused.push(AttachmentRefusal {
                    name,
                    message: error.message,
                }),
            }
        }
        Ok(answer)
    }

    /// Removing a chip deletes an upload not sent yet; a sent attachment
    /// stays (its messages use it), and an unknown one is already gone.
    pub(crate) async fn remove(&self, params: AttachmentIdParams) -> Result<(), ApiError> {
        match self.store.remove_unsent_attachment(&params.id).await {
            Ok(_) | Err(pizza_store::Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(HostError::from(error).into()),
        }
    }

    /// Opens a copy named like the original (so the system picks the right
    /// app) in the temporary folder; the stored file is never handed out.
    pub(crate) async fn open(&self, params: AttachmentIdParams) -> Result<(), ApiError> {
        let row = self
            .store
            .attachment(&params.id)
            .await
            .map_err(HostError::from)?;
        let source = self
            .store
            .attachment_path(&row.id)
            .ok_or_else(|| ApiError::invalid_input("That is not an attachment."))?;
        let folder = std::env::temp_dir().join("pizza-bot-open").join(&row.id);
        let copy = folder.join(&row.name);
        let copied = async {
            tokio::fs::create_dir_all(&folder).await?;
            tokio::fs::copy(&source, &copy).await
        }
        .await;
        if let Err(error) = copied {
            return Err(ApiError::general(format!(
                "“{}” could not be prepared for opening; its file may be gone.",
                row.name
            ))
            .with_details(error.to_string()));
        }
        self.desktop.open_file(copy).await
    }

    /// What the model a message on `thread_id` would use can take: the
    /// thread's model, else the default. `None` when none resolves (the
    /// send says why).
    async fn support_for(&self, thread_id: Option<&str>) -> Option<AttachmentSupport> {
        let thread_model = match thread_id {
            Some(id) => self.store.thread(id).await.ok().and_then(|t| t.model),
            None => None,
        };
        let key = match thread_model {
            Some(key) => key,
            None => self.providers.default_model().await.ok().flatten()?,
        };
        let catalog = self.providers.model_catalog().await;
        catalog.attachment_support(&key).ok()
    }
}

/// The attachments of a message about to be sent to a model that takes
/// `support`, as references for the transcript: known ids, at most
/// [`ATTACHMENTS_PER_MESSAGE_MAX`], each within the provider's caps.
pub(crate) async fn message_attachments(
    store: &Store,
    ids: &[String],
    support: &AttachmentSupport,
) -> Result<Vec<AttachmentRef>, ApiError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    check_count(ids.len())?;
    let rows: Vec<Attachment> = store.attachments_by_id(ids).await.map_err(|e| match e {
        pizza_store::Error::NotFound { .. } => ApiError::invalid_input(
            "An attachment of this message is gone; remove its chip and attach the file again.",
        ),
        other => HostError::from(other).into(),
    })?;
    let mut refs = Vec::with_capacity(rows.len());
    for row in rows {
        let kind = pizza_protocol::attachment_kind(&row.mime);
        check_provider_cap(&row.name, kind, row.size, support)?;
        refs.push(row.reference());
    }
    Ok(refs)
}

/// At most [`ATTACHMENTS_PER_MESSAGE_MAX`] attachments go with a message.
pub(crate) fn check_count(count: usize) -> Result<(), ApiError> {
    if count > ATTACHMENTS_PER_MESSAGE_MAX {
        return Err(ApiError::invalid_input(format!(
            "A message can carry up to {ATTACHMENTS_PER_MESSAGE_MAX} attachments; this one has \
             {count}. Send some in a second message."
        )));
    }
    Ok(())
}

/// Refuses a file the model's provider would not take: over its image or
/// document cap. (A model without vision still gets a notice in its
/// place, so the person can switch models without attaching again.)
fn check_provider_cap(
    name: &str,
    kind: AttachmentKind,
    size: u64,
    support: &AttachmentSupport,
) -> Result<(), ApiError> {
    let limits = &support.limits;
    let (cap, what) = match kind {
        AttachmentKind::Image => (limits.image_max_bytes, "images"),
        AttachmentKind::Document if limits.documents => (limits.document_max_bytes, "documents"),
        AttachmentKind::Document | AttachmentKind::Text => return Ok(()),
    };
    if size > cap {
        return Err(ApiError::invalid_input(format!(
            "“{name}” is {}; {} takes {what} up to {}. Attach a smaller file or choose another \
             model.",
            format_size(size),
            limits.provider,
            format_size(cap)
        )));
    }
    Ok(())
}

/// Reads a picked or dropped file, refusing what cannot be attached.
async fn read_path(path: &Path) -> Result<Upload, ApiError> {
    let shown = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| {
            ApiError::invalid_input(format!(
                "“{shown}” has a name that is not valid text; rename it first."
            ))
        })?
        .to_owned();
    let metadata = tokio::fs::metadata(path)
        .await
        .map_err(|_| vanished(&name))?;
    if metadata.is_dir() {
        return Err(ApiError::invalid_input(format!(
            "“{name}” is a folder; attach the files inside it instead."
        )));
    }
    if !metadata.is_file() {
        return Err(ApiError::invalid_input(format!(
            "“{name}” is not a regular file."
        )));
    }
    let (mime, kind) = checked_type(&name, None)?;
    check_size(&name, metadata.len())?;
    let bytes = tokio::fs::read(path).await.map_err(|_| vanished(&name))?;
    // It may have changed between the look and the read.
    check_size(&name, bytes.len() as u64)?;
    Ok(Upload {
        name,
        mime,
        kind,
        bytes,
    })
}

/// Pasted bytes, refusing what cannot be attached.
fn from_bytes(name: String, data: &str, declared: Option<&str>) -> Result<Upload, ApiError> {
    let (mime, kind) = checked_type(&name, declared)?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| {
            ApiError::invalid_input(format!("“{name}” arrived damaged; paste it again."))
                .with_details(e.to_string())
        })?;
    check_size(&name, bytes.len() as u64)?;
    Ok(Upload {
        name,
        mime,
        kind,
        bytes,
    })
}

fn checked_type(
    name: &str,
    declared: Option<&str>,
) -> Result<(&'static str, AttachmentKind), ApiError> {
    check_attachment_name(name).map_err(ApiError::invalid_input)?;
    attachment_media_type(name, declared)
        .ok_or_else(|| ApiError::invalid_input(unsupported_type_message(name)))
}

fn check_size(name: &str, size: u64) -> Result<(), ApiError> {
    if size == 0 {
        return Err(ApiError::invalid_input(format!(
            "“{name}” is empty; there is nothing to attach."
        )));
    }
    if size > ATTACHMENT_MAX_BYTES {
        return Err(ApiError::invalid_input(format!(
            "“{name}” is {}; attachments can be up to {}.",
            format_size(size),
            format_size(ATTACHMENT_MAX_BYTES)
        )));
    }
    Ok(())
}

fn vanished(name: &str) -> ApiError {
    ApiError::invalid_input(format!(
        "“{name}” is no longer there; it may have been moved or deleted."
    ))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The attachment commands.
impl Host {
    pub async fn attachment_add(
        &self,
        params: AttachmentAddParams,
    ) -> Result<AttachmentView, ApiError> {
        self.inner.attachments.add(params).await
    }

    pub async fn attachment_pick(
        &self,
        params: AttachmentPickParams,
    ) -> Result<AttachmentPickResponse, ApiError> {
        self.inner.attachments.pick(params).await
    }

    pub async fn attachment_remove(&self, params: AttachmentIdParams) -> Result<(), ApiError> {
        self.inner.attachments.remove(params).await
    }

    pub async fn attachment_open(&self, params: AttachmentIdParams) -> Result<(), ApiError> {
        self.inner.attachments.open(params).await
    }

    /// The file of an attachment and its type, for the window's custom
    /// scheme; `None` for an unknown id.
    pub async fn attachment_file(&self, id: &str) -> Option<(PathBuf, String)> {
        if !pizza_protocol::is_attachment_id(id) {
            return None;
        }
        let row = self.inner.store.attachment(id).await.ok()?;
        let path = self.inner.store.attachment_path(&row.id)?;
        Some((path, row.mime))
    }
}

#[cfg(test)]
#[path = "attachments_tests.rs"]
mod tests;
