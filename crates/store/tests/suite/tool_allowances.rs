use std::collections::BTreeSet;

use pretty_assertions::assert_eq;

use super::support::{assert_not_found, new_thread, open, open_at};

#[tokio::test]
async fn allowances_are_per_thread_survive_reopen_and_go_with_the_thread() {
    let t = open().await;
    let a = new_thread(&t.store).await;
    let b = new_thread(&t.store).await;
    t.store
        .allow_tool_in_thread(&a.id, "write_file")
        .await
        .unwrap();
    t.store
        .allow_tool_in_thread(&a.id, "write_file")
        .await
        .unwrap();
    t.store
        .allow_tool_in_thread(&a.id, "edit_file")
        .await
        .unwrap();
    let both: BTreeSet<String> = ["edit_file".to_owned(), "write_file".to_owned()].into();
    assert_eq!(t.store.thread_tool_allowances(&a.id).await.unwrap(), both);
    assert_eq!(
        t.store.thread_tool_allowances(&b.id).await.unwrap(),
        BTreeSet::new()
    );
    let err = t
        .store
        .allow_tool_in_thread("no-such-thread", "write_file")
        .await
        .unwrap_err();
    assert_not_found(&err, "thread");

    t.store.close().await;
    let store = open_at(t.dir.path(), t.clock.clone()).await;
    assert_eq!(store.thread_tool_allowances(&a.id).await.unwrap(), both);

    store.delete_thread(&a.id).await.unwrap();
    assert_eq!(
        store.thread_tool_allowances(&a.id).await.unwrap(),
        BTreeSet::new()
    );
    store
        .allow_tool_in_thread(&b.id, "write_file")
        .await
        .unwrap();
    store.clear_tool_allowances().await.unwrap();
    assert_eq!(
        store.thread_tool_allowances(&b.id).await.unwrap(),
        BTreeSet::new()
    );
}
