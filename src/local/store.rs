//! Sessions on disk: nothing received is ever lost.
//!
//! Each session lives in `$XDG_DATA_HOME/research-tui/sessions/<id>/`: one raw stream file per turn
//! (`turn-001.sse`, …), written as bytes arrive, and `meta.json` (questions, times, endpoint, chat
//! id, execution id, each turn's checkpoint id and status). Opening a session replays its raw files
//! through the normal pipeline, so what you see later is exactly what arrived.
//!
//! Any number of processes may write one session at once: every change to `meta.json` is made under
//! the session's lock to the file as it is on disk, and every turn gets a file of its own
//! ([`crate::local::session_files`]). A failure to save is returned, never swallowed. A turn still
//! `streaming` whose writer died (its turn lock is free) is read as cut, and saved so by the next
//! writer of the session.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::agent::client::RawSink;
use crate::agent::stream::StreamEnd;
use crate::agent::turn::TurnRecorder;
use crate::local::session_files::{
    SessionLock, TurnFile, TurnLock, create_turn_file, is_plain_name, replace_file, writer_alive,
};
use crate::local::timestamp::{compact_stamp, rfc3339};
pub use crate::local::turn_status::TurnStatus;
use crate::model::session::Session;
use crate::wire::input::read_session;
use crate::wire::provider::Provider;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SessionMeta {
    pub id: String,
    pub created_at: String,
    pub updated_at: String,
    /// `research-agent` or `workflow` (or a provider's endpoint name).
    pub endpoint: String,
    #[serde(default)]
    pub provider: String,
    pub base_url: String,
    pub chat_id: Option<String>,
    pub execution_id: Option<String>,
    /// xAI model, Zeta Alpha tenant and agent: what follow-ups must send again.
    #[serde(default, flatten)]
    pub options: crate::agent::live::ProviderOptions,
    pub turns: Vec<TurnMeta>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TurnMeta {
    pub question: String,
    pub started_at: String,
    pub ended_at: Option<String>,
    /// The checkpoint this turn continued from (a resume or a branch).
    pub from_checkpoint_id: Option<String>,
    pub checkpoint_id: Option<String>,
    pub status: TurnStatus,
    pub stream_file: String,
    /// Why the turn did not end as its status word alone says, when the store knows more (its
    /// writer died while it streamed, or its stream could not be saved in full).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl TurnMeta {
    /// The process that wrote this turn died while it streamed: what arrived is all there is.
    fn mark_writer_died(&mut self) {
        self.status = TurnStatus::Cut;
        self.reason = Some(
            "interrupted: the process saving it stopped while it streamed (killed, crashed or out of disk)"
                .into(),
        );
    }
}

impl SessionMeta {
    pub fn last_checkpoint_id(&self) -> Option<&str> {
        self.turns
            .iter()
            .rev()
            .find_map(|t| t.checkpoint_id.as_deref())
    }

    pub fn status(&self) -> &str {
        self.turns.last().map_or("empty", |t| t.status.as_str())
    }

    pub fn first_question(&self) -> &str {
        self.turns.first().map_or("", |t| t.question.as_str())
    }
}

/// The name of a session's meta file.
const META: &str = "meta.json";

/// The sessions directory.
#[derive(Debug, Clone)]
pub struct SessionStore {
    root: PathBuf,
}

impl Default for SessionStore {
    fn default() -> Self {
        Self::new(crate::local::config::data_dir().join("sessions"))
    }
}

impl SessionStore {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Start a new session directory.
    pub fn create(
        &self,
        endpoint: &str,
        provider: &str,
        base_url: &str,
    ) -> io::Result<SavedSession> {
        std::fs::create_dir_all(&self.root)?;
        let now = SystemTime::now();
        let stamp = compact_stamp(now);
        // Unique even when two sessions start within the same second.
        let mut n = 0u32;
        let dir = loop {
            let id = if n == 0 {
                format!("{stamp}-{:04x}", std::process::id() & 0xffff)
            } else {
                format!("{stamp}-{:04x}-{n:03}", std::process::id() & 0xffff)
            };
            let dir = self.root.join(&id);
            match std::fs::create_dir(&dir) {
                Ok(()) => break dir,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => n += 1,
                Err(e) => return Err(e),
            }
        };
        let id = dir.file_name().unwrap().to_string_lossy().into_owned();
        let now = rfc3339(now);
        let saved = SavedSession {
            dir,
            meta: SessionMeta {
                id,
                created_at: now.clone(),
                updated_at: now,
                endpoint: endpoint.into(),
                provider: provider.into(),
                base_url: base_url.into(),
                chat_id: None,
                execution_id: None,
                options: Default::default(),
                turns: Vec::new(),
            },
        };
        // Nobody else knows the new directory yet: no lock needed.
        write_meta(&saved.dir, &saved.meta)?;
        Ok(saved)
    }

    /// Every readable session, newest first.
    pub fn list(&self) -> Vec<SessionMeta> {
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return Vec::new();
        };
        let mut sessions: Vec<SessionMeta> = entries
            .filter_map(|entry| read_settled_meta(&entry.ok()?.path()).ok())
            .collect();
        sessions.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(b.id.cmp(&a.id)));
        sessions
    }

    pub fn load(&self, id: &str) -> io::Result<SavedSession> {
        if id.is_empty() || id.contains(['/', '\\']) || id.starts_with('.') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a session id",
            ));
        }
        let dir = self.root.join(id);
        let meta = read_settled_meta(&dir)?;
        Ok(SavedSession { dir, meta })
    }

    /// The session that issued (or continued from) `checkpoint_id`, or that holds `chat_id`.
    pub fn find(&self, checkpoint_id: Option<&str>, chat_id: Option<&str>) -> Option<SavedSession> {
        let meta = self.list().into_iter().find(|meta| {
            checkpoint_id.is_some_and(|ck| {
                meta.turns
                    .iter()
                    .any(|t| t.checkpoint_id.as_deref() == Some(ck))
            }) || chat_id.is_some_and(|chat| meta.chat_id.as_deref() == Some(chat))
        })?;
        self.load(&meta.id).ok()
    }
}

