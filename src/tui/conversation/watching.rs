//! Sessions written by other processes (`ask`, the proxy, another app), followed as they stream.
//!
//! An opened session's folder is watched: a turn another process starts shows up as it starts, and
//! a turn still streaming is followed from its raw file ([`tail_file`]) exactly as the app's own
//! stream is shown (`watching · live`). When the writer lets go of the turn, how it saved the end
//! decides how the turn shows: complete, or cut when the writer died mid-turn. `watch` also watches
//! the sessions folder, to open the newest live session and, with `--follow`, each new one.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::agent::stream::StreamUpdate;
use crate::agent::tail::{Changes, tail_file};
use crate::agent::turn::TurnDriver;
use crate::local::meta::SessionMeta;
use crate::local::meta::TurnMeta;
use crate::local::session_files::writer_alive;
use crate::local::store::{SavedSession, TurnStatus};
use crate::local::timestamp::{rfc3339, unix_seconds};
use crate::tui::state::{ConnState, Focus, Mode, Severity};
use crate::tui::ui::Ui;

use super::{Conversation, restore_turn, saved_conn, saved_request};

/// How often a followed folder is looked at when no change was reported.
const FOLDER_POLL: Duration = Duration::from_secs(2);

/// The file every session keeps its meta in.
const META: &str = "meta.json";

/// What is followed besides the app's own stream.
#[derive(Default)]
pub(super) struct Following {
    /// The opened session's folder, and the turn files already shown.
    session: Option<FollowedSession>,
    /// `watch`: the sessions folder.
    sessions: Option<WatchedSessions>,
    /// The stream file of the turn followed now (written by another process).
    tailing: Option<String>,
}

struct FollowedSession {
    id: String,
    changes: Changes,
    shown: HashSet<String>,
}

struct WatchedSessions {
    root: PathBuf,
    changes: Changes,
    /// Open each new live session in place of the one shown.
    follow: bool,
    /// The newest live turn noticed in each session: its stream file.
    seen: HashMap<String, String>,
    /// When the watch began: a turn started since is new even when it ended before it was seen.
    since: String,
}

/// What the event loop hands the conversation next.
pub enum Incoming {
    /// An update of the running turn.
    Update(StreamUpdate),
    /// The opened session's folder changed (no paths: a poll).
    Session(Vec<PathBuf>),
    /// The sessions folder changed (`watch`).
    Sessions(Vec<PathBuf>),
}

/// The turn of `meta` being written right now: its newest, while it streams (the store reads a
/// turn whose writer died as cut).
fn live_turn(meta: &SessionMeta) -> Option<&TurnMeta> {
    meta.turns
        .last()
        .filter(|turn| turn.status == TurnStatus::Streaming)
}

impl Following {
    /// The app's own new turn went into `stream_file`: not another process's.
    pub(super) fn shown(&mut self, stream_file: &str) {
        if let Some(session) = &mut self.session {
            session.shown.insert(stream_file.to_owned());
        }
    }

    /// A turn written by another process is followed now.
    pub(super) fn is_tailing(&self) -> bool {
        self.tailing.is_some()
    }
}

impl Conversation {
    /// The next thing to act on: an update of the running turn (only when `take_updates`), or a
    /// change in a followed folder.
    pub async fn next_incoming(&mut self, take_updates: bool) -> Incoming {
        let turn = self.turn.as_mut().filter(|_| take_updates);
        let session = self.follow.session.as_ref().map(|s| &s.changes);
        let sessions = self.follow.sessions.as_ref().map(|s| &s.changes);
        tokio::select! {
            update = async {
                match turn {
                    Some(turn) => turn.next_update().await,
                    None => std::future::pending().await,
                }
            } => Incoming::Update(update),
            paths = next_change(session) => Incoming::Session(paths),
            paths = next_change(sessions) => Incoming::Sessions(paths),
        }
    }

    /// Act on a change in a followed folder; whether the screen changed.
    pub async fn on_change(&mut self, app: &mut Ui, incoming: Incoming) -> bool {
        match incoming {
            Incoming::Update(update) => {
                self.apply(app, update);
                true
            }
            Incoming::Session(_) => self.show_new_turns(app),
            Incoming::Sessions(paths) => self.sessions_changed(app, paths).await,
        }
    }

    /// `watch`: open the newest live session, else wait for one; with `follow`, open each new one
    /// as it starts.
    pub async fn watch_sessions(&mut self, app: &mut Ui, follow: bool) {
        let Some(store) = self.store.clone() else {
            return;
        };
        let root = store.root().to_owned();
        let _ = std::fs::create_dir_all(&root);
        let top = root.clone();
        // New session folders, and the meta and stream files inside them (a session whose first
        // meta was written before its folder was watched is noticed at its first stream bytes).
        let changes = Changes::watch(
            &root,
            true,
            FOLDER_POLL,
            Box::new(move |path| {
                path.parent() == Some(top.as_path())
                    || path.file_name().is_some_and(|name| {
                        name == META || name.to_string_lossy().ends_with(".sse")
                    })
            }),
        );
        let listed = store.list();
        let seen = listed
            .iter()
            .filter_map(|meta| Some((meta.id.clone(), live_turn(meta)?.stream_file.clone())))
            .collect();
        self.follow.sessions = Some(WatchedSessions {
            root,
            changes,
            follow,
            seen,
            since: rfc3339(SystemTime::now()),
        });
        let newest = listed.iter().find(|meta| live_turn(meta).is_some());
        if let Some(saved) = newest.and_then(|meta| store.load(&meta.id).ok()) {
            self.open_watched(app, saved).await;
            return;
        }
        // The answer pane says what it waits for; the status bar says `waiting for a session`.
        app.mode = Mode::Watch;
        app.focus = Focus::Answer;
    }

