//! Reading the laid-out answer: the rows in a window, and the row that shows a raw byte.

use super::AnswerView;
use crate::styled::text::line::RLine;
use crate::styled::theme::Theme;

/// A row for blocks whose rows are not kept (only reached when [`AnswerView::show`] was skipped).
static BLANK: RLine = RLine { pieces: Vec::new() };

impl AnswerView {
    /// The segment holding row `row` (`segments.len()` for the open tail).
    pub(super) fn segment_at(&self, row: usize) -> usize {
        if row >= self.completed_height() {
            return self.segments.len();
        }
        self.prefix.partition_point(|&p| p <= row).saturating_sub(1)
    }

    /// Rows `top..top + count` (fewer at the end). Rows of blocks not kept (see
    /// [`AnswerView::show`]) come out blank.
    pub fn rows(&self, top: usize, count: usize) -> impl Iterator<Item = &RLine> {
        let mut out: Vec<&RLine> = Vec::with_capacity(count.min(256));
        let mut index = self.segment_at(top);
        let mut skip = if index < self.segments.len() {
            top - self.prefix[index]
        } else {
            top - self.completed_height()
        };
        while out.len() < count {
            let (rows, height) = match self.segments.get(index) {
                Some(segment) => (self.rows_of.get(&index), segment.height),
                None => match &self.tail {
                    Some((segment, rows)) if index == self.segments.len() => {
                        (Some(rows), segment.height)
                    }
                    _ => break,
                },
            };
            let wanted = (count - out.len()).min(height.saturating_sub(skip));
            match rows {
                Some(rows) => out.extend(rows.iter().skip(skip).take(wanted)),
                None => out.extend(std::iter::repeat_n(&BLANK, wanted)),
            }
            skip = 0;
            index += 1;
        }
        out.into_iter()
    }

    /// The first row showing raw byte `pos` (or the nearest row before it); the block's first row
    /// when its rows are not kept.
    pub fn row_of_byte(&self, pos: usize) -> Option<usize> {
        let seg_index = self.segments.partition_point(|s| s.range.end <= pos);
        let (rows, base) = match self.segments.get(seg_index) {
            Some(_) => match self.rows_of.get(&seg_index) {
                Some(rows) => (rows, self.prefix[seg_index]),
                None => return Some(self.prefix[seg_index]),
            },
            None => (&self.tail.as_ref()?.1, self.completed_height()),
        };
        if let Some(i) = rows.iter().position(|l| l.covers(pos)) {
            return Some(base + i);
        }
        // Not an exact hit (markup): the last row whose text starts before `pos`.
        let mut best = None;
        for (i, line) in rows.iter().enumerate() {
            if line.max_src().is_some_and(|end| end <= pos) {
                best = Some(i);
            }
        }
        Some(base + best.unwrap_or(0))
    }

    /// The row just after the completed block holding raw byte `pos`: where something drawn after
    /// that block (a chart) goes. `None` while that block is still open, or past the text.
    pub fn block_end_row(&self, pos: usize) -> Option<usize> {
        let index = self.segments.partition_point(|s| s.range.end <= pos);
        let segment = self.segments.get(index)?;
        Some(self.prefix[index] + segment.height)
    }

    /// Like [`AnswerView::row_of_byte`], exact: the block holding `pos` is wrapped again when its
    /// rows were let go.
    pub fn locate(&mut self, text: &str, pos: usize, theme: &Theme) -> Option<usize> {
        let seg_index = self.segments.partition_point(|s| s.range.end <= pos);
        if seg_index < self.segments.len() && self.known_len <= text.len() {
            self.ensure_rows(text, seg_index, theme);
        }
        self.row_of_byte(pos)
    }
}
