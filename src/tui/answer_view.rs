//! The answer pane's model: Markdown → styled, wrapped lines, with citation markers injected and a
//! mapping from rendered text back to raw answer bytes (for highlighting the spans a source supports).
//!
//! The answer is split into top-level blocks (separated by blank lines, outside code fences). Every
//! completed block is parsed and wrapped once per width and cached; as the answer streams in only the
//! last, open block is redone. Heights are kept as prefix sums so finding the visible window is a
//! binary search: drawing a frame costs the same for a 1 KB and a 1 MB answer.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::ops::Range;

use pulldown_cmark::{Alignment, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::theme::Theme;
use crate::render::sanitize::is_unsafe;

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
    pub fn deco(text: impl Into<String>, style: Style) -> Piece {
        Piece {
            text: text.into(),
            style,
            src: None,
            exact: false,
            kind: PieceKind::Deco,
        }
    }

    fn width(&self) -> usize {
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
    fn covers(&self, pos: usize) -> bool {
        self.pieces
            .iter()
            .any(|p| p.kind == PieceKind::Text && p.src.as_ref().is_some_and(|r| r.contains(&pos)))
    }

    fn max_src(&self) -> Option<usize> {
        self.pieces
            .iter()
            .filter(|p| p.kind == PieceKind::Text)
            .filter_map(|p| p.src.as_ref().map(|r| r.end))
            .max()
    }
}

/// Where citation markers go, and which raw bytes are provider-written markers to leave out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Annotations {
    /// `(byte position, source numbers)`, sorted by position (see `Attribution::markers`).
    pub markers: Vec<(usize, Vec<usize>)>,
    /// Sorted, disjoint byte ranges not to display (see `Attribution::marker_spans`): the `[n]` at
    /// their end stands in for them.
    pub hidden: Vec<Range<usize>>,
}

impl Annotations {
    fn markers_in(&self, range: &Range<usize>) -> &[(usize, Vec<usize>)] {
        &self.markers[markers_in(&self.markers, range)]
    }

    fn hidden_in(&self, range: &Range<usize>) -> &[Range<usize>] {
        let lo = self.hidden.partition_point(|h| h.end <= range.start);
        let hi = self.hidden.partition_point(|h| h.start < range.end);
        &self.hidden[lo..hi.max(lo)]
    }

    fn signature(&self, range: &Range<usize>) -> u64 {
        let mut h = DefaultHasher::new();
        self.markers_in(range).hash(&mut h);
        self.hidden_in(range).hash(&mut h);
        h.finish()
    }

    /// The first byte position where `self` and `other` differ.
    fn first_difference(&self, other: &Annotations) -> Option<usize> {
        let m = first_diff(&self.markers, &other.markers, |(p, _)| *p);
        let h = first_diff(&self.hidden, &other.hidden, |r| r.start);
        [m, h].into_iter().flatten().min()
    }
}

