//! xAI Responses API streams (`POST /v1/responses`, `stream: true`): `event: response.*` with
//! `data: {"type": "response.*", "sequence_number": n, …}`.
//!
//! - `response.output_text.delta` → answer chunks; `response.reasoning_summary_text.delta` → thinking.
//! - `web_search_call` items and custom tool calls (`x_keyword_search`, `x_semantic_search`, …) → a
//!   tool call when the item is added, and a trace with the query and the result count when it is done.
//! - `url_citation` annotations (`citations.rs`): the span covers the inline link `[[N]](url)` the
//!   model wrote into the answer, so the reference is a *marker* ([`Reference::marker`]). A span
//!   that does not start with `[[` and end with `)` (or links another URL) is replaced by the literal
//!   link found in the text.
//!   An empty span (inline citations off) and search results never cited are consulted sources.
//!   Annotations arrive after the text and again, all of them, in `response.completed`: each distinct
//!   annotation counts once.
//! - `response.created` gives the response id (the conversation's `chat_id`); `response.completed`
//!   completes with it as the checkpoint (what a follow-up sends as `previous_response_id`) and the
//!   token usage.
//!
//! [`Reference::marker`]: crate::model::event::Reference::marker

mod citations;
pub mod request;
#[cfg(test)]
mod tests;
mod tools;

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::model::event::{AgentEvent, Consumption, ConversationIds, SourceDoc};
use crate::wire::provider::spec::Shape;
use crate::wire::provider::{Dialect, Provider};
use crate::wire::sse::SseEvent;

pub use citations::source_doc;
use tools::tool_of;

/// The production API.
pub const DEFAULT_BASE_URL: &str = "https://api.x.ai";
/// The model asked for when none is configured.
pub const DEFAULT_MODEL: &str = "grok-4";

/// One output text (an `output_index`/`content_index` pair) and where it starts in the answer.
#[derive(Debug, Default)]
struct Part {
    /// Code point offset of the part in the whole answer.
    start: usize,
    text: String,
    /// Length in code points.
    len: usize,
    /// `response.output_text.done` arrived: the text is final.
    done: bool,
}

/// A `url_citation` waiting for the text its span points into.
#[derive(Debug, Clone)]
struct PendingCitation {
    part: (u64, u64),
    start: usize,
    end: usize,
    url: String,
    title: Option<String>,
}

#[derive(Debug, Default)]
struct ToolItem {
    name: Option<String>,
    announced: bool,
    traced: bool,
}

#[derive(Debug, Default)]
pub struct XaiDialect {
    response_id: Option<String>,
    model: Option<String>,
    parts: Vec<Part>,
    part_of: HashMap<(u64, u64), usize>,
    /// Code points of answer text emitted so far.
    answer_len: usize,
    seen_annotations: HashSet<String>,
    /// Absolute code point spans already cited.
    claimed: HashSet<(usize, usize)>,
    pending: Vec<PendingCitation>,
    tools: HashMap<String, ToolItem>,
    consulted: HashSet<String>,
    completed: bool,
    /// Another provider speaking the same Responses API (OpenAI); `None` is xAI.
    speaker: Option<Provider>,
}

impl Dialect for XaiDialect {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return;
        }
        let object = match serde_json::from_str::<Value>(data) {
            Ok(Value::Object(object)) => object,
            Ok(_) => {
                out.push(AgentEvent::Malformed {
                    reason: "payload is not a JSON object".into(),
                });
                return;
            }
            Err(e) if event.event == "error" => {
                let _ = e;
                out.push(AgentEvent::Error {
                    message: data.to_owned(),
                });
                return;
            }
            Err(e) => {
                out.push(AgentEvent::Malformed {
                    reason: format!("not valid JSON: {e}"),
                });
                return;
            }
        };
        let kind = match object.get("type").and_then(Value::as_str) {
            Some(kind) => kind.to_owned(),
            None if !event.event.is_empty() => event.event.clone(),
            None => {
                out.push(AgentEvent::Malformed {
                    reason: "event has no `type`".into(),
                });
                return;
            }
        };
        let before = out.len();
        self.decode_object(&kind, object, out);
        if out.len() == before {
            // Known, and nothing to show: still one payload received.
            out.push(AgentEvent::Progress { kind });
        }
    }

    fn finish(&mut self, _clean: bool, out: &mut Vec<AgentEvent>) {
        self.flush_pending(None, true, out);
    }

    fn provider(&self) -> Option<Provider> {
        Some(self.speaker.unwrap_or(Provider::Xai))
    }
}

