//! Neutral agent events: what every provider dialect produces and the session reducer consumes.
//!
//! Nothing here knows a wire format; field-spelling variants and envelopes are resolved by the
//! dialects in [`crate::wire::provider`].

use std::ops::Range;

use serde_json::Value;

/// Identifiers that tie a stream to a conversation or a workflow run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConversationIds {
    pub chat_id: Option<String>,
    pub execution_id: Option<String>,
    pub request_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub title: Option<String>,
    pub steps: Vec<PlanStep>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PlanStep {
    pub description: String,
    pub status: StepStatus,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepStatus {
    NotStarted,
    InProgress,
    Completed,
    Skipped,
    Failed,
    /// A status this version does not know, kept verbatim.
    Other(String),
}

impl StepStatus {
    pub fn parse(raw: &str) -> Self {
        match raw {
            "NOT_STARTED" => Self::NotStarted,
            "IN_PROGRESS" => Self::InProgress,
            "COMPLETED" => Self::Completed,
            "SKIPPED" => Self::Skipped,
            "FAILED" => Self::Failed,
            other => Self::Other(other.to_owned()),
        }
    }

    pub fn as_wire(&self) -> &str {
        match self {
            Self::NotStarted => "NOT_STARTED",
            Self::InProgress => "IN_PROGRESS",
            Self::Completed => "COMPLETED",
            Self::Skipped => "SKIPPED",
            Self::Failed => "FAILED",
            Self::Other(raw) => raw,
        }
    }

    /// Finished one way or another (counts towards `done/total`).
    pub fn is_settled(&self) -> bool {
        matches!(self, Self::Completed | Self::Skipped | Self::Failed)
    }
}

/// A search hit or web result that a reference cites.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceDoc {
    /// `BIGDATA`, `EXTERNAL`, or a provider's own kind (`WEB`, `DOCUMENT`, …).
    pub kind: Option<String>,
    pub id: Option<String>,
    pub headline: Option<String>,
    pub src_name: Option<String>,
    pub url: Option<String>,
    /// The publication date (`YYYY-MM-DD…`).
    pub ts: Option<String>,
    /// When the page last changed, in the provider's words, which need not be a date (Anthropic's
    /// `page_age`: `6 days ago`; Perplexity's `last_updated`): shown as "updated …", never as the
    /// publication date.
    pub updated: Option<String>,
    /// Extract text (EXTERNAL results, Zeta Alpha evidences), as the provider sent it.
    pub text: Option<String>,
    /// How to show [`SourceDoc::text`] ([`SourceDoc::text_pieces`]): byte ranges in order, each
    /// plain or emphasised (a key sentence the provider marked); bytes in none of them (markup
    /// such as Zeta Alpha's `<b>`) are not shown. Empty: all of the text, plain.
    pub text_runs: Vec<TextRun>,
    pub action_name: Option<String>,
    pub action_url: Option<String>,
    pub action_ts: Option<String>,
    pub chunks: Vec<SourceChunk>,
}

/// A part of a source's extract: [`SourceDoc::text_runs`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextRun {
    pub bytes: Range<usize>,
    pub emphasis: bool,
}

