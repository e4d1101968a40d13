//! `--format markdown`: the answer with `[^n]` footnote markers and a footnote list of sources.
//! Sources the answer cites without a position get their `[^n]` on one line after the answer, so
//! every footnote is referenced (Markdown renderers drop footnotes nothing refers to).

use std::fmt::Write;

use crate::model::citations::Attribution;
use crate::model::session::Session;
use crate::render::sanitize::{sanitize, sanitize_line};

pub fn render(session: &Session, attribution: &Attribution) -> String {
    let mut out = super::annotate(session.answer.as_str(), attribution, sanitize, |n, out| {
        let _ = write!(out, "[^{n}]");
    });
    let mut unplaced = attribution.unplaced().peekable();
    if unplaced.peek().is_some() {
        blank_line_after(&mut out);
        out.push_str("*Cited without a position:*");
        for source in unplaced {
            let _ = write!(out, " [^{}]", source.n);
        }
        out.push('\n');
    }
    let mut sources = attribution.numbered().peekable();
    if sources.peek().is_some() {
        blank_line_after(&mut out);
        for source in sources {
            let label = escape_label(&sanitize_line(&source.label));
            match &source.url {
                Some(url) => {
                    let _ = writeln!(
                        out,
                        "[^{}]: [{label}]({})",
                        source.n,
                        escape_url(&sanitize_line(url))
                    );
                }
                None => {
                    let _ = writeln!(out, "[^{}]: {label}", source.n);
                }
            }
        }
        out.pop();
    }
    let mut tools = attribution.tool_citations().peekable();
    if tools.peek().is_some() {
        blank_line_after(&mut out);
        out.push_str("**Tool-level citations**\n\n");
        for citation in tools {
            let text = sanitize_line(citation.text(session.answer.as_str()));
            // A backtick would end the code span early.
            let tool =
                sanitize_line(citation.tool_name.as_deref().unwrap_or("tool")).replace('`', "'");
            let _ = match &citation.audit_id {
                Some(audit) => writeln!(out, "- `{tool}` ({}): “{text}”", sanitize_line(audit)),
                None => writeln!(out, "- `{tool}`: “{text}”"),
            };
        }
        out.pop();
    }
    out.push('\n');
    out
}

/// End `out` with exactly one blank line without touching the answer's own trailing newlines.
fn blank_line_after(out: &mut String) {
    let trailing = out.bytes().rev().take_while(|&b| b == b'\n').count();
    for _ in trailing..2 {
        out.push('\n');
    }
}

/// A label inside `[…]` must not close the link early.
fn escape_label(label: &str) -> String {
    label
        .replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

/// Characters that would end or break a Markdown link destination are percent-encoded.
fn escape_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            '\\' => out.push_str("%5C"),
            c => out.push(c),
        }
    }
    out
}