impl XaiDialect {
    /// The Responses dialect for `provider` (xAI, or OpenAI whose API it mirrors).
    pub fn for_provider(provider: Provider) -> Self {
        Self {
            speaker: (provider != Provider::Xai).then_some(provider),
            ..Self::default()
        }
    }

    fn decode_object(
        &mut self,
        kind: &str,
        mut obj: Map<String, Value>,
        out: &mut Vec<AgentEvent>,
    ) {
        match kind {
            "response.created" | "response.in_progress" | "response.queued" => {
                if let Some(response) = obj.get("response") {
                    self.note_response(response, out);
                }
            }
            "response.output_item.added" => {
                if let Some(Value::Object(item)) = obj.remove("item") {
                    self.item_added(item, out);
                }
            }
            "response.output_item.done" => {
                let output_index = part_key(&obj).0;
                if let Some(Value::Object(item)) = obj.remove("item") {
                    self.item_done(output_index, item, out);
                }
            }
            "response.custom_tool_call_input.done" | "response.function_call_arguments.done" => {
                self.tool_input_done(&obj, out);
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                let text = text(obj.remove("delta"));
                if !text.is_empty() {
                    out.push(AgentEvent::Thinking {
                        message_id: string(&obj, "item_id"),
                        role: None,
                        text,
                    });
                }
            }
            "response.output_text.delta" => {
                let delta = text(obj.remove("delta"));
                self.push_text(part_key(&obj), string(&obj, "item_id"), &delta, out);
            }
            "response.output_text.annotation.added" => {
                if let Some(annotation) = obj.get("annotation") {
                    self.annotation(part_key(&obj), annotation, out);
                }
            }
            "response.output_text.done" => {
                let key = part_key(&obj);
                if let Some(&i) = self.part_of.get(&key) {
                    self.parts[i].done = true;
                }
                self.flush_pending(Some(key), false, out);
            }
            "response.completed" => {
                let response = obj.remove("response").unwrap_or(Value::Null);
                self.completed(response, out);
            }
            "response.failed" | "response.incomplete" | "error" => self.failed(kind, obj, out),
            // Progress notices that carry nothing the session shows.
            "response.content_part.added"
            | "response.content_part.done"
            | "response.custom_tool_call_input.delta"
            | "response.function_call_arguments.delta"
            | "response.reasoning_summary_part.added"
            | "response.reasoning_summary_part.done"
            | "response.reasoning_summary_text.done"
            | "response.reasoning_text.done" => {}
            other if is_tool_progress(other) => {}
            other => out.push(AgentEvent::Unknown {
                kind: other.to_owned(),
            }),
        }
    }

    /// `response.failed`, `response.incomplete` or `error`: the session ends with an error (the
    /// citations held back are resolved first).
    fn failed(&mut self, kind: &str, obj: Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let message = match kind {
            "response.failed" => {
                self.flush_pending(None, true, out);
                obj.get("response")
                    .and_then(|r| r.get("error"))
                    .and_then(error_message)
                    .unwrap_or_else(|| "the response failed".into())
            }
            "response.incomplete" => {
                self.flush_pending(None, true, out);
                let reason = obj
                    .get("response")
                    .and_then(|r| r.pointer("/incomplete_details/reason"))
                    .and_then(Value::as_str)
                    .unwrap_or("unknown reason");
                format!("the response is incomplete: {reason}")
            }
            _ => error_message(&Value::Object(obj))
                .unwrap_or_else(|| "the stream reported an error".into()),
        };
        out.push(AgentEvent::Error { message });
    }

