//! The raw events behind a row of a turn's timeline, like a browser's network panel: where each
//! lies in the turn's raw file (byte offsets), its `event:` type, its size, when it arrived. Read
//! on demand from the file, never kept whole: a scan keeps at most `keep` events' places (not their
//! bytes), and an event's data is read back by its offsets when it is looked at
//! ([`read_event_data`]). The file stays the source of truth.

use std::io::{Read, Seek, SeekFrom};
use std::ops::{ControlFlow, Range};

use crate::model::timeline::Timeline;
use crate::wire::arrivals::Arrivals;
use crate::wire::input::read_chunks;
use crate::wire::provider::{EventPipeline, Provider, TracedEvent};
use crate::wire::sse::{DEFAULT_LIMIT, Framing, SseDecoder};

/// One raw SSE event of a turn file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawEvent {
    /// Its bytes in the turn file.
    pub range: Range<u64>,
    /// Its `event:` type (empty: the default, `message`).
    pub event_type: String,
    /// The size of its data.
    pub data_bytes: usize,
    /// When the byte that completed it arrived (ms after the request), when times were kept.
    pub ms: Option<u64>,
}

/// Which events a row stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowTarget {
    /// Phase `n` of the timeline: the events that opened it, went on with it or ended it.
    Phase(usize),
    /// A silence: the events that arrived at its edges (the last before, the first after).
    Between { start_ms: u64, end_ms: u64 },
}

/// The raw events behind a row: the first `keep` of them, and how many more there are (in the
/// part of the file scanned).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowEvents {
    pub events: Vec<RawEvent>,
    pub more: usize,
    /// The scan stopped after this many bytes of a longer file: the events are those of its
    /// opening only.
    pub cut_at: Option<u64>,
}

/// Scan the turn file `reader` (its arrival times `arrivals`) for the raw events behind `target`,
/// rebuilding the timeline as it goes (its phases are numbered by the order of events, as the
/// app's and `render`'s are). Memory: the decoder's, the timeline's and `keep` events' places.
/// Time: at most `max_bytes` of the file are read (a turn file may hold gigabytes); past them the
/// scan stops and says where ([`RowEvents::cut_at`]).
pub fn read_row_events(
    reader: impl Read,
    provider: Option<Provider>,
    arrivals: Option<&Arrivals>,
    (target, keep): (RowTarget, usize),
    max_bytes: u64,
) -> std::io::Result<RowEvents> {
    let mut reader = reader.take(max_bytes);
    let mut pipeline = EventPipeline::new(provider).traced();
    let mut scan = Scan {
        timeline: Timeline::new(),
        arrivals,
        target,
        keep,
        found: RowEvents::default(),
        first: true,
        touched: Vec::new(),
    };
    if let Some(ms) = arrivals.and_then(Arrivals::first_byte_ms) {
        scan.timeline.first_byte(ms);
    }
    let mut traced = Vec::new();
    read_chunks(&mut reader, 64 * 1024, |chunk| {
        let _ = pipeline.feed_traced(chunk, &mut traced);
        traced.drain(..).for_each(|event| scan.take(event));
        ControlFlow::Continue(())
    })?;
    // Whether the file goes on past the cap: one more byte tells.
    let mut reader = reader.into_inner();
    let mut more = [0u8; 1];
    if reader.read(&mut more)? > 0 {
        scan.found.cut_at = Some(max_bytes);
        return Ok(scan.found);
    }
    pipeline.finish_traced(&mut traced);
    traced.drain(..).for_each(|event| scan.take(event));
    Ok(scan.found)
}

struct Scan<'a> {
    timeline: Timeline,
    arrivals: Option<&'a Arrivals>,
    target: RowTarget,
    keep: usize,
    found: RowEvents,
    /// No event with data seen yet (the first one ends the wait for the first byte).
    first: bool,
    touched: Vec<usize>,
}