    /// The sessions folder changed: open the newest session that started streaming, when nothing
    /// is shown yet or `--follow` says so.
    async fn sessions_changed(&mut self, app: &mut Ui, paths: Vec<PathBuf>) -> bool {
        let (Some(store), Some(watched)) = (self.store.clone(), &mut self.follow.sessions) else {
            return false;
        };
        let mut ids: Vec<String> = paths
            .iter()
            .filter_map(|path| {
                let id = session_of(&watched.root, path)?;
                // Bytes of a turn already noticed are no news (a new turn changes the meta).
                let streamed = path.extension().is_some_and(|e| e == "sse");
                (!(streamed && watched.seen.contains_key(&id))).then_some(id)
            })
            .collect();
        if paths.is_empty() && !watched.changes.is_watching() {
            // Nothing reports changes here: every session is looked at, at the poll's pace.
            ids = store.list().into_iter().map(|meta| meta.id).collect();
        }
        ids.sort();
        ids.dedup();
        let mut newest: Option<(String, SavedSession)> = None;
        for id in ids {
            let Ok(saved) = store.load(&id) else { continue };
            let Some(turn) = saved.meta.turns.last().filter(|turn| {
                turn.status == TurnStatus::Streaming || turn.started_at >= watched.since
            }) else {
                continue;
            };
            if watched.seen.get(&id) == Some(&turn.stream_file) {
                continue;
            }
            watched.seen.insert(id, turn.stream_file.clone());
            let started = turn.started_at.clone();
            if newest.as_ref().is_none_or(|(at, _)| *at <= started) {
                newest = Some((started, saved));
            }
        }
        let Some((_, saved)) = newest else {
            return false;
        };
        let shown = app.session_id.as_deref();
        if shown == Some(saved.meta.id.as_str()) || (shown.is_some() && !watched.follow) {
            return false;
        }
        // Never in the way of the user's own question, streaming or being typed.
        let typed = app.panes.prompt.text();
        let typing = shown.is_some() && !typed.trim().is_empty();
        if typing || (self.is_streaming() && !self.follow.is_tailing()) {
            app.set_message(
                format!(
                    "another session started: {} (s opens it)",
                    crate::tui::screen::clean(saved.meta.first_question())
                ),
                Severity::Info,
            );
            return true;
        }
        let switched = shown.is_some();
        let question = crate::tui::screen::clean(saved.meta.first_question());
        self.open_watched(app, saved).await;
        if !switched && !typed.trim().is_empty() {
            // Typed while waiting: it stays, to follow up the session once its turn ends.
            app.panes.prompt.editor.insert_str(typed);
        }
        if switched
            && app
                .message
                .as_ref()
                .is_none_or(|(_, s)| *s == Severity::Info)
        {
            app.set_message(format!("a new session started: {question}"), Severity::Info);
        }
        true
    }

    /// Open `saved` (found by `watch`), saying so when it cannot be opened.
    async fn open_watched(&mut self, app: &mut Ui, saved: SavedSession) {
        if let Err(e) = self.open(app, saved).await {
            app.set_message(e, Severity::Error);
        }
    }

    /// After `saved` is opened: follow its folder, and its turn still streaming, if any.
    pub(super) fn follow_opened(&mut self, app: &mut Ui, live: Option<TurnMeta>) {
        let Some(saved) = &self.saved else {
            return;
        };
        let changes = Changes::watch(
            saved.dir(),
            false,
            FOLDER_POLL,
            Box::new(|path| path.file_name().is_some_and(|name| name == META)),
        );
        self.follow.session = Some(FollowedSession {
            id: saved.meta.id.clone(),
            changes,
            shown: saved
                .meta
                .turns
                .iter()
                .map(|turn| turn.stream_file.clone())
                .collect(),
        });
        if let Some(turn) = live {
            self.tail(app, &turn);
        }
    }

