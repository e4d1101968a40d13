//! The typed fast path for Bigdata.com payloads: deserialising straight into these structs skips
//! building a `serde_json::Value` tree for every answer chunk, which is most of a stream's bytes.
//! Anything these types do not fit (a field of an unexpected type, a CHART) returns `None` and the
//! caller falls back to the lenient `Value` path, so strictness here never loses an event.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{decode_audit, decode_consumption, decode_plan, first_text, text_of};
use crate::model::event::{AgentEvent, ConversationIds, Reference, SourceChunk, SourceDoc};

/// A string field that may arrive as a number (ids) or be empty/null (treated as absent).
fn loose<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::String(s) if !s.is_empty() => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

#[derive(Deserialize)]
pub(super) struct Envelope {
    #[serde(default, deserialize_with = "loose")]
    chat_id: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    execution_id: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    request_id: Option<String>,
    message: Option<Message>,
    delta: Option<Message>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    message_id: Option<String>,
    #[serde(default, deserialize_with = "loose", rename = "messageId")]
    message_id_camel: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    role: Option<String>,
    content: Option<Value>,
    plan: Option<Value>,
    #[serde(default, deserialize_with = "loose")]
    tool_name: Option<String>,
    #[serde(default, deserialize_with = "loose", rename = "toolName")]
    tool_name_camel: Option<String>,
    tool_arguments: Option<Value>,
    #[serde(rename = "toolArguments")]
    tool_arguments_camel: Option<Value>,
    audit_traces: Option<Vec<Value>>,
    #[serde(rename = "auditTraces")]
    audit_traces_camel: Option<Vec<Value>>,
    references: Option<Vec<ReferenceWire>>,
    json_schema: Option<Value>,
    #[serde(rename = "jsonSchema")]
    json_schema_camel: Option<Value>,
    error: Option<Value>,
    message: Option<Value>,
    consumption: Option<Vec<Value>>,
    #[serde(default, deserialize_with = "loose")]
    checkpoint_id: Option<String>,
    #[serde(default, deserialize_with = "loose", rename = "checkpointId")]
    checkpoint_id_camel: Option<String>,
}

#[derive(Deserialize)]
struct ReferenceWire {
    start: Option<Value>,
    end: Option<Value>,
    #[serde(default, deserialize_with = "loose")]
    tool_name: Option<String>,
    #[serde(default, deserialize_with = "loose", rename = "toolName")]
    tool_name_camel: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    audit_id: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    action_audits_id: Option<String>,
    #[serde(default, deserialize_with = "loose", rename = "auditId")]
    audit_id_camel: Option<String>,
    #[serde(default, deserialize_with = "loose", rename = "actionAuditsId")]
    action_audits_id_camel: Option<String>,
    source: Option<SourceWire>,
}

#[derive(Deserialize)]
struct SourceWire {
    #[serde(default, deserialize_with = "loose", rename = "type")]
    kind: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    id: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    hd: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    headline: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    title: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    src_name: Option<String>,
    #[serde(default, deserialize_with = "loose", rename = "srcName")]
    src_name_camel: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    url: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    ts: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    text: Option<String>,
    action: Option<ActionWire>,
    chunks: Option<Vec<ChunkWire>>,
}

#[derive(Deserialize)]
struct ActionWire {
    #[serde(default, deserialize_with = "loose")]
    name: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    url: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    ts: Option<String>,
}

#[derive(Deserialize)]
struct ChunkWire {
    cnum: Option<Value>,
    text: Option<String>,
    relevance: Option<Value>,
}

impl Envelope {
    /// The envelope's ids and its message, or `None` when the lenient path must decide.
    pub(super) fn split(self) -> Option<(ConversationIds, MessageBody)> {
        let message = self.message.or(self.delta)?;
        let ids = ConversationIds {
            chat_id: self.chat_id,
            execution_id: self.execution_id,
            request_id: self.request_id,
        };
        Some((ids, MessageBody(message)))
    }
}

pub(super) struct MessageBody(Message);

