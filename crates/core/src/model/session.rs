//! The session model: a pure reducer that applies neutral events to one turn's state.
//!
//! No I/O and no terminal: the TUI, `render` and `ask` all read this model. Every change bumps
//! [`Session::revision`], which is how drawing code knows something needs a redraw.

use std::collections::HashMap;

use serde_json::Value;

use crate::model::event::{
    AgentEvent, AuditTrace, Chart, Consumption, ConversationIds, Plan, Reference, Role, SourceDoc,
};

/// The answer text plus an index from code points to bytes, kept up to date as chunks arrive.
///
/// The text is held once: chunks are appended in place, never copied per event. A reader that prints
/// the answer as it streams and needs nothing else from it can [`AnswerBuffer::stop_keeping_text`]:
/// the buffer then only counts what arrives.
#[derive(Debug, Default, Clone)]
pub struct AnswerBuffer {
    text: String,
    index: CodePointIndex,
    /// The whole answer arrived at least once ([`AnswerBuffer::replace`]).
    resent: bool,
    /// Times the text was replaced by a different one.
    replacements: u64,
    /// Appended chunks are counted, not kept (see [`AnswerBuffer::stop_keeping_text`]).
    counting_only: bool,
    /// Bytes appended while only counting.
    counted_bytes: usize,
}

impl AnswerBuffer {
    pub fn push(&mut self, chunk: &str) {
        if self.counting_only && !self.resent {
            self.index.count(chunk);
            self.counted_bytes += chunk.len();
            return;
        }
        self.index.extend(&self.text, chunk);
        self.text.push_str(chunk);
    }

    /// The whole answer so far, as providers that resend their message send it.
    pub fn replace(&mut self, text: &str) {
        self.resent = true;
        if text == self.text && self.counted_bytes == 0 {
            return;
        }
        self.replacements += 1;
        self.text.clear();
        self.index = CodePointIndex::default();
        self.counted_bytes = 0;
        self.push(text);
    }

    /// From now on appended text is only counted (its length in bytes and code points), not kept:
    /// for a reader that prints each chunk as it arrives, so a huge answer costs no memory.
    /// [`AnswerBuffer::as_str`] then has no text for what was appended, and
    /// [`AnswerBuffer::byte_of`] no positions in it. An answer that is resent whole is kept (it is
    /// printed at the end).
    pub fn stop_keeping_text(&mut self) {
        self.counting_only = true;
    }

    /// What [`AnswerBuffer::push`] does with a chunk of `bytes` bytes and `chars` code points when
    /// it only counts: `false` (nothing done) when it would keep the chunk's text.
    pub fn push_counted(&mut self, bytes: usize, chars: usize) -> bool {
        if !self.counting_only || self.resent {
            return false;
        }
        self.index.len += chars;
        self.counted_bytes += bytes;
        true
    }

    /// The provider resends the whole answer rather than appending to it: text already shown may
    /// be rewritten, so whoever prints it as it grows should wait for the end.
    pub fn is_resent(&self) -> bool {
        self.resent
    }

    /// How many times the text was replaced by a different one: offsets resolved before a
    /// replacement may no longer hold.
    pub fn replacements(&self) -> u64 {
        self.replacements
    }

