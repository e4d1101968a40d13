//! The recordings the demo server plays, each parsed once — when first played — into frames whose
//! JSON payloads can be rewritten per request (fresh chat, checkpoint, execution and request ids).

use std::borrow::Cow;
use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::wire::provider::carries_answer;
use crate::wire::recording::parse_frames;

pub const EARNINGS: &str = "earnings-deep-dive.sse";
pub const SECTOR: &str = "sector-comparison.sse";
pub const FOLLOW_UP: &str = "follow-up.sse";
pub const WORKFLOW: &str = "workflow-earnings-brief.sse";

/// xAI Responses API sessions (`POST /v1/responses`): a new question, and a follow-up that sends
/// `previous_response_id`.
pub const XAI_RESEARCH: &str = "solid-state-batteries.sse";
pub const XAI_FOLLOW_UP: &str = "energy-density-follow-up.sse";
/// Zeta Alpha chat sessions (`POST /v0/service/chat/stream`): a new question, and a follow-up that
/// sends `session_id`.
pub const ZETA_RESEARCH: &str = "rag-long-documents.sse";
pub const ZETA_FOLLOW_UP: &str = "scientific-pdfs-follow-up.sse";
/// OpenAI Responses API sessions (`POST /v1/responses`): a background deep research run, and a
/// follow-up that sends `previous_response_id`.
pub const OPENAI_RESEARCH: &str = "sodium-ion-grid-storage.sse";
pub const OPENAI_FOLLOW_UP: &str = "sodium-ion-follow-up.sse";
/// Perplexity chat completions (`POST /chat/completions`): a reasoning model's answer opening with
/// `<think>`, and a follow-up that resends the conversation.
pub const PERPLEXITY_RESEARCH: &str = "eu-ai-act-gpai.sse";
pub const PERPLEXITY_FOLLOW_UP: &str = "eu-ai-act-follow-up.sse";

/// Gemini: a Deep Research interaction (step events), a follow-up that sends
/// `previous_interaction_id` (the older content events), and a plain model's grounded answer
/// (`streamGenerateContent`).
pub const GEMINI_RESEARCH: &str = "tandem-solar-deep-research.sse";
pub const GEMINI_FOLLOW_UP: &str = "tandem-solar-follow-up.sse";
pub const GEMINI_GROUNDED: &str = "tandem-solar-grounded.sse";
/// Anthropic Messages (`POST /v1/messages`): a question whose turn the server pauses
/// (`pause_turn`), its continuation, and a follow-up that resends the conversation.
pub const ANTHROPIC_RESEARCH: &str = "congestion-pricing.sse";
pub const ANTHROPIC_CONTINUED: &str = "congestion-pricing-continued.sse";
pub const ANTHROPIC_FOLLOW_UP: &str = "congestion-pricing-follow-up.sse";

/// The comparison question (`research-tui --provider a,b,c` and `ask --provider a,b,c` on the demo):
/// OpenAI's research recording answers it, and so do these, each in its provider's own dialect, with
/// sources that overlap and differ. A new question that names sodium gets them ([`about_comparison`]).
pub const COMPARISON_QUESTION: &str =
    "How close is grid-scale sodium-ion storage to displacing lithium iron phosphate?";
pub const BIGDATA_COMPARISON: &str = "sodium-ion-research.sse";
pub const PERPLEXITY_COMPARISON: &str = "sodium-ion-sonar.sse";
pub const XAI_COMPARISON: &str = "sodium-ion-grok.sse";
pub const GEMINI_COMPARISON: &str = "sodium-ion-deep-research.sse";
pub const ANTHROPIC_COMPARISON: &str = "sodium-ion-claude.sse";
/// Zeta Alpha searches a tenant's own papers and notes: its sources are its own.
pub const ZETA_COMPARISON: &str = "sodium-ion-papers.sse";

/// `question` is the comparison question's topic.
pub fn about_comparison(question: &str) -> bool {
    question.to_lowercase().contains("sodium")
}

/// The names every recordings directory must provide.
pub const REQUIRED: [&str; 4] = [EARNINGS, SECTOR, FOLLOW_UP, WORKFLOW];

