//! A small per-session summary, `summary.json` beside `meta.json`, so the sessions picker and
//! `sessions --search` do not re-read every raw stream.
//!
//! A summary holds the meta it was built from (questions, provider, times, each turn's status and
//! checkpoint) and, per turn, what search needs from the raw stream: the plan's title, the answer
//! text (its first [`ANSWER_LIMIT`] bytes) and the titles of the sources it cites — with any API key
//! the user has configured masked, should an agent have echoed one. It is a cache:
//! the raw files stay the source of truth. A summary is used only while it is fresh — its version
//! is [`VERSION`], its meta equals `meta.json` as it is on disk, and every turn file has the size
//! it had when summarised — and is rebuilt from the raw files otherwise (missing, corrupt, written
//! by another version, or a turn appended or grown behind its back).
//!
//! Writers refresh it under the session lock each time they change the meta (a turn begins or
//! ends, ids or options arrive), through a unique temp file and a rename, so a reader sees a whole
//! summary or none. A reader that had to rebuild one saves it back when the session is settled (no
//! turn streaming) and its lock is free at that moment; it never waits for a writer.

use std::io::{self, Read};
use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::local::config::live_target;
use crate::local::meta::{SessionMeta, newest_first, read_meta, settle};
use crate::local::session_files::{
    SessionLock, is_plain_name, open_regular, replace_file_unsynced,
};
use crate::local::store::MAX_TURN_BYTES;
use crate::local::turn_status::TurnStatus;

/// The largest `summary.json` read (it holds the start of each turn's answer).
const MAX_SUMMARY_BYTES: u64 = 16 << 20;
use crate::model::citations::{Attribution, Source};
use crate::model::event::AgentEvent;
use crate::model::session::Session;
use crate::wire::input::read_session_counting;
use crate::wire::provider::Provider;
use crate::wire::redact::Secret;

/// The summary's file name.
pub const SUMMARY: &str = "summary.json";

/// The summary layout's version: a summary of another version is rebuilt.
pub const VERSION: u32 = 1;

/// How much of each turn's answer a summary keeps (bytes, cut at a character boundary): enough to
/// search any answer a research agent writes in full, while 10,000 summaries stay small to read.
pub const ANSWER_LIMIT: usize = 64 * 1024;

/// What listing and searching need of one saved session.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SessionSummary {
    pub version: u32,
    /// `meta.json` as it was when the summary was built (dead writers' turns not yet marked cut).
    pub meta: SessionMeta,
    pub turns: Vec<TurnSummary>,
}

/// What search needs of one turn's raw stream.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TurnSummary {
    pub stream_file: String,
    /// The size of the stream file when it was summarised.
    pub bytes: u64,
    /// The plan's title, when the agent sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The answer's first [`ANSWER_LIMIT`] bytes.
    pub answer: String,
    /// The answer was longer than [`ANSWER_LIMIT`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub answer_cut: bool,
    /// The cited sources' titles (the headline, else the label), in number order.
    pub sources: Vec<String>,
}

impl SessionSummary {
    /// A summary of `meta` alone, without anything from the raw streams.
    pub fn of_meta(meta: SessionMeta) -> SessionSummary {
        SessionSummary {
            version: VERSION,
            meta,
            turns: Vec::new(),
        }
    }

    /// The session's title: the first plan title an agent sent, else its first question.
    pub fn title(&self) -> &str {
        self.turns
            .iter()
            .find_map(|t| t.title.as_deref())
            .unwrap_or_else(|| self.meta.first_question())
    }

    /// Whether the summary still describes the session in `dir` whose meta on disk is `meta`.
    fn is_fresh(&self, dir: &Path, meta: &SessionMeta) -> bool {
        self.version == VERSION
            && self.meta == *meta
            && self.turns.len() == meta.turns.len()
            && self.turns.iter().zip(&meta.turns).all(|(summary, turn)| {
                summary.stream_file == turn.stream_file
                    && file_size(dir, &turn.stream_file) == Some(summary.bytes)
            })
    }
}

