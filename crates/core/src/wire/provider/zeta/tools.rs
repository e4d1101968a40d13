//! Zeta Alpha tool parts (`content_parts` of type `tool`): a tool call when one first appears, a
//! trace when its status changes.

use serde_json::{Value, json};

use super::{ToolState, ZetaDialect};
use crate::model::event::{AgentEvent, AuditTrace};

impl ZetaDialect {
    /// Tool parts: a tool call when one first appears, a trace when its status changes.
    pub(super) fn tools(&mut self, index: usize, parts: &[Value], out: &mut Vec<AgentEvent>) {
        let message_id = self.messages[index].id.clone().unwrap_or_default();
        let tools = parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("tool"));
        for (k, part) in tools.enumerate() {
            let tool = part.get("tool").filter(|t| t.is_object()).unwrap_or(part);
            let field = |key: &str| {
                tool.get(key)
                    .or_else(|| part.get(key))
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
            };
            let name = field("name").unwrap_or_else(|| "tool".into());
            let status = field("status");
            let display = field("display_text");
            let states = &mut self.messages[index].tools;
            let is_new = k >= states.len();
            if is_new {
                states.push(ToolState::default());
                let arguments = ["params", "arguments", "input", "parameters"]
                    .iter()
                    .find_map(|key| tool.get(*key).filter(|v| !v.is_null()).cloned())
                    .map(super::super::tool_arguments)
                    .unwrap_or_else(|| match &display {
                        Some(text) => json!({ "text": text }),
                        None => json!({}),
                    });
                out.push(AgentEvent::ToolCall {
                    role: None,
                    tool_name: name.clone(),
                    arguments,
                });
            }
            let state = &mut states[k];
            let changed = state.status != status;
            let trace = if is_new {
                status.as_deref().is_some_and(is_settled)
            } else {
                changed
            };
            state.status = status.clone();
            state.display = display.clone();
            if trace {
                let what = display.unwrap_or_else(|| name.clone());
                let title = match &status {
                    Some(status) => format!("{what} ({status})"),
                    None => what,
                };
                out.push(AgentEvent::Audit {
                    role: None,
                    traces: vec![AuditTrace {
                        audit_type: name,
                        tool_id: Some(format!("{message_id}:tool:{k}")),
                        query: None,
                        title: Some(title),
                        result_count: None,
                        raw: part.clone(),
                    }],
                });
            }
        }
    }
}

fn is_settled(status: &str) -> bool {
    matches!(
        status.to_ascii_lowercase().as_str(),
        "done"
            | "complete"
            | "completed"
            | "finished"
            | "success"
            | "succeeded"
            | "failed"
            | "error"
    )
}
