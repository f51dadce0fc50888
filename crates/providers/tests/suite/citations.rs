//! Citations: each format's way of naming what an answer cites, replayed in
//! its documented stream shape and folded into the answer's sources.

use pizza_llm::{Completion, ContentPart, Source, StopReason, StreamCollector, StreamEvent};
use pretty_assertions::assert_eq;

use super::common::{Format, replay, request};

/// Claude answering from a web search and two documents: the citations
/// arrive as `citations_delta` on the text blocks that make claims, and the
/// same page may be cited twice.
const ANTHROPIC_CITATIONS: &str = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_01Cit","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":2679,"output_tokens":3}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"According to the sources, "}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":"","citations":[]}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location","cited_text":"According to legend, Rome was founded in 753 BC by Romulus.","url":"https://en.wikipedia.org/wiki/Founding_of_Rome","title":"Founding of Rome - Wikipedia","encrypted_index":"Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm"}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Rome was founded in 753 BC"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"The dough rests for 48 hours.","document_index":0,"document_title":"Pizza notes","start_char_index":0,"end_char_index":29}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":{"type":"page_location","cited_text":"Bake at 250 °C.","document_index":1,"document_title":null,"start_page_number":2,"end_page_number":3}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location","cited_text":"Romulus","url":"https://en.wikipedia.org/wiki/Founding_of_Rome","title":"Founding of Rome - Wikipedia","encrypted_index":"Eo8BCioIAhgBIiQ"}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":", and the dough rests for two days."}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":40}}

event: message_stop
data: {"type":"message_stop"}
"#;

/// A Responses answer after a web search: one annotation streams as
/// `annotation.added`, the finished message repeats it and adds another.
const RESPONSES_CITATIONS: &str = r#"event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_cit","object":"response","status":"in_progress","model":"gpt-4.1","output":[]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"in_progress"}}

event: response.web_search_call.in_progress
data: {"type":"response.web_search_call.in_progress","sequence_number":2,"output_index":0,"item_id":"ws_1"}

event: response.web_search_call.searching
data: {"type":"response.web_search_call.searching","sequence_number":3,"output_index":0,"item_id":"ws_1"}

event: response.web_search_call.completed
data: {"type":"response.web_search_call.completed","sequence_number":4,"output_index":0,"item_id":"ws_1"}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":5,"output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"completed","action":{"type":"search","query":"founding of rome"}}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":6,"output_index":1,"item":{"id":"msg_cit","type":"message","status":"in_progress","role":"assistant","content":[]}}

event: response.content_part.added
data: {"type":"response.content_part.added","sequence_number":7,"item_id":"msg_cit","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":8,"item_id":"msg_cit","output_index":1,"content_index":0,"delta":"Rome was founded in 753 BC."}

event: response.output_text.annotation.added
data: {"type":"response.output_text.annotation.added","sequence_number":9,"item_id":"msg_cit","output_index":1,"content_index":0,"annotation_index":0,"annotation":{"type":"url_citation","start_index":0,"end_index":27,"url":"https://en.wikipedia.org/wiki/Founding_of_Rome?utm_source=openai","title":"Founding of Rome - Wikipedia"}}

event: response.output_text.done
data: {"type":"response.output_text.done","sequence_number":10,"item_id":"msg_cit","output_index":1,"content_index":0,"text":"Rome was founded in 753 BC."}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":11,"output_index":1,"item":{"id":"msg_cit","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Rome was founded in 753 BC.","annotations":[{"type":"url_citation","start_index":0,"end_index":27,"url":"https://en.wikipedia.org/wiki/Founding_of_Rome?utm_source=openai","title":"Founding of Rome - Wikipedia"},{"type":"url_citation","start_index":0,"end_index":27,"url":"https://www.britannica.com/place/Rome?utm_source=openai","title":""}]}]}}

