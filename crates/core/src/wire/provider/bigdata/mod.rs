//! Bigdata.com Research Agent (`message` envelope, `chat_id`) and Workflows (`delta` envelope,
//! `execution_id`, `request_id`) streams.
//!
//! Accepts both spellings the API generations use (`audit_type`/`auditType`, `tool_id`/`toolId`,
//! `src_name`/`srcName`, `audit_id`/`action_audits_id`). Unknown types are counted, never fatal.

mod chart;
pub mod request;
mod skim;
#[cfg(test)]
mod tests;
pub(crate) mod wire;

use serde_json::{Map, Value};

use crate::model::event::{
    AgentEvent, AuditTrace, Consumption, ConversationIds, Plan, PlanStep, Reference, SourceChunk,
    SourceDoc, StepStatus,
};
use crate::wire::provider::Dialect;
use crate::wire::provider::spec::Shape;
use crate::wire::sse::SseEvent;
pub use skim::SkimmedText;
use wire::Envelope;

/// The production agent.
pub const DEFAULT_BASE_URL: &str = "https://agents.bigdata.com";

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
        let Some((ids, body)) = serde_json::from_str::<Envelope>(data)
            .ok()
            .and_then(Envelope::split)
        else {
            return self.decode_lenient(data, out);
        };
        if body.is_chart() {
            // The payload moves into the chart, which keeps its spec as a part of it.
            return match chart::decode_typed(event.data) {
                Ok(chart) => {
                    self.note_ids(ids, out);
                    out.push(AgentEvent::Chart(chart));
                }
                Err(data) => self.decode_lenient(&data, out),
            };
        }
        match body.into_event() {
            Some(event) => {
                self.note_ids(ids, out);
                out.push(event);
            }
            None => self.decode_lenient(data, out),
        }
    }

    fn provider(&self) -> Option<crate::wire::provider::Provider> {
        Some(crate::wire::provider::Provider::Bigdata)
    }

    /// An `ANSWER` chunk of the usual shape, read without serde ([`skim`]).
    fn skim_answer<'a>(
        &mut self,
        data: &'a [u8],
    ) -> Option<crate::wire::provider::SkimmedAnswer<'a>> {
        skim::answer_borrowed(data, &self.ids)
    }

    fn skim_answer_line<'a>(
        &mut self,
        rest: &'a [u8],
    ) -> Option<(crate::wire::provider::SkimmedAnswer<'a>, usize)> {
        skim::answer_in_line(rest, &self.ids)
    }

    fn can_skim(&self) -> bool {
        true
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
        // Every chunk carries its ids: compared in place, copied only when one changes.
        let mut changed = false;
        for (value, slot) in [
            (seen.chat_id, &mut self.ids.chat_id),
            (seen.execution_id, &mut self.ids.execution_id),
            (seen.request_id, &mut self.ids.request_id),
        ] {
            if value.is_some() && value != *slot {
                *slot = value;
                changed = true;
            }
        }
        if changed {
            out.push(AgentEvent::Conversation(self.ids.clone()));
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
            arguments: super::tool_arguments(
                msg.remove("tool_arguments")
                    .or_else(|| msg.remove("toolArguments"))
                    .unwrap_or(Value::Null),
            ),
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
        "CHART" => AgentEvent::Chart(chart::decode_lenient(msg)),
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
        unplaced: false,
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
        updated: None,
        text: take_string(&mut source, &["text"]),
        text_runs: Vec::new(),
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

/// A Research Agent `message` or Workflows `delta` object: Bigdata.com's shape, though another
/// provider's payload could have such a field too.
pub fn payload_shape(object: &Map<String, Value>) -> Shape {
    let body = ["message", "delta"]
        .iter()
        .any(|key| object.get(*key).is_some_and(Value::is_object));
    if body { Shape::Loose } else { Shape::Foreign }
}

/// The `type` of the envelope's `message` (Research Agent) or `delta` (Workflows).
pub fn message_type(envelope: &Value) -> Option<&str> {
    envelope.as_object().and_then(body_type)
}

fn body_type(envelope: &Map<String, Value>) -> Option<&str> {
    envelope
        .get("message")
        .or_else(|| envelope.get("delta"))?
        .get("type")?
        .as_str()
}

/// An `ANSWER` message.
pub fn carries_answer(envelope: &Map<String, Value>) -> bool {
    body_type(envelope) == Some("ANSWER")
}
