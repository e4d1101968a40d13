//! When a turn's raw bytes arrived, kept beside its raw stream file (`turn-001.sse.times` beside
//! `turn-001.sse`): the raw file stays byte-exact and the source of truth; this sidecar only says
//! when each part of it came. A turn without one (older sessions, a recording) still reads, without
//! times.
//!
//! The sidecar is text, one fact a line, appended as the stream arrives:
//!
//! ```text
//! # research-tui arrival times 1
//! sent 1764120000123
//! 0 412
//! 1024 415
//! ```
//!
//! `sent` is the wall clock (Unix ms) when the request was sent; `OFFSET MS` says the bytes of the raw
//! file from OFFSET on arrived MS after it (until the next line's offset). A chunk arriving in the
//! same millisecond as the line before adds no line. A turn continued later (a paused turn, appended
//! to) starts again with a `sent` line of its own. Bounded: past [`FINE_LINES`] lines a new line is
//! written only when a second has passed since the last, so an absurd stream of tiny chunks keeps a
//! sidecar of at most a line a second (its times then up to a second early).

/// The sidecar of a raw stream file is named after it with this suffix.
pub const SUFFIX: &str = ".times";

/// Lines kept at millisecond resolution before the sidecar keeps one a second.
pub const FINE_LINES: usize = 100_000;

/// The sidecar's first line.
const HEADER: &str = "# research-tui arrival times 1";

/// The bytes from `offset` on arrived `ms` after the request was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub offset: u64,
    pub ms: u64,
}

/// A sidecar read back: when the request was sent and when each part of the raw file arrived.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Arrivals {
    /// Wall clock when the request was sent (Unix ms).
    pub sent_unix_ms: Option<u64>,
    /// In order of offset, their times never going back.
    pub marks: Vec<Mark>,
}

impl Arrivals {
    /// Read a sidecar; a line it cannot read (a torn last line, an edit) is skipped.
    pub fn parse(text: &[u8]) -> Arrivals {
        let mut reader = ArrivalsReader::default();
        for line in text.split(|&b| b == b'\n') {
            reader.line(line);
        }
        reader.arrivals
    }

    fn push(&mut self, mark: Mark) {
        match self.marks.last() {
            // Offsets only grow; a line that goes back is not believed, and one that repeats the
            // last offset (no byte arrived) adds nothing: a hostile file of such lines stays small.
            Some(last) if mark.offset <= last.offset => {}
            Some(last) => {
                let ms = mark.ms.max(last.ms);
                self.marks.push(Mark { ms, ..mark });
            }
            None => self.marks.push(mark),
        }
    }

    /// Whether any time is known.
    pub fn is_empty(&self) -> bool {
        self.marks.is_empty()
    }

    /// Milliseconds from the request to its first byte.
    pub fn first_byte_ms(&self) -> Option<u64> {
        self.marks.first().map(|m| m.ms)
    }

    /// When the byte at `offset` arrived (the first mark's time for bytes before it).
    pub fn at(&self, offset: u64) -> Option<u64> {
        let after = self.marks.partition_point(|m| m.offset <= offset);
        let mark = self.marks.get(after.saturating_sub(1))?;
        Some(mark.ms)
    }

    /// Where the next part of the file after the byte at `offset` starts (its time changes).
    pub fn next_change(&self, offset: u64) -> Option<u64> {
        let after = self.marks.partition_point(|m| m.offset <= offset);
        self.marks.get(after).map(|m| m.offset)
    }

    /// The raw file cut where its arrival time changes: `(start, end, ms)`, `end` `None` for the
    /// last part (to the end of the file).
    pub fn parts(&self) -> impl Iterator<Item = (u64, Option<u64>, u64)> + '_ {
        self.marks.iter().enumerate().map(|(i, mark)| {
            let end = self.marks.get(i + 1).map(|next| next.offset);
            (mark.offset, end, mark.ms)
        })
    }
}

/// Reads a sidecar while its writer still appends to it: fed what was appended, it reads the
/// complete lines (a line without its end waits for it).
#[derive(Debug, Default)]
pub struct ArrivalsReader {
    arrivals: Arrivals,
    /// A continuation's marks count from its own `sent`: moved onto the first one's clock.
    shift: u64,
    partial: Vec<u8>,
}

impl ArrivalsReader {
    /// What was appended to the sidecar since the last call.
    pub fn feed(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            let mut line = std::mem::take(&mut self.partial);
            line.extend_from_slice(&rest[..end]);
            self.line(&line);
            rest = &rest[end + 1..];
        }
        // A line longer than any the writer writes is not one of its lines.
        if self.partial.len() + rest.len() <= 64 {
            self.partial.extend_from_slice(rest);
        } else {
            self.partial.clear();
        }
    }

    /// The times read so far.
    pub fn arrivals(&self) -> &Arrivals {
        &self.arrivals
    }

    fn line(&mut self, line: &[u8]) {
        let Ok(line) = std::str::from_utf8(line) else {
            return;
        };
        let mut words = line.split_ascii_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("sent"), Some(unix), None) => {
                let Ok(unix) = unix.parse::<u64>() else {
                    return;
                };
                match self.arrivals.sent_unix_ms {
                    None => self.arrivals.sent_unix_ms = Some(unix),
                    Some(first) => self.shift = unix.saturating_sub(first),
                }
            }
            (Some(offset), Some(ms), None) => {
                let (Ok(offset), Ok(ms)) = (offset.parse::<u64>(), ms.parse::<u64>()) else {
                    return;
                };
                self.arrivals.push(Mark {
                    offset,
                    ms: ms.saturating_add(self.shift),
                });
            }
            _ => {}
        }
    }
}

