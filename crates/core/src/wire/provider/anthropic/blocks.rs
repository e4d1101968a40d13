//! One message's content blocks as they stream: each is shown as it arrives (answer text, thinking,
//! a tool call once its input is whole, the sources a tool result lists) and rebuilt as the API
//! sent it, for the transcript a follow-up sends back. Where the answer stands (in code points) is
//! kept across messages, so a paused turn's continuation carries on the same answer.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::citations::Citations;
use crate::model::event::{AgentEvent, AuditTrace, SourceDoc};
use crate::wire::provider::url_host;

/// The most of a tool's streamed input kept (a search query, a URL: a few hundred bytes).
const MAX_INPUT_JSON: usize = 1 << 20;

#[derive(Debug, Default)]
pub(super) struct Blocks {
    message_id: Option<String>,
    /// Blocks started and not stopped, by index.
    open: BTreeMap<u64, Block>,
    /// Blocks of this message that stopped, by index.
    done: BTreeMap<u64, Value>,
    answer: Position,
    citations: Citations,
    /// Tool use id → the call: its tool's name, and its query once known.
    tools: BTreeMap<String, (String, Option<String>)>,
}

/// Where the answer stands.
#[derive(Debug, Default)]
struct Position {
    /// Code points so far.
    chars: u64,
    /// The answer ends with whitespace (or is empty).
    settled: bool,
    /// A tool block came after the last text block.
    tool_since_text: bool,
}

#[derive(Debug)]
struct Block {
    /// The block as the API sent it, its deltas applied.
    value: Value,
    /// A tool's input as streamed so far (`input_json_delta`).
    input: String,
    /// A text block's first code point in the answer, and its length.
    start: u64,
    chars: u64,
    /// A text block's citations.
    cites: Vec<Value>,
}

impl Blocks {
    /// A new message starts: its blocks are numbered from 0 again.
    pub fn new_message(&mut self, message_id: Option<String>) {
        self.message_id = message_id;
        self.open.clear();
        self.done.clear();
    }

