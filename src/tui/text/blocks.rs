//! The answer's cached, wrapped rendering ([`AnswerView`]). The answer is split into top-level blocks
//! (separated by blank lines, outside code fences). Every completed block is parsed and wrapped once
//! per width and cached; as the answer streams in only the last, open block is redone. Heights are
//! kept as prefix sums so finding the visible window is a binary search: drawing a frame costs the
//! same for a 1 KB and a 1 MB answer.

use std::ops::Range;

use super::annotations::Annotations;
use super::line::RLine;
use super::markdown::render_block;
use crate::tui::theme::Theme;

#[derive(Debug, Clone)]
struct Segment {
    range: Range<usize>,
    lines: Vec<RLine>,
    marker_sig: u64,
}

/// Where block splitting stopped: the open block starts at `block_start`; lines before `pos` were
/// looked at.
#[derive(Debug, Clone, Copy, Default)]
struct ScanState {
    block_start: usize,
    pos: usize,
    fence: Option<(u8, usize)>,
    saw_blank: bool,
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
    tail: Option<Segment>,
    scan: ScanState,
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

impl AnswerView {
    pub fn new() -> Self {
        Self::default()
    }

    /// Total rows.
    pub fn height(&self) -> usize {
        self.completed_height() + self.tail.as_ref().map_or(0, |t| t.lines.len())
    }

    /// Rows of the completed blocks (they do not change as more text arrives).
    pub fn completed_height(&self) -> usize {
        self.prefix.last().copied().unwrap_or(0) + self.segments.last().map_or(0, |s| s.lines.len())
    }

    /// Number of cached (completed) blocks.
    pub fn cached_blocks(&self) -> usize {
        self.segments.len()
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
            *self = AnswerView {
                width,
                generation,
                renders,
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
            self.tail = (!range.is_empty()).then(|| self.render_segment(text, range, theme));
        }
    }

