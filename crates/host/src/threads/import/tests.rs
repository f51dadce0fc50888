use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pizza_protocol::{
    ErrorCode, ExportChooseParams, ExportFormat, ImportFormat, MessagePart, MessageView, Role,
    ThreadCreateParams, ThreadExportParams, ThreadGetParams, ThreadImportChooseParams,
    ThreadImportParams, ThreadListParams, ThreadSearchParams,
};
use pizza_store::{NewAttachment, NewMessage, Part, ResultPart, Role as StoreRole, StepCommit};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::Host;
use crate::tests::open;
use crate::threads::tests::ChosenFiles;

fn params(path: &Path) -> ThreadImportParams {
    ThreadImportParams {
        path: path.display().to_string(),
    }
}

async fn messages(host: &Host, thread_id: &str) -> Vec<MessageView> {
    host.thread_get(ThreadGetParams {
        thread_id: thread_id.to_owned(),
        before_seq: None,
        limit: Some(200),
    })
    .await
    .unwrap()
    .messages
}

/// Role and parts: what a round trip keeps (ids and seqs are the new thread's).
fn shape(messages: &[MessageView]) -> Vec<(Role, Vec<MessagePart>)> {
    messages.iter().map(|m| (m.role, m.parts.clone())).collect()
}

async fn thread_count(host: &Host) -> u64 {
    host.thread_list(ThreadListParams::default())
        .await
        .unwrap()
        .counts
        .all
}

/// A thread with an image from the person, a tool call, its result and an answer.
async fn seeded(host: &Host) -> String {
    let thread = host
        .thread_create(ThreadCreateParams {
            title: Some("Toppings".to_owned()),
            folder_id: None,
        })
        .await
        .unwrap();
    let image = host
        .store()
        .add_attachment(NewAttachment {
            thread_id: Some(&thread.id),
            name: "menu.png",
            mime: "image/png",
            bytes: b"\x89PNG fake",
        })
        .await
        .unwrap();
    let ask = NewMessage::new(
        StoreRole::User,
        vec![
            Part::text("What toppings are in my notes?"),
            Part::Image {
                attachment: image.reference(),
            },
        ],
        "What toppings are in my notes?\n[menu.png]",
    );
    let call = NewMessage::new(
        StoreRole::Assistant,
        vec![
            Part::text("Let me look."),
            Part::ToolCall {
                id: "c1".into(),
                name: "read_file".into(),
                arguments: json!({"path": "/notes.txt"}),
            },
        ],
        "Let me look.",
    )
    .with_tool_calls(["c1"]);
    let result = NewMessage::new(
        StoreRole::Tool,
        vec![Part::ToolResult {
            call_id: "c1".into(),
            content: vec![ResultPart::text("pepperoni and basil")],
            is_error: false,
        }],
        "pepperoni and basil",
    )
    .answering("c1");
    let answer = NewMessage::new(
        StoreRole::Assistant,
        vec![Part::text("Your notes list pepperoni and basil.")],
        "Your notes list pepperoni and basil.",
    );
    host.store()
        .commit_step(
            &thread.id,
            StepCommit {
                messages: vec![ask, call, result, answer],
                ..StepCommit::default()
            },
        )
        .await
        .unwrap();
    thread.id
}

/// An open dialog that answers `path`.
struct OpenAnswers(Mutex<Option<PathBuf>>);

impl crate::DesktopShell for OpenAnswers {
    fn open_thread(&self, _thread_id: &str) {}
    fn hide_quick_ask(&self) {}
    fn set_quick_ask_shortcut(&self, _: Option<&str>) -> Result<(), crate::ShortcutError> {
        Ok(())
    }
    fn shortcuts_unsupported(&self) -> Option<String> {
        None
    }
    fn choose_open_file(&self, dialog: crate::OpenDialog) -> Option<PathBuf> {
        assert_eq!(dialog.extension, "json,jsonl");
        self.0.lock().unwrap().take()
    }
}

