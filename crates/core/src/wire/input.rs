//! Reading recorded streams from files or stdin, incrementally, into a session.

use std::io::Read;
use std::ops::ControlFlow;

use crate::model::event::AgentEvent;
use crate::model::session::Session;
use crate::model::timeline::Timeline;
use crate::wire::arrivals::Arrivals;
use crate::wire::provider::{EventPipeline, Provider};
use crate::wire::sse::SseError;

/// Feed everything `reader` yields through the pipeline into a fresh session. Reads in chunks as
/// data arrives (stdin from a live pipe works). An overlong line is reported and the rest still read.
/// `provider` is a [`Provider`], or `None` to detect it from the first events.
pub fn read_session(
    reader: impl Read,
    provider: impl Into<Option<Provider>>,
) -> std::io::Result<(Session, Vec<SseError>)> {
    read_into(reader, provider, Session::new(), |_| {}, |_| false).map(|(s, e, _)| (s, e))
}

/// Like [`read_session`], but reading stops once the answer is longer than `max_answer` bytes:
/// the session as far as it got, and whether it was cut there.
pub fn read_session_limited(
    reader: impl Read,
    provider: impl Into<Option<Provider>>,
    max_answer: usize,
) -> std::io::Result<(Session, Vec<SseError>, bool)> {
    read_into(
        reader,
        provider,
        Session::new(),
        |_| {},
        |s| s.answer.len() > max_answer,
    )
}

/// Like [`read_session`], but reading stops as soon as `enough` holds for the session read so far
/// (checked after each read of up to 256 KiB): for a check the first events settle. The session as
/// far as it got.
pub fn read_session_until(
    reader: impl Read,
    provider: impl Into<Option<Provider>>,
    enough: impl Fn(&Session) -> bool,
) -> std::io::Result<Session> {
    read_into(reader, provider, Session::new(), |_| {}, enough).map(|(s, _, _)| s)
}

/// Like [`read_session`], but the session only counts the answer it appends (a stream of any size
/// costs no memory for its text): `observe` sees every event first, to keep what it needs of it.
pub fn read_session_counting(
    reader: impl Read,
    provider: impl Into<Option<Provider>>,
    observe: impl FnMut(&AgentEvent),
) -> std::io::Result<(Session, Vec<SseError>)> {
    let mut session = Session::new();
    session.answer.stop_keeping_text();
    read_into(reader, provider, session, observe, |_| false).map(|(s, e, _)| (s, e))
}

/// Read `reader` to its end, `size` bytes at a time, handing each read to `each`, which may stop
/// the reading; a read interrupted by a signal is tried again. `true` when `each` stopped it.
pub(crate) fn read_chunks(
    mut reader: impl Read,
    size: usize,
    mut each: impl FnMut(&[u8]) -> ControlFlow<()>,
) -> std::io::Result<bool> {
    let mut buf = vec![0u8; size];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return Ok(false),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if each(&buf[..n]).is_break() {
            return Ok(true);
        }
    }
}

fn read_into(
    reader: impl Read,
    provider: impl Into<Option<Provider>>,
    mut session: Session,
    mut observe: impl FnMut(&AgentEvent),
    stop: impl Fn(&Session) -> bool,
) -> std::io::Result<(Session, Vec<SseError>, bool)> {
    let mut pipeline = EventPipeline::new(provider);
    let mut events: Vec<AgentEvent> = Vec::new();
    let mut errors = Vec::new();
    let stopped = read_chunks(reader, 256 * 1024, |chunk| {
        if let Err(e) = pipeline.feed(chunk, &mut events) {
            errors.push(e);
        }
        events.iter().for_each(&mut observe);
        session.apply_all(events.drain(..));
        match stop(&session) {
            true => ControlFlow::Break(()),
            false => ControlFlow::Continue(()),
        }
    })?;
    if stopped {
        return Ok((session, errors, true));
    }
    if let Err(e) = pipeline.finish(&mut events) {
        errors.push(e);
    }
    events.iter().for_each(&mut observe);
    session.apply_all(events.drain(..));
    Ok((session, errors, false))
}

/// The timeline of a saved turn: its raw stream read from `reader`, each event at the time the
/// bytes that completed it arrived ([`Arrivals`]).
pub fn read_timeline(
    reader: impl Read,
    provider: impl Into<Option<Provider>>,
    arrivals: &Arrivals,
) -> std::io::Result<Timeline> {
    let mut timeline = Timeline::new();
    if let Some(ms) = arrivals.first_byte_ms() {
        timeline.first_byte(ms);
    }
    let pipeline = EventPipeline::new(provider);
    let ms = read_timed(reader, pipeline, arrivals, |ms, event| {
        timeline.push(ms, event)
    })?;
    timeline.finish(ms);
    Ok(timeline)
}

/// Feed a saved turn's raw stream through `pipeline`, handing `observe` each event with the time
/// (ms after the request) the bytes that completed it arrived. Returns the last time.
pub fn read_timed(
    reader: impl Read,
    mut pipeline: EventPipeline,
    arrivals: &Arrivals,
    mut observe: impl FnMut(u64, &AgentEvent),
) -> std::io::Result<u64> {
    let mut events: Vec<AgentEvent> = Vec::new();
    let mut offset = 0u64;
    let mut ms = 0;
    read_chunks(reader, 64 * 1024, |mut bytes| {
        while !bytes.is_empty() {
            ms = arrivals.at(offset).unwrap_or(ms);
            let part = arrivals
                .next_change(offset)
                .map_or(bytes.len() as u64, |next| next - offset)
                .min(bytes.len() as u64) as usize;
            let _ = pipeline.feed(&bytes[..part], &mut events);
            for event in events.drain(..) {
                observe(ms, &event);
            }
            offset += part as u64;
            bytes = &bytes[part..];
        }
        ControlFlow::Continue(())
    })?;
    let _ = pipeline.finish(&mut events);
    for event in events.drain(..) {
        observe(ms, &event);
    }
    Ok(ms)
}
