//! The sessions index, `sessions.index` beside the sessions folder: one file holding what `sessions`, `sessions --search`
//! and the picker need of every session (ids, times, provider, status, questions, plan and source
//! titles, the head of each answer — [`record`] gives the layout), so they read one file instead
//! of every session's `meta.json` and `summary.json`.
//!
//! It is a cache, never the truth. Each line records a session's state with the stamp of its
//! `meta.json` (inode, size, modification time) and its turn files' sizes; a reader takes a line
//! only while the session on disk still has that stamp (one `stat` of the meta, one per turn
//! file), the last such line of a session winning, and reads every session it has no fresh line
//! for from the raw files, as before, appending a line for it. So a missing, corrupt, truncated,
//! foreign or stale index only costs time, and no writer ever waits on it:
//!
//! - Writers append a line each time they change a session's meta, under the session lock, in one
//!   `write` to a file opened for appending (the kernel keeps concurrent appends whole; a torn line
//!   from a crash is skipped and its session read raw).
//! - A session with a turn streaming is always read raw (its file grows); its line says so.
//! - When more than half the lines are superseded, or the file is over [`MAX_INDEX_BYTES`], a
//!   reader rewrites it with the lines it took (a temp file renamed over it). A line appended by a
//!   writer meanwhile is lost with the old file: its session is read raw once and recorded again.
//! - The file is read as the store reads every file: a regular file only, never through a link,
//!   bounded in size, lines over [`MAX_LINE`] skipped.

mod at;
mod lines;
mod list;
mod record;
mod write;

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

pub use list::{Printed, Row, metas, printed};
#[cfg(test)]
pub(crate) use record::line;
pub use record::{ANSWER_HEAD, MetaStamp, Record, with_answer_heads};

use crate::local::meta::{SessionMeta, newest_first};
use crate::local::search::{Hit, MOST_THREADS, Search, in_shares};
use crate::local::session_files::open_regular;
use crate::local::summary::{self, SessionSummary};

/// The index of the sessions folder `root`: beside it, `sessions.index` for `sessions` (not in
/// it: the folder holds sessions only).
pub fn path(root: &Path) -> PathBuf {
    let name = root
        .file_name()
        .map_or("sessions".into(), |n| n.to_string_lossy());
    root.with_file_name(format!("{name}.index"))
}

/// The longest line read or written (a session with a meta this large is read raw).
pub(crate) const MAX_LINE: usize = 1 << 20;

/// The largest index read: a larger one is rewritten from what is on disk.
pub const MAX_INDEX_BYTES: u64 = 1 << 30;

/// How much of the index is read (and matched, between threads) at a time.
const BLOCK: usize = 4 << 20;

/// How much of the index a thread of a pass takes at a time (small enough that the threads end
/// together, large enough that each block's last line, read past its end, costs little).
const SHARE: usize = 1 << 20;

/// Record the session in `dir` as `summary` (just built from `meta.json` as written by a writer
/// holding the session lock) in the index of its sessions folder.
pub(crate) fn record(dir: &Path, summary: &SessionSummary) {
    let (Some(root), Ok(stat)) = (
        dir.parent(),
        std::fs::symlink_metadata(dir.join("meta.json")),
    ) else {
        return;
    };
    let stamp = MetaStamp::of(&stat);
    if let Some(line) = record::line(summary, stamp) {
        let _ = write::append(&path(root), &[line]);
    }
    list::record(root, &summary.meta, stamp);
}

/// Every session folder of `root` (a real folder, not hidden) whose `meta.json` is a regular
/// file, with that file's stamp (the `stat`s shared between threads).
fn scan(root: &Path) -> HashMap<String, MetaStamp> {
    let (Ok(entries), Some(folder)) = (std::fs::read_dir(root), at::Folder::open(root)) else {
        return HashMap::new();
    };
    let ids: Vec<String> = entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            if !entry.file_type().ok()?.is_dir() {
                return None;
            }
            let id = entry.file_name().into_string().ok()?;
            (!id.starts_with('.')).then_some(id)
        })
        .collect();
    let stamp = |ids: &[String]| -> Vec<Option<MetaStamp>> {
        ids.iter().map(|id| folder.meta_stamp(id)).collect()
    };
    let share = ids.len().div_ceil(threads()).max(1024);
    let stamps = in_shares(&ids, share, stamp);
    // The ids moved in, not copied: 100,000 of them are as many allocations.
    ids.into_iter()
        .zip(stamps)
        .filter_map(|(id, stamp)| Some((id, stamp?)))
        .collect()
}

