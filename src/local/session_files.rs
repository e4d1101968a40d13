//! The files under one saved session that let any number of processes write it at once (two
//! `ask --resume` of the same checkpoint, the app and `ask` on the same chat) without losing a turn:
//!
//! - `.lock`, the session lock: held while `meta.json` is read, changed and replaced, so every
//!   change is a read-modify-write of the file on disk and no writer's turn is dropped by another's.
//! - `meta.json` is replaced through a temp file of its own (a unique name per write) and a rename,
//!   so a reader sees the old or the new file, never half of one.
//! - `turn-NNN.sse`, each created new (never opened for appending), so a turn file holds exactly
//!   one stream: a writer that finds the number taken takes the next one.
//! - `.turn-NNN.sse.lock`, the turn lock: held by the turn's writer for as long as it streams. A
//!   turn saved as `streaming` whose lock nobody holds was left by a writer that died (SIGKILL, a
//!   crash, a full disk): it reads as cut.
//!
//! The locks are the operating system's file locks (`flock` on Unix, `LockFileEx` on Windows), which
//! it releases when the process dies, so nothing stays locked after a crash; the lock files are
//! empty and separate from the data, so readers never wait for a lock.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime};

use crate::wire::arrivals::ArrivalLog;

/// The session lock's file name.
const SESSION_LOCK: &str = ".lock";

/// The largest turn file read back (the decoder bounds each line; this bounds the file), and so
/// the most a turn file is written.
pub const MAX_TURN_BYTES: u64 = 4 << 30;

/// How many taken turn numbers a writer skips before it gives up.
const TURN_NUMBER_TRIES: usize = 10_000;

/// The session lock, held until dropped.
#[derive(Debug)]
pub struct SessionLock {
    _file: File,
}

impl SessionLock {
    /// Wait for the lock of the session in `dir`.
    pub fn acquire(dir: &Path) -> io::Result<SessionLock> {
        let file = Self::open(dir)?;
        file.lock()?;
        Ok(SessionLock::held(file))
    }

    /// The lock taken: the holder's process id written in it, for whoever waits.
    fn held(mut file: File) -> SessionLock {
        let _ = file.set_len(0);
        let _ = write!(file, "{}", std::process::id());
        SessionLock { _file: file }
    }

    /// The lock of the session in `dir` when nobody holds it now (`None` when somebody does).
    pub fn try_acquire(dir: &Path) -> io::Result<Option<SessionLock>> {
        let file = Self::open(dir)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(SessionLock::held(file))),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }

    /// Wait up to [`LOCK_PATIENCE`] for the lock of the session in `dir`; past it, an error that
    /// says which process holds it (a stopped writer must not stop every other one).
    pub fn acquire_promptly(dir: &Path) -> io::Result<SessionLock> {
        let start = std::time::Instant::now();
        loop {
            if let Some(lock) = Self::try_acquire(dir)? {
                return Ok(lock);
            }
            if start.elapsed() > LOCK_PATIENCE {
                let who = match lock_holder(&dir.join(SESSION_LOCK)) {
                    Some(pid) => format!("process {pid}"),
                    None => "another process".to_owned(),
                };
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!(
                        "the session is locked by {who}, which has not let go for {} s (stopped?)",
                        LOCK_PATIENCE.as_secs()
                    ),
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// The lock file, never through a link: a `.lock` that is a symlink is refused.
    fn open(dir: &Path) -> io::Result<File> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(dir.join(SESSION_LOCK))?;
        if !file.metadata()?.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the session lock is not a regular file",
            ));
        }
        Ok(file)
    }
}

/// The process holding the lock on `path`: the kernel's word for it (`/proc/locks`, whoever took
/// the lock), else the pid our writers write into the file when they take it.
fn lock_holder(path: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let inode = std::fs::symlink_metadata(path).ok()?.ino();
    let from_kernel = std::fs::read_to_string("/proc/locks")
        .ok()
        .and_then(|locks| {
            locks.lines().find_map(|line| {
                // `1: FLOCK  ADVISORY  WRITE 9136 00:2f:1234567 0 EOF`
                let fields: Vec<&str> = line.split_whitespace().collect();
                let (pid, id) = (fields.get(4)?, fields.get(5)?);
                let held_inode = id.rsplit(':').next()?.parse::<u64>().ok()?;
                (held_inode == inode).then(|| pid.parse().ok()).flatten()
            })
        });
    from_kernel.or_else(|| std::fs::read_to_string(path).ok()?.trim().parse().ok())
}

/// How long a writer waits for a session's lock before it says who holds it and gives up.
pub const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(3);

