//! Responses API streams (`POST /v1/responses`, `stream: true`): `event: response.*` with
//! `data: {"type": "response.*", "sequence_number": n, …}`. xAI speaks it; so do OpenAI and Azure
//! OpenAI, whose providers reuse this dialect ([`XaiDialect::for_provider`]).
//!
//! - Output items are matched by their `id`, never by their position: `response.completed` may list
//!   them in another order than the `output_index` values seen while streaming.
//! - Answer text: every `output_text` of every `message` item, in order of first appearance,
//!   separated by a blank line (`text.rs`). Deltas are shown as they arrive; the final text
//!   (`response.output_text.done`, the item in `output_item.done` or `response.completed`) replaces
//!   the streamed one only if it differs.
//! - `url_citation` annotations (`citations.rs`): a span inside its text cites exactly that span;
//!   one without offsets, or 0/0 with the URL as title, cites its source without a position. Each
//!   distinct annotation counts once however often it is repeated.
//! - Tool calls and reasoning (`tools.rs`): each web search action (`search` with its query,
//!   `open_page`, `find_in_page`) and each custom tool call (xAI's `x_keyword_search`,
//!   `view_x_video`, …, whose `input` is a JSON string of arguments) shows once its arguments are
//!   known; web search items that never say anything are left out. Reasoning summaries are thinking.
//! - `response.created` gives the response id (the conversation's `chat_id`); `response.completed`
//!   completes with it as the checkpoint (what a follow-up sends as `previous_response_id`) and the
//!   token usage.

mod citations;
pub mod request;
#[cfg(test)]
mod tests;
mod text;
mod tools;

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::model::event::{AgentEvent, Consumption, ConversationIds, SourceDoc};
use crate::wire::provider::spec::Shape;
use crate::wire::provider::{Dialect, Provider};
use crate::wire::sse::SseEvent;

use crate::wire::provider::string;
pub use citations::source_doc;
use citations::{Cited, PendingCitation};
use text::Part;
use tools::{ToolItem, tool_of};

/// The production API.
pub const DEFAULT_BASE_URL: &str = "https://api.x.ai";
/// The model asked for when none is configured.
pub const DEFAULT_MODEL: &str = "grok-4";

/// Which output text an event is about: its item's `id` and its `content_index`.
type PartKey = (String, u64);

/// The Responses API dialect (named for the first provider that used it).
#[derive(Debug)]
pub struct XaiDialect {
    provider: Provider,
    response_id: Option<String>,
    model: Option<String>,
    /// Output texts in order of first appearance; the answer is them joined by blank lines.
    parts: Vec<Part>,
    part_of: HashMap<PartKey, usize>,
    /// `output_index` → item id, for events that name only the index.
    item_at: HashMap<u64, String>,
    seen_annotations: HashSet<String>,
    /// Every reference sent so far, so that a rewritten text can send them all again.
    cited: Vec<Cited>,
    /// `(part, start, end)` spans already cited.
    claimed: HashSet<(usize, usize, usize)>,
    pending: Vec<PendingCitation>,
    tools: HashMap<String, ToolItem>,
    /// Reasoning items whose summary text has been shown.
    reasoned: HashSet<String>,
    consulted: HashSet<String>,
    completed: bool,
}

impl Default for XaiDialect {
    fn default() -> Self {
        Self::for_provider(Provider::Xai)
    }
}

impl Dialect for XaiDialect {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        let data = event.data.trim();
        if event.event == "error"
            && !data.is_empty()
            && serde_json::from_str::<Value>(data).is_err()
        {
            // An error frame in plain text: the message is the data itself.
            out.push(AgentEvent::Error {
                message: data.to_owned(),
            });
            return;
        }
        let Some(object) = super::json_object(data, out) else {
            return;
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
        self.decode_object(&kind, object, out);
    }

    fn finish(&mut self, _clean: bool, out: &mut Vec<AgentEvent>) {
        self.flush_pending(None, true, out);
    }

    fn provider(&self) -> Option<Provider> {
        Some(self.provider)
    }
}