/// The size of turn file `name` in `dir`, when it is one.
fn file_size(dir: &Path, name: &str) -> Option<u64> {
    if !is_plain_name(name) {
        return None;
    }
    std::fs::metadata(dir.join(name)).ok().map(|m| m.len())
}

/// The summary of `dir` on disk, whatever its freshness.
fn read_summary(dir: &Path) -> Option<SessionSummary> {
    let mut bytes = Vec::new();
    open_regular(&dir.join(SUMMARY), MAX_SUMMARY_BYTES)
        .ok()?
        .read_to_end(&mut bytes)
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Summarise turn file `stream_file` of `dir`, read as a stream: the answer is not kept beyond its
/// first [`ANSWER_LIMIT`] bytes, so a turn of any size costs little memory.
fn summarise_turn(dir: &Path, stream_file: &str, provider: Provider) -> TurnSummary {
    let file = Some(stream_file)
        .filter(|name| is_plain_name(name))
        .and_then(|name| open_regular(&dir.join(name), MAX_TURN_BYTES).ok());
    let bytes = file
        .as_ref()
        .and_then(|f| f.metadata().ok())
        .map_or(0, |m| m.len());
    let mut digest = TurnDigest::default();
    let session = file
        .and_then(|file| read_session_counting(file, provider, |e| digest.observe(e)).ok())
        .map(|(session, _)| session)
        .unwrap_or_default();
    digest.summary(&session, stream_file, bytes)
}

/// A turn's summary built as its events are decoded, in the one pass that decodes them (the
/// recording proxy's, or a read of the turn file): the start of the answer as it streams (at most
/// [`ANSWER_LIMIT`] bytes, plus one chunk) and how long the whole is; the title and sources come
/// from the session at the end.
#[derive(Default)]
pub struct TurnDigest {
    text: String,
    total: usize,
}

impl TurnDigest {
    pub fn observe(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::AnswerDelta { text, .. } => self.observe_answer(text),
            AgentEvent::AnswerReplace { text } => {
                self.total = text.len();
                self.text = cut_at_boundary(text, ANSWER_LIMIT + 1).to_owned();
            }
            _ => {}
        }
    }

    /// [`TurnDigest::observe`] of an answer chunk of `text`, held borrowed.
    pub fn observe_answer(&mut self, text: &str) {
        self.total += text.len();
        if self.text.len() <= ANSWER_LIMIT {
            self.text.push_str(text);
        }
    }

    /// Whether the next answer chunk's text is kept (the answer's start is not complete yet):
    /// else [`TurnDigest::observe_counted`] takes its length alone.
    pub fn wants_text(&self) -> bool {
        self.text.len() <= ANSWER_LIMIT
    }

    /// [`TurnDigest::observe_answer`] of a chunk of `len` bytes, once [`TurnDigest::wants_text`]
    /// says no.
    pub fn observe_counted(&mut self, len: usize) {
        self.total += len;
    }

    /// The summary of turn file `stream_file`, `bytes` long, whose events built `session` (which
    /// need not have kept the answer's text: [`AnswerBuffer::stop_keeping_text`]).
    ///
    /// [`AnswerBuffer::stop_keeping_text`]: crate::model::session::AnswerBuffer::stop_keeping_text
    pub fn summary(&self, session: &Session, stream_file: &str, bytes: u64) -> TurnSummary {
        let sources = Attribution::numbered_docs(session, true)
            .into_iter()
            .map(|doc| without_keys(&Source::title_of(doc)))
            .collect();
        let answer = cut_at_boundary(&self.text, ANSWER_LIMIT);
        TurnSummary {
            stream_file: stream_file.to_owned(),
            bytes,
            title: session
                .plan
                .as_ref()
                .and_then(|plan| plan.title.as_deref())
                .map(without_keys),
            answer: without_keys(answer),
            answer_cut: answer.len() < self.total,
            sources,
        }
    }
}

/// `text` with every API key this user has configured masked: the raw stream keeps what an agent
/// echoed, but a summary is a file people and scripts read.
pub(crate) fn without_keys(text: &str) -> String {
    static KEYS: OnceLock<Secret> = OnceLock::new();
    KEYS.get_or_init(configured_keys).redact(text).into_owned()
}

