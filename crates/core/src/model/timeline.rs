//! A turn's timeline: what happened when, from the neutral events and the time each arrived (ms
//! after the request was sent). Phases — the wait for the first byte, each plan step, each
//! thinking phase, each tool call with its query and result count, the answer streaming, charts,
//! the end — with their start and end; silences longer than [`GAP_MS`]; and the figures people
//! ask about: time to first byte and to first answer text, the answer's throughput.
//!
//! Pure and incremental: the app pushes events as they arrive (a phase still open has no end
//! yet), `render` and `ask` from a saved turn's arrival times. Bounded: past [`MAX_PHASES`] phases
//! and [`MAX_GAPS`] gaps, later ones are counted, not kept.

use serde::Serialize;
use serde_json::Value;

use crate::model::event::{AgentEvent, AuditTrace, Plan, StepStatus};

/// A silence longer than this between two arrivals is a gap worth marking.
pub const GAP_MS: u64 = 5_000;
/// Phases kept; later ones are only counted ([`Timeline::dropped`]).
pub const MAX_PHASES: usize = 5_000;
/// Gaps kept; later ones are only counted.
pub const MAX_GAPS: usize = 1_000;
/// Characters of a thinking phase kept as its detail (its first words).
const THOUGHT_CHARS: usize = 80;
/// The most characters a phase's label or detail keeps (a row shows far fewer).
const TEXT_CHARS: usize = 400;

/// Cut `text` to its first `most` characters, with `…` when anything was cut.
fn cut_to(text: &mut String, most: usize) {
    if let Some((at, _)) = text.char_indices().nth(most) {
        text.truncate(at);
        text.push('…');
    }
}

/// Cut `text` to at most `most` characters at the end of a word, with `…` when anything was cut
/// (within a word longer than that, at `most`).
fn cut_at_word(text: &mut String, most: usize) {
    let Some((at, _)) = text.char_indices().nth(most.saturating_sub(1)) else {
        return;
    };
    let next_is_space = text[at..].starts_with(char::is_whitespace);
    let keep = match next_is_space {
        true => at,
        false => text[..at].rfind(char::is_whitespace).unwrap_or(at),
    };
    text.truncate(keep);
    text.truncate(text.trim_end().len());
    text.push('…');
}

/// What a phase is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseKind {
    /// From the request to the first byte of the response.
    Request,
    PlanStep,
    Thinking,
    Tool,
    Answer,
    Chart,
    Structured,
    /// The end: completion, an error or a cancel (a point in time).
    End,
}

impl PhaseKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PhaseKind::Request => "request",
            PhaseKind::PlanStep => "plan_step",
            PhaseKind::Thinking => "thinking",
            PhaseKind::Tool => "tool",
            PhaseKind::Answer => "answer",
            PhaseKind::Chart => "chart",
            PhaseKind::Structured => "structured",
            PhaseKind::End => "end",
        }
    }
}

/// One row of the timeline. Its text is as the agent sent it: a renderer sanitises it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Phase {
    pub kind: PhaseKind,
    pub label: String,
    /// A tool call's query, an end's status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Results a tool call returned, when the agent said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub results: Option<usize>,
    /// A tool call's id, when its results named it (what a trace's `gen_ai.tool.call.id` is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    pub start_ms: u64,
    /// `None` while it goes on.
    pub end_ms: Option<u64>,
}

impl Phase {
    fn new(kind: PhaseKind, label: impl Into<String>, start_ms: u64) -> Phase {
        Phase {
            kind,
            label: label.into(),
            detail: None,
            results: None,
            call_id: None,
            start_ms,
            end_ms: None,
        }
    }

    /// How long it took (so far, at `now_ms`, while it goes on).
    pub fn duration_ms(&self, now_ms: u64) -> u64 {
        self.end_ms.unwrap_or(now_ms).saturating_sub(self.start_ms)
    }
}

/// A silence: nothing arrived from `start_ms` to `end_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Gap {
    pub start_ms: u64,
    pub end_ms: u64,
}

