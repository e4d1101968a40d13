//! The answer's cached, wrapped rendering ([`AnswerView`]). The answer is split into top-level blocks
//! (separated by blank lines, outside code fences; a block that grows past [`MAX_BLOCK`] bytes is cut
//! at a line end, or inside an overlong line, and continues in the next). Every completed block is
//! parsed and wrapped once per width for its height; heights are kept as prefix sums so finding the
//! visible window is a binary search, and as the answer streams in only the last, open block is
//! redone: drawing a frame costs the same for a 1 KB and a 1 MB answer.
//!
//! Rows are kept only around the window last shown ([`AnswerView::show`]) and at the bottom, where
//! a streaming answer is followed: a block scrolled back to is wrapped again. So memory is the answer
//! itself plus a few numbers per block, however long the answer grows. A block completed where its
//! rows would not be kept is only measured ([`block_height`]: the same walk without building the
//! rows), so a flood of text costs one parse and one count per block, and rows only for what is seen.
//!
//! While the pane follows the bottom ([`AnswerView::follow_bottom`]) such a block is not even
//! measured: it counts as no rows, as long as the rows below the last such block fill the window,
//! until the pane scrolls up to it ([`AnswerView::measure_block`], from the bottom up) or jumps
//! ([`AnswerView::measure_deferred`]). Rows are then numbered as if those blocks were empty, the
//! same for every reader within a frame.
//!
//! Here: the view's state, bringing it up to date with the text ([`AnswerView::sync`]), laying
//! blocks out and keeping rows around the window. Its parts: `split` (where blocks begin and end),
//! `deferred` (blocks left unmeasured while following the bottom), `rows` (the rows in a window,
//! the row showing a byte).

mod deferred;
mod rows;
mod split;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use super::annotations::Annotations;
use super::line::RLine;
use super::markdown::{block_height, render_block};
use crate::styled::theme::Theme;
use split::{ScanState, Start};

/// The longest block rendered as one: an answer without blank lines (or one endless line) is cut
/// into blocks of about this many bytes, so the open block redone per frame stays small.
pub const MAX_BLOCK: usize = 32 * 1024;

/// Blocks whose rows are kept on either side of the window shown, and at the bottom.
const KEEP_AROUND: usize = 8;

/// A completed block: where it is and how tall it is (its rows are in [`AnswerView::rows_of`] while
/// they are kept).
#[derive(Debug, Clone)]
struct Segment {
    range: Range<usize>,
    start: Start,
    height: usize,
    marker_sig: u64,
    /// Not measured yet (its `height` is 0 until it is): see [`AnswerView::follow_bottom`].
    deferred: bool,
}

/// The cached, wrapped rendering of one answer.
#[derive(Debug, Clone, Default)]
pub struct AnswerView {
    width: usize,
    generation: u64,
    known_len: usize,
    markers_version: u64,
    ann: Annotations,
    segments: Vec<Segment>,
    /// `prefix[i]` = rows of `segments[..i]` (including the blank row between segments).
    prefix: Vec<usize>,
    /// Rows of completed blocks, by segment index: those around the window shown and at the bottom.
    rows_of: BTreeMap<usize, Vec<RLine>>,
    /// The open last block and its rows.
    tail: Option<(Segment, Vec<RLine>)>,
    /// Blocks around the window last shown (whose rows are kept); `None` until one is shown, when
    /// every block's rows are kept.
    keep: Option<Range<usize>>,
    scan: ScanState,
    /// While the pane follows the bottom: rows at the bottom that must be measured (blocks above
    /// them are left unmeasured); `None` measures every block.
    follow: Option<usize>,
    /// Completed blocks left unmeasured, the first of them (when there are any), and a bound
    /// past the last of them (measured from the bottom up, no block at or after it is).
    deferred: usize,
    first_deferred: usize,
    deferred_end: usize,
    /// Blocks rendered since creation (for tests and the benchmark: caching works).
    pub renders: usize,
}

impl AnswerView {
    pub fn new() -> Self {
        Self::default()
    }

    /// Total rows.
    pub fn height(&self) -> usize {
        self.completed_height() + self.tail.as_ref().map_or(0, |(t, _)| t.height)
    }

    /// Rows of the completed blocks (they do not change as more text arrives).
    pub fn completed_height(&self) -> usize {
        self.prefix.last().copied().unwrap_or(0) + self.segments.last().map_or(0, |s| s.height)
    }

