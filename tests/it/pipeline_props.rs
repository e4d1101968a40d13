//! Properties of the whole pipeline (bytes → events → session → citations → renderers): no input
//! panics it, and every citation's text is exactly the code-point span it claims, whatever the
//! offsets, chunking or characters.

use proptest::prelude::*;
use research_tui::model::citations::Attribution;
use research_tui::render::{Format, render};
use research_tui::wire::input::read_session;
use research_tui::wire::provider::Provider;
use serde_json::json;

fn answer_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("plain ".to_owned()),
        Just("😀".to_owned()),
        Just("東京".to_owned()),
        Just("e\u{301}".to_owned()),
        Just("\x1b[31m".to_owned()),
        Just("\u{202E}".to_owned()),
        Just("\n".to_owned()),
        "[a-z€ ]{0,6}",
    ]
}

fn stream() -> impl Strategy<Value = (Vec<String>, Vec<(i64, i64, u8)>)> {
    (
        proptest::collection::vec(answer_piece(), 0..30),
        proptest::collection::vec((-3i64..120, -3i64..120, 0u8..6), 0..25),
    )
}

fn to_bytes(chunks: &[String], refs: &[(i64, i64, u8)]) -> Vec<u8> {
    let mut out = String::new();
    let half = refs.len() / 2;
    let references = |rs: &[(i64, i64, u8)]| {
        rs.iter()
            .map(|&(start, end, source)| {
                let source = match source {
                    0 => serde_json::Value::Null,
                    1 => json!({"id": "a", "src_name": "A", "ts": "2026-02-29"}),
                    2 => json!({"url": "https://b"}),
                    3 => json!({"action": {"url": "https://c", "name": "C"}}),
                    4 => json!({"hd": "Headline"}),
                    _ => json!({}),
                };
                json!({"start": start, "end": end, "tool_name": "search", "audit_id": "t", "source": source})
            })
            .collect::<Vec<_>>()
    };
    let mut line = |message: serde_json::Value| {
        out.push_str("data: ");
        out.push_str(&json!({"chat_id": "c", "message": message}).to_string());
        out.push('\n');
    };
    line(json!({"type": "GROUNDING", "references": references(&refs[..half])}));
    for chunk in chunks {
        line(json!({"type": "ANSWER", "content": chunk}));
    }
    line(json!({"type": "GROUNDING", "references": references(&refs[half..])}));
    line(json!({"type": "COMPLETE", "checkpoint_id": "k"}));
    out.into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PIPELINE_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
    ))]

    #[test]
    fn every_valid_citation_is_the_exact_code_point_span_and_invalid_ones_are_counted(
        (chunks, refs) in stream()
    ) {
        let bytes = to_bytes(&chunks, &refs);
        let (session, _) = read_session(&bytes[..], Provider::Bigdata).unwrap();
        let answer: Vec<char> = chunks.concat().chars().collect();
        prop_assert_eq!(session.answer.as_str(), chunks.concat());
        let attribution = Attribution::resolve(&session, true);
        let valid = refs.iter().filter(|&&(s, e, _)| 0 <= s && s <= e && e as usize <= answer.len()).count();
        prop_assert_eq!(attribution.citations.len(), valid);
        prop_assert_eq!(attribution.invalid_references, refs.len() - valid);
        for citation in &attribution.citations {
            let expected: String = answer[citation.start..citation.end].iter().collect();
            prop_assert_eq!(citation.text(session.answer.as_str()), expected);
        }
        for (i, source) in attribution.numbered().enumerate() {
            prop_assert_eq!(source.n, i + 1);
        }
        for format in [Format::Markdown, Format::Text] {
            let out = render(&session, format);
            let leaked = out.chars().any(|c| c == '\x1b' || c == '\u{202E}');
            prop_assert!(!leaked, "escape or bidi override reached {:?} output", format);
        }
        let doc: serde_json::Value = serde_json::from_str(&render(&session, Format::Json)).unwrap();
        prop_assert_eq!(doc["answer"].as_str().unwrap(), chunks.concat());
    }

    #[test]
    fn arbitrary_bytes_through_the_whole_pipeline_never_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..2048)
    ) {
        let (session, _) = read_session(&bytes[..], Provider::Bigdata).unwrap();
        for format in [Format::Markdown, Format::Json, Format::Text] {
            let _ = render(&session, format);
        }
    }

    #[test]
    fn mangled_agent_json_never_panics(
        (chunks, refs) in stream(),
        cut in any::<prop::sample::Index>(),
        noise in proptest::collection::vec(any::<u8>(), 0..8),
    ) {
        let mut bytes = to_bytes(&chunks, &refs);
        let at = cut.index(bytes.len().max(1)).min(bytes.len());
        bytes.splice(at..at, noise);
        let (session, _) = read_session(&bytes[..], Provider::Bigdata).unwrap();
        for format in [Format::Markdown, Format::Json, Format::Text] {
            let _ = render(&session, format);
        }
    }
}
