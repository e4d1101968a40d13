//! A source's detail: label, headline, publisher, date, URL, the audit's search query, the chunks or
//! extract text, and every span it supports, as the answer says it in words (for a tool-level
//! citation: the tool, audit and query, and the chart it drew). j/k pick a span ([`SourceRows::spans`] says where each one
//! is), Enter jumps to it.

use std::ops::Range;

use ratatui::style::{Modifier, Style};

use super::super::cited::{charts_of, cited_text, source_label};
use super::super::{clean, piece, select_row, wrap_text};
use crate::model::citations::{Attribution, Citation, Source};
use crate::styled::text::{Piece, RLine, inline_text, wrap};
use crate::styled::theme::Theme;
use crate::tui::state::keymap::Context;
use crate::tui::state::{App, SidebarItem, Turn};

/// A source's detail, laid out.
pub(super) struct SourceRows {
    pub title: String,
    pub rows: Vec<RLine>,
    /// Where each listed span's rows are.
    pub spans: Vec<Range<usize>>,
}

/// The popup's title and rows for a sidebar entry of the turn the panes show; the `picked` span
/// marked.
pub(super) fn source_rows(
    app: &App,
    item: SidebarItem,
    picked: Option<usize>,
    width: usize,
    theme: &Theme,
) -> SourceRows {
    let empty = |title: &str| SourceRows {
        title: title.to_owned(),
        rows: Vec::new(),
        spans: Vec::new(),
    };
    let Some(turn) = app.current() else {
        return empty("Source");
    };
    let a = &turn.attribution;
    let citations = app.item_citations(item);
    let (title, mut rows) = match item {
        SidebarItem::Source(i) => {
            let Some(source) = a.sources.get(i) else {
                return empty("Source");
            };
            let title = if source.consulted_only {
                source_label(source)
            } else {
                format!("[{}] {}", source.n, source_label(source))
            };
            let rows = document_rows(a, source, &citations, width, theme);
            (title, rows)
        }
        SidebarItem::Tool(ci) => {
            let Some(citation) = a.citations.get(ci) else {
                return empty("Tool data");
            };
            let title = format!(
                "Tool data: {}",
                clean(citation.tool_name.as_deref().unwrap_or("tool"))
            );
            (title, tool_rows(app, turn, citation, width, theme))
        }
    };
    let keys = app.keys.fill(
        &[Context::Popup],
        "{down}/{up} pick one, {enter} shows it in the answer",
    );
    let spans = span_rows(
        &mut rows,
        (a, &keys),
        &citations,
        turn.session.answer.as_str(),
        picked,
        width,
        theme,
    );
    SourceRows { title, rows, spans }
}

/// A document's headline, fields, the queries that found it, and its extracts.
fn document_rows(
    a: &Attribution,
    source: &Source,
    citations: &[usize],
    width: usize,
    theme: &Theme,
) -> Vec<RLine> {
    let mut rows = Vec::new();
    if let Some(headline) = &source.headline {
        rows.extend(wrap_text(
            &clean(headline),
            theme.heading(2),
            width,
            Vec::new(),
            Vec::new(),
        ));
        rows.push(RLine::blank());
    }
    // Zeta Alpha's publisher is the title: not repeated.
    if source.headline.as_deref().map(str::trim) != Some(source.publisher.trim()) {
        field(&mut rows, "Publisher", &source.publisher, width, theme);
    }
    if let Some(date) = source.date {
        field(&mut rows, "Date", &date.display(), width, theme);
    }
    if let Some(updated) = &source.doc.updated {
        field(&mut rows, "Updated", updated, width, theme);
    }
    if let Some(url) = &source.url {
        field(&mut rows, "URL", url, width, theme);
    }
    if let Some(kind) = &source.kind {
        field(&mut rows, "Kind", kind, width, theme);
    }
    let mut queries: Vec<&str> = Vec::new();
    for &ci in citations {
        if let Some(q) = a.citations.get(ci).and_then(|c| c.query.as_deref())
            && !queries.contains(&q)
        {
            queries.push(q);
        }
    }
    for q in &queries {
        field(&mut rows, "Query", &format!("\"{q}\""), width, theme);
    }
    if !source.doc.chunks.is_empty() {
        section(&mut rows, "Extracts", theme);
        rows.extend(chunk_rows(source, width, theme));
    }
    if source.doc.text.is_some() {
        section(&mut rows, "Extract", theme);
        rows.extend(extract_rows(
            source.doc.text_pieces(),
            source.headline.as_deref(),
            width,
            theme,
        ));
    }
    if source.consulted_only {
        section(&mut rows, "Consulted, not cited in the answer", theme);
    }
    rows
}

