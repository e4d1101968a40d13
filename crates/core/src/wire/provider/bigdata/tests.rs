//! The Bigdata.com dialect's unit tests: both envelopes, both field spellings, lenient decoding.

use super::*;

/// The `Value` path alone, to hold the typed fast path to it.
fn decode_lenient(data: &str) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    BigdataDialect::default().decode_lenient(data, &mut out);
    out
}

fn decode(data: &str) -> Vec<AgentEvent> {
    let mut dialect = BigdataDialect::default();
    let mut out = Vec::new();
    dialect.decode(
        SseEvent {
            data: data.into(),
            ..Default::default()
        },
        &mut out,
    );
    out
}

#[test]
fn the_typed_fast_path_and_the_lenient_path_agree_on_every_recorded_event() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut checked = 0;
    for dir in ["assets/recordings/bigdata", "tests/fixtures"] {
        for entry in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "sse") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text.lines().filter_map(|l| l.strip_prefix("data: ")) {
                if !crate::wire::sse::is_complete_json(line) || line == "[DONE]" {
                    continue;
                }
                assert_eq!(
                    decode(line),
                    decode_lenient(line),
                    "{}: {line}",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "only {checked} events checked");
}

#[test]
fn retry_and_error_messages_under_either_name_agree_on_both_paths() {
    for (data, expected) in [
        (
            r#"{"message":{"type":"LLM_RETRY","message":"","content":"x"}}"#,
            "x",
        ),
        (
            r#"{"message":{"type":"LLM_RETRY","message":{"code":1}}}"#,
            r#"{"code":1}"#,
        ),
        (
            r#"{"message":{"type":"ERROR","message":"capacity"}}"#,
            "capacity",
        ),
        (
            r#"{"message":{"type":"ERROR","error":"boom","message":"other"}}"#,
            "boom",
        ),
    ] {
        let fast = decode(data);
        assert_eq!(fast, decode_lenient(data), "{data}");
        let text = match &fast[0] {
            AgentEvent::LlmRetry { message } | AgentEvent::Error { message } => message,
            other => panic!("{other:?}"),
        };
        assert_eq!(text, expected, "{data}");
    }
}

