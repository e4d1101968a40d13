//! Zeta Alpha chat streams (`POST /v0/service/chat/stream?tenant=T`): `event: new_message` whose data
//! is the **whole bot message so far**, plus `stream_status` and `error` control events.
//!
//! - Every `new_message` replaces the answer ([`AgentEvent::AnswerReplace`]) and all references
//!   ([`AgentEvent::GroundingReplace`]): early versions may carry raw text that the final one rewrites.
//! - On a message with `evidences`, every occurrence of each `anchor_text` in its `content` is a
//!   citation whose span is the anchor itself ([`Reference::marker`]); the anchor format is never
//!   assumed (`<sup>1</sup>`, `[[1]]`, `[a1b2c3d4]`, …). Sources are keyed by `document_hit_url`,
//!   kept as sent (relative to the API host, or `custom://ID`); `text_extract` keeps its `<b>…</b>`.
//! - Evidences belong to their message: a stream with several `message_id`s keeps one content and
//!   one set of evidences per message; the answer is the messages' contents in order, separated by
//!   a blank line, and each message's anchors are looked for in its own content only.
//! - `content_parts` of type `tool` show as tool calls, and as traces when their status changes.
//! - `error` ends with an error. The server ends a re-attached stream with `stream_status`
//!   `{"reason": …}`: `done` completes, `errored` fails, `cancelled` is a cancelled run, `dead` (its
//!   producer died) and `gone` (the conversation moved on) end it incomplete. Any other status is
//!   informational. A stream that ends cleanly after a message is complete; one cut mid-way is not.
//! - A message's `reasoning_summary` (the whole summary so far) is thinking, shown as it grows.

mod citations;
pub mod request;
#[cfg(test)]
mod tests;
mod tools;

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::model::event::{AgentEvent, ConversationIds, Reference, SourceDoc};
use crate::wire::provider::spec::Shape;
use crate::wire::provider::string;
use crate::wire::provider::{Dialect, Provider};
use crate::wire::sse::SseEvent;
use citations::cite;
pub use citations::{bold_runs, evidence_doc, strip_bold};

/// The production API host; relative `document_hit_url`s open against it.
pub const DEFAULT_BASE_URL: &str = "https://api.zeta-alpha.com";
/// The agent asked for when none is configured.
pub const DEFAULT_AGENT: &str = "chat_with_dynamic_retrieval";

#[derive(Debug, Default)]
struct Message {
    id: Option<String>,
    content: String,
    /// Offsets relative to this message's content.
    references: Vec<Reference>,
    tools: Vec<ToolState>,
    /// Evidence URLs already reported as consulted (anchor not in the content).
    consulted: HashSet<String>,
    /// The `reasoning_summary` shown so far.
    reasoning: String,
}

#[derive(Debug, Default)]
struct ToolState {
    status: Option<String>,
    display: Option<String>,
}

#[derive(Debug, Default)]
pub struct ZetaDialect {
    session_id: Option<String>,
    messages: Vec<Message>,
    answer: String,
    references: Vec<Reference>,
    saw_message: bool,
    /// Complete or Error was emitted.
    ended: bool,
}

impl Dialect for ZetaDialect {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        self.decode_event(event, out);
    }

    fn finish(&mut self, clean: bool, out: &mut Vec<AgentEvent>) {
        if clean && self.saw_message && !self.ended {
            self.complete(out);
        }
    }

    fn provider(&self) -> Option<Provider> {
        Some(Provider::Zeta)
    }
}

impl ZetaDialect {
    fn decode_event(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        let data = event.data.trim();
        match event.event.as_str() {
            "error" => {
                self.ended = true;
                out.push(AgentEvent::Error {
                    message: error_text(data),
                });
            }
            "stream_status" => self.stream_status(data, out),
            name => {
                let Some(object) = super::json_object(data, out) else {
                    return;
                };
                let looks_like_message = ["sender", "content", "content_parts", "evidences"]
                    .iter()
                    .any(|key| object.contains_key(*key));
                if name == "new_message" || (name.is_empty() && looks_like_message) {
                    self.message(object, &event.id, out);
                } else {
                    out.push(AgentEvent::Unknown {
                        kind: if name.is_empty() { "message" } else { name }.to_owned(),
                    });
                }
            }
        }
    }