    /// Follow `turn` of the opened session, written by another process, as the newest turn.
    fn tail(&mut self, app: &mut Ui, turn: &TurnMeta) {
        let Some(saved) = &self.saved else {
            return;
        };
        let Some(path) = saved.stream_path(turn) else {
            return;
        };
        let dir = saved.dir().to_owned();
        let file = turn.stream_file.clone();
        let writing = move || writer_alive(&dir, &file);
        let stream = match tail_file(&path, Some(saved.provider()), writing) {
            Ok(stream) => stream,
            Err(e) => {
                app.set_message(
                    format!("cannot follow {}: {e}", turn.stream_file),
                    Severity::Error,
                );
                return;
            }
        };
        let request = saved_request(saved, turn, &app.turns);
        app.begin_turn_with(Some(turn.question.clone()), request);
        if let Some(shown) = app.turns.last_mut() {
            shown.saved_index = saved.meta.turns.iter().position(|t| t == turn);
            // From the request as its writer noted it (to the millisecond), else as the session
            // says (to the second).
            shown.started = crate::agent::replay::read_arrivals(&path)
                .and_then(|arrivals| arrivals.sent_unix_ms)
                .map_or_else(|| started_at(turn), instant_of_unix_ms);
            shown.raw = Some(path.clone());
        }
        self.attach(app, TurnDriver::start(Vec::new(), None, |_| stream));
        self.follow.tailing = Some(turn.stream_file.clone());
        app.watching = true;
        // Browsing: `q` quits (the session goes on), any letter starts a follow-up.
        app.focus = Focus::Answer;
    }

    /// The followed turn ended: how its writer saved the end decides how it shows (complete, or
    /// cut when the writer died); then turns that started meanwhile show up.
    pub(super) fn tailed_turn_ended(&mut self, app: &mut Ui) {
        let Some(file) = self.follow.tailing.take() else {
            return;
        };
        if let Some(saved) = self.reload_saved()
            && let Some(meta) = saved.meta.turns.iter().find(|t| t.stream_file == file)
            && meta.status != TurnStatus::Streaming
            && let Some(turn) = app.turns.last_mut()
        {
            turn.conn = saved_conn(meta, &turn.session);
        }
        let message = match app.turns.last().map(|turn| &turn.conn) {
            Some(ConnState::Complete) => ("complete — type a follow-up".to_owned(), Severity::Info),
            Some(ConnState::Cut(reason)) => (format!("cut: {reason}"), Severity::Warning),
            Some(other) => (
                format!("the watched turn ended: {}", other.label()),
                Severity::Info,
            ),
            None => return,
        };
        app.set_message(message.0, message.1);
        self.show_new_turns(app);
    }

    /// Stop following the turn another process writes (it goes on there).
    pub(super) fn stop_tailing(&mut self, app: &mut Ui) {
        if self.follow.tailing.take().is_some() {
            self.turn = None;
            app.stream_running = false;
            app.watching = false;
        }
    }

    /// The opened session as it is on disk now (kept as the saved session).
    fn reload_saved(&mut self) -> Option<&SavedSession> {
        let id = &self.follow.session.as_ref()?.id;
        let fresh = self.store.as_ref()?.load(id).ok()?;
        self.saved = Some(fresh);
        self.saved.as_ref()
    }

    /// Turns of the opened session that another process started and the app does not show yet:
    /// finished ones at once, a streaming one followed. Nothing while a turn runs here (its end
    /// looks again). Whether the screen changed.
    fn show_new_turns(&mut self, app: &mut Ui) -> bool {
        if self.turn.is_some() {
            return false;
        }
        let Some(saved) = self.reload_saved().cloned() else {
            return false;
        };
        let Some(followed) = &mut self.follow.session else {
            return false;
        };
        let new: Vec<TurnMeta> = saved
            .meta
            .turns
            .iter()
            .filter(|turn| followed.shown.insert(turn.stream_file.clone()))
            .cloned()
            .collect();
        let Some((last, finished)) = new.split_last() else {
            return false;
        };
        for turn in finished
            .iter()
            .chain(Some(last).filter(|t| t.status != TurnStatus::Streaming))
        {
            let restored = restore_turn(&saved, turn, &app.turns);
            app.add_turn(restored);
        }
        if last.status == TurnStatus::Streaming {
            self.tail(app, last);
            app.set_message(
                "a new turn started in another process — watching it",
                Severity::Info,
            );
        }
        true
    }
}

/// The next change `changes` reports (never, without it).
async fn next_change(changes: Option<&Changes>) -> Vec<PathBuf> {
    match changes {
        Some(changes) => changes.next().await,
        None => std::future::pending().await,
    }
}

/// The session a path under the sessions folder `root` belongs to.
fn session_of(root: &Path, path: &Path) -> Option<String> {
    let first = path.strip_prefix(root).ok()?.components().next()?;
    Some(first.as_os_str().to_string_lossy().into_owned())
}

/// When `turn` started, on this process's clock (now, when its time cannot be read).
/// The instant of this process's clock that was `unix_ms` on the wall clock.
fn instant_of_unix_ms(unix_ms: u64) -> std::time::Instant {
    let now = std::time::Instant::now();
    let since_epoch = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let age = since_epoch.saturating_sub(Duration::from_millis(unix_ms));
    now.checked_sub(age).unwrap_or(now)
}

fn started_at(turn: &TurnMeta) -> std::time::Instant {
    let now = std::time::Instant::now();
    let since_epoch = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    let age = unix_seconds(&turn.started_at).map_or(0, |at| since_epoch.saturating_sub(at));
    now.checked_sub(Duration::from_secs(age)).unwrap_or(now)
}
