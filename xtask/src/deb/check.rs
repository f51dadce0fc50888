//! `cargo xtask deb --check`: unpacks the built `.deb` into a temporary root
//! (`dpkg-deb -x`, nothing is installed) and checks what an installed Pizza
//! Bot needs — the binary, a desktop entry starting it through its launcher
//! (which must start the app beside it) and its icon, the icon in the
//! hicolor sizes, the built-in skills, the eval worker (which must run) —
//! then starts the unpacked app through its launcher on the current
//! display with a throwaway HOME and a private session bus, and waits for its
//! window and its per-user data folder.

use anyhow::{Context, Result, bail, ensure};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) const BINARY: &str = "pizza-bot";
/// What the desktop entry starts: it hands a launch to the running app or
/// becomes the app beside it (crates/launch).
pub(crate) const LAUNCHER_PATH: &str = "/usr/bin/pizza-bot-open";
/// The icon name notifications use (`src-tauri/src/notifications.rs`).
const ICON: &str = "pizza-bot";
const NAME: &str = "Pizza Bot";
/// The window's WM_CLASS, which desktops match to the entry.
const WM_CLASS: &str = "pizza-bot";
/// Icon sizes a desktop asks for most; each must be there at its own size.
const ICON_SIZES: [u32; 3] = [32, 128, 256];
/// The shipped guide skill, where the bundler files `bundle.resources`'
/// `../skills` (a `..` part becomes `_up_`) and the app looks for it.
const GUIDE_SKILL: &str = "usr/lib/Pizza Bot/_up_/skills/pizza-bot-guide/SKILL.md";
/// The eval tool's worker, in the bundle's resource folder.
pub(crate) const WORKER_PATH: &str = "/usr/lib/Pizza Bot/pizza-eval-worker";
/// The web processes' extension, in the bundle's resource folder.
pub(crate) const WEB_EXTENSION_PATH: &str = "/usr/lib/Pizza Bot/libpizza_webext.so";
/// The function WebKit calls in a web process extension.
const WEB_EXTENSION_ENTRY: &[u8] = b"webkit_web_extension_initialize";
/// What the app logs when a page's web process, through the extension,
/// handed back its pages (src-tauri/src/web_extension.rs).
const WEB_EXTENSION_ANSWERED: &str = "web process: pages of code handed back";
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// The newest `.deb` under the target directory's bundle folder.
pub(crate) fn newest_deb() -> Result<PathBuf> {
    let dir = crate::target_dir()?
        .join("release")
        .join("bundle")
        .join("deb");
    let mut newest: Option<(std::time::SystemTime, PathBuf)> = None;
    for entry in std::fs::read_dir(&dir)
        .with_context(|| format!("no bundles in {}: run `cargo xtask deb`", dir.display()))?
    {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "deb") {
            let modified = path.metadata()?.modified()?;
            if newest.as_ref().is_none_or(|(t, _)| modified > *t) {
                newest = Some((modified, path));
            }
        }
    }
    newest
        .map(|(_, path)| path)
        .with_context(|| format!("no .deb in {}: run `cargo xtask deb`", dir.display()))
}

