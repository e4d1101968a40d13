//! xAI and Zeta Alpha streams through the whole pipeline: recordings and small hand fixtures →
//! session → attribution → `render`. Spans, numbering, consulted sources, full-message replacement,
//! per-message evidences, anchor formats, the `[[`/`)` check with its literal-link fallback, provider
//! detection, and golden Markdown/JSON.

use research_tui::model::citations::Attribution;
use research_tui::model::event::AgentEvent;
use research_tui::model::session::{Session, Status};
use research_tui::render::{Format, render};
use research_tui::wire::input::read_session;
use research_tui::wire::provider::{EventPipeline, Provider, zeta};
use research_tui::wire::recording::parse_frames;
use serde_json::Value;

use crate::support;

const XAI_RESEARCH: &str = "assets/recordings/xai/solid-state-batteries.sse";
const XAI_FOLLOW_UP: &str = "assets/recordings/xai/energy-density-follow-up.sse";
const ZETA_RESEARCH: &str = "assets/recordings/zeta/rag-long-documents.sse";
const ZETA_FOLLOW_UP: &str = "assets/recordings/zeta/scientific-pdfs-follow-up.sse";

fn path(relative: &str) -> String {
    format!("{}/{relative}", env!("CARGO_MANIFEST_DIR"))
}

fn session(relative: &str, provider: Option<Provider>) -> Session {
    let file = std::fs::File::open(path(relative)).unwrap();
    let (session, errors) = read_session(file, provider).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    session
}

fn json(relative: &str) -> Value {
    serde_json::from_str(&render(&session(relative, None), Format::Json)).unwrap()
}

/// The text of code points `start..end` of `text`.
fn span(text: &str, start: u64, end: u64) -> String {
    text.chars()
        .skip(start as usize)
        .take((end - start) as usize)
        .collect()
}

fn citations(doc: &Value) -> &Vec<Value> {
    doc["citations"].as_array().unwrap()
}

fn consulted_urls(doc: &Value) -> Vec<&str> {
    doc["consulted_sources"]
        .as_array()
        .map(|list| list.iter().map(|s| s["url"].as_str().unwrap()).collect())
        .unwrap_or_default()
}

#[test]
fn every_xai_inline_link_is_a_citation_whose_span_is_the_link_in_code_points() {
    for recording in [XAI_RESEARCH, XAI_FOLLOW_UP] {
        let doc = json(recording);
        assert_eq!(doc["status"], "complete", "{recording}");
        assert_eq!(doc["stats"]["invalid_references"], 0, "{recording}");
        assert_eq!(doc["stats"]["malformed"], 0, "{recording}");
        let answer = doc["answer"].as_str().unwrap();
        let sources = doc["sources"].as_array().unwrap();
        for citation in citations(&doc) {
            let text = citation["text"].as_str().unwrap();
            let (start, end) = (
                citation["start"].as_u64().unwrap(),
                citation["end"].as_u64().unwrap(),
            );
            assert_eq!(span(answer, start, end), text, "{recording}");
            let n = citation["source"].as_u64().unwrap() as usize;
            let url = sources[n - 1]["url"].as_str().unwrap();
            assert_eq!(text, format!("[[{n}]]({url})"), "{recording}");
        }
        // Every inline link in the answer is cited exactly once.
        assert_eq!(
            answer.matches("[[").count(),
            citations(&doc).len(),
            "{recording}"
        );
    }
}

