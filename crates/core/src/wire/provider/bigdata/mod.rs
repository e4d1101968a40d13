//! Bigdata.com Research Agent (`message` envelope, `chat_id`) and Workflows (`delta` envelope,
//! `execution_id`, `request_id`) streams.
//!
//! Accepts both spellings the API generations use (`audit_type`/`auditType`, `tool_id`/`toolId`,
//! `src_name`/`srcName`, `audit_id`/`action_audits_id`). Unknown types are counted, never fatal.

pub(crate) mod wire;

use serde_json::{Map, Value};

use crate::model::event::{
    AgentEvent, AuditTrace, Chart, Consumption, ConversationIds, Plan, PlanStep, Reference,
    SourceChunk, SourceDoc, StepStatus,
};
use crate::wire::provider::Dialect;
use crate::wire::sse::SseEvent;
use wire::Envelope;

#[derive(Debug, Default)]
pub struct BigdataDialect {
    ids: ConversationIds,
}

impl Dialect for BigdataDialect {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return;
        }
        if let Ok(envelope) = serde_json::from_str::<Envelope>(data)
            && let Some((ids, body)) = envelope.split()
            && let Some(event) = body.into_event()
        {
            self.note_ids(ids, out);
            out.push(event);
            return;
        }
        self.decode_lenient(data, out);
    }

    fn provider(&self) -> Option<crate::wire::provider::Provider> {
        Some(crate::wire::provider::Provider::Bigdata)
    }
}

impl BigdataDialect {
    /// The `Value` path: accepts whatever JSON arrives, field by field.
    fn decode_lenient(&mut self, data: &str, out: &mut Vec<AgentEvent>) {
        let envelope: Value = match serde_json::from_str(data) {
            Ok(value) => value,
            Err(e) => {
                out.push(AgentEvent::Malformed {
                    reason: format!("not valid JSON: {e}"),
                });
                return;
            }
        };
        let Value::Object(mut envelope) = envelope else {
            out.push(AgentEvent::Malformed {
                reason: "payload is not a JSON object".into(),
            });
            return;
        };
        let body = match envelope.remove("message") {
            Some(Value::Object(message)) => message,
            other => match envelope.remove("delta") {
                Some(Value::Object(delta)) => delta,
                _ => {
                    let reason = if other.is_some() {
                        "`message` is not an object"
                    } else {
                        "no `message` or `delta` object"
                    };
                    out.push(AgentEvent::Malformed {
                        reason: reason.into(),
                    });
                    return;
                }
            },
        };
        self.note_ids(ids_of(&envelope), out);
        decode_message(body, out);
    }

    /// Ids absent from an envelope keep their earlier value; a change is reported once.
    fn note_ids(&mut self, seen: ConversationIds, out: &mut Vec<AgentEvent>) {
        let mut ids = self.ids.clone();
        for (value, slot) in [
            (seen.chat_id, &mut ids.chat_id),
            (seen.execution_id, &mut ids.execution_id),
            (seen.request_id, &mut ids.request_id),
        ] {
            if value.is_some() {
                *slot = value;
            }
        }
        if ids != self.ids {
            self.ids = ids.clone();
            out.push(AgentEvent::Conversation(ids));
        }
    }
}

fn ids_of(envelope: &Map<String, Value>) -> ConversationIds {
    let get = |key: &str| string_of(envelope, &[key]);
    ConversationIds {
        chat_id: get("chat_id"),
        execution_id: get("execution_id"),
        request_id: get("request_id"),
    }
}

