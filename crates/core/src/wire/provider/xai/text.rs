//! Responses API answer text: each `output_text` part of each `message` item, keyed by item id and
//! content index, joined in order of first appearance with a blank line. Deltas append; a final
//! text that differs from what streamed replaces it (the whole answer and every citation are then
//! sent again), so a part is never shown twice.

use serde_json::{Map, Value};

use super::{PartKey, XaiDialect};
use crate::model::event::AgentEvent;

/// Between two output texts in the answer.
const SEPARATOR: &str = "\n\n";

/// One output text and where it starts in the answer.
#[derive(Debug, Default)]
pub(super) struct Part {
    /// Code point offset of the part in the whole answer.
    pub start: usize,
    pub text: String,
    /// Length in code points.
    pub len: usize,
    /// Its final text arrived.
    pub done: bool,
}

impl XaiDialect {
    /// Code points of answer text so far.
    fn answer_len(&self) -> usize {
        self.parts.last().map_or(0, |last| last.start + last.len)
    }

    /// Append streamed text to a part (a new part starts a new paragraph of the answer).
    pub(super) fn push_text(&mut self, key: PartKey, delta: &str, out: &mut Vec<AgentEvent>) {
        if delta.is_empty() {
            return;
        }
        let message_id = Some(key.0.clone());
        let index = match self.part_of.get(&key) {
            Some(&index) => index,
            None => {
                let mut start = self.answer_len();
                if start > 0 {
                    out.push(AgentEvent::AnswerDelta {
                        message_id: message_id.clone(),
                        text: SEPARATOR.into(),
                    });
                    start += SEPARATOR.len();
                }
                self.parts.push(Part {
                    start,
                    ..Part::default()
                });
                self.part_of.insert(key, self.parts.len() - 1);
                self.parts.len() - 1
            }
        };
        let part = &mut self.parts[index];
        part.text.push_str(delta);
        part.len += delta.chars().count();
        out.push(AgentEvent::AnswerDelta {
            message_id,
            text: delta.to_owned(),
        });
    }

    /// A part's final text: taken whole if nothing streamed, replacing the streamed text only if
    /// it differs.
    pub(super) fn final_text(&mut self, key: PartKey, text: &str, out: &mut Vec<AgentEvent>) {
        let Some(&index) = self.part_of.get(&key) else {
            self.push_text(key.clone(), text, out);
            if let Some(&index) = self.part_of.get(&key) {
                self.parts[index].done = true;
            }
            return;
        };
        self.parts[index].done = true;
        if self.parts[index].text == text {
            return;
        }
        self.parts[index].text = text.to_owned();
        self.parts[index].len = text.chars().count();
        let mut start = self.parts[index].start;
        for part in &mut self.parts[index..] {
            part.start = start;
            start += part.len + SEPARATOR.len();
        }
        let answer: Vec<&str> = self.parts.iter().map(|p| p.text.as_str()).collect();
        out.push(AgentEvent::AnswerReplace {
            text: answer.join(SEPARATOR),
        });
        self.resend_citations(out);
    }

    /// `content_part.done`, or one entry of a message item's `content`: final text and annotations.
    pub(super) fn final_part(&mut self, key: PartKey, part: &Value, out: &mut Vec<AgentEvent>) {
        if part.get("type").and_then(Value::as_str) != Some("output_text") {
            return;
        }
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            self.final_text(key.clone(), text, out);
        }
        if let Some(annotations) = part.get("annotations").and_then(Value::as_array) {
            for annotation in annotations {
                self.annotation(key.clone(), annotation, out);
            }
        }
        self.flush_pending(Some(&key), false, out);
    }

    /// A `message` item was added: later events may name it by its `output_index` alone.
    pub(super) fn message_added(&mut self, output_index: u64, item: &Map<String, Value>) {
        if let Some(id) = super::string(item, "id") {
            self.item_at.insert(output_index, id);
        }
    }

    /// A finished `message` item (`output_item.done` or in `response.completed`): each content part
    /// is matched by the item's `id` and its position in `content`.
    pub(super) fn message_done(
        &mut self,
        output_index: Option<u64>,
        item: &Map<String, Value>,
        out: &mut Vec<AgentEvent>,
    ) {
        let Some(id) = super::string(item, "id").or_else(|| {
            let index = output_index?;
            Some(
                self.item_at
                    .get(&index)
                    .cloned()
                    .unwrap_or_else(|| format!("#{index}")),
            )
        }) else {
            return;
        };
        let Some(content) = item.get("content").and_then(Value::as_array) else {
            return;
        };
        for (content_index, part) in content.iter().enumerate() {
            self.final_part((id.clone(), content_index as u64), part, out);
        }
    }
}
