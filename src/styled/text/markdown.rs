//! Markdown → rows: one block of the answer is parsed (pulldown-cmark) and turned into wrapped, styled
//! rows with our citation markers `[n]` injected at their byte positions, provider-written markers left
//! out, and every piece of text mapped back to the raw answer bytes it came from.

use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use unicode_width::UnicodeWidthStr;

use super::line::{Piece, PieceKind, RLine};
use super::table::{TableState, layout_table};
use super::wrap::{wrap, wrap_chars, wrap_chars_height, wrap_height};
use crate::render::sanitize::is_unsafe;
use crate::styled::theme::Theme;

enum Container {
    Quote,
    List { next: Option<u64>, depth: usize },
    Item { first: String, first_done: bool },
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
    /// The rows, when they are built (not when only the height is wanted).
    out: Vec<RLine>,
    /// How many rows there are so far (built or not).
    rows: usize,
    build: bool,
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
        if self.top_level() && self.rows > 0 {
            self.add_row(RLine::blank());
        }
    }

    fn add_row(&mut self, line: RLine) {
        self.rows += 1;
        if self.build {
            self.out.push(line);
        }
    }

    fn add_rows(&mut self, lines: Vec<RLine>) {
        self.rows += lines.len();
        if self.build {
            self.out.extend(lines);
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
        let (mut first, mut cont) = (first, cont);
        if self.in_code {
            let bar = Piece::deco("  ", self.theme.code());
            first.push(bar.clone());
            cont.push(bar);
        }
        // The same walk either way: only the building of the rows differs.
        match (self.build, self.in_code) {
            (true, true) => self.add_rows(wrap_chars(&pieces, self.width, &first, &cont)),
            (true, false) => self.add_rows(wrap(&pieces, self.width, &first, &cont)),
            (false, true) => self.rows += wrap_chars_height(&pieces, self.width, &first, &cont),
            (false, false) => self.rows += wrap_height(&pieces, self.width, &first, &cont),
        }
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
        // Sanitise: unsafe characters become U+FFFD (3 bytes), tabs a space (1 byte). Printable
        // ASCII, most of any answer, is neither.
        let needs = text
            .chars()
            .any(|c| !(' '..='~').contains(&c) && (is_unsafe(c) || c == '\t'));
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

    /// The rows (none unless built) and how many there are.
    fn run(mut self) -> (Vec<RLine>, usize) {
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
                if self.rows == 0 {
                    self.add_row(RLine { pieces: tail });
                } else if let Some(line) = self.out.last_mut() {
                    line.pieces.extend(tail);
                }
            }
        } else {
            self.flush_markers(end);
        }
        self.flush_inline();
        (self.out, self.rows)
    }

    fn event(&mut self, event: Event<'_>, range: Range<usize>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag, self.base + range.end),
            event => self.leaf(event, range),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        let theme = self.theme;
        match tag {
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
            Tag::List(start) => self.start_list(start),
            Tag::Item => self.start_item(),
            Tag::Table(aligns) => {
                self.begin_block();
                self.table = Some(TableState::new(aligns));
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
        }
    }

    fn start_list(&mut self, start: Option<u64>) {
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

    fn start_item(&mut self) {
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

    /// A tag ends at raw byte `end`.
    fn end(&mut self, tag: TagEnd, end: usize) {
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
            TagEnd::BlockQuote(_) | TagEnd::Item => {
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
            TagEnd::TableCell | TagEnd::TableHead | TagEnd::Table => self.end_table_part(tag, end),
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

    fn end_table_part(&mut self, tag: TagEnd, end: usize) {
        match tag {
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
                    let lines = layout_table(table, self.width, self.theme);
                    self.add_rows(lines);
                }
                self.inline.clear();
            }
            _ => {}
        }
    }

    /// Events that are neither the start nor the end of a tag: text, breaks, rules.
    fn leaf(&mut self, event: Event<'_>, range: Range<usize>) {
        let theme = self.theme;
        match event {
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
                self.add_row(RLine {
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
    BlockRenderer::new(text, base, markers, hidden, width, theme, true)
        .run()
        .0
}

/// How many rows [`render_block`] makes of the same arguments, without making them (a block out of
/// view only needs its height). The same walk with the building switched off, or for one line of
/// plain prose a count of its wrapped rows ([`super::plain`]).
pub fn block_height(
    text: &str,
    base: usize,
    markers: &[(usize, Vec<usize>)],
    hidden: &[Range<usize>],
    width: usize,
    theme: &Theme,
) -> usize {
    if let Some(height) = super::plain::height(text, markers, hidden, width) {
        return height;
    }
    BlockRenderer::new(text, base, markers, hidden, width, theme, false)
        .run()
        .1
}

impl<'a> BlockRenderer<'a> {
    fn new(
        src: &'a str,
        base: usize,
        markers: &'a [(usize, Vec<usize>)],
        hidden: &'a [Range<usize>],
        width: usize,
        theme: &'a Theme,
        build: bool,
    ) -> Self {
        BlockRenderer {
            theme,
            width: width.max(1),
            src,
            base,
            markers,
            mi: 0,
            hidden,
            out: Vec::new(),
            rows: 0,
            build,
            inline: Vec::new(),
            styles: Vec::new(),
            containers: Vec::new(),
            in_code: false,
            table: None,
        }
    }
}

/// The words of an inline piece of Markdown, for quoting it as text: emphasis, code and link marks
/// left out (`**$73.2B**` reads `$73.2B`), line breaks as spaces. Not yet cleaned for the terminal.
pub fn inline_text(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    for event in Parser::new_ext(markdown, Options::ENABLE_STRIKETHROUGH) {
        match event {
            Event::Text(text) | Event::Code(text) => out.push_str(&text),
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            Event::End(TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::Item) => out.push(' '),
            _ => {}
        }
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests;
