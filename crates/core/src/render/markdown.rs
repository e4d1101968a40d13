//! `--format markdown`: the answer with `[^n]` footnote markers and a footnote list of sources (in a
//! document of several answers, `[^2-n]` from the second on: [`render_part`]).
//! Sources the answer cites without a position get their `[^n]` on one line after the answer, so
//! every footnote is referenced (Markdown renderers drop footnotes nothing refers to). Each chart
//! sits after the paragraph its span ends in (after the answer when it has none) as its title,
//! caption and a fenced `vega-lite` block holding its spec (viewers that render Vega-Lite draw it);
//! the structured output follows the answer as a table and its JSON. A turn that went wrong says
//! so after the answer: its tool errors, and the agent's error (or the provider's cancellation) as a
//! `> **Error:** …` blockquote.

use std::fmt::Write;
use std::io;

use crate::model::citations::Attribution;
use crate::model::event::Chart;
use crate::model::session::Session;
use crate::model::structured::table_of;
use crate::render::out::{Out, to_string};
use crate::render::sanitize::{sanitize, sanitize_line};
use crate::render::table_text;

/// The `[^n]: [label](url)` line of every numbered source, after a blank line (the last without
/// its newline); `part` goes before each `n` (see [`render_part`]).
fn footnotes<W: io::Write>(out: &mut Out<W>, attribution: &Attribution, part: &str) {
    let mut sources = attribution.numbered().peekable();
    if sources.peek().is_none() {
        return;
    }
    out.blank_line_after();
    for (i, source) in sources.enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let label = escape_label(&sanitize_line(&source.label));
        let _ = match &source.url {
            Some(url) => write!(
                out,
                "[^{part}{}]: [{label}]({})",
                source.n,
                escape_url(&sanitize_line(url))
            ),
            None => write!(out, "[^{part}{}]: {label}", source.n),
        };
    }
}

pub fn render(session: &Session, attribution: &Attribution) -> String {
    render_part(session, attribution, 1)
}

/// [`render`] as part `part` (from 1) of a document holding several answers (the turns of a
/// conversation, the agents of a comparison): from the second part on, each footnote's label
/// carries the part (`[^2-1]`), since a document's footnote labels must be unique — a renderer
/// takes a label's first definition, so a repeated `[^1]` would send the second answer's first
/// citation to the first answer's source.
pub fn render_part(session: &Session, attribution: &Attribution, part: usize) -> String {
    let part = match part {
        0 | 1 => String::new(),
        part => format!("{part}-"),
    };
    to_string(|out| render_into(out, session, attribution, &part))
}

/// [`render`] written to `out` as it is rendered (the document is never held whole).
pub fn write(session: &Session, attribution: &Attribution, out: impl io::Write) -> io::Result<()> {
    let mut out = Out::new(out);
    render_into(&mut out, session, attribution, "");
    out.finish().map(drop)
}

fn render_into<W: io::Write>(
    out: &mut Out<W>,
    session: &Session,
    attribution: &Attribution,
    part: &str,
) {
    let (inline, after): (Vec<_>, Vec<_>) = session
        .charts
        .iter()
        .map(|chart| (chart_anchor(session.answer.as_str(), chart), chart))
        .partition(|(at, _)| at.is_some());
    let mut inserts: Vec<(usize, String)> = inline
        .into_iter()
        .filter_map(|(at, chart)| {
            let block = to_string(|block| {
                block.push('\n');
                chart_block(block, chart);
            });
            Some((at?, block))
        })
        .collect();
    inserts.sort_by_key(|(at, _)| *at);
    super::annotate_with(
        out,
        session.answer.as_str(),
        attribution,
        sanitize,
        |n, out| {
            let _ = write!(out, "[^{part}{n}]");
        },
        &inserts,
    );
    let mut unplaced = attribution.unplaced().peekable();
    if unplaced.peek().is_some() {
        out.blank_line_after();
        out.push_str("*Cited without a position:*");
        for source in unplaced {
            let _ = write!(out, " [^{part}{}]", source.n);
        }
        out.push('\n');
    }
    for (_, chart) in after {
        out.blank_line_after();
        chart_block(out, chart);
    }
    if let Some(structured) = &session.structured_output {
        out.blank_line_after();
        out.push_str("**Structured output**\n\n");
        out.push_str(&table_text::markdown(&table_of(&structured.content)));
        out.push('\n');
        let pretty = serde_json::to_string_pretty(&structured.content).unwrap_or_default();
        fenced(out, "json", &pretty);
    }
    outcome(out, session);
    footnotes(out, attribution, part);
    tool_citations(out, session, attribution);
    out.push('\n');
}

