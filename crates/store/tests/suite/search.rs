use pizza_store::{Error, MARK_END, MARK_START, Role};
use pretty_assertions::assert_eq;

use super::support::{assistant, new_thread, open, step, user};

fn marked(word: &str) -> String {
    format!("{MARK_START}{word}{MARK_END}")
}

#[tokio::test]
async fn finds_stemmed_words_with_highlights() {
    let t = open().await;
    let a = new_thread(&t.store).await;
    let b = new_thread(&t.store).await;
    let done = t
        .commit(
            &a.id,
            step(vec![
                user("Please summarize the quarterly running costs"),
                assistant("The runners cost less than expected."),
            ]),
        )
        .await;
    t.commit(&b.id, step(vec![user("Nothing relevant here")]))
        .await;

    let hits = t.store.search("run", 10).await.unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
    let first = hits.iter().find(|h| h.role == Role::User).unwrap();
    assert_eq!(first.thread_id, a.id);
    assert_eq!(first.message_id, done.messages[0].id);
    assert_eq!(first.seq, 1);
    assert!(
        first.snippet.contains(&marked("running")),
        "{}",
        first.snippet
    );

    // Porter stemming: "costs" matches "cost".
    let hits = t.store.search("costs quarterly", 10).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert!(
        hits[0].snippet.contains(&marked("quarterly")),
        "{}",
        hits[0].snippet
    );

    assert_eq!(t.store.search("zebra", 10).await.unwrap(), vec![]);
    assert_eq!(t.store.search("run", 1).await.unwrap().len(), 1);
}

#[tokio::test]
async fn fts_syntax_in_queries_is_plain_text() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    t.commit(
        &th.id,
        step(vec![user(
            "use AND or NEAR(x) with \"quotes\" and col:on * carets^",
        )]),
    )
    .await;
    for q in [
        "AND",
        "OR x",
        "NOT",
        "NEAR(",
        "\"",
        "\"quotes",
        "col:on",
        "x*",
        "^carets",
        "(",
        "a)",
        "-x",
        "+",
        "{x}",
        "messages_fts",
        "'",
        "\\",
    ] {
        let r = t.store.search(q, 10).await;
        match r {
            Ok(_) | Err(Error::InvalidInput(_)) => {}
            Err(e) => panic!("{q:?} failed: {e:?}"),
        }
    }
    assert_eq!(t.store.search("NEAR(x)", 10).await.unwrap().len(), 1);
    assert_eq!(t.store.search("\"quotes\"", 10).await.unwrap().len(), 1);
    for empty in ["", "   ", "* ( )"] {
        assert!(
            matches!(t.store.search(empty, 10).await, Err(Error::InvalidInput(_))),
            "{empty:?}"
        );
    }
}

#[tokio::test]
async fn markers_in_message_text_cannot_fake_highlights() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let text = format!("sneaky {MARK_START}fake{MARK_END} marker");
    let done = t.commit(&th.id, step(vec![user(&text)])).await;
    assert!(!done.messages[0].text.contains(MARK_START));
    let hits = t.store.search("marker", 10).await.unwrap();
    assert_eq!(hits[0].snippet.matches(MARK_START).count(), 1);
}

#[tokio::test]
async fn newest_match_comes_first() {
    let t = open().await;
    let old = new_thread(&t.store).await;
    let new = new_thread(&t.store).await;
    t.commit(&old.id, step(vec![user("budget draft")])).await;
    t.commit(&new.id, step(vec![user("budget final")])).await;
    let hits = t.store.search("budget", 10).await.unwrap();
    let order: Vec<&str> = hits.iter().map(|h| h.thread_id.as_str()).collect();
    assert_eq!(order, [new.id.as_str(), old.id.as_str()]);
}
