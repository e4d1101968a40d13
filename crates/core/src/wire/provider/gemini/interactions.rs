//! Interactions API events (the Deep Research agent), in both of the API's streaming shapes, read
//! alike: step events (`step.start {index, step}`, `step.delta {index, delta}`, `step.stop`) and
//! the older content events (`content.start {index, content}`, `content.delta`, `content.stop`).
//!
//! - `interaction.created` / `interaction.start` name the interaction (the conversation's id);
//!   `interaction.completed` / `interaction.complete` end it by its `status` (`completed` completes
//!   with the id as the checkpoint a follow-up sends as `previous_interaction_id`; `cancelled` is a
//!   cancellation; `failed`, `incomplete`, … an error), as does a terminal
//!   `interaction.status_update`. An `error` event is an error.
//! - A block (one `index`) of text is answer text; blocks are joined by a blank line. A
//!   `thought_summary` delta, or any text of a `thought` step, is thinking.
//! - `google_search_call` (`arguments.queries`) and `url_context_call` (`arguments.urls`) are tool
//!   calls, one per query or URL, shown as soon as they are known; a `url_context_result` lists
//!   pages read (consulted sources), a failed one a tool error.
//! - `text_annotation_delta` `url_citation`s cite `[start_index, end_index)` of their block's text,
//!   measured in UTF-8 bytes (the SDK types: "Index indicates the start of the segment, measured in
//!   bytes"; see docs/providers.md, Wire notes); held until the block's text reaches them, then converted to
//!   code points of the whole answer. One without offsets cites its page without a position.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::{code_points, string, web_source};
use crate::model::event::{AgentEvent, Consumption, ConversationIds, Reference, SourceDoc};

/// One `index` of the interaction's output.
#[derive(Debug, Default)]
struct Block {
    /// A `thought` step: its text is thinking.
    thought: bool,
    /// Its answer text so far (the annotation offsets count its bytes).
    text: String,
    /// Where its text starts in the answer (code points); set with its first text.
    start: Option<u64>,
    /// Citations waiting for their text.
    pending: Vec<Citation>,
}

#[derive(Debug, Clone)]
struct Citation {
    start: Option<u64>,
    end: Option<u64>,
    doc: SourceDoc,
}

#[derive(Debug, Default)]
pub(super) struct Interactions {
    id: Option<String>,
    blocks: HashMap<u64, Block>,
    /// Code points of answer text so far.
    answer_len: u64,
    /// Tool calls shown, by (kind, query or URL).
    called: HashSet<(String, String)>,
    /// `(start, end, url)` already cited.
    cited: HashSet<(Option<u64>, Option<u64>, String)>,
    consulted: HashSet<String>,
    usage: Option<Value>,
    ended: bool,
}

