//! xAI tool calls: `web_search_call`, `x_search_call` and custom or function tool calls announced
//! when their output item is added, and traced (query, result count) when it is done.

use serde_json::{Map, Value, json};

use super::XaiDialect;
use super::citations::source_doc;
use crate::model::event::{AgentEvent, AuditTrace};

impl XaiDialect {
    pub(super) fn item_added(&mut self, item: Map<String, Value>, out: &mut Vec<AgentEvent>) {
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

    pub(super) fn item_done(
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

    /// A custom tool's input (or a function's arguments) is complete: trace the call with it.
    pub(super) fn tool_input_done(&mut self, obj: &Map<String, Value>, out: &mut Vec<AgentEvent>) {
        let Some(id) = super::string(obj, "item_id") else {
            return;
        };
        let input = obj
            .get("input")
            .or_else(|| obj.get("arguments"))
            .cloned()
            .unwrap_or(Value::Null);
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

    /// A tool call finished: announce it if that never happened, then trace its query and results.
    pub(super) fn trace_tool(&mut self, item: Map<String, Value>, out: &mut Vec<AgentEvent>) {
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
