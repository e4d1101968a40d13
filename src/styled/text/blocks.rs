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

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use super::annotations::Annotations;
use super::line::RLine;
use super::markdown::{block_height, render_block};
use crate::styled::theme::Theme;

/// The longest block rendered as one: an answer without blank lines (or one endless line) is cut
/// into blocks of about this many bytes, so the open block redone per frame stays small.
pub const MAX_BLOCK: usize = 32 * 1024;

/// Blocks whose rows are kept on either side of the window shown, and at the bottom.
const KEEP_AROUND: usize = 8;

/// How a block begins.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Start {
    /// A new block: a blank row before it (unless it is the first).
    #[default]
    Block,
    /// The rest of a block cut at [`MAX_BLOCK`]: it goes on without a blank row.
    Continued,
    /// The rest of a code block cut at [`MAX_BLOCK`]: rendered as if its fence opened it.
    InFence(u8, usize),
}

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

/// Where block splitting stopped: the open block starts at `block_start` (beginning as
/// `block_kind`); lines before `pos` were looked at.
#[derive(Debug, Clone, Copy, Default)]
struct ScanState {
    block_start: usize,
    block_kind: Start,
    pos: usize,
    fence: Option<(u8, usize)>,
    saw_blank: bool,
}

/// A row for blocks whose rows are not kept (only reached when [`AnswerView::show`] was skipped).
static BLANK: RLine = RLine { pieces: Vec::new() };

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

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// A fence opening/closing line: up to 3 spaces, then 3+ backticks or tildes.
fn fence_of(line: &str) -> Option<(u8, usize)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let c = *trimmed.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = trimmed.bytes().take_while(|&b| b == c).count();
    (n >= 3).then_some((c, n))
}

/// Where to cut an overlong line that starts at `from`: after the last space within [`MAX_BLOCK`]
/// bytes, else at the character boundary there.
fn cut_in_line(text: &str, from: usize) -> usize {
    let end = text.floor_char_boundary(from + MAX_BLOCK);
    text[from..end]
        .rfind(' ')
        .map(|i| from + i + 1)
        .filter(|&cut| cut > from + MAX_BLOCK / 2)
        .unwrap_or(end)
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
    fn measure_bottom(&mut self, text: &str, rows: usize, theme: &Theme) {
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

    /// The segment holding row `row` (`segments.len()` for the open tail).
    fn segment_at(&self, row: usize) -> usize {
        if row >= self.completed_height() {
            return self.segments.len();
        }
        self.prefix.partition_point(|&p| p <= row).saturating_sub(1)
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

    /// Cache the block `range`, which is complete (its height is set once the blocks completed with
    /// it are known: [`AnswerView::lay_out_completed`]).
    fn complete_block(&mut self, range: Range<usize>, start: Start) {
        let segment = self.segment(range, start);
        self.segments.push(segment);
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

    /// Find blocks completed since the last call and cache them.
    fn split_blocks(&mut self, text: &str, theme: &Theme) {
        let bytes = text.as_bytes();
        let mut scan = self.scan;
        loop {
            let rest = &bytes[scan.pos..];
            let nl = memchr::memchr(b'\n', &rest[..rest.len().min(MAX_BLOCK + 1)]);
            // An overlong line (ended or not) is cut where its first MAX_BLOCK bytes say, so the
            // blocks are the same however the text arrived.
            if nl.is_none() && rest.len() > MAX_BLOCK {
                let cut = cut_in_line(text, scan.pos);
                self.cut_block(&mut scan, cut);
                continue;
            }
            let Some(nl) = nl else { break };
            let line_start = scan.pos;
            let line = &text[line_start..line_start + nl];
            scan.pos = line_start + nl + 1;
            if let Some((c, n)) = scan.fence {
                if let Some((c2, n2)) = fence_of(line)
                    && c2 == c
                    && n2 >= n
                    && line
                        .trim_start()
                        .trim_start_matches(c as char)
                        .trim()
                        .is_empty()
                {
                    scan.fence = None;
                }
            } else if is_blank(line) {
                scan.saw_blank = true;
                continue;
            } else {
                let indented = line.starts_with([' ', '\t']);
                if scan.saw_blank && !indented && line_start > scan.block_start {
                    self.complete_block(scan.block_start..line_start, scan.block_kind);
                    scan.block_start = line_start;
                    scan.block_kind = Start::Block;
                }
                scan.saw_blank = false;
                if let Some(fence) = fence_of(line) {
                    scan.fence = Some(fence);
                }
            }
            if scan.pos - scan.block_start > MAX_BLOCK {
                let cut = scan.pos;
                self.cut_block(&mut scan, cut);
            }
        }
        // A partial line that starts a new block at column 0 after a blank line closes the block
        // before it already.
        if scan.fence.is_none()
            && scan.saw_blank
            && scan.pos > scan.block_start
            && text[scan.pos..]
                .chars()
                .next()
                .is_some_and(|c| !c.is_whitespace())
        {
            self.complete_block(scan.block_start..scan.pos, scan.block_kind);
            scan.block_start = scan.pos;
            scan.block_kind = Start::Block;
            scan.saw_blank = false;
        }
        self.scan = scan;
        self.lay_out_completed(text, theme);
    }

    /// Complete the open block at byte `cut` (it grew past [`MAX_BLOCK`]); the rest continues it.
    fn cut_block(&mut self, scan: &mut ScanState, cut: usize) {
        self.complete_block(scan.block_start..cut, scan.block_kind);
        scan.block_start = cut;
        scan.pos = scan.pos.max(cut);
        scan.block_kind = match scan.fence {
            Some((c, n)) => Start::InFence(c, n),
            None => Start::Continued,
        };
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

#[cfg(test)]
mod tests;