/// How many threads read the index (and `stat` what it names).
fn threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MOST_THREADS)
}

/// What one pass over the index found: per session, its last fresh line (offset, length) and what
/// was made of it; and how many lines there were.
struct Pass<T> {
    taken: HashMap<String, (u64, usize, T)>,
    lines: usize,
    /// The index could not be read (missing, not a regular file, too large).
    unreadable: bool,
    too_large: bool,
}

/// Read the index of `root`, making `per` of each fresh line (between threads, each with a
/// context from `context`).
fn pass<C, T: Send>(
    root: &Path,
    disk: &HashMap<String, MetaStamp>,
    context: impl Fn() -> C + Sync,
    per: impl Fn(&mut C, &Record) -> T + Sync,
) -> Pass<T> {
    let folder = at::Folder::open(root);
    pass_over(&path(root), disk.len(), context, |context, line| {
        // The same check as `std::str::from_utf8`, with vector instructions: a line is mostly
        // answer text, and every byte of every line is checked.
        let record = Record::parse(simdutf8::basic::from_utf8(line).ok()?)?;
        let stamp = *disk.get(record.id)?;
        let folder = folder.as_ref()?;
        record
            .is_fresh_by(stamp, |name| folder.size(record.id, name))
            .then(|| (record.id.to_owned(), per(context, &record)))
    })
}

/// Read the index file `index`, keeping what `take` makes of each line it takes (between
/// threads, each with a context from `context`): the last line taken of a session wins
/// (`capacity`: about how many sessions there are).
fn pass_over<C, T: Send>(
    index: &Path,
    capacity: usize,
    context: impl Fn() -> C + Sync,
    take: impl Fn(&mut C, &[u8]) -> Option<(String, T)> + Sync,
) -> Pass<T> {
    let mut pass = Pass {
        taken: HashMap::with_capacity(capacity),
        lines: 0,
        unreadable: false,
        too_large: false,
    };
    let file = match open_regular(index, MAX_INDEX_BYTES) {
        Ok(file) => file,
        Err(e) => {
            pass.unreadable = true;
            pass.too_large = e.kind() == io::ErrorKind::InvalidData
                && std::fs::symlink_metadata(index).is_ok_and(|m| m.is_file());
            return pass;
        }
    };
    // The lines there when the pass began (a line appended since is the next reader's).
    let size = file.metadata().map_or(0, |m| m.len());
    let cut = lines::Cut {
        block: SHARE,
        max_line: MAX_LINE,
        threads: threads(),
    };
    let blocks = lines::in_blocks(&file, size, cut, context, |context, lines| {
        let made: Vec<_> = (lines.iter())
            .filter_map(|&(offset, line)| {
                let (id, made) = take(context, line)?;
                Some((id, (offset, line.len(), made)))
            })
            .collect();
        (lines.len(), made)
    });
    for (lines, made) in blocks {
        pass.lines += lines;
        pass.taken.extend(made);
    }
    pass
}

/// Call `each` with the complete lines of `file`, a block at a time, each with its offset; lines
/// longer than [`MAX_LINE`] are skipped whole.
fn for_each_block(file: &mut File, mut each: impl FnMut(&[(u64, &[u8])])) -> io::Result<()> {
    // Zeroed once, then read into again and again (zeroing each block cost as much as a copy).
    let mut buf: Vec<u8> = vec![0; BLOCK + MAX_LINE];
    let mut filled = 0;
    let mut base = 0u64;
    let mut skipping = false;
    loop {
        if buf.len() < filled + BLOCK {
            buf.resize(filled + BLOCK, 0);
        }
        let n = file.read(&mut buf[filled..filled + BLOCK])?;
        filled += n;
        let eof = n == 0;
        let end = if eof {
            filled
        } else {
            memchr::memrchr(b'\n', &buf[..filled]).map_or(0, |i| i + 1)
        };
        if end == 0 && filled > MAX_LINE {
            // One line longer than any record: drop what there is of it.
            base += filled as u64;
            filled = 0;
            skipping = true;
            continue;
        }
        let mut lines = Vec::new();
        let mut at = 0;
        while at < end {
            let stop = memchr::memchr(b'\n', &buf[at..end]).map_or(end, |i| at + i);
            if skipping {
                skipping = false;
            } else if stop > at && stop - at <= MAX_LINE {
                lines.push((base + at as u64, &buf[at..stop]));
            }
            at = stop + 1;
        }
        each(&lines);
        buf.copy_within(end..filled, 0);
        filled -= end;
        base += end as u64;
        if eof {
            return Ok(());
        }
    }
}

