//! `sessions.list`, beside the sessions index: what `sessions` and the picker need of every
//! session — the listed columns and `meta.json` as compact JSON, ~0.6 KB a session — so listing
//! does not read the index's searchable text (~4 KB a session, nearly all answer heads):
//!
//! `rl1.V ID INO.SIZE.MTIME UPDATED PROVIDER TURNS STATUS CHECKPOINT NOTED QUESTION META LENGTH`
//!
//! (text fields escaped as in the index; CHECKPOINT `-` or `=` and the id; NOTED `+` when the
//! meta says what a row alone does not — a comparison, the session it branched from, a turn's
//! stream left out — so only those metas are parsed for a plain listing; LENGTH the byte length
//! of the line before it).
//!
//! Like the index it is a cache, never the truth, kept the same way (appended in whole lines by
//! writers and by readers that read a session raw, rewritten when mostly superseded, never
//! followed through a link). A line is taken only while the session's `meta.json` still has the
//! stamp it records: nothing listed comes from the turn files, so no other file is `stat`ed. A
//! session with a turn streaming gets no line (its meta is read and settled each time).

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::record::{escape, unescape};
use super::{MetaStamp, NewLines, Pass, pass_over, scan};
use crate::local::meta::{SessionMeta, read_meta, settle};
use crate::local::summary::VERSION;
use crate::local::turn_status::TurnStatus;

/// The first field of every line, before `.` and the summary's [`VERSION`].
const TAG: &str = "rl1";

/// The list file of the sessions folder `root`: `sessions.list` beside it.
pub fn path(root: &Path) -> PathBuf {
    let index = super::path(root);
    index.with_extension("list")
}

/// One session as `sessions` lists it, borrowed from the meta or the list line it was made of
/// where it can be (a listing makes 100,000 of them, each printed at once).
#[derive(Debug, Clone, PartialEq)]
pub struct Row<'a> {
    pub id: &'a str,
    pub updated_at: Cow<'a, str>,
    pub provider: Cow<'a, str>,
    pub turns: usize,
    pub status: Cow<'a, str>,
    pub checkpoint: Option<Cow<'a, str>>,
    pub question: Cow<'a, str>,
    /// `meta.json` as compact JSON, when asked for.
    pub json: Option<Cow<'a, str>>,
    /// The comparison this session is one agent of.
    pub comparison: Option<Cow<'a, str>>,
    /// The meta, when it has what a row alone does not say (the session it branched from, a
    /// turn's stream its file left out).
    pub noted: Option<Cow<'a, SessionMeta>>,
}

/// Whether `meta` has what its row alone does not say.
fn has_notes(meta: &SessionMeta) -> bool {
    meta.branched_from.is_some() || meta.turns.iter().any(|t| t.not_saved.is_some())
}

