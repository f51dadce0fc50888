//! The filesystem boundary: a table of attacks run through the real tools
//! over a `CompositeFs`, with secrets outside the grants. After every attack:
//! no secret content or outside name in the result, nothing outside a
//! writable grant created or changed, and the refusal is the right kind.

use std::collections::BTreeMap;
use std::fmt;
use std::os::unix::fs::{FileTypeExt as _, symlink};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pizza_tools::{
    Access, CancellationToken, CompositeFs, Grant, MountSource, Mounts, ThreadFiles, ToolContext,
    ToolError, ToolRegistry,
};
use serde_json::Value;

use super::boundary_corpus::corpus;

/// Markers only the files outside the grants contain.
pub(super) const SECRET_CONTENT: &str = "S3CR3T-CONTENT";
pub(super) const SECRET_NAME: &str = "outside-secret";

/// What an attack may end in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Expect {
    /// An error of a refusing kind.
    Refused,
    /// The call may succeed, but only with what is inside the grants (a
    /// listing that skips links, a literal name created inside a writable
    /// grant).
    Contained,
}

/// Something done right before the operation reads the mounts: after the
/// virtual path was checked, before anything on disk is opened.
#[derive(Debug, Clone)]
pub(super) enum Hook {
    /// Replace `<root>/<rel>` (a folder) with a link to the outside folder.
    SwapForLink(&'static str),
    RemoveGrant(&'static str),
    MakeReadOnly(&'static str),
    MemoryOff,
}

#[derive(Debug, Clone)]
pub(super) struct Attack {
    pub(super) name: String,
    pub(super) tool: &'static str,
    pub(super) args: Value,
    pub(super) expect: Expect,
    pub(super) hook: Option<Hook>,
}

impl Attack {
    pub(super) fn new(name: impl Into<String>, tool: &'static str, args: Value) -> Self {
        Self {
            name: name.into(),
            tool,
            args,
            expect: Expect::Refused,
            hook: None,
        }
    }

    pub(super) fn contained(mut self) -> Self {
        self.expect = Expect::Contained;
        self
    }

    pub(super) fn hook(mut self, hook: Hook) -> Self {
        self.hook = Some(hook);
        self
    }
}

type MountsHook = Box<dyn FnOnce(&mut Mounts) + Send>;

/// Mounts that can be changed between calls and run a hook on the next read.
pub(super) struct LabMounts {
    current: Mutex<Mounts>,
    hook: Mutex<Option<MountsHook>>,
}

impl fmt::Debug for LabMounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LabMounts").finish_non_exhaustive()
    }
}

#[async_trait::async_trait]
impl MountSource for LabMounts {
    async fn mounts(&self) -> pizza_tools::Result<Mounts> {
        let mut current = self.current.lock().unwrap();
        if let Some(hook) = self.hook.lock().unwrap().take() {
            hook(&mut current);
        }
        Ok(current.clone())
    }
}

impl LabMounts {
    pub(super) fn set(&self, mounts: Mounts) {
        *self.current.lock().unwrap() = mounts;
    }

