//! xAI Responses API streams (`POST /v1/responses`, `stream: true`): `event: response.*` with
//! `data: {"type": "response.*", "sequence_number": n, …}`.
//!
//! - `response.output_text.delta` → answer chunks; `response.reasoning_summary_text.delta` → thinking.
//! - `web_search_call` items and custom tool calls (`x_keyword_search`, `x_semantic_search`, …) → a
//!   tool call when the item is added, and a trace with the query and the result count when it is done.
//! - `url_citation` annotations: the span covers the inline link `[[N]](url)` the model wrote into the
//!   answer, so the reference is a *marker* ([`Reference::marker`]). A span that does not start with
//!   `[[` and end with `)` (or links another URL) is replaced by the literal link found in the text.
//!   An empty span (inline citations off) and search results never cited are consulted sources.
//!   Annotations arrive after the text and again, all of them, in `response.completed`: each distinct
//!   annotation counts once.
//! - `response.created` gives the response id (the conversation's `chat_id`); `response.completed`
//!   completes with it as the checkpoint (what a follow-up sends as `previous_response_id`) and the
//!   token usage.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use crate::model::event::{
    AgentEvent, AuditTrace, Consumption, ConversationIds, Reference, SourceDoc,
};
use crate::wire::provider::{Dialect, Provider};
use crate::wire::sse::SseEvent;

/// The production API.
pub const DEFAULT_BASE_URL: &str = "https://api.x.ai";
/// The model asked for when none is configured.
pub const DEFAULT_MODEL: &str = "grok-4";

/// One output text (an `output_index`/`content_index` pair) and where it starts in the answer.
#[derive(Debug, Default)]
struct Part {
    /// Code point offset of the part in the whole answer.
    start: usize,
    text: String,
    /// Length in code points.
    len: usize,
    /// `response.output_text.done` arrived: the text is final.
    done: bool,
}

/// A `url_citation` waiting for the text its span points into.
#[derive(Debug, Clone)]
struct PendingCitation {
    part: (u64, u64),
    start: usize,
    end: usize,
    url: String,
    title: Option<String>,
}

#[derive(Debug, Default)]
struct ToolItem {
    name: Option<String>,
    announced: bool,
    traced: bool,
}

#[derive(Debug, Default)]
pub struct XaiDialect {
    response_id: Option<String>,
    model: Option<String>,
    parts: Vec<Part>,
    part_of: HashMap<(u64, u64), usize>,
    /// Code points of answer text emitted so far.
    answer_len: usize,
    seen_annotations: HashSet<String>,
    /// Absolute code point spans already cited.
    claimed: HashSet<(usize, usize)>,
    pending: Vec<PendingCitation>,
    tools: HashMap<String, ToolItem>,
    consulted: HashSet<String>,
    completed: bool,
}

impl Dialect for XaiDialect {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return;
        }
        let object = match serde_json::from_str::<Value>(data) {
            Ok(Value::Object(object)) => object,
            Ok(_) => {
                out.push(AgentEvent::Malformed {
                    reason: "payload is not a JSON object".into(),
                });
                return;
            }
            Err(e) if event.event == "error" => {
                let _ = e;
                out.push(AgentEvent::Error {
                    message: data.to_owned(),
                });
                return;
            }
            Err(e) => {
                out.push(AgentEvent::Malformed {
                    reason: format!("not valid JSON: {e}"),
                });
                return;
            }
        };
        let kind = match object.get("type").and_then(Value::as_str) {
            Some(kind) => kind.to_owned(),
            None if !event.event.is_empty() => event.event.clone(),
            None => {
                out.push(AgentEvent::Malformed {
                    reason: "event has no `type`".into(),
                });
                return;
            }
        };
        let before = out.len();
        self.decode_object(&kind, object, out);
        if out.len() == before {
            // Known, and nothing to show: still one payload received.
            out.push(AgentEvent::Progress { kind });
        }
    }

    fn finish(&mut self, _clean: bool, out: &mut Vec<AgentEvent>) {
        self.flush_pending(None, true, out);
    }

    fn provider(&self) -> Option<Provider> {
        Some(Provider::Xai)
    }
}