event: response.completed
data: {"type":"response.completed","sequence_number":12,"response":{"id":"resp_cit","object":"response","status":"completed","output":[],"usage":{"input_tokens":310,"input_tokens_details":{"cached_tokens":0},"output_tokens":20,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":330}}}
"#;

/// A Gemini answer grounded in Google Search: the last chunk carries the
/// grounding chunks (redirect links titled by the page's domain).
const GEMINI_GROUNDING: &str = r#"data: {"candidates": [{"content": {"parts": [{"text": "Rome was founded"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 9,"totalTokenCount": 9},"modelVersion": "gemini-2.5-flash"}

data: {"candidates": [{"content": {"parts": [{"text": " in 753 BC."}],"role": "model"},"finishReason": "STOP","index": 0,"groundingMetadata": {"webSearchQueries": ["founding of rome"],"searchEntryPoint": {"renderedContent": "<div class=\"container\"></div>"},"groundingChunks": [{"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbF9wXE","title": "wikipedia.org"}},{"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/Xy12Qz","title": "britannica.com"}}],"groundingSupports": [{"segment": {"startIndex": 0,"endIndex": 27,"text": "Rome was founded in 753 BC."},"groundingChunkIndices": [0, 1],"confidenceScores": [0.93, 0.81]}]}}],"usageMetadata": {"promptTokenCount": 9,"candidatesTokenCount": 8,"totalTokenCount": 17},"modelVersion": "gemini-2.5-flash"}
"#;

async fn fold(format: Format, raw: &str, model: &str) -> Completion {
    let (events, error, _) = replay(format, raw, request(model)).await;
    assert!(error.is_none(), "{error:?}");
    let mut collector = StreamCollector::new();
    events.into_iter().for_each(|e| collector.push(e));
    collector.finish().unwrap()
}

fn web(url: &str, title: Option<&str>, cited: Option<&str>) -> Source {
    Source::web(url, title).with_cited_text(cited)
}

#[tokio::test]
async fn anthropic_citations_become_the_answers_sources() {
    let done = fold(Format::Anthropic, ANTHROPIC_CITATIONS, "claude-sonnet-4-5").await;
    assert_eq!(
        done.message.content,
        vec![ContentPart::text(
            "According to the sources, Rome was founded in 753 BC, and the dough rests for two days."
        )]
    );
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    assert_eq!(
        done.sources,
        vec![
            web(
                "https://en.wikipedia.org/wiki/Founding_of_Rome",
                Some("Founding of Rome - Wikipedia"),
                Some("According to legend, Rome was founded in 753 BC by Romulus."),
            ),
            web(
                "",
                Some("Pizza notes"),
                Some("The dough rests for 48 hours.")
            ),
            // A document sent without a title is named by its place.
            web("", Some("Document 2"), Some("Bake at 250 °C.")),
        ]
    );
}

#[tokio::test]
async fn responses_url_citations_streamed_and_in_the_finished_message() {
    let (events, error, _) =
        replay(Format::Responses, RESPONSES_CITATIONS, request("gpt-4.1")).await;
    assert!(error.is_none(), "{error:?}");
    // The web search is the provider's own: no tool call for the agent.
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, StreamEvent::ToolCallStart { .. }))
    );
    let done = fold(Format::Responses, RESPONSES_CITATIONS, "gpt-4.1").await;
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    assert_eq!(
        done.sources,
        vec![
            web(
                "https://en.wikipedia.org/wiki/Founding_of_Rome?utm_source=openai",
                Some("Founding of Rome - Wikipedia"),
                None,
            ),
            web(
                "https://www.britannica.com/place/Rome?utm_source=openai",
                None,
                None
            ),
        ]
    );
}

#[tokio::test]
async fn gemini_grounding_chunks_become_the_answers_sources() {
    let done = fold(Format::Gemini, GEMINI_GROUNDING, "test-model").await;
    assert_eq!(
        done.message.content,
        vec![ContentPart::text("Rome was founded in 753 BC.")]
    );
    assert_eq!(
        done.sources,
        vec![
            web(
                "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbF9wXE",
                Some("wikipedia.org"),
                None,
            ),
            web(
                "https://vertexaisearch.cloud.google.com/grounding-api-redirect/Xy12Qz",
                Some("britannica.com"),
                None,
            ),
        ]
    );
}
