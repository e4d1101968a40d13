//! A saved turn as an OpenTelemetry trace, in neutral terms (no SDK types): one root span for the
//! turn following the GenAI semantic conventions (`invoke_agent`), a child span per plan step and
//! per tool call (`execute_tool`), an event per citation, the status and error. Every time is the
//! saved arrival time ([`crate::wire::arrivals`]) on the wall clock of the request, never the time
//! of the export.
//!
//! Pure: [`TimedTurn::read`] folds a raw stream and its arrival times into the session and its
//! timeline, [`turn_spans`] turns them into [`SpanSpec`]s; `src/otel/` hands those to the exporter.
//! What leaves is chosen here: without [`TurnFacts::content`] neither the question nor the answer
//! text is in any span, and every string passes the key redactor.

use std::collections::HashMap;
use std::io::Read;

use serde_json::json;

use crate::model::citations::Attribution;
use crate::model::event::AgentEvent;
use crate::model::session::{Session, Status};
use crate::model::timeline::{PhaseKind, Timeline};
use crate::wire::arrivals::Arrivals;
use crate::wire::input::read_timed;
use crate::wire::provider::spec::FollowUp;
use crate::wire::provider::{EventPipeline, Provider};
use crate::wire::redact::Secret;

/// Citations whose arrival time is remembered; later ones take the end of the answer.
const MAX_CITATION_TIMES: usize = 10_000;
/// Characters of a plan step's description kept as its span's name.
const NAME_CHARS: usize = 80;

/// An attribute's value.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrValue {
    Str(String),
    Int(i64),
}

