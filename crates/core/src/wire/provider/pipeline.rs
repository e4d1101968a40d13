//! The byte-level pipeline every input source (HTTP, file, stdin) goes through — bytes → SSE
//! decoder → a provider's dialect → neutral events — and [`AutoDialect`], which holds events back
//! until one of them identifies the provider.
//!
//! The pipeline, not the dialects, counts payloads: one [`AgentEvent::Received`] for every SSE
//! event whose data is not empty or `[DONE]`, and for every line too long to read, however many
//! events (or none) the dialect makes of it.

use std::ops::Range;

pub use super::bigdata::SkimmedText;
use super::{Dialect, Provider};
use crate::model::event::AgentEvent;
use crate::wire::redact::{Secret, StreamRedactor};
use crate::wire::sse::{Framing, SseDecoder, SseError, SseEvent, is_complete_json};

/// How many undecided events [`AutoDialect`] holds before it falls back to Bigdata.com.
pub const DETECT_LIMIT: usize = 64;

/// A dialect that finds out which provider a stream speaks from its first identifying event. Until
/// then events are held back (at most [`DETECT_LIMIT`]); a stream nothing identifies is read as
/// Bigdata.com, the original dialect.
#[derive(Default)]
pub struct AutoDialect {
    inner: Option<Box<dyn Dialect>>,
    held: Vec<SseEvent>,
}

impl AutoDialect {
    fn choose(&mut self, provider: Provider, out: &mut Vec<AgentEvent>) -> &mut Box<dyn Dialect> {
        let mut dialect = provider.dialect();
        for event in self.held.drain(..) {
            dialect.decode(event, out);
        }
        self.inner.insert(dialect)
    }
}

impl Dialect for AutoDialect {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        if let Some(inner) = &mut self.inner {
            inner.decode(event, out);
            return;
        }
        match Provider::detect(&event) {
            Some(provider) => {
                self.choose(provider, out).decode(event, out);
            }
            None if self.held.len() + 1 >= DETECT_LIMIT => {
                self.choose(Provider::Bigdata, out).decode(event, out);
            }
            None => self.held.push(event),
        }
    }

    fn finish(&mut self, clean: bool, out: &mut Vec<AgentEvent>) {
        if self.inner.is_none() && !self.held.is_empty() {
            self.choose(Provider::Bigdata, out);
        }
        if let Some(inner) = &mut self.inner {
            inner.finish(clean, out);
        }
    }

    fn provider(&self) -> Option<Provider> {
        self.inner.as_ref().and_then(|inner| inner.provider())
    }

    fn skim_answer<'a>(&mut self, data: &'a [u8]) -> Option<SkimmedAnswer<'a>> {
        self.inner.as_mut()?.skim_answer(data)
    }

    fn skim_answer_line<'a>(&mut self, rest: &'a [u8]) -> Option<(SkimmedAnswer<'a>, usize)> {
        self.inner.as_mut()?.skim_answer_line(rest)
    }

    fn can_skim(&self) -> bool {
        self.inner.as_ref().is_some_and(|inner| inner.can_skim())
    }
}

/// One SSE event as the pipeline read it: the wire's facts — where it lay in the stream (byte
/// offsets), its `event:` type, its data's size — and the neutral events its dialect made of it
/// (a detecting pipeline's held-back events come out with the event that decided the provider).
#[derive(Debug, Clone, PartialEq)]
pub struct TracedEvent {
    pub range: Range<u64>,
    pub event_type: String,
    pub data_bytes: usize,
    pub events: Vec<AgentEvent>,
}

/// An answer chunk a dialect skimmed ([`Dialect::skim_answer`]): its id and text borrowed from
/// the payload where they hold no escape.
#[derive(Debug, Clone, PartialEq)]
pub struct SkimmedAnswer<'a> {
    pub message_id: Option<&'a str>,
    pub text: SkimmedText<'a>,
}

impl SkimmedAnswer<'_> {
    /// The event the full decode makes of the chunk.
    pub fn into_event(self) -> AgentEvent {
        AgentEvent::AnswerDelta {
            message_id: self.message_id.map(str::to_owned),
            text: self.text.text().into_owned(),
        }
    }
}

/// Where [`EventPipeline::feed_into`] puts what it decodes: events, in order, into
/// [`EventSink::events`], except skimmed answer chunks, handed to [`EventSink::answer`] as they
/// are read (after the events before them). A `Vec` takes each chunk as its event; a reader that
/// only counts the answer takes its text borrowed and builds nothing.
pub trait EventSink {
    /// The events so far (the sink may take them out before each answer chunk).
    fn events(&mut self) -> &mut Vec<AgentEvent>;
    /// A skimmed answer chunk, which comes after every event in [`EventSink::events`].
    fn answer(&mut self, answer: SkimmedAnswer<'_>);
}

impl EventSink for Vec<AgentEvent> {
    fn events(&mut self) -> &mut Vec<AgentEvent> {
        self
    }

