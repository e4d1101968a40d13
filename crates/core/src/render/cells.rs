//! Cells of the text tables and charts: padded or cut to a width, wrapped at spaces.

use unicode_width::UnicodeWidthStr;

/// `text` cut or padded to `width` columns, right-aligned when `right`.
pub(crate) fn pad(text: &str, width: usize, right: bool) -> String {
    let text = if text.width() > width {
        let mut cut = String::new();
        for c in text.chars() {
            if cut.width() + c.to_string().width() + 1 > width {
                break;
            }
            cut.push(c);
        }
        cut.push('…');
        cut
    } else {
        text.to_owned()
    };
    let fill = " ".repeat(width.saturating_sub(text.width()));
    if right {
        format!("{fill}{text}")
    } else {
        format!("{text}{fill}")
    }
}

/// `text` in lines of at most `width` columns, broken at spaces (a longer word stays whole).
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("never empty");
        if !line.is_empty() && line.width() + 1 + word.width() > width {
            lines.push(word.to_owned());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}
