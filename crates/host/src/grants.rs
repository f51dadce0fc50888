//! `grant_list` / `grant_add` / `grant_update` / `grant_remove`: host folders
//! the agent may use under `/local/<id>/`, and the [`MountSource`] the tools
//! read on every filesystem operation, so a change applies to the next call.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pizza_protocol::{
    ApiError, ErrorCode, ErrorReason, GrantAccess, GrantAddParams, GrantList, GrantListParams,
    GrantRemoveParams, GrantUpdateParams, GrantView,
};
use pizza_store::Store;
use pizza_tools::{Access, Grant, GrantError, MountSource, Mounts, ToolError};

use crate::memory::ensure_memories_dir;
use crate::settings::keys;
use crate::{Host, HostError};

fn store_err(err: pizza_store::Error) -> ApiError {
    HostError::from(err).into()
}

fn grant_err(err: GrantError) -> ApiError {
    match err {
        GrantError::Invalid(message) => ApiError::invalid_input(message),
        GrantError::Conflict(message) => ApiError::new(ErrorCode::Conflict, message),
        GrantError::OverlapsDataRoot(message) => {
            ApiError::new(ErrorCode::Conflict, message).with_reason(ErrorReason::OverlapsDataRoot)
        }
    }
}

fn access(writable: bool) -> Access {
    if writable {
        Access::ReadWrite
    } else {
        Access::ReadOnly
    }
}

fn wire_access(access: GrantAccess) -> Access {
    match access {
        GrantAccess::ReadOnly => Access::ReadOnly,
        GrantAccess::ReadWrite => Access::ReadWrite,
    }
}

fn view(grant: pizza_store::Grant) -> GrantView {
    GrantView {
        access: if grant.writable {
            GrantAccess::ReadWrite
        } else {
            GrantAccess::ReadOnly
        },
        id: grant.id,
        path: grant.path,
        created_at: grant.created_at,
    }
}

fn tool_grant(grant: &pizza_store::Grant) -> Grant {
    Grant {
        id: grant.id.clone(),
        path: PathBuf::from(&grant.path),
        access: access(grant.writable),
    }
}

/// Canonicalizes the chosen folder off the async threads.
async fn canonical(path: &str) -> Result<PathBuf, ApiError> {
    let path = path.trim();
    if path.is_empty() {
        return Err(ApiError::invalid_input(
            "Choose a folder to grant; the path is empty.",
        ));
    }
    let path = PathBuf::from(path);
    tokio::task::spawn_blocking(move || pizza_tools::canonical_grant_path(&path))
        .await
        .map_err(|e| {
            ApiError::general("The folder could not be checked.").with_details(e.to_string())
        })?
        .map_err(grant_err)
}

/// The grants and memory folder as they are now, read from the store on
/// every call: cheap (one indexed read), and never stale.
#[derive(Debug, Clone)]
pub(crate) struct HostMounts {
    store: Store,
    memories: PathBuf,
}

impl HostMounts {
    pub(crate) fn new(store: Store, memories: PathBuf) -> Arc<Self> {
        Arc::new(Self { store, memories })
    }
}

#[async_trait::async_trait]
impl MountSource for HostMounts {
    async fn mounts(&self) -> pizza_tools::Result<Mounts> {
        let unreadable = |e: pizza_store::Error| {
            tracing::warn!(error = %e, "cannot read the grants");
            ToolError::failed("The granted folders could not be read right now; try again.")
        };
        let grants = self.store.list_grants().await.map_err(unreadable)?;
        let enabled = keys::MEMORIES_ENABLED
            .read_or_default(&self.store)
            .await
            .map_err(unreadable)?;
        let memories = if enabled {
            let dir = self.memories.clone();
            let created = tokio::task::spawn_blocking(move || ensure_memories_dir(&dir)).await;
            if !matches!(created, Ok(Ok(()))) {
                return Err(ToolError::failed(
                    "The memories folder could not be created; check that the data folder is writable.",
                ));
            }
            Some(self.memories.clone())
        } else {
            None
        };
        Ok(Mounts {
            grants: grants.iter().map(tool_grant).collect(),
            memories,
        })
    }
}

/// Folder grants: rows in the store's `grants` table, changed one at a
/// time so the overlap check and the write agree.
#[derive(Debug)]
pub(crate) struct GrantService {
    store: Store,
    /// Grants may not overlap it unless the user acknowledges that.
    data_root: PathBuf,
    /// Serialises grant changes so the overlap check and the write agree.
    changes: tokio::sync::Mutex<()>,
}