/// Other providers' recordings: a recordings directory may replace them; when it does not, the
/// built-in ones play.
pub const OPTIONAL: [&str; 20] = [
    ZETA_COMPARISON,
    BIGDATA_COMPARISON,
    PERPLEXITY_COMPARISON,
    XAI_COMPARISON,
    GEMINI_COMPARISON,
    ANTHROPIC_COMPARISON,
    XAI_RESEARCH,
    XAI_FOLLOW_UP,
    ZETA_RESEARCH,
    ZETA_FOLLOW_UP,
    OPENAI_RESEARCH,
    OPENAI_FOLLOW_UP,
    PERPLEXITY_RESEARCH,
    PERPLEXITY_FOLLOW_UP,
    GEMINI_RESEARCH,
    GEMINI_FOLLOW_UP,
    GEMINI_GROUNDED,
    ANTHROPIC_RESEARCH,
    ANTHROPIC_CONTINUED,
    ANTHROPIC_FOLLOW_UP,
];

const BUILTIN: [(&str, &str); 24] = [
    (
        ZETA_COMPARISON,
        include_str!("../../assets/recordings/zeta/sodium-ion-papers.sse"),
    ),
    (
        XAI_COMPARISON,
        include_str!("../../assets/recordings/xai/sodium-ion-grok.sse"),
    ),
    (
        GEMINI_COMPARISON,
        include_str!("../../assets/recordings/gemini/sodium-ion-deep-research.sse"),
    ),
    (
        ANTHROPIC_COMPARISON,
        include_str!("../../assets/recordings/anthropic/sodium-ion-claude.sse"),
    ),
    (
        BIGDATA_COMPARISON,
        include_str!("../../assets/recordings/bigdata/sodium-ion-research.sse"),
    ),
    (
        PERPLEXITY_COMPARISON,
        include_str!("../../assets/recordings/perplexity/sodium-ion-sonar.sse"),
    ),
    (
        EARNINGS,
        include_str!("../../assets/recordings/bigdata/earnings-deep-dive.sse"),
    ),
    (
        SECTOR,
        include_str!("../../assets/recordings/bigdata/sector-comparison.sse"),
    ),
    (
        FOLLOW_UP,
        include_str!("../../assets/recordings/bigdata/follow-up.sse"),
    ),
    (
        WORKFLOW,
        include_str!("../../assets/recordings/bigdata/workflow-earnings-brief.sse"),
    ),
    (
        XAI_RESEARCH,
        include_str!("../../assets/recordings/xai/solid-state-batteries.sse"),
    ),
    (
        XAI_FOLLOW_UP,
        include_str!("../../assets/recordings/xai/energy-density-follow-up.sse"),
    ),
    (
        ZETA_RESEARCH,
        include_str!("../../assets/recordings/zeta/rag-long-documents.sse"),
    ),
    (
        ZETA_FOLLOW_UP,
        include_str!("../../assets/recordings/zeta/scientific-pdfs-follow-up.sse"),
    ),
    (
        OPENAI_RESEARCH,
        include_str!("../../assets/recordings/openai/sodium-ion-grid-storage.sse"),
    ),
    (
        OPENAI_FOLLOW_UP,
        include_str!("../../assets/recordings/openai/sodium-ion-follow-up.sse"),
    ),
    (
        PERPLEXITY_RESEARCH,
        include_str!("../../assets/recordings/perplexity/eu-ai-act-gpai.sse"),
    ),
    (
        PERPLEXITY_FOLLOW_UP,
        include_str!("../../assets/recordings/perplexity/eu-ai-act-follow-up.sse"),
    ),
    (
        GEMINI_RESEARCH,
        include_str!("../../assets/recordings/gemini/tandem-solar-deep-research.sse"),
    ),
    (
        GEMINI_FOLLOW_UP,
        include_str!("../../assets/recordings/gemini/tandem-solar-follow-up.sse"),
    ),
    (
        GEMINI_GROUNDED,
        include_str!("../../assets/recordings/gemini/tandem-solar-grounded.sse"),
    ),
    (
        ANTHROPIC_RESEARCH,
        include_str!("../../assets/recordings/anthropic/congestion-pricing.sse"),
    ),
    (
        ANTHROPIC_CONTINUED,
        include_str!("../../assets/recordings/anthropic/congestion-pricing-continued.sse"),
    ),
    (
        ANTHROPIC_FOLLOW_UP,
        include_str!("../../assets/recordings/anthropic/congestion-pricing-follow-up.sse"),
    ),
];

