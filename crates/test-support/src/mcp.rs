//! The real MCP servers `cargo xtask test` installs outside the clone, our
//! own misbehaving test server, and a launcher for server-everything's HTTP
//! modes bound to loopback.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The variable `cargo xtask test` sets to the install directory.
pub const SERVERS_ENV: &str = "PIZZA_MCP_SERVERS";

/// How long server-everything may take to start listening.
const START_WAIT: Duration = Duration::from_secs(30);

/// Where the installed servers are.
#[derive(Debug, Clone)]
pub struct McpServers {
    /// server-everything's `dist/index.js` (run with `node`).
    pub everything: PathBuf,
    /// server-filesystem's `dist/index.js` (run with `node`).
    pub filesystem: PathBuf,
    /// The `mcp-server-time` executable in its venv.
    pub time: PathBuf,
    /// The `node` that runs the npm servers.
    pub node: PathBuf,
}

/// The default install directory, `$HOME/.cache/pizza-bot/mcp`.
pub fn default_servers_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache/pizza-bot/mcp"))
}

/// The servers under [`SERVERS_ENV`] (or the default directory); an error
/// sentence naming `cargo xtask test` when they are not installed.
pub fn mcp_servers() -> Result<McpServers, String> {
    let dir = std::env::var_os(SERVERS_ENV)
        .map(PathBuf::from)
        .or_else(default_servers_dir)
        .ok_or("neither PIZZA_MCP_SERVERS nor HOME is set; run `cargo xtask test`")?;
    servers_in(&dir)
}

/// The servers installed under `dir`, as `cargo xtask test` lays them out.
pub fn servers_in(dir: &Path) -> Result<McpServers, String> {
    let modules = dir.join("npm/node_modules/@modelcontextprotocol");
    let servers = McpServers {
        everything: modules.join("server-everything/dist/index.js"),
        filesystem: modules.join("server-filesystem/dist/index.js"),
        time: dir.join("venv/bin/mcp-server-time"),
        node: find_on_path("node").ok_or("node is not on PATH; run `cargo xtask test`")?,
    };
    for path in [&servers.everything, &servers.filesystem, &servers.time] {
        if !path.is_file() {
            return Err(format!(
                "the MCP test servers are not installed ({} is missing); `cargo xtask test` installs them",
                path.display()
            ));
        }
    }
    Ok(servers)
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// The built `pizza-mcp-test-server`, in the target directory of the running
/// test (`target/debug/deps/<test>` → `target/debug/`). `cargo test
/// --workspace` builds it; `cargo build -p pizza-test-support` otherwise.
pub fn test_server_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let mut dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join(format!(
        "pizza-mcp-test-server{}",
        std::env::consts::EXE_SUFFIX
    ))
}

/// Which of server-everything's HTTP transports to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpMode {
    /// Streamable HTTP at `/mcp`.
    StreamableHttp,
    /// The legacy HTTP+SSE transport at `/sse`.
    Sse,
}

/// A running server-everything on a free loopback port. Dropping it kills
/// the server and its process group.
#[derive(Debug)]
pub struct EverythingHttp {
    child: Child,
    /// The port it listens on, on 127.0.0.1.
    pub port: u16,
    /// The URL a client connects to (`…/mcp` or `…/sse`).
    pub url: String,
}

impl EverythingHttp {
    /// Starts server-everything in `mode` and waits until it listens.
    pub fn start(servers: &McpServers, mode: HttpMode) -> Result<Self, String> {
        let (arg, path) = match mode {
            HttpMode::StreamableHttp => ("streamableHttp", "/mcp"),
            HttpMode::Sse => ("sse", "/sse"),
        };
        let preload = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/mcp/loopback.cjs");
        let mut command = Command::new(&servers.node);
        command
            .arg("--require")
            .arg(&preload)
            .arg(&servers.everything)
            .arg(arg)
            .env("PORT", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command
            .spawn()
            .map_err(|e| format!("could not start server-everything: {e}"))?;
        let Some(stderr) = child.stderr.take() else {
            return Err("server-everything has no stderr pipe".to_owned());
        };
        // A thread reads stderr for the whole life of the server, so it
        // never blocks on a full pipe; the first `listening` line is the go.
        let (port_tx, port_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut port_tx = Some(port_tx);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let port = line
                    .strip_prefix("pizza-test listening ")
                    .and_then(|rest| rest.split_whitespace().nth(1))
                    .and_then(|port| port.parse::<u16>().ok());
                match (port, port_tx.take()) {
                    (Some(port), Some(tx)) => {
                        let _ = tx.send(port);
                    }
                    (_, tx) => port_tx = tx,
                }
            }
        });
        let mut server = Self {
            child,
            port: 0,
            url: String::new(),
        };
        match port_rx.recv_timeout(START_WAIT) {
            Ok(port) => {
                server.port = port;
                server.url = format!("http://127.0.0.1:{port}{path}");
                Ok(server)
            }
            Err(_) => Err(format!(
                "server-everything ({arg}) did not listen within {} s",
                START_WAIT.as_secs()
            )),
        }
    }

    /// Kills the server now (and waits for it), e.g. to test a server going
    /// away.
    pub fn kill(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = rustix::process::Pid::from_raw(self.child.id() as i32) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for EverythingHttp {
    fn drop(&mut self) {
        self.kill();
    }
}
