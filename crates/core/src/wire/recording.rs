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
    let mut frames = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < text.len() {
        // A frame ends after "\n\n" (or "\r\n\r\n").
        let end = if text[i..].starts_with(b"\n\n") {
            Some(i + 2)
        } else if text[i..].starts_with(b"\r\n\r\n") {
            Some(i + 4)
        } else {
            None
        };
        if let Some(end) = end {
            frames.push(frame(&text[start..end]));
            start = end;
            i = end;
        } else {
            i += 1;
        }
    }
    if start < text.len() {
        frames.push(frame(&text[start..]));
    }
    frames
}

fn frame(bytes: &[u8]) -> Frame {
    let delay_ms = bytes
        .split(|&b| b == b'\n')
        .find_map(|line| {
            let line = std::str::from_utf8(line).ok()?.trim_end_matches('\r');
            line.strip_prefix(": delay=")?.trim().parse().ok()
        })
        .unwrap_or(DEFAULT_DELAY_MS);
    Frame {
        delay_ms,
        bytes: bytes.to_vec(),
    }
}

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
}