    fn complete(&mut self, out: &mut Vec<AgentEvent>) {
        self.ended = true;
        out.push(AgentEvent::Complete {
            checkpoint_id: None,
            consumption: Vec::new(),
        });
    }

    /// `stream_status`: a terminal reason ends the stream; anything else is informational.
    fn stream_status(&mut self, data: &str, out: &mut Vec<AgentEvent>) {
        let status = match serde_json::from_str::<Value>(data) {
            Ok(Value::Object(object)) => ["reason", "status", "state", "stream_status"]
                .iter()
                .find_map(|key| object.get(*key).and_then(Value::as_str))
                .unwrap_or_default()
                .to_owned(),
            Ok(Value::String(s)) => s,
            _ => data.to_owned(),
        };
        let status = status.trim().to_ascii_lowercase();
        if self.ended {
            return;
        }
        match Ending::of(&status) {
            Some(Ending::Complete) => self.complete(out),
            Some(Ending::Failed) => {
                self.ended = true;
                out.push(AgentEvent::Error {
                    message: format!("the stream ended with status `{status}`"),
                });
            }
            Some(Ending::Cancelled) => {
                self.ended = true;
                out.push(AgentEvent::Cancelled { reason: status });
            }
            // The answer so far is all there is, and it is not complete.
            Some(Ending::Abandoned) => self.ended = true,
            None => {}
        }
    }

    fn message(&mut self, mut object: Map<String, Value>, sse_id: &str, out: &mut Vec<AgentEvent>) {
        if object
            .get("sender")
            .and_then(Value::as_str)
            .is_some_and(|sender| sender == "user")
        {
            return;
        }
        self.saw_message = true;
        if let Some(session) = string(&object, "session_id")
            && self.session_id.as_deref() != Some(session.as_str())
        {
            self.session_id = Some(session.clone());
            out.push(AgentEvent::Conversation(ConversationIds {
                chat_id: Some(session),
                ..ConversationIds::default()
            }));
        }
        let id = string(&object, "message_id").or_else(|| message_id_of(sse_id));
        let index = match &id {
            Some(id) => match self
                .messages
                .iter()
                .position(|m| m.id.as_deref() == Some(id.as_str()))
            {
                Some(index) => index,
                None => self.new_message(Some(id.clone())),
            },
            None if self.messages.is_empty() => self.new_message(None),
            None => self.messages.len() - 1,
        };
        let parts = match object.remove("content_parts") {
            Some(Value::Array(parts)) => parts,
            _ => Vec::new(),
        };
        let content = match object.remove("content") {
            Some(Value::String(content)) => content,
            _ => parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| {
                    p.get("text")
                        .or_else(|| p.get("content"))
                        .and_then(Value::as_str)
                })
                .collect(),
        };
        self.tools(index, &parts, out);
        if let Some(Value::String(summary)) = object.remove("reasoning_summary") {
            self.reasoning(index, summary, out);
        }
        let evidences = match object.remove("evidences") {
            Some(Value::Array(evidences)) => evidences,
            _ => Vec::new(),
        };
        let (references, unplaced) = cite(&content, &evidences);
        let message = &mut self.messages[index];
        message.content = content;
        message.references = references;
        let fresh: Vec<SourceDoc> = unplaced
            .into_iter()
            .filter(|doc| {
                message
                    .consulted
                    .insert(doc.url.clone().unwrap_or_default())
            })
            .collect();
        if !fresh.is_empty() {
            out.push(AgentEvent::Consulted(fresh));
        }
        self.publish(out);
    }

    /// The message's whole reasoning summary so far: what is new of it is thinking.
    fn reasoning(&mut self, index: usize, summary: String, out: &mut Vec<AgentEvent>) {
        let message = &mut self.messages[index];
        let text = match summary.strip_prefix(message.reasoning.as_str()) {
            Some(grown) => grown.to_owned(),
            // Rewritten rather than grown: the new version follows as its own paragraph.
            None => format!("\n\n{summary}"),
        };
        message.reasoning = summary;
        if !text.is_empty() {
            out.push(AgentEvent::Thinking {
                message_id: message.id.clone(),
                role: None,
                text,
            });
        }
    }

    fn new_message(&mut self, id: Option<String>) -> usize {
        self.messages.push(Message {
            id,
            ..Message::default()
        });
        self.messages.len() - 1
    }

    /// Emit the whole answer and every reference, when they changed.
    fn publish(&mut self, out: &mut Vec<AgentEvent>) {
        let mut answer = String::new();
        let mut references = Vec::new();
        let mut offset = 0u64;
        for message in &self.messages {
            if message.content.is_empty() {
                continue;
            }
            if !answer.is_empty() {
                answer.push_str("\n\n");
                offset += 2;
            }
            answer.push_str(&message.content);
            references.extend(message.references.iter().map(|r| Reference {
                start: r.start.map(|s| s + offset),
                end: r.end.map(|e| e + offset),
                ..r.clone()
            }));
            offset += message.content.chars().count() as u64;
        }
        if answer != self.answer {
            out.push(AgentEvent::AnswerReplace {
                text: answer.clone(),
            });
            self.answer = answer;
        }
        if references != self.references {
            out.push(AgentEvent::GroundingReplace(references.clone()));
            self.references = references;
        }
    }
}