impl MessageBody {
    /// A CHART: read by [`super::chart`], which keeps its spec as text.
    pub(super) fn is_chart(&self) -> bool {
        self.0.kind.as_deref() == Some("CHART")
    }

    pub(super) fn into_event(self) -> Option<AgentEvent> {
        let m = self.0;
        let kind = m.kind?;
        let role = m.role.filter(|role| role != "assistant");
        let message_id = m.message_id.or(m.message_id_camel);
        Some(match kind.as_str() {
            "ANSWER" => AgentEvent::AnswerDelta {
                message_id,
                text: text_of(m.content),
            },
            "THINKING" => AgentEvent::Thinking {
                message_id,
                role,
                text: text_of(m.content),
            },
            "GROUNDING" => AgentEvent::Grounding(
                m.references
                    .unwrap_or_default()
                    .into_iter()
                    .map(ReferenceWire::into_reference)
                    .collect(),
            ),
            "ACTION" => AgentEvent::ToolCall {
                role,
                tool_name: m.tool_name.or(m.tool_name_camel).unwrap_or_default(),
                arguments: super::super::tool_arguments(
                    m.tool_arguments
                        .or(m.tool_arguments_camel)
                        .unwrap_or(Value::Null),
                ),
            },
            "AUDIT" => AgentEvent::Audit {
                role,
                traces: m
                    .audit_traces
                    .or(m.audit_traces_camel)
                    .unwrap_or_default()
                    .into_iter()
                    .map(decode_audit)
                    .collect(),
            },
            "PLANNING" => match m.plan {
                Some(Value::Object(plan)) => AgentEvent::Plan(decode_plan(plan)),
                _ => return None,
            },
            "STRUCTURED_OUTPUT" => AgentEvent::StructuredOutput {
                content: m.content.unwrap_or(Value::Null),
                schema: m.json_schema.or(m.json_schema_camel),
            },
            "LLM_RETRY" => AgentEvent::LlmRetry {
                message: first_text([m.message, m.content]),
            },
            "TOOL_ERROR" => AgentEvent::ToolError {
                tool_name: m.tool_name.or(m.tool_name_camel).unwrap_or_default(),
                error: text_of(m.error),
            },
            "ERROR" => AgentEvent::Error {
                message: first_text([m.error, m.message]),
            },
            "COMPLETE" => AgentEvent::Complete {
                checkpoint_id: m.checkpoint_id.or(m.checkpoint_id_camel),
                consumption: m
                    .consumption
                    .unwrap_or_default()
                    .into_iter()
                    .map(decode_consumption)
                    .collect(),
            },
            "CHART" => return None,
            _ => AgentEvent::Unknown { kind },
        })
    }
}

impl ReferenceWire {
    fn into_reference(self) -> Reference {
        let offset = |v: Option<Value>| v.as_ref().and_then(Value::as_u64);
        Reference {
            start: offset(self.start),
            end: offset(self.end),
            tool_name: self.tool_name.or(self.tool_name_camel),
            audit_id: self
                .audit_id
                .or(self.action_audits_id)
                .or(self.audit_id_camel)
                .or(self.action_audits_id_camel),
            source: self.source.map(SourceWire::into_doc),
            marker: false,
            unplaced: false,
        }
    }
}

impl SourceWire {
    fn into_doc(self) -> SourceDoc {
        let (action_name, action_url, action_ts) = match self.action {
            Some(a) => (a.name, a.url, a.ts),
            None => (None, None, None),
        };
        SourceDoc {
            kind: self.kind,
            id: self.id,
            headline: self.hd.or(self.headline).or(self.title),
            src_name: self.src_name.or(self.src_name_camel),
            url: self.url,
            ts: self.ts,
            updated: None,
            text: self.text,
            text_runs: Vec::new(),
            action_name,
            action_url,
            action_ts,
            chunks: self
                .chunks
                .unwrap_or_default()
                .into_iter()
                .filter_map(|c| {
                    Some(SourceChunk {
                        cnum: c.cnum.as_ref().and_then(Value::as_i64),
                        text: c.text?,
                        relevance: c.relevance.as_ref().and_then(Value::as_f64),
                    })
                })
                .collect(),
        }
    }
}