/// A turn's timeline as its events arrive.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timeline {
    pub phases: Vec<Phase>,
    pub gaps: Vec<Gap>,
    /// Phases and gaps past the limits, counted only.
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped: usize,
    pub first_byte_ms: Option<u64>,
    pub first_answer_ms: Option<u64>,
    /// The last arrival.
    pub last_ms: Option<u64>,
    /// Characters of answer text received.
    pub answer_chars: u64,
    #[serde(skip)]
    state: Open,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Where the phases still open are.
#[derive(Debug, Clone, Default, PartialEq)]
struct Open {
    /// Each plan step's phase, by the step's place in the plan.
    steps: Vec<Option<usize>>,
    thinking: Option<usize>,
    /// Tool calls waiting for their result, oldest first.
    tools: Vec<usize>,
    answer: Option<usize>,
    /// The last answer event.
    last_answer_ms: Option<u64>,
    /// Noting which phases the event being pushed touches ([`Timeline::push_noting`]).
    noting: bool,
    touched: Vec<usize>,
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline::new()
    }
}

impl Timeline {
    /// A turn whose request was just sent: waiting for its first byte.
    pub fn new() -> Timeline {
        Timeline {
            phases: vec![Phase::new(PhaseKind::Request, "request → first byte", 0)],
            gaps: Vec::new(),
            dropped: 0,
            first_byte_ms: None,
            first_answer_ms: None,
            last_ms: None,
            answer_chars: 0,
            state: Open::default(),
        }
    }

    /// The first byte of the response arrived `ms` after the request.
    pub fn first_byte(&mut self, ms: u64) {
        if self.first_byte_ms.is_some() {
            return;
        }
        self.first_byte_ms = Some(ms);
        self.close(0, ms);
    }

    /// `event` arrived `ms` after the request.
    pub fn push(&mut self, ms: u64, event: &AgentEvent) {
        if self.first_byte_ms.is_none() {
            self.first_byte(ms);
        }
        if let AgentEvent::Received = event {
            self.arrived(ms);
            return;
        }
        if !matches!(event, AgentEvent::Thinking { .. }) && is_content(event) {
            self.close_thinking(ms);
        }
        match event {
            AgentEvent::Plan(plan) => self.plan(ms, plan),
            AgentEvent::Thinking { text, .. } => self.thinking(ms, text),
            AgentEvent::ToolCall {
                tool_name,
                arguments,
                ..
            } => {
                if let Some(i) = self.add(Phase {
                    detail: query_of(arguments),
                    ..Phase::new(PhaseKind::Tool, tool_name.clone(), ms)
                }) {
                    self.state.tools.push(i);
                }
            }
            AgentEvent::Audit { traces, .. } => self.audit(ms, traces),
            AgentEvent::ToolError { tool_name, error } => self.tool_error(ms, tool_name, error),
            AgentEvent::AnswerDelta { text, .. } => self.answer(ms, text.chars().count(), false),
            AgentEvent::AnswerReplace { text } => self.answer(ms, text.chars().count(), true),
            AgentEvent::Chart(chart) => {
                let title = chart.title.clone().unwrap_or_else(|| "chart".into());
                self.point(PhaseKind::Chart, title, None, ms);
            }
            AgentEvent::StructuredOutput { .. } => {
                self.point(PhaseKind::Structured, "structured output", None, ms);
            }
            AgentEvent::Complete { .. } => self.end(ms, "complete", None),
            AgentEvent::Error { message } => self.end(ms, "error", Some(message.clone())),
            AgentEvent::Cancelled { reason } => self.end(ms, "cancelled", Some(reason.clone())),
            _ => {}
        }
    }

    /// [`Timeline::push`], also saying which phases `event` opened, went on with or ended (their
    /// indices in [`Timeline::phases`]), appended to `touched`: the raw events behind a row are the
    /// ones that touched it.
    pub fn push_noting(&mut self, ms: u64, event: &AgentEvent, touched: &mut Vec<usize>) {
        self.state.noting = true;
        self.push(ms, event);
        self.state.noting = false;
        touched.append(&mut self.state.touched);
        touched.dedup();
    }