    pub(super) fn on_next_read(&self, hook: impl FnOnce(&mut Mounts) + Send + 'static) {
        *self.hook.lock().unwrap() = Some(Box::new(hook));
    }
}

/// A temp dir with grants, a memory folder and secrets outside them:
///
/// ```text
/// outside/                 secrets (never reachable)
/// ro/                      grant "ro", read-only
///   rw/                    grant "rw", read-write (inside "ro")
/// data/memories/           the memory folder
/// deep/<~3,900 bytes>/     grant "deep", read-write
/// /dev                     grant "dev", read-only
/// ```
pub(super) struct Lab {
    _tmp: tempfile::TempDir,
    pub(super) root: PathBuf,
    pub(super) deep: PathBuf,
    pub(super) mounts: Arc<LabMounts>,
    pub(super) fs: CompositeFs,
    registry: ToolRegistry,
}

impl Lab {
    pub(super) fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let put = |rel: &str, content: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        };
        put("outside/outside-secret.txt", "S3CR3T-CONTENT-1\n");
        put("outside/dir/outside-secret-2.txt", "S3CR3T-CONTENT-2\n");
        put("outside/swapdir/f.txt", "S3CR3T-CONTENT-3\n");
        put("outside/hard-source.txt", "hard link original\n");
        put("ro/readme.md", "read-only readme\n");
        put("ro/sub/a.md", "ro sub a\n");
        put("ro/sibling/keep.md", "sibling\n");
        put("ro/Collide.md", "upper collide\n");
        put("ro/collide.md", "lower collide\n");
        put("ro/\u{c5}.md", "nfc angstrom\n");
        put("ro/A\u{30a}.md", "nfd angstrom\n");
        put("ro/caf\u{e9}.md", "cafe\n");
        put("ro/rw/existing.md", "writable existing\n");
        put("ro/rw/swapdir/f.txt", "inside swap\n");
        put("ro/rw/sub/b.md", "rw sub b\n");
        put("data/memories/m.md", "memory\n");
        put("data/app.db", "S3CR3T-CONTENT-app-data\n");
        let outside = root.join("outside");
        let secret = outside.join("outside-secret.txt");
        let ro = root.join("ro");
        let rw = ro.join("rw");
        symlink(&secret, ro.join("link-file")).unwrap();
        symlink("../outside/outside-secret.txt", ro.join("link-rel")).unwrap();
        symlink(&outside, ro.join("link-dir")).unwrap();
        symlink("../outside", ro.join("link-dir-rel")).unwrap();
        symlink("chain2", ro.join("chain1")).unwrap();
        symlink(&secret, ro.join("chain2")).unwrap();
        symlink("/dev/zero", ro.join("link-dev")).unwrap();
        symlink(&secret, ro.join("\u{fb01}le-link")).unwrap();
        symlink("sub", ro.join("link-inside")).unwrap();
        symlink(&outside, rw.join("link-out")).unwrap();
        symlink("..", rw.join("link-up")).unwrap();
        symlink(&secret, rw.join("link-file-out")).unwrap();
        symlink(&secret, rw.join("dangling-parent")).unwrap();
        symlink(outside.join("not-yet.txt"), rw.join("dangling")).unwrap();
        std::fs::hard_link(outside.join("hard-source.txt"), rw.join("hard.txt")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            rw.join("fifo"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        let sock = std::os::unix::net::UnixListener::bind(rw.join("sock")).unwrap();
        std::mem::forget(sock);
        // A grant whose host path is close to 4,096 bytes.
        let mut deep = root.join("deep");
        while deep.as_os_str().len() < 3_900 {
            deep.push("d".repeat(200));
        }
        std::fs::create_dir_all(&deep).unwrap();
        let mounts = Arc::new(LabMounts {
            current: Mutex::new(Mounts::default()),
            hook: Mutex::new(None),
        });
        let lab = Self {
            _tmp: tmp,
            fs: CompositeFs::new(
                ThreadFiles::new(BTreeMap::from([(
                    "/state.md".to_owned(),
                    "state file\n".to_owned(),
                )])),
                mounts.clone(),
            ),
            root,
            deep,
            mounts,
            registry: ToolRegistry::with_builtins(),
        };
        lab.reset();
        lab
    }

    pub(super) fn default_mounts(&self) -> Mounts {
        let grant = |id: &str, path: PathBuf, access| Grant {
            id: id.to_owned(),
            path,
            access,
        };
        Mounts {
            grants: vec![
                grant("ro", self.root.join("ro"), Access::ReadOnly),
                grant("rw", self.root.join("ro/rw"), Access::ReadWrite),
                grant("deep", self.deep.clone(), Access::ReadWrite),
                grant("dev", PathBuf::from("/dev"), Access::ReadOnly),
            ],
            memories: Some(self.root.join("data/memories")),
        }
    }

    /// Default mounts, the swap folder back in place.
    pub(super) fn reset(&self) {
        self.mounts.set(self.default_mounts());
        let state = self.fs.state();
        for path in state.snapshot().into_keys().filter(|p| p != "/state.md") {
            state.delete(&path);
        }
        state.take_changes();
        for rel in ["ro/rw", "ro/rw/swapdir"] {
            let swapped = self.root.join(rel);
            if swapped
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink())
            {
                std::fs::remove_file(&swapped).unwrap();
                std::fs::rename(self.root.join(format!("{rel}.orig")), &swapped).unwrap();
            }
        }
    }

    fn arm(&self, hook: &Hook) {
        let root = self.root.clone();
        match hook.clone() {
            Hook::SwapForLink(rel) => self.mounts.on_next_read(move |_| {
                let dir = root.join(rel);
                std::fs::rename(&dir, root.join(format!("{rel}.orig"))).unwrap();
                symlink(root.join("outside/swapdir"), &dir).unwrap();
            }),
            Hook::RemoveGrant(id) => self
                .mounts
                .on_next_read(move |m| m.grants.retain(|g| g.id != id)),
            Hook::MakeReadOnly(id) => self.mounts.on_next_read(move |m| {
                for g in m.grants.iter_mut().filter(|g| g.id == id) {
                    g.access = Access::ReadOnly;
                }
            }),
            Hook::MemoryOff => self.mounts.on_next_read(|m| m.memories = None),
        }
    }

    pub(super) async fn call(&self, tool: &str, args: Value) -> Result<String, ToolError> {
        let tool = self.registry.resolve(tool, &args)?;
        let ctx = ToolContext {
            thread_id: "t".into(),
            call_id: "c".into(),
            fs: Arc::new(self.fs.clone()),
            nested: None,
        };
        tool.call(&ctx, args, CancellationToken::new())
            .await
            .map(|output| output.to_text())
    }

