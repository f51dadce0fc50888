use std::collections::BTreeMap;
use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::fs::FileSystem;
use crate::thread_files::ThreadFiles;
use crate::tool::ToolContext;
use tokio_util::sync::CancellationToken;

fn ctx(files: &ThreadFiles) -> ToolContext {
    ToolContext {
        thread_id: "t".into(),
        call_id: "c".into(),
        fs: Arc::new(files.clone()),
        nested: None,
    }
}

#[tokio::test]
async fn edit_replaces_exactly_one_or_all() {
    let files = ThreadFiles::new(BTreeMap::from([("/f".to_owned(), "a b a".to_owned())]));
    let c = ctx(&files);
    let cancel = CancellationToken::new();
    let err = EditFile
        .call(
            &c,
            json!({"file_path": "/f", "old_string": "a", "new_string": "x"}),
            cancel.clone(),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("appears 2 times"), "{err}");
    let ok = EditFile
        .call(
            &c,
            json!({"file_path": "/f", "old_string": "a", "new_string": "x", "replace_all": true}),
            cancel.clone(),
        )
        .await
        .unwrap();
    assert_eq!(ok.to_text(), "Replaced 2 occurrences in /f.");
    assert_eq!(files.read("/f").await.unwrap(), "x b x");
    let missing = EditFile
        .call(
            &c,
            json!({"file_path": "/f", "old_string": "zz", "new_string": "y"}),
            cancel,
        )
        .await
        .unwrap_err();
    assert!(missing.to_string().contains("not found"), "{missing}");
}

#[tokio::test]
async fn a_cancelled_call_does_nothing() {
    let files = ThreadFiles::default();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = WriteFile
        .call(
            &ctx(&files),
            json!({"file_path": "/f", "content": "x"}),
            cancel,
        )
        .await
        .unwrap_err();
    assert_eq!(err, ToolError::Cancelled);
    assert!(!files.has_changes());
}
