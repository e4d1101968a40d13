//! Responses API tool calls and reasoning.
//!
//! A tool call shows once its arguments are known: a web search action when its item is done
//! (`search` → `web_search` with its query, `open_page` with its URL, `find_in_page` with its
//! pattern and URL), a custom tool call (xAI's `x_keyword_search`, `view_x_video`, …) when its
//! `input`, a JSON string of arguments, is complete. A search with a query or results is also
//! traced (query, result count). A web search item with no query, URL or sources (xAI sends such
//! items alongside X searches) is left out entirely. Reasoning summaries are thinking, one block per
//! reasoning item, its summary parts separated by a blank line.

use serde_json::{Map, Value, json};

use super::XaiDialect;
use super::citations::source_doc;
use crate::model::event::{AgentEvent, AuditTrace, SourceDoc};

/// What has been shown of one tool call.
#[derive(Debug, Default)]
pub(super) struct ToolItem {
    name: Option<String>,
    announced: bool,
    traced: bool,
}

impl XaiDialect {
    pub(super) fn item_added(
        &mut self,
        output_index: u64,
        item: Map<String, Value>,
        out: &mut Vec<AgentEvent>,
    ) {
        if item.get("type").and_then(Value::as_str) == Some("message") {
            self.message_added(output_index, &item);
            return;
        }
        let Some((id, name)) = tool_of(&item) else {
            return;
        };
        self.tools.entry(id.clone()).or_default().name = Some(name);
        if let Some((name, arguments)) = call_of(&item) {
            self.announce(&id, name, arguments, out);
        }
    }

    /// A custom tool's input (or a function's arguments) is complete: show the call with it.
    pub(super) fn tool_input_done(&mut self, obj: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let Some(id) = super::string(obj, "item_id") else {
            return;
        };
        let mut item = Map::new();
        item.insert("id".into(), Value::from(id.clone()));
        item.insert("type".into(), Value::from("custom_tool_call"));
        let name =
            super::string(obj, "name").or_else(|| self.tools.get(&id).and_then(|t| t.name.clone()));
        if let Some(name) = name {
            item.insert("name".into(), Value::from(name));
        }
        let input = obj.get("input").or_else(|| obj.get("arguments"));
        item.insert("input".into(), input.cloned().unwrap_or(Value::Null));
        self.tool_done(&item, out);
    }

    /// A tool call finished: show it if that has not happened, then trace its query and results.
    pub(super) fn tool_done(&mut self, item: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let Some((id, tool)) = tool_of(item) else {
            return;
        };
        let entry = self.tools.entry(id.clone()).or_default();
        if entry.traced {
            return;
        }
        let call = call_of(item);
        let sources = sources_of(item);
        if call.is_none() && sources.as_ref().is_none_or(Vec::is_empty) && is_web_search(item) {
            // Nothing to say: an empty web search item.
            return;
        }
        entry.traced = true;
        let (name, arguments) = call.unwrap_or_else(|| (tool, json!({})));
        let query = arguments
            .get("query")
            .and_then(Value::as_str)
            .filter(|q| !q.is_empty())
            .map(str::to_owned);
        self.announce(&id, name.clone(), arguments, out);
        if query.is_some() || sources.is_some() {
            out.push(AgentEvent::Audit {
                role: None,
                traces: vec![AuditTrace {
                    audit_type: name,
                    tool_id: Some(id),
                    query,
                    title: None,
                    result_count: sources.as_ref().map(Vec::len),
                    raw: Value::Object(item.clone()),
                }],
            });
        }
        if let Some(docs) = sources {
            self.consult(docs, out);
        }
    }

    fn announce(&mut self, id: &str, name: String, arguments: Value, out: &mut Vec<AgentEvent>) {
        let entry = self.tools.entry(id.to_owned()).or_default();
        if entry.announced {
            return;
        }
        entry.announced = true;
        out.push(AgentEvent::ToolCall {
            role: None,
            tool_name: name,
            arguments,
        });
    }