    pub fn start(&mut self, object: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let (Some(index), Some(value)) = (index(object), object.get("content_block")) else {
            out.push(AgentEvent::Malformed {
                reason: "content_block_start without index or content_block".into(),
            });
            return;
        };
        let mut block = Block {
            value: value.clone(),
            input: String::new(),
            start: 0,
            chars: 0,
            cites: Vec::new(),
        };
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "text" => {
                block.start = self.answer.chars;
                self.text(&mut block, str_of(value, "text"), out);
                if let Some(cites) = value.get("citations").and_then(Value::as_array) {
                    block.cites.extend(cites.iter().cloned());
                }
            }
            "thinking" => self.think(index, str_of(value, "thinking"), out),
            "redacted_thinking" => {
                self.think(index, "(thinking the provider keeps encrypted)", out);
            }
            "server_tool_use" | "tool_use" => {
                self.answer.tool_since_text = true;
                let id = str_of(value, "id");
                let name = str_of(value, "name");
                self.tools.insert(id.to_owned(), (name.to_owned(), None));
            }
            "web_search_tool_result" | "web_fetch_tool_result" => {
                self.answer.tool_since_text = true;
                self.tool_result(kind, value, out);
            }
            other => out.push(AgentEvent::Unknown {
                kind: format!("content block {other}"),
            }),
        }
        self.open.insert(index, block);
    }

    pub fn delta(&mut self, object: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let delta = object.get("delta");
        let kind = delta
            .and_then(|d| d.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let Some(index) = index(object).filter(|i| self.open.contains_key(i)) else {
            out.push(AgentEvent::Unknown {
                kind: format!("{kind} outside a content block"),
            });
            return;
        };
        let delta = delta.cloned().unwrap_or_default();
        match kind {
            "text_delta" => {
                let mut block = self.open.remove(&index).expect("checked above");
                let text = str_of(&delta, "text");
                self.text(&mut block, text, out);
                push_str(&mut block.value, "text", text);
                self.open.insert(index, block);
            }
            "citations_delta" => {
                let block = self.open.get_mut(&index).expect("checked above");
                if let Some(citation) = delta.get("citation") {
                    block.cites.push(citation.clone());
                    push_to_list(&mut block.value, "citations", citation.clone());
                }
            }
            "thinking_delta" => {
                let text = str_of(&delta, "thinking");
                self.think(index, text, out);
                let block = self.open.get_mut(&index).expect("checked above");
                push_str(&mut block.value, "thinking", text);
            }
            "signature_delta" => {
                let block = self.open.get_mut(&index).expect("checked above");
                if let Some(object) = block.value.as_object_mut() {
                    object.insert("signature".into(), json!(str_of(&delta, "signature")));
                }
            }
            "input_json_delta" => {
                let block = self.open.get_mut(&index).expect("checked above");
                let part = str_of(&delta, "partial_json");
                if block.input.len() + part.len() <= MAX_INPUT_JSON {
                    block.input.push_str(part);
                }
            }
            other => out.push(AgentEvent::Unknown {
                kind: other.to_owned(),
            }),
        }
    }

    pub fn stop(&mut self, object: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        if let Some(index) = index(object)
            && let Some(block) = self.open.remove(&index)
        {
            self.close(index, block, out);
        }
    }

    /// Close every open block (the message ended, or the stream did).
    pub fn flush(&mut self, out: &mut Vec<AgentEvent>) {
        while let Some((index, block)) = self.open.pop_first() {
            self.close(index, block, out);
        }
    }

    /// This message's blocks in order, as the API sent them.
    pub fn take_transcript(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.done).into_values().collect()
    }

    fn close(&mut self, index: u64, mut block: Block, out: &mut Vec<AgentEvent>) {
        match block.value.get("type").and_then(Value::as_str) {
            Some("text") => {
                let span = block.start..block.start + block.chars;
                self.citations.cite(span, &block.cites, out);
            }
            Some("server_tool_use" | "tool_use") => {
                if !block.input.trim().is_empty()
                    && let Ok(input) = serde_json::from_str::<Value>(&block.input)
                    && let Some(object) = block.value.as_object_mut()
                {
                    object.insert("input".into(), input);
                }
                let arguments = block.value.get("input").cloned().unwrap_or(json!({}));
                if let Some(query) = arguments.get("query").and_then(Value::as_str)
                    && let Some(call) = self.tools.get_mut(str_of(&block.value, "id"))
                {
                    call.1 = Some(query.to_owned());
                }
                out.push(AgentEvent::ToolCall {
                    role: None,
                    tool_name: str_of(&block.value, "name").to_owned(),
                    arguments,
                });
            }
            _ => {}
        }
        self.done.insert(index, block.value);
    }

    /// Text of a text block, for the answer. The block's first text after a tool block starts a
    /// new paragraph, unless the answer already ends with whitespace; the block's span starts
    /// after that break.
    fn text(&mut self, block: &mut Block, text: &str, out: &mut Vec<AgentEvent>) {
        let Some(last) = text.chars().last() else {
            return;
        };
        if block.chars == 0 {
            if self.answer.tool_since_text && self.answer.chars > 0 && !self.answer.settled {
                self.answer.chars += 2;
                out.push(AgentEvent::AnswerDelta {
                    message_id: self.message_id.clone(),
                    text: "\n\n".into(),
                });
            }
            self.answer.tool_since_text = false;
            block.start = self.answer.chars;
        }
        let chars = text.chars().count() as u64;
        block.chars += chars;
        self.answer.chars += chars;
        self.answer.settled = last.is_whitespace();
        out.push(AgentEvent::AnswerDelta {
            message_id: self.message_id.clone(),
            text: text.to_owned(),
        });
    }

    fn think(&self, index: u64, text: &str, out: &mut Vec<AgentEvent>) {
        if text.is_empty() {
            return;
        }
        let id = self.message_id.as_deref().unwrap_or("message");
        out.push(AgentEvent::Thinking {
            message_id: Some(format!("{id}:{index}")),
            role: None,
            text: text.to_owned(),
        });
    }

    /// A search's results or a fetched page: consulted sources; an error: a failed tool call.
    fn tool_result(&mut self, kind: &str, value: &Value, out: &mut Vec<AgentEvent>) {
        let tool_id = str_of(value, "tool_use_id");
        let (tool, query) = self
            .tools
            .get(tool_id)
            .cloned()
            .unwrap_or_else(|| (kind.trim_end_matches("_tool_result").to_owned(), None));
        let content = match value.get("content") {
            // Some recordings carry the fetch result as JSON text.
            Some(Value::String(text)) => serde_json::from_str(text).unwrap_or(Value::Null),
            Some(content) => content.clone(),
            None => Value::Null,
        };
        let results: Vec<&Value> = match &content {
            Value::Array(items) => items.iter().collect(),
            Value::Object(_) => vec![&content],
            _ => Vec::new(),
        };
        let mut consulted = Vec::new();
        for result in results {
            match result.get("type").and_then(Value::as_str).unwrap_or("") {
                "web_search_result" => {
                    if let (Some(url), Some(age)) =
                        (text_of(result, "url"), text_of(result, "page_age"))
                    {
                        self.citations.page_age(url, age);
                    }
                    consulted.push(SourceDoc {
                        kind: Some("WEB".into()),
                        headline: text_of(result, "title"),
                        src_name: text_of(result, "url").and_then(|u| url_host(&u)),
                        url: text_of(result, "url"),
                        updated: text_of(result, "page_age"),
                        ..SourceDoc::default()
                    });
                }
                "web_fetch_result" => consulted.push(SourceDoc {
                    kind: Some("WEB".into()),
                    headline: result
                        .pointer("/content/title")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    src_name: text_of(result, "url").and_then(|u| url_host(&u)),
                    url: text_of(result, "url"),
                    ts: text_of(result, "retrieved_at"),
                    ..SourceDoc::default()
                }),
                error if error.ends_with("_error") => out.push(AgentEvent::ToolError {
                    tool_name: tool.clone(),
                    error: text_of(result, "error_code").unwrap_or_else(|| error.to_owned()),
                }),
                other => out.push(AgentEvent::Unknown {
                    kind: format!("{kind} {other}"),
                }),
            }
        }
        // A search's results, traced under its query as the other providers' searches are.
        if kind == "web_search_tool_result" && content.is_array() {
            out.push(AgentEvent::Audit {
                role: None,
                traces: vec![AuditTrace {
                    audit_type: tool.clone(),
                    tool_id: Some(tool_id.to_owned()),
                    query,
                    title: None,
                    result_count: Some(consulted.len()),
                    raw: json!({"type": kind, "tool_use_id": tool_id}),
                }],
            });
        }
        if !consulted.is_empty() {
            out.push(AgentEvent::Consulted(consulted));
        }
    }
}

fn index(object: &Map<String, Value>) -> Option<u64> {
    object.get("index").and_then(Value::as_u64)
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

fn text_of(value: &Value, key: &str) -> Option<String> {
    value
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_owned)
}

fn push_str(value: &mut Value, key: &str, text: &str) {
    if let Some(object) = value.as_object_mut() {
        match object.get_mut(key) {
            Some(Value::String(joined)) => joined.push_str(text),
            _ => {
                object.insert(key.into(), Value::String(text.to_owned()));
            }
        }
    }
}

fn push_to_list(value: &mut Value, key: &str, item: Value) {
    if let Some(object) = value.as_object_mut() {
        match object.get_mut(key).and_then(Value::as_array_mut) {
            Some(list) => list.push(item),
            None => {
                object.insert(key.into(), Value::Array(vec![item]));
            }
        }
    }
}
