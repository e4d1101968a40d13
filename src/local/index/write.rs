//! Writing the sessions index: lines appended in whole `write`s (so concurrent appenders never
//! interleave within a line), and the rewrite that drops superseded lines, through a temp file of
//! its own renamed over the index. Neither ever follows a link or writes into anything but a
//! regular file.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{MAX_INDEX_BYTES, MAX_LINE, path};
use crate::local::session_files::open_regular;

/// The most bytes appended in one `write`.
const BATCH: usize = 1 << 20;

/// Append `lines` (each ending in a newline) to the index of `root`, in writes of whole lines.
pub(super) fn append(root: &Path, lines: &[String]) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .append(true)
        .create(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path(root))?;
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

/// Replace the index of `root` with its lines at `kept` (offset and length, in file order) and
/// `new_lines`.
pub(super) fn rewrite(root: &Path, kept: &[(u64, usize)], new_lines: &[String]) -> io::Result<()> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let old = open_regular(&path(root), MAX_INDEX_BYTES).ok();
    let (tmp, file) = loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let index = path(root);
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
    let written =
        copy(old.as_ref(), kept, new_lines, file).and_then(|()| std::fs::rename(&tmp, path(root)));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

fn copy(
    old: Option<&File>,
    kept: &[(u64, usize)],
    new_lines: &[String],
    file: File,
) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(BATCH, file);
    let mut line = Vec::with_capacity(MAX_LINE);
    if let Some(old) = old {
        for &(offset, len) in kept {
            line.resize(len, 0);
            old.read_exact_at(&mut line, offset)?;
            out.write_all(&line)?;
            out.write_all(b"\n")?;
        }
    }
    for line in new_lines {
        out.write_all(line.as_bytes())?;
    }
    // Not synced: after a crash, a torn index is only read raw and rebuilt.
    out.flush()
}
