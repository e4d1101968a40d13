//! Recorded streams with pacing: the format the demo server and `replay` play back.
//!
//! A recording is SSE text whose frames are separated by a blank line; a frame may start with a
//! comment `: delay=MS`, the pause before it is sent. Plain SSE files without delay comments play with
//! a steady default pace. Ordinary SSE parsers ignore the comments, so `render` reads recordings as is.

/// One frame: the pause before it and its exact bytes (including the blank line that ends it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub delay_ms: u64,
    pub bytes: Vec<u8>,
}

/// The pace used for frames without a `: delay=MS` comment.
pub const DEFAULT_DELAY_MS: u64 = 25;

/// Split a recording into frames. Every byte of the input ends up in exactly one frame, in order,
/// so concatenating the frames gives the original stream back.
pub fn parse_frames(text: &[u8]) -> Vec<Frame> {
    let mut splitter = FrameSplitter::default();
    let mut frames = Vec::new();
    splitter.push(text, &mut frames);
    frames.extend(splitter.finish());
    frames
}

/// Splits a recording into the frames [`parse_frames`] finds, as its bytes arrive: a recording can
/// be played while it is read, never held whole.
#[derive(Debug, Default)]
pub struct FrameSplitter {
    /// Bytes of the frame in progress.
    pending: Vec<u8>,
    /// How far into `pending` no frame end was found.
    scanned: usize,
}

impl FrameSplitter {
    /// Take `bytes`; complete frames go to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Frame>) {
        self.pending.extend_from_slice(bytes);
        let mut start = 0;
        let mut i = self.scanned;
        // A frame ends after "\n\n" (or "\r\n\r\n"): only a line break can begin either.
        loop {
            let Some(found) = memchr::memchr2(b'\n', b'\r', &self.pending[i..]) else {
                i = self.pending.len();
                break;
            };
            i += found;
            let rest = &self.pending[i..];
            let end = if rest.starts_with(b"\n\n") {
                i + 2
            } else if rest.starts_with(b"\r\n\r\n") {
                i + 4
            } else if b"\n\n".starts_with(rest) || b"\r\n\r\n".starts_with(rest) {
                // Too few bytes to tell yet.
                break;
            } else {
                i += 1;
                continue;
            };
            if start == 0 && end > OWNED_FRAME_BYTES {
                // A long frame takes the buffer rather than a copy of it (a megabyte event
                // must not be held twice); the buffer keeps what follows.
                let rest = self.pending.split_off(end);
                out.push(frame(std::mem::replace(&mut self.pending, rest)));
                i = 0;
                continue;
            }
            out.push(frame(self.pending[start..end].to_vec()));
            start = end;
            i = end;
        }
        self.pending.drain(..start);
        self.scanned = i - start;
        if self.pending.capacity() > OWNED_FRAME_BYTES && self.pending.len() < OWNED_FRAME_BYTES {
            self.pending.shrink_to(OWNED_FRAME_BYTES);
        }
    }

    /// The last frame, when the recording does not end with a blank line.
    pub fn finish(self) -> Option<Frame> {
        (!self.pending.is_empty()).then(|| frame(self.pending))
    }
}

/// Frames longer than this take the splitter's buffer instead of being copied out of it.
const OWNED_FRAME_BYTES: usize = 64 * 1024;

fn frame(bytes: Vec<u8>) -> Frame {
    let delay_ms = delay_of(&bytes).unwrap_or(DEFAULT_DELAY_MS);
    Frame { delay_ms, bytes }
}

/// The pause the first line of `bytes` starting `: delay=` with a number after it asks for. Found
/// with a SIMD search for the comment rather than by walking every line byte by byte (most frames
/// have none, and every frame's bytes were walked).
fn delay_of(bytes: &[u8]) -> Option<u64> {
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(DELAY));
    FINDER
        .find_iter(bytes)
        .filter(|&at| at == 0 || bytes[at - 1] == b'\n')
        .find_map(|at| {
            let value = &bytes[at + DELAY.len()..];
            let value = &value[..memchr::memchr(b'\n', value).unwrap_or(value.len())];
            std::str::from_utf8(value).ok()?.trim().parse().ok()
        })
}

/// The comment that gives a frame's pause.
const DELAY: &[u8] = b": delay=";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_keep_every_byte_and_read_their_delay() {
        let text = b": delay=120\ndata: {\"a\":1}\n\ndata: {\"b\":2}\n\ntrailing";
        let frames = parse_frames(text);
        assert_eq!(frames.len(), 3);
        assert_eq!(frames[0].delay_ms, 120);
        assert_eq!(frames[1].delay_ms, DEFAULT_DELAY_MS);
        let joined: Vec<u8> = frames.iter().flat_map(|f| f.bytes.clone()).collect();
        assert_eq!(joined, text);
    }

    /// What `frame` read before it searched for the comment: the first line (split at `\n`)
    /// that starts with `: delay=` and whose rest is a number.
    fn delay_line_by_line(bytes: &[u8]) -> Option<u64> {
        bytes.split(|&b| b == b'\n').find_map(|line| {
            let value = line.strip_prefix(DELAY)?;
            std::str::from_utf8(value).ok()?.trim().parse().ok()
        })
    }

    proptest::proptest! {
        /// A frame's pause is the one its first `: delay=` line with a number gives, wherever the
        /// comment is, whatever surrounds it (line breaks, a number cut or out of range).
        #[test]
        fn the_pause_is_read_from_the_first_delay_line_with_a_number(
            picks in proptest::collection::vec(0usize..12, 0..40),
        ) {
            const PIECES: [&[u8]; 12] = [
                b": delay=", b"120", b"\n", b"\r", b" ", b"x", b"data: {}", b"-5",
                b"99999999999999999999999", b":", b"delay=", b"\xff",
            ];
            let bytes: Vec<u8> = picks.iter().flat_map(|&i| PIECES[i].iter().copied()).collect();
            proptest::prop_assert_eq!(delay_of(&bytes), delay_line_by_line(&bytes));
        }
    }

    #[test]
    fn frames_split_as_bytes_arrive_are_the_frames_of_the_whole_recording() {
        let text: &[u8] =
            b": delay=120\r\ndata: {\"a\":1}\r\n\r\ndata: b\n\n\n\ndata: {\"c\":3}\n\r\n\ntail\r";
        let whole = parse_frames(text);
        for size in 1..8 {
            let mut splitter = FrameSplitter::default();
            let mut frames = Vec::new();
            for piece in text.chunks(size) {
                splitter.push(piece, &mut frames);
            }
            frames.extend(splitter.finish());
            assert_eq!(frames, whole, "{size}-byte pieces");
        }
    }
}