impl XaiDialect {
    fn decode_object(
        &mut self,
        kind: &str,
        mut obj: Map<String, Value>,
        out: &mut Vec<AgentEvent>,
    ) {
        let index = |obj: &Map<String, Value>, key: &str| obj.get(key).and_then(Value::as_u64);
        match kind {
            "response.created" | "response.in_progress" | "response.queued" => {
                if let Some(response) = obj.get("response") {
                    self.note_response(response, out);
                }
            }
            "response.output_item.added" => {
                if let Some(Value::Object(item)) = obj.remove("item") {
                    self.item_added(item, out);
                }
            }
            "response.output_item.done" => {
                let output_index = index(&obj, "output_index").unwrap_or(0);
                if let Some(Value::Object(item)) = obj.remove("item") {
                    self.item_done(output_index, item, out);
                }
            }
            "response.custom_tool_call_input.done" | "response.function_call_arguments.done" => {
                let id = string(&obj, "item_id");
                let input = obj
                    .get("input")
                    .or_else(|| obj.get("arguments"))
                    .cloned()
                    .unwrap_or(Value::Null);
                if let Some(id) = id {
                    let name = obj
                        .get("name")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .or_else(|| self.tools.get(&id).and_then(|t| t.name.clone()));
                    let mut item = Map::new();
                    item.insert("id".into(), Value::from(id));
                    item.insert("type".into(), Value::from("custom_tool_call"));
                    if let Some(name) = name {
                        item.insert("name".into(), Value::from(name));
                    }
                    item.insert("input".into(), input);
                    self.trace_tool(item, out);
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                let text = text(obj.remove("delta"));
                if !text.is_empty() {
                    out.push(AgentEvent::Thinking {
                        message_id: string(&obj, "item_id"),
                        role: None,
                        text,
                    });
                }
            }
            "response.output_text.delta" => {
                let key = (
                    index(&obj, "output_index").unwrap_or(0),
                    index(&obj, "content_index").unwrap_or(0),
                );
                let delta = text(obj.remove("delta"));
                self.push_text(key, string(&obj, "item_id"), &delta, out);
            }
            "response.output_text.annotation.added" => {
                let key = (
                    index(&obj, "output_index").unwrap_or(0),
                    index(&obj, "content_index").unwrap_or(0),
                );
                if let Some(annotation) = obj.get("annotation") {
                    self.annotation(key, annotation, out);
                }
            }
            "response.output_text.done" => {
                let key = (
                    index(&obj, "output_index").unwrap_or(0),
                    index(&obj, "content_index").unwrap_or(0),
                );
                if let Some(&i) = self.part_of.get(&key) {
                    self.parts[i].done = true;
                }
                self.flush_pending(Some(key), false, out);
            }
            "response.completed" => {
                let response = obj.remove("response").unwrap_or(Value::Null);
                self.completed(response, out);
            }
            "response.failed" => {
                let response = obj.get("response");
                self.flush_pending(None, true, out);
                let message = response
                    .and_then(|r| r.get("error"))
                    .and_then(error_message)
                    .unwrap_or_else(|| "the response failed".into());
                out.push(AgentEvent::Error { message });
            }
            "response.incomplete" => {
                self.flush_pending(None, true, out);
                let reason = obj
                    .get("response")
                    .and_then(|r| r.pointer("/incomplete_details/reason"))
                    .and_then(Value::as_str)
                    .unwrap_or("unknown reason");
                out.push(AgentEvent::Error {
                    message: format!("the response is incomplete: {reason}"),
                });
            }
            "error" => {
                let message = error_message(&Value::Object(obj))
                    .unwrap_or_else(|| "the stream reported an error".into());
                out.push(AgentEvent::Error { message });
            }
            // Progress notices that carry nothing the session shows.
            "response.content_part.added"
            | "response.content_part.done"
            | "response.custom_tool_call_input.delta"
            | "response.function_call_arguments.delta"
            | "response.reasoning_summary_part.added"
            | "response.reasoning_summary_part.done"
            | "response.reasoning_summary_text.done"
            | "response.reasoning_text.done" => {}
            other if is_tool_progress(other) => {}
            other => out.push(AgentEvent::Unknown {
                kind: other.to_owned(),
            }),
        }
    }

    fn note_response(&mut self, response: &Value, out: &mut Vec<AgentEvent>) {
        if let Some(model) = response.get("model").and_then(Value::as_str) {
            self.model = Some(model.to_owned());
        }
        let id = response
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty());
        if let Some(id) = id
            && self.response_id.as_deref() != Some(id)
        {
            self.response_id = Some(id.to_owned());
            out.push(AgentEvent::Conversation(ConversationIds {
                chat_id: Some(id.to_owned()),
                ..ConversationIds::default()
            }));
        }
    }

