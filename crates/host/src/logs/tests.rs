//! Reading the rotated log files, and the diagnostics text.

use super::diagnostics::Platform;
use super::*;
use crate::secrets::MemorySecrets;
use crate::{DataRoot, HostOptions};
use pizza_protocol::{
    AppDiagnosticsParams, ErrorCode, McpEntryValue, McpServerEntry, McpServerSaveParams,
    McpTransportKind, ProviderConfigureParams,
};
use pizza_test_support::data_root::TempDataRoot;
use pizza_test_support::mock_provider::{MockProvider, MockResponse};
use pretty_assertions::assert_eq;
use std::collections::BTreeMap;
use std::sync::Arc;

fn line(time: &str, level: &str, message: &str) -> String {
    format!("2026-12-02T18:{time}.000000Z {level:>5} pizza_bot::startup: {message}\n")
}

/// `.2` (oldest), `.1`, then the live file, which ends in half a line.
fn write_rotated(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    let oldest = [
        "the tail of an event from a file rotated away\n".to_owned(),
        line("00:01", "INFO", "starting Pizza Bot version=\"0.1.0\""),
        line("00:02", "WARN", "MCP servers could not start"),
    ];
    fs::write(dir.join("pizza-bot.log.2"), oldest.concat()).unwrap();
    let middle = [
        line("00:03", "DEBUG", "connect slot free"),
        line("00:04", "ERROR", "run failed error=boom"),
        "  with a second line\n".to_owned(),
    ];
    fs::write(dir.join("pizza-bot.log.1"), middle.concat()).unwrap();
    let live = [
        line("00:05", "INFO", "starting Pizza Bot version=\"0.1.0\""),
        line("00:06", "WARN", "the quick-ask shortcut is not active"),
        "2026-12-02T18:00:07.000000Z  INFO pizza_bot::sta".to_owned(),
    ];
    fs::write(dir.join(LOG_FILE_NAME), live.concat()).unwrap();
    // Not a log file of ours, whatever it says.
    fs::write(
        dir.join("pizza-bot.log.bak"),
        line("00:09", "ERROR", "stray"),
    )
    .unwrap();
}

fn read(dir: &Path, level: Option<LogLevel>, query: Option<&str>, limit: Option<u32>) -> LogRead {
    read_logs(
        dir,
        &LogReadParams {
            level,
            query: query.map(str::to_owned),
            limit,
        },
    )
    .unwrap()
}

fn texts(read: &LogRead) -> Vec<String> {
    read.lines
        .iter()
        .map(|l| {
            let first = l.text.lines().next().unwrap_or_default();
            first.split_once(": ").map_or(first, |(_, m)| m).to_owned()
        })
        .collect()
}

#[test]
fn reads_across_rotated_files_newest_last_without_the_unfinished_line() {
    let dir = tempfile::tempdir().unwrap();
    write_rotated(dir.path());

    let all = read(dir.path(), None, None, None);
    assert_eq!(
        texts(&all),
        [
            "the tail of an event from a file rotated away",
            "starting Pizza Bot version=\"0.1.0\"",
            "MCP servers could not start",
            "connect slot free",
            "run failed error=boom",
            "starting Pizza Bot version=\"0.1.0\"",
            "the quick-ask shortcut is not active",
        ]
    );
    assert!(!all.truncated);
    assert_eq!(all.dir, dir.path().display().to_string());
    // A continued event stays one line with its continuation.
    let error = &all.lines[4];
    assert_eq!(error.level, Some(LogLevel::Error));
    assert!(error.text.ends_with("\n  with a second line"), "{error:?}");
    assert_eq!(all.lines[0].level, None);

    // Once the writer finishes the line, it shows.
    let mut live = fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join(LOG_FILE_NAME))
        .unwrap();
    std::io::Write::write_all(&mut live, b"rtup: ready\n").unwrap();
    let after = read(dir.path(), None, Some("ready"), None);
    assert_eq!(texts(&after), ["ready"]);
}

#[test]
fn level_and_search_filter_and_the_limit_keeps_the_newest() {
    let dir = tempfile::tempdir().unwrap();
    write_rotated(dir.path());

    let warnings = read(dir.path(), Some(LogLevel::Warn), None, None);
    assert_eq!(
        texts(&warnings),
        [
            "MCP servers could not start",
            "run failed error=boom",
            "the quick-ask shortcut is not active",
        ]
    );
    let errors = read(dir.path(), Some(LogLevel::Error), None, None);
    assert_eq!(texts(&errors), ["run failed error=boom"]);
    // Search ignores case and looks into continuation lines too.
    let second = read(dir.path(), None, Some("SECOND LINE"), None);
    assert_eq!(texts(&second), ["run failed error=boom"]);
    let started = read(
        dir.path(),
        Some(LogLevel::Info),
        Some("starting pizza"),
        None,
    );
    assert_eq!(started.lines.len(), 2);

    let newest = read(dir.path(), None, None, Some(2));
    assert_eq!(
        texts(&newest),
        [
            "starting Pizza Bot version=\"0.1.0\"",
            "the quick-ask shortcut is not active"
        ]
    );
    assert!(newest.truncated);
    let one = read(dir.path(), None, Some("starting"), Some(1));
    assert_eq!(
        one.lines[0].text,
        line("00:05", "INFO", "starting Pizza Bot version=\"0.1.0\"").trim_end()
    );
    assert!(one.truncated);
    // Zero is read as one, never as "no limit".
    assert_eq!(read(dir.path(), None, None, Some(0)).lines.len(), 1);
}

