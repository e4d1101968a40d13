use serde_json::{Value, json};

use super::*;
use crate::model::session::{Activity, Status};
use crate::wire::provider::testing::{cited, run};

fn event(payload: Value) -> SseEvent {
    SseEvent {
        event: payload["type"].as_str().unwrap_or_default().to_owned(),
        data: payload.to_string(),
        id: String::new(),
    }
}

fn message(id: &str, blocks: &[Value], stop: &str) -> Vec<SseEvent> {
    let mut events = vec![event(json!({"type": "message_start", "message": {
        "id": id, "type": "message", "role": "assistant", "model": "claude-test", "content": []}}))];
    for (index, block) in blocks.iter().enumerate() {
        let mut start = block.clone();
        let deltas: Vec<Value> = start
            .as_object_mut()
            .and_then(|o| o.remove("_deltas"))
            .and_then(|d| d.as_array().cloned())
            .unwrap_or_default();
        events.push(event(
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for delta in deltas {
            events.push(event(
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        events.push(event(json!({"type": "content_block_stop", "index": index})));
    }
    events.push(event(
        json!({"type": "message_delta", "delta": {"stop_reason": stop},
        "usage": {"input_tokens": 10, "output_tokens": 5}}),
    ));
    events.push(event(json!({"type": "message_stop"})));
    events
}

fn text(deltas: &[&str]) -> Value {
    let deltas: Vec<Value> = deltas
        .iter()
        .map(|t| json!({"type": "text_delta", "text": t}))
        .collect();
    json!({"type": "text", "text": "", "_deltas": deltas})
}

fn cited_text(text: &str, url: &str, quote: &str) -> Value {
    json!({"type": "text", "text": "", "_deltas": [
        {"type": "citations_delta", "citation": {"type": "web_search_result_location",
            "url": url, "title": "T", "cited_text": quote, "encrypted_index": "e"}},
        {"type": "text_delta", "text": text}]})
}

fn search(id: &str, query: &str) -> Value {
    json!({"type": "server_tool_use", "id": id, "name": "web_search", "input": {}, "_deltas": [
        {"type": "input_json_delta", "partial_json": "{\"query\": "},
        {"type": "input_json_delta", "partial_json": format!("\"{query}\"}}")}]})
}

fn results(id: &str, urls: &[&str]) -> Value {
    let content: Vec<Value> = urls
        .iter()
        .map(|u| {
            json!({"type": "web_search_result", "title": u, "url": u,
            "encrypted_content": "x", "page_age": "2 days ago"})
        })
        .collect();
    json!({"type": "web_search_tool_result", "tool_use_id": id, "content": content})
}

#[test]
fn each_citation_spans_its_whole_text_block_in_code_points() {
    let events = message(
        "msg_1",
        &[
            search("s1", "weather"),
            results("s1", &["https://a.com/x", "https://b.com/y"]),
            text(&["Today: "]),
            cited_text("76°F and sunny", "https://a.com/x", "High 76°F"),
            text(&["."]),
        ],
        "end_turn",
    );
    let session = run(&mut AnthropicDialect::default(), events, true);
    assert_eq!(session.answer.as_str(), "Today: 76°F and sunny.");
    assert_eq!(cited(&session), [("76°F and sunny".to_owned(), Some(1))]);
    assert_eq!(session.references[0].start, Some(7));
    assert_eq!(session.references[0].end, Some(21));
    assert_eq!(session.status(), Status::Complete);
    let consulted: Vec<_> = session.consulted.iter().map(|d| d.url.clone()).collect();
    assert_eq!(consulted.len(), 2);
    assert_eq!(session.consulted[0].updated.as_deref(), Some("2 days ago"));
    assert!(session.activity.iter().any(|a| matches!(a,
        Activity::ToolCall { tool_name, arguments, .. }
            if tool_name == "web_search" && arguments == &json!({"query": "weather"}))));
    assert_eq!(session.transcript.len(), 5);
    assert_eq!(
        session.transcript[0]["input"],
        json!({"query": "weather"}),
        "the call's input is rebuilt for follow-ups"
    );
    assert_eq!(
        session.transcript[3]["citations"][0]["cited_text"],
        "High 76°F"
    );
}

#[test]
fn a_page_quoted_twice_shows_both_quotes_whichever_citation_numbered_it() {
    let events = message(
        "msg_1",
        &[
            cited_text("One.", "https://a.com", "first quote"),
            cited_text(" Two.", "https://a.com", "second quote"),
        ],
        "end_turn",
    );
    let session = run(&mut AnthropicDialect::default(), events, true);
    let chunks: Vec<&str> = session.references[0]
        .source
        .as_ref()
        .unwrap()
        .chunks
        .iter()
        .map(|c| c.text.as_str())
        .collect();
    assert_eq!(chunks, ["first quote", "second quote"]);
    assert_eq!(cited(&session).len(), 2);
}

#[test]
fn thinking_goes_to_activity_and_text_after_a_search_starts_a_paragraph() {
    let thinking = json!({"type": "thinking", "thinking": "", "signature": "", "_deltas": [
        {"type": "thinking_delta", "thinking": "Let me think."},
        {"type": "signature_delta", "signature": "sig"}]});
    let events = message(
        "msg_1",
        &[
            thinking,
            text(&["I'll search."]),
            search("s1", "q"),
            results("s1", &[]),
            text(&["Found it."]),
        ],
        "end_turn",
    );
    let session = run(&mut AnthropicDialect::default(), events, true);
    assert_eq!(session.answer.as_str(), "I'll search.\n\nFound it.");
    assert!(
        session
            .activity
            .iter()
            .any(|a| matches!(a, Activity::Thinking { text, .. } if text == "Let me think."))
    );
    assert_eq!(session.transcript[0]["signature"], "sig");
}

#[test]
fn a_paused_turn_goes_on_in_the_next_message_without_repeating_text() {
    let mut events = message(
        "msg_1",
        &[text(&["Searching."]), search("s1", "q")],
        "pause_turn",
    );
    let paused = run(&mut AnthropicDialect::default(), events.clone(), true);
    assert!(paused.paused);
    assert_eq!(paused.status(), Status::Incomplete);
    events.extend(message(
        "msg_2",
        &[
            results("s1", &["https://a.com"]),
            cited_text("Done.", "https://a.com", "q"),
        ],
        "end_turn",
    ));
    let session = run(&mut AnthropicDialect::default(), events, true);
    assert!(!session.paused);
    assert_eq!(session.answer.as_str(), "Searching.\n\nDone.");
    assert_eq!(cited(&session), [("Done.".to_owned(), Some(1))]);
    assert_eq!(session.status(), Status::Complete);
    assert_eq!(session.ids.chat_id.as_deref(), Some("msg_1"));
    assert_eq!(session.transcript.len(), 4);
}

#[test]
fn max_tokens_and_refusals_end_the_turn_with_a_reason() {
    for (stop, words) in [("max_tokens", "max_tokens"), ("refusal", "declined")] {
        let session = run(
            &mut AnthropicDialect::default(),
            message("m", &[text(&["Part"])], stop),
            true,
        );
        assert_eq!(session.status(), Status::Error, "{stop}");
        assert!(session.error.as_deref().unwrap().contains(words), "{stop}");
        assert_eq!(session.answer.as_str(), "Part");
    }
}

#[test]
fn a_failed_search_and_an_error_event_are_shown_as_such() {
    let failed = json!({"type": "web_search_tool_result", "tool_use_id": "s1",
        "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}});
    let mut events = message("m", &[search("s1", "q"), failed], "end_turn");
    events.insert(
        3,
        event(json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})),
    );
    let session = run(&mut AnthropicDialect::default(), events, true);
    assert_eq!(
        session.tool_errors,
        [("web_search".to_owned(), "max_uses_exceeded".to_owned())]
    );
    assert_eq!(
        session.error.as_deref(),
        Some("overloaded_error: Overloaded")
    );
}

#[test]
fn the_stream_is_recognised_by_its_event_names_and_payloads() {
    let named = event(json!({"type": "message_start", "message": {}}));
    assert_eq!(Provider::detect(&named), Some(Provider::Anthropic));
    let unnamed = SseEvent {
        event: String::new(),
        ..event(json!({"type": "content_block_delta", "index": 0, "delta": {}}))
    };
    assert_eq!(Provider::detect(&unnamed), Some(Provider::Anthropic));
    let error = SseEvent {
        event: "error".into(),
        ..event(json!({"type": "error", "error": {"type": "overloaded_error"}}))
    };
    assert_eq!(Provider::detect(&error), Some(Provider::Anthropic));
    let ping = event(json!({"type": "ping"}));
    assert_eq!(Provider::detect(&ping), None);
}
