//! Boundary attacks that need more than one call: revocation mid-turn, a
//! folder swapped for a link by a racing thread, hard links.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use pizza_tools::{Access, ToolError};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::boundary::{Lab, SECRET_CONTENT};

#[tokio::test]
async fn a_grant_removed_or_downgraded_mid_turn_stops_on_the_next_call() {
    let lab = Lab::new();
    let read = json!({"file_path": "/local/rw/existing.md"});
    assert!(
        lab.call("read_file", read.clone())
            .await
            .unwrap()
            .contains("writable existing")
    );
    let write = json!({"file_path": "/local/rw/new.md", "content": "one"});
    assert_eq!(
        lab.call("write_file", write.clone()).await.unwrap(),
        "Created /local/rw/new.md (3 characters)."
    );

    let mut mounts = lab.default_mounts();
    for grant in &mut mounts.grants {
        if grant.id == "rw" {
            grant.access = Access::ReadOnly;
        }
    }
    lab.mounts.set(mounts.clone());
    let err = lab.call("write_file", write.clone()).await.unwrap_err();
    let ToolError::PermissionDenied { reason, .. } = &err else {
        panic!("{err:?}");
    };
    assert!(reason.contains("/local/rw/ is read-only"), "{reason}");
    assert!(reason.contains("Settings › Files"), "{reason}");
    assert!(lab.call("read_file", read.clone()).await.is_ok());

    mounts.grants.retain(|g| g.id != "rw");
    lab.mounts.set(mounts);
    for (tool, args) in [
        ("read_file", read),
        ("write_file", write),
        ("ls", json!({"path": "/local/rw"})),
    ] {
        let err = lab.call(tool, args).await.unwrap_err();
        assert!(
            matches!(&err, ToolError::PermissionDenied { reason, .. } if reason.contains("no folder is granted as \"rw\"")),
            "{err:?}"
        );
    }
    let listing = lab.call("ls", json!({"path": "/local"})).await.unwrap();
    assert!(!listing.contains("/local/rw"), "{listing}");
}

#[tokio::test]
async fn a_folder_swapped_for_a_link_by_a_racing_thread_never_leaks() {
    let lab = Lab::new();
    let dir = lab.root.join("ro/rw/swapdir");
    let link = lab.root.join("ro/rw/swaplink");
    std::os::unix::fs::symlink(lab.root.join("outside/swapdir"), &link).unwrap();
    let outside_before = std::fs::read_dir(lab.root.join("outside/swapdir"))
        .unwrap()
        .count();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        let (dir, link) = (dir.clone(), link.clone());
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    &dir,
                    rustix::fs::CWD,
                    &link,
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .unwrap();
                swaps += 1;
            }
            swaps
        })
    };
    let (mut served, mut refused) = (0usize, 0usize);
    for i in 0..400 {
        let outcome = if i % 2 == 0 {
            lab.call("read_file", json!({"file_path": "/local/rw/swapdir/f.txt"}))
                .await
        } else {
            let args =
                json!({"file_path": format!("/local/rw/swapdir/new-{i}.txt"), "content": "PWNED"});
            lab.call("write_file", args).await
        };
        match outcome {
            Ok(text) => {
                assert!(!text.contains(SECRET_CONTENT), "{text}");
                served += 1;
            }
            Err(e) => {
                assert!(!e.to_string().contains(SECRET_CONTENT), "{e}");
                assert!(
                    matches!(
                        e,
                        ToolError::PermissionDenied { .. } | ToolError::NotFound { .. }
                    ),
                    "{e:?}"
                );
                refused += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    println!(
        "swap race: {swaps} swaps, {served} calls served inside, {refused} refused, 0 escapes"
    );
    assert_eq!(
        std::fs::read_dir(lab.root.join("outside/swapdir"))
            .unwrap()
            .count(),
        outside_before,
        "a file was created outside the grant"
    );
    assert_eq!(
        std::fs::read_to_string(lab.root.join("outside/swapdir/f.txt")).unwrap(),
        "S3CR3T-CONTENT-3\n"
    );
}

/// The documented limit: a hard link inside a grant to an outside file is
/// indistinguishable from any other file and is readable; a write replaces
/// the link (temp file + rename), so the outside file keeps its content.
#[tokio::test]
async fn a_hard_link_is_readable_but_a_write_replaces_it() {
    let lab = Lab::new();
    let read = lab
        .call("read_file", json!({"file_path": "/local/rw/hard.txt"}))
        .await;
    assert!(read.unwrap().contains("hard link original"));
    lab.call(
        "write_file",
        json!({"file_path": "/local/rw/hard.txt", "content": "new"}),
    )
    .await
    .unwrap();
    lab.call(
        "edit_file",
        json!({"file_path": "/local/rw/hard.txt", "old_string": "new", "new_string": "newer"}),
    )
    .await
    .unwrap();
    let outside = lab.root.join("outside/hard-source.txt");
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        "hard link original\n"
    );
    assert_eq!(
        std::fs::read_to_string(lab.root.join("ro/rw/hard.txt")).unwrap(),
        "newer"
    );
    use std::os::unix::fs::MetadataExt as _;
    assert_eq!(std::fs::metadata(&outside).unwrap().nlink(), 1);
}

/// Case-only and NFKC-ambiguous names never resolve to a neighbour.
#[tokio::test]
async fn case_only_and_ambiguous_names_reach_exactly_their_own_file() {
    let lab = Lab::new();
    for (path, expected) in [
        ("/local/ro/Collide.md", "upper collide"),
        ("/local/ro/collide.md", "lower collide"),
        ("/local/ro/%C3%85.md", "nfc angstrom"),
        ("/local/ro/A%CC%8A.md", "nfd angstrom"),
    ] {
        let page = lab
            .call("read_file", json!({"file_path": path}))
            .await
            .unwrap();
        assert_eq!(page, format!("     1\t{expected}"), "{path}");
    }
    // U+212B ANGSTROM SIGN normalizes to both names above: ambiguous, so
    // neither is read.
    let err = lab
        .call("read_file", json!({"file_path": "/local/ro/\u{212b}.md"}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::NotFound { .. }), "{err:?}");
}
