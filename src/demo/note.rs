//! The demo agent is honest about what it plays: a question none of its recordings is about gets
//! its recorded answer all the same, opened by a note that says so (`Demo agent: no recording
//! answers this question …`). The note is part of the answer text, so it is shown, saved and
//! exported with it; the offsets of the citations that follow are moved past it.

use serde_json::{Map, Value};

use super::recordings;

/// Each recording's own question, and what it is about: a question that names none of these words
/// is not its question.
const TOPICS: [(&str, &str, &[&str]); 16] = [
    (
        recordings::EARNINGS,
        "Give me a deep dive on NVIDIA's latest quarterly earnings",
        &["nvidia", "nvda", "earnings", "quarter", "results", "report"],
    ),
    (
        recordings::SECTOR,
        "Compare the big semiconductor-equipment makers on growth, China exposure and valuation",
        &[
            "asml",
            "applied",
            "lam",
            "tokyo electron",
            "semiconductor",
            "equipment",
            "sector",
        ],
    ),
    (
        recordings::FOLLOW_UP,
        "How does that compare with AMD's data-center guidance?",
        &[
            "amd",
            "nvidia",
            "data-center",
            "data center",
            "guidance",
            "compare",
        ],
    ),
    (
        recordings::XAI_RESEARCH,
        "Which solid-state battery makers are closest to mass production?",
        &["solid-state", "solid state", "batter"],
    ),
    (
        recordings::XAI_FOLLOW_UP,
        "How do their energy densities compare with today's best lithium-ion cells?",
        &["energy densit", "energy-densit", "lithium", "wh/"],
    ),
    (
        recordings::ZETA_RESEARCH,
        "What do recent papers say about retrieval-augmented generation for long documents?",
        &[
            "retrieval",
            "rag",
            "long document",
            "long-document",
            "long context",
        ],
    ),
    (
        recordings::ZETA_FOLLOW_UP,
        "How do these methods handle scientific PDFs with tables?",
        &["pdf", "table", "scientific"],
    ),
    (
        recordings::OPENAI_RESEARCH,
        "How close is grid-scale sodium-ion storage to displacing lithium iron phosphate?",
        SODIUM_ION,
    ),
    (
        recordings::OPENAI_FOLLOW_UP,
        "What would have to happen for sodium-ion to overtake LFP in new projects?",
        SODIUM_ION,
    ),
    (
        recordings::PERPLEXITY_RESEARCH,
        "What changed in the EU AI Act's obligations for general-purpose AI models in 2025?",
        AI_ACT,
    ),
    (
        recordings::PERPLEXITY_FOLLOW_UP,
        "And what are the fines for GPAI providers?",
        AI_ACT,
    ),
    // The recordings' own questions say "perovskite–silicon": quoted with a hyphen, so the note
    // stays ASCII (Gemini counts bytes, the others code points).
    (
        recordings::GEMINI_RESEARCH,
        "How far has perovskite-silicon tandem solar come toward mass production?",
        TANDEM_SOLAR,
    ),
    (
        recordings::GEMINI_FOLLOW_UP,
        "What would have to happen for tandems to reach gigawatt factories?",
        TANDEM_SOLAR,
    ),
    (
        recordings::GEMINI_GROUNDED,
        "Is perovskite-silicon tandem solar in mass production yet?",
        TANDEM_SOLAR,
    ),
    (
        recordings::ANTHROPIC_RESEARCH,
        "Which cities have rolled out congestion pricing since London, and what happened to traffic?",
        CONGESTION,
    ),
    (
        recordings::ANTHROPIC_FOLLOW_UP,
        "How has New York's scheme done so far?",
        CONGESTION,
    ),
];

// Not "batter": a question on solid-state batteries is not this recording's (a comparison asked
// it of every agent, and OpenAI's answered on sodium-ion without a note).
const SODIUM_ION: &[&str] = &["sodium", "lfp", "lithium iron", "grid", "storage"];
const AI_ACT: &[&str] = &[
    "ai act",
    "gpai",
    "general-purpose",
    "general purpose",
    "fine",
    "eu ",
];
const TANDEM_SOLAR: &[&str] = &["perovskite", "tandem", "solar", "gigawatt", "photovolt"];
const CONGESTION: &[&str] = &[
    "congestion",
    "pricing",
    "toll",
    "traffic",
    "new york",
    "london",
];

