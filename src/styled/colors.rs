//! How many colors the terminal shows ([`ColorDepth`]), from what it announces: 24-bit only with
//! `COLORTERM=truecolor` (or `24bit`, or a `*-direct` terminal), 256 with a `*256color*` `TERM`, else
//! the 16 basic colors. Theme colors are brought down to the nearest the terminal has, so a terminal
//! that never said it takes 24-bit color never receives it.

use ratatui::style::Color;

/// The colors a terminal can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorDepth {
    TrueColor,
    Ansi256,
    Ansi16,
}

impl ColorDepth {
    /// From the environment (`COLORTERM`, `TERM`).
    pub fn from_env() -> ColorDepth {
        let var = |name| std::env::var(name).ok();
        ColorDepth::announced(var("COLORTERM").as_deref(), var("TERM").as_deref())
    }

    /// What `COLORTERM` and `TERM` announce.
    pub fn announced(colorterm: Option<&str>, term: Option<&str>) -> ColorDepth {
        let colorterm = colorterm.unwrap_or_default().to_ascii_lowercase();
        let term = term.unwrap_or_default().to_ascii_lowercase();
        if matches!(colorterm.as_str(), "truecolor" | "24bit") || term.ends_with("-direct") {
            ColorDepth::TrueColor
        } else if term.contains("256color") {
            ColorDepth::Ansi256
        } else {
            ColorDepth::Ansi16
        }
    }

    /// `color` as this terminal can show it.
    pub fn fit(self, color: Color) -> Color {
        match (self, color) {
            (ColorDepth::TrueColor, color) => color,
            (ColorDepth::Ansi256, Color::Rgb(r, g, b)) => Color::Indexed(nearest_256(r, g, b)),
            (ColorDepth::Ansi16, Color::Rgb(r, g, b)) => nearest_16(r, g, b),
            (ColorDepth::Ansi16, Color::Indexed(i)) if i >= 16 => {
                let (r, g, b) = rgb_of_256(i);
                nearest_16(r, g, b)
            }
            (_, color) => color,
        }
    }
}

/// The 6×6×6 cube's steps in the 256-color palette.
const CUBE: [u8; 6] = [0, 95, 135, 175, 215, 255];

fn rgb_of_256(i: u8) -> (u8, u8, u8) {
    match i {
        0..=15 => BASIC[i as usize].1,
        16..=231 => {
            let n = i - 16;
            (
                CUBE[(n / 36) as usize],
                CUBE[(n / 6 % 6) as usize],
                CUBE[(n % 6) as usize],
            )
        }
        _ => {
            let level = 8 + (i - 232) * 10;
            (level, level, level)
        }
    }
}

fn distance((r1, g1, b1): (u8, u8, u8), (r2, g2, b2): (u8, u8, u8)) -> u32 {
    let d = |a: u8, b: u8| (a as i32 - b as i32).unsigned_abs();
    // Green counts most, blue least, as the eye sees them.
    2 * d(r1, r2).pow(2) + 4 * d(g1, g2).pow(2) + 3 * d(b1, b2).pow(2)
}

/// The nearest color of the 256-color palette (the cube or the gray ramp; not the 16 basic colors,
/// which terminals redefine).
fn nearest_256(r: u8, g: u8, b: u8) -> u8 {
    (16..=255u8)
        .min_by_key(|&i| distance(rgb_of_256(i), (r, g, b)))
        .expect("the palette is not empty")
}

/// The 16 basic colors and their usual (xterm) values.
const BASIC: [(Color, (u8, u8, u8)); 16] = [
    (Color::Black, (0, 0, 0)),
    (Color::Red, (205, 0, 0)),
    (Color::Green, (0, 205, 0)),
    (Color::Yellow, (205, 205, 0)),
    (Color::Blue, (0, 0, 238)),
    (Color::Magenta, (205, 0, 205)),
    (Color::Cyan, (0, 205, 205)),
    (Color::Gray, (229, 229, 229)),
    (Color::DarkGray, (127, 127, 127)),
    (Color::LightRed, (255, 0, 0)),
    (Color::LightGreen, (0, 255, 0)),
    (Color::LightYellow, (255, 255, 0)),
    (Color::LightBlue, (92, 92, 255)),
    (Color::LightMagenta, (255, 0, 255)),
    (Color::LightCyan, (0, 255, 255)),
    (Color::White, (255, 255, 255)),
];

fn nearest_16(r: u8, g: u8, b: u8) -> Color {
    BASIC
        .iter()
        .min_by_key(|(_, rgb)| distance(*rgb, (r, g, b)))
        .map(|(color, _)| *color)
        .expect("the palette is not empty")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_announced_terminal_gets_24_bit_color() {
        use ColorDepth::*;
        assert_eq!(
            ColorDepth::announced(Some("truecolor"), Some("xterm")),
            TrueColor
        );
        assert_eq!(ColorDepth::announced(Some("24bit"), None), TrueColor);
        assert_eq!(ColorDepth::announced(None, Some("xterm-direct")), TrueColor);
        assert_eq!(ColorDepth::announced(None, Some("xterm-256color")), Ansi256);
        assert_eq!(
            ColorDepth::announced(None, Some("screen-256color")),
            Ansi256
        );
        assert_eq!(ColorDepth::announced(None, Some("xterm")), Ansi16);
        assert_eq!(ColorDepth::announced(None, None), Ansi16);
    }

    #[test]
    fn colors_come_down_to_the_nearest_the_terminal_has() {
        let nord_blue = Color::Rgb(0x88, 0xc0, 0xd0);
        assert_eq!(ColorDepth::TrueColor.fit(nord_blue), nord_blue);
        assert!(matches!(ColorDepth::Ansi256.fit(nord_blue), Color::Indexed(i) if i >= 16));
        assert_eq!(
            ColorDepth::Ansi256.fit(Color::Rgb(255, 0, 0)),
            Color::Indexed(196)
        );
        assert_eq!(
            ColorDepth::Ansi256.fit(Color::Rgb(128, 128, 128)),
            Color::Indexed(244)
        );
        assert_eq!(
            ColorDepth::Ansi16.fit(Color::Rgb(250, 10, 10)),
            Color::LightRed
        );
        assert_eq!(ColorDepth::Ansi16.fit(Color::Indexed(196)), Color::LightRed);
        assert_eq!(ColorDepth::Ansi16.fit(Color::Cyan), Color::Cyan);
        assert_eq!(ColorDepth::Ansi16.fit(Color::Reset), Color::Reset);
    }
}
