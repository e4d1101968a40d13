//! Word wrapping of styled pieces to a width: [`wrap`] breaks at spaces (and inside words longer than a
//! row), [`wrap_chars`] keeps every space and breaks only where a row is full (code). Both keep each
//! piece's mapping to raw answer bytes exact across the breaks.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::line::{Piece, PieceKind, RLine};

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
