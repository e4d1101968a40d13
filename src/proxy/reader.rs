//! The recorder's reader: the teed chunks into the turn — the raw file (the key masked), the
//! decoded session and the turn's summary, built in one decoding pass — and what went wrong while
//! recording. Bytes are written as they come; decoding may fall behind (a dialect slower than the
//! wire, a debug build): then the file itself is the backlog, read back and decoded when the
//! recorder catches up or at the end, so memory stays flat and the recording whole.

use std::borrow::Cow;
use std::io::{IoSlice, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use axum::body::Bytes;

use crate::agent::client::RawSink;
use crate::local::store::SavedTurn;
use crate::local::summary::{TurnDigest, TurnSummary};
use crate::model::event::AgentEvent;
use crate::model::session::Session;
use crate::model::stream_end::StreamEnd;
use crate::render::sanitize::sanitize_line;
use crate::wire::provider::error_body::ErrorBody;
use crate::wire::provider::{EventPipeline, EventSink, SkimmedAnswer};
use crate::wire::redact::{Secret, StreamRedactor};

use super::recorder::TurnToRecord;

/// How much of an error body is read for the turn's reason.
const ERROR_BODY_LIMIT: usize = 16 * 1024;

/// How much of a lagging turn file is read back at once while the stream goes on.
const READ_BACK: usize = 256 << 10;
/// … and once it ended (or decoding must catch up): fewer reads.
const READ_BACK_ALL: usize = 1 << 20;

/// How many bytes one batch gathers before it is written and decoded.
pub(super) const BATCH_BYTES: usize = 1 << 20;

/// The most chunks a batch written without copying them together has ([`Reader::feed_batch`]):
/// a flood's chunks are large; many small ones are cheaper copied than written one by one.
const UNCOPIED_CHUNKS: usize = 64;
/// … unless they are this large on average: then up to [`UNCOPIED_LARGE_CHUNKS`] are (hyper hands
/// a body that ends with its connection on in 8 KiB pieces, so a 1 MiB batch has 128 of them, and
/// copying them together was a twentieth of the proxy's CPU on a flood).
const LARGE_CHUNK: usize = 4 << 10;
/// The most large chunks a batch written without copying them together has.
const UNCOPIED_LARGE_CHUNKS: usize = 1024;

/// The most bytes saved and not yet decoded: past it what waits is decoded at once, a few ms of the
/// recorder's time, so a long flood never leaves tens of MiB to decode in one go while the queue
/// behind the recorder fills.
const MOST_DEFERRED: usize = 8 << 20;

/// A batch's size while the conversation's ids are still to come ([`Reader::batch_room`]).
const FIRST_BATCH_BYTES: usize = 64 << 10;

/// Reads the teed chunks into the turn: the raw file (the key masked), the decoded session, and
/// what went wrong while recording.
pub(super) struct Reader {
    sink: RawSink,
    key: Secret,
    redactor: StreamRedactor,
    pipeline: EventPipeline,
    pub(super) session: Session,
    /// The body of an error response (read for its message, not saved as a stream).
    error_body: Option<Vec<u8>>,
    /// Why the turn could not be recorded in full (beyond a failure to write its file).
    pub(super) failure: Option<String>,
    /// The dialect panicked: the rest of the stream is saved but not decoded.
    undecodable: bool,
    /// Answers longer than this (`--max-answer-mib`) are not saved past it.
    max_answer: usize,
    /// Bytes since the last line break: a line past the decoder's limit is not saved past it.
    line: usize,
    /// The turn passed a limit: nothing more is saved or decoded (the client still gets it all).
    stopped: bool,
    /// The turn's summary, built from the events as they are decoded.
    digest: TurnDigest,
    /// The turn file, read back when decoding fell behind.
    path: Option<PathBuf>,
    /// The events of one batch, kept between batches (its capacity: no regrowing per batch).
    events: Vec<AgentEvent>,
    /// Decoding fell behind: the file's bytes from here on are not decoded yet.
    lag_from: Option<u64>,
    /// Bytes saved since decoding fell behind (at most what the answer may still grow by).
    undecoded: usize,
    /// The block a lagging turn file is read back into (kept: no allocation per block).
    read_back: Vec<u8>,
    /// The turn file opened to be read back.
    read_from: Option<std::fs::File>,
    /// A batch's chunks joined, to be decoded whole (kept: no allocation per batch).
    joined: Vec<u8>,
    /// Bytes taken so far.
    fed: usize,
    /// A write to the turn file failed (the disk, or the file's cap): nothing is deferred after it.
    save_failed: bool,
    /// Batches written as their chunks (the tests check that path is taken).
    #[cfg(test)]
    uncopied_batches: usize,
}

impl Reader {
    pub(super) fn new(turn: &TurnToRecord, sink: RawSink, path: Option<PathBuf>) -> Self {
        let failed = !(200..300).contains(&turn.status);
        let mut session = Session::new();
        // Counted, not kept: the digest keeps the answer's start, the file keeps the rest.
        session.answer.stop_keeping_text();
        Self {
            sink,
            key: turn.key.clone(),
            redactor: StreamRedactor::new(turn.key.clone()),
            // The answer's chunks read by the dialect's skim where it has one: the same events.
            pipeline: EventPipeline::new(turn.provider).skimming(),
            session,
            error_body: failed.then(Vec::new),
            failure: None,
            undecodable: false,
            save_failed: false,
            max_answer: crate::agent::turn::max_answer_bytes(),
            line: 0,
            stopped: false,
            digest: TurnDigest::default(),
            path,
            lag_from: None,
            undecoded: 0,
            read_back: Vec::new(),
            read_from: None,
            joined: Vec::new(),
            events: Vec::new(),
            fed: 0,
            #[cfg(test)]
            uncopied_batches: 0,
        }
    }

    /// The turn's summary from the one decoding pass, when that pass saw the whole turn file.
    pub(super) fn summary(&self, saved_turn: &SavedTurn) -> Option<TurnSummary> {
        if self.undecodable || self.error_body.is_some() {
            return None;
        }
        let turn = saved_turn.saved.meta.turns.get(saved_turn.index)?;
        let bytes = std::fs::metadata(saved_turn.saved.stream_path(turn)?)
            .ok()?
            .len();
        Some(self.digest.summary(&self.session, &turn.stream_file, bytes))
    }

    /// Stop saving once the answer or a line passes its limit, saying why in the turn.
    fn check_limits(&mut self, bytes: &[u8]) {
        let too_long = self.passes_line_limit(bytes);
        let why = if self.session.answer.len() > self.max_answer {
            crate::agent::turn::answer_limit_reason(self.max_answer)
        } else if too_long {
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

    /// Whether a line passes the decoder's limit in `bytes` (the line before them carried on):
    /// every line, whether it ends in `bytes` or goes on past them, so where the stream is cut into
    /// chunks and batches never changes the verdict (a line just past the limit that ended inside a
    /// batch was caught when the batch was judged chunk by chunk and missed when judged whole).
    /// A line ends at `\n` or a bare `\r`, as the decoder reads them (a stream of `\r` line ends
    /// counted as one line was cut after 16 MiB "for a line too long").
    fn passes_line_limit(&mut self, bytes: &[u8]) -> bool {
        let limit = crate::wire::sse::DEFAULT_LIMIT;
        if self.line.saturating_add(bytes.len()) <= limit {
            // No line can pass the limit here: only where the last one starts is looked for.
            self.line = match memchr::memrchr2(b'\n', b'\r', bytes) {
                Some(at) => bytes.len() - at - 1,
                None => self.line + bytes.len(),
            };
            return false;
        }
        let mut passed = false;
        let mut at = 0;
        for end in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            passed |= self.line + (end - at) > limit;
            self.line = 0;
            at = end + 1;
        }
        self.line += bytes.len() - at;
        passed || self.line > limit
    }

    /// Raw bytes that can be saved before the answer could pass `--max-answer-mib`: a JSON string
    /// is never shorter than the text it carries, so a batch this long cannot take the answer past
    /// the limit unnoticed (the recorder's batches shrink to one chunk near it).
    /// Once saving stopped, there is no limit left to watch.
    /// Bytes saved but not decoded yet count as answer already: decoded, they could carry that much.
    pub(super) fn answer_room(&self) -> usize {
        if self.stopped {
            return usize::MAX;
        }
        self.max_answer
            .saturating_sub(self.session.answer.len())
            .saturating_sub(self.undecoded)
    }

    /// How many bytes the next batch may gather: [`BATCH_BYTES`], less near the answer's limit
    /// ([`Reader::answer_room`]), and [`FIRST_BATCH_BYTES`] while the conversation's ids are not
    /// known in the stream's first MiB — the batch that brings them is followed by a save of the
    /// session's meta, whose summary decodes the turn file so far again, so that file is kept short.
    pub(super) fn batch_room(&self) -> usize {
        let batch = if self.ids_pending() {
            FIRST_BATCH_BYTES
        } else {
            BATCH_BYTES
        };
        batch.min(self.answer_room())
    }

    /// The conversation's ids are not known yet, in the stream's first MiB.
    fn ids_pending(&self) -> bool {
        let ids = &self.session.ids;
        ids.chat_id.is_none() && ids.execution_id.is_none() && self.fed < BATCH_BYTES
    }

    /// Whether `len` more bytes may be saved without decoding them now: once the ids are known
    /// (they are saved as soon as they arrive), and only while the bytes waiting to be decoded could
    /// not take the answer past `--max-answer-mib` (a JSON string is never shorter than its text),
    /// so the limit is noticed before a byte past it is saved, as when every batch is decoded.
    fn may_defer(&self, len: usize) -> bool {
        let room = self.max_answer.saturating_sub(self.session.answer.len());
        !self.undecodable
            && !self.save_failed
            && self.path.is_some()
            && !self.ids_pending()
            && self.undecoded.saturating_add(len) <= room.min(MOST_DEFERRED)
    }

    pub(super) fn note_failure(&mut self, why: String) {
        self.failure.get_or_insert(why);
    }

    /// Take one batch of chunks, as [`Reader::feed`] takes their bytes one after another. While
    /// decoding may wait and the chunks are large (a flood: no more than [`UNCOPIED_CHUNKS`] make
    /// the batch, or [`UNCOPIED_LARGE_CHUNKS`] of [`LARGE_CHUNK`] on average), they are written as
    /// they are, in one write, never copied together; else they are joined into one buffer first
    /// (the decoder reads a batch whole: no event cut in two). A batch of one chunk is that chunk.
    pub(super) fn feed_batch(&mut self, chunks: &[Bytes], defer: bool) {
        if let [chunk] = chunks {
            // Nothing to join: taken as it is.
            return self.feed(chunk, defer);
        }
        let len: usize = chunks.iter().map(Bytes::len).sum();
        let n = chunks.len();
        let uncopied =
            n > 1 && (n <= UNCOPIED_CHUNKS || n <= UNCOPIED_LARGE_CHUNKS && len >= n * LARGE_CHUNK);
        let defer = defer || self.lag_from.is_some();
        if uncopied && self.error_body.is_none() && !self.stopped && defer && self.may_defer(len) {
            if self.lag_from.is_none() {
                self.lag_from = self.file_len();
            }
            if self.lag_from.is_some() {
                self.fed = self.fed.saturating_add(len);
                let pieces: Vec<_> = chunks.iter().map(|c| self.redactor.feed(c)).collect();
                let saved = self.save_all(&pieces);
                self.undecoded += len;
                #[cfg(test)]
                {
                    self.uncopied_batches += 1;
                }
                if !saved {
                    drop(pieces);
                    self.stop_at_what_was_saved();
                    return;
                }
                pieces.iter().for_each(|piece| self.check_limits(piece));
                return;
            }
        }
        let mut joined = std::mem::take(&mut self.joined);
        joined.clear();
        chunks
            .iter()
            .for_each(|chunk| joined.extend_from_slice(chunk));
        self.feed(&joined, defer);
        self.joined = joined;
    }

    /// Decode bytes already saved (a paused turn's stream so far) without saving them again. A
    /// dialect that fails on them stops decoding, but the failure is not this recording's to note.
    pub(super) fn decode_only(&mut self, bytes: &[u8]) {
        self.decode_quietly(bytes, |pipeline, bytes, out| {
            let _ = pipeline.feed_into(bytes, out);
        });
    }

    /// Take a chunk: masked, written, and decoded — unless decoding may wait (`defer`: the stream
    /// floods in; or it already waits; [`Reader::may_defer`]): then only written, and decoded from
    /// the file later, when the stream pauses or ends, so decoding does not take the CPU from a
    /// flood still pouring in.
    fn feed(&mut self, chunk: &[u8], defer: bool) {
        self.fed = self.fed.saturating_add(chunk.len());
        if let Some(body) = &mut self.error_body {
            let room = ERROR_BODY_LIMIT.saturating_sub(body.len());
            body.extend_from_slice(&chunk[..room.min(chunk.len())]);
            return;
        }
        if self.stopped {
            return;
        }
        // Borrowed unless the key (or the start of one) had to be masked: no copy per chunk.
        let bytes = self.redactor.feed(chunk);
        // Once lagging, decoding waits for a pause (or the end) unless the answer's limit is near.
        let defer = defer || self.lag_from.is_some();
        if defer && self.may_defer(bytes.len()) {
            if self.lag_from.is_none() {
                self.lag_from = self.file_len();
            }
        } else if self.lag_from.is_some() {
            // What waits is decoded first: the answer's limit is near.
            self.catch_up(false);
        }
        if self.lag_from.is_some() {
            let saved = self.save(&bytes);
            self.undecoded += bytes.len();
            if !saved {
                drop(bytes);
                return self.stop_at_what_was_saved();
            }
        } else {
            self.save_and_decode(&bytes, |pipeline, bytes, out| {
                let _ = pipeline.feed_into(bytes, out);
            });
        }
        self.check_limits(&bytes);
    }

    fn file_len(&self) -> Option<u64> {
        Some(std::fs::metadata(self.path.as_ref()?).ok()?.len())
    }

    /// Decoding fell behind: bytes of the turn file wait to be decoded.
    pub(super) fn lagging(&self) -> bool {
        self.lag_from.is_some()
    }

    /// Decode what decoding left behind, read back from the turn file: all of it, or (`some`) one
    /// block, so the recorder goes back to its queue between blocks.
    pub(super) fn catch_up(&mut self, some: bool) {
        let lag_from = self.lag_from.take();
        let waited = std::mem::take(&mut self.undecoded);
        let Some(from) = lag_from else {
            return;
        };
        // Opened once a turn, read at offsets: no open and seek per block.
        let file = self.read_from.take().or_else(|| {
            let path = self.path.as_ref()?;
            std::fs::File::open(path).ok()
        });
        let Some(file) = file else {
            self.note_failure("the turn file could not be read back to decode it".into());
            return;
        };
        let mut block = std::mem::take(&mut self.read_back);
        block.resize(if some { READ_BACK } else { READ_BACK_ALL }, 0);
        self.decode_back(&file, from, &mut block, some, waited);
        self.read_back = block;
        self.read_from = Some(file);
    }

    /// [`Reader::catch_up`] from offset `from` of the turn file, `waited` bytes said to wait.
    fn decode_back(
        &mut self,
        file: &std::fs::File,
        from: u64,
        block: &mut [u8],
        some: bool,
        waited: usize,
    ) {
        use std::os::unix::fs::FileExt;
        let mut at = from;
        while !self.undecodable {
            let n = match file.read_at(block, at) {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            // Whole lines while more follows (read again from the last one's end): an event cut
            // between two blocks would take the decoder's slow path.
            let more = n == block.len();
            let whole = match whole_lines(&block[..n]) {
                Some(len) if more => len,
                _ => n,
            };
            self.decode(&block[..whole], |pipeline, bytes, out| {
                let _ = pipeline.feed_into(bytes, out);
            });
            at += whole as u64;
            if self.session.answer.len() > self.max_answer {
                // Decoded late, so saved past the limit: nothing more is.
                self.stopped = true;
                let why = crate::agent::turn::answer_limit_reason(self.max_answer);
                self.note_failure(why);
                return;
            }
            if some {
                // The rest waits for the next turn of the loop (nothing more is read now).
                self.lag_from = Some(at).filter(|_| more);
                if self.lag_from.is_some() {
                    self.undecoded = waited.saturating_sub((at - from) as usize);
                }
                return;
            }
        }
    }

    /// Write `bytes` to the turn file (a failure is kept by the file and ends the turn cut);
    /// whether they were written.
    fn save(&mut self, bytes: &[u8]) -> bool {
        self.save_all(&[Cow::Borrowed(bytes)])
    }

    /// Saving stopped (the disk, the file's cap) while decoding waited for the file: what the file
    /// holds is decoded and nothing after it, so the session and summary are of the saved stream,
    /// never of its start with a later piece of the stream glued on (the bytes between were neither
    /// saved nor decoded).
    fn stop_at_what_was_saved(&mut self) {
        self.catch_up(false);
        self.stopped = true;
    }

    /// Write `pieces` to the turn file one after another, in one write where the sink takes them so.
    fn save_all(&mut self, pieces: &[Cow<'_, [u8]>]) -> bool {
        let mut slices: Vec<IoSlice<'_>> = (pieces.iter())
            .filter(|piece| !piece.is_empty())
            .map(|piece| IoSlice::new(piece))
            .collect();
        if !slices.is_empty()
            && let Ok(mut sink) = self.sink.lock()
            && write_all_vectored(&mut *sink, &mut slices)
                .and_then(|()| sink.flush())
                .is_err()
        {
            self.save_failed = true;
        }
        !self.save_failed
    }

    /// Write `bytes` to the turn file, then decode them with `decode`.
    fn save_and_decode(
        &mut self,
        bytes: &[u8],
        decode: impl FnOnce(&mut EventPipeline, &[u8], &mut Applying<'_>),
    ) {
        self.save(bytes);
        self.decode(bytes, decode);
    }

    /// Decode `bytes` with `decode` unless the dialect already failed; a dialect that fails now
    /// is noted in the turn.
    fn decode(
        &mut self,
        bytes: &[u8],
        decode: impl FnOnce(&mut EventPipeline, &[u8], &mut Applying<'_>),
    ) {
        if !self.decode_quietly(bytes, decode) {
            self.note_failure("the stream could not be decoded (a bug in its dialect)".into());
        }
    }

    /// Decode `bytes` with `decode` unless the dialect already failed; `false` when it fails now.
    /// Events are taken into the session and the digest as they are decoded, so a dialect that
    /// panics leaves the session with what it decoded before (and the turn saved incomplete).
    fn decode_quietly(
        &mut self,
        bytes: &[u8],
        decode: impl FnOnce(&mut EventPipeline, &[u8], &mut Applying<'_>),
    ) -> bool {
        if self.undecodable {
            return true;
        }
        let pipeline = &mut self.pipeline;
        let mut applying = Applying {
            events: &mut self.events,
            session: &mut self.session,
            digest: &mut self.digest,
        };
        let decoded = catch_unwind(AssertUnwindSafe(|| {
            decode(pipeline, bytes, &mut applying);
            applying.flush();
        }));
        if decoded.is_err() {
            self.events.clear();
            self.undecodable = true;
        }
        decoded.is_ok()
    }

    /// The end of the stream: what the redactor held back, the dialect's last events, and how the
    /// turn ended (an error status's message for a failed turn).
    pub(super) fn finish(&mut self, end: StreamEnd, status: u16) -> StreamEnd {
        if let Some(body) = &self.error_body {
            // Not through the redactor: masked here, on one line of at most 300 characters.
            let message = ErrorBody::summary(body).unwrap_or_else(|| "no details".into());
            let masked = self.key.redact_message(&message);
            let message = sanitize_line(&masked).chars().take(300).collect();
            return StreamEnd::Http { status, message };
        }
        // What was saved and not decoded yet, even when saving stopped since.
        self.catch_up(false);
        if self.stopped {
            return end;
        }
        let held = self.redactor.finish();
        let clean = end == StreamEnd::Closed;
        self.save_and_decode(&held, |pipeline, bytes, out| {
            let _ = pipeline.feed_into(bytes, out);
            let _ = if clean {
                pipeline.finish(out.events())
            } else {
                pipeline.finish_cut(out.events())
            };
        });
        end
    }
}

/// How many of `bytes` are whole lines, when a line ends in them: up to the last `\n` or bare `\r`
/// (both end a line for the decoder), but not a `\r` that is their last byte, whose `\n` may come
/// next (a CRLF cut in two sends the decoder down its slow path for the line after it).
fn whole_lines(bytes: &[u8]) -> Option<usize> {
    let end = memchr::memrchr2(b'\n', b'\r', bytes)?;
    if bytes[end] == b'\r' && end + 1 == bytes.len() {
        // The line end before it is followed by a byte seen here: never half of a CRLF.
        return memchr::memrchr2(b'\n', b'\r', &bytes[..end]).map(|end| end + 1);
    }
    Some(end + 1)
}

/// Write all of `bufs` (what the standard library's unstable `write_all_vectored` does).
fn write_all_vectored(out: &mut dyn Write, mut bufs: &mut [IoSlice<'_>]) -> std::io::Result<()> {
    while !bufs.is_empty() {
        match out.write_vectored(bufs) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut bufs, n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The recorder's [`EventSink`]: decoded events taken into the turn's digest and session as they
/// come, and an answer chunk counted from its text as the skim read it (no event built, no copy).
pub(super) struct Applying<'r> {
    events: &'r mut Vec<AgentEvent>,
    session: &'r mut Session,
    digest: &'r mut TurnDigest,
}

impl Applying<'_> {
    /// Take the events decoded so far (the buffer is kept, empty, for the next ones).
    fn flush(&mut self) {
        for event in self.events.iter() {
            self.digest.observe(event);
        }
        self.session.apply_all(self.events.drain(..));
    }
}

impl EventSink for Applying<'_> {
    fn events(&mut self) -> &mut Vec<AgentEvent> {
        self.events
    }

    fn answer(&mut self, answer: SkimmedAnswer<'_>) {
        // After the events before it, as `Session::apply` would take its event.
        self.flush();
        let (len, chars) = (answer.text.len(), answer.text.chars());
        // The text is built only while the summary keeps the answer's start (or the answer is
        // kept whole: resent); past it, the chunk is its length.
        if !self.digest.wants_text() && self.session.apply_answer_counted(len, chars) {
            self.digest.observe_counted(len);
            return;
        }
        let text = answer.text.text();
        self.digest.observe_answer(&text);
        self.session.apply_answer_delta(&text);
    }
}

#[cfg(test)]
mod tests;
