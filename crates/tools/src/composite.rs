//! The one view of a thread's files: the state files at `/`, the memory
//! folder at `/memories/` and granted host folders at `/local/<id>/`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::{Result, ToolError};
use crate::fs::{Bounded, DirEntry, FileSystem};
use crate::grant::{Access, Grant, MountSource, Mounts};
use crate::host_dir::HostDir;
use crate::host_path::{decode_segments, encode_name};
use crate::thread_files::ThreadFiles;

const MEMORIES: &str = "memories";
const LOCAL: &str = "local";

/// Said whenever `/memories/` is used while memory is off.
const MEMORY_OFF: &str = "Memory is off; the person can turn it on in Settings › Memory.";

/// Where a normalized virtual path lives.
enum Route<'a> {
    /// `/`: the state files plus the mount folders.
    Root,
    /// A state file or folder.
    State,
    /// `/local`: one folder per grant.
    Grants,
    /// Below `/memories`; `rest` is the part after `/memories/` (may be empty).
    Memories { rest: &'a str },
    /// Below `/local/<id>`.
    Grant { id: &'a str, rest: &'a str },
}

fn route(path: &str) -> Route<'_> {
    if path == "/" {
        return Route::Root;
    }
    let body = &path[1..];
    let (top, rest) = body.split_once('/').unwrap_or((body, ""));
    match top {
        MEMORIES => Route::Memories { rest },
        LOCAL if rest.is_empty() => Route::Grants,
        LOCAL => {
            let (id, rest) = rest.split_once('/').unwrap_or((rest, ""));
            Route::Grant { id, rest }
        }
        _ => Route::State,
    }
}

/// A host folder resolved for one operation.
struct Mounted {
    dir: HostDir,
    names: Vec<OsString>,
}

/// The one view of a thread's files. The orchestrator and its subagents
/// share it; every operation reads the current [`Mounts`], so a grant
/// removed or made read-only mid-turn stops working on the next call.
#[derive(Debug, Clone)]
pub struct CompositeFs {
    state: ThreadFiles,
    mounts: Arc<dyn MountSource>,
}

impl CompositeFs {
    pub fn new(state: ThreadFiles, mounts: Arc<dyn MountSource>) -> Self {
        Self { state, mounts }
    }

    /// The state files alone.
    pub fn state(&self) -> &ThreadFiles {
        &self.state
    }

    async fn resolve(&self, path: &str, for_write: bool) -> Result<Option<Mounted>> {
        let (dir, rest) = match route(path) {
            Route::Root | Route::State | Route::Grants => return Ok(None),
            Route::Memories { rest } => {
                let Some(root) = self.mounts.mounts().await?.memories else {
                    return Err(ToolError::PermissionDenied {
                        path: path.to_owned(),
                        reason: MEMORY_OFF.to_owned(),
                    });
                };
                let dir = HostDir {
                    root: ensure_dir(root).await?,
                    mount: format!("/{MEMORIES}"),
                    private: true,
                };
                (dir, rest)
            }
            Route::Grant { id, rest } => {
                let mounts = self.mounts.mounts().await?;
                let Some(grant) = mounts.grants.iter().find(|g| g.id == id) else {
                    return Err(not_granted(path, id, &mounts));
                };
                let dir = HostDir {
                    root: grant.path.clone(),
                    mount: format!("/{LOCAL}/{id}"),
                    private: false,
                };
                let names = decode_segments(path, rest, for_write)?;
                if for_write && grant.access == Access::ReadOnly {
                    return Err(read_only(path, grant, &names, &mounts.grants));
                }
                return Ok(Some(Mounted { dir, names }));
            }
        };
        let names = decode_segments(path, rest, for_write)?;
        Ok(Some(Mounted { dir, names }))
    }

    /// Where a write to `path` goes: `None` for a state file, or the host
    /// folder; refuses mount folders themselves, read-only grants and
    /// memory while it is off.
    async fn writable(&self, path: &str) -> Result<Option<Mounted>> {
        match route(path) {
            Route::State | Route::Root => Ok(None),
            Route::Grants => Err(reserved(path)),
            _ => {
                let Some(m) = self.resolve(path, true).await? else {
                    return Err(reserved(path));
                };
                if m.names.is_empty() {
                    return Err(reserved(path));
                }
                Ok(Some(m))
            }
        }
    }

    async fn current_mounts(&self) -> Result<Mounts> {
        self.mounts.mounts().await
    }
}

/// Creates the memory folder (0700) on first use. Its path is kept as it
/// is, not resolved: a memory folder replaced by a link is refused by the
/// no-follow open of the folder itself, while a link above it (a data
/// folder moved elsewhere) still works.
async fn ensure_dir(root: PathBuf) -> Result<PathBuf> {
    blocking(move || {
        crate::host_folder::create_private_dir(&root).map_err(|e| {
            ToolError::failed(format!(
                "the memory folder {} cannot be created: {e}",
                root.display()
            ))
        })?;
        Ok(root)
    })
    .await
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ToolError::failed(format!("the file operation did not finish: {e}")))?
}

fn not_granted(path: &str, id: &str, mounts: &Mounts) -> ToolError {
    let granted = if mounts.grants.is_empty() {
        "no folders are granted".to_owned()
    } else {
        let ids: Vec<String> = mounts
            .grants
            .iter()
            .map(|g| format!("/{LOCAL}/{}/", g.id))
            .collect();
        format!("granted folders: {}", ids.join(", "))
    };
    ToolError::PermissionDenied {
        path: path.to_owned(),
        reason: format!(
            "no folder is granted as {:?} ({granted}); the person can grant folders in \
             Settings › Files",
            encode_name(id.as_bytes())
        ),
    }
}

