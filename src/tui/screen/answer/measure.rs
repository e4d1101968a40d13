//! Leaving the bottom after following a long answer: the blocks left unmeasured while following
//! (`AnswerView::follow_bottom`) are measured from the bottom up, only as many as the rows the pane
//! scrolls to and its scroll position hint need, not the whole answer. Rows stay numbered as if the
//! rest were empty, the same for every reader of a frame; all of them are above the rows shown, so
//! the scroll position moves down by the rows each one adds and stays on the same text.

use super::AnswerPane;
use super::layout::{Part, layout};
use crate::tui::screen::pane_inner;
use crate::tui::state::{App, Scroll};

impl AnswerPane {
    /// A scroll key is about to move the pane `up` rows up from where the last frame left it:
    /// measure the blocks it scrolls into, from the bottom up (all of them when the pane was never
    /// laid out). Down, it scrolls into none.
    pub fn measure_above(&mut self, app: &App, up: usize) {
        if up == 0 || !self.any_deferred() {
            return;
        }
        let Some(area) = self.area else {
            return self.measure_all(app);
        };
        let width = pane_inner(area).width.max(1) as usize;
        let parts = layout(app, self, width, None);
        self.measure_from_bottom(app, &parts, |scroll, boundary| {
            scroll.top < boundary.saturating_add(up)
        });
    }

    /// A frame away from the bottom, its scroll resolved: measure until the rows shown are below
    /// every block left unmeasured and the hint on the border is where counting every row puts it.
    /// Whether anything was measured (the parts are then laid out anew).
    pub(super) fn settle(
        &mut self,
        app: &App,
        parts: &[(usize, Part, usize)],
        height: usize,
    ) -> bool {
        self.any_deferred()
            && self.measure_from_bottom(app, parts, |scroll, boundary| {
                !settled(scroll, boundary, height)
            }) > 0
    }

    pub(super) fn any_deferred(&self) -> bool {
        self.views.values().any(|view| view.has_deferred())
    }

    /// Measure the blocks left unmeasured from the bottom up while `more(scroll, boundary)` (the row
    /// where the next one's rows go, in the numbering of `parts`); returns the rows added.
    fn measure_from_bottom(
        &mut self,
        app: &App,
        parts: &[(usize, Part, usize)],
        mut more: impl FnMut(&Scroll, usize) -> bool,
    ) -> usize {
        let mut added = 0;
        for (index, turn) in app.turns.iter().enumerate().rev() {
            let Some(view) = self.views.get_mut(&turn.id) else {
                continue;
            };
            let text = turn.session.answer.as_str();
            if !view.has_deferred() {
                continue;
            }
            // Replaced since (the next frame lays it out anew): nothing above it can be placed.
            if view.is_stale(text.len(), turn.generation) {
                break;
            }
            let (mut limit, mut lowest, mut done) = (usize::MAX, None, false);
            while let Some((block, row)) = view.last_deferred_before(limit) {
                // Not found in the parts: measured, to be safe.
                let boundary = pane_row(parts, index, row).unwrap_or(usize::MAX);
                if !more(&self.scroll, boundary) {
                    done = true;
                    break;
                }
                let rows = view.measure_block(text, block, &app.theme);
                self.scroll.top += rows;
                self.scroll.total += rows;
                added += rows;
                (limit, lowest) = (block, Some(block));
            }
            if let Some(block) = lowest {
                view.measured_from(block);
            }
            if done {
                break;
            }
        }
        added
    }
}

/// Row `row` of turn `turn`'s answer in the pane (the last part holding it: after a chart that
/// ends there, so a block measured there is surely above a window starting at that chart).
fn pane_row(parts: &[(usize, Part, usize)], turn: usize, row: usize) -> Option<usize> {
    let mut offset = 0;
    let mut found = None;
    for (index, part, h) in parts {
        if let (true, Part::Answer(_, rows)) = (*index == turn, part)
            && rows.start <= row
            && row <= rows.end
        {
            found = Some(offset + row - rows.start);
        }
        offset += h;
    }
    found
}

/// Are the rows from `scroll.top` on below every block left unmeasured (the lowest ends at
/// `boundary`), and does the hint on the border (drawn at `top * (height - 1) / max_top`) come out
/// where it would with every block measured? Measuring adds the same rows to the top and the
/// total, which only moves the hint down, never onto the last row: so it is exact once it is one
/// row above it.
fn settled(scroll: &Scroll, boundary: usize, height: usize) -> bool {
    let (top, total) = (scroll.top, scroll.total);
    if top < boundary || total <= height {
        return false;
    }
    let max_top = total - height;
    height <= 2 || top >= max_top || top * (height - 1) / max_top >= height - 2
}
