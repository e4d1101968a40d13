//! Writing the sessions index: lines appended in whole `write`s (so concurrent appenders never
//! interleave within a line), and the rewrite that drops superseded lines, through a temp file of
//! its own (new lines streamed into it) renamed over the index. Neither ever follows a link or writes into anything but a
//! regular file.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{MAX_INDEX_BYTES, MAX_LINE};
use crate::local::session_files::open_regular;

/// The most bytes appended in one `write`.
const BATCH: usize = 1 << 20;

/// Append `lines` (each ending in a newline) to the index file `index`, in writes of whole lines.
pub(super) fn append(index: &Path, lines: &[String]) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .append(true)
        .create(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(index)?;
    let stat = file.metadata()?;
    if !stat.is_file() || stat.len() > MAX_INDEX_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the sessions index is not a regular file of a sane size",
        ));
    }
    let mut batch = Vec::with_capacity(BATCH.min(lines.iter().map(String::len).sum()));
    for line in lines {
        if batch.len() + line.len() > BATCH && !batch.is_empty() {
            file.write_all(&batch)?;
            batch.clear();
        }
        batch.extend_from_slice(line.as_bytes());
    }
    if !batch.is_empty() {
        file.write_all(&batch)?;
    }
    Ok(())
}

/// A rewrite of the index file `index` under way: its temp file holds the lines kept from the index,
/// and the new lines are streamed into it as they are made (none is held in memory, however many
/// sessions are read raw); [`Rewrite::finish`] renames it over the index. Dropped unfinished, the
/// temp file is removed.
pub(super) struct Rewrite {
    tmp: Option<PathBuf>,
    out: BufWriter<File>,
    failed: bool,
}

impl Rewrite {
    /// Start the rewrite with the lines of the index at `kept` (offset and length, in file order).
    pub(super) fn begin(index: &Path, kept: &[(u64, usize)]) -> io::Result<Rewrite> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let old = open_regular(index, MAX_INDEX_BYTES).ok();
        let (tmp, file) = loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let name = index.file_name().map(|n| n.to_string_lossy().into_owned());
            let tmp = index.with_file_name(format!(
                ".{}.{}-{n}.tmp",
                name.unwrap_or_default(),
                std::process::id()
            ));
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&tmp)
            {
                Ok(file) => break (tmp, file),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        };
        let mut rewrite = Rewrite {
            tmp: Some(tmp),
            out: BufWriter::with_capacity(BATCH, file),
            failed: false,
        };
        if let Some(old) = old {
            copy_kept(&old, kept, &mut rewrite.out)?;
        }
        Ok(rewrite)
    }

    /// Add a new line (ending in a newline); after a failed write the rest are dropped.
    pub(super) fn push(&mut self, line: &str) {
        if !self.failed {
            self.failed = self.out.write_all(line.as_bytes()).is_err();
        }
    }

    /// Put the rewritten index in place of the old one.
    pub(super) fn finish(mut self, index: &Path) -> io::Result<()> {
        if self.failed {
            return Err(io::Error::other(
                "writing the rewritten sessions index failed",
            ));
        }
        // Not synced: after a crash, a torn index is only read raw and rebuilt.
        self.out.flush()?;
        let tmp = self.tmp.take().expect("a rewrite is finished once");
        let renamed = std::fs::rename(&tmp, index);
        if renamed.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        renamed
    }
}

impl Drop for Rewrite {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

fn copy_kept(old: &File, kept: &[(u64, usize)], out: &mut impl Write) -> io::Result<()> {
    let mut line = Vec::with_capacity(MAX_LINE);
    for &(offset, len) in kept {
        line.resize(len, 0);
        old.read_exact_at(&mut line, offset)?;
        out.write_all(&line)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}
