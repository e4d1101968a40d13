//! `--format text`: for people reading a terminal or a log: the answer with `[n]` markers, a numbered
//! Sources list, tool data, errors and the checkpoint id.

use std::fmt::Write;

use crate::model::citations::Attribution;
use crate::model::session::Session;
use crate::render::sanitize::{sanitize, sanitize_line};

pub fn render(session: &Session, attribution: &Attribution) -> String {
    let mut out = super::annotate(session.answer.as_str(), attribution, sanitize, |n, out| {
        let _ = write!(out, "[{n}]");
    });
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&trailer(session, attribution));
    out
}

/// Everything after the answer: sources, tool data, structured output, errors, checkpoint.
pub fn trailer(session: &Session, attribution: &Attribution) -> String {
    let mut out = String::new();
    let mut numbered = attribution.numbered().peekable();
    if numbered.peek().is_some() {
        out.push_str("\nSources\n");
        for source in numbered {
            let _ = write!(out, "  [{}] {}", source.n, sanitize_line(&source.label));
            if let Some(headline) = source.headline.as_ref().filter(|h| **h != source.label) {
                let _ = write!(out, " — {}", sanitize_line(headline));
            }
            if source.unplaced() {
                out.push_str(" (cited without a position)");
            }
            out.push('\n');
            if let Some(url) = &source.url {
                let _ = writeln!(out, "      {}", sanitize_line(url));
            }
        }
    }
    let consulted: Vec<_> = attribution
        .sources
        .iter()
        .filter(|s| s.consulted_only)
        .collect();
    if !consulted.is_empty() {
        out.push_str("\nAlso consulted\n");
        for source in consulted {
            let _ = writeln!(
                out,
                "  - {}",
                sanitize_line(source.url.as_deref().unwrap_or(&source.label))
            );
        }
    }
    let mut tools = attribution.tool_citations().peekable();
    if tools.peek().is_some() {
        out.push_str("\nTool data\n");
        for citation in tools {
            let _ = writeln!(
                out,
                "  - {} ({}): “{}”",
                sanitize_line(citation.tool_name.as_deref().unwrap_or("tool")),
                sanitize_line(citation.audit_id.as_deref().unwrap_or("no audit id")),
                sanitize_line(citation.text(session.answer.as_str()))
            );
        }
    }
    if let Some(structured) = &session.structured_output {
        out.push_str("\nStructured output\n");
        let pretty = serde_json::to_string_pretty(&structured.content).unwrap_or_default();
        for line in sanitize(&pretty).lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    if !session.tool_errors.is_empty() {
        out.push_str("\nTool errors\n");
        for (tool, error) in &session.tool_errors {
            let _ = writeln!(out, "  - {}: {}", sanitize_line(tool), sanitize_line(error));
        }
    }
    if let Some(error) = &session.error {
        let _ = writeln!(out, "\nError: {}", sanitize_line(error));
    }
    if let Some(reason) = &session.cancelled {
        let _ = writeln!(
            out,
            "\nCancelled by the provider: {}",
            sanitize_line(reason)
        );
    }
    if let Some(checkpoint) = session.checkpoint_id() {
        let _ = writeln!(out, "\nCheckpoint: {}", sanitize_line(checkpoint));
    }
    out
}
