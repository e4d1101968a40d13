//! Perplexity Sonar streams (`POST /chat/completions`, `stream: true`): OpenAI-style
//! `chat.completion.chunk` payloads on plain `data:` lines, maybe ending with `data: [DONE]`.
//!
//! - `choices[0].delta.content` → answer chunks. Reasoning models open the content with
//!   `<think>…</think>`: that part is thinking (`think.rs`), never answer text.
//! - `citations` (URLs) and `search_results` (`title`, `url`, `date`, `snippet`) ride on the chunks,
//!   the same two lists in the same order. A `[n]` marker in the answer cites entry `n` (1-based) of
//!   them: the reference is the marker's own span ([`Reference::marker`]), so displays put our
//!   number in its place. A marker past the end of the lists is an invalid reference. Listed sources
//!   no marker cites are consulted sources (`citations.rs`).
//! - The chunk's `id` names the completion: the conversation's `chat_id` and, once a chunk carries
//!   a `finish_reason`, the checkpoint of the completion (with the token usage).
//!
//! [`Reference::marker`]: crate::model::event::Reference::marker

mod citations;
pub mod request;
#[cfg(test)]
mod tests;
mod think;

use serde_json::{Map, Value};

use crate::model::event::{AgentEvent, Consumption};
use crate::wire::provider::spec::Shape;
use crate::wire::provider::{Dialect, Provider};
use crate::wire::sse::SseEvent;
use citations::Markers;
use think::{Split, ThinkSplitter};

/// The production API.
pub const DEFAULT_BASE_URL: &str = "https://api.perplexity.ai";
/// The model asked for when none is configured.
pub const DEFAULT_MODEL: &str = "sonar-pro";

#[derive(Debug, Default)]
pub struct PerplexityDialect {
    completion_id: Option<String>,
    model: Option<String>,
    think: ThinkSplitter,
    markers: Markers,
    usage: Option<Value>,
    completed: bool,
}

impl Dialect for PerplexityDialect {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        let Some(object) = super::json_object(event.data.trim(), out) else {
            return;
        };
        self.chunk(object, out);
    }

    fn finish(&mut self, _clean: bool, out: &mut Vec<AgentEvent>) {
        self.end_content(out);
    }

    fn provider(&self) -> Option<Provider> {
        Some(Provider::Perplexity)
    }
}

impl PerplexityDialect {
    fn chunk(&mut self, object: Map<String, Value>, out: &mut Vec<AgentEvent>) {
        if let Some(error) = object.get("error") {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(|| error.to_string());
            out.push(AgentEvent::Error { message });
            return;
        }
        self.note_ids(&object, out);
        if let Some(usage) = object.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
        self.markers.lists(
            object.get("citations").and_then(Value::as_array),
            object.get("search_results").and_then(Value::as_array),
            out,
        );
        let choice = object
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| choices.first());
        let content = choice
            .and_then(|c| c.pointer("/delta/content"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !content.is_empty() {
            let split = self.think.push(content);
            self.emit(split, out);
        }
        self.markers.settle(false, out);
        let finished = choice
            .and_then(|c| c.get("finish_reason"))
            .is_some_and(|reason| !reason.is_null());
        if finished {
            self.complete(out);
        }
    }

    fn note_ids(&mut self, object: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        if let Some(model) = object.get("model").and_then(Value::as_str) {
            self.model = Some(model.to_owned());
        }
        crate::wire::provider::first_chat_id(&mut self.completion_id, object, "id", out);
    }

    /// Thinking as thinking; answer text as answer, its markers found as it grows.
    fn emit(&mut self, split: Split, out: &mut Vec<AgentEvent>) {
        if !split.thinking.is_empty() {
            out.push(AgentEvent::Thinking {
                message_id: self.completion_id.clone(),
                role: None,
                text: split.thinking,
            });
        }
        let shown = self.markers.grow(&split.answer);
        self.show(shown, out);
    }

    fn show(&mut self, text: String, out: &mut Vec<AgentEvent>) {
        if !text.is_empty() {
            out.push(AgentEvent::AnswerDelta {
                message_id: self.completion_id.clone(),
                text,
            });
        }
    }

    /// The content is over: what was held back is shown, every marker settled.
    fn end_content(&mut self, out: &mut Vec<AgentEvent>) {
        let split = self.think.finish();
        self.emit(split, out);
        let rest = self.markers.release_rest();
        self.show(rest, out);
        self.markers.settle(true, out);
    }

    /// A `finish_reason` arrived: the answer is whole; complete once, with the usage.
    fn complete(&mut self, out: &mut Vec<AgentEvent>) {
        if self.completed {
            return;
        }
        self.completed = true;
        self.end_content(out);
        let consumption = self
            .usage
            .as_ref()
            .map(|usage| {
                let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
                vec![Consumption {
                    kind: self.model.clone().unwrap_or_else(|| "perplexity".into()),
                    input_tokens: count("prompt_tokens"),
                    output_tokens: count("completion_tokens"),
                    cached_tokens: 0,
                    raw: usage.clone(),
                }]
            })
            .unwrap_or_default();
        out.push(AgentEvent::Complete {
            checkpoint_id: self.completion_id.clone(),
            consumption,
        });
    }
}

/// `object: "chat.completion.chunk"` (or `chat.completion.done`): of the providers spoken here,
/// only Perplexity streams chat completions.
pub fn payload_shape(object: &Map<String, Value>) -> Shape {
    let chat = object
        .get("object")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind.starts_with("chat.completion"));
    if chat && object.contains_key("choices") {
        Shape::Own
    } else {
        Shape::Foreign
    }
}

/// A chunk whose `choices[0].delta.content` has text.
pub fn carries_answer(object: &Map<String, Value>) -> bool {
    object
        .get("choices")
        .and_then(|choices| choices.pointer("/0/delta/content"))
        .and_then(Value::as_str)
        .is_some_and(|text| !text.is_empty())
}