    /// The text (empty for what arrived after [`AnswerBuffer::stop_keeping_text`]).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Length in bytes, counted text included.
    pub fn len(&self) -> usize {
        self.text.len() + self.counted_bytes
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Length in code points (the unit of grounding offsets).
    pub fn char_len(&self) -> usize {
        self.index.len
    }

    /// Byte position of code point `cp`, or `None` past the end (or in text only counted). O(1)
    /// amortised: a checkpoint every [`CHECKPOINT_EVERY`] code points, then a short scan.
    pub fn byte_of(&self, cp: usize) -> Option<usize> {
        if self.counted_bytes > 0 {
            return None;
        }
        self.index.byte_of(&self.text, cp)
    }
}

pub const CHECKPOINT_EVERY: usize = 64;

/// How many of the 8 bytes of `word` start a character (are not `0b10xx_xxxx`).
fn starts_in(word: u64) -> usize {
    const LOW: u64 = 0x0101_0101_0101_0101;
    // Bit 0 of each byte: not a continuation byte (its top bit clear, or the one below set).
    let starts = ((!word >> 7) | (word >> 6)) & LOW;
    // The sum of the eight bytes (each 0 or 1) gathers in the top byte.
    (starts.wrapping_mul(LOW) >> 56) as usize
}

/// `checkpoints[i]` is the byte offset of code point `i * CHECKPOINT_EVERY`.
#[derive(Debug, Default, Clone)]
struct CodePointIndex {
    checkpoints: Vec<usize>,
    len: usize,
}

impl CodePointIndex {
    fn extend(&mut self, existing: &str, chunk: &str) {
        let base = existing.len();
        if chunk.is_ascii() {
            let mut next = self.checkpoints.len() * CHECKPOINT_EVERY;
            let end = self.len + chunk.len();
            while next < end {
                self.checkpoints.push(base + (next - self.len));
                next += CHECKPOINT_EVERY;
            }
            self.len = end;
            return;
        }
        // A character starts at any byte but a continuation byte. From one checkpoint the next
        // is as many bytes on as characters are to pass when those bytes are ASCII (most text);
        // else the starts are counted a word (8 bytes) at a time while a word holds no more
        // than are still to pass, then byte by byte to the start of the checkpoint's character.
        let is_start = |b: u8| (b as i8) >= -0x40;
        let bytes = chunk.as_bytes();
        let mut next = self.checkpoints.len() * CHECKPOINT_EVERY;
        // Byte `at` of the chunk is the start of code point `cp` (or the chunk's end).
        let (mut at, mut cp) = (0, self.len);
        loop {
            let mut left = next - cp;
            let rest = &bytes[at..];
            if left < rest.len() && rest[..left].is_ascii() {
                at += left;
            } else {
                while let Some(word) = bytes.get(at..at + 8) {
                    let n = starts_in(u64::from_le_bytes(word.try_into().unwrap_or_default()));
                    if n > left {
                        break;
                    }
                    left -= n;
                    at += 8;
                }
                while at < bytes.len() && !(left == 0 && is_start(bytes[at])) {
                    left -= usize::from(is_start(bytes[at]));
                    at += 1;
                }
                if at == bytes.len() {
                    // The chunk ends before code point `next`.
                    cp = next - left;
                    break;
                }
            }
            self.checkpoints.push(base + at);
            cp = next;
            next += CHECKPOINT_EVERY;
        }
        self.len = cp;
    }

    /// Count `chunk`'s code points without indexing them (the text is not kept).
    fn count(&mut self, chunk: &str) {
        self.len += if chunk.is_ascii() {
            chunk.len()
        } else {
            chunk.chars().count()
        };
    }