    fn push_text(
        &mut self,
        key: (u64, u64),
        item_id: Option<String>,
        delta: &str,
        out: &mut Vec<AgentEvent>,
    ) {
        if delta.is_empty() {
            return;
        }
        let index = match self.part_of.get(&key) {
            Some(&index) => index,
            None => {
                // A second output text starts a new paragraph of the answer.
                if self.answer_len > 0 {
                    out.push(AgentEvent::AnswerDelta {
                        message_id: item_id.clone(),
                        text: "\n\n".into(),
                    });
                    self.answer_len += 2;
                }
                self.parts.push(Part {
                    start: self.answer_len,
                    ..Part::default()
                });
                self.part_of.insert(key, self.parts.len() - 1);
                self.parts.len() - 1
            }
        };
        let part = &mut self.parts[index];
        let added = delta.chars().count();
        part.text.push_str(delta);
        part.len += added;
        self.answer_len += added;
        out.push(AgentEvent::AnswerDelta {
            message_id: item_id,
            text: delta.to_owned(),
        });
    }

    fn item_added(&mut self, item: Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let Some((id, name)) = tool_of(&item) else {
            return;
        };
        let entry = self.tools.entry(id).or_default();
        entry.name.get_or_insert_with(|| name.clone());
        if entry.announced {
            return;
        }
        entry.announced = true;
        let arguments = tool_arguments(&item).unwrap_or_else(|| json!({}));
        out.push(AgentEvent::ToolCall {
            role: None,
            tool_name: name,
            arguments,
        });
    }

