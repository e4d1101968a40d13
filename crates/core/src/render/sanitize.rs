//! Terminal hygiene for untrusted text (answers, titles, URLs, tool names).
//!
//! Every C0 control except newline and tab (so also CR and ESC), DEL, every C1 control and every bidi
//! control is replaced by U+FFFD one for one, so code-point offsets computed on the original text
//! still line up with the sanitised text.

use std::borrow::Cow;

pub const REPLACEMENT: char = '\u{FFFD}';

/// Characters never allowed to reach a terminal or a document as themselves.
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{B}'..='\u{1F}' | '\u{7F}'..='\u{9F}'
        | '\u{61C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Replace unsafe characters; newline and tab are kept.
///
/// ```
/// use research_tui_core::render::sanitize::sanitize;
/// assert_eq!(sanitize("a\x1b[2Jb\u{202E}c\n"), "a\u{FFFD}[2Jb\u{FFFD}c\n");
/// ```
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| if is_unsafe(c) { REPLACEMENT } else { c })
            .collect(),
    )
}

/// For one-line places (labels, tool names, status bar): newlines and tabs become spaces too.
pub fn sanitize_line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c) || c == '\n' || c == '\t') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| match c {
                '\n' | '\t' => ' ',
                c if is_unsafe(c) => REPLACEMENT,
                c => c,
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_bidi_overrides_become_replacement_characters() {
        let hostile = "ok\x1b]8;;http://evil\x07\u{202E}gnp.exe\r\u{85}\u{7F}";
        let clean = sanitize(hostile);
        assert!(
            !clean
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t')
        );
        assert_eq!(clean.chars().count(), hostile.chars().count());
        assert_eq!(clean.matches(REPLACEMENT).count(), 6);
    }

    #[test]
    fn newlines_and_tabs_survive_and_clean_text_is_borrowed() {
        assert!(matches!(sanitize("a\n\tb 😀"), Cow::Borrowed(_)));
        assert_eq!(sanitize_line("a\nb\tc"), "a b c");
    }

    #[test]
    fn every_listed_bidi_control_is_replaced() {
        for c in [
            '\u{61C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202D}', '\u{2066}', '\u{2069}',
        ] {
            assert_eq!(sanitize(&c.to_string()), "\u{FFFD}");
        }
    }
}