#[test]
fn xai_sources_are_numbered_by_first_appearance_and_a_repeated_source_keeps_its_number() {
    let doc = json(XAI_RESEARCH);
    let numbers: Vec<u64> = citations(&doc)
        .iter()
        .map(|c| c["source"].as_u64().unwrap())
        .collect();
    let mut first_seen = Vec::new();
    for n in &numbers {
        if !first_seen.contains(n) {
            first_seen.push(*n);
        }
    }
    assert_eq!(
        first_seen,
        (1..=first_seen.len() as u64).collect::<Vec<_>>()
    );
    assert!(numbers.len() > first_seen.len(), "a source is cited twice");
    let sources = doc["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 12);
    assert_eq!(sources[0]["kind"], "WEB");
    assert_eq!(sources[0]["label"], "global.toyota");
    assert!(sources.iter().any(|s| s["kind"] == "X"));
    // The first citation comes after an astral emoji and CJK text: code points, not bytes.
    let first = &citations(&doc)[0];
    let answer = doc["answer"].as_str().unwrap();
    let before: String = answer
        .chars()
        .take(first["start"].as_u64().unwrap() as usize)
        .collect();
    assert!(before.contains('🔋') && before.contains("出光興産"));
}

#[test]
fn xai_uncited_search_results_and_empty_span_annotations_are_consulted_without_markers() {
    let doc = json(XAI_RESEARCH);
    let consulted = consulted_urls(&doc);
    for url in [
        "https://en.wikipedia.org/wiki/Solid-state_battery",
        "https://www.bloomberg.com/news/articles/2026-03-30/solid-state-batteries-hype-meets-factory-reality",
        // empty spans (start = end = 0)
        "https://www.ft.com/content/2b7e4c1a-9d3f-4e8a-b6c5-1f0a9e8d7c6b",
        "https://x.com/i/status/1914567890123456789",
    ] {
        assert!(consulted.contains(&url), "{url} in {consulted:?}");
    }
    let cited: Vec<&str> = doc["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["url"].as_str().unwrap())
        .collect();
    assert!(consulted.iter().all(|url| !cited.contains(url)));
}

#[test]
fn annotations_repeated_in_response_completed_are_counted_once() {
    let text = std::fs::read_to_string(path(XAI_RESEARCH)).unwrap();
    let streamed = text
        .lines()
        .filter(|l| *l == "event: response.output_text.annotation.added")
        .count();
    assert!(text.contains("\"type\":\"response.completed\""));
    let doc = json(XAI_RESEARCH);
    let empty_spans = 2;
    assert_eq!(citations(&doc).len(), streamed - empty_spans);
}

#[test]
fn xai_spans_that_miss_their_link_fall_back_to_the_literal_link_and_a_missing_link_is_invalid() {
    let doc = json("tests/fixtures/xai/misplaced-spans.sse");
    let texts: Vec<&str> = citations(&doc)
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "[[1]](https://a.example/report)",
            "[[2]](https://b.example/news)",
            "[[1]](https://a.example/report)",
            "[[3]](https://x.com/i/status/42)"
        ]
    );
    // The two citations of source 1 are different occurrences of the same link.
    assert_ne!(citations(&doc)[0]["start"], citations(&doc)[2]["start"]);
    assert_eq!(doc["stats"]["invalid_references"], 1);
    assert_eq!(consulted_urls(&doc), ["https://c.example/ghost"]);
    let markdown = render(
        &session("tests/fixtures/xai/misplaced-spans.sse", None),
        Format::Markdown,
    );
    assert!(
        markdown.contains("Storage grew fastest in Texas.[^1] 東京 added 2 GWh.[^2][^1]"),
        "{markdown}"
    );
}

#[test]
fn xai_without_inline_citations_has_only_consulted_sources() {
    let doc = json("tests/fixtures/xai/no-inline-citations.sse");
    assert!(citations(&doc).is_empty());
    assert!(doc["sources"].as_array().unwrap().is_empty());
    assert_eq!(consulted_urls(&doc).len(), 3);
    assert_eq!(doc["checkpoint_id"], "resp_fixture_plain");
    let session = session("tests/fixtures/xai/no-inline-citations.sse", None);
    assert_eq!(
        session.audits[0].query.as_deref(),
        Some("lithium price March")
    );
    assert_eq!(session.audits[0].result_count, Some(3));
}

#[test]
fn xai_tool_calls_and_reasoning_show_in_the_activity_log() {
    let session = session(XAI_RESEARCH, None);
    let queries: Vec<&str> = session
        .audits
        .iter()
        .filter_map(|a| a.query.as_deref())
        .collect();
    assert_eq!(queries.len(), 5);
    assert!(queries.contains(&"全固体電池 量産 2027 出光 トヨタ"));
    let kinds: Vec<&str> = session
        .audits
        .iter()
        .map(|a| a.audit_type.as_str())
        .collect();
    assert!(kinds.contains(&"web_search") && kinds.contains(&"x_keyword_search"));
    assert!(
        session
            .activity
            .iter()
            .any(|a| matches!(a, research_tui::model::session::Activity::Thinking { .. }))
    );
    let completion = session.completion.as_ref().unwrap();
    assert_eq!(completion.total_tokens(), (18342, 1187));
    assert_eq!(completion.consumption[0].cached_tokens, 4096);
    assert_eq!(
        session.checkpoint_id(),
        Some("resp_demo_7f3a91c2e5b84d06"),
        "what a follow-up sends as previous_response_id"
    );
}

