//! One activity item as rows: thinking (folded to one row, its start wrapped, or expanded as the
//! Markdown it is), a tool call with an argument summary (or its arguments pretty-printed), an
//! audit's result, tool errors, retries, charts.

use ratatui::style::{Modifier, Style};
use serde_json::Value;

use super::super::{clean, piece, truncate};
use crate::model::event::Role;
use crate::model::session::{Activity, Session};
use crate::styled::text::oneline::truncate_pieces;
use crate::styled::text::{Piece, RLine, inline_text, render_block, wrap};
use crate::styled::theme::Theme;

/// A short summary of tool arguments: the query when there is one, else `key=value` pairs.
pub fn summarize_args(args: &Value) -> String {
    let scalar = |v: &Value| -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Array(items) => {
                let parts: Vec<String> = items
                    .iter()
                    .filter_map(|i| match i {
                        Value::String(s) => Some(s.clone()),
                        Value::Number(n) => Some(n.to_string()),
                        _ => None,
                    })
                    .collect();
                (!parts.is_empty()).then(|| parts.join(","))
            }
            _ => None,
        }
    };
    match args {
        Value::Object(map) => {
            for key in ["query", "q", "question", "search_query", "text", "prompt"] {
                if let Some(Value::String(s)) = map.get(key) {
                    return format!("\"{s}\"");
                }
            }
            let mut parts = Vec::new();
            for key in ["ticker", "tickers", "symbol", "company", "name"] {
                if let Some(v) = map.get(key).and_then(scalar) {
                    parts.push(v);
                }
            }
            for (key, value) in map {
                if ["ticker", "tickers", "symbol", "company", "name"].contains(&key.as_str()) {
                    continue;
                }
                if let Some(v) = scalar(value) {
                    parts.push(format!("{key}={v}"));
                }
            }
            parts.join(" ")
        }
        Value::String(s) => format!("\"{s}\""),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn role_prefix(role: &Role, theme: &Theme) -> Vec<Piece> {
    match role {
        Some(role) => vec![
            piece("  ", theme.muted()),
            piece(format!("{} › ", clean(role)), theme.accent()),
        ],
        None => Vec::new(),
    }
}

/// How much of an item is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fold {
    /// One row, cut at the pane's width.
    Folded,
    /// Its one-row form wrapped (the newest or selected item).
    Wrapped,
    /// Everything (Enter): the whole thought, the arguments pretty-printed.
    Expanded,
}

/// The rows of `pieces`: one row cut to `width`, or (`wrapped`) all of them wrapped under an indent.
fn fit(mut pieces: Vec<Piece>, width: usize, wrapped: bool) -> Vec<RLine> {
    if wrapped {
        let indent = [piece("    ", Style::new())];
        // Wrapping drops the spaces a row starts with: the row's own indent (an audit's under
        // its tool call) goes before it as the first row's prefix, so the item stays in line
        // with the others when it is the selected or newest one.
        let lead = pieces
            .first()
            .map_or(0, |p| p.text.len() - p.text.trim_start().len());
        let first = match lead {
            0 => Vec::new(),
            _ => {
                let head = &mut pieces[0];
                let spaces = head.text[..lead].to_owned();
                head.text.drain(..lead);
                vec![piece(spaces, head.style)]
            }
        };
        wrap(&pieces, width, &first, &indent)
    } else {
        one_row(pieces, width)
    }
}

/// One activity item as rows.
pub(super) fn item_rows(
    session: &Session,
    item: &Activity,
    fold: Fold,
    width: usize,
    theme: &Theme,
) -> Vec<RLine> {
    let wrapped = fold == Fold::Wrapped;
    match item {
        Activity::Thinking { role, text, .. } => thinking_rows(role, text, fold, width, theme),
        Activity::ToolCall {
            role,
            tool_name,
            arguments,
        } => tool_call_rows(role, tool_name, arguments, fold, width, theme),
        Activity::Audit { role, trace } => audit_rows(session, role, *trace, fold, width, theme),
        Activity::ToolError { tool_name, error } => flagged_rows(
            "✖ ",
            theme.error(),
            vec![
                piece(format!("{}: ", clean(tool_name)), theme.error()),
                piece(clean(error), theme.error()),
            ],
            width,
        ),
        Activity::Retry { message } => flagged_rows(
            "↻ ",
            theme.warning(),
            vec![piece(format!("retry: {}", clean(message)), theme.warning())],
            width,
        ),
        Activity::Chart { index } => {
            let title = session
                .charts
                .get(*index)
                .and_then(|c| c.title.clone())
                .unwrap_or_else(|| "chart".into());
            fit(
                vec![
                    piece("▦ ", theme.accent()),
                    piece(format!("chart: {}", clean(&title)), theme.text()),
                ],
                width,
                wrapped,
            )
        }
        Activity::Error { message } => flagged_rows(
            "✖ ",
            theme.error(),
            vec![piece(format!("error: {}", clean(message)), theme.error())],
            width,
        ),
    }
}