/// `path` opened for reading when it is a regular file of at most `max` bytes: never through a
/// symlink, and never a FIFO or device (which would block, or never end).
pub fn open_regular(path: &Path, max: u64) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not a regular file", path.display()),
        ));
    }
    if meta.len() > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is larger than {max} bytes", path.display()),
        ));
    }
    Ok(file)
}

/// `dir` is a session folder the store could have made: a real directory, not a link to one.
pub fn is_real_dir(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_dir())
}

/// A turn's lock, held by its writer while the turn streams. Dropping it removes the lock file and
/// lets go of the lock.
#[derive(Debug)]
pub struct TurnLock {
    path: PathBuf,
    _file: File,
}

impl TurnLock {
    /// Take the lock of turn file `stream_file` in `dir` (its writer just created that file).
    pub fn acquire(dir: &Path, stream_file: &str) -> io::Result<TurnLock> {
        use std::os::unix::fs::OpenOptionsExt;
        let path = turn_lock_path(dir, stream_file);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)?;
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => {
                io::Error::other(format!("{stream_file} is already being written"))
            }
            std::fs::TryLockError::Error(e) => e,
        })?;
        Ok(TurnLock { path, _file: file })
    }
}

impl Drop for TurnLock {
    fn drop(&mut self) {
        // Removed while still locked: a reader that opened it before sees it held until the close.
        let _ = std::fs::remove_file(&self.path);
    }
}

fn turn_lock_path(dir: &Path, stream_file: &str) -> PathBuf {
    dir.join(format!(".{stream_file}.lock"))
}

/// Whether a live process still writes turn file `stream_file` in `dir` (it holds the turn's lock).
/// When locks cannot be checked at all (a file system without them), the writer is taken to live:
/// a turn is never called cut on a guess.
pub fn writer_alive(dir: &Path, stream_file: &str) -> bool {
    if !is_plain_name(stream_file) {
        return false;
    }
    let file = match open_regular(&turn_lock_path(dir, stream_file), 1 << 10) {
        Ok(file) => file,
        Err(e) => return e.kind() != io::ErrorKind::NotFound,
    };
    match file.try_lock_shared() {
        Ok(()) => false,
        Err(std::fs::TryLockError::WouldBlock) => true,
        Err(std::fs::TryLockError::Error(_)) => true,
    }
}

/// A file name inside the session directory: no directories, nothing hidden. Names read from
/// `meta.json` are checked before a file is opened by them, so an edited session cannot point
/// outside its directory.
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\']) && name != ".."
}