impl Interactions {
    pub fn decode(&mut self, kind: &str, event: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let index = event.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "interaction.created" | "interaction.start" => self.started(event, out),
            "interaction.completed" | "interaction.complete" => {
                let interaction = event.get("interaction");
                if let Some(usage) = interaction.and_then(|i| i.get("usage")) {
                    self.usage = Some(usage.clone());
                }
                let status = interaction
                    .and_then(|i| i.get("status"))
                    .and_then(Value::as_str)
                    .unwrap_or("completed");
                self.ended_with(status, interaction, out);
            }
            "interaction.status_update" => {
                let status = event.get("status").and_then(Value::as_str).unwrap_or("");
                if status != "completed" && is_terminal(status) {
                    self.ended_with(status, None, out);
                }
            }
            "step.start" | "content.start" => {
                let item = event.get("step").or_else(|| event.get("content"));
                if let Some(item) = item.and_then(Value::as_object) {
                    self.start_block(index, item, out);
                }
            }
            "step.delta" | "content.delta" => {
                if let Some(delta) = event.get("delta").and_then(Value::as_object) {
                    self.delta(index, delta, out);
                }
            }
            "step.stop" | "content.stop" => self.settle(index, true, out),
            "error" => {
                let error = event.get("error");
                let message = error
                    .and_then(|e| e.get("message"))
                    .and_then(Value::as_str)
                    .map_or_else(
                        || error.map_or_else(|| "error".to_owned(), Value::to_string),
                        str::to_owned,
                    );
                out.push(AgentEvent::Error { message });
            }
            other => out.push(AgentEvent::Unknown {
                kind: other.to_owned(),
            }),
        }
    }

    pub fn finish(&mut self, out: &mut Vec<AgentEvent>) {
        let mut indices: Vec<u64> = self.blocks.keys().copied().collect();
        indices.sort_unstable();
        for index in indices {
            self.settle(index, true, out);
        }
    }

    fn started(&mut self, event: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let id = event
            .get("interaction")
            .and_then(Value::as_object)
            .and_then(|i| string(i, "id"));
        if let Some(id) = id
            && self.id.is_none()
        {
            self.id = Some(id.clone());
            out.push(AgentEvent::Conversation(ConversationIds {
                chat_id: Some(id),
                ..ConversationIds::default()
            }));
        }
    }

    /// A step (or content block) begins: what it already holds is read like its deltas.
    fn start_block(&mut self, index: u64, item: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
        let block = self.blocks.entry(index).or_default();
        block.thought = kind == "thought";
        match kind {
            "thought" => {
                for summary in list(item, "summary") {
                    self.thinking(summary, out);
                }
            }
            "model_output" => {
                for content in list(item, "content") {
                    if let Some(content) = content.as_object() {
                        self.delta(index, content, out);
                    }
                }
            }
            _ => self.delta(index, item, out),
        }
    }

    fn delta(&mut self, index: u64, delta: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let kind = delta
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match kind {
            "text" => {
                let text = delta
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if self.blocks.get(&index).is_some_and(|b| b.thought) {
                    self.thinking(&Value::from(text), out);
                } else {
                    self.answer(index, text, out);
                }
                for annotation in list(delta, "annotations") {
                    self.annotate(index, annotation);
                }
                self.settle(index, false, out);
            }
            "thought_summary" => {
                if let Some(content) = delta.get("content") {
                    self.thinking(content, out);
                }
            }
            "text_annotation_delta" | "text_annotation" => {
                for annotation in list(delta, "annotations") {
                    self.annotate(index, annotation);
                }
                self.settle(index, false, out);
            }
            "google_search_call" => {
                for query in strings(delta.get("arguments"), "queries") {
                    self.call("google_search", "query", query, out);
                }
            }
            "url_context_call" => {
                for url in strings(delta.get("arguments"), "urls") {
                    self.call("url_context", "url", url, out);
                }
            }
            "url_context_result" => self.pages_read(delta, out),
            "google_search_result"
                if delta.get("is_error").and_then(Value::as_bool) == Some(true) =>
            {
                out.push(AgentEvent::ToolError {
                    tool_name: "google_search".into(),
                    error: "the search failed".into(),
                });
            }
            // Signatures and the other tools' steps say nothing a reader needs.
            _ => {}
        }
    }

    fn answer(&mut self, index: u64, text: &str, out: &mut Vec<AgentEvent>) {
        if text.is_empty() {
            return;
        }
        let block = self.blocks.entry(index).or_default();
        if block.start.is_none() {
            // A new block of answer text after an earlier one: a paragraph of its own.
            if self.answer_len > 0 {
                out.push(AgentEvent::AnswerDelta {
                    message_id: self.id.clone(),
                    text: "\n\n".into(),
                });
                self.answer_len += 2;
            }
            block.start = Some(self.answer_len);
        }
        block.text.push_str(text);
        self.answer_len += text.chars().count() as u64;
        out.push(AgentEvent::AnswerDelta {
            message_id: self.id.clone(),
            text: text.to_owned(),
        });
    }

    /// A thought summary: `{type: text, text}` content, or a plain string.
    fn thinking(&mut self, content: &Value, out: &mut Vec<AgentEvent>) {
        let text = content
            .as_str()
            .or_else(|| content.get("text").and_then(Value::as_str))
            .unwrap_or_default();
        if !text.is_empty() {
            out.push(AgentEvent::Thinking {
                message_id: self.id.clone(),
                role: None,
                text: text.to_owned(),
            });
        }
    }

    fn call(&mut self, tool: &str, key: &str, value: &str, out: &mut Vec<AgentEvent>) {
        if value.is_empty() || !self.called.insert((tool.to_owned(), value.to_owned())) {
            return;
        }
        out.push(AgentEvent::ToolCall {
            role: None,
            tool_name: tool.to_owned(),
            arguments: json!({ key: value }),
        });
    }

    fn pages_read(&mut self, delta: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let mut read = Vec::new();
        for result in list(delta, "result") {
            let Some(url) = result
                .get("url")
                .and_then(Value::as_str)
                .filter(|u| !u.is_empty())
            else {
                continue;
            };
            let status = result
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("success");
            if status != "success" {
                out.push(AgentEvent::ToolError {
                    tool_name: "url_context".into(),
                    error: format!("{url}: {status}"),
                });
            } else if self.consulted.insert(url.to_owned()) {
                read.push(web_source(url, None));
            }
        }
        if !read.is_empty() {
            out.push(AgentEvent::Consulted(read));
        }
    }

    fn annotate(&mut self, index: u64, annotation: &Value) {
        if annotation.get("type").and_then(Value::as_str) != Some("url_citation") {
            return;
        }
        let Some(url) = annotation
            .get("url")
            .and_then(Value::as_str)
            .filter(|u| !u.is_empty())
        else {
            return;
        };
        let title = annotation.get("title").and_then(Value::as_str);
        let start = annotation.get("start_index").and_then(Value::as_u64);
        let end = annotation.get("end_index").and_then(Value::as_u64);
        if !self.cited.insert((start, end, url.to_owned())) {
            return;
        }
        let citation = Citation {
            start,
            end,
            doc: web_source(url, title),
        };
        self.blocks.entry(index).or_default().pending.push(citation);
    }

    /// Send the block's citations whose text has arrived (all of them when it is `over`: what
    /// its text never reached is an invalid reference).
    fn settle(&mut self, index: u64, over: bool, out: &mut Vec<AgentEvent>) {
        let Some(block) = self.blocks.get_mut(&index) else {
            return;
        };
        let text_len = block.text.len() as u64;
        let (ready, waiting): (Vec<Citation>, Vec<Citation>) = block
            .pending
            .drain(..)
            .partition(|c| over || c.start.is_none() || c.end.is_some_and(|end| end <= text_len));
        block.pending = waiting;
        let references: Vec<Reference> = ready
            .into_iter()
            .map(|citation| {
                let placed = citation.start.zip(citation.end);
                let span = placed.and_then(|(start, end)| {
                    let base = block.start?;
                    let start = code_points(&block.text, start)?;
                    let end = code_points(&block.text, end)?;
                    (start <= end).then_some((base + start, base + end))
                });
                Reference {
                    start: span.map(|(s, _)| s),
                    end: span.map(|(_, e)| e),
                    tool_name: Some("google_search".into()),
                    source: Some(citation.doc),
                    unplaced: placed.is_none(),
                    ..Reference::default()
                }
            })
            .collect();
        if !references.is_empty() {
            out.push(AgentEvent::Grounding(references));
        }
    }

    fn ended_with(&mut self, status: &str, interaction: Option<&Value>, out: &mut Vec<AgentEvent>) {
        if self.ended {
            return;
        }
        self.ended = true;
        self.finish(out);
        match status {
            "completed" => {
                let id = interaction
                    .and_then(|i| i.get("id"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .or_else(|| self.id.clone());
                out.push(AgentEvent::Complete {
                    checkpoint_id: id,
                    consumption: self.consumption(),
                });
            }
            "cancelled" => out.push(AgentEvent::Cancelled {
                reason: status.to_owned(),
            }),
            other => {
                let why = interaction
                    .and_then(|i| i.pointer("/error/message"))
                    .and_then(Value::as_str)
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default();
                out.push(AgentEvent::Error {
                    message: format!("the interaction ended {other}{why}"),
                });
            }
        }
    }

    fn consumption(&self) -> Vec<Consumption> {
        let Some(usage) = &self.usage else {
            return Vec::new();
        };
        let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        vec![Consumption {
            kind: "deep-research".into(),
            input_tokens: count("total_input_tokens"),
            output_tokens: count("total_output_tokens") + count("total_thought_tokens"),
            cached_tokens: count("total_cached_tokens"),
            raw: usage.clone(),
        }]
    }
}

fn is_terminal(status: &str) -> bool {
    !matches!(status, "in_progress" | "queued" | "requires_action" | "")
}

fn list<'a>(object: &'a Map<String, Value>, key: &str) -> &'a [Value] {
    object
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn strings<'a>(arguments: Option<&'a Value>, key: &str) -> impl Iterator<Item = &'a str> {
    arguments
        .and_then(|a| a.get(key))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_str)
}