/// Every API key this user has configured (each provider's variable, the config file), for the
/// redactor: what leaves for a file or a collector is masked of all of them.
pub fn configured_keys() -> Secret {
    <Provider as clap::ValueEnum>::value_variants()
        .iter()
        .filter_map(|provider| live_target(*provider, None).ok()?.api_key)
        .fold(Secret::default(), |secret, key| secret.and(key.expose()))
}

/// At most `limit` bytes of `text`, ending at a character boundary.
fn cut_at_boundary(text: &str, limit: usize) -> &str {
    &text[..text.floor_char_boundary(limit)]
}

/// How many bytes of turn files one summary reads, at most: far more than any real session
/// streams, and few enough that a meta listing thousands of big turns returns in seconds.
const MAX_SUMMARISED_BYTES: u64 = 256 << 20;

/// What a summary built from the raw files may still read and keep: bytes of turn files, and
/// text, so the summary stays under [`MAX_SUMMARY_BYTES`] beside a meta of the largest size read.
/// Each turn file is read once however many turns name it (a meta of a million turns naming one
/// file is hostile, not a conversation).
struct Budget {
    bytes: u64,
    text: usize,
    read: std::collections::HashSet<String>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            bytes: MAX_SUMMARISED_BYTES,
            text: (MAX_SUMMARY_BYTES - crate::local::meta::MAX_META_BYTES) as usize,
            read: Default::default(),
        }
    }
}

impl Budget {
    /// Whether turn file `name`, of `size` bytes, is read: not read yet, within what is left.
    fn allows(&mut self, name: &str, size: Option<u64>) -> bool {
        let size = size.unwrap_or(0);
        if size > self.bytes || self.text == 0 || self.read.contains(name) {
            return false;
        }
        self.bytes -= size;
        self.read.insert(name.to_owned());
        true
    }

    fn spend(&mut self, summary: &TurnSummary) {
        let text = summary.answer.len()
            + summary.title.as_ref().map_or(0, String::len)
            + summary.sources.iter().map(String::len).sum::<usize>();
        self.text = self.text.saturating_sub(text);
    }
}

/// A summary of the session in `dir` whose meta on disk is `meta`, built from its raw files;
/// turns `previous` summarised with the same file and size are taken from it.
fn build(dir: &Path, meta: &SessionMeta, previous: Option<SessionSummary>) -> SessionSummary {
    let provider =
        <Provider as clap::ValueEnum>::from_str(&meta.provider, true).unwrap_or_default();
    let mut kept = previous
        .filter(|summary| summary.version == VERSION)
        .map(|summary| summary.turns)
        .unwrap_or_default();
    let mut budget = Budget::default();
    let turns = meta
        .turns
        .iter()
        .map(|turn| {
            let size = file_size(dir, &turn.stream_file);
            match kept
                .iter()
                .position(|t| t.stream_file == turn.stream_file && Some(t.bytes) == size)
            {
                Some(i) => kept.swap_remove(i),
                None if budget.allows(&turn.stream_file, size) => {
                    let summary = summarise_turn(dir, &turn.stream_file, provider);
                    budget.spend(&summary);
                    summary
                }
                // Searched by its question alone (its file is in the meta, the rest is skipped).
                None => TurnSummary {
                    stream_file: turn.stream_file.clone(),
                    bytes: size.unwrap_or(0),
                    ..TurnSummary::default()
                },
            }
        })
        .collect();
    SessionSummary {
        version: VERSION,
        meta: meta.clone(),
        turns,
    }
}

/// Bring the summary of `dir` up to date with `meta`, just written by a writer holding the session
/// lock, and record it in the sessions index. Only turns that changed are read again.
/// `fresh`: a turn its writer summarised as it decoded it (taken when its file still has that
/// size), so its file is not decoded again.
pub(crate) fn refresh(
    dir: &Path,
    meta: &SessionMeta,
    fresh: Option<TurnSummary>,
) -> io::Result<()> {
    let mut previous = read_summary(dir);
    if let Some(fresh) = fresh {
        let previous = previous.get_or_insert_with(|| SessionSummary::of_meta(meta.clone()));
        previous
            .turns
            .retain(|t| t.stream_file != fresh.stream_file);
        previous.turns.push(fresh);
    }
    let summary = build(dir, meta, previous);
    crate::local::index::record(dir, &summary);
    write(dir, &summary)
}

