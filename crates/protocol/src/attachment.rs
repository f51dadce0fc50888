//! Attachments: the pure, shared facts (allowed types, caps, names, the URI
//! scheme) and the commands' params. The composer's checks, the host's
//! validation and the model-call inliner all read these, so they cannot
//! drift.

use serde::{Deserialize, Serialize};

use crate::thread::ThreadId;

/// The transport cap: no attachment is larger, whatever the model.
pub const ATTACHMENT_MAX_BYTES: u64 = 10 * 1024 * 1024;
/// At most this many attachments go with one message.
pub const ATTACHMENTS_PER_MESSAGE_MAX: usize = 20;
/// A file name's length in bytes of UTF-8.
pub const ATTACHMENT_NAME_MAX_BYTES: usize = 255;
/// The custom URI scheme that serves an attachment's bytes to the window.
pub const ATTACHMENT_SCHEME: &str = "attachment";
/// How a message refers to an attachment: `attachment://<id>`.
pub const ATTACHMENT_REF_PREFIX: &str = "attachment://";

/// What an attachment is, as far as a model is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttachmentKind {
    /// png, jpeg, gif or webp: an image part for a vision model.
    Image,
    /// A PDF: a document part where the provider takes documents.
    Document,
    /// Text, source, CSV, JSON, Markdown, HTML: inlined as text.
    Text,
}

/// One attachment as the window shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachmentView {
    pub id: String,
    pub name: String,
    /// The resolved type (`text/plain` for source files).
    pub mime: String,
    pub size: u64,
    pub kind: AttachmentKind,
    /// Where the window loads the image from (the custom scheme); images only.
    #[serde(default)]
    pub thumbnail: Option<String>,
}

/// Where an attachment's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum AttachmentSource {
    /// A file on this computer (picked or dropped); read by the host.
    Path { path: String },
    /// Pasted bytes, base64 (no `data:` prefix), with the name to show and
    /// the type the clipboard gave, if any.
    Bytes {
        name: String,
        data: String,
        #[serde(default)]
        mime: Option<String>,
    },
}

/// Stores a file for the next message. Without `thread_id` the upload waits
/// for the `run_start` that names it (a new thread adopts it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttachmentAddParams {
    #[serde(default)]
    pub thread_id: Option<ThreadId>,
    pub source: AttachmentSource,
}

/// Opens the native file picker (several files) and stores each chosen file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttachmentPickParams {
    #[serde(default)]
    pub thread_id: Option<ThreadId>,
}

/// A chosen file that was not stored, and why (a sentence for its chip).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachmentRefusal {
    pub name: String,
    pub message: String,
}

/// What the picker brought in: empty when the person cancelled.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachmentPickResponse {
    pub added: Vec<AttachmentView>,
    pub refused: Vec<AttachmentRefusal>,
}

/// Names one attachment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttachmentIdParams {
    pub id: String,
}

/// The type an attachment is stored and sent as, from its name and the type
/// the system or clipboard declared: a declared image, PDF or text type is
/// kept; otherwise the extension decides (text and source files become
/// `text/plain`). `None`: not a type a model can take.
pub fn attachment_media_type(
    name: &str,
    declared: Option<&str>,
) -> Option<(&'static str, AttachmentKind)> {
    let declared = declared
        .map(|m| m.split(';').next().unwrap_or(m).trim().to_ascii_lowercase())
        .unwrap_or_default();
    if let Some(known) = by_mime(&declared) {
        return Some(known);
    }
    let extension = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default();
    by_extension(&extension)
}

fn by_mime(mime: &str) -> Option<(&'static str, AttachmentKind)> {
    Some(match mime {
        "image/png" => ("image/png", AttachmentKind::Image),
        "image/jpeg" | "image/jpg" => ("image/jpeg", AttachmentKind::Image),
        "image/gif" => ("image/gif", AttachmentKind::Image),
        "image/webp" => ("image/webp", AttachmentKind::Image),
        "application/pdf" => ("application/pdf", AttachmentKind::Document),
        "text/csv" => ("text/csv", AttachmentKind::Text),
        "text/markdown" => ("text/markdown", AttachmentKind::Text),
        "text/html" => ("text/html", AttachmentKind::Text),
        "application/json" => ("application/json", AttachmentKind::Text),
        "text/plain" => ("text/plain", AttachmentKind::Text),
        _ => return None,
    })
}

/// Extensions read as plain text: prose, logs, config and source files.
const TEXT_EXTENSIONS: &[&str] = &[
    "txt",
    "log",
    "text",
    "yaml",
    "yml",
    "toml",
    "ini",
    "cfg",
    "conf",
    "env",
    "xml",
    "svg",
    "rs",
    "py",
    "js",
    "mjs",
    "cjs",
    "ts",
    "tsx",
    "jsx",
    "go",
    "java",
    "kt",
    "kts",
    "c",
    "h",
    "cc",
    "cpp",
    "hpp",
    "cs",
    "rb",
    "php",
    "swift",
    "m",
    "scala",
    "sh",
    "bash",
    "zsh",
    "fish",
    "ps1",
    "sql",
    "css",
    "scss",
    "less",
    "vue",
    "svelte",
    "lua",
    "pl",
    "r",
    "dart",
    "ex",
    "exs",
    "erl",
    "hs",
    "ml",
    "clj",
    "tex",
    "rst",
    "adoc",
    "org",
    "diff",
    "patch",
    "gradle",
    "makefile",
    "dockerfile",
    "proto",
    "graphql",
    "tsv",
    "jsonl",
    "ndjson",
    "lock",
];

