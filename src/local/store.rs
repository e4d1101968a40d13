//! Sessions on disk: nothing received is ever lost.
//!
//! Each session lives in `$XDG_DATA_HOME/research-tui/sessions/<id>/`: one raw stream file per turn
//! (`turn-001.sse`, …), appended and flushed as bytes arrive, and `meta.json` (questions, times,
//! endpoint, chat id, execution id, each turn's checkpoint id and status), replaced atomically.
//! Opening a session replays its raw files through the normal pipeline, so what you see later is
//! exactly what arrived.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::agent::client::RawSink;
use crate::agent::stream::StreamEnd;
use crate::agent::turn::TurnRecorder;
use crate::local::timestamp::{compact_stamp, rfc3339};
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
}

/// How a saved turn ended: `status` in `meta.json`, saved as the word [`TurnStatus::as_str`] gives
/// (the same words earlier versions wrote, so their sessions still load).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum TurnStatus {
    /// Still streaming, or the app stopped while it streamed.
    Streaming,
    Complete,
    /// The agent reported an error.
    Error,
    /// The stream closed before completion.
    Incomplete,
    Cut,
    Stalled,
    HttpError,
    ConnectError,
    Cancelled,
    /// A word this version does not know (from another version), kept as it was.
    Other(String),
}

impl TurnStatus {
    /// How a stream that ended with `end` leaves its turn.
    pub fn of(session: &Session, end: &StreamEnd) -> TurnStatus {
        if session.error.is_some() {
            return TurnStatus::Error;
        }
        if session.cancelled.is_some() {
            return TurnStatus::Cancelled;
        }
        if session.completion.is_some() {
            return TurnStatus::Complete;
        }
        match end {
            StreamEnd::Closed => TurnStatus::Incomplete,
            StreamEnd::Cut { .. } => TurnStatus::Cut,
            StreamEnd::Stalled { .. } => TurnStatus::Stalled,
            StreamEnd::Http { .. } => TurnStatus::HttpError,
            StreamEnd::Connect { .. } => TurnStatus::ConnectError,
            StreamEnd::Cancelled => TurnStatus::Cancelled,
        }
    }

    /// The word saved in `meta.json` (and shown in session lists).
    pub fn as_str(&self) -> &str {
        match self {
            TurnStatus::Streaming => "streaming",
            TurnStatus::Complete => "complete",
            TurnStatus::Error => "error",
            TurnStatus::Incomplete => "incomplete",
            TurnStatus::Cut => "cut",
            TurnStatus::Stalled => "stalled",
            TurnStatus::HttpError => "http_error",
            TurnStatus::ConnectError => "connect_error",
            TurnStatus::Cancelled => "cancelled",
            TurnStatus::Other(word) => word,
        }
    }
}

impl From<&str> for TurnStatus {
    fn from(word: &str) -> Self {
        use TurnStatus::*;
        [
            Streaming,
            Complete,
            Error,
            Incomplete,
            Cut,
            Stalled,
            HttpError,
            ConnectError,
            Cancelled,
        ]
        .into_iter()
        .find(|known| known.as_str() == word)
        .unwrap_or_else(|| Other(word.to_owned()))
    }
}

/// A status equals the word it is saved as.
impl PartialEq<&str> for TurnStatus {
    fn eq(&self, word: &&str) -> bool {
        self.as_str() == *word
    }
}

impl From<String> for TurnStatus {
    fn from(word: String) -> Self {
        TurnStatus::from(word.as_str())
    }
}

impl From<TurnStatus> for String {
    fn from(status: TurnStatus) -> Self {
        match status {
            TurnStatus::Other(word) => word,
            known => known.as_str().to_owned(),
        }
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
        saved.write_meta()?;
        Ok(saved)
    }

    /// Every readable session, newest first.
    pub fn list(&self) -> Vec<SessionMeta> {
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return Vec::new();
        };
        let mut sessions: Vec<SessionMeta> = entries
            .filter_map(|entry| {
                let path = entry.ok()?.path().join("meta.json");
                serde_json::from_slice(&std::fs::read(path).ok()?).ok()
            })
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
        let meta = serde_json::from_slice(&std::fs::read(dir.join("meta.json"))?)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
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

#[derive(Debug, Clone)]
pub struct SavedSession {
    dir: PathBuf,
    pub meta: SessionMeta,
}

impl SavedSession {
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Add a turn; returns its index and the sink its raw bytes go to.
    pub fn begin_turn(
        &mut self,
        question: &str,
        from_checkpoint_id: Option<&str>,
    ) -> io::Result<(usize, RawSink)> {
        let index = self.meta.turns.len();
        let stream_file = format!("turn-{:03}.sse", index + 1);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(&stream_file))?;
        let now = rfc3339(SystemTime::now());
        self.meta.turns.push(TurnMeta {
            question: question.into(),
            started_at: now.clone(),
            ended_at: None,
            from_checkpoint_id: from_checkpoint_id.map(str::to_owned),
            checkpoint_id: None,
            status: TurnStatus::Streaming,
            stream_file,
        });
        self.meta.updated_at = now;
        self.write_meta()?;
        Ok((index, Arc::new(Mutex::new(file))))
    }

