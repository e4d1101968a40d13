//! The xAI dialect's unit tests: spans, held-back annotations, tool traces, errors.

use super::*;
use crate::model::citations::Attribution;
use crate::model::session::Session;
use serde_json::json;

fn frame(kind: &str, data: Value) -> SseEvent {
    SseEvent {
        event: kind.into(),
        data: data.to_string(),
        id: String::new(),
    }
}

fn delta(text: &str) -> SseEvent {
    frame(
        "response.output_text.delta",
        json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1,
               "content_index": 0, "delta": text}),
    )
}

fn annotation(url: &str, start: usize, end: usize, title: &str) -> SseEvent {
    frame(
        "response.output_text.annotation.added",
        json!({"type": "response.output_text.annotation.added", "item_id": "msg_1",
               "output_index": 1, "content_index": 0, "annotation_index": 0,
               "annotation": {"type": "url_citation", "url": url, "start_index": start,
                              "end_index": end, "title": title}}),
    )
}

use crate::wire::provider::testing::cited;

fn run(events: Vec<SseEvent>) -> Session {
    crate::wire::provider::testing::run(&mut XaiDialect::default(), events, true)
}

#[test]
fn a_span_over_the_inline_link_is_a_marker_citation_counted_in_code_points() {
    let text = "Grok 😀 ships.[[1]](https://x.ai/news) Done.";
    let session = run(vec![
        delta(text),
        annotation("https://x.ai/news", 13, 36, "1"),
    ]);
    assert_eq!(
        cited(&session),
        [("[[1]](https://x.ai/news)".to_owned(), Some(1))]
    );
    assert!(session.references[0].marker);
    let source = &Attribution::resolve(&session, true).sources[0];
    assert_eq!(source.url.as_deref(), Some("https://x.ai/news"));
    assert_eq!(source.label, "x.ai");
    assert_eq!(source.headline, None, "a bare number is not a headline");
}

#[test]
fn a_span_that_misses_the_link_falls_back_to_the_literal_link_nearest_to_it() {
    let text =
        "A.[[1]](https://a.example/x) B.[[2]](https://b.example/y) C.[[1]](https://a.example/x)";
    // Offsets in UTF-16 units or bytes would be off: here they are shifted by two.
    let session = run(vec![
        delta(text),
        annotation("https://b.example/y", 33, 59, "2"),
        annotation("https://a.example/x", 58, 84, "1"),
        annotation("https://a.example/x", 4, 30, "1"),
    ]);
    let texts: Vec<_> = cited(&session).into_iter().map(|(t, _)| t).collect();
    assert_eq!(
        texts,
        [
            "[[2]](https://b.example/y)",
            "[[1]](https://a.example/x)",
            "[[1]](https://a.example/x)"
        ]
    );
    let spans: Vec<_> = session
        .references
        .iter()
        .map(|r| (r.start.unwrap(), r.end.unwrap()))
        .collect();
    assert_eq!(spans, [(31, 57), (60, 86), (2, 28)]);
}

#[test]
fn a_span_over_a_link_to_another_url_is_corrected() {
    let text = "X[[1]](https://a.example) Y[[2]](https://b.example)";
    let session = run(vec![
        delta(text),
        annotation("https://b.example", 1, 25, "2"),
    ]);
    assert_eq!(cited(&session)[0].0, "[[2]](https://b.example)");
}

#[test]
fn a_link_nowhere_in_the_text_is_invalid_but_its_source_is_consulted() {
    let session = run(vec![
        delta("No links here at all."),
        annotation("https://gone.example", 0, 5, "1"),
    ]);
    let attribution = Attribution::resolve(&session, true);
    assert_eq!(attribution.invalid_references, 1);
    assert!(attribution.citations.is_empty());
    assert_eq!(attribution.sources.len(), 1);
    assert!(attribution.sources[0].consulted_only);
}

