//! The styled row model every pane draws: a row ([`RLine`]) is a list of [`Piece`]s, each a run of
//! text with one style that remembers which raw answer bytes it came from, so a source's spans can be
//! highlighted exactly when a row is turned into a ratatui [`Line`] ([`to_line`]).

use std::ops::Range;

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::styled::theme::Theme;

/// What a piece of rendered text is.
#[derive(Debug, Clone, PartialEq)]
pub enum PieceKind {
    /// Answer text (its `src` maps back to raw bytes).
    Text,
    /// A citation marker `[n]` for these source numbers.
    Marker(Vec<usize>),
    /// Decoration: list bullets, quote bars, table rules.
    Deco,
    /// A forced line break (hard breaks, code lines); never drawn.
    Break,
}

/// A run of text with one style.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub text: String,
    pub style: Style,
    /// The raw answer bytes this text came from.
    pub src: Option<Range<usize>>,
    /// `text[i]` is raw byte `src.start + i` (so sub-ranges can be highlighted exactly).
    pub exact: bool,
    pub kind: PieceKind,
}

impl Piece {
    /// Text that came from no answer byte (a label, a title, a message).
    pub fn plain(text: impl Into<String>, style: Style) -> Piece {
        Piece {
            text: text.into(),
            style,
            src: None,
            exact: false,
            kind: PieceKind::Text,
        }
    }

    pub fn deco(text: impl Into<String>, style: Style) -> Piece {
        Piece {
            text: text.into(),
            style,
            src: None,
            exact: false,
            kind: PieceKind::Deco,
        }
    }

    pub fn width(&self) -> usize {
        self.text.width()
    }
}

/// One rendered row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RLine {
    pub pieces: Vec<Piece>,
}

impl RLine {
    pub fn blank() -> RLine {
        RLine::default()
    }

    pub fn width(&self) -> usize {
        self.pieces.iter().map(Piece::width).sum()
    }

    /// The plain text of the row.
    pub fn text(&self) -> String {
        self.pieces.iter().map(|p| p.text.as_str()).collect()
    }

    /// Does any text on this row come from raw byte `pos`?
    pub(super) fn covers(&self, pos: usize) -> bool {
        self.pieces
            .iter()
            .any(|p| p.kind == PieceKind::Text && p.src.as_ref().is_some_and(|r| r.contains(&pos)))
    }

    /// The end of the raw bytes its text came from.
    pub(super) fn max_src(&self) -> Option<usize> {
        self.pieces
            .iter()
            .filter(|p| p.kind == PieceKind::Text)
            .filter_map(|p| p.src.as_ref().map(|r| r.end))
            .max()
    }
}

/// Decorations applied while drawing (they never change the layout).
#[derive(Debug, Clone, Copy, Default)]
pub struct Decorations<'a> {
    /// Disjoint, sorted raw byte ranges to highlight (the selected source's spans).
    pub highlights: &'a [Range<usize>],
    /// The span `n`/`N` jumped to.
    pub focus: Option<&'a Range<usize>>,
    /// The selected source number: its markers are highlighted.
    pub selected: Option<usize>,
    /// Disjoint, sorted raw byte ranges the search (`/`) found.
    pub search: &'a [Range<usize>],
    /// The search hit shown now.
    pub search_current: Option<&'a Range<usize>>,
}

