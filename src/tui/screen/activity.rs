//! The activity log: thinking (folded to one line; Enter expands), tool calls with an argument
//! summary, audit results, tool errors and retries; sub-agent rows are indented with their role.
//! The newest item (or the selected one) is wrapped rather than cut, so what the agent is doing now
//! reads whole; the selected item carries a `▶` and, while the pane has the focus, a bar.

use std::collections::HashSet;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::Paragraph;
use serde_json::Value;
use unicode_width::UnicodeWidthStr;

use super::sources::{GUTTER, gutter_row};
use super::{clean, keep_visible, pane_block, pane_inner, piece, plain_lines, title, truncate};
use crate::model::event::Role;
use crate::model::session::{Activity, Session};
use crate::styled::text::{Piece, RLine, inline_text, render_block, wrap};
use crate::styled::theme::Theme;
use crate::tui::state::{App, Focus, Turn};

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
enum Fold {
    /// One row, cut at the pane's width.
    Folded,
    /// Its one-row form wrapped (the newest or selected item).
    Wrapped,
    /// Everything (Enter): the whole thought, the arguments pretty-printed.
    Expanded,
}

/// The rows of `pieces`: one row cut to `width`, or (`wrapped`) all of them wrapped under an indent.
fn fit(pieces: Vec<Piece>, width: usize, wrapped: bool) -> Vec<RLine> {
    if wrapped {
        let indent = [piece("    ", Style::new())];
        wrap(&pieces, width, &[], &indent)
    } else {
        one_row(pieces, width)
    }
}