impl XaiDialect {
    /// The dialect for a provider that speaks the Responses API (xAI, OpenAI, Azure OpenAI): the
    /// provider it reports, and whose name labels the token usage when the model is not known.
    pub fn for_provider(provider: Provider) -> Self {
        XaiDialect {
            provider,
            response_id: None,
            model: None,
            parts: Vec::new(),
            part_of: HashMap::new(),
            item_at: HashMap::new(),
            seen_annotations: HashSet::new(),
            cited: Vec::new(),
            claimed: HashSet::new(),
            pending: Vec::new(),
            tools: HashMap::new(),
            reasoned: HashSet::new(),
            consulted: HashSet::new(),
            completed: false,
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
                    self.item_added(index_of(&obj, "output_index"), item, out);
                }
            }
            "response.output_item.done" => {
                if let Some(Value::Object(item)) = obj.remove("item") {
                    self.item_done(Some(index_of(&obj, "output_index")), &item, out);
                }
            }
            "response.custom_tool_call_input.done" | "response.function_call_arguments.done" => {
                self.tool_input_done(&obj, out);
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                let text = text(obj.remove("delta"));
                self.reasoning_delta(string(&obj, "item_id"), text, out);
            }
            "response.reasoning_summary_part.added" => self.reasoning_part_added(&obj, out),
            "response.output_text.delta" => {
                let delta = text(obj.remove("delta"));
                let key = self.part_key(&obj);
                self.push_text(key, &delta, out);
            }
            "response.output_text.annotation.added" => {
                if let Some(annotation) = obj.get("annotation") {
                    let key = self.part_key(&obj);
                    self.annotation(key, annotation, out);
                }
            }
            "response.output_text.done" => {
                let key = self.part_key(&obj);
                if let Some(text) = obj.get("text").and_then(Value::as_str) {
                    self.final_text(key.clone(), text, out);
                }
                self.flush_pending(Some(&key), false, out);
            }
            "response.content_part.done" => {
                let key = self.part_key(&obj);
                if let Some(part) = obj.get("part") {
                    self.final_part(key, part, out);
                }
            }
            "response.completed" => {
                let response = obj.remove("response").unwrap_or(Value::Null);
                self.completed(response, out);
            }
            "response.failed" | "response.incomplete" | "error" => self.failed(kind, obj, out),
            // Progress notices that carry nothing the session shows.
            "response.content_part.added"
            | "response.custom_tool_call_input.delta"
            | "response.function_call_arguments.delta"
            | "response.reasoning_summary_part.done"
            | "response.reasoning_summary_text.done"
            | "response.reasoning_text.done" => {}
            other if is_tool_progress(other) => {}
            other => out.push(AgentEvent::Unknown {
                kind: other.to_owned(),
            }),
        }
    }

    /// The output text an event is about: its `item_id` (else the item added at its
    /// `output_index`) and its `content_index`.
    fn part_key(&self, obj: &Map<String, Value>) -> PartKey {
        let output_index = index_of(obj, "output_index");
        let item = string(obj, "item_id")
            .or_else(|| self.item_at.get(&output_index).cloned())
            .unwrap_or_else(|| format!("#{output_index}"));
        (item, index_of(obj, "content_index"))
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

    fn completed(&mut self, response: Value, out: &mut Vec<AgentEvent>) {
        self.note_response(&response, out);
        if let Some(output) = response.get("output").and_then(Value::as_array) {
            for item in output.iter().filter_map(Value::as_object) {
                // By id: the final list's order says nothing about where items streamed.
                self.item_done(None, item, out);
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
                    kind: self
                        .model
                        .clone()
                        .unwrap_or_else(|| self.provider.as_str().to_owned()),
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

    /// An output item is complete (`output_item.done`, or listed in `response.completed`).
    fn item_done(
        &mut self,
        output_index: Option<u64>,
        item: &Map<String, Value>,
        out: &mut Vec<AgentEvent>,
    ) {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => self.message_done(output_index, item, out),
            Some("reasoning") => self.reasoning_done(item, out),
            _ if tool_of(item).is_some() => self.tool_done(item, out),
            _ => {}
        }
    }
}

/// `output_index`, `content_index`: 0 when absent.
fn index_of(obj: &Map<String, Value>, key: &str) -> u64 {
    obj.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// `web_search_call.searching`, `x_search_call.completed`, `mcp_call.in_progress`, …
fn is_tool_progress(kind: &str) -> bool {
    kind.strip_prefix("response.")
        .and_then(|rest| rest.split_once('.'))
        .is_some_and(|(item, _)| item.ends_with("_call"))
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

/// A `type` starting with `response.`, or a `sequence_number` (an early `error`): only the
/// Responses API sends these.
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