/// The lines of sessions read raw, on their way into the index: appended a few MiB at a time, or,
/// when the index is due a rewrite, streamed into the rewrite's temp file as they come, so a
/// reader holds at most a few MiB of them however many sessions are read raw (e.g. every one,
/// after the sessions folder was copied and each line went stale).
struct NewLines {
    /// The index file they go to.
    index: PathBuf,
    lines: Vec<String>,
    bytes: usize,
    rewrite: Option<write::Rewrite>,
}

/// How much of the new lines is held before they are appended.
const HELD: usize = 4 << 20;

impl NewLines {
    fn after<T>(index: &Path, pass: &Pass<T>) -> NewLines {
        NewLines::after_lines(index, pass.lines, pass.taken.len(), pass.too_large, || {
            pass.taken.values().map(|(o, l, _)| (*o, *l)).collect()
        })
    }

    /// After a pass over `lines` lines of `index` that took `taken` of them (at `kept`: offset
    /// and length); `too_large`: the index could not be read for its size.
    fn after_lines(
        index: &Path,
        lines: usize,
        taken: usize,
        too_large: bool,
        kept: impl FnOnce() -> Vec<(u64, usize)>,
    ) -> NewLines {
        let superseded = lines.saturating_sub(taken);
        let rewrite = (too_large || superseded > taken.max(1024))
            .then(|| {
                let mut kept = kept();
                kept.sort_unstable();
                write::Rewrite::begin(index, &kept).ok()
            })
            .flatten();
        NewLines {
            index: index.to_owned(),
            lines: Vec::new(),
            bytes: 0,
            rewrite,
        }
    }

    fn push(&mut self, line: Option<String>) {
        let Some(line) = line else { return };
        if let Some(rewrite) = &mut self.rewrite {
            rewrite.push(&line);
            return;
        }
        self.bytes += line.len();
        self.lines.push(line);
        if self.bytes > HELD {
            let _ = write::append(&self.index, &self.lines);
            self.lines.clear();
            self.bytes = 0;
        }
    }

    /// Append what is left, or put the rewritten index in place.
    fn finish(self) {
        if let Some(rewrite) = self.rewrite {
            let _ = rewrite.finish(&self.index);
        } else if !self.lines.is_empty() {
            let _ = write::append(&self.index, &self.lines);
        }
    }
}

/// A session read from its raw files, with the index line it earns when it was settled and
/// unchanged while it was read.
fn read_raw(root: &Path, id: &str, before: MetaStamp) -> Option<(SessionSummary, Option<String>)> {
    let dir = root.join(id);
    let summary = with_answer_heads(summary::load(&dir).ok()?);
    let after = std::fs::symlink_metadata(dir.join("meta.json")).ok();
    let line = after
        .filter(|after| MetaStamp::of(after) == before)
        .and_then(|_| record::line(&summary, before))
        .and_then(|line| {
            // Only a line that reads back as fresh is worth writing.
            let record = Record::parse(line.trim_end_matches('\n'))?;
            record.is_fresh(&dir, before).then_some(line)
        });
    Some((summary, line))
}

/// How many bytes of matches printed where they were found are held until they are sorted; past
/// it, a match keeps its hit and is printed when its turn comes (its line read again), so a query
/// matching most of a large index (`sessions --search e --json`) holds no more than this of rows.
const HELD_ROWS: usize = 32 << 20;

/// A session that matched: its score, time and id (the order), and its output.
struct Found {
    score: u32,
    updated_at: String,
    id: String,
    output: Output,
}

/// A match's output: printed, or to be printed from its meta when its turn comes (read from its
/// index line at offset and length, else from its `meta.json`).
enum Output {
    Printed(Vec<u8>),
    Later(Hit, Option<(u64, usize)>),
}

/// What a matching line of the index made: its session printed, or only its hit (past
/// [`HELD_ROWS`], or when the line's meta did not read).
enum Made {
    Printed(u32, Vec<u8>),
    Hit(Hit),
}

/// Give the saved sessions of `root` matching `query` to `each`, best first (equal scores newest
/// first), each as `print` writes it with its meta and how it matched (on the threads that read
/// the index, as each session is found, up to [`HELD_ROWS`] of them); how many sessions were
/// searched.
pub fn search(
    root: &Path,
    query: &str,
    print: impl Fn(&SessionMeta, &Hit, &mut Vec<u8>) + Sync,
    each: impl FnMut(&[u8]),
) -> usize {
    search_holding(root, query, HELD_ROWS, print, each)
}

