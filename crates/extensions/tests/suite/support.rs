use std::fs;
use std::path::Path;

use pizza_extensions::Error;

/// A valid SKILL.md for `name`, with extra front matter lines.
pub(crate) fn skill_md(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Use for {name} work; returns a short report.\n{extra}---\n\n# {name}\n\nDo the {name} work.\n"
    )
}

/// Writes a skill folder `dir/name` with its SKILL.md and files.
pub(crate) fn write_skill(dir: &Path, name: &str, text: &str, files: &[(&str, &[u8])]) {
    let folder = dir.join(name);
    fs::create_dir_all(&folder).unwrap();
    fs::write(folder.join("SKILL.md"), text).unwrap();
    for (path, bytes) in files {
        let path = folder.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
}

/// Asserts bad input naming `field`, and returns its message.
#[track_caller]
pub(crate) fn assert_invalid(err: &Error, field: &str) -> String {
    match err {
        Error::Invalid { field: found, .. } => {
            assert_eq!(found, field, "{err}");
            assert_eq!(err.code(), pizza_protocol::ErrorCode::InvalidInput);
            err.to_string()
        }
        other => panic!("expected bad input naming {field}, got {other:?}"),
    }
}

/// Every file under `dir`, relative, sorted (dot-folders included).
pub(crate) fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(listing) = fs::read_dir(dir) else {
        return;
    };
    for item in listing.flatten() {
        let path = item.path();
        if item.file_type().unwrap().is_dir() {
            walk(root, &path, out);
        } else {
            out.push(
                path.strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
    }
}
