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

/// Every session, newest first (from the sessions index, and `meta.json` where it is not fresh:
/// no raw stream is read).
fn list(out: &mut impl Write, store: &SessionStore, json: bool) {
    let sessions = index::rows(store.root(), json);
    if json {
        for row in &sessions {
            let _ = writeln!(out, "{}", row.json.as_deref().unwrap_or_default());
        }
        return;
    }
    if sessions.is_empty() {
        let _ = writeln!(out, "No saved sessions in {}", store.root().display());
        return;
    }
    header(out);
    for listed in &sessions {
        row(out, listed);
        if let Some(meta) = &listed.noted {
            notes(out, meta);
        }
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

/// `text` as [`sanitize_line`] makes it, without looking at each character of printable ASCII
/// (nearly every field of every row).
fn clean(text: &str) -> Cow<'_, str> {
    if text.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        Cow::Borrowed(text)
    } else {
        sanitize_line(text)
    }
}

fn row(out: &mut impl Write, meta: &Row) {
    let date = meta
        .updated_at
        .get(..16)
        .unwrap_or(&meta.updated_at)
        .replace('T', " ");
    let question: String = clean(&meta.question).chars().take(60).collect();
    // One agent of a comparison: the id its sibling sessions share, after the question.
    let question = match &meta.comparison {
        Some(id) => format!("{question}  [comparison {}]", clean(id)),
        None => question,
    };
    let _ = writeln!(
        out,
        "{:<28} {:<17} {:<10} {:>5}  {:<13} {:<26} {}",
        clean(&meta.id),
        clean(&date),
        clean(provider_name(&meta.provider)),
        meta.turns,
        clean(&meta.status),
        clean(meta.checkpoint.as_deref().unwrap_or("-")),
        question
    );
}