/// [`search`], holding at most about `held_rows` bytes of rows printed where they were found.
fn search_holding(
    root: &Path,
    query: &str,
    held_rows: usize,
    print: impl Fn(&SessionMeta, &Hit, &mut Vec<u8>) + Sync,
    mut each: impl FnMut(&[u8]),
) -> usize {
    let disk = scan(root);
    let held = std::sync::atomic::AtomicUsize::new(0);
    let pass = pass(
        root,
        &disk,
        || {
            let search = Search::new(query);
            (search.raw_letters(), search)
        },
        |(letters, search), record| {
            use std::sync::atomic::Ordering::Relaxed;
            // Items failing the letters test as written are not read at all; every other field
            // is taken exactly as `Record::fields` gives it, so the best field is the same.
            let hit = search.best_of(record.fields_where(|item| letters.may_match(item)))?;
            let meta = (held.load(Relaxed) < held_rows)
                .then(|| record.meta())
                .flatten();
            let made = match meta {
                Some(meta) => {
                    let mut out = Vec::new();
                    print(&meta, &hit, &mut out);
                    held.fetch_add(out.len(), Relaxed);
                    Made::Printed(hit.score, out)
                }
                None => Made::Hit(hit),
            };
            Some((made, record.updated_at.clone().into_owned()))
        },
    );
    let mut new_lines = NewLines::after(&path(root), &pass);
    let mut found: Vec<Found> = Vec::new();
    let mut searched = pass.taken.len();
    let mut taken = pass.taken;
    let mut search = Search::new(query);
    for (id, stamp) in &disk {
        let (score, updated_at, output) = match taken.remove(id) {
            Some((_, _, None)) => continue,
            Some((_, _, Some((Made::Printed(score, out), updated_at)))) => {
                (score, updated_at, Output::Printed(out))
            }
            Some((offset, len, Some((Made::Hit(hit), updated_at)))) => (
                hit.score,
                updated_at,
                Output::Later(hit, Some((offset, len))),
            ),
            None => {
                let Some((summary, line)) = read_raw(root, id, *stamp) else {
                    continue;
                };
                searched += 1;
                new_lines.push(line);
                let Some(hit) = search.best(&summary) else {
                    continue;
                };
                let mut out = Vec::new();
                print(&summary.meta, &hit, &mut out);
                (hit.score, summary.meta.updated_at, Output::Printed(out))
            }
        };
        found.push(Found {
            score,
            updated_at,
            id: id.clone(),
            output,
        });
    }
    new_lines.finish();
    found.sort_by(|a, b| {
        (b.score.cmp(&a.score))
            .then(b.updated_at.cmp(&a.updated_at))
            .then(b.id.cmp(&a.id))
    });
    let file = open_regular(&path(root), MAX_INDEX_BYTES).ok();
    for found in found {
        match found.output {
            Output::Printed(out) => each(&out),
            Output::Later(hit, line) => {
                if let Some(meta) = meta_of(root, file.as_ref(), &found.id, line) {
                    let mut out = Vec::new();
                    print(&meta, &hit, &mut out);
                    each(&out);
                }
            }
        }
    }
    searched
}

/// Session `id`'s meta from its index line at `line` (offset, length), when that line still is
/// this session's (another process may have rewritten the index since), else from its file.
fn meta_of(
    root: &Path,
    file: Option<&File>,
    id: &str,
    line: Option<(u64, usize)>,
) -> Option<SessionMeta> {
    use std::os::unix::fs::FileExt;
    let from_line = || {
        let (offset, len) = line?;
        let mut bytes = vec![0; len];
        file?.read_exact_at(&mut bytes, offset).ok()?;
        let record = Record::parse(simdutf8::basic::from_utf8(&bytes).ok()?)?;
        (record.id == id).then(|| record.meta())?
    };
    from_line().or_else(|| summary::load(&root.join(id)).ok().map(|s| s.meta))
}

/// Every readable session's summary as the index keeps it (answers cut to their heads), newest
/// first; sessions without a fresh line are read raw and recorded.
pub fn summaries(root: &Path) -> Vec<SessionSummary> {
    let disk = scan(root);
    let mut pass = pass(root, &disk, || (), |_, record| record.summary());
    let mut new_lines = NewLines::after(&path(root), &pass);
    let mut summaries: Vec<SessionSummary> = Vec::with_capacity(disk.len());
    for (id, stamp) in &disk {
        if let Some((_, _, Some(summary))) = pass.taken.get_mut(id).map(|t| (t.0, t.1, t.2.take()))
        {
            summaries.push(summary);
        } else if let Some((summary, line)) = read_raw(root, id, *stamp) {
            new_lines.push(line);
            summaries.push(summary);
        }
    }
    new_lines.finish();
    summaries.sort_by(|a, b| newest_first(&a.meta, &b.meta));
    summaries
}

