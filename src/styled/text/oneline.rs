//! One-line text from untrusted input, for titles, labels and messages: cleaned of control characters
//! and cut to a width.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::render::sanitize::sanitize_line;

/// Clean one-line untrusted text: control characters replaced, newlines and tabs become spaces.
pub fn clean(text: &str) -> String {
    let line = sanitize_line(text);
    line.chars()
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect()
}

/// Cut `text` to `width` columns, ending with `…` when cut.
pub fn truncate(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_owned();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in text.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw + 1 > width {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.push('…');
    out
}

/// Cut a row of pieces to `width` columns: the pieces that fit, then the first that does not cut
/// (ending with `…`), and none after it.
pub fn truncate_pieces(pieces: Vec<super::Piece>, width: usize) -> Vec<super::Piece> {
    let mut out = Vec::with_capacity(pieces.len());
    let mut used = 0;
    for mut p in pieces {
        let w = p.text.width();
        if used + w <= width {
            used += w;
            out.push(p);
        } else {
            p.text = truncate(&p.text, width - used);
            out.push(p);
            break;
        }
    }
    out
}