#[tokio::test]
async fn an_exported_thread_comes_back_with_its_tool_call_and_file() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let original = seeded(&host).await;
    let file = root.base().join("Toppings.jsonl");
    host.set_desktop_shell(Arc::new(ChosenFiles(Mutex::new([file.clone()].into()))))
        .await;
    let token = host
        .export_choose(ExportChooseParams {
            format: ExportFormat::Jsonl,
            suggested_name: Some("Toppings".to_owned()),
        })
        .await
        .unwrap()
        .unwrap()
        .token;
    host.thread_export(ThreadExportParams {
        thread_id: original.clone(),
        format: ExportFormat::Jsonl,
        token,
    })
    .await
    .unwrap();

    let preview = host.thread_import_preview(params(&file)).await.unwrap();
    assert_eq!(
        (
            preview.format,
            preview.count,
            preview.conversations[0].messages
        ),
        (ImportFormat::PizzaBotJsonl, 1, 4)
    );
    assert_eq!(preview.conversations[0].title, "Toppings");

    let imported = host.thread_import(params(&file)).await.unwrap();
    assert_eq!(imported.len(), 1);
    let copy = &imported[0];
    assert_ne!(copy.id, original);
    assert_eq!((copy.title.as_str(), copy.unread), ("Toppings", false));
    let before = messages(&host, &original).await;
    let after = messages(&host, &copy.id).await;
    assert_eq!(shape(&after), shape(&before));
    assert_eq!(
        after.iter().map(|m| m.created_at).collect::<Vec<_>>(),
        before.iter().map(|m| m.created_at).collect::<Vec<_>>()
    );
    // The image was found by its hash: the same file, linked to the copy.
    assert!(matches!(
        &after[0].parts[1],
        MessagePart::Attachment { attachment } if attachment.name == "menu.png"
    ));
    // Deleting the original keeps the copy's file.
    host.thread_delete(pizza_protocol::ThreadIdParams {
        thread_id: original,
    })
    .await
    .unwrap();
    let MessagePart::Attachment { attachment } = &after[0].parts[1] else {
        unreachable!()
    };
    assert!(
        host.store()
            .attachment_path(&attachment.id)
            .unwrap()
            .is_file()
    );
    // And it is searchable like any other thread.
    let hits = host
        .thread_search(ThreadSearchParams {
            q: "pepperoni".to_owned(),
            limit: None,
        })
        .await
        .unwrap();
    assert!(hits.iter().all(|h| h.thread_id == copy.id) && !hits.is_empty());
}

#[tokio::test]
async fn a_bad_line_is_named_and_nothing_is_imported() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let file = root.base().join("broken.jsonl");
    let good = json!({"role": "user", "parts": [{"type": "text", "text": "hi"}], "created_at": 1});
    for (bad, says) in [
        ("{\"role\": \"user\", \"parts\": [", "line 3, column"),
        ("{\"role\": \"wizard\", \"parts\": []}", "line 3, column"),
        (
            "{\"role\": \"user\", \"parts\": [{\"type\": \"spell\"}]}",
            "line 3: part 1",
        ),
        (
            "{\"role\": \"tool\", \"parts\": [{\"type\": \"tool_result\", \"call_id\": \"x\", \"content\": \"ok\"}]}",
            "line 3: the result answers the call “x”",
        ),
    ] {
        std::fs::write(&file, format!("{good}\n\n{bad}\n{good}\n")).unwrap();
        for err in [
            host.thread_import_preview(params(&file)).await.unwrap_err(),
            host.thread_import(params(&file)).await.unwrap_err(),
        ] {
            assert_eq!(err.code, ErrorCode::InvalidInput);
            assert!(
                err.message.contains(says),
                "{} (wanted {says})",
                err.message
            );
            assert!(err.message.contains("broken.jsonl"), "{}", err.message);
        }
    }
    assert_eq!(thread_count(&host).await, 0);

    // A JSON file is named by line and column.
    let json_file = root.base().join("conversations.json");
    std::fs::write(
        &json_file,
        "[\n  {\"title\": \"x\", \"mapping\": {}},\n  {\"title\": 3}\n]",
    )
    .unwrap();
    let err = host.thread_import(params(&json_file)).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(err.message.contains("line 3, column"), "{}", err.message);
    for (content, name) in [
        ("", "empty.json"),
        ("hello", "notes.txt"),
        ("[]", "none.json"),
    ] {
        let path = root.base().join(name);
        std::fs::write(&path, content).unwrap();
        let err = host.thread_import(params(&path)).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput, "{name}");
    }
    let relative = host
        .thread_import(ThreadImportParams {
            path: "conversations.json".to_owned(),
        })
        .await
        .unwrap_err();
    assert_eq!(relative.code, ErrorCode::InvalidInput);
    assert_eq!(thread_count(&host).await, 0);
}

