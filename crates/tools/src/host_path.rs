//! Host file names in virtual paths: non-ASCII and path-sensitive bytes are
//! percent-encoded when shown and decoded once on use, so every host name has
//! exactly one plain-ASCII spelling and no spelling can smuggle in a
//! separator, `..` or NUL.

use std::ffi::OsString;

use unicode_normalization::UnicodeNormalization as _;

use crate::error::{Result, ToolError};

/// The longest single file name most filesystems accept, in bytes.
pub(crate) const NAME_MAX_BYTES: usize = 255;

/// A host file name as shown in a virtual path.
pub(crate) fn encode_name(name: &[u8]) -> String {
    let mut out = String::with_capacity(name.len());
    for &b in name {
        if (0x20..0x7f).contains(&b) && b != b'%' && b != b'\\' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The host names of the segments of `rest` (a normalized virtual path below
/// a mount, without its leading `/`; empty for the mount itself). Decodes
/// once: `%252e` names a file literally called `%2e`. `for_write` also
/// requires UTF-8 names, so nothing unreadable is ever created.
pub(crate) fn decode_segments(shown: &str, rest: &str, for_write: bool) -> Result<Vec<OsString>> {
    let refuse = |reason: String| ToolError::InvalidPath {
        path: shown.to_owned(),
        reason,
    };
    if rest.is_empty() {
        return Ok(Vec::new());
    }
    let mut names = Vec::new();
    for segment in rest.split('/') {
        let bytes: Vec<u8> = percent_encoding::percent_decode_str(segment).collect();
        if bytes.is_empty() {
            return Err(refuse("the path has an empty segment".to_owned()));
        }
        if bytes.contains(&0) {
            return Err(refuse(
                "the path contains an encoded NUL character".to_owned(),
            ));
        }
        if bytes.contains(&b'/') {
            return Err(refuse(
                "a name contains an encoded slash; separate folders with a plain /".to_owned(),
            ));
        }
        if bytes == b"." || bytes == b".." {
            return Err(refuse(
                "`.` and `..` segments are not allowed, encoded or not".to_owned(),
            ));
        }
        if bytes.len() > NAME_MAX_BYTES {
            return Err(refuse(format!(
                "the name {:?}… is longer than {NAME_MAX_BYTES} bytes",
                segment.chars().take(40).collect::<String>()
            )));
        }
        match std::str::from_utf8(&bytes) {
            Ok(text) => {
                let folded: String = text.nfkc().collect();
                if folded == "." || folded == ".." || folded.contains('/') {
                    return Err(refuse(format!(
                        "the name {text:?} reads as `{folded}` after Unicode normalization; \
                         such names are not allowed"
                    )));
                }
            }
            Err(_) if for_write => {
                return Err(refuse(
                    "a name decodes to bytes that are not UTF-8 text; new names must be text"
                        .to_owned(),
                ));
            }
            Err(_) => {}
        }
        names.push(os_name(bytes).map_err(refuse)?);
    }
    Ok(names)
}

/// A decoded name as the OS spells it: any bytes on Unix, text elsewhere.
#[cfg(unix)]
fn os_name(bytes: Vec<u8>) -> std::result::Result<OsString, String> {
    use std::os::unix::ffi::OsStringExt as _;
    Ok(OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn os_name(bytes: Vec<u8>) -> std::result::Result<OsString, String> {
    String::from_utf8(bytes)
        .map(OsString::from)
        .map_err(|_| "a name decodes to bytes that are not UTF-8 text".to_owned())
}

/// The NFKC form of a name, if it is text.
#[cfg(unix)]
pub(crate) fn nfkc(name: &[u8]) -> Option<String> {
    std::str::from_utf8(name).ok().map(|t| t.nfkc().collect())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStringExt as _;

    #[test]
    fn encoding_round_trips_and_is_plain_ascii() {
        for name in [
            "plain.md".as_bytes(),
            "café.md".as_bytes(),
            b"100%.txt",
            b"a\\b",
            b"tab\there",
            b"\xff\xfe",
        ] {
            let shown = encode_name(name);
            assert!(shown.is_ascii(), "{shown}");
            let back = decode_segments("/x", &shown, false).unwrap();
            assert_eq!(back, vec![OsString::from_vec(name.to_vec())]);
        }
        assert_eq!(encode_name("café".as_bytes()), "caf%C3%A9");
    }

    #[test]
    fn decoding_refuses_what_could_escape() {
        for rest in [
            "%2e%2e", "%2E%2E/x", "a/%2e", "%2f", "a%2Fb", "%00", "．．", "a/．", "a／b",
        ] {
            let err = decode_segments("/x", rest, false).unwrap_err();
            assert!(
                matches!(err, ToolError::InvalidPath { .. }),
                "{rest}: {err}"
            );
        }
        // Decoded once: a doubly encoded dot-dot is a harmless literal name.
        assert_eq!(
            decode_segments("/x", "%252e%252e", false).unwrap(),
            vec![OsString::from("%2e%2e")]
        );
        assert!(decode_segments("/x", "%c0%ae", true).is_err());
        assert!(decode_segments("/x", &"a".repeat(256), false).is_err());
    }
}
