use pizza_store::Error;
use pretty_assertions::assert_eq;
use serde::{Deserialize, Serialize};

use super::support::open;

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct Prefs {
    theme: String,
    notify: bool,
}

#[tokio::test]
async fn get_set_and_defaults() {
    let t = open().await;
    assert_eq!(
        t.store.setting::<Prefs>("prefs").await.unwrap(),
        Prefs::default()
    );
    let prefs = Prefs {
        theme: "dark".into(),
        notify: true,
    };
    t.store.set_setting("prefs", &prefs).await.unwrap();
    assert_eq!(t.store.setting::<Prefs>("prefs").await.unwrap(), prefs);
    t.store
        .set_setting("prefs", &Prefs::default())
        .await
        .unwrap();
    assert_eq!(
        t.store.setting::<Prefs>("prefs").await.unwrap(),
        Prefs::default()
    );

    // A value of another shape reads as the default instead of failing.
    t.store
        .set_setting("prefs", &"just a string")
        .await
        .unwrap();
    assert_eq!(
        t.store.setting::<Prefs>("prefs").await.unwrap(),
        Prefs::default()
    );
    assert_eq!(t.store.setting_opt::<Prefs>("prefs").await.unwrap(), None);
    assert_eq!(
        t.store.setting::<String>("prefs").await.unwrap(),
        "just a string"
    );

    t.store.delete_setting("prefs").await.unwrap();
    assert_eq!(t.store.setting_opt::<String>("prefs").await.unwrap(), None);
    assert!(matches!(
        t.store.set_setting(" ", &1).await,
        Err(Error::InvalidInput(_))
    ));
}