#[tokio::test]
async fn a_call_without_result_gets_one() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let file = root.base().join("Waiting.jsonl");
    let lines = [
        json!({"role": "user", "parts": [{"type": "text", "text": "Write the report"}], "created_at": 10}),
        json!({"role": "assistant", "parts": [{"type": "tool_call", "id": "w1", "name": "write_file",
            "arguments": {"path": "/report.md"}}], "created_at": 20}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, text).unwrap();
    let imported = host.thread_import(params(&file)).await.unwrap();
    let after = messages(&host, &imported[0].id).await;
    assert_eq!(after.len(), 3);
    assert!(matches!(
        &after[2].parts[0],
        MessagePart::ToolResult { call_id, is_error: true, .. } if call_id == "w1"
    ));
    assert_eq!(after[2].created_at, 20);
    // So it forks and exports like any other thread.
    host.thread_fork(pizza_protocol::ThreadForkParams {
        thread_id: imported[0].id.clone(),
        message_id: after[2].id.clone(),
    })
    .await
    .unwrap();
}

/// A ChatGPT conversation with an edited question: the old branch and the
/// new one share the root; `current_node` ends the new one.
fn chatgpt_export() -> serde_json::Value {
    let node = |id: &str, parent: Option<&str>, children: &[&str], message: serde_json::Value| {
        (
            id.to_owned(),
            json!({"id": id, "parent": parent, "children": children, "message": message}),
        )
    };
    let message = |role: &str, text: &str, at: f64| {
        json!({"author": {"role": role}, "create_time": at,
               "content": {"content_type": "text", "parts": [text]}, "metadata": {}})
    };
    let mapping: serde_json::Map<String, serde_json::Value> = [
        node("root", None, &["sys"], serde_json::Value::Null),
        node(
            "sys",
            Some("root"),
            &["ctx"],
            message("system", "", 1_700_000_000.0),
        ),
        node(
            "ctx",
            Some("sys"),
            &["q-old", "q-new"],
            json!({"author": {"role": "user"}, "create_time": 1_700_000_001.0,
                   "content": {"content_type": "user_editable_context", "user_profile": "x"},
                   "metadata": {"is_visually_hidden_from_conversation": true}}),
        ),
        node(
            "q-old",
            Some("ctx"),
            &["a-old"],
            message("user", "Old question", 1_700_000_002.0),
        ),
        node(
            "a-old",
            Some("q-old"),
            &[],
            message("assistant", "Old answer", 1_700_000_003.0),
        ),
        node(
            "q-new",
            Some("ctx"),
            &["a-new"],
            message("user", "How hot should the oven be?", 1_700_000_010.5),
        ),
        node(
            "a-new",
            Some("q-new"),
            &["tool"],
            message("assistant", "As hot as it goes.", 1_700_000_011.0),
        ),
        node(
            "tool",
            Some("a-new"),
            &["empty"],
            message("tool", "search results", 1_700_000_012.0),
        ),
        node(
            "empty",
            Some("tool"),
            &[],
            message("assistant", "", 1_700_000_013.0),
        ),
    ]
    .into_iter()
    .collect();
    json!([
        {"title": "Oven temperature", "create_time": 1_700_000_000.25, "update_time": 1_700_000_020.0,
         "mapping": mapping, "current_node": "empty", "id": "c1"},
        {"title": "Only a system node", "create_time": 1_700_000_000.0, "update_time": 1_700_000_000.0,
         "mapping": {"r": {"id": "r", "parent": null, "children": [], "message": null}},
         "current_node": "r"}
    ])
}

