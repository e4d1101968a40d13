//! The sources sidebar: numbered sources (`[n] label`, headline, how many spans they support), then
//! tool-level citations (tool name, audit id), then sources consulted but not cited. Only the rows in
//! view are formatted, so a long list costs no more to draw than a short one.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::{
    clean, keep_visible, pane_block, pane_inner, piece, plain_lines, select_row, title, truncate,
};
use crate::tui::state::{App, Focus, SidebarItem, Turn};
use crate::tui::text::RLine;
use crate::tui::theme::Theme;

/// One row of the sidebar, before formatting.
#[derive(Debug, Clone, Copy)]
pub enum Row {
    Blank,
    Header(&'static str),
    /// Line `1` or `2` of entry `index`.
    Item(usize, u8),
    Note(&'static str),
}

fn layout(turn: &Turn, items: &[SidebarItem]) -> Vec<Row> {
    let mut rows = Vec::with_capacity(items.len() * 2 + 4);
    let mut section = 0u8;
    for (index, item) in items.iter().enumerate() {
        let wanted = match item {
            SidebarItem::Source(i) if turn.attribution.sources[*i].consulted_only => 2,
            SidebarItem::Source(_) => 0,
            SidebarItem::Tool(_) => 1,
        };
        if wanted > section {
            section = wanted;
            if !rows.is_empty() {
                rows.push(Row::Blank);
            }
            rows.push(Row::Header(if wanted == 1 {
                "Tool data"
            } else {
                "Also consulted"
            }));
        }
        rows.push(Row::Item(index, 1));
        rows.push(Row::Item(index, 2));
    }
    rows
}

fn item_line(turn: &Turn, item: SidebarItem, line: u8, width: usize, theme: &Theme) -> RLine {
    let a = &turn.attribution;
    match item {
        SidebarItem::Source(i) => {
            let source = &a.sources[i];
            let (tag, tag_style) = if source.consulted_only {
                ("· ".to_owned(), theme.muted())
            } else {
                (
                    format!("[{}] ", source.n),
                    theme.marker().add_modifier(Modifier::BOLD),
                )
            };
            let tag_w = tag.width();
            if line == 1 {
                let label = truncate(&clean(&source.label), width.saturating_sub(tag_w));
                return RLine {
                    pieces: vec![piece(tag, tag_style), piece(label, theme.text())],
                };
            }
            let pad = tag_w.min(4);
            let mut pieces = vec![piece(" ".repeat(pad), theme.muted())];
            let mut used = pad;
            if !source.consulted_only {
                let count = match source.citations.len() {
                    // Cited by the answer as a whole: there is no span to count.
                    0 if source.cited_without_position => "no position · ".to_owned(),
                    0 => "pending · ".to_owned(),
                    1 => "1 span · ".to_owned(),
                    k => format!("{k} spans · "),
                };
                used += count.width();
                pieces.push(piece(count, theme.accent()));
            }
            // A label that already is the headline (Zeta Alpha titles) is not repeated.
            let headline = match source.headline.as_deref() {
                Some(h) if h.trim() != source.label.trim() => Some(h),
                Some(_) => None,
                None => source.url.as_deref(),
            }
            .map(clean)
            .or_else(|| source.kind.as_deref().map(|k| clean(&k.to_lowercase())))
            .unwrap_or_default();
            pieces.push(piece(
                truncate(&headline, width.saturating_sub(used)),
                theme.muted(),
            ));
            RLine { pieces }
        }
        SidebarItem::Tool(ci) => {
            let citation = &a.citations[ci];
            if line == 1 {
                let tool = clean(citation.tool_name.as_deref().unwrap_or("tool"));
                return RLine {
                    pieces: vec![
                        piece("⚙ ", theme.accent()),
                        piece(truncate(&tool, width.saturating_sub(2)), theme.text()),
                    ],
                };
            }
            let detail = match &citation.audit_id {
                Some(audit) => clean(audit),
                None => format!("“{}”", clean(citation.text(turn.session.answer.as_str()))),
            };
            RLine {
                pieces: vec![
                    piece("  ", theme.muted()),
                    piece(truncate(&detail, width.saturating_sub(2)), theme.muted()),
                ],
            }
        }
    }
}

/// The sidebar's rows (not yet formatted) and the first one shown, for this frame.
#[derive(Debug)]
pub enum SourcesFrame {
    /// Nothing asked yet.
    NoTurn,
    Rows {
        rows: Vec<Row>,
        top: usize,
    },
}

/// Lay out the rows and resolve the scroll, keeping the selected entry in view.
pub fn prepare(app: &mut App, area: Rect) -> SourcesFrame {
    let focused = app.focus == Focus::Sources;
    let viewport = pane_inner(area).height as usize;
    let Some(turn) = app.current() else {
        return SourcesFrame::NoTurn;
    };
    let items = &turn.sidebar;
    let mut rows = layout(turn, items);
    if items.is_empty() {
        rows.push(Row::Note(if turn.conn.in_progress() {
            "Sources appear as the answer cites them."
        } else {
            "No sources cited."
        }));
    } else if focused && rows.len() + 2 <= viewport {
        rows.push(Row::Blank);
        rows.push(Row::Note("Enter details · n/N spans · o open · y copy"));
    }
    let selected_range = app.source_selected.and_then(|s| {
        let first = rows
            .iter()
            .position(|r| matches!(r, Row::Item(i, 1) if *i == s))?;
        Some((first, first + 1))
    });
    let scroll = &mut app.sources_scroll;
    let mut top = scroll.resolve(rows.len(), viewport);
    if let Some((first, last)) = selected_range {
        top = keep_visible(top, first, last, viewport);
        scroll.top = top;
    }
    SourcesFrame::Rows { rows, top }
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App, prepared: &SourcesFrame) {
    let focused = app.focus == Focus::Sources;
    let theme = &app.theme;
    let numbered = app
        .current()
        .map_or(0, |t| t.attribution.numbered().count());
    let extra = (numbered > 0).then(|| numbered.to_string());
    let block = pane_block(title("Sources", extra, focused, theme), focused, theme);
    let inner = block.inner(area);
    let width = inner.width as usize;
    let viewport = inner.height as usize;
    let (SourcesFrame::Rows { rows, top }, Some(turn)) = (prepared, app.current()) else {
        frame.render_widget(block, area);
        return;
    };
    let selected = app.source_selected;
    let visible: Vec<RLine> = rows
        .iter()
        .skip(*top)
        .take(viewport)
        .map(|row| match *row {
            Row::Blank => RLine::blank(),
            Row::Header(text) => RLine {
                pieces: vec![piece(text, theme.muted().add_modifier(Modifier::BOLD))],
            },
            Row::Note(text) => RLine {
                pieces: vec![piece(truncate(text, width), theme.muted())],
            },
            Row::Item(index, line) => {
                let mut row = item_line(turn, turn.sidebar[index], line, width, theme);
                if selected == Some(index) {
                    select_row(&mut row, width, theme.selection(focused));
                }
                row
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(plain_lines(&visible)).block(block), area);
}
