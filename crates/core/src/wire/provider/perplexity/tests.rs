use serde_json::json;

use super::*;
use crate::model::session::Session;
use crate::wire::provider::testing::{cited, run};

fn chunk(content: &str, finish: Option<&str>) -> SseEvent {
    let data = json!({"id": "cmpl-1", "model": "sonar-reasoning-pro", "object": "chat.completion.chunk",
        "citations": ["https://eur-lex.europa.eu/eli/reg/2024/1689", "https://digital-strategy.ec.europa.eu/gpai"],
        "search_results": [
            {"title": "Regulation (EU) 2024/1689", "url": "https://eur-lex.europa.eu/eli/reg/2024/1689", "date": "2024-07-12"},
            {"title": "GPAI obligations", "url": "https://digital-strategy.ec.europa.eu/gpai", "date": "2025-07-18"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 40},
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": content}, "finish_reason": finish}]});
    SseEvent {
        event: String::new(),
        data: data.to_string(),
        id: String::new(),
    }
}

fn thinking(session: &Session) -> String {
    use crate::model::session::Activity;
    session
        .activity
        .iter()
        .filter_map(|a| match a {
            Activity::Thinking { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn session(chunks: &[&str]) -> Session {
    let mut events: Vec<SseEvent> = chunks.iter().map(|c| chunk(c, None)).collect();
    events.push(chunk("", Some("stop")));
    run(&mut PerplexityDialect::default(), events, true)
}

#[test]
fn markers_cite_their_entry_and_think_goes_to_thinking() {
    let session = session(&[
        "<thi",
        "nk>Check the act",
        ".</th",
        "ink>\n\nObligations apply from August 2025 [",
        "2]; the act itself is [1][2].",
    ]);
    assert_eq!(
        session.answer.as_str(),
        "Obligations apply from August 2025 [2]; the act itself is [1][2]."
    );
    assert_eq!(thinking(&session), "Check the act.");
    assert_eq!(
        cited(&session),
        [
            ("[2]".to_owned(), Some(1)),
            ("[1]".to_owned(), Some(2)),
            ("[2]".to_owned(), Some(1)),
        ]
    );
    assert!(session.is_finished());
    assert_eq!(session.ids.chat_id.as_deref(), Some("cmpl-1"));
}

#[test]
fn a_marker_past_the_sources_is_invalid_and_uncited_sources_are_consulted() {
    let session = session(&["Only this [3]."]);
    let attribution = crate::model::citations::Attribution::resolve(&session, true);
    assert_eq!(attribution.invalid_references, 1);
    assert!(attribution.citations.is_empty());
    assert_eq!(attribution.sources.len(), 2);
    assert!(attribution.sources.iter().all(|s| s.consulted_only));
}

#[test]
fn chat_completion_chunks_are_perplexitys() {
    assert_eq!(
        Provider::detect(&chunk("x", None)),
        Some(Provider::Perplexity)
    );
}