#[test]
fn a_field_of_an_unexpected_type_falls_back_to_the_lenient_path() {
    let events = decode(
        r#"{"chat_id":"c","message":{"type":"ANSWER","content":"x","plan":7,"references":"nope"}}"#,
    );
    assert_eq!(events.len(), 2);
    assert!(matches!(&events[1], AgentEvent::AnswerDelta { text, .. } if text == "x"));
    let events = decode(r#"{"message":{"type":"CHART","chart_id":"c1","title":"Revenue"}}"#);
    assert!(
        matches!(&events[0], AgentEvent::Chart(chart) if chart.title.as_deref() == Some("Revenue"))
    );
}

#[test]
fn research_agent_envelope_yields_chat_id_then_the_message() {
    let events = decode(r#"{"chat_id":"c1","message":{"type":"ANSWER","content":" x "}}"#);
    assert_eq!(
        events[0],
        AgentEvent::Conversation(ConversationIds {
            chat_id: Some("c1".into()),
            ..Default::default()
        })
    );
    assert_eq!(
        events[1],
        AgentEvent::AnswerDelta {
            message_id: None,
            text: " x ".into()
        }
    );
}

#[test]
fn workflow_delta_envelope_yields_execution_and_request_ids() {
    let events = decode(
        r#"{"request_id":"r1","execution_id":"e1","delta":{"type":"THINKING","content":"hm"}}"#,
    );
    let AgentEvent::Conversation(ids) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(ids.execution_id.as_deref(), Some("e1"));
    assert_eq!(ids.request_id.as_deref(), Some("r1"));
    assert!(matches!(events[1], AgentEvent::Thinking { .. }));
}

#[test]
fn camel_case_spellings_are_accepted() {
    let events = decode(
        r#"{"message":{"type":"AUDIT","audit_traces":[{"auditType":"SearchAuditV1","toolId":"t9","query":{"text":"q"}}]}}"#,
    );
    let AgentEvent::Audit { traces, .. } = &events[0] else {
        panic!()
    };
    assert_eq!(traces[0].audit_type, "SearchAuditV1");
    assert_eq!(traces[0].tool_id.as_deref(), Some("t9"));
    assert_eq!(traces[0].query.as_deref(), Some("q"));
    let events = decode(
        r#"{"message":{"type":"GROUNDING","references":[{"start":0,"end":1,"action_audits_id":"t9","source":{"srcName":"X"}}]}}"#,
    );
    let AgentEvent::Grounding(refs) = &events[0] else {
        panic!()
    };
    assert_eq!(refs[0].audit_id.as_deref(), Some("t9"));
    assert_eq!(
        refs[0].source.as_ref().unwrap().src_name.as_deref(),
        Some("X")
    );
}

#[test]
fn non_integer_offsets_are_kept_as_missing() {
    let events = decode(
        r#"{"message":{"type":"GROUNDING","references":[{"start":1.5,"end":-2,"source":null}]}}"#,
    );
    let AgentEvent::Grounding(refs) = &events[0] else {
        panic!()
    };
    assert_eq!((refs[0].start, refs[0].end), (None, None));
    assert!(refs[0].source.is_none());
}

#[test]
fn unknown_types_are_counted_not_fatal_and_bad_payloads_are_malformed() {
    assert_eq!(
        decode(r#"{"message":{"type":"NOT_ENTITLED"}}"#),
        vec![AgentEvent::Unknown {
            kind: "NOT_ENTITLED".into()
        }]
    );
    assert!(matches!(
        decode("{not json")[0],
        AgentEvent::Malformed { .. }
    ));
    assert!(matches!(
        decode(r#"{"chat_id":"x"}"#)[0],
        AgentEvent::Malformed { .. }
    ));
    assert!(decode("[DONE]").is_empty());
}

#[test]
fn sub_agent_roles_are_kept_and_assistant_is_the_main_role() {
    let events = decode(
        r#"{"message":{"type":"THINKING","role":"sector_analyst","message_id":"t1","content":"a"}}"#,
    );
    assert_eq!(
        events[0],
        AgentEvent::Thinking {
            message_id: Some("t1".into()),
            role: Some("sector_analyst".into()),
            text: "a".into()
        }
    );
}

#[test]
fn a_chart_keeps_its_offsets_data_points_and_a_spec_sent_as_json_text() {
    let events = decode(
        r#"{"message":{"type":"CHART","chart_id":"c1","title":"Revenue","caption":"By segment","chart_type":"bar","start":10,"end":42,"data_points":[{"label":"A","value":1}],"vega_lite_spec":"{\"mark\":\"bar\"}"}}"#,
    );
    let AgentEvent::Chart(chart) = &events[0] else {
        panic!("not a chart: {events:?}");
    };
    assert_eq!((chart.start, chart.end), (Some(10), Some(42)));
    assert_eq!(
        chart.spec.as_ref().map(|s| s.as_str()),
        Some(r#"{"mark":"bar"}"#)
    );
    assert_eq!(chart.caption.as_deref(), Some("By segment"));
    assert!(
        chart
            .data_points
            .as_ref()
            .is_some_and(|p| p.to_value().is_array())
    );
    let events = decode(
        r#"{"message":{"type":"CHART","chartId":"c2","start":-1,"vega_lite_spec":{"mark":"line"}}}"#,
    );
    let AgentEvent::Chart(chart) = &events[0] else {
        panic!("not a chart: {events:?}");
    };
    assert_eq!(chart.start, None);
    assert_eq!(
        chart.spec.as_ref().map(|s| s.as_str()),
        Some(r#"{"mark":"line"}"#)
    );
}