/// The note that opens `recording`'s answer to `question`, when the recording is not about it.
pub fn for_question(recording: &str, question: &str) -> Option<Note> {
    let (_, prompt, topics) = TOPICS.iter().find(|(name, _, _)| *name == recording)?;
    let question = question.to_lowercase();
    if topics.iter().any(|topic| question.contains(topic)) {
        return None;
    }
    // ASCII only: a note's length in code points, bytes and UTF-16 units is the same.
    Some(Note::new(format!(
        "*Demo agent: no recording answers this question. What follows is the recorded answer to \
         \"{prompt}\" (recorded, synthetic data).*\n\n"
    )))
}

/// A note being put in front of one response's answer.
#[derive(Debug)]
pub struct Note {
    text: String,
    /// Its length (code points).
    len: u64,
    /// The answer text that gets it (Bigdata.com's first ANSWER, xAI's first delta) is sent.
    placed: bool,
    /// Zeta Alpha: the message whose content carries it.
    message: Option<String>,
    /// Gemini, Anthropic: the block whose text carries it (its annotations move, no other's).
    block: Option<u64>,
    /// Perplexity: the content before the note's place, while it may still be in `<think>`.
    before: String,
}

impl Note {
    pub fn new(text: String) -> Note {
        Note {
            len: text.chars().count() as u64,
            text,
            placed: false,
            message: None,
            block: None,
            before: String::new(),
        }
    }

    /// The note as it stands after `frames` were sent: a stream resumed after them goes on where
    /// they left it (its text is not placed twice, the block that got it is known).
    pub fn after(mut self, frames: &[super::recordings::PreparedFrame]) -> Note {
        for frame in frames {
            for part in &frame.parts {
                if let super::recordings::Part::Json(value) = part {
                    self.apply(&mut value.clone());
                }
            }
        }
        self
    }

    /// Put the note into one payload of the response, and move the offsets it shifts.
    pub fn apply(&mut self, payload: &mut Value) {
        let Value::Object(envelope) = payload else {
            return;
        };
        // Bigdata.com (research): `{"message": {"type": "ANSWER" | "GROUNDING" | "CHART", …}}`.
        if let Some(Value::Object(message)) = envelope.get_mut("message") {
            match message.get("type").and_then(Value::as_str) {
                Some("ANSWER") if !self.placed => {
                    self.placed = prefix(message.get_mut("content"), &self.text);
                }
                Some("GROUNDING") => {
                    if let Some(Value::Array(references)) = message.get_mut("references") {
                        for reference in references {
                            if let Value::Object(reference) = reference {
                                shift(reference, &["start", "end"], self.len);
                            }
                        }
                    }
                }
                Some("CHART") => shift(message, &["start", "end"], self.len),
                _ => {}
            }
            return;
        }
        // Zeta Alpha: every `new_message` carries the whole content so far.
        if envelope.get("sender").and_then(Value::as_str) == Some("bot") {
            let id = envelope
                .get("message_id")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let has_text = envelope
                .get("content")
                .and_then(Value::as_str)
                .is_some_and(|c| !c.is_empty());
            if has_text && (self.message.is_none() || self.message == id) {
                self.message = id;
                prefix(envelope.get_mut("content"), &self.text);
            }
            return;
        }
        if envelope.contains_key("event_type") {
            return self.gemini_step(envelope);
        }
        if envelope.contains_key("candidates") {
            return self.gemini_generated(envelope);
        }
        if envelope.contains_key("choices") {
            return self.perplexity(envelope);
        }
        match envelope.get("type").and_then(Value::as_str) {
            Some("content_block_start" | "content_block_delta") => self.anthropic(envelope),
            // xAI and OpenAI: the first text delta, the text when done, every finished text part,
            // every citation's offsets.
            Some("response.output_text.delta") if !self.placed => {
                self.placed = prefix(envelope.get_mut("delta"), &self.text);
            }
            Some("response.output_text.done") => {
                prefix(envelope.get_mut("text"), &self.text);
            }
            Some(kind) if kind.starts_with("response.") => self.walk_xai(payload),
            _ => {}
        }
    }

