//! Word wrapping of styled pieces to a width: [`wrap`] breaks at spaces (and inside words longer than a
//! row), [`wrap_chars`] keeps every space and breaks only where a row is full (code). Both keep each
//! piece's mapping to raw answer bytes exact across the breaks. [`wrap_height`] and
//! [`wrap_chars_height`] count the rows the same walk makes without building them (a block out of
//! view only needs its height): one walk, with the building switched off, so the count cannot differ.
//! [`pack_items`] breaks a line of ` · `-separated figures only between two of them.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::line::{Piece, PieceKind, RLine};

/// The rows being built (absent when only counting them).
struct Build<'a> {
    cont: &'a [Piece],
    lines: Vec<RLine>,
    cur: RLine,
    /// (input piece index, end byte in that piece) of the last fragment pushed, for merging.
    last: Option<(usize, usize)>,
}

struct Wrapper<'a> {
    width: usize,
    cont_width: usize,
    cur_w: usize,
    has_content: bool,
    /// Rows finished so far.
    rows: usize,
    build: Option<Build<'a>>,
}

impl<'a> Wrapper<'a> {
    fn new(width: usize, first: &[Piece], cont: &'a [Piece], build: bool) -> Self {
        let first_w = first.iter().map(Piece::width).sum();
        Wrapper {
            width: width.max(1),
            cont_width: cont.iter().map(Piece::width).sum(),
            cur_w: first_w,
            has_content: false,
            rows: 0,
            build: build.then(|| Build {
                cont,
                lines: Vec::new(),
                cur: RLine {
                    pieces: first.to_vec(),
                },
                last: None,
            }),
        }
    }

    fn newline(&mut self) {
        self.rows += 1;
        self.cur_w = self.cont_width;
        self.has_content = false;
        if let Some(build) = &mut self.build {
            let next = RLine {
                pieces: build.cont.to_vec(),
            };
            build.lines.push(std::mem::replace(&mut build.cur, next));
            build.last = None;
        }
    }

    /// Put `pieces[index].text[a..b]`, `width` columns wide, on the current row.
    fn push(&mut self, pieces: &[Piece], index: usize, a: usize, b: usize, width: usize) {
        if a >= b {
            return;
        }
        self.cur_w += width;
        self.has_content = true;
        if let Some(build) = &mut self.build {
            build.push(pieces, index, a, b);
        }
    }

    /// Push a fragment character by character, breaking lines where it overflows.
    fn push_chars(&mut self, pieces: &[Piece], index: usize, a: usize, b: usize) {
        self.push_chars_of(&pieces[index].text, pieces, index, a, b);
    }

    /// [`Wrapper::push_chars`] of `text[a..b]`, which is `pieces[index]`'s text (when building).
    fn push_chars_of(&mut self, text: &str, pieces: &[Piece], index: usize, a: usize, b: usize) {
        let mut start = a;
        let mut run_w = 0;
        for (offset, c) in text[a..b].char_indices() {
            let at = a + offset;
            let w = c.width().unwrap_or(0);
            if w > 0 && self.cur_w + run_w + w > self.width && (self.has_content || at > start) {
                self.push(pieces, index, start, at, text[start..at].width());
                self.newline();
                start = at;
                run_w = 0;
            }
            run_w += w;
        }
        self.push(pieces, index, start, b, text[start..b].width());
    }

    /// The rows (empty when only counting) and how many there are.
    fn finish(self) -> (Vec<RLine>, usize) {
        let last = self.has_content || self.rows == 0;
        let rows = self.rows + usize::from(last);
        match self.build {
            Some(mut build) => {
                if last {
                    build.lines.push(build.cur);
                }
                (build.lines, rows)
            }
            None => (Vec::new(), rows),
        }
    }
}

impl Build<'_> {
    fn push(&mut self, pieces: &[Piece], index: usize, a: usize, b: usize) {
        let piece = &pieces[index];
        let text = &piece.text[a..b];
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
}