/// One activity item as rows.
fn item_rows(
    session: &Session,
    item: &Activity,
    fold: Fold,
    width: usize,
    theme: &Theme,
) -> Vec<RLine> {
    let expanded = fold == Fold::Expanded;
    let wrapped = fold == Fold::Wrapped;
    match item {
        Activity::Thinking { role, text, .. } => thinking_rows(role, text, fold, width, theme),
        Activity::ToolCall {
            role,
            tool_name,
            arguments,
        } => tool_call_rows(role, tool_name, arguments, fold, width, theme),
        Activity::Audit { role, trace } => {
            let mut row = role_prefix(role, theme);
            row.push(piece("  ⌕ ", theme.muted()));
            let Some(trace) = session.audits.get(*trace) else {
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
            if expanded {
                // The whole query or title, wrapped.
                let indent = vec![piece("      ", theme.muted())];
                let mut rows = vec![RLine { pieces: row }];
                rows.extend(wrap(&[piece(what, theme.muted())], width, &indent, &indent));
                return rows;
            }
            row.push(piece(what, theme.muted()));
            fit(row, width, wrapped)
        }
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

/// One row, its last piece cut to fit `width`.
fn one_row(mut pieces: Vec<Piece>, width: usize) -> Vec<RLine> {
    let used: usize = pieces.iter().map(|p| p.text.width()).sum();
    if used > width
        && let Some(last) = pieces.last_mut()
    {
        let last_w = last.text.width();
        let keep = width.saturating_sub(used - last_w);
        last.text = truncate(&last.text, keep);
    }
    vec![RLine { pieces }]
}

/// `pieces` wrapped after a `glyph` in `style`, continuation rows indented under it.
fn flagged_rows(glyph: &str, style: Style, pieces: Vec<Piece>, width: usize) -> Vec<RLine> {
    let first = vec![piece(glyph, style)];
    let cont = vec![piece("  ", style)];
    wrap(&pieces, width, &first, &cont)
}

/// Rows of each activity item, kept between frames: an item is re-rendered only when the turn, the
/// width, its fold or (for thinking, which grows) its text length changed.
#[derive(Debug, Default)]
pub struct ActivityCache {
    /// The [`Turn::id`] of the turn the rows belong to.
    turn: Option<u64>,
    width: usize,
    items: Vec<((Fold, usize), Vec<RLine>)>,
}

impl ActivityCache {
    /// Bring the rows up to date with `turn`'s activity at `width`: `expanded` items unfolded, item
    /// `wrapped` wrapped.
    fn sync(
        &mut self,
        turn: &Turn,
        expanded: &HashSet<usize>,
        wrapped: usize,
        width: usize,
        theme: &Theme,
    ) {
        if self.turn != Some(turn.id) || self.width != width {
            *self = ActivityCache {
                turn: Some(turn.id),
                width,
                items: Vec::new(),
            };
        }
        let activity = &turn.session.activity;
        self.items.truncate(activity.len());
        for (i, item) in activity.iter().enumerate() {
            let fold = if expanded.contains(&i) {
                Fold::Expanded
            } else if i == wrapped {
                Fold::Wrapped
            } else {
                Fold::Folded
            };
            let key = item_key(item, fold);
            if self.items.get(i).is_some_and(|(k, _)| *k == key) {
                continue;
            }
            let rows = item_rows(&turn.session, item, fold, width, theme);
            if i < self.items.len() {
                self.items[i] = (key, rows);
            } else {
                self.items.push((key, rows));
            }
        }
    }
}

fn item_key(item: &Activity, fold: Fold) -> (Fold, usize) {
    match item {
        Activity::Thinking { text, .. } => (fold, text.len()),
        _ => (fold, 0),
    }
}

/// The start of `text` (whole characters), enough for one row of `width` columns.
fn head(text: &str, width: usize) -> &str {
    &text[..text.floor_char_boundary((width + 1) * 4)]
}

/// The activity pane this frame.
#[derive(Debug)]
pub enum ActivityFrame {
    /// Nothing asked yet.
    NoTurn,
    /// The turn has no activity yet.
    Empty,
    /// The cached rows: where each item starts (and, last, where they end), the selected item and
    /// the first row shown.
    Rows {
        starts: Vec<usize>,
        selected: usize,
        top: usize,
    },
}

impl ActivityFrame {
    /// The item drawn on row `y` of the pane's inside (for a click).
    pub fn item_at(&self, y: usize) -> Option<usize> {
        let ActivityFrame::Rows { starts, top, .. } = self else {
            return None;
        };
        let row = top + y;
        let end = *starts.last()?;
        (row < end).then(|| starts.partition_point(|&s| s <= row) - 1)
    }
}

/// Bring the cached rows up to date and resolve the scroll: it follows the newest item unless one is
/// selected, which then stays in view.
pub fn prepare(app: &mut App, cache: &mut ActivityCache, area: Rect) -> ActivityFrame {
    let inner = pane_inner(area);
    let viewport = inner.height as usize;
    let Some(turn) = app.current() else {
        return ActivityFrame::NoTurn;
    };
    let n = turn.session.activity.len();
    if n == 0 {
        return ActivityFrame::Empty;
    }
    // Where each item starts; the selected item's rows.
    let selected = app.activity_selected.unwrap_or(n - 1);
    let width = (inner.width as usize).saturating_sub(GUTTER).max(1);
    cache.sync(turn, &app.expanded, selected, width, &app.theme);
    let mut starts = Vec::with_capacity(n + 1);
    let mut total = 0;
    for (_, rows) in &cache.items {
        starts.push(total);
        total += rows.len();
    }
    starts.push(total);
    let selected_range = (starts[selected], starts[selected + 1].saturating_sub(1));
    // Following the newest item unless one is picked; the wheel scrolls freely until the next key.
    let reveal = app.reveal_selection;
    let picked = app.activity_selected.is_some();
    let scroll = &mut app.activity_scroll;
    if reveal {
        scroll.follow = !picked;
    }
    let mut top = scroll.resolve(total, viewport);
    if reveal && picked {
        top = keep_visible(top, selected_range.0, selected_range.1, viewport);
        scroll.top = top;
    }
    ActivityFrame::Rows {
        starts,
        selected,
        top,
    }
}

pub fn draw(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    cache: &ActivityCache,
    prepared: &ActivityFrame,
) {
    let focused = app.focus == Focus::Activity;
    let theme = &app.theme;
    let count = app
        .current()
        .map(|t| t.session.activity.len())
        .filter(|n| *n > 0)
        .map(|n| n.to_string());
    let block = pane_block(title("Activity", count, focused, theme), focused, theme);
    let (starts, selected, top) = match prepared {
        ActivityFrame::NoTurn => {
            frame.render_widget(block, area);
            return;
        }
        ActivityFrame::Empty => {
            let text = if app.current().is_some_and(|t| t.conn.in_progress()) {
                format!("{} working…", app.spinner())
            } else {
                "No activity.".into()
            };
            frame.render_widget(Paragraph::new(text).style(theme.muted()).block(block), area);
            return;
        }
        ActivityFrame::Rows {
            starts,
            selected,
            top,
        } => (starts, *selected, *top),
    };
    let inner = block.inner(area);
    let width = inner.width as usize;
    let viewport = inner.height as usize;
    // Only the rows in view.
    let first = starts.partition_point(|&s| s <= top).saturating_sub(1);
    let mut visible: Vec<RLine> = Vec::with_capacity(viewport);
    let mut row = starts[first];
    // The selection is marked once someone picked an item, or while the pane has the focus.
    let marked = focused || app.activity_selected.is_some();
    let mut bars = Vec::new();
    'items: for (i, (_, rows)) in cache.items.iter().enumerate().skip(first) {
        for (k, r) in rows.iter().enumerate() {
            if row >= top + viewport {
                break 'items;
            }
            if row >= top {
                let selected = marked && i == selected;
                if selected {
                    bars.push(visible.len());
                }
                visible.push(gutter_row(
                    r.clone(),
                    selected,
                    k == 0,
                    width,
                    focused,
                    theme,
                ));
            }
            row += 1;
        }
    }
    frame.render_widget(Paragraph::new(plain_lines(&visible)).block(block), area);
    super::paint_bars(frame.buffer_mut(), inner, &bars, theme.selection(focused));
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