/// A document's chunks: number (or bullet), relevance, text.
fn chunk_rows(source: &Source, width: usize, theme: &Theme) -> Vec<RLine> {
    let mut rows = Vec::new();
    for chunk in &source.doc.chunks {
        let mut tag = String::from("• ");
        if let Some(n) = chunk.cnum {
            tag = format!("#{n} ");
        }
        let mut first = vec![piece(tag, theme.accent())];
        if let Some(r) = chunk.relevance {
            first.push(piece(format!("({r:.2}) "), theme.muted()));
        }
        rows.extend(wrap_text(
            &clean(&chunk.text),
            theme.text(),
            width,
            first,
            vec![piece("   ", Style::new())],
        ));
    }
    rows
}

/// A tool-level citation: the tool, its audit (and the audit's title) and the query.
fn tool_rows(
    app: &App,
    turn: &Turn,
    citation: &Citation,
    width: usize,
    theme: &Theme,
) -> Vec<RLine> {
    let mut rows = Vec::new();
    field(
        &mut rows,
        "Tool",
        citation.tool_name.as_deref().unwrap_or("tool"),
        width,
        theme,
    );
    if let Some(audit) = &citation.audit_id {
        field(&mut rows, "Audit id", audit, width, theme);
        if let Some(t) = turn.session.audit(audit).and_then(|t| t.title.as_ref()) {
            field(&mut rows, "Title", t, width, theme);
        }
    }
    if let Some(q) = &citation.query {
        field(&mut rows, "Query", &format!("\"{q}\""), width, theme);
    }
    // The key that opens a chart in the answer is the panes' `enter`, whatever it is now; with
    // none, a click still does.
    let opens = match app.keys.fill(&[Context::Panes], "{enter} on it") {
        keys if keys.is_empty() => "a click on it".to_owned(),
        keys => keys,
    };
    for chart in charts_of(turn, citation) {
        let title = chart.title.as_deref().unwrap_or("chart");
        let text =
            format!("▦ {title} — drawn in the answer after this span ({opens}: full screen)");
        field(&mut rows, "Chart", &text, width, theme);
    }
    rows
}

/// What `y` copies of tool data: its fields, one a line, and the data of the charts it made (CSV).
pub fn tool_text(turn: &Turn, citation: &Citation) -> String {
    let mut lines = vec![format!(
        "Tool: {}",
        citation.tool_name.as_deref().unwrap_or("tool")
    )];
    if let Some(audit) = &citation.audit_id {
        lines.push(format!("Audit id: {audit}"));
        if let Some(t) = turn.session.audit(audit).and_then(|t| t.title.as_ref()) {
            lines.push(format!("Title: {t}"));
        }
    }
    if let Some(q) = &citation.query {
        lines.push(format!("Query: \"{q}\""));
    }
    for chart in charts_of(turn, citation) {
        lines.push(String::new());
        lines.push(format!(
            "Chart: {}",
            chart.title.as_deref().unwrap_or("chart")
        ));
        if let Some(data) = crate::render::chart_csv::chart_data(chart) {
            lines.push(data.trim_end().to_owned());
        }
    }
    let text: Vec<String> = lines.iter().map(|l| clean_block(l)).collect();
    text.join("\n")
}