/// The refusal for a write to a read-only grant, pointing at a writable
/// grant that covers the same place if there is one.
fn read_only(path: &str, grant: &Grant, names: &[OsString], grants: &[Grant]) -> ToolError {
    let mut host = grant.path.clone();
    host.extend(names);
    let writable = grants.iter().find_map(|g| {
        let below = host.strip_prefix(&g.path).ok()?;
        (g.access == Access::ReadWrite).then(|| {
            let mut alt = format!("/{LOCAL}/{}", g.id);
            for part in below {
                alt.push('/');
                alt.push_str(&encode_name(part.as_encoded_bytes()));
            }
            alt
        })
    });
    let mut reason = format!(
        "/{LOCAL}/{}/ is read-only; the person can make it writable in Settings › Files",
        grant.id
    );
    if let Some(alt) = writable {
        reason.push_str(&format!(", or write to {alt}, which is writable"));
    }
    ToolError::PermissionDenied {
        path: path.to_owned(),
        reason,
    }
}

fn reserved(path: &str) -> ToolError {
    ToolError::PermissionDenied {
        path: path.to_owned(),
        reason: "/local holds the granted folders and /memories the memory files; they are \
                 folders, so write to a file path below them"
            .to_owned(),
    }
}

fn merge_notes(notes: &[String]) -> Option<String> {
    (!notes.is_empty()).then(|| notes.join("\n"))
}

#[async_trait::async_trait]
impl FileSystem for CompositeFs {
    async fn list(&self, dir: &str) -> Result<Vec<DirEntry>> {
        Ok(self.list_bounded(dir).await?.items)
    }

    async fn files_under(&self, dir: &str) -> Result<Vec<String>> {
        Ok(self.walk(dir).await?.items)
    }

    async fn read(&self, path: &str) -> Result<String> {
        match route(path) {
            Route::State => self.state.read(path).await,
            Route::Root | Route::Grants => Err(ToolError::failed(format!(
                "{path} is a folder, not a file; use ls"
            ))),
            _ => {
                let Some(m) = self.resolve(path, false).await? else {
                    return Err(ToolError::NotFound {
                        path: path.to_owned(),
                    });
                };
                blocking(move || m.dir.read(&m.names)).await
            }
        }
    }

    async fn write(&self, path: &str, content: String) -> Result<()> {
        match self.writable(path).await? {
            None => self.state.write(path, content).await,
            Some(m) => blocking(move || m.dir.write(&m.names, &content)).await,
        }
    }

    async fn check_writable(&self, path: &str) -> Result<()> {
        self.writable(path).await.map(|_| ())
    }

    async fn list_bounded(&self, dir: &str) -> Result<Bounded<DirEntry>> {
        match route(dir) {
            Route::State => self.state.list_bounded(dir).await,
            Route::Root => {
                let mounts = self.current_mounts().await?;
                let mut items: Vec<DirEntry> = self
                    .state
                    .list("/")
                    .await?
                    .into_iter()
                    .filter(|e| !matches!(route(&e.path), Route::Memories { .. } | Route::Grants))
                    .collect();
                let folder = |name: &str| DirEntry {
                    path: format!("/{name}"),
                    is_dir: true,
                    size: 0,
                };
                if mounts.memories.is_some() {
                    items.push(folder(MEMORIES));
                }
                if !mounts.grants.is_empty() {
                    items.push(folder(LOCAL));
                }
                items.sort_by(|a, b| a.path.cmp(&b.path));
                Ok(Bounded {
                    items,
                    truncated: None,
                })
            }
            Route::Grants => {
                let mut items: Vec<DirEntry> = self
                    .current_mounts()
                    .await?
                    .grants
                    .iter()
                    .map(|g| DirEntry {
                        path: format!("/{LOCAL}/{}", g.id),
                        is_dir: true,
                        size: 0,
                    })
                    .collect();
                items.sort_by(|a, b| a.path.cmp(&b.path));
                Ok(Bounded {
                    items,
                    truncated: None,
                })
            }
            _ => {
                let Some(m) = self.resolve(dir, false).await? else {
                    return Err(ToolError::NotFound {
                        path: dir.to_owned(),
                    });
                };
                blocking(move || m.dir.list(&m.names)).await
            }
        }
    }

    async fn walk(&self, dir: &str) -> Result<Bounded<String>> {
        let roots: Vec<String> = match route(dir) {
            Route::State => return self.state.walk(dir).await,
            Route::Memories { .. } | Route::Grant { .. } => vec![dir.to_owned()],
            Route::Root | Route::Grants => {
                let mounts = self.current_mounts().await?;
                let mut roots: Vec<String> = mounts
                    .grants
                    .iter()
                    .map(|g| format!("/{LOCAL}/{}", g.id))
                    .collect();
                if matches!(route(dir), Route::Root) && mounts.memories.is_some() {
                    roots.insert(0, format!("/{MEMORIES}"));
                }
                roots
            }
        };
        let mut items = Vec::new();
        let mut notes = Vec::new();
        if matches!(route(dir), Route::Root) {
            items.extend(
                self.state
                    .files_under("/")
                    .await?
                    .into_iter()
                    .filter(|p| matches!(route(p), Route::State)),
            );
        }
        let whole = roots.len() == 1 && roots[0] == dir;
        for root in roots {
            let Some(m) = self.resolve(&root, false).await? else {
                continue;
            };
            match blocking(move || m.dir.walk(&m.names)).await {
                Ok(found) => {
                    items.extend(found.items);
                    notes.extend(found.truncated);
                }
                Err(e) if whole => return Err(e),
                Err(e) => notes.push(format!("[{root} was skipped: {e}]")),
            }
        }
        items.sort();
        Ok(Bounded {
            items,
            truncated: merge_notes(&notes),
        })
    }
}