/// Part of a token inside one piece: `pieces[index].text[a..b]`, `width` columns.
#[derive(Clone, Copy)]
struct Frag {
    index: usize,
    a: usize,
    b: usize,
    width: usize,
}

/// A word or a whitespace run (or a forced break, `width == usize::MAX`): its fragments are
/// `frags[frags.start..frags.end]` of the list [`tokenize`] fills.
#[derive(Clone)]
struct Token {
    space: bool,
    frags: std::ops::Range<usize>,
    width: usize,
}

/// The tokens of `pieces`, their fragments in one list: two allocations per call, not one per word.
fn tokenize(pieces: &[Piece]) -> (Vec<Token>, Vec<Frag>) {
    // About one word and one space per five bytes of text: sized once, not grown per word.
    let total: usize = pieces.iter().map(|p| p.text.len()).sum();
    let mut tokens: Vec<Token> = Vec::with_capacity(total / 3 + pieces.len());
    let mut frags: Vec<Frag> = Vec::with_capacity(total / 3 + pieces.len());
    for (index, piece) in pieces.iter().enumerate() {
        if piece.kind == PieceKind::Break {
            frags.push(Frag {
                index,
                a: 0,
                b: 0,
                width: 0,
            });
            tokens.push(Token {
                space: false,
                frags: frags.len() - 1..frags.len(),
                width: usize::MAX,
            });
            continue;
        }
        let text = &piece.text;
        let mut flush = |space: bool, a: usize, b: usize, printable: bool| {
            if a >= b {
                return;
            }
            // Printable ASCII is one column a byte; anything else is measured as a string.
            let width = if printable { b - a } else { text[a..b].width() };
            frags.push(Frag { index, a, b, width });
            match tokens.last_mut() {
                // The last token's fragments are the last ones in the list.
                Some(last) if last.space == space && last.width != usize::MAX => {
                    last.frags.end = frags.len();
                    last.width += width;
                }
                _ => tokens.push(Token {
                    space,
                    frags: frags.len() - 1..frags.len(),
                    width,
                }),
            }
        };
        let bytes = text.as_bytes();
        let mut run_start = 0;
        while run_start < bytes.len() {
            // ' ' is one byte and never inside a multi-byte character: runs split at byte level.
            let space = bytes[run_start] == b' ';
            let rest = &bytes[run_start..];
            let run = if space {
                rest.iter().position(|&c| c != b' ').unwrap_or(rest.len())
            } else {
                memchr::memchr(b' ', rest).unwrap_or(rest.len())
            };
            let printable = rest[..run].iter().all(|c| (b' '..=b'~').contains(c));
            flush(space, run_start, run_start + run, printable);
            run_start += run;
        }
    }
    (tokens, frags)
}

/// Word-wrap styled pieces to `width` columns; `first` prefixes the first row, `cont` the others.
pub fn wrap(pieces: &[Piece], width: usize, first: &[Piece], cont: &[Piece]) -> Vec<RLine> {
    wrap_words(Wrapper::new(width, first, cont, true), pieces).0
}

/// The number of rows [`wrap`] makes of the same arguments, without making them.
pub fn wrap_height(pieces: &[Piece], width: usize, first: &[Piece], cont: &[Piece]) -> usize {
    wrap_words(Wrapper::new(width, first, cont, false), pieces).1
}

fn wrap_words(mut w: Wrapper<'_>, pieces: &[Piece]) -> (Vec<RLine>, usize) {
    let (tokens, frags) = tokenize(pieces);
    let mut pending: Option<&Token> = None;
    for token in &tokens {
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
            pending.map_or(0, |t| t.width)
        } else {
            0
        };
        let word = &frags[token.frags.clone()];
        if w.cur_w + space_w + token.width <= w.width {
            if w.has_content
                && let Some(space) = pending.take()
            {
                for f in &frags[space.frags.clone()] {
                    w.push(pieces, f.index, f.a, f.b, f.width);
                }
            }
            for f in word {
                w.push(pieces, f.index, f.a, f.b, f.width);
            }
        } else if w.has_content && w.cont_width + token.width <= w.width {
            w.newline();
            for f in word {
                w.push(pieces, f.index, f.a, f.b, f.width);
            }
        } else {
            // Longer than a row: start it on a fresh row, then break it anywhere.
            if w.has_content {
                w.newline();
            }
            for f in word {
                w.push_chars(pieces, f.index, f.a, f.b);
            }
        }
        pending = None;
    }
    w.finish()
}

