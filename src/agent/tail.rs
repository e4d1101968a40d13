//! Following a raw stream file while another process writes it (a turn of a session being saved by
//! `ask`, the proxy or another app), as a [`StreamHandle`] like any live stream: what is in the file
//! is decoded at once, then each append as it lands, through the same pipeline as a replay
//! ([`crate::agent::replay`]): the provider's decoder (a line cut in two by an append waits in it
//! for its end), batched updates, and the reader's pace (the task waits while the app is behind).
//!
//! Growth is noticed through the operating system's change notifications ([`Changes`]); a slow
//! poll ([`POLL`]) covers file systems that do not report changes. Between the two the task sleeps:
//! an idle follow costs no CPU. It ends when the stream says it is over (a completion, an error, a
//! cancel) or when the writer is gone (the `writing` check the caller gives, e.g. the turn lock):
//! then what the writer wrote before it stopped is read too, and the end is `Closed`. What that end
//! means (complete, cut because the writer died, …) is the caller's to read from where it saves it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::io::AsyncReadExt;
use tokio::sync::Notify;

use crate::agent::client::StreamHandle;
use crate::agent::replay::{MAX_TIMES_BYTES, Player, Speed};
use crate::model::stream_end::StreamEnd;
use crate::wire::arrivals::ArrivalsReader;
use crate::wire::provider::Provider;

/// How often a followed file is looked at when no change was reported.
pub const POLL: Duration = Duration::from_millis(500);

/// Which changed paths a [`Changes`] reports.
pub type PathFilter = Box<dyn Fn(&Path) -> bool + Send + Sync>;

/// Paths changed in a folder, reported by the operating system and gathered until they are taken:
/// however many changes arrive meanwhile, the taker wakes once. Reads never count (following a file
/// reads it, which must not wake the follower); a file opened for writing that closes does (a
/// writer ends or dies).
pub struct Changes {
    /// `None` when the folder cannot be watched: then only the poll wakes the taker.
    watcher: Option<RecommendedWatcher>,
    shared: Arc<Shared>,
    poll: Duration,
}

#[derive(Default)]
struct Shared {
    paths: Mutex<BTreeSet<PathBuf>>,
    wake: Notify,
}

impl Changes {
    /// Watch `dir` (and its subfolders when `recursive`; only `dir` itself when that fails) for
    /// changes to the paths `wanted` accepts; [`Changes::next`] also returns every `poll`.
    pub fn watch(dir: &Path, recursive: bool, poll: Duration, wanted: PathFilter) -> Changes {
        let shared = Arc::new(Shared::default());
        let reported = shared.clone();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else { return };
            if matches!(event.kind, EventKind::Access(kind) if kind != AccessKind::Close(AccessMode::Write))
            {
                return;
            }
            let mut paths = reported.paths.lock().unwrap_or_else(|e| e.into_inner());
            let before = paths.len();
            paths.extend(event.paths.into_iter().filter(|path| wanted(path)));
            if paths.len() > before {
                reported.wake.notify_one();
            }
        })
        .and_then(|mut watcher| {
            let mode = if recursive {
                RecursiveMode::Recursive
            } else {
                RecursiveMode::NonRecursive
            };
            watcher
                .watch(dir, mode)
                .or_else(|_| watcher.watch(dir, RecursiveMode::NonRecursive))?;
            Ok(watcher)
        });
        if let Err(e) = &watcher {
            crate::log::log(&format!(
                "cannot watch {} for changes ({e}): looking every {} ms instead",
                dir.display(),
                poll.as_millis()
            ));
        }
        Changes {
            watcher: watcher.ok(),
            shared,
            poll,
        }
    }

    /// The operating system reports changes (else only the poll finds them).
    pub fn is_watching(&self) -> bool {
        self.watcher.is_some()
    }

    /// Wait for a change, or the poll: the paths changed since the last call (none after a poll
    /// with nothing reported).
    pub async fn next(&self) -> Vec<PathBuf> {
        if self
            .shared
            .paths
            .lock()
            .map_or(true, |paths| paths.is_empty())
        {
            let _ = tokio::time::timeout(self.poll, self.shared.wake.notified()).await;
        }
        let mut paths = self.shared.paths.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut *paths).into_iter().collect()
    }
}

