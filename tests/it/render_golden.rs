//! Golden tests of `render` over recordings: exact Markdown, JSON and text output, plus the rules
//! behind them (framing variants agree, invalid references are counted, hostile text is neutralised).

use std::io::Write;
use std::process::Stdio;

use research_tui::render::{Format, render};
use research_tui::wire::input::read_session;
use research_tui::wire::provider::Provider;
use serde_json::Value;

use crate::support;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn recording(name: &str) -> String {
    format!(
        "{}/assets/recordings/bigdata/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn rendered(path: &str, format: Format) -> String {
    let file = std::fs::File::open(path).unwrap();
    let (session, errors) = read_session(file, Provider::Bigdata).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    render(&session, format)
}

fn json(path: &str) -> Value {
    serde_json::from_str(&rendered(path, Format::Json)).unwrap()
}

#[test]
fn line_framed_stream_renders_markdown_with_footnotes() {
    insta::assert_snapshot!(rendered(&fixture("line-framed.sse"), Format::Markdown));
}

#[test]
fn line_framed_stream_renders_json_for_scripts() {
    insta::assert_snapshot!(rendered(&fixture("line-framed.sse"), Format::Json));
}

#[test]
fn line_framed_stream_renders_text_for_people() {
    insta::assert_snapshot!(rendered(&fixture("line-framed.sse"), Format::Text));
}

#[test]
fn pretty_printed_crlf_stream_with_bom_gives_the_same_result_as_line_framing() {
    let mut pretty = json(&fixture("pretty-printed.sse"));
    let mut lines = json(&fixture("line-framed.sse"));
    // The line-framed copy adds one malformed payload; everything else must agree.
    pretty["stats"] = Value::Null;
    lines["stats"] = Value::Null;
    assert_eq!(pretty, lines);
}

#[test]
fn stats_count_events_malformed_unknown_and_invalid_references() {
    let doc = json(&fixture("line-framed.sse"));
    assert_eq!(doc["stats"]["malformed"], 1);
    assert_eq!(doc["stats"]["unknown"], 1);
    assert_eq!(doc["stats"]["invalid_references"], 2);
    assert_eq!(doc["status"], "complete");
    assert_eq!(doc["checkpoint_id"], "ckpt-fixture-1");
    assert_eq!(doc["chat_id"], "chat-fixture-1");
}

#[test]
fn citation_text_is_the_exact_span_after_emoji_and_cjk() {
    let doc = json(&fixture("line-framed.sse"));
    let answer = doc["answer"].as_str().unwrap();
    for citation in doc["citations"].as_array().unwrap() {
        let (start, end) = (
            citation["start"].as_u64().unwrap() as usize,
            citation["end"].as_u64().unwrap() as usize,
        );
        let span: String = answer.chars().skip(start).take(end - start).collect();
        assert_eq!(citation["text"].as_str().unwrap(), span);
    }
    let nikkei = &doc["citations"].as_array().unwrap()[3];
    assert_eq!(nikkei["text"], "Nikkei reports the site opens in 2027");
    assert_eq!(nikkei["source"], 3);
    assert_eq!(nikkei["query"], "Nvidia guidance reaction");
}

#[test]
fn sources_are_deduplicated_and_tool_level_citations_kept_unnumbered() {
    let doc = json(&fixture("line-framed.sse"));
    let sources = doc["sources"].as_array().unwrap();
    let keys: Vec<_> = sources.iter().map(|s| s["key"].as_str().unwrap()).collect();
    assert_eq!(
        keys,
        [
            "doc-10q",
            "ext-reuters-1",
            "https://asia.nikkei.com/nvda-tokyo",
            "doc-call",
            "Analyst note: gross margin path"
        ]
    );
    assert_eq!(sources[1]["label"], "Reuters - May 28, 2026");
    assert_eq!(sources[3]["url"], Value::Null);
    assert_eq!(sources[4]["date"], Value::Null);
    let tool_level: Vec<_> = doc["citations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["source"].is_null())
        .map(|c| {
            (
                c["tool_name"].as_str().unwrap(),
                c["audit_id"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(tool_level, [("get_market_tearsheet", "audit-3"); 2]);
}

#[test]
fn a_workflow_stream_that_fails_renders_as_error_with_its_execution_id() {
    insta::assert_snapshot!(rendered(&fixture("workflow-error.sse"), Format::Text));
    let doc = json(&fixture("workflow-error.sse"));
    assert_eq!(doc["status"], "error");
    assert_eq!(doc["execution_id"], "exec-42");
    assert_eq!(doc["error"], "Request failed: model capacity exhausted");
    assert_eq!(doc["tool_errors"][0]["tool_name"], "get_earnings_calendar");
}

#[test]
fn a_stream_cut_mid_answer_is_incomplete_and_keeps_what_arrived() {
    let doc = json(&fixture("cut-mid-answer.sse"));
    assert_eq!(doc["status"], "incomplete");
    assert_eq!(doc["checkpoint_id"], Value::Null);
    assert!(
        doc["answer"]
            .as_str()
            .unwrap()
            .starts_with("## NVIDIA Q1 FY2027 📈")
    );
    // References past the partial answer are invalid once the stream has ended.
    assert_eq!(doc["stats"]["invalid_references"], 3);
}

#[test]
fn hostile_control_and_bidi_characters_never_reach_markdown_or_text() {
    for format in [Format::Markdown, Format::Text] {
        let out = rendered(&fixture("hostile.sse"), format);
        let bad: Vec<char> = out
            .chars()
            .filter(|&c| {
                (c.is_control() && c != '\n' && c != '\t')
                    || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
            })
            .collect();
        assert!(bad.is_empty(), "{format:?} leaked {bad:?}");
    }
    insta::assert_snapshot!(rendered(&fixture("hostile.sse"), Format::Markdown));
    let doc = json(&fixture("hostile.sse"));
    assert!(
        doc["answer"].as_str().unwrap().contains('\x1b'),
        "JSON keeps the exact text"
    );
}

#[test]
fn every_demo_recording_renders_complete_with_valid_citations() {
    for name in [
        "earnings-deep-dive.sse",
        "sector-comparison.sse",
        "follow-up.sse",
        "workflow-earnings-brief.sse",
    ] {
        let doc = json(&recording(name));
        assert_eq!(doc["status"], "complete", "{name}");
        assert_eq!(doc["stats"]["invalid_references"], 0, "{name}");
        assert_eq!(doc["stats"]["malformed"], 0, "{name}");
        assert!(doc["sources"].as_array().unwrap().len() >= 5, "{name}");
        assert!(
            doc["citations"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["source"].is_null()),
            "{name}: tool-level citation"
        );
    }
    insta::assert_snapshot!(rendered(
        &recording("earnings-deep-dive.sse"),
        Format::Markdown
    ));
}

#[test]
fn render_reads_standard_input_as_it_arrives() {
    let mut child = support::cli(support::scratch())
        .args(["render", "-", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(fixture("line-framed.sse")).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for piece in bytes.chunks(997) {
        stdin.write_all(piece).unwrap();
        stdin.flush().unwrap();
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc, json(&fixture("line-framed.sse")));
}

#[test]
fn render_of_a_missing_file_fails_with_a_clear_message() {
    let output = support::cli(support::scratch())
        .args(["render", "/nonexistent/recording.sse"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("cannot read /nonexistent/recording.sse")
    );
}

#[test]
fn an_overlong_line_is_reported_counted_as_malformed_and_the_rest_still_renders() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.sse");
    let mut bytes =
        b"data: {\"chat_id\":\"c\",\"message\":{\"type\":\"ANSWER\",\"content\":\"".to_vec();
    bytes.resize(bytes.len() + 17 * 1024 * 1024, b'x');
    bytes.extend_from_slice(b"\"}}\n\n");
    bytes.extend_from_slice(&std::fs::read(fixture("line-framed.sse")).unwrap());
    std::fs::write(&path, &bytes).unwrap();
    let output = support::cli(support::scratch())
        .args(["render", path.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("16 MiB limit"));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        doc["stats"]["malformed"], 2,
        "the overlong line and the fixture's broken line"
    );
    assert_eq!(doc["status"], "complete");
}

#[test]
fn invalid_utf8_in_the_answer_becomes_replacement_characters_and_the_stream_goes_on() {
    let mut bytes =
        b"data: {\"chat_id\":\"c\",\"message\":{\"type\":\"ANSWER\",\"content\":\"caf".to_vec();
    bytes.extend_from_slice(&[0xC3, 0x28]);
    bytes.extend_from_slice(
        b" ok\"}}\n\ndata: {\"chat_id\":\"c\",\"message\":{\"type\":\"COMPLETE\"}}\n",
    );
    let (session, errors) = read_session(&bytes[..], Provider::Bigdata).unwrap();
    assert!(errors.is_empty());
    assert_eq!(session.answer.as_str(), "caf\u{FFFD}( ok");
    assert_eq!(session.status().as_str(), "complete");
}