fn decode_message(mut msg: Map<String, Value>, out: &mut Vec<AgentEvent>) {
    let kind = match msg.get("type").and_then(Value::as_str) {
        Some(kind) => kind.to_owned(),
        None => {
            out.push(AgentEvent::Malformed {
                reason: "message has no `type`".into(),
            });
            return;
        }
    };
    let role = take_string(&mut msg, &["role"]).filter(|role| role != "assistant");
    let message_id = take_string(&mut msg, &["message_id", "messageId"]);
    let event = match kind.as_str() {
        "PLANNING" => match msg.remove("plan") {
            Some(Value::Object(plan)) => AgentEvent::Plan(decode_plan(plan)),
            _ => AgentEvent::Malformed {
                reason: "PLANNING without a plan object".into(),
            },
        },
        "THINKING" => AgentEvent::Thinking {
            message_id,
            role,
            text: take_text(&mut msg, "content"),
        },
        "ACTION" => AgentEvent::ToolCall {
            role,
            tool_name: take_string(&mut msg, &["tool_name", "toolName"]).unwrap_or_default(),
            arguments: msg
                .remove("tool_arguments")
                .or_else(|| msg.remove("toolArguments"))
                .unwrap_or(Value::Null),
        },
        "AUDIT" => {
            let traces = match msg
                .remove("audit_traces")
                .or_else(|| msg.remove("auditTraces"))
            {
                Some(Value::Array(traces)) => traces.into_iter().map(decode_audit).collect(),
                _ => Vec::new(),
            };
            AgentEvent::Audit { role, traces }
        }
        "GROUNDING" => {
            let references = match msg.remove("references") {
                Some(Value::Array(refs)) => refs.into_iter().filter_map(decode_reference).collect(),
                _ => Vec::new(),
            };
            AgentEvent::Grounding(references)
        }
        "ANSWER" => AgentEvent::AnswerDelta {
            message_id,
            text: take_text(&mut msg, "content"),
        },
        "STRUCTURED_OUTPUT" => AgentEvent::StructuredOutput {
            content: msg.remove("content").unwrap_or(Value::Null),
            schema: msg
                .remove("json_schema")
                .or_else(|| msg.remove("jsonSchema")),
        },
        "CHART" => AgentEvent::Chart(Chart {
            chart_id: string_of(&msg, &["chart_id", "chartId"]),
            title: string_of(&msg, &["title"]),
            caption: string_of(&msg, &["caption"]),
            chart_type: string_of(&msg, &["chart_type", "chartType"]),
            raw: Value::Object(msg),
        }),
        "LLM_RETRY" => AgentEvent::LlmRetry {
            message: first_text([msg.remove("message"), msg.remove("content")]),
        },
        "TOOL_ERROR" => AgentEvent::ToolError {
            tool_name: take_string(&mut msg, &["tool_name", "toolName"]).unwrap_or_default(),
            error: take_text(&mut msg, "error"),
        },
        "ERROR" => AgentEvent::Error {
            message: first_text([msg.remove("error"), msg.remove("message")]),
        },
        "COMPLETE" => {
            let consumption = match msg.remove("consumption") {
                Some(Value::Array(items)) => items.into_iter().map(decode_consumption).collect(),
                _ => Vec::new(),
            };
            AgentEvent::Complete {
                checkpoint_id: take_string(&mut msg, &["checkpoint_id", "checkpointId"]),
                consumption,
            }
        }
        _ => AgentEvent::Unknown { kind },
    };
    out.push(event);
}

