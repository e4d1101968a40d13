//! Recording, off the response path: [`Teed`] passes each chunk of an upstream body on unchanged
//! and hands a copy (a reference-counted `Bytes`, no copy of the data) to an unbounded channel,
//! which never blocks or fails the response; a blocking task ([`record`]) takes the chunks, writes
//! them to the saved turn's raw file as they come and decodes them with the provider's pipeline
//! for the ids and the status the session's meta keeps.
//!
//! Whatever goes wrong here (a store that cannot be written, a full disk, a dialect that panics)
//! is said on stderr and in the turn's meta; the client's response never learns of it.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::body::Bytes;
use futures::Stream;
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use crate::agent::client::{RawSink, error_chain};
use crate::agent::turn::TurnRecorder;
use crate::local::store::{SavedSession, SavedTurn, SessionStore, TurnStatus};
use crate::model::session::Session;
use crate::model::stream_end::StreamEnd;
use crate::render::sanitize::sanitize_line;
use crate::wire::provider::asked::Asked;
use crate::wire::provider::error_body::ErrorBody;
use crate::wire::provider::request::Endpoint;
use crate::wire::provider::spec::FollowUp;
use crate::wire::provider::{EventPipeline, Provider, ProviderOptions};
use crate::wire::redact::{Secret, StreamRedactor};

/// What the response side tells the recorder.
pub enum Tee {
    /// Bytes as they reached the client, and when they arrived from upstream.
    Chunk(Bytes, std::time::Instant),
    /// The upstream body ended: cleanly, or broken off (why).
    End(Result<(), String>),
}

/// An upstream body, passed on chunk by chunk as it arrives, each chunk also sent to the recorder.
/// Dropped before its end (the client went away), it sends nothing more: the recorder reads the
/// closed channel as the client leaving.
pub struct Teed<S> {
    inner: S,
    tx: Option<UnboundedSender<Tee>>,
}

impl<S> Teed<S> {
    pub fn new(inner: S, tx: UnboundedSender<Tee>) -> Self {
        Self {
            inner,
            tx: Some(tx),
        }
    }
}

impl<S> Stream for Teed<S>
where
    S: Stream<Item = reqwest::Result<Bytes>> + Unpin,
{
    type Item = reqwest::Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let item = ready!(Pin::new(&mut self.inner).poll_next(cx));
        let tee = match &item {
            Some(Ok(chunk)) => Tee::Chunk(chunk.clone(), std::time::Instant::now()),
            Some(Err(e)) => Tee::End(Err(error_chain(e))),
            None => Tee::End(Ok(())),
        };
        let ended = !matches!(tee, Tee::Chunk(..));
        if let Some(tx) = &self.tx {
            // The recorder may have given up: the response goes on regardless.
            let _ = tx.send(tee);
        }
        if ended {
            self.tx = None;
        }
        Poll::Ready(item)
    }
}

/// How many turns are being recorded right now: a follow-up whose session is not found yet waits
/// for them, since the turn it continues may still be saving its end.
#[derive(Debug, Default, Clone)]
pub struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn enter(&self) -> InFlightGuard {
        self.0.fetch_add(1, Ordering::SeqCst);
        InFlightGuard(self.0.clone())
    }

    fn others(&self) -> usize {
        self.0.load(Ordering::SeqCst).saturating_sub(1)
    }
}

