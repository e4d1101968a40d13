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
}