/// Follow the stream file at `path` (speaking `provider`, or detected when `None`) until the stream
/// says it is over or `writing` says its writer is gone; see the module docs.
pub fn tail_file(
    path: &Path,
    provider: Option<Provider>,
    writing: impl Fn() -> bool + Send + 'static,
) -> std::io::Result<StreamHandle> {
    let file = std::fs::File::open(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    // The file itself, and its writer's files beside it (a lock let go is a change too).
    let name = path.file_name().unwrap_or_default().to_owned();
    let changes = Changes::watch(
        dir,
        false,
        POLL,
        Box::new(move |changed| {
            changed.file_name().is_some_and(|changed| {
                let changed = changed.to_string_lossy();
                let name = name.to_string_lossy();
                changed == name || changed.starts_with(&format!(".{name}"))
            })
        }),
    );
    let mut times = Times::beside(path);
    Ok(StreamHandle::spawn(move |tx| async move {
        let mut file = tokio::fs::File::from_std(file);
        let Some(mut player) = Player::start(Speed::Max, provider, tx).await else {
            return;
        };
        let mut buffer = vec![0u8; 64 * 1024];
        let mut at = 0u64;
        loop {
            // Asked before reading: whatever the writer wrote before it stopped is read below.
            let written = !writing();
            loop {
                match file.read(&mut buffer).await {
                    Ok(0) => break,
                    Ok(read) => {
                        if !times.feed(&mut player, at, &buffer[..read]).await {
                            return;
                        }
                        at += read as u64;
                    }
                    Err(e) => {
                        let reason = format!("the stream file could not be read: {e}");
                        player.end(StreamEnd::Cut { reason }).await;
                        return;
                    }
                }
            }
            if written || player.is_over() {
                break;
            }
            // Everything decoded goes out before the wait for more.
            if !player.flush().await {
                return;
            }
            changes.next().await;
        }
        player.finish().await;
    }))
}

/// The arrival times the writer keeps beside the followed file ([`crate::wire::arrivals`]), read
/// as it appends to them: each part of the file goes to the reader with the time it arrived, so a
/// turn followed from the middle is timed from its request, not from when following began.
struct Times {
    file: Option<std::fs::File>,
    reader: ArrivalsReader,
    /// Bytes of the times file read so far: at most [`MAX_TIMES_BYTES`], as a replay reads.
    read: u64,
}

impl Times {
    fn beside(path: &Path) -> Times {
        use std::os::unix::fs::OpenOptionsExt;
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(crate::wire::arrivals::SUFFIX);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path.with_file_name(name))
            .ok()
            .filter(|f| f.metadata().is_ok_and(|m| m.is_file()));
        Times {
            file,
            reader: ArrivalsReader::default(),
            read: 0,
        }
    }

    /// Feed `bytes`, read from `at` in the followed file, to `player`, each part after the time
    /// it arrived (read now: the writer notes a chunk's time after writing it). Without times, as
    /// they are. `false` when no one listens any more.
    async fn feed(&mut self, player: &mut Player, at: u64, bytes: &[u8]) -> bool {
        let Some(file) = &mut self.file else {
            return player.feed(bytes).await;
        };
        let mut appended = [0u8; 16 * 1024];
        // A times file past the bound is not one a writer of ours made: the rest is not read.
        while self.read < MAX_TIMES_BYTES
            && let Ok(n @ 1..) = std::io::Read::read(file, &mut appended)
        {
            let n = n.min((MAX_TIMES_BYTES - self.read) as usize);
            self.read += n as u64;
            self.reader.feed(&appended[..n]);
        }
        let arrivals = self.reader.arrivals();
        let mut offset = at;
        let mut rest = bytes;
        while !rest.is_empty() {
            let part = arrivals
                .next_change(offset)
                .map_or(rest.len() as u64, |next| next - offset)
                .min(rest.len() as u64) as usize;
            if let Some(ms) = arrivals.at(offset)
                && !player.arrived(ms).await
            {
                return false;
            }
            if !player.feed(&rest[..part]).await {
                return false;
            }
            offset += part as u64;
            rest = &rest[part..];
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::stream::StreamUpdate;
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[tokio::test]
    async fn a_change_wakes_the_taker_once_with_the_paths_and_reads_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let changes = Changes::watch(
            dir.path(),
            false,
            Duration::from_secs(30),
            Box::new(|path| path.extension().is_some_and(|e| e == "sse")),
        );
        assert!(changes.is_watching());
        let path = dir.path().join("turn-001.sse");
        std::fs::write(&path, b"data: x\n\n").unwrap();
        std::fs::write(dir.path().join("other.txt"), b"x").unwrap();
        let started = std::time::Instant::now();
        changes.shared.wake.notified().await;
        assert!(started.elapsed() < Duration::from_secs(5));
        // Creating, writing and closing the file: one path, however many events.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(changes.next().await, std::slice::from_ref(&path));
        // Reading the file is no change: the next call waits for its timeout.
        let _ = std::fs::read(&path).unwrap();
        let quiet = tokio::time::timeout(Duration::from_millis(300), changes.next()).await;
        assert!(quiet.is_err(), "a read woke the taker: {quiet:?}");
    }

    #[tokio::test]
    async fn a_file_is_followed_until_its_writer_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("turn-001.sse");
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(
            b"data: {\"chat_id\":\"c\",\"message\":{\"type\":\"ANSWER\",\"content\":\"Hel",
        )
        .unwrap();
        let writing = Arc::new(AtomicBool::new(true));
        let alive = writing.clone();
        let mut handle = tail_file(&path, Some(Provider::Bigdata), move || {
            alive.load(Ordering::SeqCst)
        })
        .unwrap();
        assert_eq!(handle.updates.recv().await, Some(StreamUpdate::Connected));
        // Half a line: nothing is decoded yet.
        let early = tokio::time::timeout(Duration::from_millis(200), handle.updates.recv()).await;
        assert!(early.is_err(), "{early:?}");
        file.write_all(b"lo\"}}\n\n").unwrap();
        let Some(StreamUpdate::Events(events)) = handle.updates.recv().await else {
            panic!("events expected");
        };
        assert!(format!("{events:?}").contains("Hello"), "{events:?}");
        // The writer stops without a completion: the follow ends after its last bytes.
        file.write_all(
            b"data: {\"chat_id\":\"c\",\"message\":{\"type\":\"ANSWER\",\"content\":\"!\"}}\n\n",
        )
        .unwrap();
        writing.store(false, Ordering::SeqCst);
        let mut rest = Vec::new();
        while let Some(update) = handle.updates.recv().await {
            rest.push(update);
        }
        assert!(format!("{rest:?}").contains("\"!\""), "{rest:?}");
        assert_eq!(rest.last(), Some(&StreamUpdate::Ended(StreamEnd::Closed)));
    }
}