/// Decides what a writer appends to a sidecar as bytes arrive (pure: the writer owns the clock
/// and the file).
#[derive(Debug, Default)]
pub struct ArrivalLog {
    lines: usize,
    last_ms: Option<u64>,
}

impl ArrivalLog {
    /// The sidecar's opening lines, for a request sent at `unix_ms`. `fresh` is false for a
    /// continuation appended to an existing sidecar (no header again).
    pub fn opening(fresh: bool, unix_ms: u64) -> String {
        if fresh {
            format!("{HEADER}\nsent {unix_ms}\n")
        } else {
            format!("sent {unix_ms}\n")
        }
    }

    /// Bytes from `offset` on arrived `ms` after the request: the line to append, if one is due.
    pub fn note(&mut self, offset: u64, ms: u64) -> Option<String> {
        let due = match self.last_ms {
            None => true,
            Some(last) if self.lines < FINE_LINES => ms > last,
            Some(last) => ms >= last.saturating_add(1000),
        };
        if !due {
            return None;
        }
        self.lines += 1;
        self.last_ms = Some(ms);
        Some(format!("{offset} {ms}\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sidecar_read_as_it_grows_reads_as_the_whole_file_does() {
        let text =
            b"# research-tui arrival times 1\nsent 1000\n0 412\n1024 415\nsent 3000\n2048 7\n";
        for size in [1, 2, 5, text.len()] {
            let mut reader = ArrivalsReader::default();
            for chunk in text.chunks(size) {
                reader.feed(chunk);
            }
            assert_eq!(
                reader.arrivals(),
                &Arrivals::parse(text),
                "chunks of {size}"
            );
        }
        // A line without its end yet is not read.
        let mut reader = ArrivalsReader::default();
        reader.feed(b"sent 1\n0 41");
        assert!(reader.arrivals().is_empty());
        reader.feed(b"2\n");
        assert_eq!(reader.arrivals().first_byte_ms(), Some(412));
    }

    #[test]
    fn a_sidecar_reads_back_its_marks_and_the_time_of_any_byte() {
        let text = b"# research-tui arrival times 1\nsent 1000\n0 412\n100 415\n250 2000\n";
        let arrivals = Arrivals::parse(text);
        assert_eq!(arrivals.sent_unix_ms, Some(1000));
        assert_eq!(arrivals.first_byte_ms(), Some(412));
        assert_eq!(arrivals.at(0), Some(412));
        assert_eq!(arrivals.at(99), Some(412));
        assert_eq!(arrivals.at(100), Some(415));
        assert_eq!(arrivals.at(10_000), Some(2000));
        let parts: Vec<_> = arrivals.parts().collect();
        assert_eq!(
            parts,
            [
                (0, Some(100), 412),
                (100, Some(250), 415),
                (250, None, 2000)
            ]
        );
    }

    #[test]
    fn a_continuation_counts_from_the_first_request_and_torn_lines_are_skipped() {
        let text = b"# research-tui arrival times 1\nsent 1000\n0 10\n50 20\nsent 6000\n60 5\n70 1";
        let arrivals = Arrivals::parse(text);
        assert_eq!(
            arrivals.marks,
            [
                Mark { offset: 0, ms: 10 },
                Mark { offset: 50, ms: 20 },
                Mark {
                    offset: 60,
                    ms: 5005
                },
                // Never earlier than the bytes before it.
                Mark {
                    offset: 70,
                    ms: 5005
                },
            ]
        );
        assert!(Arrivals::parse(b"").is_empty());
        assert_eq!(Arrivals::parse(b"junk\n12 x\n").marks, []);
    }

    #[test]
    fn chunks_within_one_millisecond_share_a_line() {
        let mut log = ArrivalLog::default();
        assert_eq!(log.note(0, 5).as_deref(), Some("0 5\n"));
        assert_eq!(log.note(10, 5), None);
        assert_eq!(log.note(20, 6).as_deref(), Some("20 6\n"));
    }

    #[test]
    fn an_absurd_stream_of_tiny_chunks_keeps_a_bounded_sidecar() {
        let mut log = ArrivalLog::default();
        // Ten million chunks, one every millisecond: almost three hours.
        let bytes: usize = (0..10_000_000u64)
            .filter_map(|i| log.note(i, i))
            .map(|line| line.len())
            .sum();
        let lines = FINE_LINES + (10_000_000 - FINE_LINES) / 1000;
        assert!(bytes < lines * 20, "{bytes} bytes");
        assert!(bytes < 4 << 20, "{bytes} bytes");
    }
}