#[cfg(test)]
mod search_tests {
    use std::io::Write;

    use super::*;
    use crate::agent::turn::TurnRecorder;
    use crate::local::store::{SavedTurn, SessionStore};
    use crate::model::session::Session;
    use crate::model::stream_end::StreamEnd;

    /// A session whose one turn streamed Bigdata.com answer `text`.
    fn saved(store: &SessionStore, question: &str, text: &str) {
        let mut saved = store
            .create("research-agent", "bigdata", "http://127.0.0.1:9")
            .unwrap();
        let writer = saved.begin_turn(question, None).unwrap();
        let (mut turn, sink) = SavedTurn::new(saved.clone(), writer);
        let event =
            serde_json::json!({"chat_id": "c", "message": {"type": "ANSWER", "content": text}});
        write!(sink.lock().unwrap(), "data: {event}\n\n").unwrap();
        turn.end(&Session::new(), &StreamEnd::Closed).unwrap();
    }

    fn printed(root: &Path, query: &str, held_rows: usize) -> (Vec<String>, usize) {
        let mut rows = Vec::new();
        let print = |meta: &SessionMeta, hit: &Hit, out: &mut Vec<u8>| {
            let _ = writeln!(
                out,
                "{} {} {} {:?}",
                meta.id, hit.score, hit.text, hit.indices
            );
        };
        let searched = search_holding(root, query, held_rows, print, |row| {
            rows.push(String::from_utf8_lossy(row).into_owned())
        });
        (rows, searched)
    }

    /// A line for `dir`'s session saying its answer is `answer`, with the meta's stamp turned by
    /// `turn` (the identity: the stamp on disk).
    fn forged(dir: &Path, answer: &str, turn: impl Fn(MetaStamp) -> MetaStamp) -> String {
        let mut summary = summary::load(dir).unwrap();
        summary.turns[0].answer = answer.into();
        let stamp = MetaStamp::of(&std::fs::symlink_metadata(dir.join("meta.json")).unwrap());
        record::line(&summary, turn(stamp)).unwrap()
    }

    /// A later line whose stamp is not the meta's never wins over an earlier fresh one, and the
    /// last fresh line of a session still wins over earlier ones.
    #[test]
    fn the_last_line_fresh_by_its_meta_wins() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sessions");
        let store = SessionStore::new(&root);
        saved(&store, "NVIDIA question", "Alpha margins held.");
        let session = std::fs::read_dir(&root)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let found = |query| printed(&root, query, usize::MAX).0.len();
        assert_eq!(found("alpha"), 1, "the index written, then read");
        let other = |stamp: MetaStamp| MetaStamp {
            ino: stamp.ino + 1,
            ..stamp
        };
        let stale = forged(&session, "Omega revenue.", other);
        write::append(&path(&root), &[stale]).unwrap();
        assert_eq!(
            found("omega"),
            0,
            "a later line of another meta is not taken"
        );
        assert_eq!(found("alpha"), 1, "the earlier fresh line is");
        let fresh = forged(&session, "Omega revenue.", |stamp| stamp);
        write::append(&path(&root), &[fresh]).unwrap();
        assert_eq!(found("omega"), 1, "the last fresh line wins");
        assert_eq!(found("alpha"), 0);
    }

    /// Past the bound on rows held, matches are printed when their turn comes, from their line
    /// read again: the same rows in the same order as when every row is held, whether none, some
    /// or all of them were held.
    #[test]
    fn rows_past_the_bound_are_printed_in_their_turn_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sessions");
        let store = SessionStore::new(&root);
        for n in 0..12 {
            let margins = if n % 3 == 0 {
                "NVIDIA margins held"
            } else {
                "revenue grew"
            };
            saved(
                &store,
                &format!("NVIDIA question {n}"),
                &format!("Answer {n}: {margins}."),
            );
        }
        // The first search reads the sessions raw and writes the index; the rest read it.
        let raw = printed(&root, "nvidia margins", usize::MAX);
        for query in ["nvidia margins", "answer", "question 1", "zzz"] {
            let all = printed(&root, query, usize::MAX);
            assert_eq!(all.1, 12, "every session searched");
            for held in [0, 1, 200] {
                assert_eq!(
                    printed(&root, query, held),
                    all,
                    "{query}, {held} bytes held"
                );
            }
        }
        assert_eq!(printed(&root, "nvidia margins", usize::MAX), raw);
        assert!(!raw.0.is_empty());
    }
}
