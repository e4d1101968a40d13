//! A saved session's meta file (`meta.json`): the session and its turns as [`SessionMeta`] and
//! [`TurnMeta`], read with turns whose writer died marked cut, written, and the order sessions are
//! listed in ([`newest_first`]). Below both the store, which changes it, and the summaries, which
//! are built from it.

use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::local::session_files::{
    is_real_dir, open_regular, replace_file, replace_file_unsynced, writer_alive,
};
use crate::local::turn_status::TurnStatus;

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
    pub options: crate::wire::provider::ProviderOptions,
    /// The comparison this session is one agent of (`ask --provider a,b,c`): every session with the
    /// same id answered the same question at the same time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<String>,
    pub turns: Vec<TurnMeta>,
    /// The session this one branched from: a turn meant for it, whose lock a stopped writer held,
    /// was saved here instead ([`crate::local::store::SavedSession::begin_turn`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branched_from: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TurnMeta {
    /// The question as asked; empty when there was none (a workflow run without a note) or it is
    /// unknown (a request the recording proxy could not read: [`TurnMeta::unreadable_request`]).
    /// `null` and the placeholder earlier proxies saved read as empty.
    #[serde(deserialize_with = "null_as_unknown")]
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
    /// The request as another program sent it, credentials left out (turns the recording proxy
    /// saved; the app's own turns are described by the fields above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<serde_json::Value>,
    /// What of the stream its file does not hold, and why: lines past the decoder's limit (which
    /// it skips anyway), or everything past the turn file's cap. The turn as shown is unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_saved: Option<String>,
}

/// What a turn whose question is unknown shows in its place (never sent, never saved as a question).
pub const UNKNOWN_QUESTION: &str = "(a request research-tui could not read)";

/// `null` is an unknown question, and so is the placeholder earlier proxies saved as the question.
fn null_as_unknown<'de, D: serde::Deserializer<'de>>(input: D) -> Result<String, D::Error> {
    let question = Option::<String>::deserialize(input)?.unwrap_or_default();
    Ok(if question == UNKNOWN_QUESTION {
        String::new()
    } else {
        question
    })
}

impl TurnMeta {
    /// The recording proxy saved this turn from a request body it could not read: its question
    /// is unknown ([`UNKNOWN_QUESTION`] is shown in its place; it is never asked again).
    pub fn unreadable_request(&self) -> bool {
        self.question.is_empty() && self.request.is_some()
    }

    /// The process that wrote this turn died while it streamed: what arrived is all there is.
    pub(crate) fn mark_writer_died(&mut self) {
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

/// The meta of the session in `dir`, as it is on disk: only from a real folder (not a link to
/// one), a regular `meta.json` of at most [`MAX_META_BYTES`], whose id is the folder's name (a
/// meta naming another session must not send writes there).
pub(crate) fn read_meta(dir: &Path) -> io::Result<SessionMeta> {
    use std::io::Read;
    let invalid = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
    // A folder that is not there is not found; one that is a link (or a file) is refused.
    std::fs::symlink_metadata(dir)?;
    if !is_real_dir(dir) {
        return Err(invalid(format!(
            "{} is not a session folder",
            dir.display()
        )));
    }
    let mut bytes = Vec::new();
    open_regular(&dir.join(META), MAX_META_BYTES)?
        .take(MAX_META_BYTES)
        .read_to_end(&mut bytes)?;
    let meta: SessionMeta = serde_json::from_slice(&bytes).map_err(|e| invalid(e.to_string()))?;
    if dir.file_name().and_then(|n| n.to_str()) != Some(meta.id.as_str()) {
        return Err(invalid(format!(
            "the meta.json in {} names another session",
            dir.display()
        )));
    }
    Ok(meta)
}

/// The largest `meta.json` read (a session of thousands of turns is a few megabytes).
pub(crate) const MAX_META_BYTES: u64 = 8 << 20;

/// The meta of the session in `dir`, every turn whose writer died while it streamed marked cut.
pub(crate) fn read_settled_meta(dir: &Path) -> io::Result<SessionMeta> {
    Ok(settle(dir, read_meta(dir)?))
}

/// `meta`, read from `dir`, with every turn whose writer died while it streamed marked cut.
pub(crate) fn settle(dir: &Path, meta: SessionMeta) -> SessionMeta {
    let dead: Vec<String> = meta
        .turns
        .iter()
        .filter(|turn| turn.status == TurnStatus::Streaming)
        .filter(|turn| !writer_alive(dir, &turn.stream_file))
        .map(|turn| turn.stream_file.clone())
        .collect();
    if dead.is_empty() {
        return meta;
    }
    // A writer saves the turn's end before it lets go of the turn lock: read the meta again, so a
    // turn that ended between the first read and the lock check shows how it really ended.
    let mut meta = read_meta(dir).unwrap_or(meta);
    for turn in &mut meta.turns {
        if turn.status == TurnStatus::Streaming && dead.contains(&turn.stream_file) {
            turn.mark_writer_died();
        }
    }
    meta
}

/// Replace the meta of the session in `dir` (under its lock, unless the session is new).
pub(crate) fn write_meta(dir: &Path, meta: &SessionMeta) -> io::Result<()> {
    let bytes = serde_json::to_vec_pretty(meta).map_err(io::Error::other)?;
    replace_file(dir, META, &bytes)
}

/// The meta of a session that held no turn before this change, synced in the background rather
/// than before the caller goes on: a crash in the few milliseconds until then can lose only this
/// session's first turn, just begun (its stream file is not synced either), never a saved turn —
/// a session with turns is replaced synced ([`write_meta`]). It spared `--demo`'s first frame two
/// of its three fsyncs (the summary, a cache, is never synced).
pub(crate) fn write_first_meta(dir: &Path, meta: &SessionMeta) -> io::Result<()> {
    let bytes = serde_json::to_vec_pretty(meta).map_err(io::Error::other)?;
    replace_file_unsynced(dir, META, &bytes)?;
    let path = dir.join(META);
    let sync = |path: &Path| {
        if let Ok(file) = std::fs::File::open(path) {
            let _ = file.sync_all();
        }
    };
    let background = path.clone();
    // No thread to be had (EAGAIN): synced here instead, as before.
    if std::thread::Builder::new()
        .spawn(move || sync(&background))
        .is_err()
    {
        sync(&path);
    }
    Ok(())
}

/// The order sessions are listed in: the latest change first, then the higher id.
pub fn newest_first(a: &SessionMeta, b: &SessionMeta) -> std::cmp::Ordering {
    b.updated_at.cmp(&a.updated_at).then(b.id.cmp(&a.id))
}