#[test]
fn every_zeta_anchor_occurrence_is_a_citation_keyed_by_document_hit_url() {
    for recording in [ZETA_RESEARCH, ZETA_FOLLOW_UP] {
        let doc = json(recording);
        assert_eq!(doc["status"], "complete", "{recording}");
        assert_eq!(doc["stats"]["invalid_references"], 0, "{recording}");
        let answer = doc["answer"].as_str().unwrap();
        let sources = doc["sources"].as_array().unwrap();
        let mut anchors = 0;
        for citation in citations(&doc) {
            let text = citation["text"].as_str().unwrap();
            assert_eq!(
                span(
                    answer,
                    citation["start"].as_u64().unwrap(),
                    citation["end"].as_u64().unwrap()
                ),
                text
            );
            anchors += 1;
        }
        // Each evidence's anchor occurs in the answer exactly as often as it is cited.
        for source in sources {
            let n = source["n"].as_u64().unwrap();
            let texts: Vec<&str> = citations(&doc)
                .iter()
                .filter(|c| c["source"].as_u64() == Some(n))
                .map(|c| c["text"].as_str().unwrap())
                .collect();
            assert_eq!(answer.matches(texts[0]).count(), texts.len(), "{recording}");
            assert_eq!(source["key"], source["url"]);
        }
        assert_eq!(anchors, 11, "{recording}");
        assert!(
            !answer.contains("[[1]]("),
            "the final content replaced the raw links"
        );
    }
    let doc = json(ZETA_RESEARCH);
    let sources = doc["sources"].as_array().unwrap();
    assert_eq!(
        sources[0]["url"],
        "/documents/chunk/list?tenant=demo&property_name=id&property_values=f3a9c1d2e8b7_4"
    );
    let custom = sources.iter().find(|s| s["kind"] == "CUSTOM").unwrap();
    assert_eq!(custom["url"], "custom://team-notes-2026-03");
    assert_eq!(custom["label"], "Custom document team-notes-2026-03");
    assert_eq!(citations(&doc)[0]["text"], "<sup>1</sup>");
    assert_eq!(citations(&doc)[1]["source"], 1, "repeated source");
}

#[test]
fn zeta_extracts_keep_their_bold_key_sentence_for_the_source_detail() {
    let session = session(ZETA_RESEARCH, None);
    let attribution = Attribution::resolve(&session, true);
    let extract = attribution.sources[0].doc.text.as_deref().unwrap();
    let bold: Vec<&str> = zeta::bold_runs(extract)
        .into_iter()
        .filter(|(_, bold)| *bold)
        .map(|(text, _)| text)
        .collect();
    assert_eq!(bold.len(), 1);
    assert!(bold[0].starts_with("Performance is often highest"));
    assert_eq!(
        attribution.sources[0].headline.as_deref(),
        Some("Lost in the Middle: How Language Models Use Long Contexts")
    );
}

#[test]
fn each_zeta_message_replaces_the_answer_and_its_citations_instead_of_appending() {
    let bytes = std::fs::read(path(ZETA_RESEARCH)).unwrap();
    let frames = parse_frames(&bytes);
    let mut pipeline = EventPipeline::new(Provider::Zeta);
    let mut session = Session::new();
    let mut replacements = 0;
    let mut longest = 0;
    for (i, frame) in frames.iter().enumerate() {
        let mut events = Vec::new();
        pipeline.feed(&frame.bytes, &mut events).unwrap();
        replacements += events
            .iter()
            .filter(|e| matches!(e, AgentEvent::AnswerReplace { .. }))
            .count();
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, AgentEvent::AnswerDelta { .. }))
        );
        session.apply_all(events);
        longest = longest.max(session.answer.char_len());
        if i + 3 == frames.len() {
            // The last streaming version: raw links, no evidences yet.
            assert!(session.answer.as_str().contains("[[1]](/documents/"));
            assert!(session.references.is_empty());
        }
    }
    let mut events = Vec::new();
    pipeline.finish(&mut events).unwrap();
    session.apply_all(events);
    assert!(replacements > 20);
    let last = frames[frames.len() - 2].bytes.clone();
    let data = String::from_utf8(last).unwrap();
    let data = data.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
    let message: Value = serde_json::from_str(data).unwrap();
    assert_eq!(
        session.answer.as_str(),
        message["content"].as_str().unwrap()
    );
    assert!(
        session.answer.char_len() < longest,
        "the rewrite shortened it"
    );
    assert_eq!(session.status(), Status::Complete);
    assert_eq!(session.ids.chat_id.as_deref(), Some("sess-demo-5e1b7c93"));
}

#[test]
fn zeta_evidences_belong_to_their_own_message() {
    let doc = json("tests/fixtures/zeta/two-messages.sse");
    assert_eq!(
        doc["answer"],
        "Grid storage doubled<sup>1</sup>.\n\nPrices fell 😀 by a third<sup>1</sup>, mostly in China<sup>2</sup>."
    );
    let found: Vec<(u64, &str)> = citations(&doc)
        .iter()
        .map(|c| {
            let n = c["source"].as_u64().unwrap();
            (n, doc["sources"][n as usize - 1]["url"].as_str().unwrap())
        })
        .collect();
    // The same anchor `<sup>1</sup>` means a different document in each message.
    assert_eq!(
        found,
        [(1, "/d/storage"), (2, "/d/prices"), (3, "/d/china")]
    );
    let session = session("tests/fixtures/zeta/two-messages.sse", None);
    assert_eq!(session.audits.len(), 1);
    assert_eq!(
        session.audits[0].title.as_deref(),
        Some("Found 3 documents (completed)")
    );
}