/// How a `stream_status` ends the stream.
enum Ending {
    Complete,
    Failed,
    Cancelled,
    /// The producer died (`dead`) or the turn is no longer the conversation's (`gone`).
    Abandoned,
}

impl Ending {
    /// The server's terminal reasons (`done`, `errored`, `dead`, `gone`), and the words other
    /// versions or proxies may use for the same ends.
    fn of(status: &str) -> Option<Ending> {
        Some(match status {
            "done" | "complete" | "completed" | "finished" | "end" | "ended" | "closed"
            | "stopped" | "success" | "succeeded" => Ending::Complete,
            "errored" | "error" | "failed" | "failure" | "timeout" => Ending::Failed,
            "cancelled" | "canceled" | "aborted" => Ending::Cancelled,
            "dead" | "gone" => Ending::Abandoned,
            _ => return None,
        })
    }
}

/// `{message_id}:{event_index}` → `message_id`.
fn message_id_of(sse_id: &str) -> Option<String> {
    let (id, index) = sse_id.rsplit_once(':')?;
    (!id.is_empty() && !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()))
        .then(|| id.to_owned())
}

/// The text of an `error` event: a JSON `detail`/`message`/`error`, else the data itself.
fn error_text(data: &str) -> String {
    if let Ok(value) = serde_json::from_str::<Value>(data) {
        let found = match &value {
            Value::String(s) => Some(s.clone()),
            Value::Object(object) => {
                ["detail", "message", "error"]
                    .iter()
                    .find_map(|key| match object.get(*key) {
                        Some(Value::String(s)) => Some(s.clone()),
                        Some(Value::Object(inner)) => inner
                            .get("message")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        _ => None,
                    })
            }
            _ => None,
        };
        if let Some(text) = found.filter(|t| !t.is_empty()) {
            return text;
        }
    }
    if data.is_empty() {
        "the agent reported an error".into()
    } else {
        data.to_owned()
    }
}

/// `event: new_message` or `stream_status`, or `event: error` with plain-text data.
pub fn names_event(event: &SseEvent) -> bool {
    match event.event.as_str() {
        "new_message" | "stream_status" => true,
        "error" => {
            let data = event.data.trim();
            !data.is_empty() && !data.starts_with('{')
        }
        _ => false,
    }
}

/// A message object: `sender`, `evidences` or `content_parts`.
pub fn payload_shape(object: &Map<String, Value>) -> Shape {
    if ["sender", "evidences", "content_parts"]
        .iter()
        .any(|key| object.contains_key(*key))
    {
        Shape::Own
    } else {
        Shape::Foreign
    }
}

/// A message with content.
pub fn carries_answer(object: &Map<String, Value>) -> bool {
    object.contains_key("sender")
        && object
            .get("content")
            .and_then(Value::as_str)
            .is_some_and(|content| !content.is_empty())
}