fn write(dir: &Path, summary: &SessionSummary) -> io::Result<()> {
    let bytes = serde_json::to_vec(summary).map_err(io::Error::other)?;
    // A cache: one a crash cut short reads as unreadable and is rebuilt from the raw files.
    replace_file_unsynced(dir, SUMMARY, &bytes)
}

/// The summary of the session in `dir`: the saved one when fresh, else rebuilt from the raw files
/// (and saved back when nothing streams and nobody holds the session lock). Its meta is settled:
/// turns whose writer died read as cut.
pub fn load(dir: &Path) -> io::Result<SessionSummary> {
    let meta = read_meta(dir)?;
    let saved = read_summary(dir);
    let mut summary = match saved {
        Some(summary) if summary.is_fresh(dir, &meta) => summary,
        saved => {
            let rebuilt = build(dir, &meta, saved);
            save_back(dir, &rebuilt);
            rebuilt
        }
    };
    summary.meta = settle(dir, summary.meta);
    Ok(summary)
}

/// Save a summary a reader rebuilt, if the session is quiet: no turn streaming, the lock free, and
/// the meta unchanged since the summary was built. Failing that, the next reader rebuilds it too.
fn save_back(dir: &Path, summary: &SessionSummary) {
    if summary
        .meta
        .turns
        .iter()
        .any(|t| t.status == TurnStatus::Streaming)
    {
        return;
    }
    let Ok(Some(_lock)) = SessionLock::try_acquire(dir) else {
        return;
    };
    if read_meta(dir).is_ok_and(|meta| meta == summary.meta) {
        let _ = write(dir, summary);
    }
}

