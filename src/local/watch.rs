//! Watching the sessions folder while the sessions picker is open: sessions that start, grow, end or
//! lose their writer are read again and the whole list handed to a callback, so the picker stays
//! current without polling.
//!
//! The folder is watched with the operating system's notifications (`notify`: inotify, FSEvents,
//! …), recursively, so a turn file growing or a meta replaced in any session is seen. Changes are
//! debounced ([`DEBOUNCE`]) and only the sessions they touch are read again (from their summaries,
//! [`crate::local::summary`]). A writer that dies closes its turn lock file, which is a change too;
//! where that is not reported, sessions listed as live are checked again every [`LIVE_CHECK`]
//! (only then: with no live session the thread sleeps until something changes). Reading files
//! never counts as a change, so the watch does not wake itself.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecursiveMode, Watcher};

use crate::local::index;
use crate::local::store::TurnStatus;
use crate::local::summary::{self, SUMMARY, SessionSummary};

/// Changes closer together than this are read as one.
pub const DEBOUNCE: Duration = Duration::from_millis(150);
/// A stream of changes is read at least this often.
const MOST_DELAY: Duration = Duration::from_millis(500);
/// How often sessions listed as live are checked for a writer that died.
pub const LIVE_CHECK: Duration = Duration::from_secs(1);

/// Every session, newest first, as the watch last read them.
pub type SessionList = Vec<Arc<SessionSummary>>;

enum Message {
    Changed(Event),
    Stop,
}

/// A running watch of one sessions folder; dropping it stops the watch.
#[derive(Debug)]
pub struct SessionsWatch {
    stop: Sender<Message>,
}

impl Drop for SessionsWatch {
    fn drop(&mut self) {
        let _ = self.stop.send(Message::Stop);
    }
}

impl SessionsWatch {
    /// Read every session of `root` in the background, hand the list to `on_change`, then again
    /// after each change, until dropped (or until `on_change` returns `false`).
    pub fn start(
        root: PathBuf,
        on_change: impl FnMut(SessionList) -> bool + Send + 'static,
    ) -> SessionsWatch {
        let (tx, rx) = channel();
        let events = tx.clone();
        std::thread::Builder::new()
            .name("sessions-watch".into())
            .spawn(move || run(root, events, rx, on_change))
            .map_or_else(
                |e| crate::log::log(&format!("cannot watch the sessions: {e}")),
                drop,
            );
        SessionsWatch { stop: tx }
    }
}

/// Whether `event` may change what the picker shows: reads never do (the watch reads files itself),
/// nor do summaries (a writer's summary comes with its meta).
fn matters(event: &Event) -> bool {
    let summary_only = event.paths.iter().all(|path| {
        path.file_name().is_some_and(|name| {
            let name = name.to_string_lossy();
            name == SUMMARY
                || name
                    .strip_prefix('.')
                    .is_some_and(|n| n.starts_with(SUMMARY))
        })
    });
    if summary_only && !event.paths.is_empty() {
        return false;
    }
    match event.kind {
        // A file opened for writing closed: a turn lock let go (its writer ended or died).
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

/// The session a path under `root` belongs to.
fn session_of(root: &Path, path: &Path) -> Option<String> {
    let first = path.strip_prefix(root).ok()?.components().next()?;
    let id = first.as_os_str().to_string_lossy();
    // Hidden names are no sessions (the index, its temp files).
    (!id.starts_with('.')).then(|| id.into_owned())
}

fn run(
    root: PathBuf,
    events: Sender<Message>,
    rx: Receiver<Message>,
    mut on_change: impl FnMut(SessionList) -> bool,
) {
    let _ = std::fs::create_dir_all(&root);
    let watcher = notify::recommended_watcher(move |event: notify::Result<Event>| {
        if let Ok(event) = event
            && matters(&event)
        {
            let _ = events.send(Message::Changed(event));
        }
    })
    .and_then(|mut watcher| {
        watcher
            .watch(&root, RecursiveMode::Recursive)
            .or_else(|_| watcher.watch(&root, RecursiveMode::NonRecursive))?;
        Ok(watcher)
    });
    if let Err(e) = &watcher {
        crate::log::log(&format!("cannot watch {}: {e}", root.display()));
    }
    let mut sessions: HashMap<String, Arc<SessionSummary>> = index::summaries(&root)
        .into_iter()
        .map(|s| (s.meta.id.clone(), Arc::new(s)))
        .collect();
    if !on_change(sorted(&sessions)) {
        return;
    }
    loop {
        let live: Vec<String> = sessions
            .values()
            .filter(|s| is_live(s))
            .map(|s| s.meta.id.clone())
            .collect();
        let first = if live.is_empty() {
            rx.recv().map_err(|_| RecvTimeoutError::Disconnected)
        } else {
            rx.recv_timeout(LIVE_CHECK)
        };
        let mut changed: Vec<String> = match first {
            Ok(Message::Stop) | Err(RecvTimeoutError::Disconnected) => break,
            Ok(Message::Changed(event)) => ids(&root, &event),
            Err(RecvTimeoutError::Timeout) => live,
        };
        if !collect_more(&rx, &root, &mut changed) {
            break;
        }
        changed.sort();
        changed.dedup();
        for id in changed {
            match summary::load(&root.join(&id)).map(index::with_answer_heads) {
                Ok(summary) => sessions.insert(id, Arc::new(summary)),
                Err(_) => sessions.remove(&id),
            };
        }
        if !on_change(sorted(&sessions)) {
            break;
        }
    }
}

/// Take the changes that follow within [`DEBOUNCE`] of each other (for at most [`MOST_DELAY`]);
/// `false` when the watch was stopped meanwhile.
fn collect_more(rx: &Receiver<Message>, root: &Path, changed: &mut Vec<String>) -> bool {
    let until = Instant::now() + MOST_DELAY;
    loop {
        let wait = DEBOUNCE.min(until.saturating_duration_since(Instant::now()));
        match rx.recv_timeout(wait) {
            Ok(Message::Changed(event)) => changed.extend(ids(root, &event)),
            Ok(Message::Stop) | Err(RecvTimeoutError::Disconnected) => return false,
            Err(RecvTimeoutError::Timeout) => return true,
        }
    }
}

fn ids(root: &Path, event: &Event) -> Vec<String> {
    event
        .paths
        .iter()
        .filter_map(|path| session_of(root, path))
        .collect()
}

/// A session being written right now: its newest turn streams and its writer holds the turn lock.
pub fn is_live(summary: &SessionSummary) -> bool {
    summary
        .meta
        .turns
        .last()
        .is_some_and(|t| t.status == TurnStatus::Streaming)
}

fn sorted(sessions: &HashMap<String, Arc<SessionSummary>>) -> SessionList {
    let mut list: SessionList = sessions.values().cloned().collect();
    list.sort_by(|a, b| crate::local::meta::newest_first(&a.meta, &b.meta));
    list
}