fn first_diff<T: PartialEq>(a: &[T], b: &[T], pos: impl Fn(&T) -> usize) -> Option<usize> {
    let i = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    [a.get(i), b.get(i)].into_iter().flatten().map(pos).min()
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
    let style_for = |a: usize, b: usize, lit: bool| {
        if in_focus(a, b) {
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
    // Exact pieces: split at highlight (and focus) boundaries.
    let mut cuts: Vec<usize> = vec![src.start, src.end];
    for r in overlapping {
        cuts.push(r.start.clamp(src.start, src.end));
        cuts.push(r.end.clamp(src.start, src.end));
    }
    if let Some(f) = deco.focus {
        cuts.push(f.start.clamp(src.start, src.end));
        cuts.push(f.end.clamp(src.start, src.end));
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

// ---------------------------------------------------------------------------------------------
// Wrapping

struct Wrapper<'a> {
    width: usize,
    cont: &'a [Piece],
    cont_width: usize,
    lines: Vec<RLine>,
    cur: RLine,
    cur_w: usize,
    has_content: bool,
    /// (input piece index, end byte in that piece) of the last fragment pushed, for merging.
    last: Option<(usize, usize)>,
}

impl<'a> Wrapper<'a> {
    fn new(width: usize, first: &[Piece], cont: &'a [Piece]) -> Self {
        let first_w = first.iter().map(Piece::width).sum();
        Wrapper {
            width: width.max(1),
            cont,
            cont_width: cont.iter().map(Piece::width).sum(),
            lines: Vec::new(),
            cur: RLine {
                pieces: first.to_vec(),
            },
            cur_w: first_w,
            has_content: false,
            last: None,
        }
    }

    fn newline(&mut self) {
        let next = RLine {
            pieces: self.cont.to_vec(),
        };
        self.lines.push(std::mem::replace(&mut self.cur, next));
        self.cur_w = self.cont_width;
        self.has_content = false;
        self.last = None;
    }

    fn push(&mut self, pieces: &[Piece], index: usize, a: usize, b: usize) {
        if a >= b {
            return;
        }
        let piece = &pieces[index];
        let text = &piece.text[a..b];
        self.cur_w += text.width();
        self.has_content = true;
        if self.last == Some((index, a))
            && let Some(prev) = self.cur.pieces.last_mut()
        {
            prev.text.push_str(text);
            if piece.exact
                && let (Some(prev_src), Some(src)) = (prev.src.as_mut(), piece.src.as_ref())
            {
                prev_src.end = src.start + b;
            }
            self.last = Some((index, b));
            return;
        }
        let src = piece.src.as_ref().map(|src| {
            if piece.exact {
                src.start + a..src.start + b
            } else {
                src.clone()
            }
        });
        self.cur.pieces.push(Piece {
            text: text.to_owned(),
            style: piece.style,
            src,
            exact: piece.exact,
            kind: piece.kind.clone(),
        });
        self.last = Some((index, b));
    }

    /// Push a fragment character by character, breaking lines where it overflows.
    fn push_chars(&mut self, pieces: &[Piece], index: usize, a: usize, b: usize) {
        let text = &pieces[index].text;
        let mut start = a;
        let mut run_w = 0;
        for (offset, c) in text[a..b].char_indices() {
            let at = a + offset;
            let w = c.width().unwrap_or(0);
            if w > 0 && self.cur_w + run_w + w > self.width && (self.has_content || at > start) {
                self.push(pieces, index, start, at);
                self.newline();
                start = at;
                run_w = 0;
            }
            run_w += w;
        }
        self.push(pieces, index, start, b);
    }

    fn finish(mut self) -> Vec<RLine> {
        if self.has_content || self.lines.is_empty() {
            self.lines.push(self.cur);
        }
        self.lines
    }
}

/// A word or a whitespace run: fragments `(piece index, start, end)`.
struct Token {
    space: bool,
    frags: Vec<(usize, usize, usize)>,
    width: usize,
}

fn tokenize(pieces: &[Piece]) -> Vec<Token> {
    let mut tokens: Vec<Token> = Vec::new();
    for (index, piece) in pieces.iter().enumerate() {
        if piece.kind == PieceKind::Break {
            tokens.push(Token {
                space: false,
                frags: vec![(index, 0, 0)],
                width: usize::MAX,
            });
            continue;
        }
        let text = &piece.text;
        let mut run_start = 0;
        let mut run_space: Option<bool> = None;
        let flush = |tokens: &mut Vec<Token>, space: bool, a: usize, b: usize| {
            if a >= b {
                return;
            }
            let width = text[a..b].width();
            match tokens.last_mut() {
                Some(last) if last.space == space && last.width != usize::MAX => {
                    last.frags.push((index, a, b));
                    last.width += width;
                }
                _ => tokens.push(Token {
                    space,
                    frags: vec![(index, a, b)],
                    width,
                }),
            }
        };
        for (i, c) in text.char_indices() {
            let space = c == ' ';
            match run_space {
                Some(s) if s == space => {}
                Some(s) => {
                    flush(&mut tokens, s, run_start, i);
                    run_start = i;
                    run_space = Some(space);
                }
                None => run_space = Some(space),
            }
        }
        if let Some(s) = run_space {
            flush(&mut tokens, s, run_start, text.len());
        }
    }
    tokens
}

/// Word-wrap styled pieces to `width` columns; `first` prefixes the first row, `cont` the others.
pub fn wrap(pieces: &[Piece], width: usize, first: &[Piece], cont: &[Piece]) -> Vec<RLine> {
    let mut w = Wrapper::new(width, first, cont);
    let mut pending: Option<Token> = None;
    for token in tokenize(pieces) {
        if token.width == usize::MAX {
            w.newline();
            pending = None;
            continue;
        }
        if token.space {
            pending = Some(token);
            continue;
        }
        let space_w = if w.has_content {
            pending.as_ref().map_or(0, |t| t.width)
        } else {
            0
        };
        if w.cur_w + space_w + token.width <= w.width {
            if w.has_content
                && let Some(space) = pending.take()
            {
                for (i, a, b) in space.frags {
                    w.push(pieces, i, a, b);
                }
            }
            for &(i, a, b) in &token.frags {
                w.push(pieces, i, a, b);
            }
        } else if w.has_content && w.cont_width + token.width <= w.width {
            w.newline();
            for &(i, a, b) in &token.frags {
                w.push(pieces, i, a, b);
            }
        } else {
            // Longer than a row: start it on a fresh row, then break it anywhere.
            if w.has_content {
                w.newline();
            }
            for &(i, a, b) in &token.frags {
                w.push_chars(pieces, i, a, b);
            }
        }
        pending = None;
    }
    w.finish()
}

/// Wrap keeping every space (code): break only where a row is full, and at `Break` pieces.
pub fn wrap_chars(pieces: &[Piece], width: usize, first: &[Piece], cont: &[Piece]) -> Vec<RLine> {
    let mut w = Wrapper::new(width, first, cont);
    for (index, piece) in pieces.iter().enumerate() {
        if piece.kind == PieceKind::Break {
            w.newline();
            w.has_content = true;
            w.cur_w = w.cont_width;
            continue;
        }
        w.push_chars(pieces, index, 0, piece.text.len());
    }
    w.finish()
}

// ---------------------------------------------------------------------------------------------
// Markdown → rows

enum Container {
    Quote,
    List { next: Option<u64>, depth: usize },
    Item { first: String, first_done: bool },
}

struct TableState {
    aligns: Vec<Alignment>,
    rows: Vec<Vec<Vec<Piece>>>,
    header_rows: usize,
    in_head: bool,
}

/// Renders one block (a slice of the answer starting at byte `base`) to rows of `width` columns.
struct BlockRenderer<'a> {
    theme: &'a Theme,
    width: usize,
    src: &'a str,
    base: usize,
    markers: &'a [(usize, Vec<usize>)],
    mi: usize,
    hidden: &'a [Range<usize>],
    out: Vec<RLine>,
    inline: Vec<Piece>,
    styles: Vec<Style>,
    containers: Vec<Container>,
    in_code: bool,
    table: Option<TableState>,
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

impl<'a> BlockRenderer<'a> {
    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(self.theme.text(), |acc, s| acc.patch(*s))
    }

    fn marker_piece(&self, ns: &[usize]) -> Piece {
        let list: Vec<String> = ns.iter().map(usize::to_string).collect();
        Piece {
            text: format!("[{}]", list.join(",")),
            style: self.theme.marker(),
            src: None,
            exact: false,
            kind: PieceKind::Marker(ns.to_vec()),
        }
    }

    /// Put markers at or before `pos` into the current inline run.
    fn flush_markers(&mut self, pos: usize) {
        while let Some((p, ns)) = self.markers.get(self.mi) {
            if *p > pos {
                break;
            }
            let piece = self.marker_piece(ns);
            self.inline.push(piece);
            self.mi += 1;
        }
    }

    fn top_level(&self) -> bool {
        self.containers.is_empty()
    }

    /// A new top-level block starts: separate it from the one before.
    fn begin_block(&mut self) {
        self.flush_inline();
        if self.top_level() && !self.out.is_empty() {
            self.out.push(RLine::blank());
        }
    }

    fn prefixes(&mut self) -> (Vec<Piece>, Vec<Piece>) {
        let muted = self.theme.muted();
        let marker = self.theme.accent();
        let mut first = Vec::new();
        let mut cont = Vec::new();
        for container in &mut self.containers {
            match container {
                Container::Quote => {
                    first.push(Piece::deco("▎ ", muted));
                    cont.push(Piece::deco("▎ ", muted));
                }
                Container::List { .. } => {}
                Container::Item {
                    first: bullet,
                    first_done,
                } => {
                    let pad = " ".repeat(bullet.width());
                    if *first_done {
                        first.push(Piece::deco(pad.clone(), muted));
                    } else {
                        first.push(Piece::deco(bullet.clone(), marker));
                        *first_done = true;
                    }
                    cont.push(Piece::deco(pad, muted));
                }
            }
        }
        (first, cont)
    }

    fn flush_inline(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let pieces = std::mem::take(&mut self.inline);
        let (first, cont) = self.prefixes();
        let lines = if self.in_code {
            let bar = Piece::deco("  ", self.theme.code());
            let mut first = first;
            first.push(bar.clone());
            let mut cont = cont;
            cont.push(bar);
            wrap_chars(&pieces, self.width, &first, &cont)
        } else {
            wrap(&pieces, self.width, &first, &cont)
        };
        self.out.extend(lines);
    }

    fn emit_text(&mut self, text: &str, range: Range<usize>, style: Style) {
        let abs = self.base + range.start..self.base + range.end;
        self.flush_markers(abs.start);
        let raw = &self.src[range.clone()];
        let mut pos = abs.start;
        let mut rest = text;
        let exact = text == raw;
        // Split at newlines (code, HTML) into Break pieces.
        loop {
            let (line, next) = match rest.find('\n') {
                Some(i) => (&rest[..i], Some(&rest[i + 1..])),
                None => (rest, None),
            };
            if exact {
                self.emit_visible(line, pos, style);
                pos += line.len();
            } else if !self.is_hidden(&abs) {
                self.push_text(line, abs.clone(), false, style);
            }
            match next {
                Some(next) => {
                    self.inline.push(Piece {
                        text: String::new(),
                        style,
                        src: None,
                        exact: false,
                        kind: PieceKind::Break,
                    });
                    pos += 1;
                    rest = next;
                }
                None => break,
            }
        }
        self.flush_markers(abs.end);
    }

    /// Entirely inside a provider-written marker.
    fn is_hidden(&self, range: &Range<usize>) -> bool {
        let i = self.hidden.partition_point(|h| h.end <= range.start);
        self.hidden
            .get(i)
            .is_some_and(|h| h.start <= range.start && range.end <= h.end)
    }

    /// Text that is the raw answer at `pos..`, minus hidden (provider marker) bytes.
    fn emit_visible(&mut self, text: &str, pos: usize, style: Style) {
        let end = pos + text.len();
        let mut at = pos;
        let first = self.hidden.partition_point(|h| h.end <= pos);
        let hidden = self.hidden;
        for h in &hidden[first..] {
            if h.start >= end {
                break;
            }
            let (hs, he) = (h.start.max(pos), h.end.min(end));
            if hs > at {
                self.emit_exact(&text[at - pos..hs - pos], at, style);
            }
            at = at.max(he);
        }
        if at < end {
            self.emit_exact(&text[at - pos..], at, style);
        }
    }

    /// Text that is the raw answer at `pos..`: split it at marker positions.
    fn emit_exact(&mut self, text: &str, pos: usize, style: Style) {
        let end = pos + text.len();
        let mut at = pos;
        while let Some((p, ns)) = self.markers.get(self.mi) {
            let p = *p;
            if p > end || !text.is_char_boundary(p.saturating_sub(pos).min(text.len())) {
                break;
            }
            if p > at {
                self.push_text(&text[at - pos..p - pos], at..p, true, style);
                at = p;
            }
            let piece = self.marker_piece(ns);
            self.inline.push(piece);
            self.mi += 1;
        }
        if end > at {
            self.push_text(&text[at - pos..], at..end, true, style);
        }
    }

    fn push_text(&mut self, text: &str, src: Range<usize>, exact: bool, style: Style) {
        if text.is_empty() {
            return;
        }
        // Sanitise: unsafe characters become U+FFFD (3 bytes), tabs a space (1 byte).
        let needs = text.chars().any(|c| is_unsafe(c) || c == '\t');
        let (text, exact) = if needs {
            let clean: String = text
                .chars()
                .map(|c| match c {
                    '\t' => ' ',
                    c if is_unsafe(c) => crate::render::sanitize::REPLACEMENT,
                    c => c,
                })
                .collect();
            let same_len = clean.len() == text.len();
            (clean, exact && same_len)
        } else {
            (text.to_owned(), exact)
        };
        self.inline.push(Piece {
            text,
            style,
            src: Some(src),
            exact,
            kind: PieceKind::Text,
        });
    }

    fn run(mut self) -> Vec<RLine> {
        let mut options = Options::empty();
        options.insert(Options::ENABLE_TABLES);
        options.insert(Options::ENABLE_STRIKETHROUGH);
        let parser = Parser::new_ext(self.src, options).into_offset_iter();
        for (event, range) in parser {
            self.event(event, range);
        }
        // Markers left (in trailing markup or blank lines) go after the last text.
        let end = self.base + self.src.len();
        if self.inline.is_empty() {
            let mut tail = Vec::new();
            while let Some((p, ns)) = self.markers.get(self.mi) {
                if *p > end {
                    break;
                }
                tail.push(self.marker_piece(ns));
                self.mi += 1;
            }
            if !tail.is_empty() {
                match self.out.last_mut() {
                    Some(line) => line.pieces.extend(tail),
                    None => self.out.push(RLine { pieces: tail }),
                }
            }
        } else {
            self.flush_markers(end);
        }
        self.flush_inline();
        self.out
    }

    fn event(&mut self, event: Event<'_>, range: Range<usize>) {
        let theme = self.theme;
        match event {
            Event::Start(tag) => match tag {
                Tag::Paragraph if self.table.is_none() => self.begin_block(),
                Tag::Heading { level, .. } => {
                    self.begin_block();
                    self.styles.push(theme.heading(heading_level(level)));
                }
                Tag::BlockQuote(_) => {
                    self.begin_block();
                    self.containers.push(Container::Quote);
                }
                Tag::CodeBlock(_) => {
                    self.begin_block();
                    self.in_code = true;
                    self.styles.push(theme.code());
                }
                Tag::List(start) => {
                    if self.top_level() {
                        self.begin_block();
                    } else {
                        self.flush_inline();
                    }
                    let depth = self
                        .containers
                        .iter()
                        .filter(|c| matches!(c, Container::List { .. }))
                        .count();
                    self.containers.push(Container::List { next: start, depth });
                }
                Tag::Item => {
                    self.flush_inline();
                    let bullet = match self.containers.last_mut() {
                        Some(Container::List {
                            next: Some(n),
                            depth: _,
                        }) => {
                            let b = format!("{n}. ");
                            *n += 1;
                            b
                        }
                        Some(Container::List { depth, .. }) => {
                            if *depth % 2 == 0 { "• " } else { "◦ " }.to_owned()
                        }
                        _ => "• ".to_owned(),
                    };
                    self.containers.push(Container::Item {
                        first: bullet,
                        first_done: false,
                    });
                }
                Tag::Table(aligns) => {
                    self.begin_block();
                    self.table = Some(TableState {
                        aligns,
                        rows: Vec::new(),
                        header_rows: 0,
                        in_head: false,
                    });
                }
                Tag::TableHead => {
                    if let Some(table) = &mut self.table {
                        table.in_head = true;
                        table.rows.push(Vec::new());
                    }
                    self.styles.push(Style::new().add_modifier(Modifier::BOLD));
                }
                Tag::TableRow => {
                    if let Some(table) = &mut self.table {
                        table.rows.push(Vec::new());
                    }
                }
                Tag::TableCell => self.inline.clear(),
                Tag::Emphasis => self
                    .styles
                    .push(Style::new().add_modifier(Modifier::ITALIC)),
                Tag::Strong => self.styles.push(Style::new().add_modifier(Modifier::BOLD)),
                Tag::Strikethrough => self
                    .styles
                    .push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
                Tag::Link { .. } => self
                    .styles
                    .push(theme.accent().add_modifier(Modifier::UNDERLINED)),
                Tag::Image { .. } => self.styles.push(theme.muted()),
                _ => {}
            },
            Event::End(tag) => {
                let end = self.base + range.end;
                match tag {
                    TagEnd::Paragraph => {
                        self.flush_markers(end);
                        if self.table.is_none() {
                            self.flush_inline();
                        }
                    }
                    TagEnd::Heading(_) => {
                        self.flush_markers(end);
                        self.flush_inline();
                        self.styles.pop();
                    }
                    TagEnd::BlockQuote(_) => {
                        self.flush_markers(end);
                        self.flush_inline();
                        self.containers.pop();
                    }
                    TagEnd::CodeBlock => {
                        // The trailing newline of the last code line is not a row of its own.
                        if self
                            .inline
                            .last()
                            .is_some_and(|p| p.kind == PieceKind::Break)
                        {
                            self.inline.pop();
                        }
                        self.flush_markers(end);
                        self.flush_inline();
                        self.in_code = false;
                        self.styles.pop();
                    }
                    TagEnd::List(_) => {
                        self.flush_inline();
                        self.containers.pop();
                    }
                    TagEnd::Item => {
                        self.flush_markers(end);
                        self.flush_inline();
                        self.containers.pop();
                    }
                    TagEnd::TableCell => {
                        self.flush_markers(end);
                        let cell = std::mem::take(&mut self.inline);
                        if let Some(row) = self.table.as_mut().and_then(|t| t.rows.last_mut()) {
                            row.push(cell);
                        }
                    }
                    TagEnd::TableHead => {
                        if let Some(table) = &mut self.table {
                            table.in_head = false;
                            table.header_rows = table.rows.len();
                        }
                        self.styles.pop();
                    }
                    TagEnd::Table => {
                        self.flush_markers(end);
                        if let Some(table) = self.table.take() {
                            let lines = self.layout_table(table);
                            self.out.extend(lines);
                        }
                        self.inline.clear();
                    }
                    TagEnd::Emphasis
                    | TagEnd::Strong
                    | TagEnd::Strikethrough
                    | TagEnd::Link
                    | TagEnd::Image => {
                        self.flush_markers(end);
                        self.styles.pop();
                    }
                    _ => {}
                }
            }
            Event::Text(text) => {
                let style = self.style();
                self.emit_text(&text, range, style);
            }
            Event::Code(text) => {
                let style = self.style().patch(theme.code());
                self.emit_text(&text, range, style);
            }
            Event::Html(text) | Event::InlineHtml(text) => {
                let style = theme.muted();
                self.emit_text(&text, range, style);
            }
            Event::SoftBreak => {
                let style = self.style();
                let abs = self.base + range.start..self.base + range.end;
                self.flush_markers(abs.start);
                if self.is_hidden(&abs) {
                    return;
                }
                self.inline.push(Piece {
                    text: " ".into(),
                    style,
                    exact: false,
                    src: Some(abs),
                    kind: PieceKind::Text,
                });
            }
            Event::HardBreak => {
                self.flush_markers(self.base + range.start);
                self.inline.push(Piece {
                    text: String::new(),
                    style: Style::new(),
                    src: None,
                    exact: false,
                    kind: PieceKind::Break,
                });
            }
            Event::Rule => {
                self.begin_block();
                let width = self.width.clamp(1, 80);
                self.out.push(RLine {
                    pieces: vec![Piece::deco("─".repeat(width), theme.muted())],
                });
            }
            Event::TaskListMarker(done) => {
                let style = self.style();
                self.inline
                    .push(Piece::deco(if done { "☑ " } else { "☐ " }, style));
            }
            Event::FootnoteReference(text) => {
                let style = theme.marker();
                self.emit_text(&text, range, style);
            }
            _ => {}
        }
    }

    fn layout_table(&self, table: TableState) -> Vec<RLine> {
        let ncols = table.rows.iter().map(Vec::len).max().unwrap_or(0);
        if ncols == 0 {
            return Vec::new();
        }
        let sep_w = 3;
        let mut widths = vec![1usize; ncols];
        for row in &table.rows {
            for (c, cell) in row.iter().enumerate() {
                let w: usize = cell.iter().map(Piece::width).sum();
                widths[c] = widths[c].max(w);
            }
        }
        let budget = self.width.saturating_sub(sep_w * (ncols - 1)).max(ncols);
        while widths.iter().sum::<usize>() > budget {
            let (i, &max) = widths
                .iter()
                .enumerate()
                .max_by_key(|(_, w)| **w)
                .expect("ncols > 0");
            if max <= 1 {
                break;
            }
            widths[i] -= 1;
        }
        let muted = self.theme.muted();
        let mut out = Vec::new();
        for (r, row) in table.rows.iter().enumerate() {
            let cells: Vec<Vec<RLine>> = (0..ncols)
                .map(|c| match row.get(c) {
                    Some(cell) if !cell.is_empty() => wrap(cell, widths[c], &[], &[]),
                    _ => vec![RLine::blank()],
                })
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(1);
            for i in 0..height {
                let mut line = RLine::default();
                for (c, cell) in cells.iter().enumerate() {
                    if c > 0 {
                        line.pieces.push(Piece::deco(" │ ", muted));
                    }
                    let content = cell.get(i).cloned().unwrap_or_default();
                    let pad = widths[c].saturating_sub(content.width());
                    let (left, right) = match table.aligns.get(c) {
                        Some(Alignment::Right) => (pad, 0),
                        Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                        _ => (0, pad),
                    };
                    if left > 0 {
                        line.pieces.push(Piece::deco(" ".repeat(left), muted));
                    }
                    line.pieces.extend(content.pieces);
                    if right > 0 && c + 1 < ncols {
                        line.pieces.push(Piece::deco(" ".repeat(right), muted));
                    }
                }
                out.push(line);
            }
            if r + 1 == table.header_rows {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                out.push(RLine {
                    pieces: vec![Piece::deco(rule.join("─┼─"), muted)],
                });
            }
        }
        out
    }
}

/// Render one block of Markdown (`text`, which starts at raw byte `base`) with the markers that fall in
/// it, leaving out `hidden` bytes, to rows of `width` columns.
pub fn render_block(
    text: &str,
    base: usize,
    markers: &[(usize, Vec<usize>)],
    hidden: &[Range<usize>],
    width: usize,
    theme: &Theme,
) -> Vec<RLine> {
    BlockRenderer {
        theme,
        width: width.max(1),
        src: text,
        base,
        markers,
        mi: 0,
        hidden,
        out: Vec::new(),
        inline: Vec::new(),
        styles: Vec::new(),
        containers: Vec::new(),
        in_code: false,
        table: None,
    }
    .run()
}

// ---------------------------------------------------------------------------------------------
// Incremental block splitting and the cached view

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

fn markers_in(markers: &[(usize, Vec<usize>)], range: &Range<usize>) -> Range<usize> {
    // A marker belongs to the block whose range holds it: start < p <= end (p = 0 goes to the first).
    let lo = if range.start == 0 {
        0
    } else {
        markers.partition_point(|(p, _)| *p <= range.start)
    };
    let hi = markers.partition_point(|(p, _)| *p <= range.end);
    lo..hi.max(lo)
}

impl AnswerView {
    pub fn new() -> Self {
        Self::default()
    }

    /// Total rows.
    pub fn height(&self) -> usize {
        self.completed_height() + self.tail.as_ref().map_or(0, |t| t.lines.len())
    }

    fn completed_height(&self) -> usize {
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
                let range = scan.block_start..line_start;
                let segment = self.render_segment(text, range, theme);
                let start_row = self.completed_height();
                self.segments.push(segment);
                self.prefix.push(start_row);
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
            let range = scan.block_start..scan.pos;
            let segment = self.render_segment(text, range, theme);
            let start_row = self.completed_height();
            self.segments.push(segment);
            self.prefix.push(start_row);
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

    fn plain(lines: &[RLine]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.text().trim_end().to_owned())
            .collect()
    }

    fn theme() -> Theme {
        Theme::default()
    }

    #[test]
    fn wrapping_breaks_at_spaces_and_splits_long_words() {
        let piece = Piece {
            text: "alpha beta gamma supercalifragilistic".into(),
            style: Style::new(),
            src: Some(0..37),
            exact: true,
            kind: PieceKind::Text,
        };
        let lines = wrap(&[piece], 10, &[], &[]);
        assert_eq!(
            plain(&lines),
            ["alpha beta", "gamma", "supercalif", "ragilistic"]
        );
        // Sources stay exact across the split.
        assert_eq!(lines[1].pieces[0].src, Some(11..16));
    }

    #[test]
    fn markers_follow_the_cited_text_even_after_bold_markup() {
        let text = "Revenue was **$73.2B** and more.";
        let end_of_bold = text.find(" and").unwrap();
        let markers = vec![(end_of_bold, vec![1]), (text.len(), vec![2, 3])];
        let lines = render_block(text, 0, &markers, &[], 80, &theme());
        assert_eq!(plain(&lines), ["Revenue was $73.2B[1] and more.[2,3]"]);
    }

    #[test]
    fn markers_inside_text_split_it_at_the_exact_byte() {
        let text = "NVIDIA grew fast, margins held.";
        let at = text.find(',').unwrap();
        let lines = render_block(text, 100, &[(100 + at, vec![4])], &[], 80, &theme());
        assert_eq!(plain(&lines), ["NVIDIA grew fast[4], margins held."]);
    }

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
    fn provider_written_markers_are_left_out_and_replaced_by_ours() {
        // xAI writes `[[1]](url)` links, Zeta Alpha `<sup>1</sup>` anchors.
        let text = "Revenue rose[[1]](https://x.com/a) and margins held<sup>2</sup>.";
        let link = text.find("[[").unwrap()..text.find(" and").unwrap();
        let sup = text.find("<sup>").unwrap()..text.rfind('.').unwrap();
        let markers = vec![(link.end, vec![1]), (sup.end, vec![2])];
        let lines = render_block(text, 0, &markers, &[link, sup], 80, &theme());
        assert_eq!(plain(&lines), ["Revenue rose[1] and margins held[2]."]);
    }

    #[test]
    fn control_characters_never_reach_rows() {
        let text = "evil \u{1b}]8;;http://x\u{7}link and \u{202e}bidi\ttab";
        let lines = render_block(text, 0, &[], &[], 80, &theme());
        let all: String = lines.iter().map(RLine::text).collect();
        assert!(!all.chars().any(|c| c.is_control()));
        assert!(all.contains('\u{FFFD}'));
    }
}