/// A piece of a frame: bytes sent as they are, or one JSON payload sent as `data: {json}\n`.
#[derive(Debug, Clone)]
pub enum Part {
    Raw(Vec<u8>),
    Json(Value),
}

#[derive(Debug, Clone)]
pub struct PreparedFrame {
    /// The pause before this frame, at speed 1.
    pub delay_ms: u64,
    pub parts: Vec<Part>,
    /// Carries answer text: a Bigdata.com ANSWER, an xAI `response.output_text.delta`, a Zeta Alpha
    /// message with content (where the cut and stall faults strike).
    pub is_answer: bool,
}

pub type Recording = Arc<[PreparedFrame]>;

/// A recording's bytes, prepared the first time it is played: the demo plays one of them at start,
/// and preparing all of them first cost a third of the first frame's CPU.
#[derive(Debug)]
struct Lazy {
    bytes: Cow<'static, [u8]>,
    prepared: OnceLock<Recording>,
}

impl Lazy {
    fn new(bytes: impl Into<Cow<'static, [u8]>>) -> Arc<Self> {
        Arc::new(Self {
            bytes: bytes.into(),
            prepared: OnceLock::new(),
        })
    }

    fn get(&self) -> Recording {
        self.prepared.get_or_init(|| prepare(&self.bytes)).clone()
    }
}

/// The recordings by file name. Clones share them, and what each has prepared.
#[derive(Debug, Clone)]
pub struct Recordings {
    by_name: HashMap<String, Arc<Lazy>>,
}

impl Recordings {
    pub fn builtin() -> Self {
        let by_name = BUILTIN
            .iter()
            .map(|(name, text)| (name.to_string(), Lazy::new(text.as_bytes())))
            .collect();
        Self { by_name }
    }

    /// Every `*.sse` file in `dir`; the four [`REQUIRED`] names must be there.
    pub fn load(dir: &Path) -> io::Result<Self> {
        let mut by_name = HashMap::new();
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.extension().and_then(|e| e.to_str()) != Some("sse") || !path.is_file() {
                continue;
            }
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let bytes = std::fs::read(&path)?;
            by_name.insert(name.to_owned(), Lazy::new(bytes));
        }
        let missing: Vec<&str> = REQUIRED
            .iter()
            .copied()
            .filter(|name| !by_name.contains_key(*name))
            .collect();
        if !missing.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "{} lacks {} (a recordings directory needs {})",
                    dir.display(),
                    missing.join(", "),
                    REQUIRED.join(", ")
                ),
            ));
        }
        for (name, text) in BUILTIN {
            if OPTIONAL.contains(&name) && !by_name.contains_key(name) {
                by_name.insert(name.to_owned(), Lazy::new(text.as_bytes()));
            }
        }
        Ok(Self { by_name })
    }

    pub fn get(&self, name: &str) -> Recording {
        self.by_name
            .get(name)
            .map_or_else(|| Arc::from(Vec::new()), |lazy| lazy.get())
    }
}

/// Split a recording into frames and parse each `data:` payload that is a JSON object. Delay comments
/// are dropped (they are for us, not for clients); everything else is kept byte for byte. A payload
/// pretty-printed over several `data:` lines is re-sent compact on one line.
pub fn prepare(text: &[u8]) -> Recording {
    parse_frames(text)
        .into_iter()
        .map(|frame| {
            let parts = frame_parts(&frame.bytes);
            let is_answer = parts.iter().any(|part| match part {
                Part::Json(value) => carries_answer(value),
                Part::Raw(_) => false,
            });
            PreparedFrame {
                delay_ms: frame.delay_ms,
                parts,
                is_answer,
            }
        })
        .collect::<Vec<_>>()
        .into()
}

