//! The Zeta Alpha dialect's unit tests: replaced messages, anchors, evidences, tools, errors.

use super::*;
use crate::model::citations::Attribution;
use crate::model::session::{Activity, Session, Status};
use serde_json::json;

fn message(id: &str, content: &str, evidences: Value) -> SseEvent {
    let mut data = json!({"sender": "bot", "content": content, "session_id": "sess-1",
                          "message_id": id});
    if !evidences.is_null() {
        data["evidences"] = evidences;
    }
    SseEvent {
        event: "new_message".into(),
        data: data.to_string(),
        id: format!("{id}:0"),
    }
}

fn evidence(url: &str, anchor: &str) -> Value {
    json!({"document_hit_url": url, "anchor_text": anchor,
           "text_extract": format!("Title of {url}\nBefore. <b>Key sentence.</b> After.")})
}

use crate::wire::provider::testing::cited;

fn run(events: Vec<SseEvent>, clean: bool) -> Session {
    crate::wire::provider::testing::run(&mut ZetaDialect::default(), events, clean)
}

#[test]
fn each_message_version_replaces_the_answer_instead_of_appending() {
    let session = run(
        vec![
            message("m1", "BERT is", Value::Null),
            message(
                "m1",
                "BERT is a model [[1]](/d/1 \"BERT 101\")",
                Value::Null,
            ),
            message(
                "m1",
                "BERT is a model<sup>1</sup>.",
                json!([evidence("/d/1", "<sup>1</sup>")]),
            ),
        ],
        true,
    );
    assert_eq!(session.answer.as_str(), "BERT is a model<sup>1</sup>.");
    assert_eq!(cited(&session), [("<sup>1</sup>".into(), Some(1))]);
    assert_eq!(session.ids.chat_id.as_deref(), Some("sess-1"));
    assert_eq!(session.status(), Status::Complete);
}

#[test]
fn every_occurrence_of_an_anchor_is_a_citation_in_code_points() {
    let content = "Ünïcödé 😀 first<sup>1</sup>, second<sup>2</sup>, again<sup>1</sup>.";
    let session = run(
        vec![message(
            "m1",
            content,
            json!([
                evidence("/d/a", "<sup>1</sup>"),
                evidence("/d/b", "<sup>2</sup>")
            ]),
        )],
        true,
    );
    assert_eq!(
        cited(&session),
        [
            ("<sup>1</sup>".into(), Some(1)),
            ("<sup>2</sup>".into(), Some(2)),
            ("<sup>1</sup>".into(), Some(1))
        ]
    );
    let first = &session.references[0];
    assert_eq!(first.start, Some(15));
    assert_eq!(first.end, Some(27));
    assert!(first.marker);
}

#[test]
fn anchors_in_any_format_are_matched_literally_longest_first() {
    let content = "A[[1]] B[a1b2c3d4] C<sup>doc0_chunk1</sup> D[1] E[[1]]";
    let session = run(
        vec![message(
            "m1",
            content,
            json!([
                evidence("/d/one", "[1]"),
                evidence("/d/double", "[[1]]"),
                evidence("/d/hash", "[a1b2c3d4]"),
                evidence("custom://my-doc", "<sup>doc0_chunk1</sup>"),
            ]),
        )],
        true,
    );
    let texts: Vec<_> = cited(&session).into_iter().map(|(t, _)| t).collect();
    assert_eq!(
        texts,
        [
            "[[1]]",
            "[a1b2c3d4]",
            "<sup>doc0_chunk1</sup>",
            "[1]",
            "[[1]]"
        ]
    );
    let attribution = Attribution::resolve(&session, true);
    let custom = attribution
        .sources
        .iter()
        .find(|s| s.key == "custom://my-doc")
        .unwrap();
    assert_eq!(custom.kind.as_deref(), Some("CUSTOM"));
    assert_eq!(custom.label, "Custom document my-doc");
    assert_eq!(custom.url.as_deref(), Some("custom://my-doc"));
}

