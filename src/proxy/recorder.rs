//! Recording, off the response path: [`Teed`] passes each chunk of an upstream body on unchanged
//! and hands a copy (a reference-counted `Bytes`, no copy of the data) to the recorder through a
//! channel that never blocks or fails the response and holds at most [`MAX_QUEUED_BYTES`]: a
//! recorder that falls that far behind (a stalled disk) is told the recording is cut, and the
//! client still gets every byte. A blocking task ([`record`]) takes the chunks in batches, writes
//! each batch to the saved turn's raw file and decodes it once with the provider's pipeline, for
//! the ids and status the session's meta keeps and the turn's summary (built in that same pass;
//! the answer's text is counted, not kept, so memory stays flat however long the answer).
//!
//! Whatever goes wrong here (a store that cannot be written, a full disk, a dialect that panics)
//! is said on stderr and in the turn's meta; the client's response never learns of it.

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
use crate::model::stream_end::StreamEnd;
use crate::render::sanitize::sanitize_line;
use crate::wire::provider::asked::Asked;
use crate::wire::provider::request::Endpoint;
use crate::wire::provider::spec::FollowUp;
use crate::wire::provider::{Provider, ProviderOptions};
use crate::wire::redact::Secret;

use super::reader::Reader;

/// What the response side tells the recorder.
pub enum Tee {
    /// Bytes as they reached the client.
    Chunk(Bytes),
    /// The upstream body ended: cleanly, or broken off (why).
    End(Result<(), String>),
    /// The recorder fell [`MAX_QUEUED_BYTES`] behind: nothing more is sent to it.
    Behind,
}

/// The most bytes waiting for the recorder: past it the recording is cut rather than the response
/// slowed or memory grown.
pub const MAX_QUEUED_BYTES: usize = 32 << 20;

/// The response side of the channel to the recorder.
pub struct TeeSender {
    tx: UnboundedSender<Tee>,
    queued: Arc<AtomicUsize>,
    limit: usize,
    /// When the first chunk arrived from upstream (the turn's first byte; the recorder may take
    /// it later, once its session is ready).
    first_chunk: Arc<std::sync::OnceLock<std::time::Instant>>,
}

/// The recorder's side: the chunks, and the count of bytes waiting that it gives back.
pub struct TeeReceiver {
    rx: UnboundedReceiver<Tee>,
    queued: Arc<AtomicUsize>,
    /// Chunks taken so far.
    chunks: usize,
    first_chunk: Arc<std::sync::OnceLock<std::time::Instant>>,
}

/// A channel to the recorder holding at most `limit` bytes of chunks.
pub fn tee_channel(limit: usize) -> (TeeSender, TeeReceiver) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let queued = Arc::new(AtomicUsize::new(0));
    let first_chunk = Arc::new(std::sync::OnceLock::new());
    let sender = TeeSender {
        tx,
        queued: queued.clone(),
        limit,
        first_chunk: first_chunk.clone(),
    };
    let receiver = TeeReceiver {
        rx,
        queued,
        chunks: 0,
        first_chunk,
    };
    (sender, receiver)
}

impl TeeReceiver {
    /// The next message, waiting for it; `None` once the response side is gone.
    fn blocking_recv(&mut self) -> Option<Tee> {
        let tee = self.rx.blocking_recv();
        self.taken(tee.as_ref());
        tee
    }

    /// A message already waiting.
    fn try_recv(&mut self) -> Option<Tee> {
        let tee = self.rx.try_recv().ok();
        self.taken(tee.as_ref());
        tee
    }

    fn taken(&mut self, tee: Option<&Tee>) {
        if let Some(Tee::Chunk(chunk)) = tee {
            self.chunks += 1;
            self.queued.fetch_sub(chunk.len(), Ordering::Relaxed);
        }
    }
}

/// An upstream body, passed on chunk by chunk as it arrives, each chunk also sent to the recorder.
/// Dropped before its end (the client went away), it sends nothing more: the recorder reads the
/// closed channel as the client leaving.
pub struct Teed<S> {
    inner: S,
    tx: Option<TeeSender>,
}

impl<S> Teed<S> {
    pub fn new(inner: S, tx: TeeSender) -> Self {
        Self {
            inner,
            tx: Some(tx),
        }
    }
}

