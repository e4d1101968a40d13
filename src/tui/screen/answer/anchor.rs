//! Keeping the line being read in place: each frame notes the first answer text in view (an
//! [`Anchor`]: a raw byte of a turn's answer and its row under the top); when the pane's width
//! changes (a zoom, a resize key, the terminal resized) every row is wrapped anew and the next frame
//! scrolls so that text is back where it was.

use super::layout::Part;
use super::{Anchor, AnswerPane};
use crate::styled::text::PieceKind;
use crate::tui::state::App;

/// The first answer text from row `top` down: its turn, raw byte and row under the top — in the
/// window, else the first below it (a window a chart fills is kept by the text after the chart).
pub(super) fn top_anchor(
    app: &App,
    pane: &AnswerPane,
    parts: &[(usize, Part, usize)],
    top: usize,
    height: usize,
) -> Option<Anchor> {
    let mut offset = 0;
    for (_, part, h) in parts {
        let (start, end) = (offset, offset + h);
        offset = end;
        let Part::Answer(i, rows) = part else {
            continue;
        };
        if end <= top {
            continue;
        }
        if start >= top + 2 * height.max(1) {
            break;
        }
        let skip = top.saturating_sub(start);
        let view = pane.views.get(&app.turns.get(*i)?.id)?;
        // Past the window, only as far as a screenful: text is never further below a chart.
        let take = (top + 2 * height.max(1))
            .min(end)
            .saturating_sub(start + skip);
        for (k, row) in view.rows(rows.start + skip, take).enumerate() {
            let byte = row
                .pieces
                .iter()
                .find(|p| p.kind == PieceKind::Text && p.src.is_some())
                .and_then(|p| p.src.as_ref().map(|r| r.start));
            if let Some(byte) = byte {
                let below = start + skip + k - top;
                return Some(Anchor {
                    turn: *i,
                    byte,
                    below,
                });
            }
        }
    }
    None
}

/// Put the anchored answer text back `below` rows under the top (after a zoom or a resize).
pub(super) fn scroll_to_anchor(
    app: &App,
    pane: &mut AnswerPane,
    parts: &[(usize, Part, usize)],
    total: usize,
    height: usize,
) {
    let Some(anchor) = pane.scroll_to_anchor.take() else {
        return;
    };
    let Some(turn) = app.turns.get(anchor.turn) else {
        return;
    };
    let mut offset = 0;
    for (index, part, h) in parts {
        if let (true, Part::Answer(_, rows)) = (*index == anchor.turn, part)
            && let Some(view) = pane.views.get_mut(&turn.id)
            && let Some(row) = view
                .locate(turn.session.answer.as_str(), anchor.byte, &app.theme)
                .filter(|row| rows.contains(row))
        {
            pane.scroll.total = total;
            pane.scroll.viewport = height;
            let top = (offset + row - rows.start).saturating_sub(anchor.below);
            pane.scroll.top = top;
            pane.scroll.follow = false;
            pane.held_anchor = Some((anchor, top.min(total.saturating_sub(height))));
            return;
        }
        offset += h;
    }
}
