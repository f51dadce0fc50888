use hyper::StatusCode;
use hyper::header::HeaderValue;
use pretty_assertions::assert_eq;

use super::*;

fn prompt(content_type: Option<&'static str>, body: &str) -> Result<Option<String>, BodyRefusal> {
    prompt_of(
        content_type.map(HeaderValue::from_static).as_ref(),
        body.as_bytes(),
    )
}

fn refused(content_type: Option<&'static str>, body: &[u8]) -> (StatusCode, String) {
    let refusal = prompt_of(content_type.map(HeaderValue::from_static).as_ref(), body)
        .expect_err("the body should be refused");
    (refusal.status, refusal.sentence)
}

#[test]
fn a_json_object_gives_its_prompt_or_else_its_text() {
    let json = Some("application/json");
    assert_eq!(
        prompt(json, r#"{"prompt": "Sum up"}"#),
        Ok(Some("Sum up".into()))
    );
    assert_eq!(
        prompt(json, r#"{"text": " Sum up\n"}"#),
        Ok(Some("Sum up".into()))
    );
    assert_eq!(
        prompt(json, r#"{"prompt": "first", "text": "second"}"#),
        Ok(Some("first".into()))
    );
    assert_eq!(
        prompt(json, r#"{"prompt": null, "text": "second"}"#),
        Ok(Some("second".into()))
    );
    assert_eq!(prompt(json, r#"{"action": "opened"}"#), Ok(None));
    assert_eq!(prompt(json, r#"{"prompt": "  "}"#), Ok(None));
    assert_eq!(
        prompt(
            Some("application/vnd.api+json; charset=utf-8"),
            r#"{"prompt": "x"}"#
        ),
        Ok(Some("x".into()))
    );
    assert_eq!(
        prompt(Some("Application/JSON"), r#"{"prompt": "x"}"#),
        Ok(Some("x".into()))
    );
}

#[test]
fn a_text_body_is_the_prompt_and_a_blank_one_keeps_the_saved_prompt() {
    assert_eq!(
        prompt(None, "Check the deploy\n"),
        Ok(Some("Check the deploy".into()))
    );
    assert_eq!(
        prompt(Some("text/plain; charset=utf-8"), "Ça marche"),
        Ok(Some("Ça marche".into()))
    );
    assert_eq!(prompt(None, ""), Ok(None));
    assert_eq!(prompt(Some("text/plain"), " \n\t"), Ok(None));
    // An empty body needs no type at all.
    assert_eq!(
        prompt(Some("application/x-www-form-urlencoded"), ""),
        Ok(None)
    );
    assert_eq!(prompt(Some("application/json"), ""), Ok(None));
}

#[test]
fn malformed_json_and_wrong_shapes_are_refused_with_a_sentence() {
    let json = Some("application/json");
    let (status, sentence) = refused(json, b"{\"prompt\": ");
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        sentence.starts_with("the body is not valid JSON: "),
        "{sentence}"
    );
    assert_eq!(
        refused(json, b"[\"prompt\"]"),
        (
            StatusCode::BAD_REQUEST,
            "the JSON body must be an object such as {\"prompt\": \"…\"}".to_owned()
        )
    );
    assert_eq!(
        refused(json, br#"{"prompt": 42}"#),
        (
            StatusCode::BAD_REQUEST,
            "`prompt` must be a string".to_owned()
        )
    );
    assert_eq!(
        refused(json, br#"{"text": ["a"]}"#),
        (
            StatusCode::BAD_REQUEST,
            "`text` must be a string".to_owned()
        )
    );
}

#[test]
fn a_body_that_is_not_utf8_is_refused() {
    for content_type in [None, Some("text/plain"), Some("application/json")] {
        assert_eq!(
            refused(content_type, b"caf\xe9"),
            (
                StatusCode::BAD_REQUEST,
                "the body is not UTF-8 text".to_owned()
            )
        );
    }
}

#[test]
fn another_content_type_is_refused_saying_what_to_send() {
    let (status, sentence) = refused(Some("application/x-www-form-urlencoded"), b"a=b");
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(
        sentence.ends_with("not application/x-www-form-urlencoded"),
        "{sentence}"
    );
}