impl Scan<'_> {
    fn take(&mut self, traced: TracedEvent) {
        let ms = self
            .arrivals
            .and_then(|a| a.at(traced.range.end.saturating_sub(1)));
        self.touched.clear();
        for event in &traced.events {
            self.timeline
                .push_noting(ms.unwrap_or(0), event, &mut self.touched);
        }
        let first = self.first && traced.data_bytes > 0;
        self.first &= !first;
        let behind = match self.target {
            RowTarget::Phase(0) => first,
            RowTarget::Phase(n) => self.touched.contains(&n),
            RowTarget::Between { start_ms, end_ms } => {
                ms.is_some_and(|ms| ms == start_ms || ms == end_ms)
            }
        };
        if !behind {
            return;
        }
        if self.found.events.len() < self.keep {
            self.found.events.push(RawEvent {
                range: traced.range,
                event_type: traced.event_type,
                data_bytes: traced.data_bytes,
                ms,
            });
        } else {
            self.found.more += 1;
        }
    }
}

/// The data of the event at `range` of the turn file, read back from it (at most the decoder's
/// limit of bytes): `None` when the bytes there are not an event.
pub fn read_event_data(mut file: impl Read + Seek, range: &Range<u64>) -> Option<String> {
    let len = range
        .end
        .checked_sub(range.start)?
        .min(DEFAULT_LIMIT as u64 + 4);
    file.seek(SeekFrom::Start(range.start)).ok()?;
    let mut bytes = Vec::new();
    file.take(len).read_to_end(&mut bytes).ok()?;
    let mut decoder = SseDecoder::new(Framing::JsonLines);
    let mut out = Vec::new();
    let _ = decoder.feed(&bytes, &mut out);
    let end = decoder.finish(&mut out);
    out.into_iter()
        .next()
        .or(end.pending)
        .map(|event| event.data)
}