    fn item_done(
        &mut self,
        output_index: u64,
        item: Map<String, Value>,
        out: &mut Vec<AgentEvent>,
    ) {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => self.message_annotations(output_index, &item, out),
            _ if tool_of(&item).is_some() => self.trace_tool(item, out),
            _ => {}
        }
    }

    /// Text and annotations of a finished `message` output item.
    fn message_annotations(
        &mut self,
        output_index: u64,
        item: &Map<String, Value>,
        out: &mut Vec<AgentEvent>,
    ) {
        let Some(content) = item.get("content").and_then(Value::as_array) else {
            return;
        };
        for (content_index, part) in content.iter().enumerate() {
            let key = (output_index, content_index as u64);
            if !self.part_of.contains_key(&key)
                && let Some(text) = part.get("text").and_then(Value::as_str)
            {
                // The text never arrived as deltas: take it whole.
                let id = item.get("id").and_then(Value::as_str).map(str::to_owned);
                self.push_text(key, id, text, out);
            }
            if let Some(&i) = self.part_of.get(&key) {
                self.parts[i].done = true;
            }
            if let Some(annotations) = part.get("annotations").and_then(Value::as_array) {
                for annotation in annotations {
                    self.annotation(key, annotation, out);
                }
            }
            self.flush_pending(Some(key), false, out);
        }
    }

    /// A tool call finished: announce it if that never happened, then trace its query and results.
    fn trace_tool(&mut self, item: Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let Some((id, name)) = tool_of(&item).or_else(|| {
            let id = item.get("id").and_then(Value::as_str)?;
            Some((id.to_owned(), "tool".to_owned()))
        }) else {
            return;
        };
        let entry = self.tools.entry(id.clone()).or_default();
        if entry.traced {
            return;
        }
        entry.traced = true;
        let arguments = tool_arguments(&item);
        if !entry.announced {
            entry.announced = true;
            out.push(AgentEvent::ToolCall {
                role: None,
                tool_name: name.clone(),
                arguments: arguments.clone().unwrap_or_else(|| json!({})),
            });
        }
        let action = item.get("action");
        let sources: Option<Vec<String>> = action
            .and_then(|a| a.get("sources"))
            .and_then(Value::as_array)
            .map(|sources| {
                sources
                    .iter()
                    .filter_map(|s| match s {
                        Value::String(url) => Some(url.clone()),
                        other => other.get("url").and_then(Value::as_str).map(str::to_owned),
                    })
                    .filter(|url| !url.is_empty())
                    .collect()
            });
        let query = action
            .and_then(|a| a.get("query"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| {
                let args = arguments.as_ref()?;
                ["query", "keywords", "q", "search_query"]
                    .iter()
                    .find_map(|key| args.get(*key).and_then(Value::as_str))
                    .map(str::to_owned)
            })
            .filter(|q| !q.is_empty());
        let title = action
            .and_then(|a| a.get("url"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| (query.is_none()).then(|| name.clone()));
        out.push(AgentEvent::Audit {
            role: None,
            traces: vec![AuditTrace {
                audit_type: name,
                tool_id: Some(id),
                query,
                title,
                result_count: sources.as_ref().map(Vec::len),
                raw: Value::Object(item),
            }],
        });
        if let Some(urls) = sources {
            self.consult(urls.into_iter().map(|url| source_doc(&url, None)), out);
        }
    }

    fn consult(&mut self, docs: impl IntoIterator<Item = SourceDoc>, out: &mut Vec<AgentEvent>) {
        let fresh: Vec<SourceDoc> = docs
            .into_iter()
            .filter(|doc| {
                doc.url
                    .as_ref()
                    .is_some_and(|url| self.consulted.insert(url.clone()))
            })
            .collect();
        if !fresh.is_empty() {
            out.push(AgentEvent::Consulted(fresh));
        }
    }

    fn annotation(&mut self, part: (u64, u64), annotation: &Value, out: &mut Vec<AgentEvent>) {
        let Some(object) = annotation.as_object() else {
            return;
        };
        if object
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| t != "url_citation")
        {
            return;
        }
        let Some(url) = object
            .get("url")
            .and_then(Value::as_str)
            .filter(|u| !u.is_empty())
        else {
            return;
        };
        let title = match object.get("title") {
            Some(Value::String(t)) if !t.is_empty() => Some(t.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let offset = |key: &str| object.get(key).and_then(Value::as_u64);
        let (start, end) = (offset("start_index"), offset("end_index"));
        let identity = format!(
            "{}\u{1f}{}\u{1f}{start:?}\u{1f}{end:?}\u{1f}{url}\u{1f}{title:?}",
            part.0, part.1
        );
        if !self.seen_annotations.insert(identity) {
            return;
        }
        match (start, end) {
            (Some(start), Some(end)) if start == end => {
                self.consult([source_doc(url, title.as_deref())], out);
            }
            (Some(start), Some(end)) if start < end => {
                let citation = PendingCitation {
                    part,
                    start: start as usize,
                    end: end as usize,
                    url: url.to_owned(),
                    title,
                };
                let ready = self
                    .part_of
                    .get(&part)
                    .is_some_and(|&i| self.parts[i].done || self.parts[i].len >= citation.end);
                if ready {
                    self.cite(&citation, out);
                } else {
                    self.pending.push(citation);
                }
            }
            _ => self.uncitable(url, title.as_deref(), out),
        }
    }

    /// Resolve held-back citations of `part` (all parts when `None`); `force` resolves those whose
    /// text is still short (the stream is over).
    fn flush_pending(&mut self, part: Option<(u64, u64)>, force: bool, out: &mut Vec<AgentEvent>) {
        if self.pending.is_empty() {
            return;
        }
        let (ready, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|c| {
                part.is_none_or(|p| p == c.part)
                    && (force
                        || self
                            .part_of
                            .get(&c.part)
                            .is_some_and(|&i| self.parts[i].done || self.parts[i].len >= c.end))
            });
        self.pending = waiting;
        for citation in ready {
            self.cite(&citation, out);
        }
    }

    /// Check the span and emit the marker reference (or its replacement, or an invalid one).
    fn cite(&mut self, c: &PendingCitation, out: &mut Vec<AgentEvent>) {
        let span = self.part_of.get(&c.part).and_then(|&i| {
            let part = &self.parts[i];
            let local = if is_link_span(&part.text, c.start, c.end, &c.url) {
                Some((c.start, c.end))
            } else {
                let claimed: Vec<(usize, usize)> = self
                    .claimed
                    .iter()
                    .filter(|(s, e)| *s >= part.start && *e <= part.start + part.len)
                    .map(|(s, e)| (s - part.start, e - part.start))
                    .collect();
                find_link(&part.text, &c.url, c.title.as_deref(), c.start, &claimed)
            };
            local.map(|(s, e)| (part.start + s, part.start + e))
        });
        let doc = source_doc(&c.url, c.title.as_deref());
        match span {
            Some(span) if self.claimed.contains(&span) => {}
            Some((start, end)) => {
                self.claimed.insert((start, end));
                out.push(AgentEvent::Grounding(vec![Reference {
                    start: Some(start as u64),
                    end: Some(end as u64),
                    tool_name: None,
                    audit_id: None,
                    source: Some(doc),
                    marker: true,
                }]));
            }
            None => self.uncitable(&c.url, c.title.as_deref(), out),
        }
    }

    /// An annotation whose link is nowhere in the text: an invalid reference (counted) whose source
    /// still shows as consulted.
    fn uncitable(&mut self, url: &str, title: Option<&str>, out: &mut Vec<AgentEvent>) {
        out.push(AgentEvent::Grounding(vec![Reference {
            source: Some(source_doc(url, title)),
            marker: true,
            ..Reference::default()
        }]));
        self.consult([source_doc(url, title)], out);
    }

    fn completed(&mut self, response: Value, out: &mut Vec<AgentEvent>) {
        self.note_response(&response, out);
        if let Some(output) = response.get("output").and_then(Value::as_array) {
            for (output_index, item) in output.iter().enumerate() {
                let Some(item) = item.as_object() else {
                    continue;
                };
                match item.get("type").and_then(Value::as_str) {
                    Some("message") => self.message_annotations(output_index as u64, item, out),
                    _ if tool_of(item).is_some() => self.trace_tool(item.clone(), out),
                    _ => {}
                }
            }
        }
        // The SDK's "all citations": every URL the agent encountered.
        if let Some(citations) = response.get("citations").and_then(Value::as_array) {
            let urls: Vec<SourceDoc> = citations
                .iter()
                .filter_map(Value::as_str)
                .filter(|u| !u.is_empty())
                .map(|url| source_doc(url, None))
                .collect();
            self.consult(urls, out);
        }
        self.flush_pending(None, true, out);
        if self.completed {
            return;
        }
        self.completed = true;
        let consumption = response
            .get("usage")
            .filter(|u| u.is_object())
            .map(|usage| {
                let count = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64);
                vec![Consumption {
                    kind: self.model.clone().unwrap_or_else(|| "xai".into()),
                    input_tokens: count("/input_tokens").unwrap_or(0),
                    output_tokens: count("/output_tokens").unwrap_or(0),
                    cached_tokens: count("/input_tokens_details/cached_tokens")
                        .or_else(|| count("/cached_tokens"))
                        .unwrap_or(0),
                    raw: usage.clone(),
                }]
            })
            .unwrap_or_default();
        out.push(AgentEvent::Complete {
            checkpoint_id: self.response_id.clone(),
            consumption,
        });
    }
}

/// `web_search_call.searching`, `x_search_call.completed`, `mcp_call.in_progress`, …
fn is_tool_progress(kind: &str) -> bool {
    kind.strip_prefix("response.")
        .and_then(|rest| rest.split_once('.'))
        .is_some_and(|(item, _)| item.ends_with("_call"))
}

/// The id and tool name of a tool-call output item (`web_search_call`, `custom_tool_call`,
/// `function_call`, any `*_call`).
fn tool_of(item: &Map<String, Value>) -> Option<(String, String)> {
    let kind = item.get("type").and_then(Value::as_str)?;
    if !kind.ends_with("_call") {
        return None;
    }
    let id = item
        .get("id")
        .or_else(|| item.get("call_id"))
        .and_then(Value::as_str)?
        .to_owned();
    let name = item
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| {
            kind.strip_suffix("_call")
                .unwrap_or(kind)
                .trim_end_matches('_')
                .to_owned()
        });
    Some((id, name))
}

