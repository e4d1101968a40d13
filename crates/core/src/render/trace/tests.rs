use super::*;

const RECORDING: &[u8] =
    include_bytes!("../../../../../assets/recordings/bigdata/sodium-ion-research.sse");
const SENT: u64 = 1_764_120_000_000;

/// The recording's bytes arriving a tenth of a second apart, one line at a time.
fn arrivals(bytes: &[u8]) -> Arrivals {
    let mut text = format!("sent {SENT}\n");
    let mut offset = 0;
    for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        text.push_str(&format!("{offset} {}\n", 300 + 100 * i));
        offset += line.len();
    }
    Arrivals::parse(text.as_bytes())
}

fn spans(bytes: &[u8], content: bool, secret: &Secret) -> Vec<SpanSpec> {
    let turn = TimedTurn::read(bytes, Provider::Bigdata, &arrivals(bytes), secret.clone()).unwrap();
    let facts = TurnFacts {
        session_id: "s-1",
        turn: 1,
        provider: Provider::Bigdata,
        model: None,
        question: "How do sodium-ion batteries compare?",
        sent_unix_ms: SENT,
        content,
        secret,
    };
    turn_spans(&facts, &turn)
}

fn attr<'a>(span: &'a SpanSpec, name: &str) -> Option<&'a AttrValue> {
    span.attributes
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
}

#[test]
fn a_turn_is_one_root_span_at_its_arrival_times_with_steps_and_tool_calls_below_it() {
    let spans = spans(RECORDING, false, &Secret::default());
    let root = &spans[0];
    assert_eq!(root.parent, None);
    assert_eq!(root.kind, SpanKind::Client);
    assert_eq!(root.start_unix_ns, SENT * 1_000_000);
    let lines = RECORDING.split_inclusive(|&b| b == b'\n').count() as u64;
    // The last line arrived at 300 + 100 × (lines − 1) ms.
    assert_eq!(
        root.end_unix_ns,
        (SENT + 300 + 100 * (lines - 1)) * 1_000_000
    );
    assert_eq!(
        attr(root, "gen_ai.operation.name"),
        Some(&str_value("invoke_agent"))
    );
    assert_eq!(
        attr(root, "gen_ai.provider.name"),
        Some(&str_value("bigdata"))
    );
    assert_eq!(
        attr(root, "gen_ai.conversation.id"),
        Some(&str_value("s-1"))
    );
    assert_eq!(attr(root, "research_tui.turn"), Some(&AttrValue::Int(2)));
    assert_eq!(root.status, SpanStatus::Ok);
    assert!(attr(root, "gen_ai.usage.input_tokens").is_some());
    let tools: Vec<_> = spans
        .iter()
        .filter(|s| attr(s, "gen_ai.operation.name") == Some(&str_value("execute_tool")))
        .collect();
    assert!(!tools.is_empty());
    assert!(spans.iter().skip(1).all(|s| s.parent == Some(0)
        && s.start_unix_ns >= root.start_unix_ns
        && s.end_unix_ns <= root.end_unix_ns));
    assert!(
        spans
            .iter()
            .any(|s| attr(s, "research_tui.phase") == Some(&str_value("plan_step")))
    );
    assert!(!root.events.is_empty(), "citations are events");
    assert!(
        root.events.iter().all(|e| e.name == "citation"
            && attr_of(&e.attributes, "research_tui.citation.end").is_some())
    );
}

fn attr_of<'a>(attributes: &'a [Attr], name: &str) -> Option<&'a AttrValue> {
    attributes.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
}

fn all_text(spans: &[SpanSpec]) -> String {
    let mut text = String::new();
    for span in spans {
        text.push_str(&span.name);
        let events = span.events.iter().flat_map(|e| e.attributes.iter());
        for (_, value) in span.attributes.iter().chain(events) {
            if let AttrValue::Str(s) = value {
                text.push_str(s);
            }
        }
        if let SpanStatus::Error(e) = &span.status {
            text.push_str(e);
        }
    }
    text
}

#[test]
fn the_question_and_answer_leave_only_when_content_is_asked_for() {
    let without = all_text(&spans(RECORDING, false, &Secret::default()));
    assert!(!without.contains("sodium-ion batteries compare"));
    assert!(!without.contains("gen_ai.output.messages"));
    let with = spans(RECORDING, true, &Secret::default());
    let output = attr(&with[0], "gen_ai.output.messages").expect("the answer");
    let AttrValue::Str(output) = output else {
        panic!("{output:?}")
    };
    let output: serde_json::Value = serde_json::from_str(output).unwrap();
    assert_eq!(output[0]["role"], "assistant");
    assert!(output[0]["parts"][0]["content"].as_str().unwrap().len() > 100);
    assert!(all_text(&with).contains("sodium-ion batteries compare"));
}

#[test]
fn a_key_the_server_echoes_is_masked_in_every_span() {
    let key = "sk-otel-FAKE-0123456789abcdef";
    let text = String::from_utf8_lossy(RECORDING).replace("sodium", key);
    let spans = spans(text.as_bytes(), true, &Secret::new(key));
    let all = all_text(&spans);
    assert!(!all.contains(key) && !all.contains(&key[..12]), "{all}");
    assert!(all.contains("****"));
}