/// How the turn went wrong, after the answer, so a document never looks like a finished answer
/// when it is not: the tools that failed, then the agent's error (or the provider's cancellation)
/// as a blockquote (the last without its newline). Untrusted text is sanitised and its Markdown escaped.
fn outcome<W: io::Write>(out: &mut Out<W>, session: &Session) {
    if !session.tool_errors.is_empty() {
        out.blank_line_after();
        out.push_str("**Tool errors**\n");
        for (tool, error) in &session.tool_errors {
            let tool = sanitize_line(tool).replace('`', "'");
            let _ = write!(
                out,
                "\n- `{tool}`: {}",
                escape_inline(&sanitize_line(error))
            );
        }
    }
    let ending = match (&session.error, &session.cancelled) {
        (Some(error), _) => Some(("Error", error)),
        (None, Some(reason)) => Some(("Cancelled by the provider", reason)),
        (None, None) => None,
    };
    if let Some((what, why)) = ending {
        out.blank_line_after();
        let _ = write!(out, "> **{what}:** {}", escape_inline(&sanitize_line(why)));
    }
}

/// The tool-level citations, after a blank line (the last without its newline).
fn tool_citations<W: io::Write>(out: &mut Out<W>, session: &Session, attribution: &Attribution) {
    let mut tools = attribution.tool_citations().peekable();
    if tools.peek().is_none() {
        return;
    }
    out.blank_line_after();
    out.push_str("**Tool-level citations**\n");
    for citation in tools {
        let text = sanitize_line(citation.text(session.answer.as_str()));
        // A backtick would end the code span early.
        let tool = sanitize_line(citation.tool_name.as_deref().unwrap_or("tool")).replace('`', "'");
        let _ = match &citation.audit_id {
            Some(audit) => write!(out, "\n- `{tool}` ({}): “{text}”", sanitize_line(audit)),
            None => write!(out, "\n- `{tool}`: “{text}”"),
        };
    }
}

/// Where a chart goes inside the answer: after the paragraph its span ends in (at the first blank
/// line after its end, outside code fences). `None` without a span, or when no blank line follows
/// it: the chart then follows the answer.
fn chart_anchor(answer: &str, chart: &Chart) -> Option<usize> {
    let end = usize::try_from(chart.end?).ok()?;
    let end_byte = answer
        .char_indices()
        .nth(end)
        .map_or(answer.len(), |(b, _)| b);
    let mut in_fence = false;
    let mut line_start = 0;
    for line in answer.split_inclusive('\n') {
        let here = line_start;
        line_start += line.len();
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        }
        if here >= end_byte && !in_fence && line.trim().is_empty() {
            return Some(here);
        }
    }
    None
}

/// `**Title**`, the caption in italics, then the spec in a `vega-lite` fence (the data points in a
/// `json` one when there is no spec).
fn chart_block<W: io::Write>(out: &mut Out<W>, chart: &Chart) {
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
    fenced(out, lang, &body.pretty());
}

/// `body` in a code fence longer than any run of backticks inside it.
fn fenced<W: io::Write>(out: &mut Out<W>, lang: &str, body: &str) {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(out, "{fence}{lang}\n{}\n{fence}", sanitize(body));
}

/// Text inside `**…**` or `*…*`: Markdown's emphasis and link characters escaped.
pub(crate) fn escape_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '_' | '[' | ']' | '`' | '\\' | '<') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A label inside `[…]` must not close the link early.
fn escape_label(label: &str) -> String {
    label
        .replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

/// Characters that would end or break a Markdown link destination are percent-encoded.
pub(crate) fn escape_url(url: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn chart_ending_at(end: Option<u64>) -> Chart {
        Chart {
            end,
            ..Chart::default()
        }
    }

    #[test]
    fn a_chart_goes_after_the_paragraph_its_span_ends_in_outside_code_fences() {
        let answer = "Intro.\n\nRevenue grew (a €1 rise).\nStill the same paragraph.\n\n```\ncode\n\nmore\n```\n\nEnd.";
        let grew = answer.find("grew").unwrap();
        let cp = |byte: usize| answer[..byte].chars().count() as u64;
        let blank = answer.find("paragraph.\n\n").unwrap() + "paragraph.\n".len();
        assert_eq!(
            chart_anchor(answer, &chart_ending_at(Some(cp(grew)))),
            Some(blank)
        );
        let in_code = answer.find("code").unwrap();
        let after_fence = answer.find("```\n\nEnd").unwrap() + "```\n".len();
        assert_eq!(
            chart_anchor(answer, &chart_ending_at(Some(cp(in_code)))),
            Some(after_fence)
        );
        let end = answer.find("End").unwrap();
        assert_eq!(chart_anchor(answer, &chart_ending_at(Some(cp(end)))), None);
        assert_eq!(chart_anchor(answer, &chart_ending_at(None)), None);
    }
}