fn by_extension(extension: &str) -> Option<(&'static str, AttachmentKind)> {
    Some(match extension {
        "png" => ("image/png", AttachmentKind::Image),
        "jpg" | "jpeg" => ("image/jpeg", AttachmentKind::Image),
        "gif" => ("image/gif", AttachmentKind::Image),
        "webp" => ("image/webp", AttachmentKind::Image),
        "pdf" => ("application/pdf", AttachmentKind::Document),
        "csv" => ("text/csv", AttachmentKind::Text),
        "md" | "markdown" => ("text/markdown", AttachmentKind::Text),
        "html" | "htm" => ("text/html", AttachmentKind::Text),
        "json" => ("application/json", AttachmentKind::Text),
        other if TEXT_EXTENSIONS.contains(&other) => ("text/plain", AttachmentKind::Text),
        _ => return None,
    })
}

/// The kind of a stored type (as [`attachment_media_type`] resolved it).
pub fn attachment_kind(mime: &str) -> AttachmentKind {
    match mime {
        m if m.starts_with("image/") => AttachmentKind::Image,
        "application/pdf" => AttachmentKind::Document,
        _ => AttachmentKind::Text,
    }
}

/// Why `name` cannot name an attachment, as a sentence; `Ok` when it can.
pub fn check_attachment_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("The file has no name.".into());
    }
    if name.len() > ATTACHMENT_NAME_MAX_BYTES {
        return Err(format!(
            "The file name is longer than {ATTACHMENT_NAME_MAX_BYTES} bytes; rename it first."
        ));
    }
    if name.contains(['/', '\\']) {
        return Err("The file name contains a path separator; rename it first.".into());
    }
    if name.chars().any(char::is_control) {
        return Err("The file name contains control characters; rename it first.".into());
    }
    if name == "." || name == ".." {
        return Err("That is not a file name.".into());
    }
    Ok(())
}

/// A sentence saying why a file of `name` cannot be attached by type.
pub fn unsupported_type_message(name: &str) -> String {
    format!(
        "“{name}” is not a type a model can read. Attach an image (PNG, JPEG, GIF, WebP), \
         a PDF, or a text, CSV, JSON, Markdown, HTML or source file."
    )
}

/// A size for people: `512 B`, `3.4 KB`, `10.0 MB` (binary multiples).
pub fn format_size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KB", b / KIB)
    } else {
        format!("{:.1} MB", b / (KIB * KIB))
    }
}

/// The URL the window loads an attachment from through the custom scheme.
/// Windows' webview serves custom schemes as `http://<scheme>.localhost`.
pub fn attachment_src(id: &str) -> String {
    if cfg!(windows) {
        format!("http://{ATTACHMENT_SCHEME}.localhost/{id}")
    } else {
        format!("{ATTACHMENT_SCHEME}://localhost/{id}")
    }
}

/// Whether `id` has the shape of an attachment id (the store's ids: ASCII
/// letters, digits, `-`), so a URL or reference cannot name a path.
pub fn is_attachment_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_resolve_by_declared_type_then_extension() {
        assert_eq!(
            attachment_media_type("shot.png", Some("image/png")),
            Some(("image/png", AttachmentKind::Image))
        );
        // The OS often labels source files octet-stream or nothing.
        assert_eq!(
            attachment_media_type("main.rs", Some("application/octet-stream")),
            Some(("text/plain", AttachmentKind::Text))
        );
        assert_eq!(
            attachment_media_type("DATA.CSV", None),
            Some(("text/csv", AttachmentKind::Text))
        );
        assert_eq!(
            attachment_media_type("x", Some("image/JPEG; q=1")),
            Some(("image/jpeg", AttachmentKind::Image))
        );
        assert_eq!(attachment_media_type("song.mp3", Some("audio/mpeg")), None);
        assert_eq!(attachment_media_type("archive.zip", None), None);
        assert_eq!(attachment_media_type("noext", None), None);
    }

    #[test]
    fn names_with_separators_or_controls_are_refused() {
        assert!(check_attachment_name("report.pdf").is_ok());
        assert!(check_attachment_name("résumé 2026.pdf").is_ok());
        assert!(check_attachment_name("../etc/passwd").is_err());
        assert!(check_attachment_name("a\\b.txt").is_err());
        assert!(check_attachment_name("bell\u{7}.txt").is_err());
        assert!(check_attachment_name("  ").is_err());
        assert!(check_attachment_name(&"a".repeat(256)).is_err());
    }

    #[test]
    fn sizes_read_for_people() {
        assert_eq!(format_size(512), "512 B");
        assert_eq!(format_size(3 * 1024 + 512), "3.5 KB");
        assert_eq!(format_size(ATTACHMENT_MAX_BYTES), "10.0 MB");
    }

    #[test]
    fn ids_cannot_name_paths() {
        assert!(is_attachment_id("01JABC-def"));
        assert!(!is_attachment_id("../x"));
        assert!(!is_attachment_id(""));
        assert!(!is_attachment_id("a/b"));
    }
}