impl GrantService {
    pub(crate) fn new(store: Store, data_root: PathBuf) -> Self {
        Self {
            store,
            data_root,
            changes: tokio::sync::Mutex::new(()),
        }
    }

    pub(crate) async fn grant_list(&self, _params: GrantListParams) -> Result<GrantList, ApiError> {
        let grants = self.store.list_grants().await.map_err(store_err)?;
        Ok(GrantList {
            grants: grants.into_iter().map(view).collect(),
        })
    }

    pub(crate) async fn grant_add(&self, params: GrantAddParams) -> Result<GrantView, ApiError> {
        let path = canonical(&params.path).await?;
        let path_text = path
            .to_str()
            .ok_or_else(|| {
                ApiError::invalid_input(format!(
                    "{} is not a valid Unicode path; choose or rename the folder.",
                    path.display()
                ))
            })?
            .to_owned();
        // One grant change at a time: the overlap check and the insert agree.
        let _guard = self.changes.lock().await;
        let stored = self.store.list_grants().await.map_err(store_err)?;
        let existing: Vec<Grant> = stored.iter().map(tool_grant).collect();
        let id = match params.id.as_deref().map(str::trim) {
            Some(id) if !id.is_empty() => id.to_owned(),
            _ => {
                let taken: Vec<&str> = stored.iter().map(|g| g.id.as_str()).collect();
                pizza_tools::suggest_grant_id(&path, &taken)
            }
        };
        let candidate = Grant {
            id,
            path,
            access: wire_access(params.access.unwrap_or_default()),
        };
        self.check(&existing, &candidate, params.acknowledge_data_root)?;
        let grant = self
            .store
            .add_grant(
                &candidate.id,
                &path_text,
                candidate.access == Access::ReadWrite,
            )
            .await
            .map_err(store_err)?;
        tracing::info!(id = %grant.id, writable = grant.writable, "folder granted");
        Ok(view(grant))
    }

    pub(crate) async fn grant_update(
        &self,
        params: GrantUpdateParams,
    ) -> Result<GrantView, ApiError> {
        let _guard = self.changes.lock().await;
        let stored = self.store.list_grants().await.map_err(store_err)?;
        let current = stored
            .iter()
            .find(|g| g.id == params.id)
            .ok_or_else(|| no_grant(&params.id))?;
        let existing: Vec<Grant> = stored
            .iter()
            .filter(|g| g.id != params.id)
            .map(tool_grant)
            .collect();
        let candidate = Grant {
            access: wire_access(params.access),
            ..tool_grant(current)
        };
        self.check(&existing, &candidate, params.acknowledge_data_root)?;
        let grant = self
            .store
            .set_grant_writable(&params.id, candidate.access == Access::ReadWrite)
            .await
            .map_err(store_err)?;
        tracing::info!(id = %grant.id, writable = grant.writable, "grant changed");
        Ok(view(grant))
    }

    pub(crate) async fn grant_remove(&self, params: GrantRemoveParams) -> Result<(), ApiError> {
        let _guard = self.changes.lock().await;
        match self.store.delete_grant(&params.id).await {
            Err(pizza_store::Error::NotFound { .. }) => Err(no_grant(&params.id)),
            other => other.map_err(store_err),
        }?;
        tracing::info!(id = %params.id, "grant removed");
        Ok(())
    }

    fn check(
        &self,
        existing: &[Grant],
        candidate: &Grant,
        acknowledge_data_root: bool,
    ) -> Result<(), ApiError> {
        let data_root: &Path = &self.data_root;
        pizza_tools::check_grant(existing, candidate, data_root, acknowledge_data_root)
            .map_err(grant_err)
    }
}

/// The grant commands: thin calls of the service.
impl Host {
    pub async fn grant_list(&self, params: GrantListParams) -> Result<GrantList, ApiError> {
        self.inner.grants.grant_list(params).await
    }

    pub async fn grant_add(&self, params: GrantAddParams) -> Result<GrantView, ApiError> {
        self.inner.grants.grant_add(params).await
    }

    pub async fn grant_update(&self, params: GrantUpdateParams) -> Result<GrantView, ApiError> {
        self.inner.grants.grant_update(params).await
    }

    pub async fn grant_remove(&self, params: GrantRemoveParams) -> Result<(), ApiError> {
        self.inner.grants.grant_remove(params).await
    }
}

fn no_grant(id: &str) -> ApiError {
    ApiError::not_found(format!(
        "No folder is granted as “{id}”; it may have been removed already."
    ))
}

#[cfg(test)]
#[path = "grants_tests.rs"]
mod tests;
