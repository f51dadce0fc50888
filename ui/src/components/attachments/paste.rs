//! Files pasted into a text box: which files a paste carries, the name a
//! nameless screenshot gets, and the bytes as the host takes them (base64).

use base64::Engine as _;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The files a paste carries, from `clipboardData.files`, else from its
/// items of kind `file` (where some webviews put a copied image). Empty for
/// a paste of text only, which the text box then takes as usual.
pub(crate) fn clipboard_files(ev: &web_sys::ClipboardEvent) -> Vec<web_sys::File> {
    let Some(data) = ev.clipboard_data() else {
        return Vec::new();
    };
    let mut files = Vec::new();
    if let Some(list) = data.files() {
        files.extend((0..list.length()).filter_map(|i| list.get(i)));
    }
    if files.is_empty() {
        let items = data.items();
        files.extend(
            (0..items.length())
                .filter_map(|i| items.get(i))
                .filter(|item| item.kind() == "file")
                .filter_map(|item| item.get_as_file().ok().flatten()),
        );
    }
    files
}

/// A local wall-clock time, to name what the clipboard did not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) year: u32,
    pub(crate) month: u32,
    pub(crate) day: u32,
    pub(crate) hour: u32,
    pub(crate) minute: u32,
    pub(crate) second: u32,
}

impl Stamp {
    /// Now, in the window's time zone.
    pub(crate) fn now() -> Self {
        let now = js_sys::Date::new_0();
        Self {
            year: now.get_full_year(),
            month: now.get_month() + 1,
            day: now.get_date(),
            hour: now.get_hours(),
            minute: now.get_minutes(),
            second: now.get_seconds(),
        }
    }
}

impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02} {:02}.{:02}.{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// Names browsers give a pasted screenshot, which say nothing about it.
const GENERIC_STEMS: &[&str] = &["", "image", "blob", "unknown", "untitled", "clipboard"];

/// The name a pasted file is attached as: its own, unless the clipboard
/// gave none or a generic one (`image.png`); then `Pasted image <stamp>.png`
/// (or `Pasted file …`), with the extension its type implies.
pub(crate) fn pasted_name(given: &str, mime: Option<&str>, at: Stamp) -> String {
    let given = given.trim();
    let (stem, extension) = match given.rsplit_once('.') {
        Some((stem, ext)) if !ext.is_empty() && !ext.contains(' ') => (stem, Some(ext)),
        _ => (given, None),
    };
    if !GENERIC_STEMS.contains(&stem.trim().to_ascii_lowercase().as_str()) {
        return given.to_owned();
    }
    let mime = mime.map(|m| m.split(';').next().unwrap_or(m).trim().to_ascii_lowercase());
    let extension = mime
        .as_deref()
        .and_then(extension_for)
        .map(str::to_owned)
        .or_else(|| extension.map(str::to_ascii_lowercase));
    let image = pizza_protocol::attachment_media_type(given, mime.as_deref())
        .is_some_and(|(_, kind)| kind == pizza_protocol::AttachmentKind::Image);
    let what = if image { "Pasted image" } else { "Pasted file" };
    match extension {
        Some(extension) => format!("{what} {at}.{extension}"),
        None => format!("{what} {at}"),
    }
}

fn extension_for(mime: &str) -> Option<&'static str> {
    Some(match mime {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "application/pdf" => "pdf",
        "text/plain" => "txt",
        "text/csv" => "csv",
        "text/markdown" => "md",
        "text/html" => "html",
        "application/json" => "json",
        _ => return None,
    })
}

/// The file's bytes, base64 without a `data:` prefix; `None` if the
/// webview could not read them.
pub(crate) async fn read_base64(file: &web_sys::File) -> Option<String> {
    let buffer = JsFuture::from(file.array_buffer()).await.ok()?;
    let buffer = buffer.dyn_into::<js_sys::ArrayBuffer>().ok()?;
    let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
    Some(base64::engine::general_purpose::STANDARD.encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const AT: Stamp = Stamp {
        year: 2026,
        month: 3,
        day: 7,
        hour: 9,
        minute: 5,
        second: 41,
    };

    #[test]
    fn a_screenshot_without_a_useful_name_is_named_by_the_time() {
        assert_eq!(
            pasted_name("image.png", Some("image/png"), AT),
            "Pasted image 2026-03-07 09.05.41.png"
        );
        assert_eq!(
            pasted_name("", Some("image/jpeg"), AT),
            "Pasted image 2026-03-07 09.05.41.jpg"
        );
        assert_eq!(
            pasted_name("Image.PNG", None, AT),
            "Pasted image 2026-03-07 09.05.41.png"
        );
        assert_eq!(
            pasted_name("blob", Some("application/pdf"), AT),
            "Pasted file 2026-03-07 09.05.41.pdf"
        );
        assert_eq!(pasted_name("", None, AT), "Pasted file 2026-03-07 09.05.41");
    }

    #[test]
    fn a_file_with_a_name_keeps_it() {
        assert_eq!(
            pasted_name("Quarterly report.pdf", Some("application/pdf"), AT),
            "Quarterly report.pdf"
        );
        assert_eq!(
            pasted_name(" diagram.png ", Some("image/png"), AT),
            "diagram.png"
        );
        assert_eq!(pasted_name("notes", Some("text/plain"), AT), "notes");
        assert_eq!(
            pasted_name("image-2.png", Some("image/png"), AT),
            "image-2.png"
        );
    }
}