fn frame_parts(bytes: &[u8]) -> Vec<Part> {
    let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
    let content = |line: &[u8]| -> Vec<u8> {
        let mut line = line.to_vec();
        while matches!(line.last(), Some(b'\n' | b'\r')) {
            line.pop();
        }
        line
    };
    let data_value = |line: &[u8]| -> Option<Vec<u8>> {
        let line = content(line);
        let value = line.strip_prefix(b"data:")?;
        Some(value.strip_prefix(b" ").unwrap_or(value).to_vec())
    };
    let is_delay = |line: &[u8]| content(line).starts_with(b": delay=");

    let mut parts = Vec::new();
    let mut any_json = false;
    for line in &lines {
        if is_delay(line) {
            continue;
        }
        match data_value(line).and_then(|data| json_object(&data)) {
            Some(value) => {
                any_json = true;
                parts.push(Part::Json(value));
            }
            None => parts.push(Part::Raw(line.to_vec())),
        }
    }
    if any_json {
        return parts;
    }
    // One payload over several `data:` lines (plain SSE): join them as an SSE parser would.
    let data_lines: Vec<Vec<u8>> = lines.iter().filter_map(|l| data_value(l)).collect();
    if data_lines.len() < 2 {
        return parts;
    }
    let Some(value) = json_object(&data_lines.join(&b'\n')) else {
        return parts;
    };
    let mut joined = Vec::new();
    let mut placed = false;
    for line in &lines {
        if is_delay(line) {
            continue;
        }
        if data_value(line).is_some() {
            if !placed {
                joined.push(Part::Json(value.clone()));
                placed = true;
            }
        } else {
            joined.push(Part::Raw(line.to_vec()));
        }
    }
    joined
}

fn json_object(data: &[u8]) -> Option<Value> {
    match serde_json::from_slice(data) {
        Ok(value @ Value::Object(_)) => Some(value),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::provider::bigdata::message_type;

    #[test]
    fn builtin_recordings_have_answers_and_a_completion() {
        let recordings = Recordings::builtin();
        for name in REQUIRED {
            let frames = recordings.get(name);
            assert!(frames.iter().any(|f| f.is_answer), "{name} has no ANSWER");
            assert!(
                frames
                    .iter()
                    .any(|f| f.parts.iter().any(
                        |p| matches!(p, Part::Json(v) if message_type(v) == Some("COMPLETE"))
                    )),
                "{name} has no COMPLETE"
            );
        }
    }

    #[test]
    fn other_providers_recordings_have_answer_frames_and_keep_their_event_lines() {
        let recordings = Recordings::builtin();
        for name in OPTIONAL {
            let frames = recordings.get(name);
            assert!(frames.len() > 20, "{name}");
            assert!(frames.iter().any(|f| f.is_answer), "{name} has no answer");
            let plain = [
                PERPLEXITY_RESEARCH,
                PERPLEXITY_FOLLOW_UP,
                PERPLEXITY_COMPARISON,
                GEMINI_GROUNDED,
                BIGDATA_COMPARISON,
            ];
            if plain.contains(&name) {
                // Perplexity, Gemini's `streamGenerateContent` and Bigdata.com send plain `data:` lines.
                continue;
            }
            let first = &frames[0].parts;
            assert!(
                matches!(&first[0], Part::Raw(line) if line.starts_with(b"event: ")),
                "{name}: {first:?}"
            );
        }
    }

    #[test]
    fn delay_comments_are_dropped_and_multi_line_payloads_are_joined() {
        let text = b": delay=5\ndata: {\"chat_id\":\"c\",\n\
                     data: \"message\":{\"type\":\"ANSWER\",\"content\":\"x\"}}\n\n\
                     : keepalive\ndata: [DONE]\n\n";
        let frames = prepare(text);
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[0].delay_ms, 5);
        assert!(frames[0].is_answer);
        assert!(matches!(&frames[0].parts[0], Part::Json(_)));
        assert!(matches!(&frames[0].parts[1], Part::Raw(b) if b == b"\n"));
        assert!(!frames[1].is_answer);
        let raw: Vec<u8> = frames[1]
            .parts
            .iter()
            .flat_map(|p| match p {
                Part::Raw(b) => b.clone(),
                Part::Json(_) => unreachable!(),
            })
            .collect();
        assert_eq!(raw, b": keepalive\ndata: [DONE]\n\n");
    }
}