    /// Save the conversation ids as soon as they are known, so a run killed mid-stream can still be
    /// found by `--chat-id` and continued. Writes only when something new arrived.
    pub fn note_progress(&mut self, index: usize, session: &Session) -> io::Result<()> {
        if index >= self.meta.turns.len() || !self.adopt_ids(session) {
            return Ok(());
        }
        self.write_meta()
    }

    /// Take the session's conversation ids into the meta; whether anything changed.
    fn adopt_ids(&mut self, session: &Session) -> bool {
        let mut changed = false;
        for (seen, kept) in [
            (&session.ids.chat_id, &mut self.meta.chat_id),
            (&session.ids.execution_id, &mut self.meta.execution_id),
        ] {
            if seen.is_some() && seen != kept {
                kept.clone_from(seen);
                changed = true;
            }
        }
        changed
    }

    /// Remember the provider options follow-ups must send again.
    pub fn set_options(&mut self, options: crate::agent::live::ProviderOptions) -> io::Result<()> {
        if self.meta.options == options {
            return Ok(());
        }
        self.meta.options = options;
        self.write_meta()
    }

    /// Record how turn `index` ended.
    pub fn end_turn(&mut self, index: usize, session: &Session, end: &StreamEnd) -> io::Result<()> {
        let now = rfc3339(SystemTime::now());
        self.adopt_ids(session);
        if let Some(turn) = self.meta.turns.get_mut(index) {
            turn.ended_at = Some(now.clone());
            turn.checkpoint_id = session.checkpoint_id().map(str::to_owned);
            turn.status = TurnStatus::of(session, end);
        }
        self.meta.updated_at = now;
        self.write_meta()
    }

    /// Rebuild every turn from its raw stream file.
    pub fn replay_turns(&self) -> Vec<(TurnMeta, Session)> {
        let provider =
            <Provider as clap::ValueEnum>::from_str(&self.meta.provider, true).unwrap_or_default();
        self.meta
            .turns
            .iter()
            .map(|turn| {
                let session = File::open(self.dir.join(&turn.stream_file))
                    .ok()
                    .and_then(|f| read_session(f, provider).ok())
                    .map(|(session, _)| session)
                    .unwrap_or_default();
                (turn.clone(), session)
            })
            .collect()
    }

    fn write_meta(&self) -> io::Result<()> {
        let tmp = self.dir.join("meta.json.tmp");
        let mut file = File::create(&tmp)?;
        file.write_all(&serde_json::to_vec_pretty(&self.meta).map_err(io::Error::other)?)?;
        file.sync_all()?;
        std::fs::rename(tmp, self.dir.join("meta.json"))
    }
}

/// A turn of a saved session while it streams: what the turn driver saves into.
#[derive(Debug)]
pub struct SavedTurn {
    pub saved: SavedSession,
    /// The turn's index in the session (from [`SavedSession::begin_turn`]).
    pub index: usize,
}

impl TurnRecorder for SavedTurn {
    fn progress(&mut self, session: &Session) -> io::Result<()> {
        self.saved.note_progress(self.index, session)
    }

    fn end(&mut self, session: &Session, end: &StreamEnd) -> io::Result<()> {
        self.saved.end_turn(self.index, session, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::AgentEvent;

    #[test]
    fn a_session_keeps_raw_bytes_and_meta_and_replays_its_turns() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let mut saved = store
            .create("research-agent", "bigdata", "http://127.0.0.1:1")
            .unwrap();
        let (index, sink) = saved.begin_turn("What changed?", None).unwrap();
        let raw = b"data: {\"chat_id\":\"c-9\",\"message\":{\"type\":\"ANSWER\",\"content\":\"Hi\"}}\n\ndata: {\"chat_id\":\"c-9\",\"message\":{\"type\":\"COMPLETE\",\"checkpoint_id\":\"ck-1\"}}\n\n";
        sink.lock().unwrap().write_all(raw).unwrap();
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
        saved.end_turn(index, &session, &StreamEnd::Closed).unwrap();

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
    fn turn_statuses_are_saved_as_the_same_words_and_unknown_ones_are_kept() {
        let words = [
            "streaming",
            "complete",
            "error",
            "incomplete",
            "cut",
            "stalled",
            "http_error",
            "connect_error",
            "cancelled",
            "paused",
        ];
        for word in words {
            let status: TurnStatus = serde_json::from_str(&format!("\"{word}\"")).unwrap();
            assert_eq!(status.as_str(), word);
            assert_eq!(
                serde_json::to_string(&status).unwrap(),
                format!("\"{word}\"")
            );
        }
        let known = serde_json::from_str::<TurnStatus>("\"http_error\"").unwrap();
        assert_eq!(known, TurnStatus::HttpError);
        assert_eq!(TurnStatus::from("connect_error"), TurnStatus::ConnectError);
        assert_eq!(TurnStatus::Cancelled, "cancelled");
        assert!(serde_json::from_str::<TurnStatus>("3").is_err());
        let unknown = serde_json::from_str::<TurnStatus>("\"paused\"").unwrap();
        assert_eq!(unknown, TurnStatus::Other("paused".into()));
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
        a.write_meta().unwrap();
        let b = store.create("research-agent", "bigdata", "x").unwrap();
        let ids: Vec<_> = store.list().into_iter().map(|m| m.id).collect();
        assert_eq!(ids, [b.meta.id.clone(), a.meta.id.clone()]);
    }
}
