//! Blocks left unmeasured while the pane follows the bottom ([`AnswerView::follow_bottom`]): which
//! they are, and measuring them when the pane scrolls up to them or jumps.

use super::AnswerView;
use crate::styled::theme::Theme;

impl AnswerView {
    /// The pane follows the bottom, showing at most `rows - 1` rows of this answer (`Some`), or
    /// it shows any row (`None`): from the next [`AnswerView::sync`], blocks completed above the
    /// bottom `rows` rows (and away from the rows kept) are left unmeasured, or every block
    /// completed is measured (those left unmeasured before stay so until
    /// [`AnswerView::measure_deferred`] or [`AnswerView::measure_block`]).
    pub fn follow_bottom(&mut self, rows: Option<usize>) {
        self.follow = rows;
    }

    /// Measure the blocks left unmeasured while following the bottom; returns the rows they add
    /// (every row below them moves down by as many). Nothing when `text` is not the one the view
    /// was synced with (it is redone at the next sync anyway).
    pub fn measure_deferred(&mut self, text: &str, generation: u64, theme: &Theme) -> usize {
        if self.deferred == 0 || self.is_stale(text.len(), generation) {
            return 0;
        }
        let first = self.first_deferred;
        let mut added = 0;
        for i in first..self.segments.len() {
            if self.segments[i].deferred {
                added += self.measure_deferred_block(text, i, theme);
            }
        }
        self.recompute_prefix(first + 1);
        added
    }

    /// The view was last synced with another text than one of `text_len` bytes at `generation`
    /// (replaced or cut since): blocks it left unmeasured can no longer be measured.
    pub fn is_stale(&self, text_len: usize, generation: u64) -> bool {
        generation != self.generation || text_len < self.known_len
    }

    /// Blocks completed above the bottom were left unmeasured (see [`AnswerView::follow_bottom`]).
    pub fn has_deferred(&self) -> bool {
        self.deferred > 0
    }

    /// The last block left unmeasured before block `limit`, and the row it starts (and, counting
    /// no rows, ends) at: where its rows go once measured. Exact while blocks after it are
    /// measured only by [`AnswerView::measure_block`] (their prefix sums wait for
    /// [`AnswerView::measured_from`]).
    pub fn last_deferred_before(&self, limit: usize) -> Option<(usize, usize)> {
        if self.deferred == 0 {
            return None;
        }
        let end = limit.min(self.deferred_end).min(self.segments.len());
        (self.first_deferred..end)
            .rev()
            .find(|&i| self.segments[i].deferred)
            .map(|i| (i, self.prefix[i]))
    }

    /// Measure block `i`, left unmeasured, when no block after it is (the pane goes up from the
    /// bottom); returns its height. The rows after it are numbered anew by
    /// [`AnswerView::measured_from`] once the pane stops.
    pub fn measure_block(&mut self, text: &str, i: usize, theme: &Theme) -> usize {
        if !self.segments.get(i).is_some_and(|s| s.deferred) || self.known_len > text.len() {
            return 0;
        }
        self.deferred_end = i;
        self.measure_deferred_block(text, i, theme)
    }

    /// Blocks from `i` on were measured by [`AnswerView::measure_block`]: number the rows anew.
    pub fn measured_from(&mut self, i: usize) {
        self.recompute_prefix(i + 1);
    }

    /// Measure unmeasured blocks from the bottom up until `rows` rows below them are measured.
    pub(super) fn measure_bottom(&mut self, text: &str, rows: usize, theme: &Theme) {
        if self.deferred == 0 {
            return;
        }
        let mut below = self.tail.as_ref().map_or(0, |(t, _)| t.height);
        let mut lowest = None;
        for i in (self.first_deferred..self.segments.len()).rev() {
            if below >= rows {
                break;
            }
            if self.segments[i].deferred {
                self.measure_deferred_block(text, i, theme);
                lowest = Some(i);
            }
            below += self.segments[i].height;
        }
        if let Some(i) = lowest {
            self.recompute_prefix(i + 1);
        }
    }

    /// Measure unmeasured block `i` (its prefix sums are left to the caller); returns its height.
    fn measure_deferred_block(&mut self, text: &str, i: usize, theme: &Theme) -> usize {
        let segment = self.segments[i].clone();
        let height = self.measure(text, &segment, i, theme);
        self.segments[i].height = height;
        self.segments[i].deferred = false;
        self.deferred -= 1;
        height
    }
}