/// An audit: how many results it found and its query (or title), the whole of it when expanded.
fn audit_rows(
    session: &Session,
    role: &Role,
    trace: usize,
    fold: Fold,
    width: usize,
    theme: &Theme,
) -> Vec<RLine> {
    let wrapped = fold == Fold::Wrapped;
    let mut row = role_prefix(role, theme);
    row.push(piece("  ⌕ ", theme.muted()));
    let Some(trace) = session.audits.get(trace) else {
        return fit(row, width, wrapped);
    };
    let what = match (&trace.query, &trace.title) {
        (Some(q), _) => format!("\"{}\"", clean(q)),
        (None, Some(t)) => clean(t),
        (None, None) => clean(&trace.audit_type),
    };
    if let Some(n) = trace.result_count {
        row.push(piece(
            format!("{n} result{} ", if n == 1 { "" } else { "s" }),
            theme.success(),
        ));
    }
    if fold == Fold::Expanded {
        // The whole query or title, wrapped.
        let indent = vec![piece("      ", theme.muted())];
        let mut rows = vec![RLine { pieces: row }];
        rows.extend(wrap(&[piece(what, theme.muted())], width, &indent, &indent));
        return rows;
    }
    row.push(piece(what, theme.muted()));
    fit(row, width, wrapped)
}

/// Rows of wrapped thinking shown before it is expanded.
const WRAPPED_THINKING_ROWS: usize = 4;

/// Thinking: folded to the start of one row, its start wrapped over a few rows, or (expanded) every
/// line of it wrapped.
fn thinking_rows(role: &Role, text: &str, fold: Fold, width: usize, theme: &Theme) -> Vec<RLine> {
    let style = theme.muted().add_modifier(Modifier::ITALIC);
    let mut head = role_prefix(role, theme);
    if fold != Fold::Expanded {
        head.push(piece("▸ ", theme.muted()));
        let rows_wanted = if fold == Fold::Wrapped {
            WRAPPED_THINKING_ROWS
        } else {
            1
        };
        // Reasoning summaries are Markdown (`**Checking margins**`): their words, not the marks.
        let raw_start = self::head(text.trim_start(), width * rows_wanted);
        head.push(piece(clean(&inline_text(raw_start)), style));
        let mut rows = fit(head, width, fold == Fold::Wrapped);
        let more = rows.len() > rows_wanted || raw_start.len() < text.trim().len();
        if fold == Fold::Wrapped && more {
            rows.truncate(rows_wanted);
            if let Some(last) = rows.last_mut() {
                let kept = truncate(&last.text(), width.saturating_sub(1));
                let kept = kept.trim_end_matches('…');
                *last = RLine {
                    pieces: vec![piece(format!("{kept}…"), style)],
                };
            }
        }
        return rows;
    }
    head.push(piece("▾ thinking", theme.muted()));
    let mut rows = vec![RLine { pieces: head }];
    // Rendered as the Markdown it is, in the thinking style (bold kept).
    let blocks = render_block(text, 0, &[], &[], width.saturating_sub(4), theme);
    for mut row in blocks {
        for piece in &mut row.pieces {
            piece.style = style.add_modifier(piece.style.add_modifier & Modifier::BOLD);
        }
        row.pieces.insert(0, self::piece("    ", theme.muted()));
        rows.push(row);
    }
    rows
}