/// Sort and merge ranges into disjoint ones (for [`Decorations::highlights`]).
pub fn merge_ranges(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.retain(|r| r.start < r.end);
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

/// Turn a rendered row into a ratatui line, applying highlights to the text it came from.
pub fn to_line<'a>(line: &'a RLine, deco: &Decorations<'_>, theme: &Theme) -> Line<'a> {
    let mut spans = Vec::with_capacity(line.pieces.len());
    for piece in &line.pieces {
        match &piece.kind {
            PieceKind::Break => {}
            PieceKind::Marker(ns) => {
                let style = if deco.selected.is_some_and(|n| ns.contains(&n)) {
                    theme.highlight().add_modifier(Modifier::BOLD)
                } else {
                    piece.style
                };
                spans.push(Span::styled(piece.text.as_str(), style));
            }
            PieceKind::Deco => spans.push(Span::styled(piece.text.as_str(), piece.style)),
            PieceKind::Text => push_highlighted(&mut spans, piece, deco, theme),
        }
    }
    Line::from(spans)
}

fn push_highlighted<'a>(
    spans: &mut Vec<Span<'a>>,
    piece: &'a Piece,
    deco: &Decorations<'_>,
    theme: &Theme,
) {
    let Some(src) = piece.src.clone() else {
        spans.push(Span::styled(piece.text.as_str(), piece.style));
        return;
    };
    let in_focus = |a: usize, b: usize| deco.focus.is_some_and(|f| f.start < b && a < f.end);
    let current = |a: usize, b: usize| {
        deco.search_current
            .is_some_and(|f| f.start < b && a < f.end)
    };
    let first_hit = deco.search.partition_point(|r| r.end <= src.start);
    let found = |a: usize, b: usize| {
        deco.search[first_hit..]
            .iter()
            .take_while(|r| r.start < b)
            .any(|r| r.start < b && a < r.end)
    };
    let style_for = |a: usize, b: usize, lit: bool| {
        if current(a, b) {
            piece.style.patch(theme.search_current())
        } else if found(a, b) {
            piece.style.patch(theme.search_hit())
        } else if in_focus(a, b) {
            piece.style.patch(theme.focus_span())
        } else if lit {
            piece.style.patch(theme.highlight())
        } else {
            piece.style
        }
    };
    // Highlight ranges overlapping this piece.
    let first = deco.highlights.partition_point(|r| r.end <= src.start);
    let overlapping = deco.highlights[first..]
        .iter()
        .take_while(|r| r.start < src.end);
    if !piece.exact {
        let lit = overlapping.clone().next().is_some();
        spans.push(Span::styled(
            piece.text.as_str(),
            style_for(src.start, src.end, lit),
        ));
        return;
    }
    // Exact pieces: split at highlight, focus and search boundaries.
    let mut cuts: Vec<usize> = vec![src.start, src.end];
    let hits = deco.search[first_hit..]
        .iter()
        .take_while(|r| r.start < src.end);
    for r in overlapping
        .chain(hits)
        .chain(deco.focus)
        .chain(deco.search_current)
    {
        cuts.push(r.start.clamp(src.start, src.end));
        cuts.push(r.end.clamp(src.start, src.end));
    }
    cuts.sort_unstable();
    cuts.dedup();
    for pair in cuts.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (ta, tb) = (a - src.start, b - src.start);
        let Some(text) = piece.text.get(ta..tb) else {
            spans.push(Span::styled(piece.text.as_str(), piece.style));
            return;
        };
        let lit = deco.highlights[first..]
            .iter()
            .take_while(|r| r.start < b)
            .any(|r| r.start <= a && b <= r.end);
        spans.push(Span::styled(text, style_for(a, b, lit)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::styled::text::markdown::render_block;
    use crate::styled::text::test_support::theme;

    #[test]
    fn highlights_split_exact_pieces() {
        let theme = theme();
        let text = "alpha beta gamma";
        let lines = render_block(text, 0, &[], &[], 80, &theme);
        let highlights = [Range { start: 6, end: 10 }];
        let deco = Decorations {
            highlights: &highlights,
            focus: None,
            selected: None,
            ..Decorations::default()
        };
        let line = to_line(&lines[0], &deco, &theme);
        let lit: Vec<&str> = line
            .spans
            .iter()
            .filter(|s| s.style.bg == Some(theme.highlight_bg))
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(lit, ["beta"]);
    }

    #[test]
    fn search_hits_are_lit_and_the_current_one_stands_out() {
        let theme = theme();
        let text = "alpha beta alpha";
        let lines = render_block(text, 0, &[], &[], 80, &theme);
        let hits = [0..5, 11..16];
        let deco = Decorations {
            search: &hits,
            search_current: Some(&hits[1]),
            ..Decorations::default()
        };
        let line = to_line(&lines[0], &deco, &theme);
        let styled = |style: Style| -> Vec<&str> {
            line.spans
                .iter()
                .filter(|s| s.style == style)
                .map(|s| s.content.as_ref())
                .collect()
        };
        let base = lines[0].pieces[0].style;
        assert_eq!(styled(base.patch(theme.search_hit())), ["alpha"]);
        assert_eq!(styled(base.patch(theme.search_current())), ["alpha"]);
        assert_eq!(line.spans.len(), 3);
    }
}