    fn touch(&mut self, index: usize) {
        if self.state.noting {
            self.state.touched.push(index);
        }
    }

    /// Something arrived at `ms`: a silence before it longer than [`GAP_MS`] is a gap.
    fn arrived(&mut self, ms: u64) {
        let since = self.last_ms.or(self.first_byte_ms).unwrap_or(0);
        if ms.saturating_sub(since) > GAP_MS {
            if self.gaps.len() < MAX_GAPS {
                self.gaps.push(Gap {
                    start_ms: since,
                    end_ms: ms,
                });
            } else {
                self.dropped += 1;
            }
        }
        self.last_ms = Some(self.last_ms.map_or(ms, |last| last.max(ms)));
    }

    /// Add `phase`: its index, or `None` past the limit (counted).
    fn add(&mut self, mut phase: Phase) -> Option<usize> {
        if self.phases.len() >= MAX_PHASES {
            self.dropped += 1;
            return None;
        }
        // A step title, query or tool error can be megabytes: the phase cap bounds memory only if
        // each phase's text is bounded too.
        cut_to(&mut phase.label, TEXT_CHARS);
        if let Some(detail) = &mut phase.detail {
            cut_to(detail, TEXT_CHARS);
        }
        self.phases.push(phase);
        self.touch(self.phases.len() - 1);
        Some(self.phases.len() - 1)
    }

    fn point(
        &mut self,
        kind: PhaseKind,
        label: impl Into<String>,
        detail: Option<String>,
        ms: u64,
    ) {
        self.add(Phase {
            detail,
            end_ms: Some(ms),
            ..Phase::new(kind, label, ms)
        });
    }

    fn close(&mut self, index: usize, ms: u64) {
        if let Some(phase) = self.phases.get_mut(index)
            && phase.end_ms.is_none()
        {
            phase.end_ms = Some(ms.max(phase.start_ms));
        }
    }

    fn plan(&mut self, ms: u64, plan: &Plan) {
        for (i, step) in plan.steps.iter().enumerate() {
            if self.state.steps.len() <= i {
                self.state.steps.push(None);
            }
            let open = self.state.steps[i];
            match (&step.status, open) {
                (StepStatus::NotStarted, _) => {}
                (_, None) => {
                    let phase = Phase::new(PhaseKind::PlanStep, step.description.clone(), ms);
                    self.state.steps[i] = self.add(phase);
                    if step.status.is_settled()
                        && let Some(index) = self.state.steps[i]
                    {
                        self.close(index, ms);
                    }
                }
                (status, Some(index)) if status.is_settled() => {
                    self.touch(index);
                    self.close(index, ms);
                    if let Some(phase) = self.phases.get_mut(index) {
                        phase.detail = Some(status.as_wire().to_ascii_lowercase());
                    }
                }
                _ => {}
            }
        }
    }

    /// A thought arrived: it opens a thinking phase or goes on with the open one, whose detail
    /// keeps its first words.
    fn thinking(&mut self, ms: u64, text: &str) {
        if self.state.thinking.is_none() {
            self.state.thinking = self.add(Phase::new(PhaseKind::Thinking, "thinking", ms));
        }
        if let Some(index) = self.state.thinking {
            self.touch(index);
        }
        let Some(phase) = self.state.thinking.and_then(|i| self.phases.get_mut(i)) else {
            return;
        };
        let detail = phase.detail.get_or_insert_with(String::new);
        // Cut already: the rest of the thought is not kept here (the session has it whole).
        if detail.ends_with('…') {
            return;
        }
        let room = THOUGHT_CHARS.saturating_sub(detail.chars().count());
        // Words until the room is passed (then the cut below says more followed).
        let mut squeezed = String::new();
        let mut taken = 0;
        for word in text.split_whitespace() {
            if taken > room {
                break;
            }
            if !squeezed.is_empty() {
                squeezed.push(' ');
                taken += 1;
            }
            squeezed.push_str(word);
            taken += word.chars().count();
        }
        let spaced = detail.ends_with(' ');
        if !detail.is_empty()
            && !spaced
            && !squeezed.is_empty()
            && text.starts_with(char::is_whitespace)
        {
            detail.push(' ');
        }
        detail.push_str(&squeezed);
        // A thought that ends a word leaves a space for the next one's first word (trimmed
        // when the phase closes).
        if !squeezed.is_empty() && text.ends_with(char::is_whitespace) {
            detail.push(' ');
        }
        if detail.chars().count() > THOUGHT_CHARS {
            cut_at_word(detail, THOUGHT_CHARS);
        }
    }

