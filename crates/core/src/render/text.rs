//! `--format text`: for people reading a terminal or a log: the answer with `[n]` markers, its
//! charts drawn in text, a numbered Sources list, tool data, the structured output as a table,
//! errors and the checkpoint id. Charts and tables fit a width: the terminal's, else
//! [`DEFAULT_WIDTH`].

use std::fmt::Write;
use std::io;

use crate::model::citations::Attribution;
use crate::model::session::Session;
use crate::model::structured::table_of;
use crate::render::chart_text::chart_lines;
use crate::render::out::{Out, to_string};
use crate::render::sanitize::{sanitize, sanitize_line};
use crate::render::table_text::aligned;

/// Columns the charts and tables fit when the output is not a terminal.
pub const DEFAULT_WIDTH: usize = 80;

pub fn render(session: &Session, attribution: &Attribution) -> String {
    render_sized(session, attribution, DEFAULT_WIDTH)
}

/// [`render`] with charts and tables fitting `width` columns.
pub fn render_sized(session: &Session, attribution: &Attribution, width: usize) -> String {
    to_string(|out| render_into(out, session, attribution, width))
}

/// [`render_sized`] written to `out` as it is rendered (the document is never held whole).
pub fn write_sized(
    session: &Session,
    attribution: &Attribution,
    width: usize,
    out: impl io::Write,
) -> io::Result<()> {
    let mut out = Out::new(out);
    render_into(&mut out, session, attribution, width);
    out.finish().map(drop)
}

fn render_into<W: io::Write>(
    out: &mut Out<W>,
    session: &Session,
    attribution: &Attribution,
    width: usize,
) {
    super::annotate(
        out,
        session.answer.as_str(),
        attribution,
        sanitize,
        |n, out| {
            let _ = write!(out, "[{n}]");
        },
    );
    if out.trailing_newlines() == 0 {
        out.push('\n');
    }
    out.push_str(&trailer_sized(session, attribution, width));
}

/// Everything after the answer: charts, sources, tool data, structured output, errors, checkpoint.
pub fn trailer(session: &Session, attribution: &Attribution) -> String {
    trailer_sized(session, attribution, DEFAULT_WIDTH)
}

/// The trailer's sections whose lines are laid out to the width (columns, bars), under these
/// headings: a terminal printer must not re-wrap or restyle them, or their columns stop lining up.
pub const LAID_OUT_SECTIONS: [&str; 2] = [CHARTS, STRUCTURED_OUTPUT];
const CHARTS: &str = "Charts";
const STRUCTURED_OUTPUT: &str = "Structured output";

/// [`trailer`] with charts and tables fitting `width` columns.
pub fn trailer_sized(session: &Session, attribution: &Attribution, width: usize) -> String {
    let mut out = String::new();
    let inner = width.saturating_sub(2);
    if !session.charts.is_empty() {
        let _ = writeln!(out, "\n{CHARTS}");
        for (i, chart) in session.charts.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            indented(&mut out, chart_lines(chart, inner));
        }
    }
    sources_sections(&mut out, session, attribution);
    if let Some(structured) = &session.structured_output {
        let _ = writeln!(out, "\n{STRUCTURED_OUTPUT}");
        indented(&mut out, aligned(&table_of(&structured.content), inner));
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
    if session.stats.repeated > 0 {
        // Not silent: the answer is whole, but the stream sent these events more than once.
        let n = session.stats.repeated;
        let s = if n == 1 { "" } else { "s" };
        let _ = writeln!(
            out,
            "\nDropped: {n} repeated event{s} (a resumed stream sent them again)"
        );
    }
    if let Some(checkpoint) = session.checkpoint_id() {
        let _ = writeln!(out, "\nCheckpoint: {}", sanitize_line(checkpoint));
    }
    out
}

/// The trailer's Sources, Also consulted and Tool data sections (each only when it has entries).
fn sources_sections(out: &mut String, session: &Session, attribution: &Attribution) {
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
}

/// `lines` two spaces in (blank lines stay empty).
fn indented(out: &mut String, lines: Vec<String>) {
    for line in lines {
        match line.is_empty() {
            true => out.push('\n'),
            false => {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
}