/// Checks the package `deb`; fails with every problem found in the files
/// before trying to start the app.
pub(crate) fn package(deb: &Path) -> Result<()> {
    eprintln!("xtask: checking {}", deb.display());
    let scratch = tempfile::Builder::new()
        .prefix("pizza-deb-check-")
        .tempdir()?;
    let root = scratch.path().join("root");
    crate::step::run(Command::new("dpkg-deb").arg("-x").arg(deb).arg(&root))?;

    let binary = root.join("usr/bin").join(BINARY);
    ensure!(binary.is_file(), "the package has no /usr/bin/{BINARY}");
    let launcher = root.join(LAUNCHER_PATH.trim_start_matches('/'));
    let entry = desktop_entry(&root)?;
    let mut problems = entry_problems(&entry);
    problems.extend(launcher_problem(&launcher));
    problems.extend(icon_problems(&root));
    if !root.join(GUIDE_SKILL).is_file() {
        problems.push(format!("the package has no /{GUIDE_SKILL}"));
    }
    problems.extend(worker_problem(
        &root.join(WORKER_PATH.trim_start_matches('/')),
    ));
    problems.extend(web_extension_problem(
        &root.join(WEB_EXTENSION_PATH.trim_start_matches('/')),
    ));
    problems.extend(depends_problems(deb, &binary)?);
    if !problems.is_empty() {
        bail!(
            "the package is incomplete:\n  - {}",
            problems.join("\n  - ")
        );
    }
    eprintln!(
        "xtask: desktop entry, icons, built-in skills, eval worker, web extension and binary are in place"
    );

    // Started as the desktop entry starts it: the launcher becomes the app.
    starts(&launcher, scratch.path())?;
    eprintln!(
        "xtask: the packaged app starts from its desktop entry's launcher, shows its window, keeps its data per user and its web process loads the extension"
    );
    Ok(())
}

/// The one desktop entry's `[Desktop Entry]` keys.
fn desktop_entry(root: &Path) -> Result<HashMap<String, String>> {
    let dir = root.join("usr/share/applications");
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("the package has no {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "desktop"))
        .collect();
    let [file] = files.as_slice() else {
        bail!("expected one desktop entry, found {files:?}");
    };
    let text = std::fs::read_to_string(file)?;
    let mut keys = HashMap::new();
    let mut in_entry = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_entry = line == "[Desktop Entry]";
        } else if let (true, Some((key, value))) = (in_entry, line.split_once('=')) {
            keys.insert(key.trim().to_owned(), value.trim().to_owned());
        }
    }
    Ok(keys)
}

fn entry_problems(entry: &HashMap<String, String>) -> Vec<String> {
    let get = |key: &str| entry.get(key).map_or("", String::as_str);
    let mut problems = Vec::new();
    let mut expect = |key: &str, wanted: &str| {
        if get(key) != wanted {
            problems.push(format!(
                "desktop entry {key}={:?}, expected {wanted:?}",
                get(key)
            ));
        }
    };
    expect("Type", "Application");
    expect("Name", NAME);
    expect("Icon", ICON);
    expect("StartupWMClass", WM_CLASS);
    expect("Terminal", "false");
    let exec = get("Exec").split_whitespace().next().unwrap_or("");
    let launcher = LAUNCHER_PATH.rsplit('/').next().unwrap_or(LAUNCHER_PATH);
    if exec != launcher && exec != LAUNCHER_PATH {
        problems.push(format!(
            "desktop entry Exec={:?} does not start {launcher}",
            get("Exec")
        ));
    }
    let categories = get("Categories");
    if categories.is_empty() || !categories.ends_with(';') {
        problems.push(format!(
            "desktop entry Categories={categories:?} is not a `;`-terminated list"
        ));
    }
    problems
}

/// Every hicolor icon named [`ICON`] must have the pixel size its folder
/// promises (`NxN`, or twice that for `NxN@2`), and the common sizes must be
/// there.
fn icon_problems(root: &Path) -> Vec<String> {
    let hicolor = root.join("usr/share/icons/hicolor");
    let Ok(dirs) = std::fs::read_dir(&hicolor) else {
        return vec![format!("the package has no {}", hicolor.display())];
    };
    let mut problems = Vec::new();
    let mut sizes = Vec::new();
    for dir in dirs.filter_map(Result::ok) {
        let folder = dir.file_name().to_string_lossy().into_owned();
        let icon = dir.path().join("apps").join(format!("{ICON}.png"));
        if !icon.is_file() {
            continue;
        }
        let (size, scale) = match folder.split_once('@') {
            Some((size, scale)) => (size, scale.parse::<u32>().unwrap_or(0)),
            None => (folder.as_str(), 1),
        };
        let logical = size
            .split_once('x')
            .and_then(|(w, _)| w.parse::<u32>().ok())
            .unwrap_or(0);
        match png_size(&icon) {
            Ok((w, h)) if w == logical * scale && h == logical * scale => {
                if scale == 1 {
                    sizes.push(logical);
                }
            }
            Ok((w, h)) => problems.push(format!("hicolor/{folder} holds a {w}x{h} icon")),
            Err(error) => problems.push(format!("hicolor/{folder}: {error:#}")),
        }
    }
    for size in ICON_SIZES {
        if !sizes.contains(&size) {
            problems.push(format!("no {size}x{size} icon named {ICON} in hicolor"));
        }
    }
    problems
}