#[test]
fn empty_spans_and_uncited_search_results_are_consulted_sources_without_markers() {
    let search = frame(
        "response.output_item.done",
        json!({"type": "response.output_item.done", "output_index": 0,
               "item": {"type": "web_search_call", "id": "ws_1", "status": "completed",
                        "action": {"type": "search", "query": "grok news",
                                   "sources": [{"type": "url", "url": "https://x.ai/news"},
                                               {"type": "url", "url": "https://other.example"}]}}}),
    );
    let session = run(vec![
        search,
        delta("News.[[1]](https://x.ai/news)"),
        annotation("https://x.ai/news", 5, 28, "1"),
        annotation("https://silent.example", 0, 0, "2"),
    ]);
    let attribution = Attribution::resolve(&session, true);
    let consulted: Vec<_> = attribution
        .sources
        .iter()
        .filter(|s| s.consulted_only)
        .map(|s| s.key.as_str())
        .collect();
    assert_eq!(
        consulted,
        ["https://other.example", "https://silent.example"]
    );
    assert_eq!(attribution.numbered().count(), 1);
    assert_eq!(session.audits[0].query.as_deref(), Some("grok news"));
    assert_eq!(session.audits[0].result_count, Some(2));
    assert!(matches!(
        &session.activity[0],
        crate::model::session::Activity::ToolCall { tool_name, .. } if tool_name == "web_search"
    ));
}

#[test]
fn annotations_repeated_in_response_completed_count_once() {
    let text = "One.[[1]](https://a.example) Two.[[2]](https://b.example)";
    let completed = frame(
        "response.completed",
        json!({"type": "response.completed", "response": {
            "id": "resp_9", "model": "grok-4", "status": "completed",
            "output": [{"type": "message", "id": "msg_1", "content": [{"type": "output_text",
                "text": text, "annotations": [
                    {"type": "url_citation", "url": "https://a.example", "start_index": 4, "end_index": 28, "title": "1"},
                    {"type": "url_citation", "url": "https://b.example", "start_index": 33, "end_index": 57, "title": "2"}]}]}],
            "usage": {"input_tokens": 10, "output_tokens": 5, "input_tokens_details": {"cached_tokens": 3}}}}),
    );
    let mut events = vec![
        delta(text),
        annotation("https://a.example", 4, 28, "1"),
        annotation("https://b.example", 33, 57, "2"),
    ];
    // The completed event repeats them at output index 1 in the stream's numbering.
    let Value::Object(mut data) = serde_json::from_str::<Value>(&completed.data).unwrap() else {
        unreachable!()
    };
    let output = data["response"]["output"].as_array_mut().unwrap();
    output.insert(0, json!({"type": "reasoning", "id": "rs_1"}));
    events.push(frame("response.completed", Value::Object(data)));
    let session = run(events);
    assert_eq!(session.references.len(), 2);
    assert_eq!(session.checkpoint_id(), Some("resp_9"));
    let usage = &session.completion.as_ref().unwrap().consumption[0];
    assert_eq!(
        (
            usage.kind.as_str(),
            usage.input_tokens,
            usage.output_tokens,
            usage.cached_tokens
        ),
        ("grok-4", 10, 5, 3)
    );
}

#[test]
fn annotations_before_their_text_wait_for_it() {
    let session = run(vec![
        delta("See "),
        annotation("https://a.example", 4, 28, "1"),
        delta("[[1]](https://a.example)."),
    ]);
    assert_eq!(
        cited(&session),
        [("[[1]](https://a.example)".into(), Some(1))]
    );
}

#[test]
fn response_created_gives_the_conversation_id_and_reasoning_is_thinking() {
    let session = run(vec![
        frame(
            "response.created",
            json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}),
        ),
        frame(
            "response.reasoning_summary_text.delta",
            json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "delta": "Looking"}),
        ),
        frame(
            "response.reasoning_summary_text.delta",
            json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "delta": " up."}),
        ),
    ]);
    assert_eq!(session.ids.chat_id.as_deref(), Some("resp_1"));
    assert!(matches!(
        &session.activity[..],
        [crate::model::session::Activity::Thinking { text, .. }] if text == "Looking up."
    ));
}

#[test]
fn x_search_tool_calls_are_traced_with_their_query() {
    let session = run(vec![
        frame(
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0,
                   "item": {"type": "custom_tool_call", "id": "ctc_1", "name": "x_keyword_search", "input": ""}}),
        ),
        frame(
            "response.custom_tool_call_input.done",
            json!({"type": "response.custom_tool_call_input.done", "item_id": "ctc_1", "output_index": 0,
                   "input": "{\"query\":\"solid-state battery\",\"limit\":10}"}),
        ),
        frame(
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0,
                   "item": {"type": "custom_tool_call", "id": "ctc_1", "name": "x_keyword_search",
                            "input": "{\"query\":\"solid-state battery\",\"limit\":10}"}}),
        ),
    ]);
    assert_eq!(session.activity.len(), 2);
    assert_eq!(session.audits.len(), 1);
    assert_eq!(session.audits[0].audit_type, "x_keyword_search");
    assert_eq!(
        session.audits[0].query.as_deref(),
        Some("solid-state battery")
    );
}

