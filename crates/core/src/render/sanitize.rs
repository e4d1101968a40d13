//! Terminal hygiene for untrusted text (answers, titles, URLs, tool names).
//!
//! Every C0 control except newline and tab (so also CR and ESC), DEL, every C1 control, every bidi
//! control, and the invisible characters that change how text measures or reads without showing —
//! zero-width space and joiner, word joiner and the invisible operators, the line and paragraph
//! separators (U+2028, U+2029), the byte-order mark (U+FEFF) and the tag characters (U+E0000 to
//! U+E007F) — is replaced by U+FFFD one for one, so code-point offsets computed on the original text
//! still line up with the sanitised text, and the width a terminal gives a line is the width it was
//! laid out with. (An emoji joined with ZWJ shows as its parts; JSON output keeps the exact text.)

use std::borrow::Cow;

pub const REPLACEMENT: char = '\u{FFFD}';

/// Characters never allowed to reach a terminal or a document as themselves.
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        // Controls.
        '\u{0}'..='\u{8}' | '\u{B}'..='\u{1F}' | '\u{7F}'..='\u{9F}'
        // Bidi controls.
        | '\u{61C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        // Invisible: zero-width space and joiner, line and paragraph separators, word joiner and
        // invisible operators, byte-order mark, tag characters.
        | '\u{200B}' | '\u{200D}' | '\u{2028}' | '\u{2029}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}'
        | '\u{E0000}'..='\u{E007F}')
}

/// Replace unsafe characters; newline and tab are kept.
///
/// ```
/// use research_tui_core::render::sanitize::sanitize;
/// assert_eq!(sanitize("a\x1b[2Jb\u{202E}c\n"), "a\u{FFFD}[2Jb\u{FFFD}c\n");
/// ```
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !any_unsafe(text, false) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| if is_unsafe(c) { REPLACEMENT } else { c })
            .collect(),
    )
}

/// `text.chars().any(is_unsafe)` (with `one_line`, newline and tab too), reading bytes: every
/// answer `render` prints and every field `sessions` lists passes through here, and only the
/// characters whose UTF-8 form starts with one of five lead bytes can be unsafe.
fn any_unsafe(text: &str, one_line: bool) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\n' | b'\t' if !one_line => i += 1,
            0..0x20 | 0x7F => return true,
            // C1 controls (C2), U+061C (D8), the U+20xx marks (E2), U+FEFF (EF), tags (F3).
            0xC2 | 0xD8 | 0xE2 | 0xEF | 0xF3 => {
                let Some(c) = text[i..].chars().next() else {
                    return false;
                };
                if is_unsafe(c) {
                    return true;
                }
                i += c.len_utf8();
            }
            _ => i += 1,
        }
    }
    false
}

/// For one-line places (labels, tool names, status bar): newlines and tabs become spaces too.
pub fn sanitize_line(text: &str) -> Cow<'_, str> {
    if !any_unsafe(text, true) {
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
    fn the_byte_scan_finds_exactly_the_unsafe_characters() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let text = format!("a€{c}b");
            assert_eq!(any_unsafe(&text, false), is_unsafe(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn a_line_is_left_as_it_is_exactly_when_it_holds_no_unsafe_character_newline_or_tab() {
        let mut text = String::new();
        for c in (0..=char::MAX as u32).filter_map(char::from_u32) {
            for context in ["", "a", "—"] {
                text.clear();
                text.push_str(context);
                text.push(c);
                text.push_str(context);
                let kept = !(is_unsafe(c) || c == '\n' || c == '\t');
                assert_eq!(
                    matches!(sanitize_line(&text), Cow::Borrowed(_)),
                    kept,
                    "U+{:04X}",
                    c as u32
                );
            }
        }
    }

    #[test]
    fn newlines_and_tabs_survive_and_clean_text_is_borrowed() {
        assert!(matches!(sanitize("a\n\tb 😀"), Cow::Borrowed(_)));
        assert_eq!(sanitize_line("a\nb\tc"), "a b c");
    }

    #[test]
    fn invisible_characters_are_replaced_one_for_one() {
        for c in [
            '\u{200B}',
            '\u{200D}',
            '\u{2028}',
            '\u{2029}',
            '\u{2060}',
            '\u{FEFF}',
            '\u{E0001}',
            '\u{E0067}',
            '\u{E007F}',
        ] {
            assert_eq!(
                sanitize(&format!("a{c}b")),
                "a\u{FFFD}b",
                "{:04X}",
                c as u32
            );
            assert_eq!(sanitize_line(&c.to_string()), "\u{FFFD}");
        }
        // A family emoji shows as its parts; letters joined by nothing keep their width.
        assert_eq!(
            sanitize("\u{1F468}\u{200D}\u{1F469}"),
            "\u{1F468}\u{FFFD}\u{1F469}"
        );
        // Zero-width non-joiner is ordinary Persian text; it stays.
        assert_eq!(sanitize("\u{645}\u{200C}\u{6CC}"), "\u{645}\u{200C}\u{6CC}");
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
