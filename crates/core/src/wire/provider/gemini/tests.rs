//! Gemini's dialect on hand-made events of both wires (real recordings and the streams built from
//! the SDK types are checked against independent expectations in the integration tests, under
//! tests/fixtures/real/).

use serde_json::{Value, json};

use super::*;
use crate::model::session::{Session, Status};
use crate::wire::provider::testing::{cited, run};

fn sse(payload: Value) -> SseEvent {
    SseEvent {
        event: payload["event_type"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        data: payload.to_string(),
        id: String::new(),
    }
}

fn step_delta(index: u64, delta: Value, id: Option<&str>) -> SseEvent {
    let mut payload = json!({"event_type": "step.delta", "index": index, "delta": delta});
    if let Some(id) = id {
        payload["event_id"] = json!(id);
    }
    sse(payload)
}

fn text(index: u64, text: &str, id: Option<&str>) -> SseEvent {
    step_delta(index, json!({"type": "text", "text": text}), id)
}

fn citation(index: u64, start: u64, end: u64, url: &str) -> SseEvent {
    let annotation = json!({"type": "url_citation", "url": url, "title": "t", "start_index": start, "end_index": end});
    step_delta(
        index,
        json!({"type": "text_annotation_delta", "annotations": [annotation]}),
        None,
    )
}

fn created() -> SseEvent {
    sse(
        json!({"event_type": "interaction.created", "event_id": "e0",
               "interaction": {"id": "v1_x", "status": "in_progress"}}),
    )
}

fn ended(status: &str) -> SseEvent {
    sse(
        json!({"event_type": "interaction.completed", "event_id": "end",
               "interaction": {"id": "v1_x", "status": status}}),
    )
}

fn decode(events: Vec<SseEvent>) -> Session {
    run(&mut GeminiDialect::default(), events, true)
}

#[test]
fn annotation_byte_offsets_become_code_points_of_the_whole_answer_across_blocks() {
    // "é" and "😀" are 2 and 4 bytes: the cited "B" is bytes 7..8 of its block, code point 4.
    let session = decode(vec![
        created(),
        text(1, "Intro.", Some("e1")),
        text(2, "é😀 ", Some("e2")),
        text(2, "B.", Some("e3")),
        citation(2, 7, 8, "https://b.example/"),
        citation(1, 0, 5, "https://a.example/"),
        ended("completed"),
    ]);
    assert_eq!(session.answer.as_str(), "Intro.\n\né😀 B.");
    assert_eq!(
        cited(&session),
        [("B".into(), Some(1)), ("Intro".into(), Some(2))]
    );
    assert_eq!(session.checkpoint_id(), Some("v1_x"));
}

#[test]
fn an_offset_inside_a_character_or_past_the_text_is_an_invalid_citation() {
    let session = decode(vec![
        created(),
        text(0, "é and more", Some("e1")),
        citation(0, 1, 3, "https://inside.example/"),
        citation(0, 0, 99, "https://past.example/"),
        ended("completed"),
    ]);
    assert!(cited(&session).is_empty(), "{:?}", cited(&session));
    assert_eq!(session.references.len(), 2);
}

#[test]
fn events_sent_again_after_a_resume_are_dropped_with_or_without_an_id() {
    let delta = text(0, "b", None);
    let session = decode(vec![
        created(),
        text(0, "a", Some("e1")),
        delta.clone(),
        text(0, "c", None),
        // The connection breaks; resumed after e1, the server sends what followed it again.
        delta,
        text(0, "c", None),
        text(0, "a", Some("e1")),
        text(0, "d", Some("e2")),
        ended("completed"),
    ]);
    assert_eq!(session.answer.as_str(), "abcd");
}

#[test]
fn an_id_less_payload_that_only_looks_like_a_replay_for_a_while_is_kept_after_it_breaks_off() {
    let session = decode(vec![
        created(),
        text(0, "x", Some("e1")),
        text(0, "y", None),
        text(0, "z", None),
        text(0, "y", None),
        text(0, "w", None),
        ended("completed"),
    ]);
    // "y" again was taken as a replay; "w" is not "z", so it is new and the text goes on.
    assert_eq!(session.answer.as_str(), "xyzw");
}

#[test]
fn a_failed_or_cancelled_interaction_ends_as_such_and_thoughts_are_not_answer() {
    let thought = sse(json!({"event_type": "step.start", "index": 0, "step": {"type": "thought"}}));
    let summary = step_delta(
        0,
        json!({"type": "thought_summary", "content": {"type": "text", "text": "Plan."}}),
        Some("e1"),
    );
    let failed = decode(vec![
        created(),
        thought.clone(),
        summary.clone(),
        ended("failed"),
    ]);
    assert_eq!(failed.status(), Status::Error);
    assert!(failed.answer.as_str().is_empty());
    let cancelled = decode(vec![created(), thought, summary, ended("cancelled")]);
    assert_eq!(cancelled.status(), Status::Cancelled);
}

#[test]
fn search_and_url_steps_are_tool_calls_and_pages_read_are_consulted() {
    let session = decode(vec![
        created(),
        sse(json!({"event_type": "step.start", "index": 0,
                   "step": {"type": "google_search_call", "id": "g", "arguments": {"queries": ["q1", "q2"]}}})),
        step_delta(
            1,
            json!({"type": "url_context_call", "arguments": {"urls": ["https://p.example/"]}}),
            Some("e1"),
        ),
        step_delta(
            2,
            json!({"type": "url_context_result", "result": [
                {"url": "https://p.example/", "status": "success"},
                {"url": "https://down.example/", "status": "error"}]}),
            Some("e2"),
        ),
        ended("completed"),
    ]);
    assert_eq!(session.activity.len(), 4, "{:?}", session.activity);
    assert_eq!(session.consulted.len(), 1);
}

fn chunk(parts: Value, extra: Value) -> SseEvent {
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    if let (Value::Object(candidate), Value::Object(extra)) = (&mut candidate, extra) {
        candidate.extend(extra);
    }
    SseEvent {
        event: String::new(),
        data: json!({"candidates": [candidate], "responseId": "r1"}).to_string(),
        id: String::new(),
    }
}

#[test]
fn grounding_supports_count_bytes_of_the_whole_text_and_may_cite_several_pages() {
    let metadata = json!({"groundingMetadata": {
        "webSearchQueries": ["q"],
        "groundingChunks": [
            {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/A", "title": "a.com"}},
            {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/B", "title": "b.org"}},
            {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/C", "title": "c.net"}}],
        "groundingSupports": [{"segment": {"startIndex": 4, "endIndex": 7}, "groundingChunkIndices": [1, 0]}]},
        "finishReason": "STOP"});
    let session = decode(vec![
        chunk(
            json!([{"text": "Hidden.", "thought": true}, {"text": "°C "}]),
            json!({}),
        ),
        chunk(json!([{"text": "hot"}]), metadata),
    ]);
    assert_eq!(session.answer.as_str(), "°C hot");
    assert_eq!(
        cited(&session),
        [("hot".into(), Some(1)), ("hot".into(), Some(2))]
    );
    assert_eq!(session.consulted.len(), 1);
    assert_eq!(session.status(), Status::Complete);
}

#[test]
fn a_stop_other_than_stop_or_an_error_body_ends_the_answer_with_an_error() {
    let cut = decode(vec![chunk(
        json!([{"text": "Half"}]),
        json!({"finishReason": "MAX_TOKENS"}),
    )]);
    assert_eq!(cut.status(), Status::Error);
    assert_eq!(cut.answer.as_str(), "Half");
    let error = SseEvent {
        event: String::new(),
        data:
            r#"{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}"#
                .into(),
        id: String::new(),
    };
    assert_eq!(decode(vec![error]).status(), Status::Error);
}

#[test]
fn publishers_are_domains_and_links_stay_as_given() {
    let redirect = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/X";
    let doc = web_source(redirect, Some("reuters.com"));
    assert_eq!(doc.src_name.as_deref(), Some("reuters.com"));
    assert_eq!(doc.headline, None);
    assert_eq!(doc.url.as_deref(), Some(redirect));
    let titled = web_source("https://www.example.org/a", Some("A page"));
    assert_eq!(titled.src_name.as_deref(), Some("example.org"));
    assert_eq!(titled.headline.as_deref(), Some("A page"));
    assert_eq!(web_source(redirect, Some("Some title")).src_name, None);
}

#[test]
fn run_marks_name_the_interaction_and_the_event_to_resume_after() {
    let marks = run_marks(&created().data);
    assert_eq!(marks.run_id.as_deref(), Some("v1_x"));
    assert_eq!(marks.cursor, Some(RunCursor::EventId("e0".into())));
    let update = r#"{"event_type":"interaction.status_update","interaction_id":"v1_y","status":"in_progress"}"#;
    assert_eq!(run_marks(update).run_id.as_deref(), Some("v1_y"));
    assert_eq!(run_marks(update).cursor, None);
}

#[test]
fn what_tells_resent_events_apart_stays_bounded_on_an_endless_stream() {
    let mut dialect = GeminiDialect::default();
    let mut out = Vec::new();
    for n in 0..3 * Replays::TAIL {
        dialect.decode(text(0, "x", Some(&format!("e{n}"))), &mut out);
        dialect.decode(text(0, &format!("y{n}"), None), &mut out);
    }
    let replays = &dialect.replays;
    assert_eq!(replays.seen.len(), Replays::TAIL);
    assert_eq!(replays.order.len(), Replays::TAIL);
    assert!(replays.tail.len() <= 1);
    // A recent id is still known; the answer kept every new event once.
    dialect.decode(
        text(0, "x", Some(&format!("e{}", 3 * Replays::TAIL - 1))),
        &mut out,
    );
    let answer: usize = out
        .iter()
        .filter(|e| matches!(e, AgentEvent::AnswerDelta { .. }))
        .count();
    assert_eq!(answer, 6 * Replays::TAIL);
}