    fn close_thinking(&mut self, ms: u64) {
        if let Some(index) = self.state.thinking.take() {
            if let Some(detail) = self.phases.get_mut(index).and_then(|p| p.detail.as_mut()) {
                detail.truncate(detail.trim_end().len());
            }
            self.close(index, ms);
        }
    }

    /// Results arrived: they end the oldest tool call waiting (or stand for a call the agent did
    /// not announce).
    fn audit(&mut self, ms: u64, traces: &[AuditTrace]) {
        let results = traces
            .iter()
            .filter_map(|t| t.result_count)
            .reduce(|a, b| a + b);
        let query = traces.iter().find_map(|t| t.query.clone());
        let call_id = traces.iter().find_map(|t| t.tool_id.clone()).map(|mut id| {
            cut_to(&mut id, TEXT_CHARS);
            id
        });
        let index = match self.state.tools.first() {
            Some(_) => Some(self.state.tools.remove(0)),
            None => {
                let label = traces
                    .first()
                    .map(|t| t.title.clone().unwrap_or_else(|| t.audit_type.clone()))
                    .unwrap_or_else(|| "tool".into());
                self.add(Phase::new(PhaseKind::Tool, label, ms))
            }
        };
        if let Some(index) = index {
            self.touch(index);
            self.close(index, ms);
            if let Some(phase) = self.phases.get_mut(index) {
                phase.results = results.or(phase.results);
                phase.call_id = call_id.or(phase.call_id.take());
                if phase.detail.is_none() {
                    phase.detail = query;
                }
            }
        }
    }

    fn tool_error(&mut self, ms: u64, tool_name: &str, error: &str) {
        let at = self
            .state
            .tools
            .iter()
            .position(|&i| self.phases.get(i).is_some_and(|p| p.label == tool_name));
        match at {
            Some(at) => {
                let index = self.state.tools.remove(at);
                self.touch(index);
                self.close(index, ms);
                if let Some(phase) = self.phases.get_mut(index) {
                    phase.detail = Some(format!("failed: {error}"));
                }
            }
            None => self.point(
                PhaseKind::Tool,
                tool_name,
                Some(format!("failed: {error}")),
                ms,
            ),
        }
    }

    fn answer(&mut self, ms: u64, chars: usize, replace: bool) {
        if chars == 0 && self.state.answer.is_none() {
            return;
        }
        if self.state.answer.is_none() {
            self.first_answer_ms.get_or_insert(ms);
            self.state.answer = self.add(Phase::new(PhaseKind::Answer, "answer", ms));
        } else if let Some(index) = self.state.answer {
            self.touch(index);
        }
        let chars = chars as u64;
        self.answer_chars = if replace {
            chars
        } else {
            self.answer_chars + chars
        };
        self.state.last_answer_ms = Some(ms);
    }

    fn end(&mut self, ms: u64, label: &str, detail: Option<String>) {
        self.finish(ms);
        self.point(PhaseKind::End, label, detail, ms);
    }

