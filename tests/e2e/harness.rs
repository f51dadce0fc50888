//! Starts WebKitWebDriver with the app and an isolated data root, and always
//! cleans up: the driver runs in its own process group, killed on drop.

use anyhow::{Context, Result, bail};
use fantoccini::{Client, ClientBuilder, Locator, elements::Element};
use pizza_test_support::procs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long to wait for the WASM app to mount or a change to show.
const UI_TIMEOUT: Duration = Duration::from_secs(20);
/// How long starting the app and its WebDriver session may take.
const SESSION_TIMEOUT: Duration = Duration::from_secs(60);

/// One window test at a time: two apps plus their WebKit processes on two
/// cores make timings (and the figures printed) meaningless.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Everything one test's app keeps: HOME, XDG dirs and the data root.
#[derive(Debug)]
pub(crate) struct Sandbox {
    dir: tempfile::TempDir,
    _turn: std::sync::MutexGuard<'static, ()>,
}

impl Sandbox {
    pub(crate) fn new() -> Result<Self> {
        // A test that failed while holding the lock poisons it; the next may still run.
        let turn = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(Self {
            dir: tempfile::Builder::new().prefix("pizza-e2e-").tempdir()?,
            _turn: turn,
        })
    }

    pub(crate) fn data_root(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Everything the app has logged in the data root so far (its log
    /// files, one after another; none yet is empty).
    pub(crate) fn log_text(&self) -> String {
        let Ok(entries) = std::fs::read_dir(self.data_root().join("logs")) else {
            return String::new();
        };
        entries
            .flatten()
            .map(|entry| std::fs::read_to_string(entry.path()).unwrap_or_default())
            .collect()
    }

    /// The file the app's native save dialog answers with (no one is there
    /// to click it).
    pub(crate) fn save_dialog_answer(&self) -> PathBuf {
        self.dir.path().join("dough.md")
    }

    /// What the app's native attach dialog answers with (an image).
    pub(crate) fn attach_dialog_answer(&self) -> PathBuf {
        self.dir.path().join("dot.png")
    }

    /// What the app's native open and folder dialogs answer with.
    pub(crate) fn open_dialog_answer(&self) -> PathBuf {
        self.dir.path().join("to-open")
    }
}

/// The environment every launch of a sandbox's app gets: its own HOME, XDG
/// dirs and data root.
pub(crate) fn app_env(sandbox: &Sandbox, data_root: &Path) -> Result<Vec<(&'static str, PathBuf)>> {
    let home = sandbox.path().join("home");
    let runtime_dir = sandbox.path().join("runtime");
    for dir in [&home, &runtime_dir] {
        std::fs::create_dir_all(dir)?;
    }
    set_private(&runtime_dir)?;
    Ok(vec![
        ("PIZZA_DATA_ROOT", data_root.to_path_buf()),
        ("XDG_CONFIG_HOME", home.join(".config")),
        ("XDG_DATA_HOME", home.join(".local/share")),
        ("XDG_CACHE_HOME", home.join(".cache")),
        ("XDG_RUNTIME_DIR", runtime_dir),
        ("RUST_LOG", PathBuf::from("info")),
        ("PIZZA_SAVE_DIALOG_ANSWER", sandbox.save_dialog_answer()),
        ("PIZZA_OPEN_DIALOG_ANSWER", sandbox.open_dialog_answer()),
        ("PIZZA_ATTACH_DIALOG_ANSWER", sandbox.attach_dialog_answer()),
        ("HOME", home),
    ])
}

/// Launches the sandbox's app a second time with `args`, through
/// `program`: [`launcher_binary`] as the desktop entry does, or
/// [`app_binary`] as a terminal does; waits for that process to end (a
/// second launch hands over to the app running and exits).
pub(crate) async fn launch_again(
    sandbox: &Sandbox,
    program: &Path,
    args: &[&str],
) -> Result<std::process::ExitStatus> {
    let mut second = tokio::process::Command::new(program)
        .args(args)
        .envs(app_env(sandbox, &sandbox.data_root())?)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .context("launching the app again")?;
    tokio::time::timeout(UI_TIMEOUT, second.wait())
        .await
        .context("the second launch did not exit")?
        .context("waiting for the second launch")
}

/// A script for the page: a function body and the arguments it reads as
/// `arguments[i]`. What changes between calls goes in the arguments, so the
/// page's engine compiles the body once: each distinct source it is given
/// stays in its code cache (~6 KB of the web process's memory each,
/// measured), which a soak of runs would count as the app's growth.
#[derive(Debug, Clone)]
pub(crate) struct Script {
    pub(crate) body: String,
    pub(crate) args: Vec<serde_json::Value>,
}

impl Script {
    pub(crate) fn new(body: &str, args: Vec<serde_json::Value>) -> Self {
        Self {
            body: body.to_owned(),
            args,
        }
    }
}

impl From<&str> for Script {
    fn from(body: &str) -> Self {
        Self::new(body, Vec::new())
    }
}

impl From<&String> for Script {
    fn from(body: &String) -> Self {
        Self::new(body, Vec::new())
    }
}

impl From<&Script> for Script {
    fn from(script: &Script) -> Self {
        script.clone()
    }
}

/// Options for one app launch.
#[derive(Debug, Default)]
pub(crate) struct Launch {
    /// Overrides the data root (e.g. to make it unusable).
    pub(crate) data_root: Option<PathBuf>,
}

/// A running app with a WebDriver session on its main window.
#[derive(Debug)]
pub(crate) struct App {
    pub(crate) client: Client,
    driver: Child,
    name: String,
}

impl App {
    pub(crate) async fn start(sandbox: &Sandbox, name: &str) -> Result<Self> {
        Self::start_with(sandbox, name, Launch::default()).await
    }

    pub(crate) async fn start_with(sandbox: &Sandbox, name: &str, launch: Launch) -> Result<Self> {
        Self::start_with_env(sandbox, name, launch, &[]).await
    }

    /// Like [`start_with`](Self::start_with), with `env` added to the app's
    /// environment (e.g. where it looks for local model servers).
    pub(crate) async fn start_with_env(
        sandbox: &Sandbox,
        name: &str,
        launch: Launch,
        env: &[(&str, String)],
    ) -> Result<Self> {
        let binary = app_binary()?;
        let port = free_port()?;
        let data_root = launch.data_root.unwrap_or_else(|| sandbox.data_root());

        let mut command = Command::new("WebKitWebDriver");
        command
            .arg(format!("--port={port}"))
            // The browser binary inherits the driver's environment.
            .env("TAURI_WEBVIEW_AUTOMATION", "true")
            .envs(app_env(sandbox, &data_root)?)
            .envs(env.iter().map(|(key, value)| (*key, value)))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let driver = command
            .spawn()
            .context("starting WebKitWebDriver (package webkit2gtk-driver)")?;
        let mut app = DriverGuard(Some(driver));

        let capabilities = serde_json::json!({
            "webkitgtk:browserOptions": { "binary": binary, "args": [] }
        });
        let serde_json::Value::Object(capabilities) = capabilities else {
            bail!("capabilities must be an object")
        };
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + UI_TIMEOUT;
        let client = loop {
            // A session whose app never shows a window must not hang the suite.
            let attempt = tokio::time::timeout(
                SESSION_TIMEOUT,
                ClientBuilder::native()
                    .capabilities(capabilities.clone())
                    .connect(&url),
            )
            .await;
            match attempt {
                Ok(Ok(client)) => break client,
                Ok(Err(_)) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Ok(Err(error)) => return Err(error).context("connecting to WebKitWebDriver"),
                Err(_) => {
                    bail!("the app did not open a WebDriver session within {SESSION_TIMEOUT:?}")
                }
            }
        };
        Ok(Self {
            client,
            driver: app.take(),
            name: name.to_owned(),
        })
    }

    /// Waits for an element matching `css`.
    pub(crate) async fn find(&self, css: &str) -> Result<Element> {
        self.client
            .wait()
            .at_most(UI_TIMEOUT)
            .for_element(Locator::Css(css))
            .await
            .with_context(|| format!("waiting for `{css}`"))
    }

    pub(crate) async fn click(&self, css: &str) -> Result<()> {
        self.retrying(async || Ok(self.find(css).await?.click().await?))
            .await
            .with_context(|| format!("clicking `{css}`"))
    }

    /// Retries `step` until it succeeds or the UI timeout passes: lists
    /// re-render when the host announces changes, so an element found a
    /// moment ago can be gone (stale) when it is used.
    pub(crate) async fn retrying<T, F>(&self, step: F) -> Result<T>
    where
        F: AsyncFn() -> Result<T>,
    {
        let deadline = Instant::now() + UI_TIMEOUT;
        loop {
            match step().await {
                Ok(value) => return Ok(value),
                Err(error) if Instant::now() > deadline => return Err(error),
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    pub(crate) async fn text(&self, css: &str) -> Result<String> {
        Ok(self.find(css).await?.text().await?)
    }

    /// Evaluates `script` (a function body, with its arguments) in the page.
    pub(crate) async fn eval(&self, script: impl Into<Script>) -> Result<serde_json::Value> {
        let script = script.into();
        Ok(self.client.execute(&script.body, script.args).await?)
    }

    /// Polls `script` until it returns `expected` or the timeout passes.
    pub(crate) async fn wait_for_value(
        &self,
        script: impl Into<Script>,
        expected: &serde_json::Value,
    ) -> Result<()> {
        let script = script.into();
        let deadline = Instant::now() + UI_TIMEOUT;
        loop {
            let value = self.eval(script.clone()).await?;
            if &value == expected {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!(
                    "`{}` with {:?} returned {value}, expected {expected}",
                    script.body,
                    script.args
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Points the driver at the app's main window (`quick_ask`: at the
    /// quick-ask window), waiting for the app to make it: a window released
    /// while closed to the tray comes back as a new one.
    pub(crate) async fn switch_to_page(&self, quick_ask: bool) -> Result<()> {
        let deadline = Instant::now() + UI_TIMEOUT;
        loop {
            for handle in self.client.windows().await.unwrap_or_default() {
                if self.client.switch_to_window(handle).await.is_err() {
                    continue;
                }
                let is_quick_ask = self
                    .client
                    .execute("return location.search.includes('view=quick-ask')", vec![])
                    .await;
                if let Ok(serde_json::Value::Bool(is_quick_ask)) = is_quick_ask
                    && is_quick_ask == quick_ask
                {
                    return Ok(());
                }
            }
            if Instant::now() > deadline {
                bail!(
                    "the driver lists no {} window",
                    if quick_ask { "quick-ask" } else { "main" }
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until the app runs `count` web processes (one per webview; a
    /// window released while closed to the tray takes its process along).
    pub(crate) async fn wait_for_web_processes(&self, count: usize) -> Result<()> {
        let deadline = Instant::now() + UI_TIMEOUT;
        loop {
            let running = procs::usage(&self.processes())
                .iter()
                .filter(|u| u.name.starts_with("WebKitWebProces"))
                .count();
            if running == count {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("the app runs {running} web processes, not {count}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The app and its WebKit processes: everything the driver started
    /// (Linux `/proc`), so a test can tell this app's windows from another's.
    pub(crate) fn processes(&self) -> Vec<u32> {
        let driver = self.driver.id();
        let mut tree = procs::tree(driver);
        tree.retain(|&pid| pid != driver);
        tree
    }

    /// Memory of the app and its WebKit processes (everything the driver
    /// started, minus the driver) in KiB: summed RSS (counts shared libraries
    /// once per process) and summed PSS (shares them out). Linux only.
    pub(crate) fn app_memory_kib(&self) -> (u64, u64) {
        procs::usage(&self.processes())
            .iter()
            .fold((0, 0), |(rss, pss), u| (rss + u.rss_kib, pss + u.pss_kib))
    }

    /// Saves a screenshot next to the build output, for a failed test.
    pub(crate) async fn screenshot(&self, label: &str) {
        // WebKit takes it at the page's next paint, which an idle page
        // never makes under Xvfb: the page repaints for a few seconds first.
        let repaint = "let n = 0;
            const timer = setInterval(() => {
                document.body.style.opacity = n % 2 ? '' : '0.999';
                if (++n > 40) { clearInterval(timer); document.body.style.opacity = ''; }
            }, 100);
            return null;";
        let _ = tokio::time::timeout(Duration::from_secs(5), self.eval(repaint)).await;
        // A hidden window or a native dialog can keep the webview from
        // painting: a screenshot must never hang the report of a failure.
        let taken = tokio::time::timeout(Duration::from_secs(10), self.client.screenshot()).await;
        let Ok(Ok(png)) = taken else {
            eprintln!("no screenshot: the webview did not answer");
            return;
        };
        let dir = artifacts_dir();
        if std::fs::create_dir_all(&dir).is_ok() {
            let path = dir.join(format!("{}-{label}.png", self.name));
            if std::fs::write(&path, png).is_ok() {
                eprintln!("screenshot saved: {}", path.display());
            }
        }
    }

    /// Prints the start of the page's text, for a failed test: what the
    /// window showed, even when a screenshot can't be taken (a window under
    /// another app's does not paint).
    pub(crate) async fn print_page(&self) {
        let script = "return document.body ? document.body.innerText.slice(0, 1500) : ''";
        match tokio::time::timeout(Duration::from_secs(5), self.eval(script)).await {
            Ok(Ok(serde_json::Value::String(text))) => {
                eprintln!("the page's text at the failure:\n{text}\n(end of the page's text)");
            }
            _ => eprintln!("no page text: the webview did not answer"),
        }
    }

    /// Ends the session (the app exits) and stops the driver.
    pub(crate) async fn stop(mut self) -> Result<()> {
        // An app that keeps running with its window closed (to the tray)
        // must not hold the suite: the driver's group is ended regardless.
        let closed =
            tokio::time::timeout(Duration::from_secs(10), self.client.clone().close()).await;
        kill_group(&mut self.driver);
        // A session whose windows the app released (closed to the tray)
        // may end with an error: the app is gone either way.
        if let Ok(Err(error)) = closed {
            eprintln!("closing the WebDriver session: {error}");
        }
        Ok(())
    }

    /// Runs `body`; on failure takes a screenshot. Always stops the app.
    pub(crate) async fn run<F, T>(self, body: F) -> Result<T>
    where
        F: AsyncFnOnce(&App) -> Result<T>,
    {
        let outcome = body(&self).await;
        if outcome.is_err() {
            // The page's text first: a screenshot that times out leaves the
            // driver's session waiting on it, and nothing answers after.
            self.print_page().await;
            self.screenshot("failure").await;
        }
        let stopped = self.stop().await;
        let value = outcome?;
        stopped?;
        Ok(value)
    }
}

impl Drop for App {
    fn drop(&mut self) {
        kill_group(&mut self.driver);
    }
}

/// Kills the driver if startup fails before an [`App`] owns it.
struct DriverGuard(Option<Child>);

impl DriverGuard {
    fn take(&mut self) -> Child {
        match self.0.take() {
            Some(child) => child,
            None => unreachable!("driver taken twice"),
        }
    }
}

impl Drop for DriverGuard {
    fn drop(&mut self) {
        if let Some(child) = self.0.as_mut() {
            kill_group(child);
        }
    }
}

/// The driver starts the app as its child: kill the whole group so no app
/// outlives its test.
fn kill_group(child: &mut Child) {
    if let Ok(None) = child.try_wait() {
        // Through the syscall, not `kill(1)`: procps-ng 4.0's `kill -KILL -PGID`
        // has been seen to signal far more than the group.
        if let Ok(pid) = i32::try_from(child.id())
            && pid > 1
        {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = child.kill();
    }
    let _ = child.wait();
    // The app outlives the driver for a moment: wait until the whole group
    // is gone, so a restart on the same data root never reaches the old
    // instance through single-instance D-Bus.
    if let Ok(pid) = i32::try_from(child.id())
        && pid > 1
    {
        let group = nix::unistd::Pid::from_raw(pid);
        let deadline = Instant::now() + Duration::from_secs(5);
        while nix::sys::signal::killpg(group, None).is_ok() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

pub(crate) fn app_binary() -> Result<PathBuf> {
    let Some(path) = std::env::var_os("PIZZA_APP_BIN") else {
        bail!("PIZZA_APP_BIN is not set: run the end-to-end tests with `cargo xtask test`");
    };
    let path = PathBuf::from(path);
    if !path.is_file() {
        bail!(
            "PIZZA_APP_BIN={} is not a file; build it with `cargo build -p pizza-bot`",
            path.display()
        );
    }
    if std::env::var_os("DISPLAY").is_none() {
        bail!("no DISPLAY: run the end-to-end tests with `cargo xtask test` (it starts Xvfb)");
    }
    Ok(path)
}

/// `pizza-bot-open`, built beside the app (crates/launch): what the desktop
/// entry starts.
pub(crate) fn launcher_binary() -> Result<PathBuf> {
    let path = app_binary()?.with_file_name("pizza-bot-open");
    if !path.is_file() {
        bail!(
            "{} is not a file; build it with `cargo build -p pizza-launch`",
            path.display()
        );
    }
    Ok(path)
}

fn artifacts_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.e2e-artifacts")
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn set_private(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Prints a benchmark figure where `cargo test` shows it even for a passing
/// test, and appends it to `.e2e-artifacts/figures.txt`.
pub(crate) fn report(line: &str) {
    use std::io::Write;
    let dir = artifacts_dir();
    let _ = std::fs::create_dir_all(&dir);
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("figures.txt"))
    {
        let _ = writeln!(file, "{line}");
    }
    // Captured output is dropped for passing tests; the terminal is not.
    if let Ok(mut tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty") {
        let _ = writeln!(tty, "FIGURE {line}");
    } else {
        println!("FIGURE {line}");
    }
}