    /// Re-render completed blocks at or after byte `from` whose annotations changed.
    fn rerender_from(&mut self, text: &str, from: usize, theme: &Theme) {
        let first = self.segments.partition_point(|s| s.range.end < from);
        let mut changed = false;
        for i in first..self.segments.len() {
            let range = self.segments[i].range.clone();
            let sig = self.ann.signature(&range);
            if sig != self.segments[i].marker_sig {
                let lines = self.render_lines(text, &range, theme, i > 0);
                self.segments[i].lines = lines;
                self.segments[i].marker_sig = sig;
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
                .push(self.prefix[i - 1] + self.segments[i - 1].lines.len());
        }
    }

    fn render_lines(
        &mut self,
        text: &str,
        range: &Range<usize>,
        theme: &Theme,
        gap: bool,
    ) -> Vec<RLine> {
        self.renders += 1;
        let mut lines = render_block(
            &text[range.clone()],
            range.start,
            self.ann.markers_in(range),
            self.ann.hidden_in(range),
            self.width,
            theme,
        );
        if gap && !lines.is_empty() {
            lines.insert(0, RLine::blank());
        }
        lines
    }

    fn render_segment(&mut self, text: &str, range: Range<usize>, theme: &Theme) -> Segment {
        let gap = !self.segments.is_empty();
        let lines = self.render_lines(text, &range, theme, gap);
        let marker_sig = self.ann.signature(&range);
        Segment {
            range,
            lines,
            marker_sig,
        }
    }

    /// Cache the block `range`, which is complete.
    fn complete_block(&mut self, text: &str, range: Range<usize>, theme: &Theme) {
        let segment = self.render_segment(text, range, theme);
        let start_row = self.completed_height();
        self.segments.push(segment);
        self.prefix.push(start_row);
    }

    /// Find blocks completed since the last call and cache them.
    fn split_blocks(&mut self, text: &str, theme: &Theme) {
        let bytes = text.as_bytes();
        let mut scan = self.scan;
        while let Some(nl) = memchr::memchr(b'\n', &bytes[scan.pos..]) {
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
                continue;
            }
            if is_blank(line) {
                scan.saw_blank = true;
                continue;
            }
            let indented = line.starts_with([' ', '\t']);
            if scan.saw_blank && !indented && line_start > scan.block_start {
                self.complete_block(text, scan.block_start..line_start, theme);
                scan.block_start = line_start;
            }
            scan.saw_blank = false;
            if let Some(fence) = fence_of(line) {
                scan.fence = Some(fence);
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
            self.complete_block(text, scan.block_start..scan.pos, theme);
            scan.block_start = scan.pos;
            scan.saw_blank = false;
        }
        self.scan = scan;
    }

    /// Rows `top..top + count` (fewer at the end).
    pub fn rows(&self, top: usize, count: usize) -> impl Iterator<Item = &RLine> {
        let completed = self.completed_height();
        let (first, skip) = if top < completed {
            let i = self.prefix.partition_point(|&p| p <= top).saturating_sub(1);
            (i, top - self.prefix[i])
        } else {
            (self.segments.len(), top - completed)
        };
        self.segments[first..]
            .iter()
            .chain(self.tail.iter())
            .flat_map(|s| s.lines.iter())
            .skip(skip)
            .take(count)
    }

    /// The first row showing raw byte `pos` (or the nearest row before it).
    pub fn row_of_byte(&self, pos: usize) -> Option<usize> {
        let seg_index = self.segments.partition_point(|s| s.range.end <= pos);
        let (segment, base) = match self.segments.get(seg_index) {
            Some(s) => (s, self.prefix[seg_index]),
            None => (self.tail.as_ref()?, self.completed_height()),
        };
        if let Some(i) = segment.lines.iter().position(|l| l.covers(pos)) {
            return Some(base + i);
        }
        // Not an exact hit (markup): the last row whose text starts before `pos`.
        let mut best = None;
        for (i, line) in segment.lines.iter().enumerate() {
            if line.max_src().is_some_and(|end| end <= pos) {
                best = Some(i);
            }
        }
        Some(base + best.unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::text::test_support::theme;

    #[test]
    fn lists_tables_headings_and_code_render() {
        let text = "## Mix\n\n- one\n- two\n  wrapped\n\n1. a\n2. b\n\n| A | B |\n|---|--:|\n| x | 10 |\n\n```\nlet x = 1;\n```\n";
        let mut view = AnswerView::new();
        view.sync(text, &Annotations::default(), 0, 0, 40, &theme());
        let rows: Vec<String> = view
            .rows(0, 100)
            .map(|l| l.text().trim_end().to_owned())
            .collect();
        assert_eq!(
            rows,
            [
                "Mix",
                "",
                "• one",
                "• two wrapped",
                "",
                "1. a",
                "2. b",
                "",
                "A │  B",
                "──┼───",
                "x │ 10",
                "",
                "  let x = 1;"
            ]
        );
    }

    #[test]
    fn completed_blocks_are_cached_and_only_the_tail_is_redone() {
        let theme = theme();
        let mut view = AnswerView::new();
        let mut text = String::new();
        for i in 0..50 {
            text.push_str(&format!("Paragraph {i} with some words.\n\n"));
        }
        view.sync(&text, &Annotations::default(), 0, 0, 60, &theme);
        text.push_str("Growing tail");
        view.sync(&text, &Annotations::default(), 0, 0, 60, &theme);
        let renders = view.renders;
        text.push_str(" keeps growing");
        view.sync(&text, &Annotations::default(), 0, 0, 60, &theme);
        assert_eq!(view.renders - renders, 1, "only the open block re-rendered");
        assert_eq!(view.cached_blocks(), 50);
        let last: Vec<String> = view.rows(view.height() - 1, 5).map(RLine::text).collect();
        assert_eq!(last, ["Growing tail keeps growing"]);
        // A row lookup by byte lands on the right paragraph.
        let pos = text.find("Paragraph 30").unwrap();
        let row = view.row_of_byte(pos).unwrap();
        assert_eq!(
            view.rows(row, 1).next().unwrap().text(),
            "Paragraph 30 with some words."
        );
    }

    #[test]
    fn incremental_rendering_matches_rendering_all_at_once() {
        let theme = theme();
        let text = "# Title\n\nFirst para\nsecond line.\n\n```\ncode\n\nmore code\n```\n\n- a\n\n- b\n\nEnd **bold** text.\n";
        let ann = Annotations {
            markers: vec![(text.find(" text").unwrap(), vec![1])],
            hidden: Vec::new(),
        };
        let mut whole = AnswerView::new();
        whole.sync(text, &ann, 1, 0, 30, &theme);
        let mut inc = AnswerView::new();
        for end in 1..=text.len() {
            if text.is_char_boundary(end) {
                inc.sync(&text[..end], &ann, 1, 0, 30, &theme);
            }
        }
        let a: Vec<String> = whole.rows(0, 100).map(RLine::text).collect();
        let b: Vec<String> = inc.rows(0, 100).map(RLine::text).collect();
        assert_eq!(a, b);
        assert!(a.iter().any(|l| l.contains("bold[1]")));
        assert!(a.iter().any(|l| l.contains("more code")));
    }
}
