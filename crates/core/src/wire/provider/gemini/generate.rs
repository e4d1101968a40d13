//! `streamGenerateContent?alt=sse` chunks with Google Search grounding.
//!
//! - `candidates[0].content.parts[].text` is the answer, in order; a part with `thought: true` is
//!   a thought summary (thinking, never answer).
//! - `groundingMetadata` (real streams send it whole on the last chunk, `{}` before): every
//!   `webSearchQueries` entry is a search; `groundingChunks[].web {uri, title}` the pages;
//!   `groundingSupports[].segment.startIndex/endIndex` UTF-8 byte offsets into the concatenated
//!   answer text (verified on real recordings: a stream whose text begins with `°` matches the byte
//!   slice, not the code-point one), each citing every chunk its `groundingChunkIndices` names.
//!   Pages no support cites are consulted sources.
//! - `finishReason: STOP` completes the answer (with `usageMetadata`); any other reason ends it
//!   with that reason as the error. An `{"error": …}` body is an error.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::{code_points, web_source};
use crate::model::event::{AgentEvent, Consumption, Reference, SourceDoc};

#[derive(Debug, Default)]
pub(super) struct Generate {
    /// The answer so far, as sent (the offsets count its bytes).
    text: String,
    response_id: Option<String>,
    model: Option<String>,
    usage: Option<Value>,
    queries: HashSet<String>,
    /// `(start, end, url)` already cited.
    cited: HashSet<(u64, u64, String)>,
    consulted: HashSet<String>,
    ended: bool,
}

impl Generate {
    pub fn decode(&mut self, chunk: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        if let Some(error) = chunk.get("error") {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            out.push(AgentEvent::Error { message });
            self.ended = true;
            return;
        }
        self.note_ids(chunk, out);
        if let Some(usage) = chunk.get("usageMetadata").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
        let candidate = chunk
            .get("candidates")
            .and_then(|candidates| candidates.get(0));
        let Some(candidate) = candidate else {
            let feedback = chunk.get("promptFeedback");
            if let Some(reason) = feedback.and_then(|f| f.get("blockReason")) {
                out.push(AgentEvent::Error {
                    message: format!("Gemini blocked the question: {}", text_of(reason)),
                });
                self.ended = true;
            }
            return;
        };
        self.parts(candidate, out);
        if let Some(metadata) = candidate.get("groundingMetadata") {
            self.grounding(metadata, out);
        }
        if let Some(reason) = candidate.get("finishReason").and_then(Value::as_str) {
            self.end(reason, out);
        }
    }

    pub fn finish(&mut self, _clean: bool, _out: &mut [AgentEvent]) {}

    fn note_ids(&mut self, chunk: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        if let Some(model) = chunk.get("modelVersion").and_then(Value::as_str) {
            self.model = Some(model.to_owned());
        }
        crate::wire::provider::first_chat_id(&mut self.response_id, chunk, "responseId", out);
    }

    fn parts(&mut self, candidate: &Value, out: &mut Vec<AgentEvent>) {
        let parts = candidate
            .pointer("/content/parts")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for part in parts {
            let Some(text) = part.get("text").and_then(Value::as_str) else {
                continue;
            };
            if text.is_empty() {
                continue;
            }
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                out.push(AgentEvent::Thinking {
                    message_id: self.response_id.clone(),
                    role: None,
                    text: text.to_owned(),
                });
            } else {
                self.text.push_str(text);
                out.push(AgentEvent::AnswerDelta {
                    message_id: self.response_id.clone(),
                    text: text.to_owned(),
                });
            }
        }
    }

    fn grounding(&mut self, metadata: &Value, out: &mut Vec<AgentEvent>) {
        let queries = metadata
            .get("webSearchQueries")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for query in queries.iter().filter_map(Value::as_str) {
            if !query.is_empty() && self.queries.insert(query.to_owned()) {
                out.push(AgentEvent::ToolCall {
                    role: None,
                    tool_name: "google_search".into(),
                    arguments: json!({"query": query}),
                });
            }
        }
        let pages: Vec<Option<SourceDoc>> = metadata
            .get("groundingChunks")
            .and_then(Value::as_array)
            .map(|chunks| chunks.iter().map(page).collect())
            .unwrap_or_default();
        let supports = metadata
            .get("groundingSupports")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut references = Vec::new();
        let mut cited_pages = HashSet::new();
        for support in supports {
            let segment = support.get("segment");
            let offset = |key: &str| segment.and_then(|s| s.get(key)).and_then(Value::as_u64);
            // A segment starting the text may leave `startIndex` out (proto3 drops a zero).
            let (start, end) = (offset("startIndex").unwrap_or(0), offset("endIndex"));
            let span = end.and_then(|end| {
                let start = code_points(&self.text, start)?;
                let end = code_points(&self.text, end)?;
                (start <= end).then_some((start, end))
            });
            let indices = support
                .get("groundingChunkIndices")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            for index in indices.iter().filter_map(Value::as_u64) {
                let Some(Some(doc)) = usize::try_from(index).ok().and_then(|i| pages.get(i)) else {
                    continue;
                };
                let url = doc.url.clone().unwrap_or_default();
                cited_pages.insert(url.clone());
                let key = (start, end.unwrap_or(u64::MAX), url);
                if !self.cited.insert(key) {
                    continue;
                }
                references.push(Reference {
                    start: span.map(|(s, _)| s),
                    end: span.map(|(_, e)| e),
                    tool_name: Some("google_search".into()),
                    source: Some(doc.clone()),
                    ..Reference::default()
                });
            }
        }
        if !references.is_empty() {
            out.push(AgentEvent::Grounding(references));
        }
        let consulted: Vec<SourceDoc> = pages
            .into_iter()
            .flatten()
            .filter(|doc| !cited_pages.contains(doc.url.as_deref().unwrap_or_default()))
            .filter(|doc| self.consulted.insert(doc.url.clone().unwrap_or_default()))
            .collect();
        if !consulted.is_empty() {
            out.push(AgentEvent::Consulted(consulted));
        }
    }

    fn end(&mut self, reason: &str, out: &mut Vec<AgentEvent>) {
        if self.ended {
            return;
        }
        self.ended = true;
        if reason != "STOP" {
            let message = match reason {
                "MAX_TOKENS" => "Gemini stopped at the output token limit (MAX_TOKENS)".to_owned(),
                other => format!("Gemini stopped the answer: {other}"),
            };
            out.push(AgentEvent::Error { message });
            return;
        }
        let consumption = self
            .usage
            .as_ref()
            .map(|usage| {
                let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
                vec![Consumption {
                    kind: self.model.clone().unwrap_or_else(|| "gemini".into()),
                    input_tokens: count("promptTokenCount"),
                    output_tokens: count("candidatesTokenCount") + count("thoughtsTokenCount"),
                    cached_tokens: count("cachedContentTokenCount"),
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

/// A grounding chunk's web page (other kinds, such as retrieved documents without a URI, are not
/// sources to open).
fn page(chunk: &Value) -> Option<SourceDoc> {
    let web = chunk.get("web")?;
    let uri = web
        .get("uri")
        .and_then(Value::as_str)
        .filter(|u| !u.is_empty())?;
    Some(web_source(uri, web.get("title").and_then(Value::as_str)))
}

fn text_of(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_owned)
}