/// The data of the event at `range` of the turn file as a person reads it: JSON pretty-printed
/// (the dialect layer's knowledge of the wire stays here), anything else as it is; `None` when
/// the bytes there are not an event. Terminal sanitising is the viewer's.
pub fn read_event_text(file: impl Read + Seek, range: &Range<u64>) -> Option<String> {
    let data = read_event_data(file, range)?;
    Some(
        serde_json::from_str::<serde_json::Value>(&data)
            .ok()
            .and_then(|value| serde_json::to_string_pretty(&value).ok())
            .unwrap_or(data),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: [&str; 6] = [
        r#"data: {"chat_id":"c","message":{"type":"THINKING","content":"Looking."}}"#,
        r#"data: {"chat_id":"c","message":{"type":"ACTION","tool_name":"search","tool_arguments":{"query":"q"}}}"#,
        r#"data: {"chat_id":"c","message":{"type":"ANSWER","content":"One "}}"#,
        r#"data: {"chat_id":"c","message":{"type":"AUDIT","audit_traces":[{"type":"search","query":"q","result_count":3}]}}"#,
        r#"data: {"chat_id":"c","message":{"type":"ANSWER","content":"two."}}"#,
        r#"data: {"chat_id":"c","message":{"type":"COMPLETE","checkpoint_id":"k"}}"#,
    ];

    /// The stream, each event followed by a blank line, and each event's byte range in it.
    fn stream() -> (String, Vec<Range<u64>>) {
        let mut text = String::new();
        let mut ranges = Vec::new();
        for line in LINES {
            let start = text.len() as u64;
            text.push_str(line);
            text.push('\n');
            // A JSON line is dispatched at its own end; the blank line belongs to no event.
            ranges.push(start..text.len() as u64);
            text.push('\n');
        }
        (text, ranges)
    }

    fn arrivals(ranges: &[Range<u64>]) -> Arrivals {
        let mut times = String::from("sent 1\n");
        for (i, range) in ranges.iter().enumerate() {
            times.push_str(&format!("{} {}\n", range.start, 1000 * (i as u64 + 1)));
        }
        Arrivals::parse(times.as_bytes())
    }

    fn behind(target: RowTarget, keep: usize) -> RowEvents {
        let (text, ranges) = stream();
        let times = arrivals(&ranges);
        read_row_events(
            text.as_bytes(),
            Some(Provider::Bigdata),
            Some(&times),
            (target, keep),
            u64::MAX,
        )
        .unwrap()
    }

    #[test]
    fn a_tool_call_s_row_stands_for_its_call_and_its_results_with_their_offsets_and_times() {
        let (text, ranges) = stream();
        let timeline = crate::wire::input::read_timeline(
            text.as_bytes(),
            Some(Provider::Bigdata),
            &arrivals(&ranges),
        )
        .unwrap();
        let tool = timeline
            .phases
            .iter()
            .position(|p| p.label == "search")
            .unwrap();
        let found = behind(RowTarget::Phase(tool), 10);
        let places: Vec<(Range<u64>, Option<u64>)> = found
            .events
            .iter()
            .map(|e| (e.range.clone(), e.ms))
            .collect();
        assert_eq!(
            places,
            [
                (ranges[1].clone(), Some(2000)),
                (ranges[3].clone(), Some(4000))
            ]
        );
        assert_eq!(found.events[0].data_bytes, LINES[1].len() - "data: ".len());
        let answer = timeline
            .phases
            .iter()
            .position(|p| p.label == "answer")
            .unwrap();
        let found = behind(RowTarget::Phase(answer), 1);
        assert_eq!(
            (found.events[0].range.clone(), found.more),
            (ranges[2].clone(), 1)
        );
        // The wait for the first byte: the event that ended it.
        assert_eq!(behind(RowTarget::Phase(0), 10).events[0].range, ranges[0]);
    }

    #[test]
    fn an_event_s_data_is_read_back_by_its_offsets() {
        let (text, ranges) = stream();
        let data = read_event_data(std::io::Cursor::new(text.as_bytes()), &ranges[3]).unwrap();
        assert_eq!(data, &LINES[3]["data: ".len()..]);
        assert_eq!(
            read_event_data(std::io::Cursor::new(b"\n\n"), &(0..2)),
            None
        );
    }

    /// A stream generated as it is read, never whole in memory: `n` answer deltas after a start.
    struct Endless {
        n: usize,
        done: usize,
        pending: Vec<u8>,
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            while self.pending.len() < buf.len() && self.done < self.n {
                self.done += 1;
                self.pending.extend_from_slice(
                    br#"data: {"chat_id":"c","message":{"type":"ANSWER","content":"word word word word word word word word word "}}"#,
                );
                self.pending.extend_from_slice(b"\n\n");
            }
            let k = buf.len().min(self.pending.len());
            buf[..k].copy_from_slice(&self.pending[..k]);
            self.pending.drain(..k);
            Ok(k)
        }
    }

    /// The answer row's events (500 places kept) of `n` generated answer events, read up to `cap`.
    fn answer_row_of_endless(n: usize, cap: u64) -> RowEvents {
        let stream = Endless {
            n,
            done: 0,
            pending: Vec::new(),
        };
        read_row_events(
            stream,
            Some(Provider::Bigdata),
            None,
            (RowTarget::Phase(1), 500),
            cap,
        )
        .unwrap()
    }

    #[test]
    fn a_row_of_a_huge_stream_keeps_at_most_keep_places_and_counts_the_rest() {
        // 200 000 events, about 25 MB: the answer row stands for all of them.
        let n = 200_000;
        let found = answer_row_of_endless(n, 64 << 20);
        assert_eq!((found.events.len(), found.more), (500, n - 500));
        assert_eq!(found.cut_at, None);
        // Each event: its JSON line (108 bytes with its end), then a blank line of its own.
        let step = 109;
        assert_eq!(found.events[499].range, 499 * step..499 * step + 108);
    }

    #[test]
    fn a_scan_stops_at_its_byte_cap_and_says_so() {
        // 200 000 events, about 22 MB, scanned for their first MiB only.
        let found = answer_row_of_endless(200_000, 1 << 20);
        assert_eq!(found.cut_at, Some(1 << 20));
        // Every event whose line ends (at 108 bytes into each 109) within the first MiB.
        let (step, line) = (109, 108);
        assert_eq!(
            found.events.len() + found.more,
            ((1 << 20) - line) / step + 1
        );
    }

    #[test]
    fn an_event_s_json_is_read_back_pretty_printed_and_other_data_as_it_is() {
        let (text, ranges) = stream();
        let pretty = read_event_text(std::io::Cursor::new(text.as_bytes()), &ranges[5]).unwrap();
        assert_eq!(
            pretty,
            "{\n  \"chat_id\": \"c\",\n  \"message\": {\n    \"type\": \"COMPLETE\",\n    \"checkpoint_id\": \"k\"\n  }\n}"
        );
        let plain = b"data: not json\n\n";
        assert_eq!(
            read_event_text(std::io::Cursor::new(plain), &(0..14)).as_deref(),
            Some("not json")
        );
    }
}
