//! `--format json`: one object for scripts. Text is exact (JSON escaping makes it safe).

use serde_json::{Value, json};

use crate::citations::Attribution;
use crate::session::Session;

pub fn render(session: &Session, attribution: &Attribution) -> String {
    let mut text =
        serde_json::to_string_pretty(&to_value(session, attribution)).unwrap_or_default();
    text.push('\n');
    text
}

pub fn to_value(session: &Session, attribution: &Attribution) -> Value {
    let answer = session.answer.as_str();
    let plan = session.plan.as_ref().map(|plan| {
        json!({
            "title": plan.title,
            "steps": plan.steps.iter().map(|step| json!({
                "description": step.description,
                "status": step.status.as_wire(),
            })).collect::<Vec<_>>(),
        })
    });
    let sources: Vec<Value> = attribution
        .numbered()
        .map(|source| {
            json!({
                "n": source.n,
                "key": source.key,
                "kind": source.kind,
                "headline": source.headline,
                "publisher": source.publisher,
                "date": source.date.map(|d| d.iso()),
                "url": source.url,
                "label": source.label,
            })
        })
        .collect();
    let citations: Vec<Value> = attribution
        .citations
        .iter()
        .map(|citation| {
            json!({
                "start": citation.start,
                "end": citation.end,
                "text": citation.text(answer),
                "source": citation.source,
                "tool_name": citation.tool_name,
                "audit_id": citation.audit_id,
                "query": citation.query,
            })
        })
        .collect();
    let consulted: Vec<Value> = attribution
        .sources
        .iter()
        .filter(|s| s.consulted_only)
        .map(|s| json!({"key": s.key, "headline": s.headline, "url": s.url, "label": s.label}))
        .collect();
    let mut value = json!({
        "chat_id": session.ids.chat_id,
        "execution_id": session.ids.execution_id,
        "status": session.status().as_str(),
        "error": session.error,
        "checkpoint_id": session.checkpoint_id(),
        "plan": plan,
        "answer": answer,
        "sources": sources,
        "citations": citations,
        "structured_output": session.structured_output.as_ref().map(|s| s.content.clone()),
        "consumption": session.completion.as_ref().map(|c| {
            c.consumption.iter().map(|item| item.raw.clone()).collect::<Vec<_>>()
        }),
        "tool_errors": session.tool_errors.iter().map(|(tool, error)| json!({
            "tool_name": tool,
            "error": error,
        })).collect::<Vec<_>>(),
        "stats": {
            "events": session.stats.events,
            "malformed": session.stats.malformed,
            "unknown": session.stats.unknown,
            "invalid_references": attribution.invalid_references,
        },
    });
    if !consulted.is_empty() {
        value["consulted_sources"] = Value::Array(consulted);
    }
    value
}