#[tokio::test]
async fn chatgpt_keeps_the_current_branch_titles_and_times() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let file = root.base().join("conversations.json");
    std::fs::write(
        &file,
        serde_json::to_string_pretty(&chatgpt_export()).unwrap(),
    )
    .unwrap();

    let preview = host.thread_import_preview(params(&file)).await.unwrap();
    assert_eq!((preview.format, preview.count), (ImportFormat::Chatgpt, 1));
    let listed = &preview.conversations[0];
    assert_eq!(
        (
            listed.title.as_str(),
            listed.created_at,
            listed.updated_at,
            listed.messages
        ),
        ("Oven temperature", 1_700_000_000_250, 1_700_000_020_000, 2)
    );

    let imported = host.thread_import(params(&file)).await.unwrap();
    assert_eq!(imported.len(), 1);
    let thread = &imported[0];
    assert_eq!(
        (
            thread.title.as_str(),
            thread.created_at,
            thread.last_activity_at,
            thread.unread
        ),
        (
            "Oven temperature",
            1_700_000_000_250,
            1_700_000_020_000,
            false
        )
    );
    let after = messages(&host, &thread.id).await;
    let text = |m: &MessageView| match &m.parts[..] {
        [MessagePart::Text { text }] => text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        after
            .iter()
            .map(|m| (m.role, text(m), m.created_at))
            .collect::<Vec<_>>(),
        [
            (
                Role::User,
                "How hot should the oven be?".to_owned(),
                1_700_000_010_500
            ),
            (
                Role::Assistant,
                "As hot as it goes.".to_owned(),
                1_700_000_011_000
            ),
        ]
    );
    let unread = host
        .thread_list(ThreadListParams {
            view: pizza_protocol::ThreadView::Unread,
            ..ThreadListParams::default()
        })
        .await
        .unwrap();
    assert_eq!(unread.counts.unread, 0);
}

#[tokio::test]
async fn claude_conversations_import_with_their_names_and_thinking() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let file = root.base().join("conversations.json");
    let export = json!([
        {"uuid": "u1", "name": "Dough hydration", "created_at": "2024-03-01T10:00:00.000000Z",
         "updated_at": "2024-03-01T10:05:00.000000+00:00", "chat_messages": [
            {"uuid": "m1", "sender": "human", "text": "What hydration for pizza?",
             "content": [{"type": "text", "text": "What hydration for pizza?"}],
             "created_at": "2024-03-01T10:00:01Z", "attachments": [], "files": []},
            {"uuid": "m2", "sender": "assistant", "text": "Around 65%.",
             "content": [{"type": "thinking", "thinking": "Neapolitan is 60-65."},
                         {"type": "text", "text": "Around 65%."}],
             "created_at": "2024-03-01T10:00:05Z"}
         ]},
        {"uuid": "u2", "name": "", "created_at": "2024-04-01T09:00:00Z", "updated_at": "2024-04-01T09:00:00Z",
         "chat_messages": [{"sender": "human", "text": "Calzone or stromboli?", "content": [],
                            "created_at": "2024-04-01T09:00:00Z"}]}
    ]);
    std::fs::write(&file, export.to_string()).unwrap();
    let preview = host.thread_import_preview(params(&file)).await.unwrap();
    assert_eq!((preview.format, preview.count), (ImportFormat::Claude, 2));
    assert_eq!(
        preview
            .conversations
            .iter()
            .map(|c| (c.title.as_str(), c.messages))
            .collect::<Vec<_>>(),
        [("Dough hydration", 2), ("Calzone or stromboli?", 1)]
    );

    let imported = host.thread_import(params(&file)).await.unwrap();
    let first = &imported[0];
    assert_eq!(first.title, "Dough hydration");
    assert_eq!(first.created_at, 1_709_287_200_000);
    assert_eq!(first.last_activity_at, 1_709_287_500_000);
    let after = messages(&host, &first.id).await;
    assert_eq!(after[0].role, Role::User);
    assert_eq!(after[0].created_at, 1_709_287_201_000);
    assert_eq!(
        after[1].parts,
        [
            MessagePart::Reasoning {
                text: "Neapolitan is 60-65.".to_owned()
            },
            MessagePart::Text {
                text: "Around 65%.".to_owned()
            }
        ]
    );
    // Without a name, the thread is listed under its first question.
    assert_eq!(imported[1].title, "Calzone or stromboli?");
}

#[tokio::test]
async fn the_open_dialog_chooses_the_file() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let chosen = root.base().join("conversations.json");
    host.set_desktop_shell(Arc::new(OpenAnswers(Mutex::new(Some(chosen.clone())))))
        .await;
    let answer = host
        .thread_import_choose(ThreadImportChooseParams {})
        .await
        .unwrap();
    assert_eq!(answer, Some(chosen.display().to_string()));
    // Cancelled.
    let answer = host
        .thread_import_choose(ThreadImportChooseParams {})
        .await
        .unwrap();
    assert_eq!(answer, None);
}
