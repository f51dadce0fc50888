use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::*;

fn grant(id: &str, path: &str, access: Access) -> Grant {
    Grant {
        id: id.to_owned(),
        path: PathBuf::from(path),
        access,
    }
}

#[test]
fn ids_are_short_slugs() {
    for ok in ["notes", "a", "my-notes-2", &"a".repeat(48)] {
        assert_eq!(validate_grant_id(ok), Ok(()), "{ok}");
    }
    for bad in [
        "",
        "-a",
        "a-",
        "Notes",
        "a b",
        "a_b",
        "é",
        "../x",
        &"a".repeat(49),
    ] {
        assert!(
            matches!(validate_grant_id(bad), Err(GrantError::Invalid(_))),
            "{bad}"
        );
    }
}

#[test]
fn suggested_ids_come_from_the_folder_name_and_are_unique() {
    assert_eq!(suggest_grant_id(Path::new("/home/me/Notes"), &[]), "notes");
    assert_eq!(
        suggest_grant_id(Path::new("/home/me/Notes"), &["notes", "notes-2"]),
        "notes-3"
    );
    assert_eq!(
        suggest_grant_id(Path::new("/x/Café Menu!"), &[]),
        "cafe-menu"
    );
    assert_eq!(suggest_grant_id(Path::new("/"), &[]), "folder");
    assert_eq!(suggest_grant_id(Path::new("/x/日本"), &[]), "folder");
    let long = suggest_grant_id(Path::new(&format!("/x/{}", "b".repeat(80))), &[]);
    assert_eq!(long.len(), 48);
    let taken = [long.as_str()];
    let next = suggest_grant_id(Path::new(&format!("/x/{}", "b".repeat(80))), &taken);
    assert_eq!(next.len(), 48);
    assert!(next.ends_with("-2"), "{next}");
    assert_eq!(validate_grant_id(&next), Ok(()));
}

#[test]
fn grant_paths_are_canonical_existing_folders() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().canonicalize().unwrap();
    std::fs::create_dir(real.join("sub")).unwrap();
    std::fs::write(real.join("file"), "x").unwrap();
    assert_eq!(
        canonical_grant_path(&real.join("sub/../sub")).unwrap(),
        real.join("sub")
    );
    for bad in [
        PathBuf::from("relative"),
        real.join("missing"),
        real.join("file"),
        PathBuf::from(format!("/{}", "a/".repeat(2_100))),
    ] {
        assert!(
            matches!(canonical_grant_path(&bad), Err(GrantError::Invalid(_))),
            "{}",
            bad.display()
        );
    }
}

#[test]
fn overlaps_follow_the_additive_rules() {
    let root = Path::new("/data/pizza");
    let ro = grant("docs", "/home/me/docs", Access::ReadOnly);
    let rw = grant("work", "/home/me/work", Access::ReadWrite);
    let existing = [ro.clone(), rw.clone()];
    let check = |g: &Grant| check_grant(&existing, g, root, false);

    // Disjoint, and a writable folder inside a read-only one: fine.
    assert_eq!(
        check(&grant("other", "/home/me/other", Access::ReadOnly)),
        Ok(())
    );
    assert_eq!(
        check(&grant("drafts", "/home/me/docs/drafts", Access::ReadWrite)),
        Ok(())
    );
    // A read-only folder around a writable one: fine.
    assert_eq!(
        check_grant(
            std::slice::from_ref(&rw),
            &grant("me", "/home/me", Access::ReadOnly),
            root,
            false
        ),
        Ok(())
    );
    // "/home/me/docsx" is not inside "/home/me/docs".
    assert_eq!(
        check(&grant("docsx", "/home/me/docsx", Access::ReadWrite)),
        Ok(())
    );

    for (candidate, says) in [
        (
            grant("docs", "/elsewhere", Access::ReadOnly),
            "already granted as /local/docs/",
        ),
        (
            grant("again", "/home/me/docs", Access::ReadWrite),
            "already granted",
        ),
        (
            grant("sub", "/home/me/docs/sub", Access::ReadOnly),
            "redundant",
        ),
        (
            grant("sub", "/home/me/work/sub", Access::ReadWrite),
            "redundant",
        ),
        (
            grant("sub", "/home/me/work/sub", Access::ReadOnly),
            "still be writable",
        ),
        (
            grant("all", "/home", Access::ReadWrite),
            "still be writable",
        ),
        (grant("all", "/home", Access::ReadOnly), "redundant"),
    ] {
        match check(&candidate) {
            Err(GrantError::Conflict(message)) => {
                assert!(message.contains(says), "{candidate:?}: {message}");
            }
            other => panic!("{candidate:?}: {other:?}"),
        }
    }
    assert!(matches!(
        check(&grant("Bad", "/x", Access::ReadOnly)),
        Err(GrantError::Invalid(_))
    ));
    assert!(matches!(
        check(&grant("rel", "relative/path", Access::ReadOnly)),
        Err(GrantError::Invalid(_))
    ));
}

#[test]
fn the_data_root_needs_an_acknowledgement_either_way() {
    let root = Path::new("/data/pizza");
    for path in ["/data/pizza", "/data/pizza/memories", "/data", "/"] {
        let g = grant("d", path, Access::ReadOnly);
        assert!(
            matches!(
                check_grant(&[], &g, root, false),
                Err(GrantError::OverlapsDataRoot(_))
            ),
            "{path}"
        );
        assert_eq!(check_grant(&[], &g, root, true), Ok(()), "{path}");
    }
    let g = grant("d", "/data/pizza-other", Access::ReadOnly);
    assert_eq!(check_grant(&[], &g, root, false), Ok(()));
}

#[test]
fn the_grants_line_maps_host_paths_to_virtual_ones() {
    assert_eq!(grants_line(&[]), None);
    assert_eq!(
        grants_line(&[
            grant("notes", "/home/me/notes", Access::ReadOnly),
            grant("out", "/tmp/out", Access::ReadWrite),
        ])
        .unwrap(),
        "Granted folders: /home/me/notes → /local/notes/ (read-only); /tmp/out → /local/out/ (read-write)."
    );
    assert_eq!(Access::default(), Access::ReadOnly);
    assert_eq!(
        serde_json::to_string(&Access::ReadWrite).unwrap(),
        "\"read_write\""
    );
    assert!(MEMORY_PROMPT.contains("/memories/"));
}
