//! Sessions on disk: nothing received is ever lost.
//!
//! Each session lives in `$XDG_DATA_HOME/research-tui/sessions/<id>/`: one raw stream file per turn
//! (`turn-001.sse`, …), written as bytes arrive, and `meta.json` (questions, times, endpoint, chat
//! id, execution id, each turn's checkpoint id and status, and for a turn the recording proxy saved
//! the request it was sent with, credentials left out), with `summary.json` refreshed beside it on
//! every change ([`crate::local::summary`]; the meta itself is [`crate::local::meta`]). Opening a session replays its raw files through the
//! normal pipeline, so what you see later is exactly what arrived.
//!
//! Any number of processes may write one session at once: every change to `meta.json` is made under
//! the session's lock to the file as it is on disk, and every turn gets a file of its own
//! ([`crate::local::session_files`]). A failure to save is returned, never swallowed. A turn still
//! `streaming` whose writer died (its turn lock is free) is read as cut, and saved so by the next
//! writer of the session.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::agent::client::RawSink;
use crate::agent::turn::TurnRecorder;
use crate::local::meta::{SessionMeta, TurnMeta, read_settled_meta, write_first_meta, write_meta};
use crate::local::session_files::{
    SessionLock, TurnFile, TurnLock, create_turn_file, is_plain_name, open_regular,
    open_times_file, writer_alive,
};
use crate::local::summary;
use crate::local::timestamp::{compact_stamp, rfc3339};
pub use crate::local::turn_status::TurnStatus;
use crate::model::session::Session;
use crate::model::stream_end::StreamEnd;
use crate::wire::arrivals::Arrivals;
use crate::wire::input::read_session;
use crate::wire::provider::Provider;

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