    fn answer(&mut self, answer: SkimmedAnswer<'_>) {
        self.push(answer.into_event());
    }
}

/// Bytes in, neutral events out.
pub struct EventPipeline {
    /// Masks the API key before anything is decoded (a no-op without one).
    redactor: StreamRedactor,
    sse: SseDecoder,
    dialect: Box<dyn Dialect>,
    scratch: Vec<SseEvent>,
    ranges: Vec<Range<u64>>,
    /// Whole `data:` lines are offered to the dialect's skim first ([`EventPipeline::skimming`]).
    skim: bool,
}

impl EventPipeline {
    /// A pipeline for `provider`; `None` detects it from the first events ([`AutoDialect`]).
    pub fn new(provider: impl Into<Option<Provider>>) -> Self {
        let dialect = match provider.into() {
            Some(provider) => provider.dialect(),
            None => Box::new(AutoDialect::default()),
        };
        Self {
            redactor: StreamRedactor::default(),
            sse: SseDecoder::new(Framing::JsonLines),
            dialect,
            scratch: Vec::new(),
            ranges: Vec::new(),
            skim: false,
        }
    }

    /// A pipeline that offers each whole `data:` line to the dialect's skim
    /// ([`Dialect::skim`]) before the SSE decoder copies it into an event: the same events,
    /// cheaper where the dialect has a skim for the payload.
    pub fn skimming(mut self) -> Self {
        self.skim = true;
        self
    }

    /// A pipeline whose decoder notes where each event lay ([`EventPipeline::feed_traced`]).
    pub fn traced(mut self) -> Self {
        self.sse = SseDecoder::new(Framing::JsonLines).track_offsets();
        self
    }

    /// Mask `secret` (the API key) in everything this pipeline decodes: a server that echoes the key
    /// in an answer, an error or a tool message cannot put it on a screen or in an export.
    pub fn with_secret(mut self, secret: Secret) -> Self {
        self.redactor = StreamRedactor::new(secret);
        self
    }

    /// A pipeline that detects the provider from the first events.
    pub fn auto() -> Self {
        Self::new(None::<Provider>)
    }

    /// The provider, once known.
    pub fn provider(&self) -> Option<Provider> {
        self.dialect.provider()
    }

    /// Decode a chunk. An overlong line is also counted in the session as a malformed payload, so
    /// every consumer (render, ask, the TUI, replay) reports the same stats.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<AgentEvent>) -> Result<(), SseError> {
        self.feed_into(chunk, out)
    }

    /// [`EventPipeline::feed`] into any [`EventSink`]: the same events in the same order, a
    /// skimmed answer chunk handed over borrowed.
    pub fn feed_into(&mut self, chunk: &[u8], out: &mut impl EventSink) -> Result<(), SseError> {
        let chunk = self.redactor.feed(chunk);
        // Line by line only once the dialect is known to skim (a detecting pipeline switches at a
        // chunk's start: `feed_skimming` hands a line begun before to the decoder as it would).
        if self.skim && self.dialect.can_skim() {
            let result = self.feed_skimming(&chunk, out);
            note_error(&result, out.events());
            return result;
        }
        let result = self.sse.feed(&chunk, &mut self.scratch);
        let events = out.events();
        for event in self.scratch.drain(..) {
            decode(self.dialect.as_mut(), event, events);
        }
        note_error(&result, events);
        result
    }

    /// [`EventPipeline::feed`] for a skimming pipeline: line by line while the decoder is at rest,
    /// a whole `data:` line the dialect skims (and a blank line) never reaching the decoder; any
    /// other bytes fed to it as they would have been, up to the end of their line. The first
    /// overlong line's error, as one feed of the whole chunk gives it.
    fn feed_skimming(
        &mut self,
        mut chunk: &[u8],
        out: &mut impl EventSink,
    ) -> Result<(), SseError> {
        let mut result = Ok(());
        while !chunk.is_empty() {
            if self.sse.at_rest()
                && let Some(end) = self.skimmed_line(chunk, out)
            {
                self.sse.passed(end + 1);
                chunk = &chunk[end + 1..];
                continue;
            }
            if self.sse.at_rest()
                && let Some(end) = memchr::memchr2(b'\n', b'\r', chunk)
                && chunk[end] == b'\n'
                && end <= self.sse.limit()
                && self.skimmed(&chunk[..end], out)
            {
                self.sse.passed(end + 1);
                chunk = &chunk[end + 1..];
                continue;
            }
            let upto = memchr::memchr(b'\n', chunk).map_or(chunk.len(), |end| end + 1);
            let fed = self.sse.feed(&chunk[..upto], &mut self.scratch);
            let events = out.events();
            for event in self.scratch.drain(..) {
                decode(self.dialect.as_mut(), event, events);
            }
            if result.is_ok() {
                result = fed;
            }
            chunk = &chunk[upto..];
        }
        result
    }