    /// Gemini's interactions: the first text delta's block opens with it; that block's citations
    /// move (each block's offsets count its own text's bytes).
    fn gemini_step(&mut self, envelope: &mut Map<String, Value>) {
        let index = envelope.get("index").and_then(Value::as_u64);
        let Some(Value::Object(delta)) = envelope.get_mut("delta") else {
            return;
        };
        match delta.get("type").and_then(Value::as_str) {
            Some("text") if !self.placed => {
                self.placed = prefix(delta.get_mut("text"), &self.text);
                self.block = index;
            }
            Some("text_annotation_delta") if self.placed && index == self.block => {
                if let Some(Value::Array(annotations)) = delta.get_mut("annotations") {
                    for annotation in annotations {
                        if let Value::Object(annotation) = annotation {
                            shift(annotation, &["start_index", "end_index"], self.len);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Gemini's grounded answer: the first text part that is not a thought; every grounding
    /// segment's offsets (bytes of the whole answer).
    fn gemini_generated(&mut self, envelope: &mut Map<String, Value>) {
        let Some(Value::Array(candidates)) = envelope.get_mut("candidates") else {
            return;
        };
        for candidate in candidates.iter_mut().filter_map(Value::as_object_mut) {
            if !self.placed
                && let Some(Value::Array(parts)) = candidate
                    .get_mut("content")
                    .and_then(|content| content.get_mut("parts"))
            {
                let answer = parts.iter_mut().find(|part| {
                    part.get("text").is_some() && part.get("thought") != Some(&Value::Bool(true))
                });
                if let Some(Value::Object(part)) = answer {
                    self.placed = prefix(part.get_mut("text"), &self.text);
                }
            }
            let supports = candidate
                .get_mut("groundingMetadata")
                .and_then(|metadata| metadata.get_mut("groundingSupports"));
            if let Some(Value::Array(supports)) = supports {
                for support in supports {
                    if let Some(Value::Object(segment)) = support.get_mut("segment") {
                        shift(segment, &["startIndex", "endIndex"], self.len);
                    }
                }
            }
        }
    }

    /// Perplexity: the answer's first content, after the `<think>` block a reasoning model opens
    /// with (its `[n]` markers are in the text: nothing moves).
    fn perplexity(&mut self, envelope: &mut Map<String, Value>) {
        if self.placed {
            return;
        }
        let content = envelope
            .get_mut("choices")
            .and_then(|choices| choices.get_mut(0))
            .and_then(|choice| choice.get_mut("delta"))
            .and_then(|delta| delta.get_mut("content"));
        let Some(Value::String(content)) = content else {
            return;
        };
        if content.is_empty() {
            return;
        }
        let seen = self.before.len();
        self.before.push_str(content);
        let thinking = self.before.trim_start().starts_with("<think>")
            || "<think>".starts_with(self.before.trim_start());
        let at = if !thinking {
            Some(0)
        } else {
            self.before
                .find("</think>")
                .map(|end| (end + "</think>".len()).saturating_sub(seen))
                .filter(|at| *at <= content.len())
        };
        if let Some(at) = at {
            content.insert_str(at, &self.text);
            self.placed = true;
            self.before = String::new();
        }
    }

    /// Anthropic: the first text of a block that cites nothing (a cited block's citations cover
    /// all of its text); only when no answer text came before it.
    fn anthropic(&mut self, envelope: &mut Map<String, Value>) {
        let index = envelope.get("index").and_then(Value::as_u64);
        if let Some(Value::Object(block)) = envelope.get("content_block") {
            if block.get("type").and_then(Value::as_str) == Some("text") && self.block.is_none() {
                // The first text block: the note goes in it only if it cites nothing.
                self.block = index;
                self.placed = block.contains_key("citations");
            }
            return;
        }
        let Some(Value::Object(delta)) = envelope.get_mut("delta") else {
            return;
        };
        if !self.placed
            && index == self.block
            && delta.get("type").and_then(Value::as_str) == Some("text_delta")
        {
            self.placed = prefix(delta.get_mut("text"), &self.text);
        }
    }

    fn walk_xai(&self, value: &mut Value) {
        match value {
            Value::Object(object) => {
                match object.get("type").and_then(Value::as_str) {
                    Some("output_text") => {
                        prefix(object.get_mut("text"), &self.text);
                    }
                    Some("url_citation") => {
                        shift(object, &["start_index", "end_index"], self.len);
                        return;
                    }
                    _ => {}
                }
                for child in object.values_mut() {
                    self.walk_xai(child);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.walk_xai(item)),
            _ => {}
        }
    }
}

/// Put `note` in front of a string value; whether there was one.
fn prefix(value: Option<&mut Value>, note: &str) -> bool {
    match value {
        Some(Value::String(text)) => {
            text.insert_str(0, note);
            true
        }
        _ => false,
    }
}

/// Move the number fields `keys` of `object` by `by`.
fn shift(object: &mut Map<String, Value>, keys: &[&str], by: u64) {
    for key in keys {
        if let Some(n) = object.get(*key).and_then(Value::as_u64) {
            object.insert((*key).to_owned(), Value::from(n + by));
        }
    }
}