/// A tool call's arguments: the web search action, or the custom tool's input (JSON text parsed).
fn tool_arguments(item: &Map<String, Value>) -> Option<Value> {
    if let Some(action) = item.get("action").filter(|a| a.is_object()) {
        let mut action = action.clone();
        if let Some(object) = action.as_object_mut() {
            // The results are traced separately; the call's arguments are what was asked.
            object.remove("sources");
        }
        return Some(action);
    }
    match item.get("input").or_else(|| item.get("arguments"))? {
        Value::String(text) if text.trim().is_empty() => None,
        Value::String(text) => Some(
            serde_json::from_str::<Value>(text)
                .ok()
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({ "input": text })),
        ),
        Value::Null => None,
        other => Some(other.clone()),
    }
}

/// A cited or consulted web page. `title` is the display number xAI gives (`"1"`) unless it is text.
pub fn source_doc(url: &str, title: Option<&str>) -> SourceDoc {
    let host = host_of(url);
    let is_x = host
        .as_deref()
        .is_some_and(|h| matches!(h, "x.com" | "twitter.com" | "mobile.twitter.com"));
    SourceDoc {
        kind: Some(if is_x { "X" } else { "WEB" }.to_owned()),
        url: Some(url.to_owned()),
        headline: title
            .map(str::trim)
            .filter(|t| !t.is_empty() && !t.chars().all(|c| c.is_ascii_digit()))
            .map(str::to_owned),
        src_name: host,
        ..SourceDoc::default()
    }
}