#[test]
fn evidences_apply_only_to_their_own_message() {
    let session = run(
        vec![
            message(
                "m1",
                "First turn<sup>1</sup>.",
                json!([evidence("/d/first", "<sup>1</sup>")]),
            ),
            message(
                "m2",
                "Second turn<sup>1</sup>.",
                json!([evidence("/d/second", "<sup>1</sup>")]),
            ),
            // A later version of the first message without evidences drops its citations only.
            message("m1", "First turn, revised<sup>1</sup>.", Value::Null),
        ],
        true,
    );
    assert_eq!(
        session.answer.as_str(),
        "First turn, revised<sup>1</sup>.\n\nSecond turn<sup>1</sup>."
    );
    let attribution = Attribution::resolve(&session, true);
    assert_eq!(attribution.citations.len(), 1);
    assert_eq!(attribution.citations[0].start, 45);
    assert_eq!(attribution.sources[0].key, "/d/second");
}

#[test]
fn an_evidence_whose_anchor_is_missing_is_consulted() {
    let session = run(
        vec![message(
            "m1",
            "No anchors.",
            json!([evidence("/d/x", "<sup>9</sup>")]),
        )],
        true,
    );
    let attribution = Attribution::resolve(&session, true);
    assert!(attribution.citations.is_empty());
    assert!(attribution.sources[0].consulted_only);
}

#[test]
fn tool_parts_become_tool_calls_and_status_traces() {
    let tool = |status: &str, text: &str| {
        json!({"sender": "bot", "content": "", "message_id": "m1", "content_parts": [
            {"type": "tool", "tool": {"name": "search_documents", "status": status, "display_text": text}}]})
    };
    let event = |data: Value| SseEvent {
        event: "new_message".into(),
        data: data.to_string(),
        id: String::new(),
    };
    let session = run(
        vec![
            event(tool("running", "Searching “BERT”")),
            event(tool("running", "Searching “BERT”")),
            event(tool("completed", "Found 12 documents")),
        ],
        true,
    );
    assert_eq!(session.activity.len(), 2);
    assert!(
        matches!(&session.activity[0], Activity::ToolCall { tool_name, .. } if tool_name == "search_documents")
    );
    assert_eq!(
        session.audits[0].title.as_deref(),
        Some("Found 12 documents (completed)")
    );
}

#[test]
fn error_events_fail_the_session_and_a_cut_stream_is_not_complete() {
    let error = SseEvent {
        event: "error".into(),
        data: "quota exceeded".into(),
        id: String::new(),
    };
    let session = run(vec![message("m1", "Partial", Value::Null), error], true);
    assert_eq!(session.error.as_deref(), Some("quota exceeded"));
    let cut = run(vec![message("m1", "Partial", Value::Null)], false);
    assert_eq!(cut.status(), Status::Incomplete);
    let status = |data: &str| SseEvent {
        event: "stream_status".into(),
        data: data.into(),
        id: String::new(),
    };
    let done = run(
        vec![
            status("started"),
            message("m1", "All", Value::Null),
            status("{\"status\":\"done\"}"),
        ],
        false,
    );
    assert_eq!(done.status(), Status::Complete);
}

#[test]
fn the_message_id_comes_from_the_event_id_when_the_body_lacks_it() {
    assert_eq!(message_id_of("abc:def:12").as_deref(), Some("abc:def"));
    assert_eq!(message_id_of("abc"), None);
    assert_eq!(message_id_of("abc:x"), None);
}

#[test]
fn the_key_sentence_of_an_extract_is_a_bold_run() {
    assert_eq!(
        bold_runs("Title\nBefore <b>Key.</b> after"),
        [("Title\nBefore ", false), ("Key.", true), (" after", false)]
    );
    assert_eq!(bold_runs("<b>open"), [("open", true)]);
    let doc = evidence_doc(&evidence("/d/1", "x")).unwrap();
    assert_eq!(doc.headline.as_deref(), Some("Title of /d/1"));
    assert_eq!(
        doc.text_pieces(),
        [
            ("Title of /d/1\nBefore. ", false),
            ("Key sentence.", true),
            (" After.", false)
        ]
    );
    assert!(doc.text.unwrap().contains("<b>Key sentence.</b>"));
    assert_eq!(bold_runs("</b>x<b></b>"), [("</b>x", false)]);
}