    /// The `data:` line `chunk` begins with (the decoder at rest), read here when the dialect skims
    /// its payload up to the line's end ([`Dialect::skim_answer_line`]): that line's length, its LF
    /// next. The same as finding the line's end and [`EventPipeline::skimmed`], without the search.
    fn skimmed_line(&mut self, chunk: &[u8], out: &mut impl EventSink) -> Option<usize> {
        let value = chunk.strip_prefix(b"data:")?;
        let value = value.strip_prefix(b" ").unwrap_or(value);
        let (answer, len) = self.dialect.skim_answer_line(value)?;
        let end = chunk.len() - value.len() + len;
        if end > self.sse.limit() || chunk.get(end) != Some(&b'\n') {
            return None;
        }
        out.events().push(AgentEvent::Received);
        out.answer(answer);
        Some(end)
    }

    /// Whether `line` (whole, without its LF, the decoder at rest) was read here: a blank line
    /// (nothing pending, so nothing to dispatch), or a `data:` line whose payload the dialect
    /// skims — counted, as [`decode`] counts it, then its event.
    fn skimmed(&mut self, line: &[u8], out: &mut impl EventSink) -> bool {
        if line.is_empty() {
            return true;
        }
        let Some(value) = line.strip_prefix(b"data:") else {
            return false;
        };
        let value = value.strip_prefix(b" ").unwrap_or(value);
        match self.dialect.skim_answer(value) {
            Some(answer) => {
                out.events().push(AgentEvent::Received);
                out.answer(answer);
                true
            }
            None => false,
        }
    }

    /// [`EventPipeline::feed`], each SSE event with its place in the stream and the neutral events
    /// made of it (a pipeline made [`EventPipeline::traced`]). An overlong line's events come as an
    /// event of no size at the line's start in the stream.
    pub fn feed_traced(
        &mut self,
        chunk: &[u8],
        out: &mut Vec<TracedEvent>,
    ) -> Result<(), SseError> {
        let chunk = self.redactor.feed(chunk);
        let result = self.sse.feed(&chunk, &mut self.scratch);
        self.traced_out(out);
        let mut events = Vec::new();
        note_error(&result, &mut events);
        let error_at = self.sse.take_error_at();
        if !events.is_empty() {
            // The overlong line's own place: `out` may be emptied between calls.
            let at = error_at.unwrap_or_else(|| out.last().map_or(0, |e| e.range.end));
            out.push(TracedEvent {
                range: at..at,
                event_type: String::new(),
                data_bytes: 0,
                events,
            });
        }
        result
    }

    /// End of stream for [`EventPipeline::feed_traced`]: the last unterminated event, and what the
    /// dialect held back (with the last event).
    pub fn finish_traced(&mut self, out: &mut Vec<TracedEvent>) {
        let held = self.redactor.finish();
        let _ = self.sse.feed(&held, &mut self.scratch);
        let end = self.sse.finish(&mut self.scratch);
        let pending = end.pending.filter(|event| is_complete_json(&event.data));
        if let Some(event) = pending {
            self.scratch.push(event);
        } else {
            // The range noted for an unterminated event that is not read.
            self.sse.take_offsets(&mut self.ranges);
            if self.ranges.len() > self.scratch.len() {
                self.ranges.pop();
            }
        }
        self.traced_out(out);
        let mut events = Vec::new();
        self.dialect.finish(true, &mut events);
        match out.last_mut() {
            Some(last) => last.events.append(&mut events),
            None if !events.is_empty() => out.push(TracedEvent {
                range: 0..0,
                event_type: String::new(),
                data_bytes: 0,
                events,
            }),
            None => {}
        }
    }

    fn traced_out(&mut self, out: &mut Vec<TracedEvent>) {
        self.sse.take_offsets(&mut self.ranges);
        let ranges = std::mem::take(&mut self.ranges);
        for (event, range) in self.scratch.drain(..).zip(ranges) {
            let (event_type, data_bytes) = (event.event.clone(), event.data.len());
            let mut events = Vec::new();
            decode(self.dialect.as_mut(), event, &mut events);
            out.push(TracedEvent {
                range,
                event_type,
                data_bytes,
                events,
            });
        }
    }

