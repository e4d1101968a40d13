//! The index's lines read between threads: the file cut into blocks, each thread taking the next
//! block no thread has taken and reading it itself (`pread` at its offset), so no thread waits
//! while one reads for all, a slow thread holds back only its own block, and the threads are
//! started once for the whole file, not once a block.
//!
//! A block owns the lines that start in it: it reads from the byte before its start (a line starts
//! after a newline) and on past its end until its last line's newline. A line is what lies between
//! two newlines (or the file's start or end); empty lines and lines over the longest taken are
//! skipped whole, as [`super::for_each_block`] skips them.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How far past its block a block's last line is read at first (doubled while it has no end).
const TAIL: usize = 16 << 10;

/// How lines are cut and shared.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cut {
    /// Bytes a block.
    pub block: usize,
    /// The longest line taken.
    pub max_line: usize,
    pub threads: usize,
}

/// `each` made of the lines of every block of the first `size` bytes of `file` (each line with
/// its offset), on `cut.threads` threads, each with a context from `context`; the results in the
/// file's order, one a block.
pub(super) fn in_blocks<C, R: Send>(
    file: &File,
    size: u64,
    cut: Cut,
    context: impl Fn() -> C + Sync,
    each: impl Fn(&mut C, &[(u64, &[u8])]) -> R + Sync,
) -> Vec<R> {
    let blocks = size.div_ceil(cut.block as u64) as usize;
    let next = AtomicUsize::new(0);
    let work = || {
        let (mut buf, mut spans, mut made) = (Buf::default(), Vec::new(), Vec::new());
        let mut context = context();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= blocks {
                return made;
            }
            let from = lines_of_block(file, size, k, cut, &mut buf, &mut spans);
            let read = buf.read();
            let lines: Vec<(u64, &[u8])> = (spans.iter())
                .map(|&(at, stop)| (from + at as u64, &read[at..stop]))
                .collect();
            made.push((k, each(&mut context, &lines)));
        }
    };
    let threads = cut.threads.clamp(1, blocks.max(1));
    let mut made: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut made = work();
        for worker in workers {
            made.extend(
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        made
    });
    made.sort_unstable_by_key(|(k, _)| *k);
    made.into_iter().map(|(_, r)| r).collect()
}

/// The lines starting in block `k`: `buf` made what was read of the file from the offset
/// returned, `spans` each line's start and end in it.
fn lines_of_block(
    file: &File,
    size: u64,
    k: usize,
    cut: Cut,
    buf: &mut Buf,
    spans: &mut Vec<(usize, usize)>,
) -> u64 {
    spans.clear();
    let start = (k * cut.block) as u64;
    let end = size.min(start + cut.block as u64);
    // From the byte before the block, which says whether a line starts at its first byte.
    let from = start.saturating_sub(1);
    buf.filled = 0;
    buf.extend_at(file, from, (end - from) as usize);
    let eof = |buf: &Buf| from + buf.filled as u64 >= size;
    let mut at = if start == 0 {
        0
    } else {
        match memchr::memchr(b'\n', buf.read()) {
            Some(i) => i + 1,
            None => return from,
        }
    };
    let end = (end - from) as usize;
    while at < end.min(buf.filled) {
        let stop = match memchr::memchr(b'\n', &buf.read()[at..]) {
            Some(i) => at + i,
            None => {
                // The block's last line goes on past what was read: read on until its end.
                let mut tail = TAIL;
                loop {
                    let had = buf.filled;
                    if eof(buf) || had - at > cut.max_line {
                        break had;
                    }
                    let want = tail.min(cut.max_line + 1 - (had - at));
                    let want = want.min((size - (from + had as u64)) as usize);
                    buf.extend_at(file, from + had as u64, want);
                    if buf.filled == had {
                        break had;
                    }
                    if let Some(i) = memchr::memchr(b'\n', &buf.read()[had..]) {
                        break had + i;
                    }
                    tail *= 2;
                }
            }
        };
        if stop > at && stop - at <= cut.max_line {
            spans.push((at, stop));
        }
        at = stop + 1;
    }
    from
}

/// What a thread read of the file: the first `filled` bytes of `bytes`, which is zeroed only
/// where it grows (zeroing 1 MiB for every block read into it cost as much as a copy of it).
#[derive(Default)]
struct Buf {
    bytes: Vec<u8>,
    filled: usize,
}

impl Buf {
    fn read(&self) -> &[u8] {
        &self.bytes[..self.filled]
    }

    /// The `len` bytes of `file` from `offset` added to what was read (fewer where the file ends
    /// sooner).
    fn extend_at(&mut self, file: &File, offset: u64, len: usize) {
        let had = self.filled;
        if self.bytes.len() < had + len {
            self.bytes.resize(had + len, 0);
        }
        let mut filled = 0;
        while filled < len {
            match file.read_at(
                &mut self.bytes[had + filled..had + len],
                offset + filled as u64,
            ) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        self.filled = had + filled;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The lines as the file's text splits them: between newlines, not empty, not too long.
    fn plain(text: &[u8], max_line: usize) -> Vec<(u64, Vec<u8>)> {
        let mut at = 0;
        let mut lines = Vec::new();
        for piece in text.split(|&b| b == b'\n') {
            if !piece.is_empty() && piece.len() <= max_line {
                lines.push((at as u64, piece.to_vec()));
            }
            at += piece.len() + 1;
        }
        lines
    }

    fn lines_of(text: &[u8], cut: Cut) -> Vec<(u64, Vec<u8>)> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        std::fs::write(&path, text).unwrap();
        let file = File::open(&path).unwrap();
        let blocks = in_blocks(
            &file,
            text.len() as u64,
            cut,
            || (),
            |_, lines| {
                lines
                    .iter()
                    .map(|(offset, line)| (*offset, line.to_vec()))
                    .collect::<Vec<_>>()
            },
        );
        blocks.into_iter().flatten().collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]

        /// Every line is read once, in order, at its offset, whatever the blocks' size and the
        /// threads: lines across a block's end, a newline as a block's first or last byte, lines
        /// longer than the longest taken (skipped whole), no newline at the end.
        #[test]
        fn blocks_read_between_threads_give_every_line_once_in_order(
            pieces in proptest::collection::vec((0usize..40, any::<bool>()), 0..60),
            block in 1usize..50,
            max_line in 1usize..30,
            threads in 1usize..4,
        ) {
            let mut text = Vec::new();
            for (n, (len, newline)) in pieces.iter().enumerate() {
                text.extend(std::iter::repeat_n(b'a' + (n % 26) as u8, *len));
                if *newline {
                    text.push(b'\n');
                }
            }
            let cut = Cut { block, max_line, threads };
            prop_assert_eq!(lines_of(&text, cut), plain(&text, max_line));
        }
    }

    #[test]
    fn a_line_far_longer_than_a_block_is_read_to_its_end_or_skipped_whole() {
        let long = "x".repeat(100_000);
        let text = format!("a\n{long}\nb\n{long}");
        let cut = Cut {
            block: 1000,
            max_line: 200_000,
            threads: 2,
        };
        assert_eq!(
            lines_of(text.as_bytes(), cut),
            plain(text.as_bytes(), 200_000)
        );
        let cut = Cut {
            max_line: 50_000,
            ..cut
        };
        assert_eq!(
            lines_of(text.as_bytes(), cut),
            [(0, b"a".to_vec()), (100_003, b"b".to_vec())]
        );
    }
}