#[test]
fn zeta_anchors_in_several_formats_are_all_found() {
    let doc = json("tests/fixtures/zeta/anchor-formats.sse");
    let texts: Vec<&str> = citations(&doc)
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "<sup>1</sup>",
            "[[2]]",
            "[a1b2c3d4]",
            "<sup>doc0_chunk1</sup>",
            "<sup>1</sup>"
        ]
    );
    assert_eq!(doc["sources"][2]["kind"], "CUSTOM");
    let markdown = render(
        &session("tests/fixtures/zeta/anchor-formats.sse", None),
        Format::Markdown,
    );
    assert!(
        markdown.starts_with(
            "Résumé 🧭: numbered[^1], double-bracket[^2], hash[^3], named[^4] and numbered again[^1]."
        ),
        "{markdown}"
    );
}

#[test]
fn a_zeta_error_event_ends_the_session_with_the_error() {
    let doc = json("tests/fixtures/zeta/error.sse");
    assert_eq!(doc["status"], "error");
    assert_eq!(doc["error"], "Agent failed: upstream model timed out");
    assert_eq!(doc["answer"], "Partial answer");
}

#[test]
fn render_detects_the_provider_from_the_first_events() {
    for (recording, chat_id) in [
        (XAI_RESEARCH, "resp_demo_7f3a91c2e5b84d06"),
        (ZETA_RESEARCH, "sess-demo-5e1b7c93"),
        (
            "assets/recordings/bigdata/earnings-deep-dive.sse",
            "demo-chat-4f7d2c9a-nvda-earnings",
        ),
    ] {
        let output = support::cli(support::scratch())
            .args(["render", &path(recording), "--format", "json"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{recording}");
        let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(doc["status"], "complete", "{recording}");
        assert_eq!(doc["chat_id"], chat_id, "{recording}");
        assert_eq!(doc["stats"]["malformed"], 0, "{recording}");
    }
    let explicit = support::cli(support::scratch())
        .args(["render", &path(ZETA_RESEARCH), "--provider", "zeta"])
        .output()
        .unwrap();
    let detected = support::cli(support::scratch())
        .args(["render", &path(ZETA_RESEARCH)])
        .output()
        .unwrap();
    assert_eq!(explicit.stdout, detected.stdout);
    // Read as the wrong provider, nothing is understood.
    let wrong = json_with(XAI_RESEARCH, Provider::Bigdata);
    assert_eq!(wrong["answer"], "");
}

fn json_with(relative: &str, provider: Provider) -> Value {
    serde_json::from_str(&render(&session(relative, Some(provider)), Format::Json)).unwrap()
}

#[test]
fn xai_recording_renders_markdown_with_footnotes_in_place_of_the_links() {
    let markdown = render(&session(XAI_RESEARCH, None), Format::Markdown);
    assert!(!markdown.contains("[[1]]("));
    insta::assert_snapshot!(markdown);
}

#[test]
fn xai_recording_renders_json_with_the_answer_as_sent() {
    insta::assert_snapshot!(render(&session(XAI_RESEARCH, None), Format::Json));
}

#[test]
fn zeta_recording_renders_markdown_with_footnotes_in_place_of_the_anchors() {
    let markdown = render(&session(ZETA_RESEARCH, None), Format::Markdown);
    assert!(!markdown.contains("<sup>"));
    insta::assert_snapshot!(markdown);
}

#[test]
fn zeta_recording_renders_json_with_the_final_content_and_document_hit_urls() {
    insta::assert_snapshot!(render(&session(ZETA_RESEARCH, None), Format::Json));
}

#[test]
fn detection_reads_every_bigdata_stream_exactly_as_the_bigdata_dialect_does() {
    let mut checked = 0;
    for dir in ["tests/fixtures", "assets/recordings/bigdata"] {
        for entry in std::fs::read_dir(path(dir)).unwrap() {
            let file = entry.unwrap().path();
            if file.extension().is_none_or(|e| e != "sse") {
                continue;
            }
            let relative = format!("{dir}/{}", file.file_name().unwrap().to_str().unwrap());
            assert_eq!(
                json(&relative),
                json_with(&relative, Provider::Bigdata),
                "{relative}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 9, "{checked}");
}
