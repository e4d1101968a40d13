use serde_json::json;

use super::*;
use crate::model::session::Session;
use crate::wire::provider::request::{Ask, ProviderOptions};
use crate::wire::provider::testing::run;

fn event(data: serde_json::Value) -> SseEvent {
    SseEvent {
        event: data["type"].as_str().unwrap_or_default().to_owned(),
        data: data.to_string(),
        id: String::new(),
    }
}

fn created(model: &str) -> SseEvent {
    event(json!({"type": "response.created", "sequence_number": 0,
        "response": {"id": "resp_1", "object": "response", "model": model, "status": "queued"}}))
}

fn delta(sequence: u64, text: &str) -> SseEvent {
    event(
        json!({"type": "response.output_text.delta", "sequence_number": sequence,
        "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": text}),
    )
}

#[test]
fn events_sent_again_by_a_resumed_stream_are_taken_once() {
    let events = vec![
        created("o3-deep-research-2025-06-26"),
        delta(1, "Sodium"),
        delta(2, "-ion"),
        // The stream broke after 2 and was resumed from 1: 2 comes again.
        delta(2, "-ion"),
        delta(3, " wins."),
    ];
    let session: Session = run(&mut OpenAiDialect::default(), events, true);
    assert_eq!(session.answer.as_str(), "Sodium-ion wins.");
    assert_eq!(session.ids.chat_id.as_deref(), Some("resp_1"));
}

#[test]
fn the_model_a_response_names_tells_openai_from_xai() {
    let openai = created("o4-mini-deep-research");
    let xai = created("grok-4");
    assert_eq!(Provider::detect(&openai), Some(Provider::OpenAI));
    assert_eq!(Provider::detect(&xai), Some(Provider::Xai));
    // Without the event line, by the payload alone.
    let bare = SseEvent {
        event: String::new(),
        ..created("gpt-5")
    };
    assert_eq!(Provider::detect(&bare), Some(Provider::OpenAI));
    // A delta names no model: xAI, as before OpenAI was a provider.
    assert_eq!(Provider::detect(&delta(1, "x")), Some(Provider::Xai));
    assert_eq!(OpenAiDialect::default().provider(), Some(Provider::OpenAI));
}

#[test]
fn run_marks_read_the_run_id_and_the_sequence_number() {
    let marks = run_marks(&created("o3").data);
    assert_eq!(marks.run_id.as_deref(), Some("resp_1"));
    assert_eq!(marks.cursor, Some(RunCursor::Sequence(0)));
    assert_eq!(
        run_marks(&delta(7, "x").data).cursor,
        Some(RunCursor::Sequence(7))
    );
    assert_eq!(run_marks("[DONE]"), RunMarks::default());
}

#[test]
fn deep_research_runs_in_the_background_with_web_search_preview_and_reasoning_summaries() {
    let ask = Ask {
        checkpoint_id: Some("resp_prev".into()),
        ..Ask::new("Why?")
    };
    let request = request::build(&ask, &ProviderOptions::default());
    assert_eq!(request.path, "/v1/responses");
    assert_eq!(
        request.body,
        json!({"model": "o4-mini-deep-research", "stream": true, "background": true,
               "input": [{"role": "user", "content": "Why?"}],
               "tools": [{"type": "web_search_preview"}], "reasoning": {"summary": "auto"},
               "previous_response_id": "resp_prev"})
    );
    assert!(request::runs_in_background(&request.body));
    let parsed =
        crate::wire::provider::responses::ResponsesRequest::parse(&request.body_bytes()).unwrap();
    assert!(parsed.background);
    assert_eq!(parsed.question(), "Why?");

    let options = ProviderOptions {
        model: Some("gpt-4.1".into()),
        ..ProviderOptions::default()
    };
    let request = request::build(&Ask::new("Now?"), &options);
    assert_eq!(
        request.body,
        json!({"model": "gpt-4.1", "stream": true, "input": [{"role": "user", "content": "Now?"}],
               "tools": [{"type": "web_search"}]})
    );
    assert!(!request::runs_in_background(&request.body));
}

#[test]
fn resume_and_cancel_paths_name_the_run() {
    assert_eq!(
        request::resume_path("resp_ab12", "41"),
        "/v1/responses/resp_ab12?stream=true&starting_after=41"
    );
    assert_eq!(
        request::cancel_path("resp/../x"),
        "/v1/responses/resp%2F..%2Fx/cancel"
    );
}

fn annotation(sequence: u64, annotation: serde_json::Value) -> SseEvent {
    event(json!({"type": "response.output_text.annotation.added",
        "sequence_number": sequence, "item_id": "msg_1", "output_index": 0, "content_index": 0,
        "annotation_index": sequence, "annotation": annotation}))
}

#[test]
fn files_are_cited_by_name_at_their_position_or_without_one() {
    use crate::model::citations::Attribution;
    let events = vec![
        created("gpt-5"),
        delta(1, "Revenue grew 12%. Costs fell."),
        annotation(
            2,
            json!({"type": "file_citation", "file_id": "file-1", "filename": "q3.pdf", "index": 17}),
        ),
        annotation(
            3,
            json!({"type": "container_file_citation", "container_id": "cntr_1",
                "file_id": "cfile_2", "filename": "chart.png", "start_index": 18, "end_index": 29}),
        ),
        annotation(
            4,
            json!({"type": "file_citation", "file_id": "file-3", "filename": "notes.txt", "index": 9000}),
        ),
        event(json!({"type": "response.completed", "sequence_number": 5,
            "response": {"id": "resp_1", "model": "gpt-5", "status": "completed", "output": []}})),
    ];
    let session = run(&mut OpenAiDialect::default(), events, true);
    let attribution = Attribution::resolve(&session, true);
    let answer = session.answer.as_str();
    let placed: Vec<(&str, &str, Option<usize>)> = attribution
        .citations
        .iter()
        .map(|c| {
            let source = &attribution.sources[c.source.unwrap() - 1];
            (source.publisher.as_str(), c.text(answer), Some(c.end))
        })
        .collect();
    assert_eq!(
        placed,
        [
            ("q3.pdf", "", Some(17)),
            ("chart.png", "Costs fell.", Some(29))
        ]
    );
    let unplaced: Vec<&str> = attribution
        .unplaced()
        .map(|s| s.publisher.as_str())
        .collect();
    assert_eq!(unplaced, ["notes.txt"]);
    assert!(attribution.sources.iter().all(|s| s.url.is_none()));
}

#[test]
fn a_search_source_without_a_url_is_consulted_under_its_name() {
    let events = vec![
        created("gpt-5"),
        event(
            json!({"type": "response.output_item.done", "sequence_number": 1, "output_index": 0,
            "item": {"type": "web_search_call", "id": "ws_1", "status": "completed",
                "action": {"type": "search", "query": "weather in Paris",
                    "sources": [{"type": "url", "url": "https://meteo.fr/paris"},
                                {"type": "api", "name": "oai-weather"}]}}}),
        ),
    ];
    let session = run(&mut OpenAiDialect::default(), events, true);
    let names: Vec<(Option<&str>, Option<&str>)> = session
        .consulted
        .iter()
        .map(|d| (d.src_name.as_deref(), d.url.as_deref()))
        .collect();
    assert_eq!(
        names,
        [
            (Some("meteo.fr"), Some("https://meteo.fr/paris")),
            (Some("oai-weather"), None)
        ]
    );
}