    fn byte_of(&self, text: &str, cp: usize) -> Option<usize> {
        if cp > self.len {
            return None;
        }
        if cp == self.len {
            return Some(text.len());
        }
        let block = cp / CHECKPOINT_EVERY;
        let start = self.checkpoints[block];
        let skip = cp - block * CHECKPOINT_EVERY;
        text[start..]
            .char_indices()
            .nth(skip)
            .map(|(b, _)| start + b)
    }
}

/// One line of the activity log, in arrival order.
#[derive(Debug, Clone, PartialEq)]
pub enum Activity {
    Thinking {
        message_id: Option<String>,
        role: Role,
        text: String,
    },
    ToolCall {
        role: Role,
        tool_name: String,
        arguments: Value,
    },
    /// Index into [`Session::audits`].
    Audit {
        role: Role,
        trace: usize,
    },
    ToolError {
        tool_name: String,
        error: String,
    },
    Retry {
        message: String,
    },
    Chart {
        index: usize,
    },
    Error {
        message: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub checkpoint_id: Option<String>,
    pub consumption: Vec<Consumption>,
}

impl Completion {
    pub fn total_tokens(&self) -> (u64, u64) {
        self.consumption.iter().fold((0, 0), |(i, o), c| {
            (i + c.input_tokens, o + c.output_tokens)
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct StructuredOutput {
    pub content: Value,
    pub schema: Option<Value>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Every payload received (including unknown and malformed ones), each once: the
    /// [`AgentEvent::Received`] notices.
    pub events: usize,
    pub malformed: usize,
    pub unknown: usize,
    /// Events a resumed stream sent again, dropped ([`AgentEvent::Repeated`]).
    pub repeated: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Complete,
    Error,
    /// The provider ended the run as cancelled ([`AgentEvent::Cancelled`]).
    Cancelled,
    Incomplete,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Complete => "complete",
            Status::Error => "error",
            Status::Cancelled => "cancelled",
            Status::Incomplete => "incomplete",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Session {
    pub ids: ConversationIds,
    pub plan: Option<Plan>,
    pub activity: Vec<Activity>,
    pub audits: Vec<AuditTrace>,
    audit_by_tool_id: HashMap<String, usize>,
    thinking_by_message_id: HashMap<String, usize>,
    pub answer: AnswerBuffer,
    pub references: Vec<Reference>,
    /// Times [`Session::references`] was replaced wholesale (rather than added to).
    grounding_replacements: u64,
    /// Bumped whenever [`Session::references`] changes (added to or replaced wholesale): a replaced
    /// list may have the same length as the old one, so its length alone does not tell.
    pub grounding_revision: u64,
    /// Sources consulted without a position in the answer.
    pub consulted: Vec<SourceDoc>,
    pub structured_output: Option<StructuredOutput>,
    pub charts: Vec<Chart>,
    pub tool_errors: Vec<(String, String)>,
    pub retries: Vec<String>,
    pub error: Option<String>,
    /// The provider's reason when it ended the run as cancelled.
    pub cancelled: Option<String>,
    pub completion: Option<Completion>,
    /// Sub-agent roles in order of first appearance.
    pub roles: Vec<String>,
    /// What the assistant said in its provider's terms ([`AgentEvent::Transcript`]), for
    /// follow-ups that send it back; empty for providers that need only the answer text.
    pub transcript: Vec<Value>,
    /// The provider paused the turn ([`AgentEvent::Paused`]) and nothing has followed yet.
    pub paused: bool,
    pub stats: Stats,
    pub revision: u64,
}

impl Session {
    pub fn new() -> Self {
        Self::default()
    }

    /// Apply a batch of events.
    pub fn apply_all(&mut self, events: impl IntoIterator<Item = AgentEvent>) {
        for event in events {
            self.apply(event);
        }
    }

    pub fn apply(&mut self, event: AgentEvent) {
        self.revision += 1;
        if !matches!(
            event,
            AgentEvent::Received | AgentEvent::Paused | AgentEvent::Transcript(_)
        ) {
            self.paused = false;
        }
        match event {
            AgentEvent::Conversation(ids) => self.ids = ids,
            AgentEvent::Received => self.stats.events += 1,
            AgentEvent::Malformed { .. } => self.stats.malformed += 1,
            AgentEvent::Unknown { .. } => self.stats.unknown += 1,
            AgentEvent::Repeated => self.stats.repeated += 1,
            AgentEvent::Plan(plan) => self.plan = Some(plan),
            AgentEvent::Thinking {
                message_id,
                role,
                text,
            } => self.add_thinking(message_id, role, text),
            AgentEvent::ToolCall {
                role,
                tool_name,
                arguments,
            } => {
                self.note_role(&role);
                self.activity.push(Activity::ToolCall {
                    role,
                    tool_name,
                    arguments,
                });
            }
            AgentEvent::Audit { role, traces } => {
                self.note_role(&role);
                for trace in traces {
                    let index = self.audits.len();
                    if let Some(tool_id) = &trace.tool_id {
                        self.audit_by_tool_id
                            .entry(tool_id.clone())
                            .or_insert(index);
                    }
                    self.audits.push(trace);
                    self.activity.push(Activity::Audit {
                        role: role.clone(),
                        trace: index,
                    });
                }
            }
            AgentEvent::Grounding(references) => {
                self.references.extend(references);
                self.grounding_revision += 1;
            }
            AgentEvent::GroundingReplace(references) => {
                if references != self.references {
                    self.references = references;
                    self.grounding_revision += 1;
                    self.grounding_replacements += 1;
                }
            }
            AgentEvent::AnswerDelta { text, .. } => self.answer.push(&text),
            AgentEvent::AnswerReplace { text } => self.answer.replace(&text),
            AgentEvent::Consulted(sources) => self.consulted.extend(sources),
            AgentEvent::StructuredOutput { content, schema } => {
                self.structured_output = Some(StructuredOutput { content, schema });
            }
            AgentEvent::Chart(chart) => {
                self.activity.push(Activity::Chart {
                    index: self.charts.len(),
                });
                self.charts.push(chart);
            }
            AgentEvent::LlmRetry { message } => {
                self.activity.push(Activity::Retry {
                    message: message.clone(),
                });
                self.retries.push(message);
            }
            AgentEvent::ToolError { tool_name, error } => {
                self.activity.push(Activity::ToolError {
                    tool_name: tool_name.clone(),
                    error: error.clone(),
                });
                self.tool_errors.push((tool_name, error));
            }
            AgentEvent::Error { message } => {
                self.activity.push(Activity::Error {
                    message: message.clone(),
                });
                self.error = Some(message);
            }
            AgentEvent::Cancelled { reason } => self.cancelled = Some(reason),
            AgentEvent::Transcript(blocks) => self.transcript.extend(blocks),
            AgentEvent::Paused => self.paused = true,
            AgentEvent::Complete {
                checkpoint_id,
                consumption,
            } => {
                self.completion = Some(Completion {
                    checkpoint_id,
                    consumption,
                });
            }
        }
    }

    /// What [`Session::apply`] does with an [`AgentEvent::AnswerDelta`] of `text`, for a reader
    /// that holds the text borrowed ([`crate::wire::provider::EventSink::answer`]): no event built.
    pub fn apply_answer_delta(&mut self, text: &str) {
        self.revision += 1;
        self.paused = false;
        self.answer.push(text);
    }

    /// [`Session::apply_answer_delta`] for a chunk known only by its length in bytes and code
    /// points, when the answer only counts what arrives ([`AnswerBuffer::push_counted`]): `false`
    /// (nothing done) when it keeps the text, which must then be applied.
    pub fn apply_answer_counted(&mut self, bytes: usize, chars: usize) -> bool {
        if !self.answer.push_counted(bytes, chars) {
            return false;
        }
        self.revision += 1;
        self.paused = false;
        true
    }

    fn add_thinking(&mut self, message_id: Option<String>, role: Role, text: String) {
        self.note_role(&role);
        if let Some(id) = &message_id
            && let Some(&index) = self.thinking_by_message_id.get(id)
            && let Some(Activity::Thinking { text: block, .. }) = self.activity.get_mut(index)
        {
            block.push_str(&text);
            return;
        }
        if message_id.is_none()
            && let Some(Activity::Thinking {
                message_id: None,
                role: last_role,
                text: block,
            }) = self.activity.last_mut()
            && *last_role == role
        {
            block.push_str(&text);
            return;
        }
        if let Some(id) = &message_id {
            self.thinking_by_message_id
                .insert(id.clone(), self.activity.len());
        }
        self.activity.push(Activity::Thinking {
            message_id,
            role,
            text,
        });
    }

    fn note_role(&mut self, role: &Role) {
        if let Some(role) = role
            && !self.roles.contains(role)
        {
            self.roles.push(role.clone());
        }
    }

    /// How many times the references were replaced wholesale: citations resolved before may be gone.
    pub fn grounding_replacements(&self) -> u64 {
        self.grounding_replacements
    }

    /// The audit trace whose `tool_id` is `audit_id`.
    pub fn audit(&self, audit_id: &str) -> Option<&AuditTrace> {
        self.audit_by_tool_id
            .get(audit_id)
            .map(|&index| &self.audits[index])
    }

    pub fn status(&self) -> Status {
        if self.error.is_some() {
            Status::Error
        } else if self.cancelled.is_some() {
            Status::Cancelled
        } else if self.completion.is_some() {
            Status::Complete
        } else {
            Status::Incomplete
        }
    }

    /// The answer will not grow any more (completed, failed or cancelled).
    pub fn is_finished(&self) -> bool {
        self.error.is_some() || self.cancelled.is_some() || self.completion.is_some()
    }

    pub fn checkpoint_id(&self) -> Option<&str> {
        self.completion.as_ref()?.checkpoint_id.as_deref()
    }

    /// Payloads arrived ([`Stats::events`]) and not one of them said anything: no answer, no
    /// activity, no source, no ids, no end. Input in a format no dialect reads looks like this.
    pub fn understood_nothing(&self) -> bool {
        self.stats.events > 0
            && self.ids == ConversationIds::default()
            && self.plan.is_none()
            && self.activity.is_empty()
            && self.answer.is_empty()
            && self.references.is_empty()
            && self.consulted.is_empty()
            && self.structured_output.is_none()
            && self.charts.is_empty()
            && self.transcript.is_empty()
            && !self.paused
            && !self.is_finished()
    }
}

#[cfg(test)]
mod tests;
