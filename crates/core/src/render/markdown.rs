//! `--format markdown`: the answer with `[^n]` footnote markers and a footnote list of sources.
//! Sources the answer cites without a position get their `[^n]` on one line after the answer, so
//! every footnote is referenced (Markdown renderers drop footnotes nothing refers to). Charts
//! follow the answer, each its title, caption and a fenced `vega-lite` block holding its spec
//! (viewers that render Vega-Lite draw it); then the structured output as a table and its JSON.

use std::fmt::Write;

use crate::model::citations::Attribution;
use crate::model::event::Chart;
use crate::model::session::Session;
use crate::model::structured::table_of;
use crate::render::sanitize::{sanitize, sanitize_line};
use crate::render::table_text;

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
    for chart in &session.charts {
        blank_line_after(&mut out);
        chart_block(&mut out, chart);
    }
    if let Some(structured) = &session.structured_output {
        blank_line_after(&mut out);
        out.push_str("**Structured output**\n\n");
        out.push_str(&table_text::markdown(&table_of(&structured.content)));
        out.push('\n');
        let pretty = serde_json::to_string_pretty(&structured.content).unwrap_or_default();
        fenced(&mut out, "json", &pretty);
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

/// `**Title**`, the caption in italics, then the spec in a `vega-lite` fence (the data points in a
/// `json` one when there is no spec).
fn chart_block(out: &mut String, chart: &Chart) {
    let title = chart.title.as_deref().unwrap_or("Chart");
    let _ = writeln!(out, "**{}**\n", escape_inline(&sanitize_line(title)));
    if let Some(caption) = chart.caption.as_deref().filter(|c| !c.trim().is_empty()) {
        let _ = writeln!(out, "*{}*\n", escape_inline(&sanitize_line(caption)));
    }
    let (lang, body) = match (&chart.spec, &chart.data_points) {
        (Some(spec), _) => ("vega-lite", spec),
        (None, Some(points)) => ("json", points),
        (None, None) => return,
    };
    fenced(
        out,
        lang,
        &serde_json::to_string_pretty(body).unwrap_or_default(),
    );
}

/// `body` in a code fence longer than any run of backticks inside it.
fn fenced(out: &mut String, lang: &str, body: &str) {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(out, "{fence}{lang}\n{}\n{fence}", sanitize(body));
}

/// Text inside `**…**` or `*…*`: Markdown's emphasis and link characters escaped.
fn escape_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '_' | '[' | ']' | '`' | '\\' | '<') {
            out.push('\\');
        }
        out.push(c);
    }
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
