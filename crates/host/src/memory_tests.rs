//! Memory commands against a real data root in a temp dir.

use super::*;
use pizza_protocol::{SettingsGetParams, SettingsPatch};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;

use crate::tests::open;

fn write(name: &str, content: &str) -> MemoryWriteParams {
    MemoryWriteParams {
        name: name.to_owned(),
        content: content.to_owned(),
    }
}

fn named(name: &str) -> MemoryNameParams {
    MemoryNameParams {
        name: name.to_owned(),
    }
}

#[tokio::test]
async fn write_list_get_delete_with_memory_off() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let empty = host.memory_list(MemoryListParams {}).await.unwrap();
    assert_eq!(empty.memories, Vec::new());
    assert!(!empty.enabled, "memory is off by default");
    assert_eq!(
        empty.folder,
        root.path().join("memories").display().to_string()
    );

    let long = format!("# Pizza\n\n{}", "crust ".repeat(100));
    let saved = host.memory_write(write("pizza.md", &long)).await.unwrap();
    assert_eq!(saved.content, long);
    host.memory_write(write("about-me.md", "Likes tea."))
        .await
        .unwrap();

    let dir = root.path().join("memories");
    assert_eq!(std::fs::read_to_string(dir.join("pizza.md")).unwrap(), long);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("pizza.md")), 0o600);
    }

    let list = host.memory_list(MemoryListParams {}).await.unwrap();
    let names: Vec<_> = list.memories.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["about-me.md", "pizza.md"]);
    assert_eq!(list.memories[0].preview, "Likes tea.");
    assert_eq!(list.memories[0].size, 10);
    let pizza = &list.memories[1].preview;
    assert_eq!(pizza.chars().count(), MEMORY_PREVIEW_CHARS + 1);
    assert!(
        pizza.starts_with("# Pizza crust crust") && pizza.ends_with('…'),
        "{pizza}"
    );

    // Replacing keeps one file.
    host.memory_write(write("about-me.md", "Likes coffee now."))
        .await
        .unwrap();
    assert_eq!(
        host.memory_get(named("about-me.md")).await.unwrap().content,
        "Likes coffee now."
    );
    host.memory_delete(named("about-me.md")).await.unwrap();
    let err = host.memory_get(named("about-me.md")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    let err = host.memory_delete(named("about-me.md")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["pizza.md"], "no temp files left behind");
}

#[tokio::test]
async fn bad_names_and_sizes_are_refused_and_change_nothing() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    host.memory_write(write("kept.md", "kept")).await.unwrap();
    let long_name = format!("{}.md", "n".repeat(253));
    for name in [
        "",
        "  ",
        "a/b.md",
        "../x.md",
        "..",
        "a\0.md",
        "a\\b.md",
        ".hidden.md",
        ".md",
        "notes.txt",
        &long_name,
    ] {
        let err = host.memory_write(write(name, "x")).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput, "{name:?}: {err:?}");
    }
    for name in ["../pizza-bot.sqlite", "", "a/b.md"] {
        assert_eq!(
            host.memory_get(named(name)).await.unwrap_err().code,
            ErrorCode::InvalidInput
        );
        assert_eq!(
            host.memory_delete(named(name)).await.unwrap_err().code,
            ErrorCode::InvalidInput
        );
    }
    let too_big = "x".repeat(MEMORY_CONTENT_MAX + 1);
    let err = host
        .memory_write(write("big.md", &too_big))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(err.message.contains("1 MB"), "{}", err.message);
    host.memory_write(write("max.md", &"x".repeat(MEMORY_CONTENT_MAX)))
        .await
        .unwrap();

    let names: Vec<_> = host
        .memory_list(MemoryListParams {})
        .await
        .unwrap()
        .memories
        .into_iter()
        .map(|m| m.name)
        .collect();
    assert_eq!(names, ["kept.md", "max.md"]);
    assert!(root.path().join("pizza-bot.sqlite").exists());
}

#[tokio::test]
async fn turning_memory_on_creates_the_folder_and_shows_in_the_list() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    assert!(
        !host
            .settings_get(SettingsGetParams {})
            .await
            .unwrap()
            .memories_enabled
    );
    let settings = host
        .settings_update(SettingsPatch {
            memories_enabled: Some(true),
            ..SettingsPatch::default()
        })
        .await
        .unwrap();
    assert!(settings.memories_enabled);
    assert!(root.path().join("memories").is_dir());
    assert!(host.memory_list(MemoryListParams {}).await.unwrap().enabled);
    host.close().await;

    let host = open(&root).await;
    assert!(
        host.settings_get(SettingsGetParams {})
            .await
            .unwrap()
            .memories_enabled
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_link_swapped_into_the_memories_folder_is_refused() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    host.memory_write(write("kept.md", "kept")).await.unwrap();
    let dir = root.path().join("memories");
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.md");
    std::fs::write(&secret, "the outside secret").unwrap();

    // A memory swapped for a link to a file outside the folder.
    std::os::unix::fs::symlink(&secret, dir.join("swapped.md")).unwrap();
    let err = host.memory_get(named("swapped.md")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err:?}");
    let err = host
        .memory_write(write("swapped.md", "overwritten"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict, "{err:?}");
    let err = host.memory_delete(named("swapped.md")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err:?}");
    let names: Vec<_> = host
        .memory_list(MemoryListParams {})
        .await
        .unwrap()
        .memories
        .into_iter()
        .map(|m| m.name)
        .collect();
    assert_eq!(names, ["kept.md"]);
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "the outside secret"
    );
    assert!(dir.join("swapped.md").is_symlink(), "the link itself stays");

    // The whole folder swapped for a link to a folder outside.
    std::fs::rename(&dir, root.path().join("memories-before")).unwrap();
    std::os::unix::fs::symlink(outside.path(), &dir).unwrap();
    let err = host.memory_get(named("secret.md")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err:?}");
    let list = host.memory_list(MemoryListParams {}).await.unwrap();
    assert_eq!(list.memories, Vec::new());
    assert!(
        host.memory_write(write("secret.md", "overwritten"))
            .await
            .is_err()
    );
    assert!(host.memory_write(write("new.md", "planted")).await.is_err());
    assert!(host.memory_delete(named("secret.md")).await.is_err());
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "the outside secret"
    );
    assert!(!outside.path().join("new.md").exists());
}