struct InFlightGuard(Arc<AtomicUsize>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A research request the proxy forwarded, to be saved as a turn.
pub struct TurnToRecord {
    pub provider: Provider,
    pub endpoint: &'static Endpoint,
    /// The upstream base URL it went to.
    pub upstream: String,
    pub asked: Asked,
    /// The request without credentials ([`super::headers::saved_request`]).
    pub request: Value,
    /// The client's key, masked in everything saved.
    pub key: Secret,
    /// The upstream's status: an error status makes a failed turn.
    pub status: u16,
    /// When the request went upstream (the turn's arrival times count from it).
    pub sent: std::time::Instant,
}

/// How long a follow-up waits for the turn it continues to be saved.
const FOLLOW_UP_WAIT: Duration = Duration::from_secs(3);

/// How much of an error body is read for the turn's reason.
const ERROR_BODY_LIMIT: usize = 16 * 1024;

/// Save one proxied turn from the chunks `rx` brings, reporting any failure on stderr. Blocking:
/// run it where file I/O may wait (`spawn_blocking`).
pub fn record(
    store: &SessionStore,
    in_flight: &InFlight,
    turn: TurnToRecord,
    mut rx: UnboundedReceiver<Tee>,
) {
    let _in_flight = in_flight.enter();
    let name = turn.provider.as_str();
    let (mut saved_turn, sink) = match begin(store, in_flight, &turn) {
        Ok(begun) => begun,
        Err(e) => {
            report(format_args!("not recording this {name} request: {e}"));
            return;
        }
    };
    if let Ok(mut sink) = sink.lock() {
        sink.request_sent(turn.sent);
    }
    let mut reader = Reader::new(&turn, sink);
    if let Some(path) = saved_turn.resumed_stream() {
        // A paused turn goes on: what it streamed so far is decoded first (not written again).
        if let Ok(bytes) = std::fs::read(path) {
            reader.decode_only(&bytes);
        }
    }
    let end = loop {
        match rx.blocking_recv() {
            Some(Tee::Chunk(chunk, arrived)) => {
                if let Ok(mut sink) = reader.sink.lock() {
                    sink.chunk_arrived(arrived);
                }
                reader.feed(&chunk);
                if let Err(e) = saved_turn.progress(&reader.session) {
                    reader.note_failure(format!("its ids could not be saved: {e}"));
                }
            }
            Some(Tee::End(Ok(()))) => break StreamEnd::Closed,
            Some(Tee::End(Err(reason))) => break StreamEnd::Cut { reason },
            None => {
                break StreamEnd::Cut {
                    reason: "the client closed the connection before the stream ended".into(),
                };
            }
        }
    };
    let end = reader.finish(end, turn.status);
    finish(saved_turn, &reader, &end, name);
}

/// The session this turn continues (or a new one), with the turn begun in it.
fn begin(
    store: &SessionStore,
    in_flight: &InFlight,
    turn: &TurnToRecord,
) -> std::io::Result<(SavedTurn, RawSink)> {
    let spec = turn.provider.spec();
    if let Some((mut saved, index)) = paused_turn(store, in_flight, turn) {
        let writer = saved.resume_turn(index)?;
        return Ok(SavedTurn::new(saved, writer));
    }
    let mut saved = match continued_session(store, in_flight, turn) {
        Some(saved) => saved,
        None => store.create(turn.endpoint.name, spec.name, &turn.upstream)?,
    };
    let options = merged(&saved.meta.options, &turn.asked.options);
    saved.set_options(options)?;
    let ask = &turn.asked.ask;
    // Only Bigdata.com names the checkpoint a turn resumes; the others' ids just chain turns.
    let from_checkpoint = ask
        .checkpoint_id
        .as_deref()
        .filter(|_| spec.follow_up == FollowUp::ChatOrCheckpoint);
    let writer =
        saved.begin_recorded_turn(&ask.question, from_checkpoint, Some(turn.request.clone()))?;
    Ok(SavedTurn::new(saved, writer))
}

/// What the turn sends again, over what the session kept.
fn merged(kept: &ProviderOptions, sent: &ProviderOptions) -> ProviderOptions {
    ProviderOptions {
        model: sent.model.clone().or_else(|| kept.model.clone()),
        tenant: sent.tenant.clone().or_else(|| kept.tenant.clone()),
        agent: sent.agent.clone().or_else(|| kept.agent.clone()),
        charts: sent.charts || kept.charts,
        thinking: sent.thinking.or(kept.thinking),
    }
}

/// The saved session a follow-up continues, by the ids its request names or the earlier turns it
/// carries; waits a moment for turns still being saved when it is not found at once.
fn continued_session(
    store: &SessionStore,
    in_flight: &InFlight,
    turn: &TurnToRecord,
) -> Option<SavedSession> {
    let ask = &turn.asked.ask;
    if ask.chat_id.is_none() && ask.checkpoint_id.is_none() && ask.history.is_empty() {
        return None;
    }
    let deadline = std::time::Instant::now() + FOLLOW_UP_WAIT;
    loop {
        let found = store
            .find(ask.checkpoint_id.as_deref(), ask.chat_id.as_deref())
            .filter(|saved| saved.meta.provider == turn.provider.as_str())
            .or_else(|| session_with_history(store, turn));
        if found.is_some() || in_flight.others() == 0 || std::time::Instant::now() >= deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// For a request that continues a paused turn ([`Ask::paused`]): the session whose last turn it is
/// (the same question after the same earlier ones) and that turn's index, once that turn's own
/// recording has ended (the client may ask to continue before the proxy has saved the pause).
fn paused_turn(
    store: &SessionStore,
    in_flight: &InFlight,
    turn: &TurnToRecord,
) -> Option<(SavedSession, usize)> {
    let ask = &turn.asked.ask;
    if ask.paused.is_empty() {
        return None;
    }
    let deadline = std::time::Instant::now() + FOLLOW_UP_WAIT;
    loop {
        let found = store.list().into_iter().find(|meta| {
            meta.provider == turn.provider.as_str()
                && meta.turns.len() == ask.history.len() + 1
                // The paused turn's own recorder has saved its end: its file is whole.
                && meta.turns.last().is_some_and(|t| {
                    t.question == ask.question && t.status != TurnStatus::Streaming
                })
                && meta
                    .turns
                    .iter()
                    .zip(&ask.history)
                    .all(|(saved, (question, _))| saved.question == *question)
        });
        // … and let go of the turn's lock, which the continuation takes.
        let ready = found
            .and_then(|meta| store.load(&meta.id).ok())
            .filter(|saved| {
                saved
                    .meta
                    .turns
                    .last()
                    .is_some_and(|t| !saved.writer_alive(t))
            });
        if let Some(saved) = ready {
            let index = saved.meta.turns.len() - 1;
            return Some((saved, index));
        }
        if in_flight.others() == 0 || std::time::Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// The newest session of this provider whose turns asked exactly the questions the request
/// carries as its earlier turns (Perplexity keeps nothing on the server: its history is the key).
fn session_with_history(store: &SessionStore, turn: &TurnToRecord) -> Option<SavedSession> {
    let history = &turn.asked.ask.history;
    if history.is_empty() {
        return None;
    }
    let meta = store.list().into_iter().find(|meta| {
        meta.provider == turn.provider.as_str()
            && meta.turns.len() == history.len()
            && meta
                .turns
                .iter()
                .zip(history)
                .all(|(saved, (question, _))| saved.question == *question)
    })?;
    store.load(&meta.id).ok()
}

/// Reads the teed chunks into the turn: the raw file (the key masked), the decoded session, and
/// what went wrong while recording.
struct Reader {
    sink: RawSink,
    key: Secret,
    redactor: StreamRedactor,
    pipeline: EventPipeline,
    session: Session,
    /// The body of an error response (read for its message, not saved as a stream).
    error_body: Option<Vec<u8>>,
    /// Why the turn could not be recorded in full (beyond a failure to write its file).
    failure: Option<String>,
    /// The dialect panicked: the rest of the stream is saved but not decoded.
    undecodable: bool,
    /// Answers longer than this (`--max-answer-mib`) are not saved past it.
    max_answer: usize,
    /// Bytes since the last line break: a line past the decoder's limit is not saved past it.
    line: usize,
    /// The turn passed a limit: nothing more is saved or decoded (the client still gets it all).
    stopped: bool,
}

impl Reader {
    fn new(turn: &TurnToRecord, sink: RawSink) -> Self {
        let failed = !(200..300).contains(&turn.status);
        Self {
            sink,
            key: turn.key.clone(),
            redactor: StreamRedactor::new(turn.key.clone()),
            pipeline: EventPipeline::new(turn.provider),
            session: Session::new(),
            error_body: failed.then(Vec::new),
            failure: None,
            undecodable: false,
            max_answer: crate::agent::turn::max_answer_bytes(),
            line: 0,
            stopped: false,
        }
    }

    /// Stop saving once the answer or a line passes its limit, saying why in the turn.
    fn check_limits(&mut self, bytes: &[u8]) {
        self.line = match memchr::memrchr(b'\n', bytes) {
            Some(at) => bytes.len() - at - 1,
            None => self.line + bytes.len(),
        };
        let why = if self.session.answer.len() > self.max_answer {
            crate::agent::turn::answer_limit_reason(self.max_answer)
        } else if self.line > crate::wire::sse::DEFAULT_LIMIT {
            format!(
                "a line passed {} MiB, the longest the decoder reads",
                crate::wire::sse::DEFAULT_LIMIT >> 20
            )
        } else {
            return;
        };
        self.stopped = true;
        self.note_failure(why);
    }

    fn note_failure(&mut self, why: String) {
        self.failure.get_or_insert(why);
    }

    /// Decode bytes already saved (a paused turn's stream so far) without saving them again.
    fn decode_only(&mut self, bytes: &[u8]) {
        let mut events = Vec::new();
        let decoded = catch_unwind(AssertUnwindSafe(|| {
            let _ = self.pipeline.feed(bytes, &mut events);
            events
        }));
        match decoded {
            Ok(events) => self.session.apply_all(events),
            Err(_) => self.undecodable = true,
        }
    }

    fn feed(&mut self, chunk: &[u8]) {
        if let Some(body) = &mut self.error_body {
            let room = ERROR_BODY_LIMIT.saturating_sub(body.len());
            body.extend_from_slice(&chunk[..room.min(chunk.len())]);
            return;
        }
        if self.stopped {
            return;
        }
        let bytes = self.redactor.feed(chunk).into_owned();
        self.save_and_decode(&bytes, |pipeline, bytes, out| {
            let _ = pipeline.feed(bytes, out);
        });
        self.check_limits(&bytes);
    }

    /// Write `bytes` to the turn file (a failure is kept by the file and ends the turn cut), then
    /// decode them with `decode` unless the dialect already failed.
    fn save_and_decode(
        &mut self,
        bytes: &[u8],
        decode: impl FnOnce(&mut EventPipeline, &[u8], &mut Vec<crate::model::event::AgentEvent>),
    ) {
        if !bytes.is_empty()
            && let Ok(mut sink) = self.sink.lock()
        {
            let _ = sink.write_all(bytes).and_then(|()| sink.flush());
        }
        if self.undecodable {
            return;
        }
        let pipeline = &mut self.pipeline;
        let decoded = catch_unwind(AssertUnwindSafe(|| {
            let mut events = Vec::new();
            decode(pipeline, bytes, &mut events);
            events
        }));
        match decoded {
            Ok(events) => self.session.apply_all(events),
            Err(_) => {
                self.undecodable = true;
                self.note_failure("the stream could not be decoded (a bug in its dialect)".into());
            }
        }
    }

    /// The end of the stream: what the redactor held back, the dialect's last events, and how the
    /// turn ended (an error status's message for a failed turn).
    fn finish(&mut self, end: StreamEnd, status: u16) -> StreamEnd {
        if let Some(body) = &self.error_body {
            // Not through the redactor: masked here, on one line of at most 300 characters.
            let message = ErrorBody::summary(body).unwrap_or_else(|| "no details".into());
            let masked = self.key.redact_message(&message);
            let message = sanitize_line(&masked).chars().take(300).collect();
            return StreamEnd::Http { status, message };
        }
        if self.stopped {
            return end;
        }
        let held = self.redactor.finish();
        let clean = end == StreamEnd::Closed;
        self.save_and_decode(&held, |pipeline, bytes, out| {
            let _ = pipeline.feed(bytes, out);
            let _ = if clean {
                pipeline.finish(out)
            } else {
                pipeline.finish_cut(out)
            };
        });
        end
    }
}

/// Save how the turn ended and what the status alone does not say; report it on stderr.
fn finish(mut saved_turn: SavedTurn, reader: &Reader, end: &StreamEnd, name: &str) {
    let index = saved_turn.index;
    let id = saved_turn.saved.meta.id.clone();
    let explained = match (end, &reader.failure) {
        (_, Some(why)) => {
            report(format_args!("turn {} of session {id}: {why}", index + 1));
            let reason = format!("not recorded in full: {why}");
            Some((TurnStatus::Incomplete, reason))
        }
        (StreamEnd::Http { .. }, None) => Some((TurnStatus::HttpError, end.describe())),
        // Why it was cut (the upstream broke off, the client left), unless it completed anyway.
        (StreamEnd::Cut { .. }, None)
            if TurnStatus::of(&reader.session, end) == TurnStatus::Cut =>
        {
            Some((TurnStatus::Cut, end.describe()))
        }
        _ => None,
    };
    if let Err(e) = saved_turn.end_explained(&reader.session, end, explained) {
        report(format_args!("turn {} of session {id}: {e}", index + 1));
    }
    let status = saved_turn
        .saved
        .meta
        .turns
        .get(index)
        .map_or("?", |t| t.status.as_str());
    report(format_args!(
        "saved {name} turn {} of session {id}: {status}",
        index + 1
    ));
}

/// One line on the proxy's stderr.
fn report(message: std::fmt::Arguments<'_>) {
    eprintln!(
        "research-tui proxy: {}",
        sanitize_line(&message.to_string())
    );
}
