//! Anthropic Messages streams (`POST /v1/messages`, `stream: true`) with the server tools web
//! search and web fetch: `message_start`, then for each content block `content_block_start`,
//! `content_block_delta`s and `content_block_stop`, then `message_delta` (the `stop_reason`, the
//! usage) and `message_stop`; `ping` and `error` anywhere.
//!
//! - `text` blocks are the answer, in order. A text block that follows a tool block starts a new
//!   paragraph (the model writes "Let me search." and, after the search, "Based on …" with nothing
//!   between them).
//! - `thinking` (and `redacted_thinking`) blocks go to Activity, never to the answer.
//! - `server_tool_use` (`web_search`, `web_fetch`): its input streams as `input_json_delta` and is
//!   shown, with its query or URL, once the block stops. `web_search_tool_result` and
//!   `web_fetch_tool_result` list what was consulted; an error result is a failed tool call.
//! - Citations have no offsets on the wire: a `citations_delta` (or the `citations` of the block's
//!   start) attaches a `web_search_result_location` to the whole text block it arrives in, and the
//!   model splits its text at citation boundaries. So each citation's span is exactly its block's
//!   text in the answer (`citations.rs`); its `cited_text`, the quote from the page, is the
//!   source's extract.
//! - Every content block is also rebuilt as the API sent it (`blocks.rs`): a follow-up must send
//!   them back, so each message's blocks end as an [`AgentEvent::Transcript`].
//! - `stop_reason`: `end_turn` (or `stop_sequence`, `tool_use`) completes the turn; `pause_turn`
//!   pauses it ([`AgentEvent::Paused`]: the client continues it, and the next message's blocks
//!   carry on the same answer); `max_tokens`, `refusal` and a full context window end it with an
//!   error saying so.

mod blocks;
mod citations;
pub mod request;
#[cfg(test)]
mod tests;

use serde_json::{Map, Value};

use crate::model::event::{AgentEvent, Consumption, ConversationIds};
use crate::wire::provider::spec::Shape;
use crate::wire::provider::{Dialect, Provider};
use crate::wire::sse::SseEvent;
use blocks::Blocks;

/// The production API.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The model asked for when none is configured (web search and web fetch, extended thinking).
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5";

/// The event types only Anthropic's Messages stream sends.
const EVENTS: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
];

#[derive(Debug, Default)]
pub struct AnthropicDialect {
    /// The first message's id: the conversation's, and the checkpoint of the turn.
    first_message: Option<String>,
    message_id: Option<String>,
    model: Option<String>,
    blocks: Blocks,
    stop_reason: Option<String>,
    usage: Option<Value>,
    /// The message's end was told (completed, paused or failed).
    ended: bool,
}

impl Dialect for AnthropicDialect {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        let Some(object) = super::json_object(event.data.trim(), out) else {
            return;
        };
        let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "message_start" => self.start(&object, out),
            "content_block_start" => self.blocks.start(&object, out),
            "content_block_delta" => self.blocks.delta(&object, out),
            "content_block_stop" => self.blocks.stop(&object, out),
            "message_delta" => self.delta(&object, out),
            "message_stop" => self.end(out),
            "ping" => {}
            "error" => {
                let error = object.get("error");
                let text = |key: &str| error.and_then(|e| e.get(key)).and_then(Value::as_str);
                let message = match (text("type"), text("message")) {
                    (Some(kind), Some(message)) => format!("{kind}: {message}"),
                    (None, Some(message)) => message.to_owned(),
                    (Some(kind), None) => kind.to_owned(),
                    (None, None) => "the stream reported an error".to_owned(),
                };
                self.ended = true;
                out.push(AgentEvent::Error { message });
            }
            other => out.push(AgentEvent::Unknown {
                kind: other.to_owned(),
            }),
        }
    }

    fn finish(&mut self, clean: bool, out: &mut Vec<AgentEvent>) {
        // A stream that stopped after its `message_delta` said how it ended; one cut before that
        // keeps what it cited so far.
        if clean && self.stop_reason.is_some() {
            self.end(out);
        }
        self.blocks.flush(out);
    }

    fn provider(&self) -> Option<Provider> {
        Some(Provider::Anthropic)
    }
}