    /// Everything on disk a write must never touch: the whole lab except the
    /// writable grants and the memory folder. Links are recorded, not
    /// followed; special files by kind.
    pub(super) fn protected(&self) -> BTreeMap<PathBuf, String> {
        let writable = [
            self.root.join("ro/rw"),
            self.root.join("data/memories"),
            self.deep.clone(),
        ];
        let mut out = BTreeMap::new();
        snapshot(&self.root, &writable, &mut out);
        out
    }
}

fn snapshot(dir: &Path, skip: &[PathBuf], out: &mut BTreeMap<PathBuf, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if skip.contains(&path) {
            continue;
        }
        let meta = path.symlink_metadata().unwrap();
        let kind = meta.file_type();
        let record = if kind.is_symlink() {
            format!("link {}", std::fs::read_link(&path).unwrap().display())
        } else if kind.is_dir() {
            snapshot(&path, skip, out);
            "dir".to_owned()
        } else if kind.is_fifo() || kind.is_socket() {
            "special".to_owned()
        } else {
            let bytes = std::fs::read(&path).unwrap();
            format!("file {} {:?}", meta.len(), String::from_utf8_lossy(&bytes))
        };
        out.insert(path, record);
    }
}

/// Whether `outcome` shows anything from outside the grants.
pub(super) fn escaped(args: &Value, outcome: &Result<String, ToolError>) -> Option<String> {
    let text = match outcome {
        Ok(text) => text.clone(),
        Err(e) => e.to_string(),
    };
    let asked = args.to_string();
    for marker in [SECRET_CONTENT, SECRET_NAME] {
        if text.contains(marker) && !asked.contains(marker) {
            return Some(format!("{marker:?} appears in {text:?}"));
        }
    }
    None
}

/// Whether `outcome` is the refusal `expect` asks for.
pub(super) fn refused(expect: Expect, outcome: &Result<String, ToolError>) -> bool {
    match outcome {
        Err(
            ToolError::PermissionDenied { reason: m, .. }
            | ToolError::InvalidPath { reason: m, .. }
            | ToolError::InvalidArguments { message: m, .. },
        ) => !m.trim().is_empty(),
        Err(ToolError::NotFound { .. }) => true,
        // Contained: whatever happened stayed inside (checked separately).
        Err(_) | Ok(_) => expect == Expect::Contained,
    }
}

#[tokio::test]
async fn filesystem_boundary_corpus() {
    let lab = Lab::new();
    let attacks = corpus(&lab);
    assert!(attacks.len() >= 200, "only {} attacks", attacks.len());
    let mut refusals = 0usize;
    let mut escapes = Vec::new();
    let mut wrong = Vec::new();
    let mut kinds = BTreeMap::new();
    for attack in &attacks {
        lab.reset();
        let before = lab.protected();
        if let Some(hook) = &attack.hook {
            lab.arm(hook);
        }
        let outcome = lab.call(attack.tool, attack.args.clone()).await;
        let kind = match &outcome {
            Ok(_) => "ok (contained)",
            Err(ToolError::PermissionDenied { .. }) => "permission denied",
            Err(ToolError::InvalidPath { .. }) => "invalid path",
            Err(ToolError::InvalidArguments { .. }) => "invalid arguments",
            Err(ToolError::NotFound { .. }) => "not found",
            Err(_) => "other error (contained)",
        };
        *kinds.entry(kind).or_insert(0usize) += 1;
        lab.reset();
        let after = lab.protected();
        if let Some(leak) = escaped(&attack.args, &outcome) {
            escapes.push(format!("{}: {leak}", attack.name));
        } else if before != after {
            let changed: Vec<_> = after
                .iter()
                .filter(|(k, v)| before.get(*k) != Some(*v))
                .map(|(k, _)| k.display().to_string())
                .chain(
                    before
                        .keys()
                        .filter(|k| !after.contains_key(*k))
                        .map(|k| k.display().to_string()),
                )
                .collect();
            escapes.push(format!("{}: changed {changed:?}", attack.name));
        } else if refused(attack.expect, &outcome) {
            refusals += 1;
        } else {
            wrong.push(format!(
                "{}: {} {} -> {outcome:?}",
                attack.name, attack.tool, attack.args
            ));
        }
    }
    println!(
        "filesystem boundary: {} attacks, {refusals} refused, {} escapes",
        attacks.len(),
        escapes.len()
    );
    println!("refusals by kind: {kinds:?}");
    assert!(escapes.is_empty(), "escapes:\n{}", escapes.join("\n"));
    assert!(
        wrong.is_empty(),
        "not refused as expected:\n{}",
        wrong.join("\n")
    );
    assert_eq!(refusals, attacks.len());
}
