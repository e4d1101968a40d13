//! The typed fast path for Bigdata.com payloads: deserialising straight into these structs skips
//! building a `serde_json::Value` tree for every answer chunk, which is most of a stream's bytes.
//! Anything these types do not fit (a field of an unexpected type, a CHART) returns `None` and the
//! caller falls back to the lenient `Value` path, so strictness here never loses an event.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{decode_audit, decode_consumption, decode_plan, first_text, text_of};
use crate::model::event::{AgentEvent, ConversationIds, Reference, SourceChunk, SourceDoc};

/// A string field that may arrive as a number (ids) or be empty/null (treated as absent). Read
/// without building a `Value` (the ids come with every chunk): the same result as taking a `Value`
/// and keeping a non-empty string or a number's text.
fn loose<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    deserializer.deserialize_any(Loose)
}

struct Loose;

impl<'de> serde::de::Visitor<'de> for Loose {
    type Value = Option<String>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok((!s.is_empty()).then(|| s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
        Ok((!s.is_empty()).then_some(s))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
        Ok(Some(n.to_string()))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
        Ok(Some(n.to_string()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(n).map(|n| n.to_string()))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(Loose)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        Ok(None)
    }
}

#[derive(Deserialize)]
pub(super) struct Envelope {
    #[serde(default, deserialize_with = "loose")]
    chat_id: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    execution_id: Option<String>,
    #[serde(default, deserialize_with = "loose")]
    request_id: Option<String>,
    // Boxed: a `Message` is large, and moving it by value through the decoder was a tenth of
    // `render`'s time on a stream of small chunks.
    message: Option<Box<Message>>,
    delta: Option<Box<Message>>,
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

pub(super) struct MessageBody(Box<Message>);

impl MessageBody {
    /// A CHART: read by [`super::chart`], which keeps its spec as text.
    pub(super) fn is_chart(&self) -> bool {
        self.0.kind.as_deref() == Some("CHART")
    }

    pub(super) fn into_event(self) -> Option<AgentEvent> {
        let m = *self.0;
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