#[test]
fn failures_and_error_events_end_the_session_with_an_error() {
    let session = run(vec![frame(
        "response.failed",
        json!({"type": "response.failed", "response": {"id": "r", "error": {"code": "server_error", "message": "overloaded"}}}),
    )]);
    assert_eq!(session.error.as_deref(), Some("overloaded"));
    let session = run(vec![frame(
        "error",
        json!({"type": "error", "code": "invalid_api_key", "message": "bad key"}),
    )]);
    assert_eq!(session.error.as_deref(), Some("bad key"));
}

#[test]
fn hosts_drop_www_and_x_posts_are_their_own_kind() {
    let doc = source_doc("https://www.Reuters.com/a?b", Some("Reuters piece"));
    assert_eq!(doc.src_name.as_deref(), Some("reuters.com"));
    assert_eq!(doc.headline.as_deref(), Some("Reuters piece"));
    assert_eq!(doc.kind.as_deref(), Some("WEB"));
    let post = source_doc("https://x.com/i/status/1", Some("3"));
    assert_eq!(post.kind.as_deref(), Some("X"));
    assert_eq!(post.headline, None);
    assert_eq!(post.src_name.as_deref(), Some("X post 1"));
    let named = source_doc("https://mobile.twitter.com/elonmusk/status/123?s=20", None);
    assert_eq!(named.src_name.as_deref(), Some("@elonmusk on X · post 123"));
    let profile = source_doc("https://x.com/elonmusk", None);
    assert_eq!(profile.src_name.as_deref(), Some("x.com"));
}

#[test]
fn a_span_inside_its_text_is_cited_exactly_whatever_its_text() {
    let text = "Petco disclosed a lapse. ([techcrunch.com](https://t.co/p?utm_source=openai))";
    let session = run(vec![
        delta(text),
        annotation(
            "https://t.co/p?utm_source=openai",
            25,
            77,
            "Petco | TechCrunch",
        ),
    ]);
    assert_eq!(
        cited(&session),
        [(
            "([techcrunch.com](https://t.co/p?utm_source=openai))".to_owned(),
            Some(1)
        )]
    );
    assert!(
        !session.references[0].marker,
        "the text stays; [1] follows it"
    );
    let source = &Attribution::resolve(&session, true).sources[0];
    assert_eq!(source.headline.as_deref(), Some("Petco | TechCrunch"));
    assert_eq!(
        source.url.as_deref(),
        Some("https://t.co/p?utm_source=openai")
    );
}

fn unplaced(url: &str, title: Option<&str>, zero: bool) -> SseEvent {
    let mut annotation = json!({"type": "url_citation", "url": url});
    if let Some(title) = title {
        annotation["title"] = json!(title);
    }
    if zero {
        annotation["start_index"] = json!(0);
        annotation["end_index"] = json!(0);
    }
    frame(
        "response.output_text.annotation.added",
        json!({"type": "response.output_text.annotation.added", "item_id": "msg_1",
               "output_index": 1, "content_index": 0, "annotation": annotation}),
    )
}

#[test]
fn annotations_without_offsets_or_zero_with_the_url_as_title_cite_without_a_position() {
    let session = run(vec![
        delta("**xAI**"),
        unplaced("https://x.ai/", Some("https://x.ai/"), true),
        unplaced("https://x.com/i/status/1", None, false),
        unplaced("https://x.ai/", Some("https://x.ai/"), true),
    ]);
    let attribution = Attribution::resolve(&session, true);
    assert_eq!(attribution.invalid_references, 0);
    assert!(attribution.citations.is_empty());
    let numbered: Vec<_> = attribution
        .numbered()
        .map(|s| (s.n, s.url.as_deref().unwrap(), s.unplaced()))
        .collect();
    assert_eq!(
        numbered,
        [
            (1, "https://x.ai/", true),
            (2, "https://x.com/i/status/1", true)
        ]
    );
    assert_eq!(
        attribution.sources[0].headline, None,
        "a URL is no headline"
    );
}

