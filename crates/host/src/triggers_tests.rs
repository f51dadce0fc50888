//! Trigger commands against a real temp store, with a scripted model
//! registered as the `fake` provider.

use crate::runs::tests::{MODEL, open};
use pizza_llm::FakeModel;
use pizza_protocol::{
    ErrorCode, OccurrenceListParams, TRIGGER_PREVIEW_FIRES, TriggerIdParams, TriggerKind,
    TriggerListParams, TriggerPreviewParams, TriggerSaveParams, TriggerSetEnabledParams,
};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;

fn weekdays_in_paris() -> TriggerSaveParams {
    TriggerSaveParams {
        id: None,
        name: "Standup notes".to_owned(),
        kind: TriggerKind::Cron,
        prompt: "Summarise yesterday.".to_owned(),
        model: Some(MODEL.to_owned()),
        enabled: true,
        cron: "0 9 * * 1-5".to_owned(),
        timezone: Some("Europe/Paris".to_owned()),
    }
}

async fn trigger_count(host: &crate::Host) -> usize {
    host.store().list_triggers().await.unwrap().len()
}

#[tokio::test]
async fn preview_lists_the_next_five_fires_and_the_words() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::default()).await;
    let preview = host
        .trigger_preview(TriggerPreviewParams {
            cron: "0 9 * * 1-5".to_owned(),
            timezone: Some("Europe/Paris".to_owned()),
        })
        .await
        .unwrap();
    assert_eq!(preview.next_fires.len(), TRIGGER_PREVIEW_FIRES);
    assert!(preview.next_fires.windows(2).all(|w| w[0] < w[1]));
    assert!(
        preview.description.starts_with("Every weekday at 09:00"),
        "{}",
        preview.description
    );
    assert_eq!(preview.timezone, "Europe/Paris");
}

#[tokio::test]
async fn preview_of_a_bad_cron_or_zone_names_the_field() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::default()).await;
    let bad_cron = host
        .trigger_preview(TriggerPreviewParams {
            cron: "0 9 * *".to_owned(),
            timezone: None,
        })
        .await
        .unwrap_err();
    assert_eq!(bad_cron.code, ErrorCode::InvalidInput);
    assert!(
        bad_cron.message.starts_with("cron:"),
        "{}",
        bad_cron.message
    );

    let bad_zone = host
        .trigger_preview(TriggerPreviewParams {
            cron: "@daily".to_owned(),
            timezone: Some("Mars/Olympus".to_owned()),
        })
        .await
        .unwrap_err();
    assert_eq!(bad_zone.code, ErrorCode::InvalidInput);
    assert!(
        bad_zone.message.starts_with("timezone:"),
        "{}",
        bad_zone.message
    );
}

#[tokio::test]
async fn a_saved_trigger_lists_with_its_words_and_next_fire() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::default()).await;
    let saved = host
        .trigger_save(weekdays_in_paris())
        .await
        .unwrap()
        .trigger;
    let list = host.trigger_list(TriggerListParams {}).await.unwrap();
    assert_eq!(list.triggers, vec![saved.clone()]);
    let listed = &list.triggers[0];
    assert_eq!(listed.name, "Standup notes");
    assert_eq!(listed.cron.as_deref(), Some("0 9 * * 1-5"));
    assert_eq!(listed.model.as_deref(), Some(MODEL));
    let words = listed.schedule.as_deref().unwrap_or_default();
    assert!(words.starts_with("Every weekday at 09:00"), "{words}");
    let preview = host
        .trigger_preview(TriggerPreviewParams {
            cron: "0 9 * * 1-5".to_owned(),
            timezone: Some("Europe/Paris".to_owned()),
        })
        .await
        .unwrap();
    assert_eq!(listed.next_fire_at, preview.next_fires.first().copied());
    assert_eq!(listed.last_outcome, None);
    assert!(!list.default_timezone.is_empty());

    // Saving with the id updates the same trigger.
    let renamed = host
        .trigger_save(TriggerSaveParams {
            id: Some(saved.id.clone()),
            name: "Morning notes".to_owned(),
            cron: "@daily".to_owned(),
            enabled: false,
            ..weekdays_in_paris()
        })
        .await
        .unwrap()
        .trigger;
    assert_eq!(renamed.id, saved.id);
    assert_eq!(renamed.name, "Morning notes");
    assert_eq!(renamed.next_fire_at, None);
    assert_eq!(trigger_count(&host).await, 1);
}