    /// Number of cached (completed) blocks.
    pub fn cached_blocks(&self) -> usize {
        self.segments.len()
    }

    /// Completed blocks whose rows are kept (the rest are only their heights).
    pub fn kept_blocks(&self) -> usize {
        self.rows_of.len()
    }

    /// Bring the view up to date with the answer text and markers, for `width` columns. Cheap when
    /// nothing changed; otherwise only the open last block and blocks whose markers changed are redone.
    /// Bump `generation` when the text was replaced rather than appended to.
    pub fn sync(
        &mut self,
        text: &str,
        ann: &Annotations,
        markers_version: u64,
        generation: u64,
        width: usize,
        theme: &Theme,
    ) {
        let width = width.max(1);
        if width != self.width || generation != self.generation || text.len() < self.known_len {
            let renders = self.renders;
            // The blocks are cut the same at any width: the window shown is still where it was.
            let keep = self.keep.take();
            *self = AnswerView {
                width,
                generation,
                renders,
                keep,
                follow: self.follow,
                markers_version: markers_version.wrapping_sub(1),
                ..AnswerView::default()
            };
        }
        let mut tail_dirty = text.len() != self.known_len;
        if markers_version != self.markers_version {
            self.markers_version = markers_version;
            if let Some(from) = self.ann.first_difference(ann) {
                self.ann = ann.clone();
                self.rerender_from(text, from, theme);
                tail_dirty = true;
            }
        }
        if tail_dirty {
            self.known_len = text.len();
            self.split_blocks(text, theme);
            let range = self.scan.block_start..text.len();
            self.tail = (!range.is_empty()).then(|| {
                let segment = self.segment(range, self.scan.block_kind);
                let rows = self.render(text, &segment, self.segments.len(), theme);
                (
                    Segment {
                        height: rows.len(),
                        ..segment
                    },
                    rows,
                )
            });
        }
        // Away from the bottom, blocks left unmeasured stay so (all of them are above the rows
        // shown): the pane measures them from the bottom up as it scrolls to them.
        if let Some(rows) = self.follow {
            self.measure_bottom(text, rows, theme);
        }
    }

    /// Rows `top..top + count` will be drawn next: wrap the blocks there whose rows are not kept,
    /// and let go of rows far from them (and from the bottom).
    pub fn show(&mut self, text: &str, top: usize, count: usize, theme: &Theme) {
        if self.segments.is_empty() || self.known_len > text.len() {
            return;
        }
        let first = self.segment_at(top);
        let last = self.segment_at(top + count.saturating_sub(1));
        for i in first..=last.min(self.segments.len() - 1) {
            self.ensure_rows(text, i, theme);
        }
        self.keep = Some(first.saturating_sub(KEEP_AROUND)..last + KEEP_AROUND + 1);
        let len = self.segments.len();
        self.rows_of
            .retain(|i, _| Self::kept(self.keep.as_ref(), *i, len));
    }

    /// Are the rows of block `i` of `len` kept, with `keep` around the window last shown?
    fn kept(keep: Option<&Range<usize>>, i: usize, len: usize) -> bool {
        keep.is_none_or(|keep| keep.contains(&i)) || i + KEEP_AROUND >= len
    }

    fn ensure_rows(&mut self, text: &str, i: usize, theme: &Theme) {
        if !self.rows_of.contains_key(&i) {
            let rows = self.render(text, &self.segments[i].clone(), i, theme);
            self.rows_of.insert(i, rows);
        }
    }

    /// Re-render completed blocks at or after byte `from` whose annotations changed.
    fn rerender_from(&mut self, text: &str, from: usize, theme: &Theme) {
        let first = self.segments.partition_point(|s| s.range.end < from);
        let mut changed = false;
        for i in first..self.segments.len() {
            let sig = self.ann.signature(&self.segments[i].range);
            if sig != self.segments[i].marker_sig {
                self.segments[i].marker_sig = sig;
                self.lay_out(text, i, theme);
                changed = true;
            }
        }
        if changed {
            self.recompute_prefix(first);
        }
    }

