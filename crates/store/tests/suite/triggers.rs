use pizza_store::{
    Error, NewOccurrence, OccurrenceReason, OccurrenceStatus, Recorded, SecretHash, Trigger,
    TriggerKind, TriggerUpdate,
};
use pretty_assertions::assert_eq;

use super::support::{
    T0, assert_not_found, cron_trigger, open, open_at, row_counts, webhook_trigger,
};

/// Checks that `err` is `InvalidInput` and names `field`.
fn assert_invalid(err: &Error, field: &str) {
    assert!(
        matches!(err, Error::InvalidInput(m) if m.contains(field)),
        "expected InvalidInput naming {field}: {err:?}"
    );
}

#[tokio::test]
async fn create_get_update_enable_delete_and_survive_reopen() {
    let t = open().await;
    let mut new = cron_trigger("  Morning digest ");
    new.model = Some("gpt-5".into());
    let cron = t.store.create_trigger(new).await.unwrap();
    assert_eq!(
        cron,
        Trigger {
            id: cron.id.clone(),
            name: "Morning digest".into(),
            kind: TriggerKind::Cron,
            prompt: "Summarise my inbox".into(),
            model: Some("gpt-5".into()),
            enabled: true,
            cron: Some("0 9 * * 1-5".into()),
            timezone: Some("Europe/Paris".into()),
            webhook_secret: None,
            created_at: T0,
            updated_at: T0,
            last_run_at: None,
            last_thread_id: None,
        }
    );
    assert_eq!(t.store.trigger(&cron.id).await.unwrap(), cron);

    t.clock.advance(10);
    let hook = t
        .store
        .create_trigger(webhook_trigger("Deploys"))
        .await
        .unwrap();
    assert_eq!(hook.prompt, "", "an empty prompt is kept");
    let logged = format!("{hook:?}");
    assert!(
        !logged.contains("7, 7") && logged.contains("SecretHash"),
        "the hash stays out of logs: {logged}"
    );

    t.clock.advance(10);
    let updated = t
        .store
        .update_trigger(
            &cron.id,
            TriggerUpdate {
                name: Some("Evening digest".into()),
                cron: Some("0 18 * * *".into()),
                timezone: Some(None),
                model: Some(None),
                ..TriggerUpdate::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        (
            updated.name.as_str(),
            updated.cron.as_deref(),
            updated.timezone.as_deref(),
            updated.model.as_deref(),
            updated.prompt.as_str(),
            updated.created_at,
            updated.updated_at,
        ),
        (
            "Evening digest",
            Some("0 18 * * *"),
            None,
            None,
            "Summarise my inbox",
            T0,
            T0 + 20
        )
    );

    let rotated = SecretHash {
        hash: vec![1; 32],
        salt: vec![2; 16],
    };
    let hook = t
        .store
        .update_trigger(
            &hook.id,
            TriggerUpdate {
                webhook_secret: Some(rotated.clone()),
                ..TriggerUpdate::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(hook.webhook_secret, Some(rotated));

    let off = t.store.set_trigger_enabled(&cron.id, false).await.unwrap();
    assert!(!off.enabled);
    let list: Vec<_> = t
        .store
        .list_triggers()
        .await
        .unwrap()
        .into_iter()
        .map(|s| (s.trigger, s.last_occurrence))
        .collect();
    assert_eq!(list, vec![(off.clone(), None), (hook.clone(), None)]);

    t.store.delete_trigger(&hook.id).await.unwrap();
    assert_not_found(&t.store.trigger(&hook.id).await.unwrap_err(), "trigger");
    t.store.close().await;
    let store = open_at(t.dir.path(), t.clock.clone()).await;
    let list: Vec<_> = store
        .list_triggers()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.trigger)
        .collect();
    assert_eq!(list, vec![off]);
}

#[tokio::test]
async fn bad_triggers_are_refused_naming_the_field_and_write_nothing() {
    let t = open().await;
    let cron = t.store.create_trigger(cron_trigger("Daily")).await.unwrap();
    let hook = t
        .store
        .create_trigger(webhook_trigger("Hook"))
        .await
        .unwrap();
    let before = row_counts(t.dir.path()).await;

    let cases: Vec<(&str, pizza_store::NewTrigger)> = vec![
        ("name", cron_trigger("   ")),
        ("name", cron_trigger(&"n".repeat(201))),
        ("cron", {
            let mut n = cron_trigger("No schedule");
            n.cron = None;
            n
        }),
        ("cron", {
            let mut n = cron_trigger("Blank schedule");
            n.cron = Some("  ".into());
            n
        }),
        ("timezone", {
            let mut n = cron_trigger("Blank zone");
            n.timezone = Some(String::new());
            n
        }),
        ("model", {
            let mut n = cron_trigger("Blank model");
            n.model = Some(" ".into());
            n
        }),
        ("prompt", {
            let mut n = cron_trigger("Huge prompt");
            n.prompt = "p".repeat(100_001);
            n
        }),
        ("webhook_secret", {
            let mut n = cron_trigger("Cron with a secret");
            n.webhook_secret = webhook_trigger("x").webhook_secret;
            n
        }),
        ("webhook_secret", {
            let mut n = webhook_trigger("No secret");
            n.webhook_secret = None;
            n
        }),
        ("webhook_secret", {
            let mut n = webhook_trigger("Short hash");
            n.webhook_secret = Some(SecretHash {
                hash: vec![1; 4],
                salt: vec![2; 16],
            });
            n
        }),
        ("webhook_secret", {
            let mut n = webhook_trigger("No salt");
            n.webhook_secret = Some(SecretHash {
                hash: vec![1; 32],
                salt: Vec::new(),
            });
            n
        }),
        ("cron", {
            let mut n = webhook_trigger("Webhook with a schedule");
            n.cron = Some("* * * * *".into());
            n
        }),
    ];
    for (field, new) in cases {
        let name = new.name.clone();
        let err = t.store.create_trigger(new).await.unwrap_err();
        assert_invalid(&err, field);
        assert!(
            err.code() == pizza_protocol::ErrorCode::InvalidInput,
            "{name}"
        );
    }

    let updates = [
        (
            &cron.id,
            "name",
            TriggerUpdate {
                name: Some(String::new()),
                ..TriggerUpdate::default()
            },
        ),
        (
            &cron.id,
            "webhook_secret",
            TriggerUpdate {
                webhook_secret: webhook_trigger("x").webhook_secret,
                ..TriggerUpdate::default()
            },
        ),
        (
            &hook.id,
            "cron",
            TriggerUpdate {
                cron: Some("@daily".into()),
                ..TriggerUpdate::default()
            },
        ),
        (
            &hook.id,
            "timezone",
            TriggerUpdate {
                timezone: Some(Some("UTC".into())),
                ..TriggerUpdate::default()
            },
        ),
    ];
    for (id, field, update) in updates {
        let err = t.store.update_trigger(id, update).await.unwrap_err();
        assert_invalid(&err, field);
    }
    for err in [
        t.store
            .update_trigger("missing", TriggerUpdate::default())
            .await
            .unwrap_err(),
        t.store
            .set_trigger_enabled("missing", true)
            .await
            .unwrap_err(),
        t.store.delete_trigger("missing").await.unwrap_err(),
    ] {
        assert_not_found(&err, "trigger");
    }
    assert_eq!(row_counts(t.dir.path()).await, before);
    assert_eq!(t.store.trigger(&cron.id).await.unwrap(), cron);
    assert_eq!(t.store.trigger(&hook.id).await.unwrap(), hook);
}

#[tokio::test]
async fn the_list_gives_each_trigger_its_newest_occurrence_and_delete_cascades() {
    let t = open().await;
    let a = t.store.create_trigger(cron_trigger("A")).await.unwrap();
    t.clock.advance(1);
    let b = t.store.create_trigger(cron_trigger("B")).await.unwrap();
    let mut newest_of_a = None;
    for tick in 1..=3 {
        let recorded = t
            .store
            .record_occurrence(NewOccurrence {
                trigger_id: a.id.clone(),
                scheduled_at: T0 + tick * 60_000,
                reason: OccurrenceReason::Cron,
                prompt: None,
                sentence: None,
            })
            .await
            .unwrap();
        let Recorded::Pending(o) = recorded else {
            panic!("{recorded:?}")
        };
        let o = t
            .store
            .claim_occurrence(&o.id, &format!("run-{tick}"), &format!("thread-{tick}"))
            .await
            .unwrap();
        newest_of_a = Some(
            t.store
                .finish_occurrence(
                    &o.id,
                    &format!("run-{tick}"),
                    pizza_store::OccurrenceOutcome::Succeeded,
                )
                .await
                .unwrap(),
        );
    }
    let list = t.store.list_triggers().await.unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].trigger.id, a.id);
    assert_eq!(list[0].trigger.last_thread_id.as_deref(), Some("thread-3"));
    assert_eq!(list[0].last_occurrence, newest_of_a);
    assert_eq!(
        list[0].last_occurrence.as_ref().map(|o| o.status),
        Some(OccurrenceStatus::Succeeded)
    );
    assert_eq!(
        (list[1].trigger.id.as_str(), &list[1].last_occurrence),
        (b.id.as_str(), &None)
    );

    t.store.delete_trigger(&a.id).await.unwrap();
    let page = t.store.list_occurrences(&a.id, None, 0).await.unwrap();
    assert_eq!(
        page.occurrences,
        vec![],
        "the history goes with its trigger"
    );
}