/// `https://www.reuters.com/x` → `reuters.com`.
fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = host.split(':').next()?.trim_start_matches("www.");
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Byte offset of code point `cp` in `text` (the end for `cp == len`).
fn byte_of(text: &str, cp: usize) -> Option<usize> {
    text.char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(text.len()))
        .nth(cp)
}

/// Does the code point span `start..end` of `text` hold an inline link — starting with `[[`, ending
/// with `)` — and, if its target can be read, one to `url`?
fn is_link_span(text: &str, start: usize, end: usize, url: &str) -> bool {
    let (Some(a), Some(b)) = (byte_of(text, start), byte_of(text, end)) else {
        return false;
    };
    let span = &text[a..b];
    if !(span.starts_with("[[") && span.ends_with(')')) {
        return false;
    }
    match span.find("](") {
        Some(open) if span[..open].ends_with(']') => &span[open + 2..span.len() - 1] == url,
        _ => true,
    }
}

/// Find the literal inline link `[[N]](url)` in `text` (N = `title` when it is a number, else any
/// number): the occurrence nearest to `near` whose span is not in `claimed`. Code point offsets.
fn find_link(
    text: &str,
    url: &str,
    title: Option<&str>,
    near: usize,
    claimed: &[(usize, usize)],
) -> Option<(usize, usize)> {
    let number = title.filter(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()));
    let tail = format!("]]({url})");
    let mut best: Option<(usize, usize)> = None;
    for (at, _) in text.match_indices(&tail) {
        let head = &text[..at];
        let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 || !head[..head.len() - digits].ends_with("[[") {
            continue;
        }
        if let Some(n) = number
            && &head[head.len() - digits..] != n
        {
            continue;
        }
        let start_byte = at - digits - 2;
        let start = text[..start_byte].chars().count();
        let end = start + text[start_byte..at + tail.len()].chars().count();
        if claimed.contains(&(start, end)) {
            continue;
        }
        if best.is_none_or(|(s, _)| start.abs_diff(near) < s.abs_diff(near)) {
            best = Some((start, end));
        }
    }
    best
}

