//! The demo agent is honest about what it plays: a question none of its recordings is about gets
//! its recorded answer all the same, opened by a note that says so (`Demo agent: no recording
//! answers this question …`). The note is part of the answer text, so it is shown, saved and
//! exported with it; the offsets of the citations that follow are moved past it.

use serde_json::{Map, Value};

use super::recordings;

/// Each recording's own question, and what it is about: a question that names none of these words
/// is not its question.
const TOPICS: [(&str, &str, &[&str]); 7] = [
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
}

impl Note {
    pub fn new(text: String) -> Note {
        Note {
            len: text.chars().count() as u64,
            text,
            placed: false,
            message: None,
        }
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
        // xAI: the first text delta, every finished text part, every citation's offsets.
        if envelope.get("type").and_then(Value::as_str) == Some("response.output_text.delta")
            && !self.placed
        {
            self.placed = prefix(envelope.get_mut("delta"), &self.text);
            return;
        }
        self.walk_xai(payload);
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
