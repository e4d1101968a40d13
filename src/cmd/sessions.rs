//! `research-tui sessions`: the saved sessions, newest first, as a table or one JSON object a line;
//! with `--search TEXT`, only those that match, best first ([`crate::local::search`]).

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

/// `research-tui sessions ID…`: the rows of the sessions named (whole ids or unique prefixes), in
/// the order given, as the listing prints them; an id that names none is said, exit 1.
pub fn run_named(json: bool, ids: &[String]) -> std::process::ExitCode {
    let store = SessionStore::default();
    let mut metas = Vec::new();
    for typed in ids {
        let loaded = store.session_id(typed).and_then(|id| {
            store
                .load(&id)
                .map_err(|e| format!("cannot read session {id}: {e}"))
        });
        match loaded {
            Ok(saved) => metas.push(saved.meta),
            Err(message) => {
                eprintln!("research-tui: {message}");
                return std::process::ExitCode::FAILURE;
            }
        }
    }
    let mut out = Vec::new();
    if !json {
        header(&mut out);
    }
    for meta in &metas {
        let row = Row::of(meta, json);
        if json {
            out.extend_from_slice(row.json.as_deref().unwrap_or_default().as_bytes());
            out.push(b'\n');
        } else {
            row_into(&mut out, &row);
            notes(&mut out, meta);
        }
    }
    let _ = io::stdout().lock().write_all(&out);
    std::process::ExitCode::SUCCESS
}

/// `research-tui sessions --delete ID…`: each session the ids name deleted, a line each; exit 1 when
/// one could not be (the others are still deleted).
pub fn run_delete(ids: &[String]) -> std::process::ExitCode {
    let store = SessionStore::default();
    let mut failed = false;
    for typed in ids {
        match store
            .session_id(typed)
            .and_then(|id| store.delete(&id).map(|()| id))
        {
            Ok(id) => {
                let _ = writeln!(io::stdout(), "deleted session {}", sanitize_line(&id));
            }
            Err(message) => {
                eprintln!("research-tui: {message}");
                failed = true;
            }
        }
    }
    if failed {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
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
/// printed into bytes where it is found, on the threads that read the index (up to a bound; past
/// it, when its turn comes).
fn search_sessions(out: &mut impl Write, store: &SessionStore, query: &str, json: bool) {
    let mut any = false;
    let print = |meta: &SessionMeta, hit: &Hit, out: &mut Vec<u8>| {
        if json {
            let _ = writeln!(out, "{}", hit_json(meta, hit));
            return;
        }
        row_into(out, &Row::of(meta, false));
        notes(out, meta);
        let _ = writeln!(
            out,
            "{:<28} ↳ {}: {}",
            "",
            hit.field.as_str(),
            snippet(&hit.text, hit.indices.first().copied().unwrap_or(0), 100)
        );
    };
    let searched = index::search(store.root(), query, print, |row| {
        if !json && !any {
            header(out);
        }
        any = true;
        let _ = out.write_all(row);
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
    // A quarter of the width before the match, but never less of the text than fits: a question
    // shorter than the width is shown whole.
    let start = (at as usize)
        .saturating_sub(width / 4)
        .min(chars.len().saturating_sub(width));
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

/// `row`'s line, as `format!("{:<28} {:<17} {:<10} {:>5}  {:<13} {:<26} {}\n", ..)` writes it
/// (widths in characters), written straight into `out`: a listing prints 100,000 of them.
fn row_into(out: &mut Vec<u8>, row: &Row) {
    pad(out, &sanitize_line(row.id), 28);
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
        pad(out, &sanitize_line(&date.replace('T', " ")), 17);
    }
    pad(out, &sanitize_line(provider_name(&row.provider)), 10);
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
    pad(out, &sanitize_line(&row.status), 13);
    pad(
        out,
        &sanitize_line(row.checkpoint.as_deref().unwrap_or("-")),
        26,
    );
    // At most 60 characters: a longer question shows 59 and `…`, so a cut one never reads whole.
    let question = sanitize_line(&row.question);
    let cut = if question.len() <= 60 {
        None
    } else {
        question.char_indices().nth(59).map(|(i, _)| i)
    };
    match cut {
        Some(cut) if question[cut..].chars().nth(1).is_some() => {
            out.extend_from_slice(question[..cut].as_bytes());
            out.extend_from_slice("…".as_bytes());
        }
        _ => out.extend_from_slice(question.as_bytes()),
    }
    // One agent of a comparison: the id its sibling sessions share, after the question.
    if let Some(id) = &row.comparison {
        out.extend_from_slice(b"  [comparison ");
        out.extend_from_slice(sanitize_line(id).as_bytes());
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
