use pizza_store::{Enablement, Error};
use pretty_assertions::assert_eq;

use super::support::{T0, open, open_at};

fn switch(source: &str, id: &str, enabled: bool, updated_at: i64) -> Enablement {
    Enablement {
        kind: "skill".to_owned(),
        source: source.to_owned(),
        id: id.to_owned(),
        enabled,
        updated_at,
    }
}

#[tokio::test]
async fn switches_are_kept_per_kind_source_and_id_and_survive_reopen() {
    let t = open().await;
    assert_eq!(t.store.enablement("skill").await.unwrap(), vec![]);

    t.store
        .set_enablement("skill", "builtin", "pizza-bot-guide", false)
        .await
        .unwrap();
    t.store
        .set_enablement("skill", "user", "pizza-bot-guide", true)
        .await
        .unwrap();
    t.store
        .set_enablement("mcp_server", "user", "github", false)
        .await
        .unwrap();
    t.clock.advance(5);
    let changed = t
        .store
        .set_enablement("skill", "builtin", "pizza-bot-guide", true)
        .await
        .unwrap();
    assert_eq!(changed, switch("builtin", "pizza-bot-guide", true, T0 + 5));

    let expected = vec![
        switch("builtin", "pizza-bot-guide", true, T0 + 5),
        switch("user", "pizza-bot-guide", true, T0),
    ];
    assert_eq!(t.store.enablement("skill").await.unwrap(), expected);

    t.store.close().await;
    let store = open_at(t.dir.path(), t.clock.clone()).await;
    assert_eq!(store.enablement("skill").await.unwrap(), expected);
    let servers = store.enablement("mcp_server").await.unwrap();
    assert_eq!(servers.len(), 1);
    assert!(!servers[0].enabled);

    assert!(
        store
            .clear_enablement("skill", "user", "pizza-bot-guide")
            .await
            .unwrap()
    );
    assert!(
        !store
            .clear_enablement("skill", "user", "pizza-bot-guide")
            .await
            .unwrap()
    );
    assert_eq!(
        store.enablement("skill").await.unwrap(),
        vec![switch("builtin", "pizza-bot-guide", true, T0 + 5)]
    );
}

#[tokio::test]
async fn an_empty_or_overlong_key_is_refused_and_nothing_is_written() {
    let t = open().await;
    for (kind, source, id, field) in [
        ("", "user", "a", "kind"),
        ("skill", "", "a", "source"),
        ("skill", "user", "", "id"),
        ("skill", "user", &*"x".repeat(257), "id"),
    ] {
        let err = t
            .store
            .set_enablement(kind, source, id, false)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::InvalidInput(m) if m.starts_with(&format!("{field}: "))),
            "{err:?}"
        );
    }
    assert_eq!(t.store.enablement("skill").await.unwrap(), vec![]);
}
