use pizza_store::{Error, FolderFilter, FolderUpdate, NewThread, ThreadQuery};
use pretty_assertions::assert_eq;

use super::support::{open, row_counts};

#[tokio::test]
async fn create_list_rename_reorder() {
    let t = open().await;
    let a = t.store.create_folder(" Work ").await.unwrap();
    let b = t.store.create_folder("Home").await.unwrap();
    assert_eq!((a.name.as_str(), a.sort_order), ("Work", 0));
    assert_eq!(b.sort_order, 1);
    let names = |fs: Vec<pizza_store::Folder>| fs.into_iter().map(|f| f.name).collect::<Vec<_>>();
    assert_eq!(
        names(t.store.list_folders().await.unwrap()),
        ["Work", "Home"]
    );

    t.store
        .update_folder(
            &a.id,
            FolderUpdate {
                sort_order: Some(5),
                ..FolderUpdate::default()
            },
        )
        .await
        .unwrap();
    let renamed = t
        .store
        .update_folder(
            &b.id,
            FolderUpdate {
                name: Some("House".into()),
                ..FolderUpdate::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(renamed.name, "House");
    assert_eq!(
        names(t.store.list_folders().await.unwrap()),
        ["House", "Work"]
    );
    // Renaming to another case of its own name is not a conflict.
    let recased = t
        .store
        .update_folder(
            &b.id,
            FolderUpdate {
                name: Some("HOUSE".into()),
                ..FolderUpdate::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(recased.name, "HOUSE");
}

#[tokio::test]
async fn duplicate_and_bad_names_are_refused_and_write_nothing() {
    let t = open().await;
    let a = t.store.create_folder("Ünïcode").await.unwrap();
    let b = t.store.create_folder("Other").await.unwrap();
    let before = row_counts(t.dir.path()).await;

    for dup in ["ünïcode", "ÜNÏCODE", " Ünïcode  "] {
        let err = t.store.create_folder(dup).await.unwrap_err();
        assert!(matches!(err, Error::Conflict(_)), "{dup}: {err:?}");
    }
    let err = t
        .store
        .update_folder(
            &b.id,
            FolderUpdate {
                name: Some("ÜNÏCODE".into()),
                sort_order: Some(9),
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Conflict(_)), "{err:?}");
    for bad in [String::new(), "  ".into(), "x".repeat(81)] {
        let err = t.store.create_folder(&bad).await.unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
    }
    assert!(t.store.create_folder(&"é".repeat(80)).await.is_ok());
    let err = t
        .store
        .update_folder("missing", FolderUpdate::default())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");

    t.store
        .delete_folder(&t.store.list_folders().await.unwrap()[2].id)
        .await
        .unwrap();
    assert_eq!(row_counts(t.dir.path()).await, before);
    assert_eq!(t.store.folder(&b.id).await.unwrap().sort_order, 1);
    assert_eq!(t.store.folder(&a.id).await.unwrap().name, "Ünïcode");
}

#[tokio::test]
async fn deleting_a_folder_moves_its_threads_to_no_folder() {
    let t = open().await;
    let f = t.store.create_folder("Temp").await.unwrap();
    let th = t
        .store
        .create_thread(NewThread {
            folder_id: Some(f.id.clone()),
            ..NewThread::default()
        })
        .await
        .unwrap();
    t.store.delete_folder(&f.id).await.unwrap();
    assert_eq!(t.store.thread(&th.id).await.unwrap().folder_id, None);
    let unfiled = t
        .store
        .list_threads(&ThreadQuery {
            folder: FolderFilter::Unfiled,
            ..ThreadQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(unfiled.threads.len(), 1);
    assert!(matches!(
        t.store.delete_folder(&f.id).await,
        Err(Error::NotFound { .. })
    ));
}