/// The meta of the session in `dir`, as it is on disk.
fn read_meta(dir: &Path) -> io::Result<SessionMeta> {
    serde_json::from_slice(&std::fs::read(dir.join(META))?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// The meta of the session in `dir`, every turn whose writer died while it streamed marked cut.
fn read_settled_meta(dir: &Path) -> io::Result<SessionMeta> {
    let meta = read_meta(dir)?;
    let dead: Vec<String> = meta
        .turns
        .iter()
        .filter(|turn| turn.status == TurnStatus::Streaming)
        .filter(|turn| !writer_alive(dir, &turn.stream_file))
        .map(|turn| turn.stream_file.clone())
        .collect();
    if dead.is_empty() {
        return Ok(meta);
    }
    // A writer saves the turn's end before it lets go of the turn lock: read the meta again, so a
    // turn that ended between the first read and the lock check shows how it really ended.
    let mut meta = read_meta(dir).unwrap_or(meta);
    for turn in &mut meta.turns {
        if turn.status == TurnStatus::Streaming && dead.contains(&turn.stream_file) {
            turn.mark_writer_died();
        }
    }
    Ok(meta)
}

/// Replace the meta of the session in `dir` (under its lock, unless the session is new).
fn write_meta(dir: &Path, meta: &SessionMeta) -> io::Result<()> {
    let bytes = serde_json::to_vec_pretty(meta).map_err(io::Error::other)?;
    replace_file(dir, META, &bytes)
}

/// A saved session: its directory, and its meta as this process last read or wrote it (other
/// processes may have added turns since; every change re-reads the file first).
#[derive(Debug, Clone)]
pub struct SavedSession {
    dir: PathBuf,
    pub meta: SessionMeta,
}

impl SavedSession {
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Change the meta: under the session lock, `change` is applied to the meta as it is on disk
    /// (turns of dead writers marked cut), which is then replaced; `self.meta` becomes the result.
    /// Nothing is written when `change` fails.
    fn update_meta<R>(
        &mut self,
        change: impl FnOnce(&mut SessionMeta) -> io::Result<R>,
    ) -> io::Result<R> {
        let _lock = SessionLock::acquire(&self.dir)?;
        let mut meta = read_settled_meta(&self.dir)?;
        let out = change(&mut meta)?;
        write_meta(&self.dir, &meta)?;
        self.meta = meta;
        Ok(out)
    }

    /// Add a turn, in a stream file of its own: what its writer needs (see [`SavedTurn::new`]).
    pub fn begin_turn(
        &mut self,
        question: &str,
        from_checkpoint_id: Option<&str>,
    ) -> io::Result<TurnWriter> {
        let dir = self.dir.clone();
        let mut created = None;
        let begun = self.update_meta(|meta| {
            let (stream_file, file) = create_turn_file(&dir, meta.turns.len() + 1)?;
            created = Some(stream_file.clone());
            // Held before the meta says `streaming`, so no reader ever takes this turn for dead.
            let lock = TurnLock::acquire(&dir, &stream_file)?;
            let now = rfc3339(SystemTime::now());
            meta.turns.push(TurnMeta {
                question: question.into(),
                started_at: now.clone(),
                ended_at: None,
                from_checkpoint_id: from_checkpoint_id.map(str::to_owned),
                checkpoint_id: None,
                status: TurnStatus::Streaming,
                stream_file: stream_file.clone(),
                reason: None,
            });
            meta.updated_at = now;
            Ok(TurnWriter {
                index: meta.turns.len() - 1,
                stream_file,
                file: Arc::new(Mutex::new(TurnFile::new(file))),
                lock: Some(lock),
            })
        });
        if let (Err(_), Some(stream_file)) = (&begun, created) {
            // The meta does not list it: the file would only take a turn number for nothing.
            let _ = std::fs::remove_file(self.dir.join(stream_file));
        }
        begun
    }

    /// Save the conversation ids as soon as they are known, so a run killed mid-stream can still be
    /// found by `--chat-id` and continued. Writes only when something new arrived.
    pub fn note_progress(&mut self, session: &Session) -> io::Result<()> {
        if !has_new_ids(&self.meta, session) {
            return Ok(());
        }
        self.update_meta(|meta| {
            adopt_ids(meta, session);
            Ok(())
        })
    }

    /// Remember the provider options follow-ups must send again.
    pub fn set_options(&mut self, options: crate::agent::live::ProviderOptions) -> io::Result<()> {
        if self.meta.options == options {
            return Ok(());
        }
        self.update_meta(|meta| {
            meta.options = options;
            Ok(())
        })
    }

    /// Record how the turn in `stream_file` ended; `unsaved` says why its stream file is incomplete.
    pub fn end_turn(
        &mut self,
        stream_file: &str,
        session: &Session,
        end: &StreamEnd,
        unsaved: Option<&str>,
    ) -> io::Result<()> {
        self.update_meta(|meta| {
            let now = rfc3339(SystemTime::now());
            adopt_ids(meta, session);
            let turn = meta
                .turns
                .iter_mut()
                .find(|turn| turn.stream_file == stream_file)
                .ok_or_else(|| {
                    io::Error::other(format!("{stream_file} is missing from the session's meta"))
                })?;
            turn.ended_at = Some(now.clone());
            turn.checkpoint_id = session.checkpoint_id().map(str::to_owned);
            turn.status = TurnStatus::of(session, end);
            if let Some(failure) = unsaved {
                // What the file holds is a cut stream, whatever the agent sent after it.
                turn.status = TurnStatus::Cut;
                turn.reason = Some(format!("only part of the stream was saved: {failure}"));
            }
            meta.updated_at = now;
            Ok(())
        })
    }

    /// Rebuild every turn from its raw stream file.
    pub fn replay_turns(&self) -> Vec<(TurnMeta, Session)> {
        self.meta
            .turns
            .iter()
            .map(|turn| (turn.clone(), self.replay_turn(turn)))
            .collect()
    }

    /// The provider the session speaks.
    pub fn provider(&self) -> Provider {
        <Provider as clap::ValueEnum>::from_str(&self.meta.provider, true).unwrap_or_default()
    }

    /// Rebuild `turn` from its raw stream file (as much as there is).
    pub fn replay_turn(&self, turn: &TurnMeta) -> Session {
        self.stream_path(turn)
            .and_then(|path| File::open(path).ok())
            .and_then(|f| read_session(f, self.provider()).ok())
            .map(|(session, _)| session)
            .unwrap_or_default()
    }

    /// Where `turn`'s raw stream is, when its name stays inside the session's folder.
    pub fn stream_path(&self, turn: &TurnMeta) -> Option<PathBuf> {
        is_plain_name(&turn.stream_file).then(|| self.dir.join(&turn.stream_file))
    }

    /// Whether a live process still writes `turn` (it holds the turn's lock).
    pub fn writer_alive(&self, turn: &TurnMeta) -> bool {
        writer_alive(&self.dir, &turn.stream_file)
    }
}

/// The session knows a conversation id that `meta` does not hold (yet).
fn has_new_ids(meta: &SessionMeta, session: &Session) -> bool {
    [
        (&session.ids.chat_id, &meta.chat_id),
        (&session.ids.execution_id, &meta.execution_id),
    ]
    .into_iter()
    .any(|(seen, kept)| seen.is_some() && seen != kept)
}

/// Take the session's conversation ids into `meta`.
fn adopt_ids(meta: &mut SessionMeta, session: &Session) {
    for (seen, kept) in [
        (&session.ids.chat_id, &mut meta.chat_id),
        (&session.ids.execution_id, &mut meta.execution_id),
    ] {
        if seen.is_some() && seen != kept {
            kept.clone_from(seen);
        }
    }
}

/// What a new turn's writer holds: the turn's place in the session, its stream file, and the turn
/// lock that tells readers its writer lives (until the end is saved).
#[derive(Debug)]
pub struct TurnWriter {
    index: usize,
    stream_file: String,
    file: Arc<Mutex<TurnFile>>,
    lock: Option<TurnLock>,
}

impl TurnWriter {
    /// Why the stream could not be saved in full, if it could not.
    fn failure(&self) -> Option<String> {
        let file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        file.failure().map(str::to_owned)
    }
}

/// A turn of a saved session while it streams: what the turn driver saves into.
#[derive(Debug)]
pub struct SavedTurn {
    pub saved: SavedSession,
    /// The turn's index in the session when it began.
    pub index: usize,
    writer: TurnWriter,
}

impl SavedTurn {
    /// The turn `writer` began in `saved`, and the sink its raw bytes go to.
    pub fn new(saved: SavedSession, writer: TurnWriter) -> (SavedTurn, RawSink) {
        let sink: RawSink = writer.file.clone();
        let turn = SavedTurn {
            saved,
            index: writer.index,
            writer,
        };
        (turn, sink)
    }
}

impl TurnRecorder for SavedTurn {
    fn progress(&mut self, session: &Session) -> io::Result<()> {
        self.saved.note_progress(session)
    }

    /// Save how the turn ended; an error also when its stream could not be saved in full.
    fn end(&mut self, session: &Session, end: &StreamEnd) -> io::Result<()> {
        let unsaved = self.writer.failure();
        let saved = self
            .saved
            .end_turn(&self.writer.stream_file, session, end, unsaved.as_deref());
        // After the end is on disk (or could not be written: then the turn reads as cut).
        self.writer.lock = None;
        saved?;
        match unsaved {
            Some(failure) => Err(io::Error::other(format!(
                "the stream could not be saved in full: {failure}"
            ))),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::AgentEvent;

    const RAW: &[u8] = b"data: {\"chat_id\":\"c-9\",\"message\":{\"type\":\"ANSWER\",\"content\":\"Hi\"}}\n\ndata: {\"chat_id\":\"c-9\",\"message\":{\"type\":\"COMPLETE\",\"checkpoint_id\":\"ck-1\"}}\n\n";

    /// The session `RAW` decodes to.
    fn complete_session() -> Session {
        let mut session = Session::new();
        session.apply(AgentEvent::Conversation(
            crate::model::event::ConversationIds {
                chat_id: Some("c-9".into()),
                ..Default::default()
            },
        ));
        session.apply(AgentEvent::Complete {
            checkpoint_id: Some("ck-1".into()),
            consumption: vec![],
        });
        session
    }

    #[test]
    fn a_session_keeps_raw_bytes_and_meta_and_replays_its_turns() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let mut saved = store
            .create("research-agent", "bigdata", "http://127.0.0.1:1")
            .unwrap();
        let writer = saved.begin_turn("What changed?", None).unwrap();
        let (mut turn, sink) = SavedTurn::new(saved, writer);
        sink.lock().unwrap().write_all(RAW).unwrap();
        turn.end(&complete_session(), &StreamEnd::Closed).unwrap();

        let listed = store.list();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].first_question(), "What changed?");
        assert_eq!(listed[0].last_checkpoint_id(), Some("ck-1"));
        assert_eq!(listed[0].status(), "complete");
        assert_eq!(listed[0].chat_id.as_deref(), Some("c-9"));

        let found = store.find(Some("ck-1"), None).unwrap();
        let turns = found.replay_turns();
        assert_eq!(turns[0].1.answer.as_str(), "Hi");
        assert_eq!(turns[0].1.checkpoint_id(), Some("ck-1"));
        assert!(store.find(None, Some("c-9")).is_some());
        assert!(store.find(Some("nope"), None).is_none());
    }

    #[test]
    fn session_ids_cannot_escape_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        assert!(store.load("../etc").is_err());
        assert!(store.load("").is_err());
    }

    #[test]
    fn sessions_list_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let mut a = store.create("research-agent", "bigdata", "x").unwrap();
        a.meta.updated_at = "2026-01-01T00:00:00Z".into();
        write_meta(a.dir(), &a.meta).unwrap();
        let b = store.create("research-agent", "bigdata", "x").unwrap();
        let ids: Vec<_> = store.list().into_iter().map(|m| m.id).collect();
        assert_eq!(ids, [b.meta.id.clone(), a.meta.id.clone()]);
    }

    #[test]
    fn two_writers_of_one_session_keep_both_turns_in_files_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let created = store.create("research-agent", "bigdata", "x").unwrap();
        // Two handles on the same session, as two processes resuming it would hold.
        let mut first = store.load(&created.meta.id).unwrap();
        let mut second = store.load(&created.meta.id).unwrap();
        let (mut a, sink_a) = SavedTurn::new(first.clone(), first.begin_turn("A", None).unwrap());
        let (mut b, sink_b) = SavedTurn::new(second.clone(), second.begin_turn("B", None).unwrap());
        sink_a.lock().unwrap().write_all(RAW).unwrap();
        sink_b.lock().unwrap().write_all(RAW).unwrap();
        b.end(&complete_session(), &StreamEnd::Closed).unwrap();
        a.end(&Session::new(), &StreamEnd::Cancelled).unwrap();

        let meta = store.load(&created.meta.id).unwrap().meta;
        let turns: Vec<_> = meta
            .turns
            .iter()
            .map(|t| {
                (
                    t.question.as_str(),
                    t.stream_file.as_str(),
                    t.status.as_str(),
                )
            })
            .collect();
        assert_eq!(
            turns,
            [
                ("A", "turn-001.sse", "cancelled"),
                ("B", "turn-002.sse", "complete")
            ]
        );
        for file in ["turn-001.sse", "turn-002.sse"] {
            assert_eq!(std::fs::read(created.dir().join(file)).unwrap(), RAW);
        }
        // No temp file is left behind.
        let names: Vec<String> = std::fs::read_dir(created.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".tmp"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_stream_that_could_not_be_saved_in_full_ends_as_an_error_and_reads_as_cut() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let mut saved = store.create("research-agent", "bigdata", "x").unwrap();
        let mut writer = saved.begin_turn("Q", None).unwrap();
        // The disk fills up under the turn's file.
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        writer.file = Arc::new(Mutex::new(TurnFile::new(full)));
        let (mut turn, sink) = SavedTurn::new(saved, writer);
        assert!(sink.lock().unwrap().write_all(RAW).is_err());
        let error = turn
            .end(&complete_session(), &StreamEnd::Closed)
            .unwrap_err();
        assert!(
            error.to_string().contains("could not be saved in full"),
            "{error}"
        );
        let saved_turn = &store.list()[0].turns[0];
        assert_eq!(saved_turn.status, TurnStatus::Cut);
        assert!(
            saved_turn
                .reason
                .as_deref()
                .unwrap()
                .contains("No space left"),
            "{saved_turn:?}"
        );
    }

    #[test]
    fn a_turn_whose_writer_died_reads_as_cut_and_the_next_writer_saves_it_so() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let mut saved = store.create("research-agent", "bigdata", "x").unwrap();
        let id = saved.meta.id.clone();
        let (turn, _sink) = SavedTurn::new(saved.clone(), saved.begin_turn("Q", None).unwrap());
        // Its writer lives: streaming.
        assert_eq!(store.list()[0].status(), "streaming");
        // Its writer goes away without saving the end (as a killed process does).
        drop(turn);
        let listed = &store.list()[0].turns[0];
        assert_eq!(listed.status, TurnStatus::Cut);
        assert!(listed.reason.as_deref().unwrap().starts_with("interrupted"));
        assert_eq!(
            store.load(&id).unwrap().meta.turns[0].status,
            TurnStatus::Cut
        );
        // Only read so far; the next change to the session writes it down.
        assert!(read_meta(saved.dir()).unwrap().turns[0].status == TurnStatus::Streaming);
        let mut other = store.load(&id).unwrap();
        let _next = other.begin_turn("Q2", None).unwrap();
        let on_disk = read_meta(saved.dir()).unwrap();
        assert_eq!(on_disk.turns[0].status, TurnStatus::Cut);
        assert_eq!(on_disk.turns[1].status, TurnStatus::Streaming);
    }
}
