use pizza_store::{Error, Grant};
use pretty_assertions::assert_eq;

use super::support::{T0, open, open_at};

#[tokio::test]
async fn add_list_update_remove_and_survive_reopen() {
    let t = open().await;
    assert_eq!(t.store.list_grants().await.unwrap(), Vec::<Grant>::new());

    let notes = t
        .store
        .add_grant("notes", "/home/p/notes", false)
        .await
        .unwrap();
    assert_eq!(
        notes,
        Grant {
            id: "notes".into(),
            path: "/home/p/notes".into(),
            writable: false,
            created_at: T0,
        }
    );
    t.clock.advance(5);
    t.store
        .add_grant("code", "/home/p/code", true)
        .await
        .unwrap();
    let ids: Vec<_> = t
        .store
        .list_grants()
        .await
        .unwrap()
        .into_iter()
        .map(|g| (g.id, g.writable))
        .collect();
    assert_eq!(ids, vec![("code".into(), true), ("notes".into(), false)]);

    let notes = t.store.set_grant_writable("notes", true).await.unwrap();
    assert!(notes.writable);
    assert_eq!(notes.created_at, T0, "an update keeps the creation time");

    t.store.delete_grant("code").await.unwrap();
    t.store.close().await;
    let store = open_at(t.dir.path(), t.clock.clone()).await;
    assert_eq!(store.list_grants().await.unwrap(), vec![notes]);
}

#[tokio::test]
async fn duplicates_and_bad_rows_are_refused_and_change_nothing() {
    let t = open().await;
    t.store.add_grant("notes", "/a/notes", false).await.unwrap();
    let before = t.store.list_grants().await.unwrap();

    let same_id = t.store.add_grant("notes", "/b", false).await.unwrap_err();
    assert!(
        matches!(&same_id, Error::Conflict(m) if m.contains("\"notes\"")),
        "{same_id:?}"
    );
    let same_path = t
        .store
        .add_grant("other", "/a/notes", true)
        .await
        .unwrap_err();
    assert!(
        matches!(&same_path, Error::Conflict(m) if m.contains("/a/notes")),
        "{same_path:?}"
    );

    let long_id = "x".repeat(49);
    assert!(matches!(
        t.store.add_grant(&long_id, "/c", false).await,
        Err(Error::InvalidInput(_))
    ));
    let long_path = format!("/{}", "p".repeat(4_096));
    assert!(matches!(
        t.store.add_grant("long", &long_path, false).await,
        Err(Error::InvalidInput(_))
    ));
    assert!(matches!(
        t.store.add_grant("", "/c", false).await,
        Err(Error::InvalidInput(_))
    ));
    assert!(matches!(
        t.store.set_grant_writable("missing", true).await,
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        t.store.delete_grant("missing").await,
        Err(Error::NotFound { .. })
    ));
    assert_eq!(t.store.list_grants().await.unwrap(), before);
}
