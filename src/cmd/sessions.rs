//! `research-tui sessions`: the saved sessions, newest first, as a table or one JSON object a line;
//! with `--search TEXT`, only those that match, best first ([`crate::local::search`]).

use std::borrow::Cow;
use std::io::{self, Write};

use crate::local::index::{self, Row};
use crate::local::meta::SessionMeta;
use crate::local::search::Hit;
use crate::local::store::SessionStore;
use crate::render::sanitize::sanitize_line;

/// `research-tui sessions [--search TEXT] [--json]`.
pub fn run_cli(json: bool, search: Option<&str>) -> std::process::ExitCode {
    let store = SessionStore::default();
    // Written in blocks, not a `write` a line: 100,000 rows are 100,000 system calls otherwise.
    let mut out = io::BufWriter::with_capacity(64 << 10, io::stdout().lock());
    match search {
        None => list(&mut out, &store, json),
        Some(query) => search_sessions(&mut out, &store, query, json),
    };
    let _ = out.flush();
    std::process::ExitCode::SUCCESS
}

/// Every session, newest first (from the sessions list, and `meta.json` where it is not fresh:
/// no raw stream is read). Each row is printed into bytes on the threads that read the list.
fn list(out: &mut impl Write, store: &SessionStore, json: bool) {
    let printed = if json {
        index::printed(store.root(), true, |row, out| {
            out.extend_from_slice(row.json.as_deref().unwrap_or_default().as_bytes());
            out.push(b'\n');
        })
    } else {
        index::printed(store.root(), false, |row, out| {
            row_into(out, row);
            if let Some(meta) = &row.noted {
                notes(out, meta);
            }
        })
    };
    if !json {
        if printed.is_empty() {
            let _ = writeln!(out, "No saved sessions in {}", store.root().display());
            return;
        }
        header(out);
    }
    for row in printed.rows() {
        let _ = out.write_all(row);
    }
}

/// The sessions that match `query`, best first: the table with the matched line under each row,
/// or each session's JSON object with `score`, `field` and the matched `text` added. Each is
/// written as it comes (no list of every match's meta is held).
fn search_sessions(out: &mut impl Write, store: &SessionStore, query: &str, json: bool) {
    let mut any = false;
    let searched = index::search(store.root(), query, |meta, hit| {
        if json {
            let _ = writeln!(out, "{}", hit_json(&meta, &hit));
            return;
        }
        if !any {
            header(out);
        }
        any = true;
        row(out, &Row::of(&meta, false));
        notes(out, &meta);
        let _ = writeln!(
            out,
            "{:<28} ↳ {}: {}",
            "",
            hit.field.as_str(),
            snippet(&hit.text, hit.indices.first().copied().unwrap_or(0), 100)
        );
    });
    if !json && !any {
        let _ = writeln!(
            out,
            "No saved session matches \"{}\" ({} searched in {})",
            sanitize_line(query),
            searched,
            store.root().display()
        );
    }
}

/// A session's JSON object with how it matched.
fn hit_json(meta: &SessionMeta, hit: &Hit) -> String {
    let mut value = serde_json::to_value(meta).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        object.insert("score".into(), hit.score.into());
        object.insert("field".into(), hit.field.as_str().into());
        object.insert("text".into(), hit.text.clone().into());
    }
    value.to_string()
}

/// About `width` characters of `text` (sanitised) around character `at`, `…` where cut.
pub fn snippet(text: &str, at: u32, width: usize) -> String {
    let chars: Vec<char> = sanitize_line(text).chars().collect();
    let start = (at as usize).saturating_sub(width / 4).min(chars.len());
    let end = (start + width).min(chars.len());
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(&chars[start..end]);
    if end < chars.len() {
        out.push('…');
    }
    out
}

/// The agent a session talked to (sessions saved before providers were recorded were Bigdata.com's).
fn provider_name(provider: &str) -> &str {
    if provider.is_empty() {
        "bigdata"
    } else {
        provider
    }
}

fn header(out: &mut impl Write) {
    let _ = writeln!(
        out,
        "{:<28} {:<17} {:<10} {:>5}  {:<13} {:<26} QUESTION",
        "ID", "DATE", "PROVIDER", "TURNS", "STATUS", "LAST CHECKPOINT"
    );
}

/// What a session's row alone does not say: the session it branched from, and what of a turn's
/// stream its file left out.
fn notes(out: &mut impl Write, meta: &SessionMeta) {
    if let Some(from) = &meta.branched_from {
        let _ = writeln!(
            out,
            "{:<28} ↳ branched from {} (its lock was held when this turn began)",
            "",
            sanitize_line(from)
        );
    }
    for (i, turn) in meta.turns.iter().enumerate() {
        if let Some(note) = &turn.not_saved {
            let _ = writeln!(out, "{:<28} ↳ turn {}: {}", "", i + 1, sanitize_line(note));
        }
    }
}