/// One attribute: its name (the conventions' or ours, `research_tui.*`) and value.
pub type Attr = (&'static str, AttrValue);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    /// The turn: a call to a remote agent.
    Client,
    /// A step or tool call inside it.
    Internal,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpanStatus {
    Unset,
    Ok,
    Error(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct SpanEvent {
    pub name: &'static str,
    pub unix_ns: u64,
    pub attributes: Vec<Attr>,
}

/// One span of a turn's trace. The first of [`turn_spans`] is the root; the others name it as
/// their parent by index.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanSpec {
    pub name: String,
    pub kind: SpanKind,
    pub parent: Option<usize>,
    pub start_unix_ns: u64,
    pub end_unix_ns: u64,
    pub attributes: Vec<Attr>,
    pub events: Vec<SpanEvent>,
    pub status: SpanStatus,
}

/// What the session's meta says of a turn, beside its stream.
#[derive(Debug, Clone)]
pub struct TurnFacts<'a> {
    /// The saved session: the conversation every turn of it belongs to.
    pub session_id: &'a str,
    /// Its place in the session, from 0.
    pub turn: usize,
    pub provider: Provider,
    pub model: Option<&'a str>,
    pub question: &'a str,
    /// When the request was sent (Unix ms).
    pub sent_unix_ms: u64,
    /// The question and the answer text go along (`--otlp-content`).
    pub content: bool,
    /// Masked in every string that leaves.
    pub secret: &'a Secret,
}

/// A saved turn read back with its arrival times.
#[derive(Debug, Default)]
pub struct TimedTurn {
    pub session: Session,
    pub timeline: Timeline,
    /// When each cited span `(start, end)` was first named by the agent (ms after the request).
    citation_ms: HashMap<(u64, u64), u64>,
    /// When the last byte of the response arrived.
    last_byte_ms: Option<u64>,
}

impl TimedTurn {
    /// Read a raw stream (`reader`) with its arrival times, the key masked before decoding.
    pub fn read(
        reader: impl Read,
        provider: Provider,
        arrivals: &Arrivals,
        secret: Secret,
    ) -> std::io::Result<TimedTurn> {
        let mut turn = TimedTurn::default();
        if let Some(ms) = arrivals.first_byte_ms() {
            turn.timeline.first_byte(ms);
        }
        let pipeline = EventPipeline::new(provider).with_secret(secret);
        let last = read_timed(reader, pipeline, arrivals, |ms, event| turn.push(ms, event))?;
        turn.timeline.finish(last);
        turn.last_byte_ms = arrivals.marks.last().map(|m| m.ms);
        Ok(turn)
    }

    fn push(&mut self, ms: u64, event: &AgentEvent) {
        self.timeline.push(ms, event);
        if let AgentEvent::Grounding(refs) | AgentEvent::GroundingReplace(refs) = event {
            for r in refs {
                if let (Some(start), Some(end)) = (r.start, r.end)
                    && self.citation_ms.len() < MAX_CITATION_TIMES
                {
                    self.citation_ms.entry((start, end)).or_insert(ms);
                }
            }
        }
        self.session.apply(event.clone());
    }

    /// The last time anything arrived (ms after the request).
    fn end_ms(&self) -> u64 {
        let phases = self.timeline.phases.iter().filter_map(|p| p.end_ms);
        phases
            .chain(self.last_byte_ms)
            .chain(self.timeline.last_ms)
            .chain(self.timeline.first_byte_ms)
            .max()
            .unwrap_or(0)
    }
}

/// The spans of one turn: the root first, then its plan steps and tool calls in the order they
/// started.
pub fn turn_spans(facts: &TurnFacts<'_>, turn: &TimedTurn) -> Vec<SpanSpec> {
    let clean = |text: &str| facts.secret.redact(text).into_owned();
    let at = |ms: u64| (facts.sent_unix_ms.saturating_add(ms)).saturating_mul(1_000_000);
    let end_ms = turn.end_ms();
    let mut spans = vec![root_span(facts, turn, at(end_ms))];
    for phase in &turn.timeline.phases {
        let (name, attributes) = match phase.kind {
            PhaseKind::PlanStep => {
                let mut name: String = phase.label.chars().take(NAME_CHARS).collect();
                if name.len() < phase.label.len() {
                    name.push('…');
                }
                let mut attributes = vec![("research_tui.phase", str_value("plan_step"))];
                if let Some(status) = &phase.detail {
                    attributes.push(("research_tui.plan.step.status", str_value(status)));
                }
                (clean(&name), attributes)
            }
            PhaseKind::Tool => tool_attributes(phase, &clean),
            _ => continue,
        };
        let failed = phase
            .detail
            .as_deref()
            .filter(|d| phase.kind == PhaseKind::Tool && d.starts_with("failed: "));
        spans.push(SpanSpec {
            name,
            kind: SpanKind::Internal,
            parent: Some(0),
            start_unix_ns: at(phase.start_ms),
            end_unix_ns: at(phase.end_ms.unwrap_or(end_ms)),
            attributes,
            events: Vec::new(),
            status: failed.map_or(SpanStatus::Unset, |d| SpanStatus::Error(clean(d))),
        });
    }
    spans[0].events = citation_events(turn, &at, end_ms, &clean);
    spans
}

fn str_value(text: &str) -> AttrValue {
    AttrValue::Str(text.to_owned())
}

fn int_value(n: impl TryInto<i64>) -> AttrValue {
    AttrValue::Int(n.try_into().unwrap_or(i64::MAX))
}

fn tool_attributes(
    phase: &crate::model::timeline::Phase,
    clean: &impl Fn(&str) -> String,
) -> (String, Vec<Attr>) {
    let mut attributes = vec![
        ("gen_ai.operation.name", str_value("execute_tool")),
        ("gen_ai.tool.name", AttrValue::Str(clean(&phase.label))),
    ];
    if let Some(id) = &phase.call_id {
        attributes.push(("gen_ai.tool.call.id", AttrValue::Str(clean(id))));
    }
    if let Some(query) = phase
        .detail
        .as_deref()
        .filter(|d| !d.starts_with("failed: "))
    {
        attributes.push(("research_tui.tool.query", AttrValue::Str(clean(query))));
    }
    if let Some(results) = phase.results {
        attributes.push(("research_tui.tool.result_count", int_value(results)));
    }
    (format!("execute_tool {}", clean(&phase.label)), attributes)
}

fn root_span(facts: &TurnFacts<'_>, turn: &TimedTurn, end_unix_ns: u64) -> SpanSpec {
    let clean = |text: &str| facts.secret.redact(text).into_owned();
    let spec = facts.provider.spec();
    let session = &turn.session;
    let mut attributes = vec![
        ("gen_ai.operation.name", str_value("invoke_agent")),
        ("gen_ai.provider.name", str_value(spec.otel_name)),
        ("gen_ai.agent.name", str_value(spec.label)),
        (
            "gen_ai.conversation.id",
            AttrValue::Str(clean(facts.session_id)),
        ),
    ];
    if let Some(model) = facts.model {
        attributes.push(("gen_ai.request.model", AttrValue::Str(clean(model))));
    }
    let ids = &session.ids;
    // Where the conversation lives on the server (a chat, a session), its id names the
    // conversation, not this response; elsewhere it is the response's own id.
    let chat_is_response = !matches!(
        spec.follow_up,
        FollowUp::ChatOrCheckpoint | FollowUp::SessionWithHistory
    );
    let response_id = (ids.chat_id.as_ref().filter(|_| chat_is_response))
        .or(ids.execution_id.as_ref())
        .or(ids.request_id.as_ref());
    if let Some(id) = response_id {
        attributes.push(("gen_ai.response.id", AttrValue::Str(clean(id))));
    }
    if let Some(completion) = &session.completion {
        let (input, output) = completion.total_tokens();
        attributes.push(("gen_ai.usage.input_tokens", int_value(input)));
        attributes.push(("gen_ai.usage.output_tokens", int_value(output)));
    }
    let status = session.status();
    attributes.push(("research_tui.turn", int_value(facts.turn + 1)));
    attributes.push(("research_tui.status", str_value(status.as_str())));
    let timeline = &turn.timeline;
    let figures = [
        ("research_tui.time_to_first_byte_ms", timeline.first_byte_ms),
        (
            "research_tui.time_to_first_answer_ms",
            timeline.first_answer_ms,
        ),
        ("research_tui.answer_chars", Some(timeline.answer_chars)),
    ];
    for (name, value) in figures {
        if let Some(value) = value {
            attributes.push((name, int_value(value)));
        }
    }
    let span_status = match status {
        Status::Complete => SpanStatus::Ok,
        Status::Error => SpanStatus::Error(clean(session.error.as_deref().unwrap_or("error"))),
        Status::Cancelled => SpanStatus::Error(format!(
            "cancelled: {}",
            clean(session.cancelled.as_deref().unwrap_or("by the provider"))
        )),
        Status::Incomplete => SpanStatus::Error("the stream ended before the answer did".into()),
    };
    if status != Status::Complete {
        attributes.push(("error.type", str_value(status.as_str())));
    }
    if facts.content {
        let question = json!([{"role": "user", "parts": [{"type": "text", "content": clean(facts.question)}]}]);
        let answer = json!([{
            "role": "assistant",
            "parts": [{"type": "text", "content": clean(session.answer.as_str())}],
            "finish_reason": if status == Status::Complete { "stop" } else { status.as_str() },
        }]);
        attributes.push((
            "gen_ai.input.messages",
            AttrValue::Str(question.to_string()),
        ));
        attributes.push(("gen_ai.output.messages", AttrValue::Str(answer.to_string())));
    }
    SpanSpec {
        name: format!("invoke_agent {}", spec.label),
        kind: SpanKind::Client,
        parent: None,
        start_unix_ns: facts.sent_unix_ms.saturating_mul(1_000_000),
        end_unix_ns,
        attributes,
        events: Vec::new(),
        status: span_status,
    }
}

/// One `citation` event per cited span of the answer: its source's URL and number, and where the
/// span is in code points of the whole answer, at the time the agent named it.
fn citation_events(
    turn: &TimedTurn,
    at: &impl Fn(u64) -> u64,
    end_ms: u64,
    clean: &impl Fn(&str) -> String,
) -> Vec<SpanEvent> {
    let attribution = Attribution::resolve(&turn.session, true);
    attribution
        .citations
        .iter()
        .map(|citation| {
            let ms = turn
                .citation_ms
                .get(&(citation.start as u64, citation.end as u64))
                .copied()
                .unwrap_or(end_ms);
            let mut attributes = vec![
                ("research_tui.citation.start", int_value(citation.start)),
                ("research_tui.citation.end", int_value(citation.end)),
            ];
            let source = citation.source.and_then(|n| attribution.sources.get(n - 1));
            if let Some(source) = source {
                attributes.push(("research_tui.source.number", int_value(source.n)));
                if let Some(url) = &source.url {
                    attributes.push(("url.full", AttrValue::Str(clean(url))));
                }
            }
            if let Some(tool) = &citation.tool_name {
                attributes.push(("gen_ai.tool.name", AttrValue::Str(clean(tool))));
            }
            SpanEvent {
                name: "citation",
                unix_ns: at(ms),
                attributes,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