/// Create the next free turn file in `dir`, numbered from `number` (`turn-001.sse`, …): its name
/// and the file, new and empty.
pub fn create_turn_file(dir: &Path, number: usize) -> io::Result<(String, File)> {
    for number in number.max(1)..number.max(1) + TURN_NUMBER_TRIES {
        let name = format!("turn-{number:03}.sse");
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dir.join(&name))
        {
            Ok(file) => return Ok((name, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("no free turn number in the session"))
}

/// Replace `dir/name` with `bytes`: written and synced under a temp name no other writer uses, then
/// renamed over the old file.
pub fn replace_file(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    replace(dir, name, bytes, true)
}

/// [`replace_file`] without waiting for the disk (an fsync costs milliseconds, three of them delayed
/// the app's first frame): for a file a crash may lose at no cost — a cache rebuilt from the raw
/// files when unreadable, or a meta written again, synced, before anything depends on it. Readers
/// still see the old file or the new one, never a part.
pub fn replace_file_unsynced(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    replace(dir, name, bytes, false)
}

fn replace(dir: &Path, name: &str, bytes: &[u8], sync: bool) -> io::Result<()> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let (tmp, mut file) = loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => break (tmp, file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    };
    let written = file
        .write_all(bytes)
        .and_then(|()| if sync { file.sync_all() } else { Ok(()) })
        .and_then(|()| std::fs::rename(&tmp, dir.join(name)))
        // The rename itself made durable: a crash must not bring back an older file (the first
        // meta, written unsynced, could even come back empty on some filesystems).
        .and_then(|()| {
            if sync {
                File::open(dir)?.sync_all()
            } else {
                Ok(())
            }
        });
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// A turn's raw stream file, the sink the client writes each received chunk to. The client goes on
/// when a write fails (a full disk must not stop the answer on the screen), so the file remembers the
/// first failure and takes nothing after it: it holds a clean start of the stream, and the turn's
/// end reports what went wrong.
///
/// It holds what the decoder reads, no more: of a line longer than the decoder's limit (which the
/// decoder skips, live and when the turn is replayed) only its first `limit + 1` bytes are kept —
/// enough for the replay to skip it too — and past [`MAX_TURN_BYTES`] (the most a turn file is read
/// back) nothing is saved. [`TurnFile::not_saved`] says what was left out. Beside it, when given
/// one, the sidecar of arrival times ([`crate::wire::arrivals`]), its offsets those of the bytes
/// kept: best effort, since the raw file alone is the turn.
#[derive(Debug)]
pub struct TurnFile {
    file: File,
    failure: Option<String>,
    /// The longest line kept whole ([`crate::wire::sse::DEFAULT_LIMIT`]).
    line_limit: usize,
    /// The most bytes the file takes.
    cap: u64,
    /// Bytes of the current line so far, kept or not.
    line: usize,
    written: u64,
    /// Lines cut at the limit, and the bytes of theirs not saved.
    long_lines: u64,
    skipped: u64,
    /// The current line is past the limit: the rest of it is not saved.
    cutting_line: bool,
    times: Option<TimesFile>,
}

/// The sidecar of arrival times as it is written.
#[derive(Debug)]
struct TimesFile {
    file: File,
    log: ArrivalLog,
    /// A new sidecar (its header not written yet), not one a continuation appends to.
    fresh: bool,
    /// When the request was sent, once the sidecar says so.
    sent: Option<Instant>,
    /// Bytes of the raw file so far (where the next chunk starts).
    offset: u64,
    /// When the writer was made: the request's time when no one says when it was sent.
    created: Instant,
    /// When the bytes written next arrived, when that was before they are written.
    arrived: Option<Instant>,
}

impl TimesFile {
    fn append(&mut self, text: &str) {
        // A sidecar that cannot be written only loses times: the turn goes on.
        let _ = self.file.write_all(text.as_bytes());
    }

    fn sent(&mut self, at: Instant) {
        if self.sent.is_some() {
            return;
        }
        self.sent = Some(at);
        let unix = SystemTime::now()
            .checked_sub(at.elapsed())
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let opening = ArrivalLog::opening(self.fresh, unix);
        self.append(&opening);
    }

    fn arrived(&mut self, len: u64) {
        let sent = match self.sent {
            Some(sent) => sent,
            None => {
                self.sent(self.created);
                self.created
            }
        };
        let at = self.arrived.take().unwrap_or_else(Instant::now);
        let ms = u64::try_from(at.saturating_duration_since(sent).as_millis()).unwrap_or(u64::MAX);
        if let Some(line) = self.log.note(self.offset, ms) {
            self.append(&line);
        }
        self.offset += len;
    }
}

impl TurnFile {
    pub fn new(file: File) -> TurnFile {
        Self::with_limits(file, crate::wire::sse::DEFAULT_LIMIT, MAX_TURN_BYTES)
    }

    /// A turn file keeping lines of at most `line_limit` bytes and `cap` bytes in all.
    pub fn with_limits(file: File, line_limit: usize, cap: u64) -> TurnFile {
        TurnFile {
            file,
            failure: None,
            line_limit,
            cap,
            line: 0,
            written: 0,
            long_lines: 0,
            skipped: 0,
            cutting_line: false,
            times: None,
        }
    }

    /// [`TurnFile::new`], its arrival times written to `times`: a new sidecar (`fresh`) or one a
    /// continuation appends to, the raw file holding `offset` bytes already.
    pub fn with_times(file: File, times: File, fresh: bool, offset: u64) -> TurnFile {
        TurnFile {
            times: Some(TimesFile {
                file: times,
                log: ArrivalLog::default(),
                fresh,
                sent: None,
                offset,
                created: Instant::now(),
                arrived: None,
            }),
            ..TurnFile::new(file)
        }
    }

    /// A `--record FILE` of `ask`: every byte kept as it came (no line or size limit: the file is
    /// the user's, byte-exact), its arrival times written to `times` as a saved turn's are (when
    /// there is one: a pipe or a device has none).
    pub fn recording(file: File, times: Option<File>) -> TurnFile {
        let turn = match times {
            Some(times) => TurnFile::with_times(file, times, true, 0),
            None => TurnFile::new(file),
        };
        TurnFile {
            line_limit: usize::MAX / 2,
            cap: u64::MAX,
            ..turn
        }
    }

    /// Why the stream could not be saved in full, if it could not.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// What of the stream was left out on purpose (lines past the decoder's limit), if anything.
    pub fn not_saved(&self) -> Option<String> {
        (self.long_lines > 0).then(|| {
            let s = if self.long_lines == 1 { "" } else { "s" };
            format!(
                "{} line{s} past the decoder's {} MiB limit kept in part ({} bytes left out)",
                self.long_lines,
                self.line_limit >> 20,
                self.skipped
            )
        })
    }

    /// Write `kept`, one part after another in one system call where it can, all of them or up
    /// to the file's cap (then a failure saying so).
    fn put(&mut self, kept: &[&[u8]]) -> io::Result<()> {
        let mut room = usize::try_from(self.cap.saturating_sub(self.written)).unwrap_or(usize::MAX);
        let mut slices = Vec::with_capacity(kept.len());
        let mut cut = false;
        for part in kept.iter().filter(|part| !part.is_empty()) {
            let take = part.len().min(room);
            cut |= take < part.len();
            room -= take;
            if take > 0 {
                slices.push(io::IoSlice::new(&part[..take]));
            }
        }
        let mut bufs = &mut slices[..];
        while !bufs.is_empty() {
            match self.file.write_vectored(bufs) {
                Ok(0) => return self.fail(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    self.written += n as u64;
                    io::IoSlice::advance_slices(&mut bufs, n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return self.fail(e),
            }
        }
        if cut {
            let cap = match self.cap {
                cap if cap.is_multiple_of(1 << 30) => format!("{} GiB", cap >> 30),
                cap => format!("{cap} bytes"),
            };
            return self.fail(io::Error::other(format!(
                "the stream passed {cap}, the most a turn file holds"
            )));
        }
        Ok(())
    }

    /// Remember the first failure: nothing is written after it.
    fn fail(&mut self, e: io::Error) -> io::Result<()> {
        self.failure = Some(e.to_string());
        Err(e)
    }

    /// The parts of `buf` kept, the tails of overlong lines left out, added to `kept` (one part,
    /// unless a line is cut).
    fn keep<'b>(&mut self, buf: &'b [u8], kept: &mut Vec<&'b [u8]>) {
        let keep = self.line_limit + 1;
        if self.line.saturating_add(buf.len()) <= keep {
            // No line can pass the limit in `buf` (nor is one being cut: that one is past it):
            // kept whole, and only where its last line starts looked for, from its end — not every
            // line end of a flood.
            self.line = match memchr::memrchr2(b'\n', b'\r', buf) {
                Some(end) => {
                    self.cutting_line = false;
                    buf.len() - end - 1
                }
                None => self.line + buf.len(),
            };
            kept.push(buf);
            return;
        }
        // Bytes from `pending` on are kept, not yet added.
        let mut pending = 0;
        let mut at = 0;
        while at < buf.len() {
            let end = memchr::memchr2(b'\n', b'\r', &buf[at..]).map(|i| at + i);
            let content = end.unwrap_or(buf.len()) - at;
            let room = keep.saturating_sub(self.line);
            if content > room {
                if !self.cutting_line {
                    self.cutting_line = true;
                    self.long_lines += 1;
                }
                self.skipped += (content - room) as u64;
                kept.push(&buf[pending..at + room]);
                pending = end.unwrap_or(buf.len());
            }
            self.line += content;
            match end {
                Some(end) => {
                    self.line = 0;
                    self.cutting_line = false;
                    at = end + 1;
                }
                None => at = buf.len(),
            }
        }
        kept.push(&buf[pending..]);
    }
}

/// The sidecar of arrival times beside turn file `stream_file` in `dir`: created new (emptied if a
/// dead writer left one), or opened for appending by a continuation (`append`); never through a
/// link.
pub fn open_times_file(dir: &Path, stream_file: &str, append: bool) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = OpenOptions::new();
    options.create(true).custom_flags(libc::O_NOFOLLOW);
    if append {
        options.append(true);
    } else {
        options.write(true).truncate(true);
    }
    options.open(dir.join(format!("{stream_file}{}", crate::wire::arrivals::SUFFIX)))
}

impl crate::agent::client::RawWrite for TurnFile {
    fn request_sent(&mut self, at: Instant) {
        if let Some(times) = &mut self.times {
            times.sent(at);
        }
    }

    fn chunk_arrived(&mut self, at: Instant) {
        if let Some(times) = &mut self.times {
            times.arrived = Some(at);
        }
    }
}

impl Write for TurnFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_vectored(&[io::IoSlice::new(buf)])
    }

    /// The bytes of `bufs` one after another, all of them (as [`Write::write`] of their whole),
    /// their arrival noted once: a batch written without first copying its chunks together.
    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        if let Some(failure) = &self.failure {
            return Err(io::Error::other(failure.clone()));
        }
        let before = self.written;
        let mut kept = Vec::with_capacity(bufs.len());
        for buf in bufs {
            self.keep(buf, &mut kept);
        }
        self.put(&kept)?;
        if let Some(times) = &mut self.times
            && self.written > before
        {
            times.arrived(self.written - before);
        }
        Ok(bufs.iter().map(|buf| buf.len()).sum())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_lock_marks_its_writer_alive_until_it_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!writer_alive(dir.path(), "turn-001.sse"));
        let lock = TurnLock::acquire(dir.path(), "turn-001.sse").unwrap();
        assert!(writer_alive(dir.path(), "turn-001.sse"));
        assert!(TurnLock::acquire(dir.path(), "turn-001.sse").is_err());
        drop(lock);
        assert!(!writer_alive(dir.path(), "turn-001.sse"));
        assert!(!dir.path().join(".turn-001.sse.lock").exists());
    }

    #[test]
    fn turn_files_are_never_shared() {
        let dir = tempfile::tempdir().unwrap();
        let (first, _) = create_turn_file(dir.path(), 1).unwrap();
        let (second, _) = create_turn_file(dir.path(), 1).unwrap();
        assert_eq!(
            (first.as_str(), second.as_str()),
            ("turn-001.sse", "turn-002.sse")
        );
    }

    #[test]
    fn names_from_a_session_file_stay_inside_its_directory() {
        assert!(is_plain_name("turn-001.sse"));
        for name in ["", "..", ".lock", "../x", "/etc/passwd", "a\\b"] {
            assert!(!is_plain_name(name), "{name}");
        }
    }

    /// `input` written to a bounded turn file in chunks of `size` bytes: the file's bytes, and the
    /// file.
    fn written_in_chunks(input: &[u8], size: usize, cap: u64) -> (Vec<u8>, TurnFile) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("turn-001.sse");
        let mut file = TurnFile::with_limits(File::create(&path).unwrap(), 8, cap);
        for chunk in input.chunks(size) {
            let _ = file.write(chunk);
        }
        (std::fs::read(&path).unwrap(), file)
    }

    #[test]
    fn lines_past_the_limit_keep_one_byte_more_than_it_however_the_stream_is_chunked() {
        let input = b"ab\nAAAAAAAAAAAAAAA\nc\r\nDDDDDDDDDDDDD\r\n\ndata: 12345678\n";
        let expected = b"ab\nAAAAAAAAA\nc\r\nDDDDDDDDD\r\n\ndata: 123\n";
        for size in 1..input.len() {
            let (saved, file) = written_in_chunks(input, size, u64::MAX);
            assert_eq!(
                String::from_utf8_lossy(&saved),
                String::from_utf8_lossy(expected),
                "chunks of {size}"
            );
            assert_eq!(
                file.not_saved().as_deref(),
                Some("3 lines past the decoder's 0 MiB limit kept in part (15 bytes left out)")
            );
            assert_eq!(file.failure(), None);
        }
    }

    #[test]
    fn chunks_written_as_one_vectored_write_save_what_their_whole_saves() {
        let input = b"ab\nAAAAAAAAAAAAAAA\nc\r\nDDDDDDDDDDDDD\r\n\ndata: 12345678\nxyz";
        for cap in [u64::MAX, 30, 9] {
            let (whole, file) = written_in_chunks(input, input.len(), cap);
            let said = (file.not_saved(), file.failure().map(str::to_owned));
            for size in 1..input.len() {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("turn-001.sse");
                let mut file = TurnFile::with_limits(File::create(&path).unwrap(), 8, cap);
                let bufs: Vec<io::IoSlice<'_>> = input.chunks(size).map(io::IoSlice::new).collect();
                let _ = file.write_vectored(&bufs);
                let saved = std::fs::read(&path).unwrap();
                assert_eq!(saved, whole, "chunks of {size}, a cap of {cap}");
                assert_eq!((file.not_saved(), file.failure().map(str::to_owned)), said);
            }
        }
    }

    #[test]
    fn nothing_is_written_past_the_cap_and_the_file_says_why() {
        let (saved, mut file) = written_in_chunks(b"data: 1\n\ndata: 2\n\n", 4, 12);
        assert_eq!(saved, b"data: 1\n\ndat");
        assert_eq!(
            file.failure(),
            Some("the stream passed 12 bytes, the most a turn file holds")
        );
        assert!(file.write(b"more").is_err());
        assert_eq!(file.not_saved(), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_disk_is_remembered_and_nothing_is_written_after_it() {
        let full = OpenOptions::new().write(true).open("/dev/full").unwrap();
        let mut file = TurnFile::new(full);
        assert!(file.write_all(b"data: x\n\n").is_err());
        assert!(file.failure().unwrap().contains("No space left"));
        assert!(file.write_all(b"more").is_err());
    }
}