    fn note_response(&mut self, response: &Value, out: &mut Vec<AgentEvent>) {
        if let Some(model) = response.get("model").and_then(Value::as_str) {
            self.model = Some(model.to_owned());
        }
        let id = response
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty());
        if let Some(id) = id
            && self.response_id.as_deref() != Some(id)
        {
            self.response_id = Some(id.to_owned());
            out.push(AgentEvent::Conversation(ConversationIds {
                chat_id: Some(id.to_owned()),
                ..ConversationIds::default()
            }));
        }
    }

    fn push_text(
        &mut self,
        key: (u64, u64),
        item_id: Option<String>,
        delta: &str,
        out: &mut Vec<AgentEvent>,
    ) {
        if delta.is_empty() {
            return;
        }
        let index = match self.part_of.get(&key) {
            Some(&index) => index,
            None => {
                // A second output text starts a new paragraph of the answer.
                if self.answer_len > 0 {
                    out.push(AgentEvent::AnswerDelta {
                        message_id: item_id.clone(),
                        text: "\n\n".into(),
                    });
                    self.answer_len += 2;
                }
                self.parts.push(Part {
                    start: self.answer_len,
                    ..Part::default()
                });
                self.part_of.insert(key, self.parts.len() - 1);
                self.parts.len() - 1
            }
        };
        let part = &mut self.parts[index];
        let added = delta.chars().count();
        part.text.push_str(delta);
        part.len += added;
        self.answer_len += added;
        out.push(AgentEvent::AnswerDelta {
            message_id: item_id,
            text: delta.to_owned(),
        });
    }

    fn completed(&mut self, response: Value, out: &mut Vec<AgentEvent>) {
        self.note_response(&response, out);
        if let Some(output) = response.get("output").and_then(Value::as_array) {
            for (output_index, item) in output.iter().enumerate() {
                let Some(item) = item.as_object() else {
                    continue;
                };
                match item.get("type").and_then(Value::as_str) {
                    Some("message") => self.message_annotations(output_index as u64, item, out),
                    _ if tool_of(item).is_some() => self.trace_tool(item.clone(), out),
                    _ => {}
                }
            }
        }
        // The SDK's "all citations": every URL the agent encountered.
        if let Some(citations) = response.get("citations").and_then(Value::as_array) {
            let urls: Vec<SourceDoc> = citations
                .iter()
                .filter_map(Value::as_str)
                .filter(|u| !u.is_empty())
                .map(|url| source_doc(url, None))
                .collect();
            self.consult(urls, out);
        }
        self.flush_pending(None, true, out);
        if self.completed {
            return;
        }
        self.completed = true;
        let consumption = response
            .get("usage")
            .filter(|u| u.is_object())
            .map(|usage| {
                let count = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64);
                vec![Consumption {
                    kind: self.model.clone().unwrap_or_else(|| "xai".into()),
                    input_tokens: count("/input_tokens").unwrap_or(0),
                    output_tokens: count("/output_tokens").unwrap_or(0),
                    cached_tokens: count("/input_tokens_details/cached_tokens")
                        .or_else(|| count("/cached_tokens"))
                        .unwrap_or(0),
                    raw: usage.clone(),
                }]
            })
            .unwrap_or_default();
        out.push(AgentEvent::Complete {
            checkpoint_id: self.response_id.clone(),
            consumption,
        });
    }
}

/// The `(output_index, content_index)` an event's text belongs to.
fn part_key(obj: &Map<String, Value>) -> (u64, u64) {
    let index = |key: &str| obj.get(key).and_then(Value::as_u64).unwrap_or(0);
    (index("output_index"), index("content_index"))
}

/// `web_search_call.searching`, `x_search_call.completed`, `mcp_call.in_progress`, …
fn is_tool_progress(kind: &str) -> bool {
    kind.strip_prefix("response.")
        .and_then(|rest| rest.split_once('.'))
        .is_some_and(|(item, _)| item.ends_with("_call"))
}

fn string(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn text(value: Option<Value>) -> String {
    match value {
        Some(Value::String(s)) => s,
        _ => String::new(),
    }
}

fn error_message(error: &Value) -> Option<String> {
    match error {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Object(object) => object
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| object.get("error").and_then(error_message))
            .or_else(|| {
                object
                    .get("code")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }),
        _ => None,
    }
}

/// `event: response.*`.
pub fn names_event(event: &SseEvent) -> bool {
    event.event.starts_with("response.")
}

/// A `type` starting with `response.`, or a `sequence_number` (an early `error`): only xAI sends
/// these.
pub fn payload_shape(object: &Map<String, Value>) -> Shape {
    let typed = object
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.starts_with("response."));
    if typed || object.contains_key("sequence_number") {
        Shape::Own
    } else {
        Shape::Foreign
    }
}

/// `response.output_text.delta`.
pub fn carries_answer(object: &Map<String, Value>) -> bool {
    object.get("type").and_then(Value::as_str) == Some("response.output_text.delta")
}