    fn recompute_prefix(&mut self, from: usize) {
        self.prefix.truncate(from.max(1).min(self.prefix.len()));
        if self.prefix.is_empty() && !self.segments.is_empty() {
            self.prefix.push(0);
        }
        while self.prefix.len() < self.segments.len() {
            let i = self.prefix.len();
            self.prefix
                .push(self.prefix[i - 1] + self.segments[i - 1].height);
        }
    }

    /// A segment for `range` (its height is filled in once rendered).
    fn segment(&self, range: Range<usize>, start: Start) -> Segment {
        Segment {
            marker_sig: self.ann.signature(&range),
            range,
            start,
            height: 0,
            deferred: false,
        }
    }

    /// The Markdown source of `segment` and the raw byte it starts at.
    fn source<'t>(text: &'t str, segment: &Segment) -> (Cow<'t, str>, usize) {
        let range = &segment.range;
        match segment.start {
            Start::InFence(c, n) => {
                // The fence line maps to bytes before the block, which it does not show.
                let opener = String::from_utf8(vec![c; n]).unwrap_or_default() + "\n";
                let base = range.start.saturating_sub(opener.len());
                (Cow::Owned(opener + &text[range.clone()]), base)
            }
            _ => (Cow::Borrowed(&text[range.clone()]), range.start),
        }
    }

    /// Does block `index` begin with a blank row (when it has any rows)?
    fn blank_before(segment: &Segment, index: usize) -> bool {
        segment.start == Start::Block && index > 0
    }

    /// The rows of `segment`, which is block `index`.
    fn render(&mut self, text: &str, segment: &Segment, index: usize, theme: &Theme) -> Vec<RLine> {
        self.renders += 1;
        let (source, base) = Self::source(text, segment);
        let markers = self.ann.markers_in(&segment.range);
        let hidden = self.ann.hidden_in(&segment.range);
        let mut lines = render_block(&source, base, markers, hidden, self.width, theme);
        if Self::blank_before(segment, index) && !lines.is_empty() {
            lines.insert(0, RLine::blank());
        }
        lines
    }

    /// How many rows [`AnswerView::render`] makes of `segment`, without making them.
    fn measure(&mut self, text: &str, segment: &Segment, index: usize, theme: &Theme) -> usize {
        self.renders += 1;
        let (source, base) = Self::source(text, segment);
        let markers = self.ann.markers_in(&segment.range);
        let hidden = self.ann.hidden_in(&segment.range);
        let height = block_height(&source, base, markers, hidden, self.width, theme);
        height + usize::from(Self::blank_before(segment, index) && height > 0)
    }

    /// Set the height of completed block `i`: rows built and kept where [`AnswerView::show`] would
    /// keep them, only counted elsewhere.
    /// While the pane follows the bottom, a block whose rows would not be kept is left unmeasured.
    fn lay_out(&mut self, text: &str, i: usize, theme: &Theme) {
        let segment = self.segments[i].clone();
        let kept = Self::kept(self.keep.as_ref(), i, self.segments.len());
        // Away from the bottom a block left unmeasured stays so: the rows shown are below it.
        if (!kept && self.follow.is_some()) || (segment.deferred && self.follow.is_none()) {
            self.rows_of.remove(&i);
            if !segment.deferred {
                self.first_deferred = match self.deferred {
                    0 => i,
                    _ => self.first_deferred.min(i),
                };
                self.deferred_end = match self.deferred {
                    0 => i + 1,
                    _ => self.deferred_end.max(i + 1),
                };
                self.deferred += 1;
                self.segments[i].deferred = true;
                self.segments[i].height = 0;
            }
            return;
        }
        if segment.deferred {
            self.segments[i].deferred = false;
            self.deferred -= 1;
        }
        if kept {
            let rows = self.render(text, &segment, i, theme);
            self.segments[i].height = rows.len();
            self.rows_of.insert(i, rows);
        } else {
            self.segments[i].height = self.measure(text, &segment, i, theme);
            self.rows_of.remove(&i);
        }
    }

    /// Lay out the blocks completed since the last call and add them to the prefix sums.
    fn lay_out_completed(&mut self, text: &str, theme: &Theme) {
        for i in self.prefix.len()..self.segments.len() {
            self.lay_out(text, i, theme);
            let start_row = match i {
                0 => 0,
                _ => self.prefix[i - 1] + self.segments[i - 1].height,
            };
            self.prefix.push(start_row);
        }
    }
}

#[cfg(test)]
mod tests;