#[test]
fn no_folder_reads_empty_and_long_lines_and_queries_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("logs");
    assert_eq!(read(&missing, None, None, None).lines, Vec::new());

    fs::create_dir_all(&missing).unwrap();
    let long = "x".repeat(LOG_LINE_MAX_CHARS * 2);
    fs::write(missing.join(LOG_FILE_NAME), line("00:01", "INFO", &long)).unwrap();
    let read_back = read(&missing, None, None, None);
    assert_eq!(
        read_back.lines[0].text.chars().count(),
        LOG_LINE_MAX_CHARS + 1
    );
    assert!(read_back.lines[0].text.ends_with('…'));

    let error = read_logs(
        &missing,
        &LogReadParams {
            query: Some("q".repeat(LOG_QUERY_MAX_CHARS + 1)),
            ..LogReadParams::default()
        },
    )
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidInput);
}

const KEY: &str = "sk-diagnostics-secret-4242";
const TOKEN: &str = "mcp-env-token-secret-77";

#[tokio::test]
async fn diagnostics_name_versions_and_states_but_never_a_secret() {
    let root = TempDataRoot::new().unwrap();
    let host = Host::open(
        DataRoot::prepare(root.path()).unwrap(),
        HostOptions::default()
            .with_ollama_probe(None)
            .with_secrets(Arc::new(MemorySecrets::default())),
    )
    .await
    .unwrap();
    let mock = MockProvider::start().await.unwrap();
    mock.set_default(
        "/v1/models",
        MockResponse::json(200, &serde_json::json!({"data": [{"id": "gpt-4o"}]})),
    );
    host.provider_configure(ProviderConfigureParams {
        id: "openai".into(),
        fields: BTreeMap::from([
            ("base_url".into(), format!("{}/v1", mock.url())),
            ("api_key".into(), KEY.into()),
        ]),
        enablement: None,
    })
    .await
    .unwrap();
    host.mcp_server_save(McpServerSaveParams {
        id: "notes".into(),
        entry: McpServerEntry {
            transport: McpTransportKind::Stdio,
            command: "notes-server".into(),
            args: vec!["--token".into(), TOKEN.into()],
            cwd: None,
            url: String::new(),
            env: vec![McpEntryValue {
                name: "TOKEN".into(),
                value: Some(TOKEN.into()),
                secret: true,
            }],
            headers: Vec::new(),
            enabled: false,
        },
        previous_id: None,
    })
    .await
    .unwrap();

    let text = host
        .app_diagnostics(
            AppDiagnosticsParams {},
            Platform::default().with_webview("WebKitGTK 2.50.1"),
        )
        .await
        .unwrap()
        .text;
    assert!(
        text.starts_with(&format!("Pizza Bot {}", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    assert!(text.contains("\nOS: "), "{text}");
    assert!(text.contains("Web engine: WebKitGTK 2.50.1"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("  OpenAI") && l.ends_with(": ready")),
        "{text}"
    );
    // Its state settles in the background; the line is there either way.
    assert!(text.contains("\n  notes (stdio): "), "{text}");
    for secret in [KEY, TOKEN, mock.url().as_str(), "notes-server"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
}

/// Records the folders it is asked to open.
#[derive(Default)]
struct OpeningShell {
    opened: std::sync::Mutex<Vec<std::path::PathBuf>>,
}

impl crate::DesktopShell for OpeningShell {
    fn open_thread(&self, _thread_id: &str) {}

    fn hide_quick_ask(&self) {}

    fn set_quick_ask_shortcut(
        &self,
        _accelerator: Option<&str>,
    ) -> Result<(), crate::ShortcutError> {
        Ok(())
    }

    fn shortcuts_unsupported(&self) -> Option<String> {
        None
    }

    fn open_file(&self, path: &Path) -> Result<(), String> {
        self.opened.lock().unwrap().push(path.to_owned());
        Ok(())
    }
}

#[tokio::test]
async fn open_folder_shows_the_log_folder_once_there_is_one() {
    let root = TempDataRoot::new().unwrap();
    let host = crate::tests::open(&root).await;
    let shell = Arc::new(OpeningShell::default());
    host.set_desktop_shell(shell.clone()).await;

    let missing = host
        .log_open_folder(LogOpenFolderParams {})
        .await
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);
    assert!(shell.opened.lock().unwrap().is_empty());

    let dir = host.data_root().logs_dir();
    fs::create_dir_all(&dir).unwrap();
    host.log_open_folder(LogOpenFolderParams {}).await.unwrap();
    assert_eq!(*shell.opened.lock().unwrap(), [dir]);
}