/// A tool call: its name and an argument summary, or (expanded) the arguments pretty-printed.
fn tool_call_rows(
    role: &Role,
    tool_name: &str,
    arguments: &Value,
    fold: Fold,
    width: usize,
    theme: &Theme,
) -> Vec<RLine> {
    let mut row = role_prefix(role, theme);
    row.push(piece("⚙ ", theme.accent()));
    row.push(piece(
        clean(tool_name),
        theme.text().add_modifier(Modifier::BOLD),
    ));
    if fold != Fold::Expanded {
        let summary = summarize_args(arguments);
        if !summary.is_empty() {
            row.push(piece(format!(" {}", clean(&summary)), theme.text()));
        }
        return fit(row, width, fold == Fold::Wrapped);
    }
    let mut rows = vec![RLine { pieces: row }];
    let pretty = serde_json::to_string_pretty(arguments).unwrap_or_default();
    for line in pretty.lines() {
        let indent = line.len() - line.trim_start().len();
        let first = vec![piece(" ".repeat(4 + indent), theme.muted())];
        let cont = vec![piece(" ".repeat(6 + indent), theme.muted())];
        rows.extend(wrap(
            &[piece(clean(line.trim_start()), theme.code())],
            width,
            &first,
            &cont,
        ));
    }
    rows
}

/// One row cut to fit `width`, `…` where it is cut (in the last piece, or an earlier one when
/// that alone is too wide: a long tool name).
fn one_row(pieces: Vec<Piece>, width: usize) -> Vec<RLine> {
    vec![RLine {
        pieces: truncate_pieces(pieces, width),
    }]
}

/// `pieces` wrapped after a `glyph` in `style`, continuation rows indented under it.
fn flagged_rows(glyph: &str, style: Style, pieces: Vec<Piece>, width: usize) -> Vec<RLine> {
    let first = vec![piece(glyph, style)];
    let cont = vec![piece("  ", style)];
    wrap(&pieces, width, &first, &cont)
}

/// The start of `text` (whole characters), enough for one row of `width` columns.
pub(super) fn head(text: &str, width: usize) -> &str {
    &text[..text.floor_char_boundary((width + 1) * 4)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn argument_summaries_prefer_the_query_then_tickers() {
        assert_eq!(
            summarize_args(&json!({"query": "NVIDIA Q2 FY26 revenue", "entity_ids": ["x"]})),
            "\"NVIDIA Q2 FY26 revenue\""
        );
        assert_eq!(
            summarize_args(&json!({"entity_id": "D8442A", "ticker": "NVDA"})),
            "NVDA entity_id=D8442A"
        );
        assert_eq!(summarize_args(&Value::Null), "");
    }

    #[test]
    fn a_tool_call_row_too_wide_ends_in_an_ellipsis_even_when_the_name_alone_is() {
        use crate::styled::text::test_support::{plain, theme};
        let args = json!({"query": "NVIDIA data-center revenue"});
        let row = |width| {
            plain(&tool_call_rows(
                &None,
                "get_market_tearsheet_for_company",
                &args,
                Fold::Folded,
                width,
                &theme(),
            ))
        };
        // The summary cut, then the name itself.
        assert_eq!(
            row(48),
            ["⚙ get_market_tearsheet_for_company \"NVIDIA data…"]
        );
        assert_eq!(row(20), ["⚙ get_market_tearsh…"]);
        assert!(unicode_width::UnicodeWidthStr::width(row(20)[0].as_str()) <= 20);
    }

    #[test]
    fn reasoning_summaries_show_their_words_not_their_markdown_marks() {
        use crate::styled::text::test_support::{plain, theme};
        let text = "**Checking margins**\n\nNVIDIA's gross margin was `75%` in Q2.";
        let folded = plain(&thinking_rows(&None, text, Fold::Folded, 60, &theme()));
        assert_eq!(
            folded,
            ["▸ Checking margins NVIDIA's gross margin was 75% in Q2."]
        );
        let expanded = thinking_rows(&None, text, Fold::Expanded, 60, &theme());
        assert_eq!(
            plain(&expanded),
            [
                "▾ thinking",
                "    Checking margins",
                "",
                "    NVIDIA's gross margin was 75% in Q2."
            ]
        );
        let title = &expanded[1].pieces[1];
        assert!(title.style.add_modifier.contains(Modifier::BOLD));
        assert!(title.style.add_modifier.contains(Modifier::ITALIC));
    }
}