pub(super) fn decode_plan(mut plan: Map<String, Value>) -> Plan {
    let steps = match plan.remove("steps") {
        Some(Value::Array(steps)) => steps
            .into_iter()
            .filter_map(|step| match step {
                Value::Object(mut step) => Some(PlanStep {
                    description: take_string(&mut step, &["description", "title"])
                        .unwrap_or_default(),
                    status: StepStatus::parse(
                        step.get("status")
                            .and_then(Value::as_str)
                            .unwrap_or("NOT_STARTED"),
                    ),
                }),
                Value::String(description) => Some(PlanStep {
                    description,
                    status: StepStatus::NotStarted,
                }),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Plan {
        title: take_string(&mut plan, &["title"]),
        steps,
    }
}

pub(super) fn decode_audit(trace: Value) -> AuditTrace {
    let audit_type =
        string_of_value(&trace, &["audit_type", "auditType"]).unwrap_or_else(|| "unknown".into());
    let tool_id = string_of_value(&trace, &["tool_id", "toolId"]);
    let query = trace
        .get("query")
        .and_then(|q| match q {
            Value::String(text) => Some(text.clone()),
            Value::Object(q) => q.get("text").and_then(Value::as_str).map(str::to_owned),
            _ => None,
        })
        .filter(|q| !q.is_empty());
    let title = string_of_value(&trace, &["title"]);
    let result_count = trace
        .get("results")
        .and_then(Value::as_array)
        .map(|groups| {
            groups
                .iter()
                .map(|group| {
                    group
                        .get("values")
                        .and_then(Value::as_array)
                        .map_or(1, Vec::len)
                })
                .sum()
        });
    AuditTrace {
        audit_type,
        tool_id,
        query,
        title,
        result_count,
        raw: trace,
    }
}

fn decode_reference(reference: Value) -> Option<Reference> {
    let Value::Object(mut reference) = reference else {
        return None;
    };
    let offset = |v: Option<&Value>| v.and_then(Value::as_u64);
    let source = match reference.remove("source") {
        Some(Value::Object(source)) => Some(decode_source(source)),
        _ => None,
    };
    Some(Reference {
        start: offset(reference.get("start")),
        end: offset(reference.get("end")),
        tool_name: take_string(&mut reference, &["tool_name", "toolName"]),
        audit_id: take_string(
            &mut reference,
            &["audit_id", "action_audits_id", "auditId", "actionAuditsId"],
        ),
        source,
        marker: false,
    })
}

/// A BIGDATA document or EXTERNAL web result.
pub fn decode_source(mut source: Map<String, Value>) -> SourceDoc {
    let action = match source.remove("action") {
        Some(Value::Object(action)) => action,
        _ => Map::new(),
    };
    let chunks = match source.remove("chunks") {
        Some(Value::Array(chunks)) => chunks
            .into_iter()
            .filter_map(|chunk| {
                let chunk = chunk.as_object()?;
                Some(SourceChunk {
                    cnum: chunk.get("cnum").and_then(Value::as_i64),
                    text: chunk.get("text").and_then(Value::as_str)?.to_owned(),
                    relevance: chunk.get("relevance").and_then(Value::as_f64),
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    SourceDoc {
        kind: take_string(&mut source, &["type"]),
        id: take_string(&mut source, &["id"]),
        headline: take_string(&mut source, &["hd", "headline", "title"]),
        src_name: take_string(&mut source, &["src_name", "srcName"]),
        url: take_string(&mut source, &["url"]),
        ts: take_string(&mut source, &["ts"]),
        text: take_string(&mut source, &["text"]),
        action_name: string_of(&action, &["name"]),
        action_url: string_of(&action, &["url"]),
        action_ts: string_of(&action, &["ts"]),
        chunks,
    }
}

pub(super) fn decode_consumption(item: Value) -> Consumption {
    let count = |key: &str| item.get(key).and_then(Value::as_u64).unwrap_or(0);
    Consumption {
        kind: string_of_value(&item, &["type"]).unwrap_or_else(|| "base".into()),
        input_tokens: count("input_tokens"),
        output_tokens: count("output_tokens"),
        cached_tokens: count("cached_tokens"),
        raw: item,
    }
}

/// The first of `keys` holding a non-empty string (numbers are accepted as ids and rendered).
fn string_of(map: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|key| match map.get(*key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    })
}

fn string_of_value(value: &Value, keys: &[&str]) -> Option<String> {
    value.as_object().and_then(|map| string_of(map, keys))
}

fn take_string(map: &mut Map<String, Value>, keys: &[&str]) -> Option<String> {
    for key in keys {
        match map.remove(*key) {
            Some(Value::String(s)) if !s.is_empty() => return Some(s),
            Some(Value::Number(n)) => return Some(n.to_string()),
            _ => {}
        }
    }
    None
}

/// A text field kept exactly as sent (answer chunks must never be trimmed).
fn take_text(map: &mut Map<String, Value>, key: &str) -> String {
    text_of(map.remove(key))
}

/// The first of `values` that says something: a non-empty string, or any other non-null JSON as
/// text. Error and retry messages arrive under more than one name.
pub(super) fn first_text(values: impl IntoIterator<Item = Option<Value>>) -> String {
    values
        .into_iter()
        .map(text_of)
        .find(|text| !text.is_empty())
        .unwrap_or_default()
}

pub(super) fn text_of(value: Option<Value>) -> String {
    match value {
        Some(Value::String(s)) => s,
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
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
}