pub(crate) use crate::local::session_files::MAX_TURN_BYTES;

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
            diverted: None,
            summarised: None,
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
                comparison: None,
                branched_from: None,
                turns: Vec::new(),
            },
        };
        // Nobody else knows the new directory yet: no lock needed.
        write_first_meta(&saved.dir, &saved.meta)?;
        Ok(saved)
    }

    /// Every readable session, newest first: from the sessions index where it is fresh, else
    /// from `meta.json` ([`crate::local::index`]).
    pub fn list(&self) -> Vec<SessionMeta> {
        crate::local::index::metas(&self.root)
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
        Ok(SavedSession {
            dir,
            meta,
            diverted: None,
            summarised: None,
        })
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

/// A saved session: its directory, and its meta as this process last read or wrote it (other
/// processes may have added turns since; every change re-reads the file first).
#[derive(Debug, Clone)]
pub struct SavedSession {
    dir: PathBuf,
    pub meta: SessionMeta,
    /// Why the last turn begun went to this session, branched from the one asked for (see
    /// [`SavedSession::take_diverted`]).
    diverted: Option<String>,
    /// A turn its writer summarised while decoding it, for the next refresh of the summary.
    summarised: Option<summary::TurnSummary>,
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
        let _lock = SessionLock::acquire_promptly(&self.dir)?;
        let mut meta = read_settled_meta(&self.dir)?;
        let had_turns = !meta.turns.is_empty();
        let out = change(&mut meta)?;
        match had_turns {
            true => write_meta(&self.dir, &meta)?,
            false => write_first_meta(&self.dir, &meta)?,
        }
        // The summary is a cache the next reader rebuilds when this fails: never the turn's error.
        let _ = summary::refresh(&self.dir, &meta, self.summarised.take());
        self.meta = meta;
        Ok(out)
    }

    /// Add a turn, in a stream file of its own: what its writer needs (see [`SavedTurn::new`]).
    pub fn begin_turn(
        &mut self,
        question: &str,
        from_checkpoint_id: Option<&str>,
    ) -> io::Result<TurnWriter> {
        self.begin_recorded_turn(question, from_checkpoint_id, None)
    }

    /// [`SavedSession::begin_turn`] for a request another program sent, saved with the turn.
    ///
    /// When another writer holds the session's lock and does not let go (stopped with SIGSTOP, or
    /// hung), the turn is not lost and nobody waits: it begins in a new session branched from this
    /// one (same conversation ids and options, `branched_from` naming it), which `self` becomes;
    /// [`SavedSession::take_diverted`] says so in one line naming the holder.
    pub fn begin_recorded_turn(
        &mut self,
        question: &str,
        from_checkpoint_id: Option<&str>,
        request: Option<serde_json::Value>,
    ) -> io::Result<TurnWriter> {
        match self.begin_turn_here(question, from_checkpoint_id, request.clone()) {
            Err(locked) if locked.kind() == io::ErrorKind::WouldBlock => {
                self.branch_off(&locked)?;
                self.begin_turn_here(question, from_checkpoint_id, request)
            }
            begun => begun,
        }
    }

    /// Why the turn just begun went to a new session rather than the one asked for (its lock was
    /// held by a writer that did not let go), once: the caller says it where its user reads.
    pub fn take_diverted(&mut self) -> Option<String> {
        self.diverted.take()
    }

    /// Become a new session branched from this one, which a stopped writer keeps `locked`.
    fn branch_off(&mut self, locked: &io::Error) -> io::Result<()> {
        let root = self
            .dir
            .parent()
            .ok_or_else(|| io::Error::other("the session has no sessions folder"))?;
        let meta = &self.meta;
        let mut branch =
            SessionStore::new(root).create(&meta.endpoint, &meta.provider, &meta.base_url)?;
        branch.meta.chat_id.clone_from(&meta.chat_id);
        branch.meta.execution_id.clone_from(&meta.execution_id);
        branch.meta.options = meta.options.clone();
        // Still this agent's conversation in its comparison.
        branch.meta.comparison.clone_from(&meta.comparison);
        branch.meta.branched_from = Some(meta.id.clone());
        // Still nobody else writes the new session: no lock needed.
        write_meta(&branch.dir, &branch.meta)?;
        branch.diverted = Some(format!(
            "{locked}; this turn is saved in a new session, {}, branched from {}",
            branch.meta.id, meta.id
        ));
        *self = branch;
        Ok(())
    }

    /// Begin the turn in this session.
    fn begin_turn_here(
        &mut self,
        question: &str,
        from_checkpoint_id: Option<&str>,
        request: Option<serde_json::Value>,
    ) -> io::Result<TurnWriter> {
        let dir = self.dir.clone();
        let mut created = None;
        let begun = self.update_meta(|meta| {
            let (stream_file, file) = create_turn_file(&dir, meta.turns.len() + 1)?;
            created = Some(stream_file.clone());
            // Held before the meta says `streaming`, so no reader ever takes this turn for dead.
            let lock = TurnLock::acquire(&dir, &stream_file)?;
            let file = turn_file(&dir, &stream_file, file, false, 0);
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
                request,
                not_saved: None,
            });
            meta.updated_at = now;
            Ok(TurnWriter {
                index: meta.turns.len() - 1,
                stream_file,
                file: Arc::new(Mutex::new(file)),
                lock: Some(lock),
            })
        });
        if let (Err(_), Some(stream_file)) = (&begun, created) {
            // The meta does not list it: the file would only take a turn number for nothing.
            let _ = std::fs::remove_file(self.dir.join(stream_file));
        }
        begun
    }

    /// Go on writing turn `index`, whose provider paused it (Anthropic's `pause_turn`): its stream
    /// file is appended to (after a line break when it ends inside a line), and it is streaming
    /// again until the writer saves its end.
    pub fn resume_turn(&mut self, index: usize) -> io::Result<TurnWriter> {
        let dir = self.dir.clone();
        self.update_meta(|meta| {
            let turn = meta
                .turns
                .get_mut(index)
                .ok_or_else(|| io::Error::other("no such turn in the session"))?;
            if !is_plain_name(&turn.stream_file) {
                return Err(io::Error::other(
                    "the turn's stream file is outside the session",
                ));
            }
            let stream_file = turn.stream_file.clone();
            let lock = TurnLock::acquire(&dir, &stream_file)?;
            let path = dir.join(&stream_file);
            let ends_a_line = std::fs::read(&path)?
                .last()
                .is_none_or(|b| matches!(b, b'\n' | b'\r'));
            let mut file = std::fs::OpenOptions::new().append(true).open(&path)?;
            if !ends_a_line {
                io::Write::write_all(&mut file, b"\n\n")?;
            }
            let offset = file.metadata()?.len();
            let file = turn_file(&dir, &stream_file, file, true, offset);
            turn.status = TurnStatus::Streaming;
            turn.ended_at = None;
            turn.reason = None;
            meta.updated_at = rfc3339(SystemTime::now());
            Ok(TurnWriter {
                index,
                stream_file,
                file: Arc::new(Mutex::new(file)),
                lock: Some(lock),
            })
        })
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

    /// Mark this session as one agent of the comparison `id`.
    pub fn set_comparison(&mut self, id: &str) -> io::Result<()> {
        self.update_meta(|meta| {
            meta.comparison = Some(id.to_owned());
            Ok(())
        })
    }

    /// Remember the provider options follow-ups must send again.
    pub fn set_options(
        &mut self,
        options: crate::wire::provider::ProviderOptions,
    ) -> io::Result<()> {
        if self.meta.options == options {
            return Ok(());
        }
        self.update_meta(|meta| {
            meta.options = options;
            Ok(())
        })
    }

    /// Record how the turn in `stream_file` ended: `explained` is a status and reason its writer
    /// knows better than the stream (an error's message, a failure to record it); `saving` says
    /// why its stream file is incomplete (which wins) and what it left out on purpose.
    pub fn end_turn(
        &mut self,
        stream_file: &str,
        session: &Session,
        end: &StreamEnd,
        saving: Saving<'_>,
        explained: Option<(TurnStatus, String)>,
    ) -> io::Result<()> {
        let Saving { unsaved, not_saved } = saving;
        self.update_meta(|meta| {
            let now = rfc3339(SystemTime::now());
            adopt_ids(meta, session);
            let turn = turn_in(meta, stream_file)?;
            turn.ended_at = Some(now.clone());
            turn.checkpoint_id = session.checkpoint_id().map(str::to_owned);
            turn.status = TurnStatus::of(session, end);
            if let Some((status, reason)) = explained {
                turn.status = status;
                turn.reason = Some(reason);
            }
            turn.not_saved = not_saved;
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
            .and_then(|path| open_regular(&path, MAX_TURN_BYTES).ok())
            .and_then(|f| read_session(f, self.provider()).ok())
            .map(|(session, _)| session)
            .unwrap_or_default()
    }

    /// Where `turn`'s raw stream is, when its name stays inside the session's folder.
    pub fn stream_path(&self, turn: &TurnMeta) -> Option<PathBuf> {
        is_plain_name(&turn.stream_file).then(|| self.dir.join(&turn.stream_file))
    }

    /// When `turn`'s bytes arrived, when its sidecar was kept ([`crate::wire::arrivals`]).
    pub fn arrivals(&self, turn: &TurnMeta) -> Option<Arrivals> {
        let path = self.stream_path(turn)?;
        crate::agent::replay::read_arrivals(&path)
    }

    /// Whether a live process still writes `turn` (it holds the turn's lock).
    pub fn writer_alive(&self, turn: &TurnMeta) -> bool {
        writer_alive(&self.dir, &turn.stream_file)
    }
}

/// The writer of turn file `stream_file` (holding `offset` bytes), its arrival times kept beside
/// it when the sidecar can be opened (a new one, or appended to by a continuation).
fn turn_file(
    dir: &Path,
    stream_file: &str,
    file: std::fs::File,
    append: bool,
    offset: u64,
) -> TurnFile {
    match open_times_file(dir, stream_file, append) {
        Ok(times) => {
            let fresh = times.metadata().is_ok_and(|m| m.len() == 0);
            TurnFile::with_times(file, times, fresh, offset)
        }
        Err(_) => TurnFile::new(file),
    }
}

/// How saving a turn's stream went, for [`SavedSession::end_turn`].
#[derive(Debug, Default)]
pub struct Saving<'a> {
    /// Why the stream file is incomplete (a failed write, the file's cap).
    pub unsaved: Option<&'a str>,
    /// What the file leaves out on purpose ([`TurnFile::not_saved`]).
    pub not_saved: Option<String>,
}

/// The turn saved in `stream_file`.
fn turn_in<'a>(meta: &'a mut SessionMeta, stream_file: &str) -> io::Result<&'a mut TurnMeta> {
    meta.turns
        .iter_mut()
        .find(|turn| turn.stream_file == stream_file)
        .ok_or_else(|| {
            io::Error::other(format!("{stream_file} is missing from the session's meta"))
        })
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
    /// Why the stream could not be saved in full, if it could not; and what of it was left out on
    /// purpose (lines past the decoder's limit).
    fn failure(&self) -> (Option<String>, Option<String>) {
        let file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        (file.failure().map(str::to_owned), file.not_saved())
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

impl SavedTurn {
    /// The stream file of a paused turn this writer goes on with ([`SavedSession::resume_turn`]):
    /// what it holds already. `None` for a new turn.
    pub fn resumed_stream(&self) -> Option<PathBuf> {
        let turn = self.saved.meta.turns.get(self.index)?;
        let path = self.saved.stream_path(turn)?;
        std::fs::metadata(&path)
            .is_ok_and(|m| m.len() > 0)
            .then_some(path)
    }
}

impl TurnRecorder for SavedTurn {
    fn progress(&mut self, session: &Session) -> io::Result<()> {
        self.saved.note_progress(session)
    }

    /// Save how the turn ended; an error also when its stream could not be saved in full.
    fn end(&mut self, session: &Session, end: &StreamEnd) -> io::Result<()> {
        self.end_explained(session, end, None)
    }
}

impl SavedTurn {
    /// The turn as its writer summarised it while decoding it: the summary saved with its end
    /// takes it rather than decoding the turn's file again.
    pub fn summarised(&mut self, summary: summary::TurnSummary) {
        self.saved.summarised = Some(summary);
    }

    /// [`TurnRecorder::end`], with a status and reason the writer knows better than the stream
    /// (saved in the same change of the meta, so no reader sees the end without them).
    pub fn end_explained(
        &mut self,
        session: &Session,
        end: &StreamEnd,
        explained: Option<(TurnStatus, String)>,
    ) -> io::Result<()> {
        let (unsaved, not_saved) = self.writer.failure();
        let file = &self.writer.stream_file;
        let saved = self.saved.end_turn(
            file,
            session,
            end,
            Saving {
                unsaved: unsaved.as_deref(),
                not_saved,
            },
            explained,
        );
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

mod delete;
#[cfg(test)]
mod tests;