/// `text` as [`sanitize_line`] makes it, without decoding the characters of text it leaves as it
/// is (nearly every field of every row).
fn clean(text: &str) -> Cow<'_, str> {
    if untouched(text) {
        Cow::Borrowed(text)
    } else {
        sanitize_line(text)
    }
}

/// Whether [`sanitize_line`] leaves `text` as it is: no control character, tab or newline, and
/// none of the invisible or bidi characters it replaces, found by their UTF-8 bytes (a lead
/// byte is never a continuation byte, so each character is matched where it starts). Checked
/// against `sanitize_line` for every character.
fn untouched(text: &str) -> bool {
    let bytes = text.as_bytes();
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    for (i, &b) in bytes.iter().enumerate() {
        let unsafe_here = match b {
            // C0 controls, tab, newline; DEL.
            0x00..=0x1F | 0x7F => true,
            0x20..=0xC1 => false,
            // U+0080..U+009F, the C1 controls.
            0xC2 => at(i + 1) <= 0x9F,
            // U+061C, the Arabic letter mark.
            0xD8 => at(i + 1) == 0x9C,
            // U+200B, U+200D..U+200F, U+2028..U+202E; U+2060..U+2064, U+2066..U+2069.
            0xE2 => match at(i + 1) {
                0x80 => matches!(at(i + 2), 0x8B | 0x8D..=0x8F | 0xA8..=0xAE),
                0x81 => matches!(at(i + 2), 0xA0..=0xA4 | 0xA6..=0xA9),
                _ => false,
            },
            // U+FEFF, the byte-order mark.
            0xEF => at(i + 1) == 0xBB && at(i + 2) == 0xBF,
            // U+E0000..U+E007F, the tag characters.
            0xF3 => at(i + 1) == 0xA0 && at(i + 2) <= 0x81,
            _ => false,
        };
        if unsafe_here {
            return false;
        }
    }
    true
}

fn row(out: &mut impl Write, row: &Row) {
    let mut line = Vec::with_capacity(200);
    row_into(&mut line, row);
    let _ = out.write_all(&line);
}

/// `row`'s line, as `format!("{:<28} {:<17} {:<10} {:>5}  {:<13} {:<26} {}\n", ..)` writes it
/// (widths in characters), written straight into `out`: a listing prints 100,000 of them.
fn row_into(out: &mut Vec<u8>, row: &Row) {
    pad(out, &clean(row.id), 28);
    let date = row.updated_at.get(..16).unwrap_or(&row.updated_at);
    if date.len() <= 16 && printable_ascii(date) {
        let mut buf = [0u8; 16];
        for (to, b) in buf.iter_mut().zip(date.bytes()) {
            *to = if b == b'T' { b' ' } else { b };
        }
        // Printable ASCII with `T` made a space is still printable ASCII.
        pad(
            out,
            std::str::from_utf8(&buf[..date.len()]).unwrap_or_default(),
            17,
        );
    } else {
        pad(out, &clean(&date.replace('T', " ")), 17);
    }
    pad(out, &clean(provider_name(&row.provider)), 10);
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut turns = row.turns;
    loop {
        at -= 1;
        digits[at] = b'0' + (turns % 10) as u8;
        turns /= 10;
        if turns == 0 {
            break;
        }
    }
    out.extend(std::iter::repeat_n(
        b' ',
        5usize.saturating_sub(digits.len() - at),
    ));
    out.extend_from_slice(&digits[at..]);
    out.extend_from_slice(b"  ");
    pad(out, &clean(&row.status), 13);
    pad(out, &clean(row.checkpoint.as_deref().unwrap_or("-")), 26);
    let question = clean(&row.question);
    let cut = if question.len() <= 60 {
        question.len()
    } else {
        question
            .char_indices()
            .nth(60)
            .map_or(question.len(), |(i, _)| i)
    };
    out.extend_from_slice(question[..cut].as_bytes());
    // One agent of a comparison: the id its sibling sessions share, after the question.
    if let Some(id) = &row.comparison {
        out.extend_from_slice(b"  [comparison ");
        out.extend_from_slice(clean(id).as_bytes());
        out.push(b']');
    }
    out.push(b'\n');
}

/// `text` left-aligned in `width` characters, and the space after the column.
fn pad(out: &mut Vec<u8>, text: &str, width: usize) {
    out.extend_from_slice(text.as_bytes());
    let chars = if text.len() >= width && text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    };
    out.extend(std::iter::repeat_n(b' ', width.saturating_sub(chars) + 1));
}

fn printable_ascii(text: &str) -> bool {
    text.bytes().all(|b| (b' '..=b'~').contains(&b))
}

#[cfg(test)]
mod tests;