/// A line (or a CSV block) with anything unsafe for a clipboard taken out, its line breaks kept.
fn clean_block(text: &str) -> String {
    text.lines().map(clean).collect::<Vec<_>>().join("\n")
}

/// Every span the entry supports, numbered, in words as the answer says them (the `picked` one
/// marked), added to `rows`; where each one is.
fn span_rows(
    rows: &mut Vec<RLine>,
    (a, keys): (&Attribution, &str),
    citations: &[usize],
    answer: &str,
    picked: Option<usize>,
    width: usize,
    theme: &Theme,
) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    if citations.is_empty() {
        return spans;
    }
    section(
        rows,
        &format!(
            "Supports {} span{} · {keys}",
            citations.len(),
            if citations.len() == 1 { "" } else { "s" }
        ),
        theme,
    );
    for (k, &ci) in citations.iter().enumerate() {
        let Some(c) = a.citations.get(ci) else {
            continue;
        };
        let is_picked = picked == Some(k);
        let mark = if is_picked { "▶" } else { " " };
        let first = vec![piece(format!("{mark}{:>2}. ", k + 1), theme.marker())];
        let cont = vec![piece("     ", Style::new())];
        let start = rows.len();
        rows.extend(wrap_text(
            &format!("“{}”", clean(&inline_text(&cited_text(a, c, answer)))),
            theme.text().add_modifier(Modifier::ITALIC),
            width,
            first,
            cont,
        ));
        if is_picked {
            for row in &mut rows[start..] {
                select_row(row, width, theme.selection(true));
            }
        }
        spans.push(start..rows.len());
    }
    spans
}

fn field(rows: &mut Vec<RLine>, name: &str, value: &str, width: usize, theme: &Theme) {
    let label = format!("{name:<11}");
    let first: Vec<Piece> = vec![piece(label, theme.muted())];
    let cont: Vec<Piece> = vec![piece(" ".repeat(11), theme.muted())];
    rows.extend(wrap_text(&clean(value), theme.text(), width, first, cont));
}

fn section(rows: &mut Vec<RLine>, name: &str, theme: &Theme) {
    rows.push(RLine::blank());
    rows.push(RLine {
        pieces: vec![piece(name, theme.heading(3))],
    });
}

/// An extract's rows from its `(text, emphasised)` runs ([`SourceDoc::text_pieces`]), the
/// emphasised ones (a key sentence) bold. A first line that repeats the headline (Zeta Alpha's
/// extracts start with the document's title) is left out.
///
/// [`SourceDoc::text_pieces`]: crate::model::event::SourceDoc::text_pieces
pub fn extract_rows(
    runs: Vec<(&str, bool)>,
    headline: Option<&str>,
    width: usize,
    theme: &Theme,
) -> Vec<RLine> {
    let bold = theme.text().add_modifier(Modifier::BOLD);
    // Lines of (text, bold) runs.
    let mut lines: Vec<Vec<(String, bool)>> = vec![Vec::new()];
    for (run, is_bold) in runs {
        for (k, part) in run.split('\n').enumerate() {
            if k > 0 {
                lines.push(Vec::new());
            }
            if !part.is_empty() {
                lines
                    .last_mut()
                    .expect("one line at least")
                    .push((clean(part), is_bold));
            }
        }
    }
    let first_is_headline = headline.is_some_and(|headline| {
        let first: String = lines[0].iter().map(|(t, _)| t.as_str()).collect();
        !first.trim().is_empty() && first.trim() == clean(headline).trim()
    });
    if first_is_headline && lines.len() > 1 {
        lines.remove(0);
    }
    let mut rows = Vec::new();
    for line in lines {
        if line.iter().all(|(t, _)| t.trim().is_empty()) {
            rows.push(RLine::blank());
            continue;
        }
        let pieces: Vec<Piece> = line
            .into_iter()
            .map(|(t, is_bold)| piece(t, if is_bold { bold } else { theme.text() }))
            .collect();
        rows.extend(wrap(&pieces, width, &[], &[]));
    }
    rows
}
