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

#[test]
fn one_evidence_per_occurrence_gives_each_occurrence_exactly_one_citation() {
    // Zeta Alpha's server: a source cited twice yields two evidences with the same anchor, each
    // with the extract of its own occurrence.
    let extract = |url: &str, text: &str| json!({"document_hit_url": url, "anchor_text": "[[1]]", "text_extract": text});
    let session = run(
        vec![message(
            "m1",
            "Trees help [[1]]; long contexts lose the middle [[2]]; trees again [[1]].",
            json!([
                extract("/d/raptor", "RAPTOR builds a tree"),
                {"document_hit_url": "/d/lost", "anchor_text": "[[2]]", "text_extract": "middle"},
                extract("/d/raptor", "20% gain on QuALITY"),
            ]),
        )],
        true,
    );
    assert_eq!(
        cited(&session),
        [
            ("[[1]]".to_owned(), Some(1)),
            ("[[2]]".to_owned(), Some(2)),
            ("[[1]]".to_owned(), Some(1))
        ]
    );
    let refs = &session.references;
    let extract_of = |i: usize| refs[i].source.as_ref().unwrap().text.as_deref().unwrap();
    assert_eq!(
        (extract_of(0), extract_of(2)),
        ("RAPTOR builds a tree", "20% gain on QuALITY")
    );
}

fn status(reason: &str) -> SseEvent {
    SseEvent {
        event: "stream_status".into(),
        data: json!({ "reason": reason }).to_string(),
        id: String::new(),
    }
}

#[test]
fn a_terminal_stream_status_ends_the_session_as_the_server_says() {
    let end_with = |reason: &str| {
        run(
            vec![message("m1", "Partial", Value::Null), status(reason)],
            true,
        )
    };
    assert_eq!(end_with("done").status(), Status::Complete);
    let errored = end_with("errored");
    assert_eq!(errored.status(), Status::Error);
    assert!(errored.error.as_deref().unwrap().contains("errored"));
    assert_eq!(end_with("cancelled").status(), Status::Cancelled);
    for abandoned in ["dead", "gone"] {
        let session = end_with(abandoned);
        assert_eq!(session.status(), Status::Incomplete, "{abandoned}");
        assert!(!session.is_finished());
    }
}

#[test]
fn a_tool_part_shows_its_params_and_a_reasoning_summary_grows_as_thinking() {
    let frame = |summary: &str| SseEvent {
        event: "new_message".into(),
        data:
            json!({"sender": "bot", "content": "", "message_id": "m1", "reasoning_summary": summary,
                     "content_parts": [{"type": "tool", "tool": {"tool_call_id": "c1",
                        "name": "search_documents", "params": {"query": "long documents"},
                        "display_text": "Searching documents", "status": "running"}}]})
            .to_string(),
        id: "m1:0".into(),
    };
    let session = run(vec![frame("Looking"), frame("Looking for papers.")], true);
    assert!(matches!(
        &session.activity[..],
        [Activity::ToolCall { arguments, .. }, Activity::Thinking { text, .. }]
            if arguments == &json!({"query": "long documents"}) && text == "Looking for papers."
    ));
}