impl SourceDoc {
    /// The extract as shown: `(text, emphasised)` pieces, the markup left out.
    pub fn text_pieces(&self) -> Vec<(&str, bool)> {
        let text = self.text.as_deref().unwrap_or_default();
        if self.text_runs.is_empty() {
            return vec![(text, false)];
        }
        self.text_runs
            .iter()
            .filter_map(|run| Some((text.get(run.bytes.clone())?, run.emphasis)))
            .collect()
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceChunk {
    pub cnum: Option<i64>,
    pub text: String,
    pub relevance: Option<f64>,
}

/// One attribution: a span of the whole answer (code points) and what supports it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reference {
    /// `None` when the wire value was not a non-negative integer (the reference is then invalid).
    pub start: Option<u64>,
    pub end: Option<u64>,
    pub tool_name: Option<String>,
    pub audit_id: Option<String>,
    /// `None` for a tool-level citation (a non-search tool's result as a whole).
    pub source: Option<SourceDoc>,
    /// The span is the citation marker itself as the provider wrote it into the answer (xAI's inline
    /// link `[[1]](url)`, a Zeta Alpha `anchor_text` such as `<sup>1</sup>`), not the supported text:
    /// displays show `[n]` in its place instead of after it.
    pub marker: bool,
    /// The provider cites `source` without saying where (an xAI `url_citation` with no offsets):
    /// the source is numbered and listed like any cited one, but no text is its span, so `start`
    /// and `end` are not read and the reference is never invalid.
    pub unplaced: bool,
}

/// One entry of an AUDIT message.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditTrace {
    pub audit_type: String,
    pub tool_id: Option<String>,
    pub query: Option<String>,
    pub title: Option<String>,
    /// Documents returned, when the trace lists them.
    pub result_count: Option<usize>,
    pub raw: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Consumption {
    pub kind: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_tokens: u64,
    pub raw: Value,
}

/// A chart the agent generated (Bigdata.com `CHART`). What can be drawn of it is
/// [`crate::model::chart::interpret`]'s business; this keeps what was sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chart {
    pub chart_id: Option<String>,
    pub title: Option<String>,
    pub caption: Option<String>,
    pub chart_type: Option<String>,
    /// The span of the answer the chart illustrates (code points, like grounding offsets); `None`
    /// when absent or not a non-negative integer.
    pub start: Option<u64>,
    pub end: Option<u64>,
    /// The Vega-Lite spec, parsed when it was sent as JSON text.
    pub spec: Option<Value>,
    /// `data_points` as sent.
    pub data_points: Option<Value>,
    pub raw: Value,
}

/// Who produced an event: `None` is the main assistant, `Some(role)` a sub-agent.
pub type Role = Option<String>;

#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    /// The envelope's identifiers changed (first event, or a new value).
    Conversation(ConversationIds),
    /// The whole plan; replaces any earlier one.
    Plan(Plan),
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
    Audit {
        role: Role,
        traces: Vec<AuditTrace>,
    },
    Grounding(Vec<Reference>),
    /// Every reference so far, replacing all earlier ones (providers that resend the whole message,
    /// whose citations are recomputed from each version of it).
    GroundingReplace(Vec<Reference>),
    /// A chunk appended to the answer.
    AnswerDelta {
        message_id: Option<String>,
        text: String,
    },
    /// The whole answer so far (providers that resend the message instead of deltas).
    AnswerReplace {
        text: String,
    },
    /// Sources consulted but not cited at a position (no marker).
    Consulted(Vec<SourceDoc>),
    StructuredOutput {
        content: Value,
        schema: Option<Value>,
    },
    Chart(Chart),
    LlmRetry {
        message: String,
    },
    ToolError {
        tool_name: String,
        error: String,
    },
    /// Unrecoverable: the stream ends without completion.
    Error {
        message: String,
    },
    /// The provider ended the stream because the run was cancelled (not by us): no completion,
    /// and no error either. `reason` is the provider's word for it.
    Cancelled {
        reason: String,
    },
    Complete {
        checkpoint_id: Option<String>,
        consumption: Vec<Consumption>,
    },
    /// What the assistant said, in its provider's own terms, as a follow-up must send it back
    /// (Anthropic's content blocks, server tool calls and results included): appended to
    /// [`crate::model::session::Session::transcript`]. Opaque outside the provider's folder.
    Transcript(Vec<Value>),
    /// The provider paused the turn before its end (Anthropic's `pause_turn`): it is not over,
    /// and the client continues it by sending the conversation back with the
    /// [`AgentEvent::Transcript`] so far. A stream that ends here is incomplete.
    Paused,
    /// One payload arrived (an SSE event with data other than `[DONE]`, or a line too long to
    /// read): what [`crate::model::session::Stats::events`] counts. The byte pipeline sends
    /// exactly one per payload, whatever the dialect makes of it; dialects never send it.
    Received,
    /// A well-formed message of a type this version does not know.
    Unknown {
        kind: String,
    },
    /// A payload that was not valid JSON or had no message object.
    Malformed {
        reason: String,
    },
}