/// The number of rows [`wrap`] makes of one piece of text `text` without prefixes, breaks or
/// building anything: the walk of [`wrap_words`] over the runs [`tokenize`] would find (one piece:
/// every run is a token of one fragment), without the piece, the token lists or a call per word.
pub fn wrap_text_height(text: &str, width: usize) -> usize {
    let mut w = Wrapper::new(width, &[], &[], false);
    // The width of the run of spaces before the next word.
    let mut pending: Option<usize> = None;
    let bytes = text.as_bytes();
    let mut a = 0;
    while a < bytes.len() {
        // The run of spaces or of other bytes at `a` (words are short: a plain loop, no search),
        // and whether it is all printable ASCII (one column a byte).
        let space = bytes[a] == b' ';
        let mut b = a;
        let mut printable = true;
        while b < bytes.len() && (bytes[b] == b' ') == space {
            printable &= (b' '..=b'~').contains(&bytes[b]);
            b += 1;
        }
        let width = if printable { b - a } else { text[a..b].width() };
        if space {
            pending = Some(width);
        } else {
            let space_w = if w.has_content {
                pending.unwrap_or(0)
            } else {
                0
            };
            if w.cur_w + space_w + width <= w.width {
                if w.has_content
                    && let Some(space) = pending
                {
                    w.cur_w += space;
                }
                w.push(&[], 0, a, b, width);
            } else if w.has_content && w.cont_width + width <= w.width {
                w.newline();
                w.push(&[], 0, a, b, width);
            } else {
                if w.has_content {
                    w.newline();
                }
                w.push_chars_of(text, &[], 0, a, b);
            }
            pending = None;
        }
        a = b;
    }
    w.finish().1
}

/// Wrap keeping every space (code): break only where a row is full, and at `Break` pieces.
pub fn wrap_chars(pieces: &[Piece], width: usize, first: &[Piece], cont: &[Piece]) -> Vec<RLine> {
    wrap_chars_with(Wrapper::new(width, first, cont, true), pieces).0
}

/// The number of rows [`wrap_chars`] makes of the same arguments, without making them.
pub fn wrap_chars_height(pieces: &[Piece], width: usize, first: &[Piece], cont: &[Piece]) -> usize {
    wrap_chars_with(Wrapper::new(width, first, cont, false), pieces).1
}

fn wrap_chars_with(mut w: Wrapper<'_>, pieces: &[Piece]) -> (Vec<RLine>, usize) {
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

/// `text`'s ` · `-separated items (`first byte 0.4 s · total 22.1 s`) packed into lines of at
/// most `width` columns, broken only between two items, so a value never leaves its name nor a
/// number its unit (`total` at one line's end, `22.1 s` at the next's start). Lines after the
/// first start with `indent`; an item wider than a line has a line of its own.
pub fn pack_items(text: &str, width: usize, indent: &str) -> Vec<String> {
    const SEPARATOR: &str = " · ";
    let mut lines: Vec<String> = Vec::new();
    for item in text.split(SEPARATOR) {
        match lines.last_mut() {
            Some(line) if line.width() + SEPARATOR.width() + item.width() <= width => {
                line.push_str(SEPARATOR);
                line.push_str(item);
            }
            Some(_) => lines.push(format!("{indent}{item}")),
            None => lines.push(item.to_owned()),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use ratatui::style::Style;

    use super::*;
    use crate::styled::text::test_support::plain;

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
}
