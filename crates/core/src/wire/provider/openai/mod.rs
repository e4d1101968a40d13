//! OpenAI Responses API streams (`POST /v1/responses`, `stream: true`), deep research included.
//!
//! The wire is the one xAI mirrors: `event: response.*` with `data: {"type": "response.*",
//! "sequence_number": n, …}`, so the events are read by xAI's dialect
//! ([`XaiDialect::for_provider`]): answer deltas, reasoning summaries as thinking, `url_citation`
//! annotations as citations, and every `web_search_call` (its `action`: `search` with the query,
//! `open_page` with the URL, `find_in_page` with the URL and pattern) as a tool call and a trace.
//!
//! What OpenAI adds is the background run: a deep research request sends `background: true`, and
//! a dropped stream is picked up with `GET /v1/responses/{id}?stream=true&starting_after=N`. The
//! events of both connections go through one dialect, so [`OpenAiDialect`] drops every event whose
//! `sequence_number` it has already seen: nothing arrives twice, in a live turn or in a replay of
//! the raw bytes it saved. [`run_marks`] reads the run id and the sequence number for the client
//! that reconnects.
//!
//! Which of xAI and OpenAI a `response.*` stream is: see [`detect`].

pub mod detect;
pub mod request;
#[cfg(test)]
mod tests;

use serde::Deserialize;

use crate::model::event::AgentEvent;
use crate::wire::provider::spec::{RunCursor, RunMarks};
use crate::wire::provider::xai::XaiDialect;
use crate::wire::provider::{Dialect, Provider};
use crate::wire::sse::SseEvent;

/// The production API.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com";
/// The model asked for when none is configured: the research-grade one a research tool is for.
pub const DEFAULT_MODEL: &str = "o4-mini-deep-research";

/// The furthest a sequence number may jump past the last one and still count as a place in the
/// run (a resumed stream continues where the last connection stopped).
const MAX_SEQUENCE_JUMP: u64 = 1_000_000;

/// xAI's Responses dialect, speaking for OpenAI, with every event taken once by its sequence
/// number.
pub struct OpenAiDialect {
    inner: XaiDialect,
    /// The highest `sequence_number` decoded so far.
    last_sequence: Option<u64>,
}

impl Default for OpenAiDialect {
    fn default() -> Self {
        Self {
            inner: XaiDialect::for_provider(Provider::OpenAI),
            last_sequence: None,
        }
    }
}

impl Dialect for OpenAiDialect {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        if let Some(RunCursor::Sequence(sequence)) = run_marks(&event.data).cursor {
            if self.last_sequence.is_some_and(|last| sequence <= last) {
                // Sent again by a resumed stream: already decoded.
                out.push(AgentEvent::Repeated);
                return;
            }
            // A run numbers its events one by one: a number far past the last one is not a
            // place in the run (u64::MAX would make every later event look already seen). The
            // event is decoded; its number is not believed.
            if sequence
                <= self
                    .last_sequence
                    .unwrap_or(0)
                    .saturating_add(MAX_SEQUENCE_JUMP)
            {
                self.last_sequence = Some(sequence);
            }
        }
        self.inner.decode(event, out);
    }

    fn finish(&mut self, clean: bool, out: &mut Vec<AgentEvent>) {
        self.inner.finish(clean, out);
    }

    fn provider(&self) -> Option<Provider> {
        Some(Provider::OpenAI)
    }
}

/// The fields of a Responses event that place it in its run.
#[derive(Deserialize)]
struct Placed {
    sequence_number: Option<u64>,
    response: Option<RunRef>,
}

#[derive(Deserialize)]
struct RunRef {
    id: Option<String>,
}

/// The run id (`response.id`, on `response.created`, `response.in_progress`, …) and the sequence
/// number one SSE payload carries; nothing for a payload that is not a JSON object.
pub fn run_marks(data: &str) -> RunMarks {
    let Ok(placed) = serde_json::from_str::<Placed>(data.trim()) else {
        return RunMarks::default();
    };
    RunMarks {
        run_id: placed
            .response
            .and_then(|r| r.id)
            .filter(|id| !id.is_empty()),
        cursor: placed.sequence_number.map(RunCursor::Sequence),
    }
}