    /// End of stream: processes a last unterminated line, and an unterminated event whose data is a
    /// complete JSON document, then lets the dialect emit what it held back.
    pub fn finish(&mut self, out: &mut Vec<AgentEvent>) -> Result<(), SseError> {
        self.end(true, out)
    }

    /// The connection failed: like [`EventPipeline::finish`], but the dialect knows the stream was
    /// cut (a Zeta Alpha stream is then not complete).
    pub fn finish_cut(&mut self, out: &mut Vec<AgentEvent>) -> Result<(), SseError> {
        self.end(false, out)
    }

    fn end(&mut self, clean: bool, out: &mut Vec<AgentEvent>) -> Result<(), SseError> {
        let held = self.redactor.finish();
        let fed = self.sse.feed(&held, &mut self.scratch);
        note_error(&fed, out);
        let pending = self.sse.finish(&mut self.scratch);
        for event in self.scratch.drain(..) {
            decode(self.dialect.as_mut(), event, out);
        }
        if let Some(event) = pending.pending
            && is_complete_json(&event.data)
        {
            decode(self.dialect.as_mut(), event, out);
        }
        self.dialect.finish(clean, out);
        let result = pending.error.map_or(Ok(()), Err);
        note_error(&result, out);
        result
    }
}

/// Count the payload, then let the dialect read it.
fn decode(dialect: &mut dyn Dialect, event: SseEvent, out: &mut Vec<AgentEvent>) {
    let data = event.data.trim();
    if !data.is_empty() && data != "[DONE]" {
        out.push(AgentEvent::Received);
    }
    dialect.decode(event, out);
}

/// A line too long to read was a payload too: counted, and malformed.
fn note_error(result: &Result<(), SseError>, out: &mut Vec<AgentEvent>) {
    if let Err(e) = result {
        out.push(AgentEvent::Received);
        out.push(AgentEvent::Malformed {
            reason: e.to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_auto_pipeline_holds_events_until_the_provider_is_known() {
        let mut pipeline = EventPipeline::auto();
        let mut out = Vec::new();
        pipeline
            .feed(b": comment\n\ndata: [DONE]\n\n", &mut out)
            .unwrap();
        assert!(out.is_empty());
        assert_eq!(pipeline.provider(), None);
        pipeline
            .feed(
                b"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hi\"}\n\n",
                &mut out,
            )
            .unwrap();
        assert_eq!(pipeline.provider(), Some(Provider::Xai));
        assert!(
            out.iter()
                .any(|e| matches!(e, AgentEvent::AnswerDelta { text, .. } if text == "Hi"))
        );
    }

    #[test]
    fn an_unidentified_stream_falls_back_to_bigdata_at_the_end() {
        let mut pipeline = EventPipeline::auto();
        let mut out = Vec::new();
        pipeline.feed(b"data: {\"x\":1}\n\n", &mut out).unwrap();
        pipeline.finish(&mut out).unwrap();
        assert_eq!(pipeline.provider(), Some(Provider::Bigdata));
        assert!(matches!(
            out[..],
            [AgentEvent::Received, AgentEvent::Malformed { .. }]
        ));
    }

    #[test]
    fn an_overlong_line_is_traced_at_its_own_offset_when_output_is_drained_between_chunks() {
        let mut pipeline = EventPipeline::new(Some(Provider::Bigdata)).traced();
        let first =
            b"data: {\"chat_id\":\"c\",\"message\":{\"type\":\"THINKING\",\"content\":\"a\"}}\n\n";
        let mut stream = first.to_vec();
        let long_at = stream.len() as u64;
        stream.extend_from_slice(b"data: \"");
        stream.resize(stream.len() + crate::wire::sse::DEFAULT_LIMIT + 10, b'x');
        stream.extend_from_slice(b"\"\n\n");
        // As the raw-events scan reads: 64 KiB at a time, its output emptied after each.
        let mut traced = Vec::new();
        let mut seen = Vec::new();
        for chunk in stream.chunks(64 * 1024) {
            let _ = pipeline.feed_traced(chunk, &mut traced);
            seen.extend(traced.drain(..).map(|e| (e.range, e.data_bytes)));
        }
        pipeline.finish_traced(&mut traced);
        seen.extend(traced.drain(..).map(|e| (e.range, e.data_bytes)));
        assert_eq!(seen[0], (0..long_at - 1, first.len() - 8));
        assert_eq!(seen[1..], [(long_at..long_at, 0)]);
    }
}