fn string(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn text(value: Option<Value>) -> String {
    match value {
        Some(Value::String(s)) => s,
        _ => String::new(),
    }
}

fn error_message(error: &Value) -> Option<String> {
    match error {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Object(object) => object
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| object.get("error").and_then(error_message))
            .or_else(|| {
                object
                    .get("code")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::citations::Attribution;
    use crate::model::session::Session;

    fn frame(kind: &str, data: Value) -> SseEvent {
        SseEvent {
            event: kind.into(),
            data: data.to_string(),
            id: String::new(),
        }
    }

    fn delta(text: &str) -> SseEvent {
        frame(
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1,
                   "content_index": 0, "delta": text}),
        )
    }

    fn annotation(url: &str, start: usize, end: usize, title: &str) -> SseEvent {
        frame(
            "response.output_text.annotation.added",
            json!({"type": "response.output_text.annotation.added", "item_id": "msg_1",
                   "output_index": 1, "content_index": 0, "annotation_index": 0,
                   "annotation": {"type": "url_citation", "url": url, "start_index": start,
                                  "end_index": end, "title": title}}),
        )
    }

    use crate::wire::provider::testing::cited;

    fn run(events: Vec<SseEvent>) -> Session {
        crate::wire::provider::testing::run(&mut XaiDialect::default(), events, true)
    }

    #[test]
    fn a_span_over_the_inline_link_is_a_marker_citation_counted_in_code_points() {
        let text = "Grok 😀 ships.[[1]](https://x.ai/news) Done.";
        let session = run(vec![
            delta(text),
            annotation("https://x.ai/news", 13, 36, "1"),
        ]);
        assert_eq!(
            cited(&session),
            [("[[1]](https://x.ai/news)".to_owned(), Some(1))]
        );
        assert!(session.references[0].marker);
        let source = &Attribution::resolve(&session, true).sources[0];
        assert_eq!(source.url.as_deref(), Some("https://x.ai/news"));
        assert_eq!(source.label, "x.ai");
        assert_eq!(source.headline, None, "a bare number is not a headline");
    }

    #[test]
    fn a_span_that_misses_the_link_falls_back_to_the_literal_link_nearest_to_it() {
        let text = "A.[[1]](https://a.example/x) B.[[2]](https://b.example/y) C.[[1]](https://a.example/x)";
        // Offsets in UTF-16 units or bytes would be off: here they are shifted by two.
        let session = run(vec![
            delta(text),
            annotation("https://b.example/y", 33, 59, "2"),
            annotation("https://a.example/x", 58, 84, "1"),
            annotation("https://a.example/x", 4, 30, "1"),
        ]);
        let texts: Vec<_> = cited(&session).into_iter().map(|(t, _)| t).collect();
        assert_eq!(
            texts,
            [
                "[[2]](https://b.example/y)",
                "[[1]](https://a.example/x)",
                "[[1]](https://a.example/x)"
            ]
        );
        let spans: Vec<_> = session
            .references
            .iter()
            .map(|r| (r.start.unwrap(), r.end.unwrap()))
            .collect();
        assert_eq!(spans, [(31, 57), (60, 86), (2, 28)]);
    }

    #[test]
    fn a_span_over_a_link_to_another_url_is_corrected() {
        let text = "X[[1]](https://a.example) Y[[2]](https://b.example)";
        let session = run(vec![
            delta(text),
            annotation("https://b.example", 1, 25, "2"),
        ]);
        assert_eq!(cited(&session)[0].0, "[[2]](https://b.example)");
    }

    #[test]
    fn a_link_nowhere_in_the_text_is_invalid_but_its_source_is_consulted() {
        let session = run(vec![
            delta("No links here at all."),
            annotation("https://gone.example", 0, 5, "1"),
        ]);
        let attribution = Attribution::resolve(&session, true);
        assert_eq!(attribution.invalid_references, 1);
        assert!(attribution.citations.is_empty());
        assert_eq!(attribution.sources.len(), 1);
        assert!(attribution.sources[0].consulted_only);
    }

    #[test]
    fn empty_spans_and_uncited_search_results_are_consulted_sources_without_markers() {
        let search = frame(
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0,
                   "item": {"type": "web_search_call", "id": "ws_1", "status": "completed",
                            "action": {"type": "search", "query": "grok news",
                                       "sources": [{"type": "url", "url": "https://x.ai/news"},
                                                   {"type": "url", "url": "https://other.example"}]}}}),
        );
        let session = run(vec![
            search,
            delta("News.[[1]](https://x.ai/news)"),
            annotation("https://x.ai/news", 5, 28, "1"),
            annotation("https://silent.example", 0, 0, "2"),
        ]);
        let attribution = Attribution::resolve(&session, true);
        let consulted: Vec<_> = attribution
            .sources
            .iter()
            .filter(|s| s.consulted_only)
            .map(|s| s.key.as_str())
            .collect();
        assert_eq!(
            consulted,
            ["https://other.example", "https://silent.example"]
        );
        assert_eq!(attribution.numbered().count(), 1);
        assert_eq!(session.audits[0].query.as_deref(), Some("grok news"));
        assert_eq!(session.audits[0].result_count, Some(2));
        assert!(matches!(
            &session.activity[0],
            crate::model::session::Activity::ToolCall { tool_name, .. } if tool_name == "web_search"
        ));
    }

    #[test]
    fn annotations_repeated_in_response_completed_count_once() {
        let text = "One.[[1]](https://a.example) Two.[[2]](https://b.example)";
        let completed = frame(
            "response.completed",
            json!({"type": "response.completed", "response": {
                "id": "resp_9", "model": "grok-4", "status": "completed",
                "output": [{"type": "message", "id": "msg_1", "content": [{"type": "output_text",
                    "text": text, "annotations": [
                        {"type": "url_citation", "url": "https://a.example", "start_index": 4, "end_index": 28, "title": "1"},
                        {"type": "url_citation", "url": "https://b.example", "start_index": 33, "end_index": 57, "title": "2"}]}]}],
                "usage": {"input_tokens": 10, "output_tokens": 5, "input_tokens_details": {"cached_tokens": 3}}}}),
        );
        let mut events = vec![
            delta(text),
            annotation("https://a.example", 4, 28, "1"),
            annotation("https://b.example", 33, 57, "2"),
        ];
        // The completed event repeats them at output index 1 in the stream's numbering.
        let Value::Object(mut data) = serde_json::from_str::<Value>(&completed.data).unwrap()
        else {
            unreachable!()
        };
        let output = data["response"]["output"].as_array_mut().unwrap();
        output.insert(0, json!({"type": "reasoning", "id": "rs_1"}));
        events.push(frame("response.completed", Value::Object(data)));
        let session = run(events);
        assert_eq!(session.references.len(), 2);
        assert_eq!(session.checkpoint_id(), Some("resp_9"));
        let usage = &session.completion.as_ref().unwrap().consumption[0];
        assert_eq!(
            (
                usage.kind.as_str(),
                usage.input_tokens,
                usage.output_tokens,
                usage.cached_tokens
            ),
            ("grok-4", 10, 5, 3)
        );
    }

    #[test]
    fn annotations_before_their_text_wait_for_it() {
        let session = run(vec![
            delta("See "),
            annotation("https://a.example", 4, 28, "1"),
            delta("[[1]](https://a.example)."),
        ]);
        assert_eq!(
            cited(&session),
            [("[[1]](https://a.example)".into(), Some(1))]
        );
    }

    #[test]
    fn response_created_gives_the_conversation_id_and_reasoning_is_thinking() {
        let session = run(vec![
            frame(
                "response.created",
                json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}),
            ),
            frame(
                "response.reasoning_summary_text.delta",
                json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "delta": "Looking"}),
            ),
            frame(
                "response.reasoning_summary_text.delta",
                json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "delta": " up."}),
            ),
        ]);
        assert_eq!(session.ids.chat_id.as_deref(), Some("resp_1"));
        assert!(matches!(
            &session.activity[..],
            [crate::model::session::Activity::Thinking { text, .. }] if text == "Looking up."
        ));
    }

    #[test]
    fn x_search_tool_calls_are_traced_with_their_query() {
        let session = run(vec![
            frame(
                "response.output_item.added",
                json!({"type": "response.output_item.added", "output_index": 0,
                       "item": {"type": "custom_tool_call", "id": "ctc_1", "name": "x_keyword_search", "input": ""}}),
            ),
            frame(
                "response.custom_tool_call_input.done",
                json!({"type": "response.custom_tool_call_input.done", "item_id": "ctc_1", "output_index": 0,
                       "input": "{\"query\":\"solid-state battery\",\"limit\":10}"}),
            ),
            frame(
                "response.output_item.done",
                json!({"type": "response.output_item.done", "output_index": 0,
                       "item": {"type": "custom_tool_call", "id": "ctc_1", "name": "x_keyword_search",
                                "input": "{\"query\":\"solid-state battery\",\"limit\":10}"}}),
            ),
        ]);
        assert_eq!(session.activity.len(), 2);
        assert_eq!(session.audits.len(), 1);
        assert_eq!(session.audits[0].audit_type, "x_keyword_search");
        assert_eq!(
            session.audits[0].query.as_deref(),
            Some("solid-state battery")
        );
    }

    #[test]
    fn failures_and_error_events_end_the_session_with_an_error() {
        let session = run(vec![frame(
            "response.failed",
            json!({"type": "response.failed", "response": {"id": "r", "error": {"code": "server_error", "message": "overloaded"}}}),
        )]);
        assert_eq!(session.error.as_deref(), Some("overloaded"));
        let session = run(vec![frame(
            "error",
            json!({"type": "error", "code": "invalid_api_key", "message": "bad key"}),
        )]);
        assert_eq!(session.error.as_deref(), Some("bad key"));
    }

    #[test]
    fn hosts_drop_www_and_x_posts_are_their_own_kind() {
        let doc = source_doc("https://www.Reuters.com/a?b", Some("Reuters piece"));
        assert_eq!(doc.src_name.as_deref(), Some("reuters.com"));
        assert_eq!(doc.headline.as_deref(), Some("Reuters piece"));
        assert_eq!(doc.kind.as_deref(), Some("WEB"));
        let post = source_doc("https://x.com/i/status/1", Some("3"));
        assert_eq!(post.kind.as_deref(), Some("X"));
        assert_eq!(post.headline, None);
    }
}