/// Every readable session's summary, newest first (the order of [`SessionStore::list`]).
///
/// [`SessionStore::list`]: crate::local::store::SessionStore::list
pub fn list(root: &Path) -> Vec<SessionSummary> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut summaries: Vec<SessionSummary> = entries
        .filter_map(|entry| load(&entry.ok()?.path()).ok())
        .collect();
    summaries.sort_by(|a, b| newest_first(&a.meta, &b.meta));
    summaries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::turn::TurnRecorder;
    use crate::local::store::{SavedTurn, SessionStore};
    use crate::model::session::Session;
    use crate::model::stream_end::StreamEnd;
    use std::io::Write;

    fn answer_event(text: &str) -> String {
        let event =
            serde_json::json!({"chat_id": "c-1", "message": {"type": "ANSWER", "content": text}});
        format!("data: {event}\n\n")
    }

    /// A session in `store` with one complete turn whose raw stream answers `text`.
    fn saved(store: &SessionStore, question: &str, text: &str) -> std::path::PathBuf {
        let mut saved = store.create("research-agent", "bigdata", "x").unwrap();
        let writer = saved.begin_turn(question, None).unwrap();
        let (mut turn, sink) = SavedTurn::new(saved.clone(), writer);
        sink.lock()
            .unwrap()
            .write_all(answer_event(text).as_bytes())
            .unwrap();
        turn.end(&Session::new(), &StreamEnd::Closed).unwrap();
        saved.dir().to_owned()
    }

    fn on_disk(dir: &Path) -> Option<SessionSummary> {
        read_summary(dir)
    }

    #[test]
    fn a_turn_that_ends_leaves_a_fresh_summary_with_its_answer() {
        let tmp = tempfile::tempdir().unwrap();
        let store = SessionStore::new(tmp.path());
        let dir = saved(&store, "What did NVIDIA report?", "Revenue rose 66%.");
        let summary = on_disk(&dir).expect("written when the turn ended");
        assert_eq!(summary.meta, read_meta(&dir).unwrap());
        assert_eq!(summary.turns[0].answer, "Revenue rose 66%.");
        assert!(summary.is_fresh(&dir, &read_meta(&dir).unwrap()));
        assert_eq!(summary.title(), "What did NVIDIA report?");
        assert_eq!(list(tmp.path()), vec![summary]);
    }

    #[test]
    fn a_missing_corrupt_old_or_stale_summary_is_rebuilt_from_the_raw_files() {
        let tmp = tempfile::tempdir().unwrap();
        let store = SessionStore::new(tmp.path());
        let dir = saved(&store, "Q", "First answer.");
        let fresh = on_disk(&dir).unwrap();

        // Missing: rebuilt, and saved back for the next reader.
        std::fs::remove_file(dir.join(SUMMARY)).unwrap();
        assert_eq!(load(&dir).unwrap(), fresh);
        assert_eq!(on_disk(&dir), Some(fresh.clone()));

        // Corrupt, or from another version: rebuilt alike.
        std::fs::write(dir.join(SUMMARY), b"{\"version\": 1, \"me").unwrap();
        assert_eq!(load(&dir).unwrap(), fresh);
        let mut old = fresh.clone();
        old.version = VERSION + 1;
        old.turns[0].answer = "what another version wrote".into();
        write(&dir, &old).unwrap();
        assert_eq!(load(&dir).unwrap(), fresh);

        // A turn file grown behind its back (the summary's meta still equals meta.json).
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join("turn-001.sse"))
            .unwrap();
        file.write_all(answer_event(" Then more.").as_bytes())
            .unwrap();
        assert_eq!(
            load(&dir).unwrap().turns[0].answer,
            "First answer. Then more."
        );

        // A turn appended behind its back: a new turn file and meta.json edited by hand.
        std::fs::write(dir.join("turn-002.sse"), answer_event("Second answer.")).unwrap();
        let mut meta = read_meta(&dir).unwrap();
        let mut second = meta.turns[0].clone();
        second.question = "Follow-up".into();
        second.stream_file = "turn-002.sse".into();
        meta.turns.push(second);
        std::fs::write(dir.join("meta.json"), serde_json::to_vec(&meta).unwrap()).unwrap();
        let rebuilt = load(&dir).unwrap();
        assert_eq!(rebuilt.meta.turns.len(), 2);
        assert_eq!(rebuilt.turns[1].answer, "Second answer.");
        assert_eq!(on_disk(&dir), Some(rebuilt));
    }

    #[test]
    fn a_streaming_turn_is_summarised_as_far_as_it_got_and_not_saved_back() {
        let tmp = tempfile::tempdir().unwrap();
        let store = SessionStore::new(tmp.path());
        let mut saved = store.create("research-agent", "bigdata", "x").unwrap();
        let writer = saved.begin_turn("Q", None).unwrap();
        let (turn, sink) = SavedTurn::new(saved.clone(), writer);
        sink.lock()
            .unwrap()
            .write_all(answer_event("So far").as_bytes())
            .unwrap();
        let live = load(saved.dir()).unwrap();
        assert_eq!(live.meta.status(), "streaming");
        assert_eq!(live.turns[0].answer, "So far");
        assert_ne!(on_disk(saved.dir()).unwrap().turns[0].answer, "So far");
        // Its writer dies: the turn reads as cut.
        drop(turn);
        assert_eq!(load(saved.dir()).unwrap().meta.status(), "cut");
    }

    #[test]
    fn a_long_answer_keeps_its_first_64_kib_cut_at_a_character() {
        let tmp = tempfile::tempdir().unwrap();
        let store = SessionStore::new(tmp.path());
        // The limit falls inside an `é`: the cut comes before it.
        let text = format!("a{}", "é".repeat(ANSWER_LIMIT / 2));
        let dir = saved(&store, "Q", &text);
        let turn = &load(&dir).unwrap().turns[0];
        assert!(turn.answer_cut);
        assert_eq!(turn.answer.len(), ANSWER_LIMIT - 1);
        assert!(text.starts_with(&turn.answer));
    }
}
