//! Rows for a terminal's standard output: a rendered row ([`RLine`]) as text with SGR escape
//! sequences for its styles (`ask --format text` on a terminal), or without any (`NO_COLOR`).

use std::fmt::Write;

use ratatui::style::{Color, Modifier, Style};

use super::line::{PieceKind, RLine};

/// `row` as one line of terminal text: each piece in its style (colors only with `color`), reset at
/// the end, trailing spaces dropped.
pub fn to_ansi(row: &RLine, color: bool) -> String {
    let mut out = String::new();
    let mut styled = false;
    let pieces: Vec<_> = row
        .pieces
        .iter()
        .filter(|p| p.kind != PieceKind::Break)
        .collect();
    // Trailing padding is not written (it would only wrap narrow terminals).
    let last_text = pieces
        .iter()
        .rposition(|p| !p.text.trim_end().is_empty())
        .map_or(0, |i| i + 1);
    for (i, piece) in pieces[..last_text].iter().enumerate() {
        let text = if i + 1 == last_text {
            piece.text.trim_end()
        } else {
            piece.text.as_str()
        };
        let sgr = sgr(piece.style, color);
        if sgr.is_empty() {
            if styled {
                out.push_str("\x1b[0m");
                styled = false;
            }
        } else {
            let _ = write!(out, "\x1b[0;{sgr}m");
            styled = true;
        }
        out.push_str(text);
    }
    if styled {
        out.push_str("\x1b[0m");
    }
    out
}

/// The SGR parameters of `style` (`1;3;38;5;110`), empty for the terminal's defaults.
fn sgr(style: Style, color: bool) -> String {
    let mut codes: Vec<String> = Vec::new();
    for (modifier, code) in [
        (Modifier::BOLD, "1"),
        (Modifier::DIM, "2"),
        (Modifier::ITALIC, "3"),
        (Modifier::UNDERLINED, "4"),
        (Modifier::REVERSED, "7"),
        (Modifier::CROSSED_OUT, "9"),
    ] {
        if style.add_modifier.contains(modifier) {
            codes.push(code.to_owned());
        }
    }
    if color {
        if let Some(fg) = style.fg.and_then(|c| color_code(c, 30)) {
            codes.push(fg);
        }
        if let Some(bg) = style.bg.and_then(|c| color_code(c, 40)) {
            codes.push(bg);
        }
    }
    codes.join(";")
}

/// The SGR code of a foreground (`base` 30) or background (40) color; none for the default.
fn color_code(color: Color, base: u8) -> Option<String> {
    let basic = |n: u8| Some((base + n).to_string());
    let bright = |n: u8| Some((base + 60 + n).to_string());
    match color {
        Color::Reset => None,
        Color::Black => basic(0),
        Color::Red => basic(1),
        Color::Green => basic(2),
        Color::Yellow => basic(3),
        Color::Blue => basic(4),
        Color::Magenta => basic(5),
        Color::Cyan => basic(6),
        Color::Gray => basic(7),
        Color::DarkGray => bright(0),
        Color::LightRed => bright(1),
        Color::LightGreen => bright(2),
        Color::LightYellow => bright(3),
        Color::LightBlue => bright(4),
        Color::LightMagenta => bright(5),
        Color::LightCyan => bright(6),
        Color::White => bright(7),
        Color::Indexed(i) => Some(format!("{};5;{i}", base + 8)),
        Color::Rgb(r, g, b) => Some(format!("{};2;{r};{g};{b}", base + 8)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::styled::text::line::Piece;

    fn piece(text: &str, style: Style) -> Piece {
        Piece::plain(text, style)
    }

    #[test]
    fn styles_become_sgr_and_colors_drop_without_color() {
        let row = RLine {
            pieces: vec![
                piece("Revenue ", Style::new()),
                piece("$73.2B", Style::new().add_modifier(Modifier::BOLD)),
                piece("[1]", Style::new().fg(Color::Indexed(110))),
                piece("   ", Style::new()),
            ],
        };
        assert_eq!(
            to_ansi(&row, true),
            "Revenue \x1b[0;1m$73.2B\x1b[0;38;5;110m[1]\x1b[0m"
        );
        assert_eq!(to_ansi(&row, false), "Revenue \x1b[0;1m$73.2B\x1b[0m[1]");
    }
}