impl<'a> Row<'a> {
    pub fn of(meta: &'a SessionMeta, json: bool) -> Row<'a> {
        Row {
            id: &meta.id,
            updated_at: Cow::Borrowed(&meta.updated_at),
            provider: Cow::Borrowed(&meta.provider),
            turns: meta.turns.len(),
            status: Cow::Borrowed(meta.status()),
            checkpoint: meta.last_checkpoint_id().map(Cow::Borrowed),
            question: Cow::Borrowed(meta.first_question()),
            json: json.then(|| Cow::Owned(serde_json::to_string(meta).unwrap_or_default())),
            comparison: meta.comparison.as_deref().map(Cow::Borrowed),
            noted: has_notes(meta).then_some(Cow::Borrowed(meta)),
        }
    }

    fn of_listed(listed: &Listed<'a>, json: bool) -> Option<Row<'a>> {
        let meta = if listed.noted {
            Some(listed.meta()?)
        } else {
            None
        };
        Some(Row {
            id: listed.id,
            updated_at: listed.updated_at.clone(),
            provider: listed.provider.clone(),
            turns: listed.turns,
            status: listed.status.clone(),
            checkpoint: listed.checkpoint.clone(),
            question: listed.question.clone(),
            json: match json {
                true => Some(Cow::Borrowed(std::str::from_utf8(listed.meta_json).ok()?)),
                false => None,
            },
            comparison: meta
                .as_ref()
                .and_then(|meta| meta.comparison.clone())
                .map(Cow::Owned),
            noted: meta.filter(has_notes).map(Cow::Owned),
        })
    }
}

/// A line of the list, read: the columns borrowed from the line except where unescaping was
/// needed; the meta left as bytes until it is asked for.
#[derive(Debug)]
struct Listed<'a> {
    id: &'a str,
    stamp: MetaStamp,
    updated_at: Cow<'a, str>,
    provider: Cow<'a, str>,
    turns: usize,
    status: Cow<'a, str>,
    checkpoint: Option<Cow<'a, str>>,
    noted: bool,
    question: Cow<'a, str>,
    meta_json: &'a [u8],
}

impl<'a> Listed<'a> {
    fn parse(line: &'a [u8]) -> Option<Listed<'a>> {
        // A line cut short (a torn write, a truncated file) does not end in its own length.
        let cut = memchr::memrchr(b'\t', line)?;
        let length: usize = std::str::from_utf8(&line[cut + 1..]).ok()?.parse().ok()?;
        if length != cut {
            return None;
        }
        // The ten columns before the meta, checked as text at once (a tab never splits a
        // character), then cut at their tabs.
        let body = &line[..cut];
        let mut tabs = [0usize; 10];
        let mut found = 0;
        for (i, &b) in body.iter().enumerate() {
            if b == b'\t' {
                tabs[found] = i;
                found += 1;
                if found == tabs.len() {
                    break;
                }
            }
        }
        if found < tabs.len() {
            return None;
        }
        let text = std::str::from_utf8(&body[..tabs[9]]).ok()?;
        let meta_json = &body[tabs[9] + 1..];
        let head: [&str; 10] =
            std::array::from_fn(|k| &text[if k == 0 { 0 } else { tabs[k - 1] + 1 }..tabs[k]]);
        let version = head[0].strip_prefix(TAG)?.strip_prefix('.')?;
        if version.parse() != Ok(VERSION) {
            return None;
        }
        let checkpoint = match head[7].split_at_checked(1)? {
            ("-", "") => None,
            ("=", id) => Some(unescape(id)),
            _ => return None,
        };
        let noted = match head[8] {
            "+" => true,
            "-" => false,
            _ => return None,
        };
        Some(Listed {
            id: head[1],
            stamp: MetaStamp::parse(head[2])?,
            updated_at: unescape(head[3]),
            provider: unescape(head[4]),
            turns: head[5].parse().ok()?,
            status: unescape(head[6]),
            checkpoint,
            noted,
            question: unescape(head[9]),
            meta_json,
        })
    }

    fn meta(&self) -> Option<SessionMeta> {
        serde_json::from_slice(self.meta_json).ok()
    }
}

/// The list line of `meta`, whose `meta.json` had `stamp`; `None` for a session with a turn
/// streaming, an id a line cannot hold, or a meta over [`super::MAX_LINE`].
fn line(meta: &SessionMeta, stamp: MetaStamp) -> Option<String> {
    if meta.id.contains(['\t', '\n', '\r', '\\'])
        || meta.turns.iter().any(|t| t.status == TurnStatus::Streaming)
    {
        return None;
    }
    let json = serde_json::to_string(meta).ok()?;
    let checkpoint = meta
        .last_checkpoint_id()
        .map_or("-".to_owned(), |id| format!("={}", escape(id)));
    let noted = if has_notes(meta) || meta.comparison.is_some() {
        "+"
    } else {
        "-"
    };
    let mut out = format!(
        "{TAG}.{VERSION}\t{}\t{}.{}.{}\t{}\t{}\t{}\t{}\t{checkpoint}\t{noted}\t{}\t{json}",
        meta.id,
        stamp.ino,
        stamp.size,
        stamp.mtime_ns,
        escape(&meta.updated_at),
        escape(&meta.provider),
        meta.turns.len(),
        escape(meta.status()),
        escape(meta.first_question()),
    );
    let length = out.len();
    out.push_str(&format!("\t{length}\n"));
    (out.len() <= super::MAX_LINE).then_some(out)
}

/// Record `meta` (as just written by a writer holding the session lock, with `stamp`) in the list
/// of the sessions folder `root`.
pub(super) fn record(root: &Path, meta: &SessionMeta, stamp: MetaStamp) {
    if let Some(line) = line(meta, stamp) {
        let _ = super::write::append(&path(root), &[line]);
    }
}

/// Read the list of `root`, making `per` of each line fresh by `disk`.
fn pass<T: Send>(
    root: &Path,
    disk: &HashMap<String, MetaStamp>,
    per: impl Fn(&Listed) -> Option<T> + Sync,
) -> Pass<T> {
    pass_over(
        &path(root),
        disk.len(),
        || (),
        |_, line| {
            let listed = Listed::parse(line)?;
            if *disk.get(listed.id)? != listed.stamp {
                return None;
            }
            Some((listed.id.to_owned(), per(&listed)?))
        },
    )
}

/// Session `id` of `root` read from its `meta.json` (settled), with the list line it earns when no
/// turn streamed and the meta kept stamp `before` while it was read.
fn read_raw(root: &Path, id: &str, before: MetaStamp) -> Option<(SessionMeta, Option<String>)> {
    let dir = root.join(id);
    let meta = read_meta(&dir).ok()?;
    let line = std::fs::symlink_metadata(dir.join("meta.json"))
        .ok()
        .filter(|after| MetaStamp::of(after) == before)
        .and_then(|_| line(&meta, before));
    Some((settle(&dir, meta), line))
}

/// Every session of `root`, each made into a `T` by `listed` from its fresh line or by `raw` from
/// its `meta.json` (those recorded on the way).
fn every<T: Send>(
    root: &Path,
    listed: impl Fn(&Listed) -> Option<T> + Sync,
    raw: impl Fn(SessionMeta) -> T,
) -> Vec<T> {
    let disk = scan(root);
    let pass = pass(root, &disk, listed);
    let mut new_lines = NewLines::after(&path(root), &pass);
    let mut every = Vec::with_capacity(disk.len());
    for (id, stamp) in &disk {
        if pass.taken.contains_key(id) {
            continue;
        }
        if let Some((meta, line)) = read_raw(root, id, *stamp) {
            new_lines.push(line);
            every.push(raw(meta));
        }
    }
    new_lines.finish();
    // Every session taken is on disk (a line is taken only with the stamp `disk` has for it).
    every.extend(pass.taken.into_values().map(|(_, _, made)| made));
    every
}

/// How many bytes of an item's time its sort key holds.
const KEY: usize = 24;

/// `items` newest first by `time` and `id` (as [`crate::local::meta::newest_first`] orders metas),
/// sorted by index so each item, a meta of a few hundred bytes, moves once rather than at every
/// step of the sort.
fn newest<T>(items: Vec<T>, time: impl Fn(&T) -> &str, id: impl Fn(&T) -> &str) -> Vec<T> {
    let order = newest_order(
        items.len(),
        |i| time(&items[i]).as_bytes(),
        |i| id(&items[i]).as_bytes(),
    );
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// The places `0..n` newest first by `time` and `id` of each, sorted with a key holding the
/// time's first bytes, so most comparisons read no item.
fn newest_order<'a>(
    n: usize,
    time: impl Fn(usize) -> &'a [u8],
    id: impl Fn(usize) -> &'a [u8],
) -> Vec<usize> {
    let mut order: Vec<([u8; KEY], usize)> = (0..n)
        .map(|i| {
            let mut key = [0u8; KEY];
            let time = time(i);
            let n = time.len().min(KEY);
            key[..n].copy_from_slice(&time[..n]);
            (key, i)
        })
        .collect();
    // No two items have the same id, so an unstable sort orders as a stable one would.
    order.sort_unstable_by(|(key_a, a), (key_b, b)| {
        key_b
            .cmp(key_a)
            .then_with(|| time(*b).cmp(time(*a)))
            .then_with(|| id(*b).cmp(id(*a)))
    });
    order.into_iter().map(|(_, i)| i).collect()
}

/// Every readable session's meta, newest first (the order and content of reading every
/// `meta.json`).
pub fn metas(root: &Path) -> Vec<SessionMeta> {
    let metas = every(root, |listed| listed.meta(), |meta| meta);
    newest(metas, |meta| &meta.updated_at, |meta| &meta.id)
}

mod printed;
pub use printed::{Printed, printed};

#[cfg(test)]
mod tests;