    /// Summary text of a reasoning item as it streams.
    pub(super) fn reasoning_delta(
        &mut self,
        item_id: Option<String>,
        text: String,
        out: &mut Vec<AgentEvent>,
    ) {
        if text.is_empty() {
            return;
        }
        if let Some(id) = &item_id {
            self.reasoned.insert(id.clone());
        }
        out.push(AgentEvent::Thinking {
            message_id: item_id,
            role: None,
            text,
        });
    }

    /// A second (third, …) summary part of the same reasoning item starts a new paragraph.
    pub(super) fn reasoning_part_added(
        &mut self,
        obj: &Map<String, Value>,
        out: &mut Vec<AgentEvent>,
    ) {
        if let Some(id) = super::string(obj, "item_id")
            && super::index_of(obj, "summary_index") > 0
            && self.reasoned.contains(&id)
        {
            self.reasoning_delta(Some(id), "\n\n".into(), out);
        }
    }

    /// A finished reasoning item whose summary never streamed: its summary parts, whole.
    pub(super) fn reasoning_done(&mut self, item: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let Some(id) = super::string(item, "id") else {
            return;
        };
        if self.reasoned.contains(&id) {
            return;
        }
        let parts: Vec<&str> = item
            .get("summary")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .filter(|text| !text.is_empty())
            .collect();
        self.reasoning_delta(Some(id), parts.join("\n\n"), out);
    }
}

/// The id and tool name of a tool-call output item (`web_search_call`, `custom_tool_call`,
/// `function_call`, any `*_call`).
pub(super) fn tool_of(item: &Map<String, Value>) -> Option<(String, String)> {
    let kind = item.get("type").and_then(Value::as_str)?;
    if !kind.ends_with("_call") {
        return None;
    }
    let id = item
        .get("id")
        .or_else(|| item.get("call_id"))
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())?
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

fn is_web_search(item: &Map<String, Value>) -> bool {
    item.get("type").and_then(Value::as_str) == Some("web_search_call")
}

/// What a tool call shows, once there is something to show: its name and arguments. A web search
/// action is named for what it does (`web_search`, `open_page`, `find_in_page`); a custom tool's
/// `input` (or a function's `arguments`) is parsed when it is JSON text.
fn call_of(item: &Map<String, Value>) -> Option<(String, Value)> {
    let (_, name) = tool_of(item)?;
    if let Some(action) = item.get("action").and_then(Value::as_object) {
        let field = |key: &str| {
            action
                .get(key)
                .and_then(Value::as_str)
                .filter(|v| !v.is_empty())
        };
        return match action.get("type").and_then(Value::as_str) {
            Some("open_page") => Some(("open_page".into(), json!({ "url": field("url")? }))),
            Some("find_in_page") => Some((
                "find_in_page".into(),
                json!({ "pattern": field("pattern")?, "url": field("url")? }),
            )),
            _ => Some((name, json!({ "query": field("query")? }))),
        };
    }
    let arguments = match item.get("input").or_else(|| item.get("arguments"))? {
        Value::String(text) if text.trim().is_empty() => return None,
        Value::String(text) => serde_json::from_str::<Value>(text)
            .ok()
            .filter(Value::is_object)
            .unwrap_or_else(|| json!({ "input": text })),
        Value::Object(object) if object.is_empty() => return None,
        Value::Null => return None,
        other => other.clone(),
    };
    Some((name, arguments))
}

/// The result URLs of a web search action, when it lists them.
/// A search's sources: web pages by URL, and those without one (`{"type": "api", "name": …}`, a
/// data API the search consulted) by their name.
fn sources_of(item: &Map<String, Value>) -> Option<Vec<SourceDoc>> {
    let sources = item.get("action")?.get("sources")?.as_array()?;
    let text = |source: &Value, key: &str| {
        source
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    Some(
        sources
            .iter()
            .filter_map(|s| match s {
                Value::String(url) if !url.is_empty() => Some(source_doc(url, None)),
                other => match text(other, "url") {
                    Some(url) => Some(source_doc(&url, None)),
                    None => text(other, "name").map(|name| SourceDoc {
                        kind: text(other, "type").map(|t| t.to_ascii_uppercase()),
                        id: Some(name.clone()),
                        headline: Some(name.clone()),
                        src_name: Some(name),
                        ..SourceDoc::default()
                    }),
                },
            })
            .collect(),
    )
}
