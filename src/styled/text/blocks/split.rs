//! Where the answer's blocks begin and end: top-level blocks separated by blank lines, outside
//! code fences, a block grown past [`MAX_BLOCK`] cut at a line end (or inside an overlong line) and
//! continued in the next. Scanning resumes where it stopped, so streamed text is looked at once.

use std::ops::Range;

use super::{AnswerView, MAX_BLOCK};
use crate::styled::theme::Theme;

/// How a block begins.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Start {
    /// A new block: a blank row before it (unless it is the first).
    #[default]
    Block,
    /// The rest of a block cut at [`MAX_BLOCK`]: it goes on without a blank row.
    Continued,
    /// The rest of a code block cut at [`MAX_BLOCK`]: rendered as if its fence opened it.
    InFence(u8, usize),
}

/// Where block splitting stopped: the open block starts at `block_start` (beginning as
/// `block_kind`); lines before `pos` were looked at.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ScanState {
    pub(super) block_start: usize,
    pub(super) block_kind: Start,
    pos: usize,
    fence: Option<(u8, usize)>,
    saw_blank: bool,
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
    /// Cache the block `range`, which is complete (its height is set once the blocks completed with
    /// it are known: [`AnswerView::lay_out_completed`]).
    fn complete_block(&mut self, range: Range<usize>, start: Start) {
        let segment = self.segment(range, start);
        self.segments.push(segment);
    }

    /// Find blocks completed since the last call and cache them.
    pub(super) fn split_blocks(&mut self, text: &str, theme: &Theme) {
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
}