impl TeeSender {
    /// Hand `tee` to the recorder, never waiting: a chunk that would take the queue past its
    /// limit is dropped and the recorder told it fell behind. `false` once nothing more is sent.
    fn send(&self, tee: Tee) -> bool {
        if let Tee::Chunk(chunk) = &tee {
            self.first_chunk.get_or_init(std::time::Instant::now);
            let queued = self.queued.fetch_add(chunk.len(), Ordering::Relaxed) + chunk.len();
            if queued > self.limit {
                self.queued.fetch_sub(chunk.len(), Ordering::Relaxed);
                let _ = self.tx.send(Tee::Behind);
                return false;
            }
        }
        let chunk = matches!(tee, Tee::Chunk(_));
        // The recorder may have given up: the response goes on regardless.
        let _ = self.tx.send(tee);
        chunk
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
            Some(Ok(chunk)) => Tee::Chunk(chunk.clone()),
            Some(Err(e)) => Tee::End(Err(error_chain(e))),
            None => Tee::End(Ok(())),
        };
        if let Some(tx) = &self.tx
            && !tx.send(tee)
        {
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

/// Save one proxied turn from the chunks `rx` brings, reporting any failure on stderr. Blocking:
/// run it where file I/O may wait (`spawn_blocking`). Where it was saved: its session's folder and
/// its place there.
pub fn record(
    store: &SessionStore,
    in_flight: &InFlight,
    turn: TurnToRecord,
    mut rx: TeeReceiver,
) -> Option<(std::path::PathBuf, usize)> {
    let _in_flight = in_flight.enter();
    let name = turn.provider.as_str();
    let (mut saved_turn, sink) = match begin(store, in_flight, &turn) {
        Ok(begun) => begun,
        Err(e) => {
            report(format_args!("not recording this {name} request: {e}"));
            return None;
        }
    };
    let path = (saved_turn.saved.meta.turns.get(saved_turn.index))
        .and_then(|meta| saved_turn.saved.stream_path(meta));
    if let Ok(mut sink) = sink.lock() {
        sink.request_sent(turn.sent);
    }
    let timed = sink.clone();
    let mut reader = Reader::new(&turn, sink, path);
    if let Some(path) = saved_turn.resumed_stream() {
        // A paused turn goes on: what it streamed so far is decoded first (not written again).
        if let Ok(bytes) = std::fs::read(path) {
            reader.decode_only(&bytes);
        }
    }
    let mut batch = Batch::default();
    let mut first_timed = false;
    let mut last_message = std::time::Instant::now();
    let mut flooding = false;
    let end = loop {
        let next = next_message(&mut rx, &mut reader, last_message, flooding);
        last_message = std::time::Instant::now();
        let room = reader.batch_room();
        let taken = rx.chunks;
        let (tee, more) = gather(&mut rx, next, &mut batch, room);
        // More than one chunk waited (or a large one): bytes come faster than one at a time.
        flooding = rx.chunks - taken > 1 || batch.len >= FLOOD_CHUNK;
        if let Some(&first) = rx.first_chunk.get()
            && !first_timed
        {
            // The first bytes may have waited for the session: timed when they arrived.
            first_timed = true;
            if let Ok(mut sink) = timed.lock() {
                sink.chunk_arrived(first);
            }
        }
        if batch.len > 0 {
            // A flood, or a queue filling up: the batch may be only saved, and decoded later.
            let queued = rx.queued.load(Ordering::Relaxed);
            reader.feed_batch(&batch.chunks, flooding || queued > MAX_QUEUED_BYTES / 4);
            batch.clear();
            if let Err(e) = saved_turn.progress(&reader.session) {
                reader.note_failure(format!("its ids could not be saved: {e}"));
            }
        }
        match tee {
            _ if more => {}
            Some(Tee::End(Ok(()))) => break StreamEnd::Closed,
            Some(Tee::End(Err(reason))) => break StreamEnd::Cut { reason },
            Some(Tee::Behind) => {
                let why = format!(
                    "recording cut: the recorder fell {} MiB behind the stream",
                    MAX_QUEUED_BYTES >> 20
                );
                reader.note_failure(why.clone());
                break StreamEnd::Cut { reason: why };
            }
            Some(Tee::Chunk(_)) | None => {
                break StreamEnd::Cut {
                    reason: "the client closed the connection before the stream ended".into(),
                };
            }
        }
    };
    let end = reader.finish(end, turn.status);
    if let Some(summary) = reader.summary(&saved_turn) {
        saved_turn.summarised(summary);
    }
    let saved_as = (saved_turn.saved.dir().to_path_buf(), saved_turn.index);
    finish(saved_turn, &reader, &end, name);
    Some(saved_as)
}

/// How long a lagging recorder waits for more of a stream before it decodes its backlog.
const FLOOD_PAUSE: Duration = Duration::from_millis(1);

/// A chunk this large taken alone still says the stream is flooding.
const FLOOD_CHUNK: usize = 64 << 10;
/// How many [`FLOOD_PAUSE`]s a flooding recorder naps before it waits to be woken.
const FLOOD_NAPS: usize = 3;

/// The recorder's next message, waited for. While decoding lags behind, what waits is taken first,
/// else one block of the backlog is decoded — once the stream pauses (nothing came for
/// [`FLOOD_PAUSE`]), so decoding does not take the CPU from the response while a flood pours in:
/// its bytes are saved as they come, and decoding them waits in the turn file.
/// While `flooding`, it naps a few [`FLOOD_PAUSE`]s rather than waiting on the channel: a waiting
/// recorder is woken for every chunk (system calls and a switch each), a napping one never.
fn next_message(
    rx: &mut TeeReceiver,
    reader: &mut Reader,
    last_message: std::time::Instant,
    flooding: bool,
) -> Option<Tee> {
    while reader.lagging() {
        if let Some(tee) = rx.try_recv() {
            return Some(tee);
        }
        if last_message.elapsed() < FLOOD_PAUSE {
            std::thread::sleep(FLOOD_PAUSE);
        } else {
            reader.catch_up(true);
        }
    }
    if flooding {
        for _ in 0..FLOOD_NAPS {
            if let Some(tee) = rx.try_recv() {
                return Some(tee);
            }
            std::thread::sleep(FLOOD_PAUSE);
        }
    }
    rx.blocking_recv()
}

/// The chunks of one batch, as they came (not copied together).
#[derive(Default)]
struct Batch {
    chunks: Vec<Bytes>,
    len: usize,
}

impl Batch {
    fn push(&mut self, chunk: Bytes) {
        self.len += chunk.len();
        self.chunks.push(chunk);
    }

    fn clear(&mut self) {
        self.chunks.clear();
        self.len = 0;
    }

    /// Its bytes, one after another.
    #[cfg(test)]
    fn concat(&self) -> Vec<u8> {
        self.chunks.concat()
    }
}

/// `first` and the chunks already waiting after it, until they reach `room` bytes, added to
/// `batch`: the message that ended the gathering (not a chunk), or `true` when the
/// batch is full and more may follow.
fn gather(
    rx: &mut TeeReceiver,
    first: Option<Tee>,
    batch: &mut Batch,
    room: usize,
) -> (Option<Tee>, bool) {
    let mut next = first;
    loop {
        match next {
            Some(Tee::Chunk(chunk)) => {
                batch.push(chunk);
                if batch.len >= room {
                    return (None, true);
                }
            }
            other => return (other, false),
        }
        next = match rx.try_recv() {
            Some(tee) => Some(tee),
            // Nothing waiting: this batch goes now, the loop waits for the next message.
            None => return (None, true),
        };
    }
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
    let ask = &turn.asked.ask;
    // Only Bigdata.com names the checkpoint a turn resumes; the others' ids just chain turns.
    let from_checkpoint = ask
        .checkpoint_id
        .as_deref()
        .filter(|_| spec.follow_up == FollowUp::ChatOrCheckpoint);
    // Begun first: when a stopped writer holds the session, the turn goes to a branch of it.
    let writer =
        saved.begin_recorded_turn(&ask.question, from_checkpoint, Some(turn.request.clone()))?;
    if let Some(diverted) = saved.take_diverted() {
        report(format_args!("{diverted}"));
    }
    let options = merged(&saved.meta.options, &turn.asked.options);
    // The turn is begun: a failure to keep the options must not leave it unwritten.
    if let Err(e) = saved.set_options(options) {
        report(format_args!(
            "the session's options could not be saved: {e}"
        ));
    }
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

#[cfg(test)]
mod tests {
    use super::super::reader::BATCH_BYTES;
    use super::*;
    use futures::StreamExt;

    #[tokio::test]
    async fn a_recorder_that_falls_behind_is_told_so_and_the_client_still_gets_every_byte() {
        let chunks: Vec<reqwest::Result<Bytes>> =
            (0..10u8).map(|i| Ok(Bytes::from(vec![i; 1024]))).collect();
        let (tx, mut rx) = tee_channel(4096);
        let teed = Teed::new(futures::stream::iter(chunks), tx);
        // Nobody reads the recorder's side while the response streams.
        let passed: Vec<Bytes> = teed.map(|chunk| chunk.unwrap()).collect().await;
        assert_eq!(passed.len(), 10);
        assert!(
            passed
                .iter()
                .enumerate()
                .all(|(i, c)| c[..] == [i as u8; 1024])
        );
        let mut queued = Vec::new();
        while let Some(tee) = rx.try_recv() {
            queued.push(match tee {
                Tee::Chunk(chunk) => format!("chunk {}", chunk[0]),
                Tee::End(_) => "end".into(),
                Tee::Behind => "behind".into(),
            });
        }
        assert_eq!(
            queued,
            ["chunk 0", "chunk 1", "chunk 2", "chunk 3", "behind"]
        );
        assert_eq!(rx.queued.load(Ordering::Relaxed), 0);
    }

    #[tokio::test]
    async fn chunks_waiting_are_gathered_into_one_batch_up_to_its_size() {
        let (tx, mut rx) = tee_channel(usize::MAX);
        for part in [&b"data: 1\n"[..], b"\n", b"data: 2\n\n"] {
            assert!(tx.send(Tee::Chunk(Bytes::copy_from_slice(part))));
        }
        assert!(!tx.send(Tee::End(Ok(()))));
        let mut batch = Batch::default();
        let first = rx.try_recv();
        let (tee, more) = gather(&mut rx, first, &mut batch, BATCH_BYTES);
        assert_eq!(batch.concat(), b"data: 1\n\ndata: 2\n\n");
        assert!(matches!(tee, Some(Tee::End(Ok(())))) && !more);
    }
}