fn message_item(id: &str, text: &str) -> Value {
    json!({"type": "message", "id": id, "role": "assistant",
           "content": [{"type": "output_text", "text": text, "annotations": []}]})
}

#[test]
fn the_final_text_replaces_the_streamed_one_matched_by_item_id_never_by_position() {
    let item_delta = |id: &str, index: u64, text: &str| {
        frame(
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "item_id": id, "output_index": index,
                   "content_index": 0, "delta": text}),
        )
    };
    let session = run(vec![
        item_delta("msg_a", 0, "Got"),
        item_delta("msg_b", 2, "Here"),
        annotation_on("msg_b", 2, "https://b.example", 0, 4),
        frame(
            "response.completed",
            json!({"type": "response.completed", "response": {"id": "r", "output": [
                message_item("msg_a", "Got it."),
                message_item("msg_b", "Here"),
            ]}}),
        ),
    ]);
    assert_eq!(session.answer.as_str(), "Got it.\n\nHere");
    assert_eq!(cited(&session), [("Here".to_owned(), Some(1))]);
}

fn annotation_on(item: &str, index: u64, url: &str, start: usize, end: usize) -> SseEvent {
    frame(
        "response.output_text.annotation.added",
        json!({"type": "response.output_text.annotation.added", "item_id": item,
               "output_index": index, "content_index": 0,
               "annotation": {"type": "url_citation", "url": url, "start_index": start,
                              "end_index": end, "title": "B"}}),
    )
}

fn item_done(item: Value) -> SseEvent {
    frame(
        "response.output_item.done",
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
    )
}

#[test]
fn web_search_actions_show_what_they_did_and_empty_ones_are_left_out() {
    let session = run(vec![
        item_done(
            json!({"type": "web_search_call", "id": "ws_0", "status": "completed",
                         "action": {"type": "search", "query": "", "sources": []}}),
        ),
        item_done(
            json!({"type": "web_search_call", "id": "ws_1", "status": "completed",
                         "action": {"type": "open_page", "url": "https://a.example/x"}}),
        ),
        item_done(
            json!({"type": "web_search_call", "id": "ws_2", "status": "completed",
                         "action": {"type": "find_in_page", "pattern": "vercel",
                                    "url": "https://a.example/x"}}),
        ),
        item_done(
            json!({"type": "custom_tool_call", "id": "ctc_1", "name": "view_x_video",
                         "input": "{\"video_url\":\"https://v.example/1.mp4\"}"}),
        ),
    ]);
    let calls: Vec<(String, Value)> = session
        .activity
        .iter()
        .filter_map(|a| match a {
            crate::model::session::Activity::ToolCall {
                tool_name,
                arguments,
                ..
            } => Some((tool_name.clone(), arguments.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            (
                "open_page".to_owned(),
                json!({"url": "https://a.example/x"})
            ),
            (
                "find_in_page".to_owned(),
                json!({"pattern": "vercel", "url": "https://a.example/x"})
            ),
            (
                "view_x_video".to_owned(),
                json!({"video_url": "https://v.example/1.mp4"})
            ),
        ]
    );
    assert!(session.audits.is_empty(), "no query, no results: no trace");
}

#[test]
fn reasoning_summary_parts_of_one_item_are_paragraphs_of_one_thought() {
    let part = |index: u64| {
        frame(
            "response.reasoning_summary_part.added",
            json!({"type": "response.reasoning_summary_part.added", "item_id": "rs_1",
                   "output_index": 0, "summary_index": index}),
        )
    };
    let text = |t: &str| {
        frame(
            "response.reasoning_summary_text.delta",
            json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1",
                   "output_index": 0, "delta": t}),
        )
    };
    let session = run(vec![part(0), text("**One**"), part(1), text("**Two**")]);
    assert!(matches!(
        &session.activity[..],
        [crate::model::session::Activity::Thinking { text, .. }] if text == "**One**\n\n**Two**"
    ));
}

#[test]
fn another_provider_speaking_the_responses_api_reuses_the_dialect() {
    assert_eq!(XaiDialect::default().provider(), Some(Provider::Xai));
    assert_eq!(
        XaiDialect::for_provider(Provider::Zeta).provider(),
        Some(Provider::Zeta),
        "whichever provider constructs it"
    );
}
