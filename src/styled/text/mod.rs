//! Text for the terminal: the styled row model every pane draws ([`line`]), word wrapping ([`wrap`]),
//! the answer's Markdown rendered to rows with citation markers ([`markdown`], [`table`]) and cached
//! per block ([`blocks`], fed by [`annotations`]), and one-line clean-up of untrusted text
//! ([`oneline`]). Nothing here knows about the app's state or the screen's layout.

pub mod annotations;
pub mod ansi;
pub mod blocks;
pub mod line;
pub mod markdown;
pub mod oneline;
mod plain;
pub mod table;
pub mod wrap;

pub use annotations::Annotations;
pub use blocks::AnswerView;
pub use line::{Decorations, Piece, PieceKind, RLine, merge_ranges, to_line};
pub use markdown::{inline_text, render_block};
pub use oneline::{clean, truncate};
pub use wrap::{wrap, wrap_chars};

#[cfg(test)]
pub(crate) mod test_support {
    use super::RLine;
    use crate::styled::theme::Theme;

    /// The rows' text, trailing spaces cut.
    pub fn plain(lines: &[RLine]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.text().trim_end().to_owned())
            .collect()
    }

    pub fn theme() -> Theme {
        Theme::default()
    }

    /// Pieces of Markdown the property tests build answers from: wide characters, emoji (a ZWJ family,
    /// a variation selector), combining marks, words longer than a row, markup of every kind, control
    /// characters, tabs, blank lines, code fences and tables.
    pub const FRAGMENTS: [&str; 40] = [
        "revenue ",
        "margin",
        " ",
        "  ",
        "東京",
        "ｗｉｄｅ ",
        "📈",
        "👨‍👩‍👧 ",
        "❤️",
        "e\u{301}t\u{301}é ",
        "supercalifragilisticexpialidocious",
        "data-center ",
        "€2.1bn, ",
        "**bold** ",
        "*it*",
        "`code` ",
        "[link](https://x.y) ",
        "\n",
        "\n\n",
        "  \n",
        "# ",
        "## ",
        "- ",
        "1. ",
        "> ",
        "```\n",
        "\n```\n",
        "| A | B |\n|---|--:|\n| x 東京 | 10 |\n\n",
        "\t",
        "\u{7}",
        "\u{1b}[31m",
        "---\n",
        "<b>x</b>",
        "~~gone~~ ",
        "- [x] ",
        "[1]",
        "\u{200b}",
        "    indented\n",
        "\r\n",
        "a\u{300}\u{300}\u{300}",
    ];

    /// An answer made of `picks` (indices into [`FRAGMENTS`]).
    pub fn answer_of(picks: &[usize]) -> String {
        picks
            .iter()
            .map(|&i| FRAGMENTS[i % FRAGMENTS.len()])
            .collect()
    }
}