impl AnthropicDialect {
    fn start(&mut self, object: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let message = object.get("message");
        let text = |key: &str| {
            message
                .and_then(|m| m.get(key))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        self.message_id = text("id");
        self.model = text("model").or(self.model.take());
        self.stop_reason = None;
        self.usage = None;
        self.ended = false;
        self.blocks.new_message(self.message_id.clone());
        if self.first_message.is_none() && self.message_id.is_some() {
            self.first_message.clone_from(&self.message_id);
            out.push(AgentEvent::Conversation(ConversationIds {
                chat_id: self.message_id.clone(),
                ..ConversationIds::default()
            }));
        }
    }

    fn delta(&mut self, object: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        if let Some(reason) = object
            .get("delta")
            .and_then(|d| d.get("stop_reason"))
            .and_then(Value::as_str)
        {
            self.stop_reason = Some(reason.to_owned());
        }
        if let Some(usage) = object.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
        if self.stop_reason.is_some() {
            // The message's content is whole: what a follow-up (or the continuation) sends back.
            self.blocks.flush(out);
            let content = self.blocks.take_transcript();
            if !content.is_empty() {
                out.push(AgentEvent::Transcript(content));
            }
        }
    }

    /// `message_stop`, or a clean end after the `message_delta`: the message ended as its
    /// `stop_reason` says.
    fn end(&mut self, out: &mut Vec<AgentEvent>) {
        if self.ended {
            return;
        }
        self.ended = true;
        self.blocks.flush(out);
        let content = self.blocks.take_transcript();
        if !content.is_empty() {
            out.push(AgentEvent::Transcript(content));
        }
        let message = match self.stop_reason.as_deref() {
            Some("pause_turn") => {
                out.push(AgentEvent::Paused);
                return;
            }
            Some("max_tokens") => {
                "the answer reached max_tokens, the most the request allows: it stops there"
            }
            Some("refusal") => "Claude declined to answer (stop_reason: refusal)",
            Some("model_context_window_exceeded") => {
                "the conversation no longer fits the model's context window"
            }
            _ => {
                out.push(AgentEvent::Complete {
                    checkpoint_id: self.first_message.clone(),
                    consumption: self.consumption(),
                });
                return;
            }
        };
        out.push(AgentEvent::Error {
            message: message.to_owned(),
        });
    }

    fn consumption(&self) -> Vec<Consumption> {
        let Some(usage) = &self.usage else {
            return Vec::new();
        };
        let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        vec![Consumption {
            kind: self.model.clone().unwrap_or_else(|| "anthropic".into()),
            input_tokens: count("input_tokens"),
            output_tokens: count("output_tokens"),
            cached_tokens: count("cache_read_input_tokens"),
            raw: usage.clone(),
        }]
    }
}

/// `event: message_start`, `content_block_*`, `message_delta`, `message_stop`.
pub fn names_event(event: &SseEvent) -> bool {
    EVENTS.contains(&event.event.as_str())
}

/// A payload whose `type` is one of the Messages stream's own, or its `error` object.
pub fn payload_shape(object: &Map<String, Value>) -> Shape {
    let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
    let error = kind == "error"
        && object
            .get("error")
            .is_some_and(|e| e.get("type").is_some_and(Value::is_string));
    if EVENTS.contains(&kind) || error {
        Shape::Own
    } else {
        Shape::Foreign
    }
}

/// A `text_delta` with text.
pub fn carries_answer(object: &Map<String, Value>) -> bool {
    let delta = object.get("delta");
    let field = |key: &str| delta.and_then(|d| d.get(key)).and_then(Value::as_str);
    object.get("type").and_then(Value::as_str) == Some("content_block_delta")
        && field("type") == Some("text_delta")
        && field("text").is_some_and(|t| !t.is_empty())
}
