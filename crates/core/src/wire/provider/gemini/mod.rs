//! Google Gemini, two wires behind one key (`x-goog-api-key`):
//!
//! - The Deep Research agent through the Interactions API (`interactions.rs`): SSE payloads with an
//!   `event_type` and an `event_id` (the resume token), in either of the API's two shapes — step
//!   events (`interaction.created`, `step.start/delta/stop`, `interaction.completed`) or the older
//!   content events (`interaction.start`, `content.start/delta/stop`, `interaction.complete`).
//!   Text deltas are the answer, thought summaries are thinking, every Google Search and URL
//!   context call is a tool call, and `url_citation` annotations (UTF-8 byte offsets into their
//!   text block) are the citations.
//! - A plain model with Google Search grounding, `streamGenerateContent?alt=sse` (`generate.rs`):
//!   `candidates[0].content.parts` are the answer (`thought: true` parts are thinking), and the
//!   `groundingMetadata` the last chunk carries cites spans given in UTF-8 byte offsets into the
//!   concatenated text.
//!
//! Both resolve byte offsets to code points of the whole answer ([`code_points`]); both name their
//! sources by domain ([`web_source`]). [`GeminiDialect`] reads whichever shape a payload has.
//!
//! An interaction's events are taken once ([`Replays`]): a resumed stream starts after the last
//! `event_id` that arrived, so what it sends again is what came after that id — events the server
//! sent without an id (real streams leave it out of many). Those are recognised as the same
//! payloads arriving again in the same order from the first one after the id, and dropped:
//! nothing twice, in a live turn or a replay of its saved bytes.

mod generate;
mod interactions;
pub mod request;
#[cfg(test)]
mod tests;

use std::collections::{HashSet, VecDeque};

use serde_json::{Map, Value};

use crate::model::event::{AgentEvent, SourceDoc};
use crate::wire::provider::spec::{RunCursor, RunMarks, Shape};
use crate::wire::provider::string;
use crate::wire::provider::{Dialect, Provider};
use crate::wire::sse::SseEvent;

/// The production API.
pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com";
/// What a question goes to when no model is named: the Deep Research agent.
pub const DEFAULT_AGENT: &str = "deep-research-preview-04-2026";

/// Gemini's dialect: Interactions events and `generateContent` chunks.
#[derive(Debug, Default)]
pub struct GeminiDialect {
    interactions: interactions::Interactions,
    generate: generate::Generate,
    replays: Replays,
}

/// What tells an interaction's events sent again by a resumed stream from new ones.
#[derive(Debug, Default)]
struct Replays {
    /// The last [`Replays::TAIL`] `event_id`s decoded (a resume starts after the last one, so only
    /// recent ones can come again), oldest first in `order`.
    seen: HashSet<String>,
    order: VecDeque<String>,
    /// The payloads without an id since the last id (what a resume sends again), at most
    /// [`Replays::TAIL`] of them.
    tail: Vec<String>,
    /// While a resumed stream sends the tail again: how much of it has come.
    replayed: Option<usize>,
}

impl Replays {
    /// Ids, and events without an id between two with one, remembered (a longer run is not
    /// recognised when sent again: memory stays bounded whatever the stream).
    const TAIL: usize = 4096;

    /// Whether this payload (its `event_id`, if any) was decoded before.
    fn again(&mut self, event_id: Option<String>, data: &str) -> bool {
        if let Some(id) = event_id {
            self.replayed = None;
            self.tail.clear();
            if self.seen.contains(&id) {
                return true;
            }
            if self.order.len() == Self::TAIL
                && let Some(oldest) = self.order.pop_front()
            {
                self.seen.remove(&oldest);
            }
            self.seen.insert(id.clone());
            self.order.push_back(id);
            return false;
        }
        if let Some(at) = self.replayed {
            if self.tail.get(at).is_some_and(|sent| sent == data) {
                self.replayed = (at + 1 < self.tail.len()).then_some(at + 1);
                return true;
            }
            self.replayed = None;
        } else if self.tail.first().is_some_and(|first| first == data) {
            self.replayed = (self.tail.len() > 1).then_some(1);
            return true;
        }
        if self.tail.len() < Self::TAIL {
            self.tail.push(data.to_owned());
        }
        false
    }
}

impl Dialect for GeminiDialect {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        let Some(object) = super::json_object(event.data.trim(), out) else {
            return;
        };
        if let Some(kind) = object.get("event_type").and_then(Value::as_str) {
            let kind = kind.to_owned();
            if self
                .replays
                .again(string(&object, "event_id"), event.data.trim())
            {
                return;
            }
            self.interactions.decode(&kind, &object, out);
        } else if is_chunk(&object) {
            self.generate.decode(&object, out);
        } else {
            out.push(AgentEvent::Unknown {
                kind: "payload without event_type or candidates".into(),
            });
        }
    }

    fn finish(&mut self, clean: bool, out: &mut Vec<AgentEvent>) {
        self.interactions.finish(out);
        self.generate.finish(clean, out);
    }

    fn provider(&self) -> Option<Provider> {
        Some(Provider::Gemini)
    }
}