/// What the binary needs beyond the bundler's list (a loader that reads
/// packed relocations, flite's voices) must be in the package's Depends
/// (`cargo xtask deb` adds it).
fn depends_problems(deb: &Path, binary: &Path) -> Result<Vec<String>> {
    let extra = super::extra_depends(&std::fs::read(binary)?);
    if extra.is_empty() {
        return Ok(Vec::new());
    }
    let output = Command::new("dpkg-deb")
        .arg("-f")
        .arg(deb)
        .arg("Depends")
        .output()?;
    let depends = String::from_utf8_lossy(&output.stdout);
    Ok(extra
        .into_iter()
        .filter(|package| !depends.split(',').any(|item| item.trim() == *package))
        .map(|package| {
            format!(
                "/usr/bin/{BINARY} needs {package} but the package does not depend on it: {}",
                depends.trim()
            )
        })
        .collect())
}

/// The worker must be an executable that serves until its input closes:
/// started with an empty stdin it exits at once, successfully.
fn worker_problem(worker: &Path) -> Option<String> {
    let shown = format!("/{}", WORKER_PATH.trim_start_matches('/'));
    if !worker.is_file() {
        return Some(format!("the package has no {shown}"));
    }
    let output = Command::new(worker)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    match output {
        Ok(output) if output.status.success() => None,
        Ok(output) => Some(format!(
            "{shown} ended with {}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Err(error) => Some(format!("{shown} does not start: {error}")),
    }
}

/// The launcher must start the app beside it: asked `--version`, which it
/// never hands to a running app, the app answers through it.
fn launcher_problem(launcher: &Path) -> Option<String> {
    if !launcher.is_file() {
        return Some(format!("the package has no {LAUNCHER_PATH}"));
    }
    match Command::new(launcher)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
    {
        Ok(output)
            if output.status.success()
                && String::from_utf8_lossy(&output.stdout).starts_with(NAME) =>
        {
            None
        }
        Ok(output) => Some(format!(
            "{LAUNCHER_PATH} --version ended with {} and did not answer as the app: {} {}",
            output.status,
            String::from_utf8_lossy(&output.stdout).trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Err(error) => Some(format!("{LAUNCHER_PATH} does not start: {error}")),
    }
}

/// The extension must be there and offer WebKit's entry point.
fn web_extension_problem(extension: &Path) -> Option<String> {
    let shown = format!("/{}", WEB_EXTENSION_PATH.trim_start_matches('/'));
    match std::fs::read(extension) {
        Ok(bytes)
            if bytes
                .windows(WEB_EXTENSION_ENTRY.len())
                .any(|window| window == WEB_EXTENSION_ENTRY) =>
        {
            None
        }
        Ok(_) => Some(format!(
            "{shown} has no {}",
            String::from_utf8_lossy(WEB_EXTENSION_ENTRY)
        )),
        Err(error) => Some(format!("the package has no {shown}: {error}")),
    }
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(path: &Path) -> Result<(u32, u32)> {
    let bytes = std::fs::read(path)?;
    ensure!(
        bytes.len() >= 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n") && &bytes[12..16] == b"IHDR",
        "not a PNG"
    );
    let word =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    Ok((word(16), word(20)))
}

/// Starts `binary` with HOME in `scratch` (no XDG overrides, no data root
/// override) on a private session bus, so a Pizza Bot already running for
/// this user is neither reached nor touched; waits for its window and its
/// data folder, then stops it.
fn starts(binary: &Path, scratch: &Path) -> Result<()> {
    ensure!(
        std::env::var_os("DISPLAY").is_some(),
        "no DISPLAY: the start check needs a display (e.g. run it under `xvfb-run -a`)"
    );
    for tool in ["dbus-run-session", "xdotool"] {
        ensure!(
            crate::step::have(tool),
            "`{tool}` is needed for the start check"
        );
    }
    let home = scratch.join("home");
    std::fs::create_dir_all(&home)?;
    let pid_file = scratch.join("app.pid");
    let log = std::fs::File::create(scratch.join("app.log"))?;
    let mut command = Command::new("dbus-run-session");
    command
        .args(["--", "sh", "-c", r#"echo $$ > "$1"; exec "$0""#])
        .arg(binary)
        .arg(&pid_file)
        .env("HOME", &home)
        .env("NO_AT_BRIDGE", "1")
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    for var in [
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "XDG_CACHE_HOME",
        "XDG_STATE_HOME",
        "PIZZA_DATA_ROOT",
        "DBUS_SESSION_BUS_ADDRESS",
    ] {
        command.env_remove(var);
    }
    let session = command.spawn().context("starting dbus-run-session")?;
    let mut session = Running(session);
    let outcome = watch(&pid_file, &home);
    if let Ok(text) = std::fs::read_to_string(&pid_file)
        && let Ok(pid) = text.trim().parse::<i32>()
        && pid > 1
    {
        // The app itself (positive pid): it exits, then the bus session ends.
        let _ = Command::new("kill").arg(pid.to_string()).status();
    }
    session.wait(Duration::from_secs(10));
    if outcome.is_err() {
        let log = std::fs::read_to_string(scratch.join("app.log")).unwrap_or_default();
        eprintln!("xtask: the app's output:\n{log}");
    }
    outcome
}

/// Waits for the app's shown window, then for its data folder's files.
fn watch(pid_file: &Path, home: &Path) -> Result<()> {
    let deadline = Instant::now() + START_TIMEOUT;
    let pid = loop {
        if let Some(pid) = std::fs::read_to_string(pid_file)
            .ok()
            .and_then(|t| t.trim().parse::<u32>().ok())
        {
            break pid;
        }
        ensure!(Instant::now() < deadline, "the app did not start");
        std::thread::sleep(Duration::from_millis(100));
    };
    loop {
        let found = Command::new("xdotool")
            .args([
                "search",
                "--onlyvisible",
                "--pid",
                &pid.to_string(),
                "--name",
                "^Pizza Bot$",
            ])
            .output()?;
        if found.status.success() && !found.stdout.is_empty() {
            break;
        }
        ensure!(
            Instant::now() < deadline,
            "the packaged app showed no window within {START_TIMEOUT:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let data = home.join(".local/share/pizza-bot");
    for file in ["pizza-bot.json", "pizza-bot.sqlite"] {
        while !data.join(file).is_file() {
            ensure!(
                Instant::now() < deadline,
                "the packaged app did not create {}",
                data.join(file).display()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    // Once the page settled, its web process (through the extension the
    // package ships) hands back its pages and the app logs its answer.
    let logs = data.join("logs");
    loop {
        let answered = std::fs::read_dir(&logs)
            .into_iter()
            .flatten()
            .flatten()
            .any(|entry| {
                std::fs::read_to_string(entry.path())
                    .is_ok_and(|text| text.contains(WEB_EXTENSION_ANSWERED))
            });
        if answered {
            return Ok(());
        }
        ensure!(
            Instant::now() < deadline,
            "the packaged app's web process did not answer through its extension (no {WEB_EXTENSION_ANSWERED:?} in {})",
            logs.display()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The bus session around the app; never outlives the check.
struct Running(Child);

impl Running {
    fn wait(&mut self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while let Ok(None) = self.0.try_wait() {
            if Instant::now() > deadline {
                let _ = self.0.kill();
                let _ = self.0.wait();
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}