    /// The stream is over at `ms`: every phase still open ends (the answer at its last text).
    pub fn finish(&mut self, ms: u64) {
        self.close_thinking(ms);
        if let Some(index) = self.state.answer.take() {
            self.close(index, self.state.last_answer_ms.unwrap_or(ms));
        }
        for index in std::mem::take(&mut self.state.tools) {
            self.close(index, ms);
        }
        for index in std::mem::take(&mut self.state.steps).into_iter().flatten() {
            self.close(index, ms);
        }
    }

    /// Answer characters per second, from its first text to its last.
    pub fn answer_throughput(&self) -> Option<f64> {
        let first = self.first_answer_ms?;
        let last = self
            .phases
            .iter()
            .find(|p| p.kind == PhaseKind::Answer)
            .and_then(|p| p.end_ms)
            .or(self.state.last_answer_ms)?;
        let secs = (last.saturating_sub(first)) as f64 / 1000.0;
        (secs > 0.0).then(|| self.answer_chars as f64 / secs)
    }

    /// The longest gap kept.
    pub fn longest_gap(&self) -> Option<Gap> {
        self.gaps
            .iter()
            .copied()
            .max_by_key(|g| g.end_ms - g.start_ms)
    }

    /// Nothing has arrived for longer than [`GAP_MS`] at `now_ms`: since when (a stall, shown
    /// before the idle timeout ends the stream).
    pub fn silent_since(&self, now_ms: u64) -> Option<u64> {
        let since = self.last_ms.or(self.first_byte_ms)?;
        (now_ms.saturating_sub(since) > GAP_MS).then_some(since)
    }

    /// The timeline as JSON: its phases with start and end in ms, its gaps and figures.
    pub fn to_json(&self) -> Value {
        let mut value = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut value {
            map.insert(
                "answer_chars_per_s".into(),
                self.answer_throughput()
                    .map_or(Value::Null, |t| Value::from((t * 10.0).round() / 10.0)),
            );
        }
        value
    }

    /// One line of timing for people: `first byte 0.4 s · first answer text 12.3 s · …`.
    pub fn summary_line(&self) -> String {
        let mut parts = Vec::new();
        if let Some(ms) = self.first_byte_ms {
            parts.push(format!("first byte {}", seconds(ms)));
        }
        if let Some(ms) = self.first_answer_ms {
            parts.push(format!("first answer text {}", seconds(ms)));
        }
        if let Some(rate) = self.answer_throughput() {
            parts.push(format!("answer {rate:.0} chars/s"));
        }
        if let Some(ms) = self.last_ms {
            parts.push(format!("total {}", seconds(ms)));
        }
        match (self.gaps.len(), self.longest_gap()) {
            (0, _) | (_, None) => {}
            (1, Some(g)) => parts.push(format!(
                "1 silent gap of {}",
                seconds(g.end_ms - g.start_ms)
            )),
            (n, Some(g)) => parts.push(format!(
                "{n} silent gaps (longest {})",
                seconds(g.end_ms - g.start_ms)
            )),
        }
        format!("timing: {}", parts.join(" · "))
    }
}

/// `12.3 s`, `1 min 05 s`.
pub fn seconds(ms: u64) -> String {
    if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} min {:02} s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

/// An event that says something happened (not bookkeeping such as ids or counters).
fn is_content(event: &AgentEvent) -> bool {
    !matches!(
        event,
        AgentEvent::Conversation(_)
            | AgentEvent::Received
            | AgentEvent::Repeated
            | AgentEvent::Transcript(_)
            | AgentEvent::Unknown { .. }
            | AgentEvent::Malformed { .. }
    )
}

/// The query a tool call's arguments name, if any: `query`, `q`, `queries`, `search_query`, `url`.
/// (A provider that sends them as a JSON string has them read by its dialect.)
fn query_of(arguments: &Value) -> Option<String> {
    ["query", "q", "queries", "search_query", "url", "input"]
        .iter()
        .find_map(|key| match arguments.get(key)? {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            Value::Array(items) => {
                let words: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                (!words.is_empty()).then(|| words.join("; "))
            }
            _ => None,
        })
}

#[cfg(test)]
mod tests;