/// A `generateContent` chunk (or its error body).
fn is_chunk(object: &Map<String, Value>) -> bool {
    object.contains_key("candidates")
        || object.contains_key("usageMetadata")
        || object.contains_key("promptFeedback")
        || object
            .get("error")
            .is_some_and(|e| e.get("status").is_some() || e.get("code").is_some())
}

/// The Interactions events' names (`event: interaction.start`, …).
pub fn names_event(event: &SseEvent) -> bool {
    ["interaction.", "step.", "content."]
        .iter()
        .any(|prefix| event.event.starts_with(prefix))
}

/// An Interactions payload names its `event_type`; a `generateContent` chunk holds `candidates`.
pub fn payload_shape(object: &Map<String, Value>) -> Shape {
    let interaction = object
        .get("event_type")
        .and_then(Value::as_str)
        .is_some_and(|kind| {
            ["interaction.", "step.", "content."]
                .iter()
                .any(|prefix| kind.starts_with(prefix))
                || kind == "error"
        });
    let chunk = object.get("candidates").is_some_and(Value::is_array);
    if interaction || chunk {
        Shape::Own
    } else {
        Shape::Foreign
    }
}

/// A payload with answer text: an Interactions text delta, or a chunk with a non-thought text part.
pub fn carries_answer(object: &Map<String, Value>) -> bool {
    let delta_text = object
        .get("delta")
        .filter(|delta| delta.get("type").and_then(Value::as_str) == Some("text"))
        .and_then(|delta| delta.get("text"))
        .and_then(Value::as_str)
        .is_some_and(|text| !text.is_empty());
    let part_text = object
        .get("candidates")
        .and_then(|candidates| candidates.pointer("/0/content/parts"))
        .and_then(Value::as_array)
        .is_some_and(|parts| {
            parts.iter().any(|part| {
                part.get("thought").and_then(Value::as_bool) != Some(true)
                    && part
                        .get("text")
                        .and_then(Value::as_str)
                        .is_some_and(|text| !text.is_empty())
            })
        });
    delta_text || part_text
}

/// What one payload of an interaction's stream says about the run: the interaction id (on
/// `interaction.created`/`start`, `interaction.status_update`) and the `event_id` to resume after.
pub fn run_marks(data: &str) -> RunMarks {
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(data.trim()) else {
        return RunMarks::default();
    };
    let run_id = object
        .get("interaction")
        .and_then(|i| i.get("id"))
        .or_else(|| object.get("interaction_id"))
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned);
    RunMarks {
        run_id,
        cursor: string(&object, "event_id").map(RunCursor::EventId),
    }
}

/// The code point at UTF-8 byte offset `byte` of `text`; `None` past its end or inside a character
/// (such an offset was not counted in bytes of this text).
pub(crate) fn code_points(text: &str, byte: u64) -> Option<u64> {
    let byte = usize::try_from(byte).ok()?;
    let head = text.get(..byte)?;
    u64::try_from(head.chars().count()).ok()
}

/// A web page Gemini found: `uri` opened as given (a Google redirect link, most often), and the
/// publisher its domain — the title when that is a bare domain (as grounding titles usually are),
/// else the link's host unless it is Google's redirect host. A title that is just the domain is
/// not repeated as the headline.
pub(crate) fn web_source(uri: &str, title: Option<&str>) -> SourceDoc {
    let title = title.map(str::trim).filter(|t| !t.is_empty());
    let title_domain = title.filter(|t| is_domain(t)).map(str::to_owned);
    let publisher = title_domain.clone().or_else(|| host_of(uri));
    SourceDoc {
        kind: Some("WEB".into()),
        headline: title.filter(|_| title_domain.is_none()).map(str::to_owned),
        src_name: publisher,
        url: Some(uri.to_owned()),
        ..SourceDoc::default()
    }
}

fn is_domain(text: &str) -> bool {
    text.contains('.')
        && !text.starts_with('.')
        && !text.ends_with('.')
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || c == '.' || c == '-')
}

/// The host of an `http(s)` URL without `www.`; nothing for Google's grounding redirect host.
fn host_of(uri: &str) -> Option<String> {
    let rest = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"))?;
    let host = rest.split(['/', '?', '#']).next()?.split(':').next()?;
    let host = host.strip_prefix("www.").unwrap_or(host);
    (!host.is_empty() && host != "vertexaisearch.cloud.google.com")
        .then(|| host.to_ascii_lowercase())
}