#[tokio::test]
async fn bad_input_names_the_field_and_saves_nothing() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::default()).await;
    let cases = [
        (
            "cron",
            TriggerSaveParams {
                cron: "61 * * * *".to_owned(),
                ..weekdays_in_paris()
            },
        ),
        (
            "timezone",
            TriggerSaveParams {
                timezone: Some("Europe/Atlantis".to_owned()),
                ..weekdays_in_paris()
            },
        ),
        (
            "name",
            TriggerSaveParams {
                name: "  ".to_owned(),
                ..weekdays_in_paris()
            },
        ),
        (
            "model",
            TriggerSaveParams {
                model: Some("fake:no-such-model".to_owned()),
                ..weekdays_in_paris()
            },
        ),
        (
            "model",
            TriggerSaveParams {
                model: Some("nowhere:m".to_owned()),
                ..weekdays_in_paris()
            },
        ),
    ];
    for (field, params) in cases {
        let refused = host.trigger_save(params).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidInput, "{field}");
        assert!(
            refused.message.starts_with(&format!("{field}:")),
            "{field}: {}",
            refused.message
        );
    }
    assert_eq!(trigger_count(&host).await, 0);

    // A bad update leaves the saved trigger as it was.
    let saved = host
        .trigger_save(weekdays_in_paris())
        .await
        .unwrap()
        .trigger;
    let refused = host
        .trigger_save(TriggerSaveParams {
            id: Some(saved.id.clone()),
            name: "Renamed".to_owned(),
            cron: "0 0 31 2 *".to_owned(),
            ..weekdays_in_paris()
        })
        .await
        .unwrap_err();
    assert!(refused.message.starts_with("cron:"), "{}", refused.message);
    let list = host.trigger_list(TriggerListParams {}).await.unwrap();
    assert_eq!(list.triggers, vec![saved]);
}

#[tokio::test]
async fn set_enabled_disarms_and_rearms() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::default()).await;
    let saved = host
        .trigger_save(weekdays_in_paris())
        .await
        .unwrap()
        .trigger;
    assert!(saved.next_fire_at.is_some());
    let disabled = host
        .trigger_set_enabled(TriggerSetEnabledParams {
            id: saved.id.clone(),
            enabled: false,
        })
        .await
        .unwrap();
    assert!(!disabled.enabled);
    assert_eq!(disabled.next_fire_at, None);
    let listed = host.trigger_list(TriggerListParams {}).await.unwrap();
    assert!(!listed.triggers[0].enabled);
    let enabled = host
        .trigger_set_enabled(TriggerSetEnabledParams {
            id: saved.id.clone(),
            enabled: true,
        })
        .await
        .unwrap();
    assert_eq!(enabled.next_fire_at, saved.next_fire_at);

    let unknown = host
        .trigger_set_enabled(TriggerSetEnabledParams {
            id: "no-such-trigger".to_owned(),
            enabled: true,
        })
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn delete_removes_the_trigger_and_its_history() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::default()).await;
    let saved = host
        .trigger_save(weekdays_in_paris())
        .await
        .unwrap()
        .trigger;
    let history = host
        .occurrence_list(OccurrenceListParams {
            trigger_id: saved.id.clone(),
            cursor: None,
        })
        .await
        .unwrap();
    assert!(history.occurrences.is_empty());
    host.trigger_delete(TriggerIdParams {
        id: saved.id.clone(),
    })
    .await
    .unwrap();
    assert_eq!(trigger_count(&host).await, 0);
    let gone = host
        .occurrence_list(OccurrenceListParams {
            trigger_id: saved.id,
            cursor: None,
        })
        .await
        .unwrap_err();
    assert_eq!(gone.code, ErrorCode::NotFound);
}
