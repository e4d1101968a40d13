//! Server-Sent Events decoding: bytes in arbitrary chunks → dispatched events.
//!
//! Follows the WHATWG "event stream interpretation" rules (one leading BOM stripped even when split,
//! CRLF/LF/CR line endings with a CR at a chunk end possibly half of a CRLF, comments, `data`/`event`/
//! `id`/`retry`, invalid UTF-8 replaced by U+FFFD). It is our own because the common crate panics on a
//! BOM, stalls on an invalid byte and loses CR-terminated events.
//!
//! On top of the standard rules, [`Framing::JsonLines`] dispatches a `data:` line at once when it is a
//! complete JSON document and no event is pending: agent servers send one `data: {json}` line per event,
//! often without the blank line a strict parser waits for.

use std::fmt;
use std::ops::Range;

/// Most capacity the line buffer keeps between lines.
const KEPT_LINE_CAPACITY: usize = 64 * 1024;
/// Default bound on one line and on one event's data: a stream that exceeds it is an error, not a
/// reason to grow memory without limit.
pub const DEFAULT_LIMIT: usize = 16 * 1024 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` type; empty means the default type `message`.
    pub event: String,
    pub data: String,
    /// The last event id at dispatch time.
    pub id: String,
}

/// How `data:` lines become events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Framing {
    /// Exactly the WHATWG rules: only a blank line dispatches.
    Standard,
    /// Also dispatch a lone `data:` line holding a complete JSON object or array at once.
    #[default]
    JsonLines,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseError {
    /// A line or an event's data grew past the limit; the rest of that line is skipped.
    TooLong { limit: usize },
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SseError::TooLong { limit } => write!(
                f,
                "event stream line or event exceeds the {} MiB limit",
                limit / (1024 * 1024)
            ),
        }
    }
}

impl std::error::Error for SseError {}

/// Keep the first error of a chunk, with where its line starts.
fn note(error: &mut Option<(SseError, u64)>, e: SseError, at: u64) {
    error.get_or_insert((e, at));
}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// Incremental decoder. Feed it chunks with [`SseDecoder::feed`], then call [`SseDecoder::finish`].
#[derive(Debug)]
pub struct SseDecoder {
    framing: Framing,
    limit: usize,
    /// Bytes of the stream start kept until we know whether they are a BOM.
    bom_prefix: Vec<u8>,
    bom_done: bool,
    line: Vec<u8>,
    /// The previous chunk ended in CR: a LF at the start of the next one belongs to it.
    after_cr: bool,
    /// Skipping the remainder of an overlong line.
    skipping_line: bool,
    /// Skipping the rest of an event whose data grew past the limit, until its blank line.
    skipping_event: bool,
    data: String,
    /// True once a `data` field was seen for the pending event (the data buffer is non-empty).
    data_pending: bool,
    event_type: String,
    last_id: String,
    retry: Option<u64>,
    /// Where the next byte given to `feed_body` lies in the stream.
    base: u64,
    /// Where the line being read starts, and where the line just ended ends (after its ending).
    line_start: u64,
    line_end: u64,
    /// Where the pending event's first line starts.
    event_start: Option<u64>,
    /// Each dispatched event's place in the stream, when asked for ([`SseDecoder::track_offsets`]).
    offsets: Option<Vec<Range<u64>>>,
    /// Where the line that caused the first error not yet taken starts ([`SseDecoder::take_error_at`]).
    error_at: Option<u64>,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::new(Framing::JsonLines)
    }
}

impl SseDecoder {
    pub fn new(framing: Framing) -> Self {
        Self::with_limit(framing, DEFAULT_LIMIT)
    }

    pub fn with_limit(framing: Framing, limit: usize) -> Self {
        Self {
            framing,
            limit,
            bom_prefix: Vec::new(),
            bom_done: false,
            line: Vec::new(),
            after_cr: false,
            skipping_line: false,
            skipping_event: false,
            data: String::new(),
            data_pending: false,
            event_type: String::new(),
            last_id: String::new(),
            retry: None,
            base: 0,
            line_start: 0,
            line_end: 0,
            event_start: None,
            offsets: None,
            error_at: None,
        }
    }

    /// Also note where each dispatched event lay in the stream: byte offsets from the stream's first
    /// byte (a BOM counted), from the start of its first line to the end of the line that
    /// dispatched it (a CRLF cut between two chunks: to its CR). Taken with
    /// [`SseDecoder::take_offsets`], one range per event, in order.
    pub fn track_offsets(mut self) -> Self {
        self.offsets = Some(Vec::new());
        self
    }

    /// The ranges noted since the last call ([`SseDecoder::track_offsets`]), appended to `into`.
    pub fn take_offsets(&mut self, into: &mut Vec<Range<u64>>) {
        if let Some(offsets) = &mut self.offsets {
            into.append(offsets);
        }
    }

    /// `event` is dispatched: out it goes, its range noted.
    fn emit(&mut self, out: &mut Vec<SseEvent>, event: SseEvent) {
        let start = self.event_start.take().unwrap_or(self.line_start);
        if let Some(offsets) = &mut self.offsets {
            offsets.push(start..self.line_end.max(start));
        }
        out.push(event);
    }

    /// The reconnection time last set by a valid `retry:` field, in milliseconds.
    /// Where in the stream (byte offset from its first byte, a BOM counted) the line that caused
    /// the first error since the last call starts: an overlong line's own place, whichever call
    /// met it.
    pub fn take_error_at(&mut self) -> Option<u64> {
        self.error_at.take()
    }

    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// The last event id seen.
    pub fn last_id(&self) -> &str {
        &self.last_id
    }

    /// Decode one chunk, appending dispatched events to `out`. An error reports an overlong line or
    /// event; the decoder stays usable and resumes at the next line.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        let mut chunk = chunk;
        if !self.bom_done {
            let take = (BOM.len() - self.bom_prefix.len()).min(chunk.len());
            self.bom_prefix.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            if self.bom_prefix.len() < BOM.len() && BOM.starts_with(&self.bom_prefix) {
                return Ok(());
            }
            self.bom_done = true;
            let prefix = std::mem::take(&mut self.bom_prefix);
            if prefix == BOM {
                self.base = BOM.len() as u64;
                self.line_start = self.base;
            } else {
                let mut first_err = self.feed_body(&prefix, out).err();
                if let Err(e) = self.feed_body(chunk, out) {
                    first_err.get_or_insert(e);
                }
                return first_err.map_or(Ok(()), Err);
            }
        }
        self.feed_body(chunk, out)
    }

    fn feed_body(&mut self, mut chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        let mut error = None;
        let (origin, whole) = (self.base, chunk.len());
        self.base += whole as u64;
        if self.after_cr && !chunk.is_empty() {
            self.after_cr = false;
            if chunk[0] == b'\n' {
                chunk = &chunk[1..];
                self.line_start += 1;
            }
        }
        while !chunk.is_empty() {
            match memchr::memchr2(b'\n', b'\r', chunk) {
                Some(pos) => {
                    let terminator = chunk[pos];
                    let whole_line_here = self.line.is_empty() && !self.skipping_line;
                    let mut rest = &chunk[pos + 1..];
                    if terminator == b'\r' && rest.first() == Some(&b'\n') {
                        rest = &rest[1..];
                    }
                    self.line_end = origin + (whole - rest.len()) as u64;
                    if whole_line_here {
                        if pos > self.limit {
                            note(
                                &mut error,
                                SseError::TooLong { limit: self.limit },
                                self.line_start,
                            );
                        } else if let Err(e) = self.process_bytes(&chunk[..pos], out) {
                            note(&mut error, e, self.line_start);
                        }
                    } else if let Err(e) = self.append_to_line(&chunk[..pos]) {
                        note(&mut error, e, self.line_start);
                    }
                    if terminator == b'\r' && pos + 1 == chunk.len() {
                        self.after_cr = true;
                    }
                    if !whole_line_here && let Err(e) = self.end_line(out) {
                        note(&mut error, e, self.line_start);
                    }
                    self.line_start = self.line_end;
                    chunk = rest;
                }
                None => {
                    if let Err(e) = self.append_to_line(chunk) {
                        note(&mut error, e, self.line_start);
                    }
                    break;
                }
            }
        }
        match error {
            Some((e, at)) => {
                self.error_at.get_or_insert(at);
                Err(e)
            }
            None => Ok(()),
        }
    }

    fn append_to_line(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        if self.skipping_line || bytes.is_empty() {
            return Ok(());
        }
        if self.line.len() + bytes.len() > self.limit {
            self.line = Vec::new();
            self.skipping_line = true;
            return Err(SseError::TooLong { limit: self.limit });
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if self.skipping_line {
            self.skipping_line = false;
            return Ok(());
        }
        let bytes = std::mem::take(&mut self.line);
        let bytes = match self.take_long_data_line(bytes, out) {
            Ok(()) => return Ok(()),
            Err(bytes) => bytes,
        };
        let result = self.process_bytes(&bytes, out);
        // Keep the buffer's capacity for the next long line, unless it is a hostile one's: a
        // megabyte line must not cost its size again for the rest of the stream.
        if bytes.capacity() <= KEPT_LINE_CAPACITY {
            self.line = bytes;
            self.line.clear();
        }
        result
    }

    /// A long `data:` line that starts an event becomes its data without a copy (a megabyte
    /// event must not be held twice); any other line is handed back.
    fn take_long_data_line(
        &mut self,
        line: Vec<u8>,
        out: &mut Vec<SseEvent>,
    ) -> Result<(), Vec<u8>> {
        if line.len() <= KEPT_LINE_CAPACITY
            || self.data_pending
            || self.skipping_event
            || !line.starts_with(b"data:")
        {
            return Err(line);
        }
        let mut text = String::from_utf8(line).map_err(|e| e.into_bytes())?;
        let start = if text.as_bytes().get(5) == Some(&b' ') {
            6
        } else {
            5
        };
        text.drain(..start);
        if self.framing == Framing::JsonLines && is_complete_json(&text) {
            let event = SseEvent {
                event: std::mem::take(&mut self.event_type),
                data: text,
                id: self.last_id.clone(),
            };
            self.emit(out, event);
            return Ok(());
        }
        text.push('\n');
        self.data = text;
        self.data_pending = true;
        self.event_start.get_or_insert(self.line_start);
        Ok(())
    }

    fn process_bytes(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        match std::str::from_utf8(bytes) {
            Ok(line) => self.process_line(line, out),
            Err(_) => self.process_line(&String::from_utf8_lossy(bytes), out),
        }
    }

    fn process_line(&mut self, line: &str, out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if line.is_empty() {
            if std::mem::take(&mut self.skipping_event) {
                self.event_type.clear();
                self.event_start = None;
                return Ok(());
            }
            self.dispatch(out);
            self.event_start = None;
            return Ok(());
        }
        if self.skipping_event {
            return Ok(());
        }
        if line.starts_with(':') {
            return Ok(());
        }
        self.event_start.get_or_insert(self.line_start);
        let (field_len, value_start) = match memchr::memchr(b':', line.as_bytes()) {
            Some(colon) => {
                let after = colon + 1;
                let skip_space = line.as_bytes().get(after) == Some(&b' ');
                (colon, after + usize::from(skip_space))
            }
            None => (line.len(), line.len()),
        };
        match &line[..field_len] {
            "data" => {
                if self.framing == Framing::JsonLines
                    && !self.data_pending
                    && is_complete_json(&line[value_start..])
                {
                    let event = SseEvent {
                        event: std::mem::take(&mut self.event_type),
                        data: line[value_start..].to_owned(),
                        id: self.last_id.clone(),
                    };
                    self.emit(out, event);
                    return Ok(());
                }
                let value = &line[value_start..];
                if self.data.len() + value.len() + 1 > self.limit {
                    self.data = String::new();
                    self.data_pending = false;
                    self.skipping_event = true;
                    return Err(SseError::TooLong { limit: self.limit });
                }
                self.data.push_str(value);
                self.data.push('\n');
                self.data_pending = true;
            }
            "event" => self.event_type = line[value_start..].to_owned(),
            "id" => {
                let value = &line[value_start..];
                if !value.contains('\0') {
                    self.last_id = value.to_owned();
                }
            }
            "retry" => {
                let value = &line[value_start..];
                if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
                    // A value too large for u64 is ignored like any other invalid one.
                    if let Ok(retry) = value.parse() {
                        self.retry = Some(retry);
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event_type = std::mem::take(&mut self.event_type);
        if !self.data_pending {
            return;
        }
        self.data_pending = false;
        let mut data = std::mem::take(&mut self.data);
        data.pop();
        let event = SseEvent {
            event: event_type,
            data,
            id: self.last_id.clone(),
        };
        self.emit(out, event);
    }

    /// Whether the decoder stands between lines with nothing pending (no partial line, event,
    /// `event:` type or CR awaiting its LF) and notes no offsets: then a whole line the caller
    /// reads itself and tells of with [`SseDecoder::passed`] leaves it exactly as reading it would
    /// have, when that line is a blank one or a `data:` line holding a complete JSON document
    /// (dispatched at once under [`Framing::JsonLines`]).
    pub fn at_rest(&self) -> bool {
        self.framing == Framing::JsonLines
            && self.bom_done
            && self.line.is_empty()
            && !self.after_cr
            && !self.skipping_line
            && !self.skipping_event
            && !self.data_pending
            && self.event_type.is_empty()
            && self.event_start.is_none()
            && self.offsets.is_none()
    }

    /// The caller read `bytes` bytes of whole lines itself, the decoder [`SseDecoder::at_rest`].
    pub fn passed(&mut self, bytes: usize) {
        self.base += bytes as u64;
        self.line_start = self.base;
        self.line_end = self.base;
    }

    /// The longest line or event's data read.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// End of stream: a last line without a line ending is still processed. Returns the event that
    /// was never terminated by a blank line (browsers drop it; JSON callers may use it) and any
    /// overlong-line error met on the way; one does not hide the other.
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) -> EndOfStream {
        let mut error = None;
        if !self.bom_done {
            self.bom_done = true;
            let prefix = std::mem::take(&mut self.bom_prefix);
            if prefix != BOM {
                error = self.feed_body(&prefix, out).err();
            }
        }
        self.after_cr = false;
        self.line_end = self.base;
        if (!self.line.is_empty() || self.skipping_line)
            && let Err(e) = self.end_line(out)
        {
            error.get_or_insert(e);
        }
        self.skipping_event = false;
        let event = std::mem::take(&mut self.event_type);
        let pending_start = self.event_start.take().unwrap_or(self.line_start);
        if self.data_pending
            && let Some(offsets) = &mut self.offsets
        {
            offsets.push(pending_start..self.base);
        }
        let pending = self.data_pending.then(|| {
            self.data_pending = false;
            let mut data = std::mem::take(&mut self.data);
            data.pop();
            SseEvent {
                event,
                data,
                id: self.last_id.clone(),
            }
        });
        EndOfStream { pending, error }
    }
}

/// What is left when the stream ends.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct EndOfStream {
    /// An event whose blank line never came.
    pub pending: Option<SseEvent>,
    pub error: Option<SseError>,
}

/// Whether `text` is one whole JSON object or array (braces balanced outside strings, nothing but
/// white space after the close). A cheap structural check: full validation happens in the dialect.
pub fn is_complete_json(text: &str) -> bool {
    let bytes = text.trim_ascii().as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(b'{'), Some(b'}')) | (Some(b'['), Some(b']')) => {}
        _ => return false,
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // Skip the string body; escapes hide the quote that follows them.
                i += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
                        Some(offset) if bytes[i + offset] == b'\\' => i += offset + 2,
                        Some(offset) => {
                            i += offset;
                            break;
                        }
                        None => return false,
                    }
                    if i >= bytes.len() {
                        return false;
                    }
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth == 0 {
                    return false;
                }
                depth -= 1;
                if depth == 0 {
                    return i == bytes.len() - 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests;
