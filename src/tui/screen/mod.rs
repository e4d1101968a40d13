//! The panes and drawing: one module per pane — [`answer`], [`sources`], [`activity`], [`plan`],
//! [`prompt`] — each with its own state (`AnswerPane`, …), what its keys do to that state, its
//! `prepare` (rows and scroll brought up to date for the frame, writing only the pane's state) and
//! its `draw` (reading, never writing); plus the layout ([`layout`]), the status bar ([`status`]),
//! overlays ([`popup`]) and the frame that ties them together ([`panes`]: [`Panes`], [`prepare`],
//! [`draw`] → [`FrameFacts`]).

pub mod activity;
pub mod answer;
pub mod chart;
pub mod cited;
pub mod layout;
pub mod panes;
pub mod plan;
pub mod popup;
pub mod prompt;
pub mod sources;
pub mod status;
pub mod structured;

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Padding};

use crate::styled::text::{Piece, PieceKind, RLine};
pub use crate::styled::text::{clean, truncate};
use crate::styled::theme::Theme;
pub use layout::NARROW_BELOW;
pub use panes::{FrameFacts, Panes, draw, prepare};

/// A pane's frame, before its title and focus: a border and a column of padding each side.
fn pane_frame<'a>() -> Block<'a> {
    Block::bordered().padding(Padding::horizontal(1))
}

/// Where a pane's rows go inside `area`.
pub fn pane_inner(area: Rect) -> Rect {
    pane_frame().inner(area)
}

/// A bordered pane with a title.
pub fn pane_block<'a>(title: Line<'a>, focused: bool, theme: &Theme) -> Block<'a> {
    pane_frame()
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Rounded
        })
        .border_style(theme.border(focused))
        .title(title)
}

/// Pane title: the name, plus extra text in muted style.
pub fn title<'a>(name: &str, extra: Option<String>, focused: bool, theme: &Theme) -> Line<'a> {
    let mut spans = vec![Span::styled(format!(" {name} "), theme.title(focused))];
    if let Some(extra) = extra {
        spans.push(Span::styled(format!("{extra} "), theme.muted()));
    }
    Line::from(spans)
}

/// A per-turn pane's title extra (`extra`) naming the turn the pane shows, once there is more than
/// one: Plan, Activity and Sources show the selected turn's, which need not be the turn read in the
/// answer pane (scrolled up, its `[n]` markers are another turn's).
pub fn of_turn(app: &crate::tui::state::App, extra: Option<String>) -> Option<String> {
    if app.turns.len() < 2 {
        return extra;
    }
    let turn = format!("turn {}", app.current_index() + 1);
    Some(match extra {
        Some(extra) => format!("{extra} · {turn}"),
        None => turn,
    })
}

/// A text piece for [`crate::styled::text::wrap`].
pub fn piece(text: impl Into<String>, style: Style) -> Piece {
    Piece::plain(text, style)
}

/// Wrap `text` (already clean) with a hanging indent.
pub fn wrap_text(
    text: &str,
    style: Style,
    width: usize,
    first: Vec<Piece>,
    cont: Vec<Piece>,
) -> Vec<RLine> {
    crate::styled::text::wrap(&[piece(text, style)], width, &first, &cont)
}

/// Rendered rows to ratatui lines (no highlights).
pub fn plain_lines(rows: &[RLine]) -> Vec<Line<'_>> {
    rows.iter()
        .map(|row| {
            Line::from(
                row.pieces
                    .iter()
                    .filter(|p| p.kind != PieceKind::Break)
                    .map(|p| Span::styled(p.text.as_str(), p.style))
                    .collect::<Vec<_>>(),
            )
        })
        .collect()
}

/// Keep the `selected` row range visible in a scroll of `viewport` rows.
pub fn keep_visible(top: usize, first: usize, last: usize, viewport: usize) -> usize {
    if viewport == 0 {
        return top;
    }
    if first < top {
        first
    } else if last >= top + viewport {
        (last + 1).saturating_sub(viewport).min(first)
    } else {
        top
    }
}

/// Carry the selection bars of `rows` (rows of `inner`, counted from its top) over the pane's
/// padding, so a bar spans the pane from border to border.
pub fn paint_bars(buf: &mut ratatui::buffer::Buffer, inner: Rect, rows: &[usize], style: Style) {
    for &row in rows {
        let y = inner.y + row as u16;
        if y >= inner.bottom() {
            continue;
        }
        for x in [inner.x.saturating_sub(1), inner.right()] {
            if let Some(cell) = buf.cell_mut((x, y)) {
                cell.set_style(style);
            }
        }
    }
}

/// Mark a selected row: padded to `width` and every piece restyled with `style`.
pub fn select_row(row: &mut RLine, width: usize, style: Style) {
    let pad = width.saturating_sub(row.width());
    row.pieces.push(piece(" ".repeat(pad), Style::new()));
    for p in &mut row.pieces {
        p.style = p.style.patch(style);
    }
}
