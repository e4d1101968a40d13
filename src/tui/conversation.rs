//! What stands behind the app's conversation: the agent that answers (a live provider, or the
//! built-in demo agent running in-process), and the saved session every turn is written to as it
//! streams — the same files `research-tui ask` writes, so `sessions`, `open` and `--resume` find both.
//!
//! [`Conversation`] does the I/O that [`App`] (pure state) asks for through its effects: start a
//! stream for a question (a follow-up, a branch, a retry), record its raw bytes and how it ended, and
//! replace the conversation with a saved one. It owns the running turn ([`TurnDriver`], the same one
//! `ask` uses): the event loop reads its updates through [`Conversation::next_incoming`], with the
//! changes of sessions other processes write ([`watching`]).

use std::io;

use crate::agent::client::StreamHandle;
use crate::agent::client::resume::ServerRun;
use crate::agent::client::{ApiKey, RawSink, StreamOptions, is_loopback};
use crate::agent::live;
use crate::agent::stream::StreamUpdate;
use crate::agent::turn::{TurnDriver, TurnTarget};
use crate::demo::{Fault, ServerConfig};
use crate::local::meta::SessionMeta;
use crate::local::store::{SavedSession, SavedTurn, SessionStore, TurnStatus};
use crate::model::session::Session;
use crate::model::stream_end::StreamEnd;
use crate::wire::provider::{Ask, Provider};

use super::state::{App, Continuation, Mode, Severity};
use super::ui::Ui;

mod playback;
mod restore;
mod watching;
pub use restore::restore_turns;
use restore::{restore_first_turns, restore_turn, saved_conn, saved_request};
pub use watching::Incoming;

/// Who answers.
pub struct Agent {
    pub config: LiveConfig,
    /// The in-process demo agent (its task is stopped when the agent is dropped).
    server: Option<tokio::task::JoinHandle<()>>,
    /// The demo agent takes checkpoints it never issued as follow-ups (an opened session).
    accepts_foreign: bool,
}

pub use live::LiveConfig;

impl Agent {
    /// Start the built-in demo agent in-process and talk to it as `provider`.
    pub async fn demo(provider: Provider, settings: &Settings, foreign: bool) -> io::Result<Agent> {
        let server = ServerConfig {
            speed: settings.demo_speed,
            fault: settings.demo_fault,
            accept_foreign_checkpoints: foreign,
            ..ServerConfig::default()
        };
        let (addr, task) = crate::demo::spawn(server, 0).await?;
        let mut config = LiveConfig::demo(provider, addr);
        config.options = settings.options;
        Ok(Agent {
            config,
            server: Some(task),
            accepts_foreign: foreign,
        })
    }

    /// A live agent.
    pub fn live(mut config: LiveConfig, settings: &Settings) -> Agent {
        config.options = settings.options;
        Agent {
            config,
            server: None,
            accepts_foreign: false,
        }
    }

    pub fn is_demo(&self) -> bool {
        self.server.is_some()
    }

    pub fn mode(&self) -> Mode {
        if self.is_demo() {
            Mode::Demo
        } else {
            Mode::Live
        }
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        if let Some(server) = &self.server {
            server.abort();
        }
    }
}

/// How streams are started (kept to start a new demo agent when a saved session is opened).
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub demo_speed: f64,
    pub demo_fault: Option<Fault>,
    pub options: StreamOptions,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            demo_speed: 1.0,
            demo_fault: None,
            options: StreamOptions::default(),
        }
    }
}

/// The API key for `provider` from where `ask` reads it: Bigdata.com from the shared config
/// (environment or private config file), xAI and Zeta Alpha from their environment variables.
pub fn provider_key(provider: Provider) -> Option<ApiKey> {
    crate::local::config::live_target(provider, None)
        .ok()?
        .api_key
}

/// Where a provider's requests go by the user's configuration (environment, config file, default).
pub fn configured_base_url(provider: Provider) -> String {
    crate::local::config::live_target(provider, None)
        .map(|target| target.base_url)
        .unwrap_or_else(|_| live::default_base_url(provider).to_owned())
}

/// The agent, the saved session, and the turn being streamed.
pub struct Conversation {
    agent: Option<Agent>,
    /// Where sessions are saved; `None` saves nothing (a replay).
    store: Option<SessionStore>,
    /// The saved session, while no running turn is saving into it (then the turn holds it).
    saved: Option<SavedSession>,
    /// The running turn: its stream, and the saved turn it records into.
    turn: Option<TurnDriver<SavedTurn>>,
    pub settings: Settings,
    /// Open every saved session on the demo agent (`--demo`), whatever answered it.
    pub force_demo: bool,
    /// Sessions other processes write, followed as they stream.
    follow: watching::Following,
    /// `open --speed`: the saved turns still to play.
    playback: playback::Queue,
    /// The comparison this conversation is one agent of: its saved session is marked with it.
    pub comparison: Option<String>,
    /// Where each ended turn is sent as a trace (`--otlp-endpoint`).
    pub exporter: Option<crate::otel::Exporter>,
}

impl Conversation {
    pub fn new(store: Option<SessionStore>, settings: Settings) -> Conversation {
        Conversation {
            agent: None,
            store,
            saved: None,
            turn: None,
            settings,
            force_demo: false,
            follow: Default::default(),
            playback: Default::default(),
            comparison: None,
            exporter: None,
        }
    }

    /// Answer with `agent`; the app shows its mode and opens URLs against its base.
    pub fn set_agent(&mut self, agent: Agent, app: &mut Ui) {
        app.mode = agent.mode();
        app.provider = Some(agent.config.provider);
        app.api_base = Some(agent.config.base_url.clone());
        app.max_attempts = agent.config.options.max_attempts.max(1);
        self.agent = Some(agent);
    }

    pub fn agent(&self) -> Option<&Agent> {
        self.agent.as_ref()
    }

    /// The saved session this conversation is written to.
    pub fn saved(&self) -> Option<&SavedSession> {
        self.saved.as_ref().or_else(|| {
            let turn = self.turn.as_ref()?.recorder()?;
            Some(&turn.saved)
        })
    }

    /// A turn's stream is running.
    pub fn is_streaming(&self) -> bool {
        self.turn.is_some()
    }

    pub fn store(&self) -> Option<&SessionStore> {
        self.store.as_ref()
    }

    /// Saved sessions, newest first.
    pub fn list(&self) -> Vec<SessionMeta> {
        self.store
            .as_ref()
            .map(SessionStore::list)
            .unwrap_or_default()
    }

    /// Ask `question` as a new turn continuing `cont`. Returns whether a stream started.
    pub fn ask(&mut self, app: &mut Ui, question: String, cont: Continuation) -> bool {
        if self.follow.is_tailing() {
            app.set_message(super::state::app::STILL_WATCHING, Severity::Warning);
            return false;
        }
        let Some(agent) = &self.agent else {
            app.set_message("follow-ups need an agent", Severity::Warning);
            return false;
        };
        let ask = Ask {
            question: question.clone(),
            chat_id: cont.chat_id.clone(),
            checkpoint_id: cont.checkpoint_id.clone(),
            history: app.history(cont.from_turn),
            transcripts: app.transcripts(cont.from_turn),
            paused: Vec::new(),
        };
        let provider = agent.config.provider;
        let base_url = agent.config.base_url.clone();
        // A stream still running (after an ERROR event) is dropped unsaved, as a new one replaces it.
        self.reclaim_saved();
        let (recorder, sinks) = match self.begin_saved_turn(provider, &base_url, &ask) {
            Ok(Some((mut turn, sink))) => {
                // A stopped writer holds the session: the turn went to a branch of it.
                if let Some(diverted) = turn.saved.take_diverted() {
                    app.set_message(diverted, Severity::Warning);
                }
                (Some(turn), vec![sink])
            }
            Ok(None) => (None, Vec::new()),
            Err(e) => {
                app.set_message(format!("this turn is not saved: {e}"), Severity::Error);
                (None, Vec::new())
            }
        };
        let saved_index = recorder.as_ref().map(|turn| turn.index);
        let mut raw = None;
        if let Some(turn) = &recorder
            && let Some(meta) = turn.saved.meta.turns.get(turn.index)
        {
            self.follow.shown(&meta.stream_file);
            raw = turn.saved.stream_path(meta);
        }
        let agent = self.agent.as_ref().expect("checked above");
        let driver = TurnDriver::start(sinks, recorder, |sink| {
            live::start_recorded(&agent.config, &ask, sink)
        });
        app.begin_turn_with(Some(question), cont);
        if let Some(turn) = app.turns.last_mut() {
            turn.saved_index = saved_index;
            turn.raw = raw;
        }
        self.attach(app, driver);
        app.session_id = self.saved().map(|s| s.meta.id.clone());
        true
    }

    /// Play `stream` (a replayed recording, asked by no one) in a new turn; nothing is saved.
    pub fn play(&mut self, app: &mut Ui, stream: StreamHandle) {
        app.begin_turn(None);
        self.attach(app, TurnDriver::start(Vec::new(), None, |_| stream));
    }

    /// `driver` feeds the newest turn from now on.
    fn attach(&mut self, app: &mut Ui, driver: TurnDriver<SavedTurn>) {
        self.turn = Some(driver);
        app.stream_running = true;
    }

    /// The running turn ended: its trace goes to the collector, if one is configured.
    fn export_ended(&self) {
        let (Some(exporter), Some(turn)) = (&self.exporter, &self.turn) else {
            return;
        };
        if let Some(saved) = turn.recorder() {
            exporter.turn(crate::otel::TurnRef {
                dir: saved.saved.dir().to_path_buf(),
                index: saved.index,
                key: Default::default(),
            });
        }
    }

    /// Drop the running turn, if any (stopping its stream), and take back the saved session it held.
    fn reclaim_saved(&mut self) {
        if let Some(saved) = self.turn.take().and_then(TurnDriver::into_recorder) {
            self.saved = Some(saved.saved);
        }
    }

    /// `r`: turn `index`'s question again, with the continuation it was sent with, as a new turn.
    pub fn retry(&mut self, app: &mut Ui, index: usize) -> bool {
        let Some(turn) = app.turns.get(index) else {
            return false;
        };
        let Some(question) = turn.question.clone() else {
            return false;
        };
        // The same ids, as `r` promises: a first turn has no chat id of its own to send, but the
        // agent gave it one before it ended (a cancel, a cut); asked without it, the retry would
        // start another chat and the session's chat id would be overwritten.
        // Only where a chat id names the conversation (Bigdata.com): elsewhere the id a turn got is
        // its response's, and sending it would make the retry a follow-up of the failed answer.
        let mut cont = turn.request.clone();
        let by_chat = self.agent.as_ref().is_some_and(|agent| {
            agent.config.provider.spec().follow_up
                == crate::wire::provider::spec::FollowUp::ChatOrCheckpoint
        });
        if cont.chat_id.is_none() && by_chat {
            cont.chat_id = turn.chat_id().map(str::to_owned);
        }
        let started = self.ask(app, question, cont);
        if started && let Some(turn) = app.turns.last_mut() {
            turn.retry_of = Some(index);
        }
        started
    }

    /// The session file and turn for a new question (the session is created at the first one), and
    /// the sink its raw bytes go to. The saved session moves into the returned turn.
    fn begin_saved_turn(
        &mut self,
        provider: Provider,
        base_url: &str,
        ask: &Ask,
    ) -> io::Result<Option<(SavedTurn, RawSink)>> {
        let Some(store) = &self.store else {
            return Ok(None);
        };
        if self.saved.is_none() {
            let mut saved =
                store.create(provider.spec().endpoint().name, provider.as_str(), base_url)?;
            if let Some(agent) = &self.agent {
                saved.set_options(agent.config.provider_options())?;
            }
            if let Some(id) = &self.comparison {
                saved.set_comparison(id)?;
            }
            self.saved = Some(saved);
        }
        let saved = self.saved.as_mut().expect("created above");
        let writer = saved.begin_turn(&ask.question, ask.checkpoint_id.as_deref())?;
        let saved = self.saved.take().expect("created above");
        Ok(Some(SavedTurn::new(saved, writer)))
    }

    /// The running turn's next update (never, while no turn runs).
    pub async fn next_update(&mut self) -> StreamUpdate {
        match &mut self.turn {
            Some(turn) => turn.next_update().await,
            None => std::future::pending().await,
        }
    }

    /// An update of the running turn that already arrived, without waiting.
    pub fn try_next_update(&mut self) -> Option<StreamUpdate> {
        self.turn.as_mut()?.try_next_update()
    }

    /// Apply a stream update to the newest turn, and save what it changed.
    pub fn apply(&mut self, app: &mut Ui, update: StreamUpdate) {
        if !matches!(update, StreamUpdate::Events(_)) {
            // Connection progress and how the stream ended (messages are already redacted).
            crate::log::log(&format!("stream: {update:?}"));
        }
        let Some(turn) = &mut self.turn else {
            app.apply_update(update);
            return;
        };
        let saved = turn.apply(update, &mut NewestTurn(app));
        if !turn.is_running() {
            // The answer shown is whole; its saved file left a line past the decoder's limit out.
            let not_saved = turn.recorder().and_then(|rec| {
                let meta = rec.saved.meta.turns.get(rec.index)?;
                Some(format!("turn file: {}", meta.not_saved.as_deref()?))
            });
            if let Some(note) = not_saved {
                app.set_message(note, Severity::Warning);
            }
            self.export_ended();
            self.reclaim_saved();
            self.tailed_turn_ended(app);
            self.play_next(app);
        }
        if let Err(e) = saved {
            warn_unsaved(app, &e);
        }
    }

    /// The user cancelled the running stream (the app already ended the turn): stop it, record it,
    /// and cancel its run on the server when it has one (OpenAI deep research).
    pub fn cancelled(&mut self, app: &mut Ui) {
        let Some(turn) = &mut self.turn else {
            return;
        };
        let saved = turn.cancel(&NewestTurn(app));
        if let Some(run) = turn.take_cancelled_run() {
            cancel_on_server(app, run);
        }
        self.export_ended();
        self.reclaim_saved();
        self.play_rest_at_once(app);
        // A followed turn goes on in its own process: only this app stopped following it.
        self.stop_tailing(app);
        if let Err(e) = saved {
            warn_unsaved(app, &e);
        }
    }

    /// Leaving: stop a running stream and record its turn as cancelled.
    pub fn finish(&mut self, app: &mut Ui) {
        // Leaving: the turns not played yet need no rebuilding.
        self.playback = Default::default();
        if let Some(turn) = app.turns.last_mut()
            && turn.conn.in_progress()
        {
            turn.end(StreamEnd::Cancelled);
        }
        self.cancelled(app);
        app.stream_running = false;
    }

    /// Drive the running stream to its end (tests, and scripts of the app).
    pub async fn run_stream(&mut self, app: &mut Ui) {
        while let Some(turn) = &mut self.turn {
            let update = turn.next_update().await;
            self.apply(app, update);
        }
    }

    /// Replace the conversation with saved session `id`.
    pub async fn open_id(&mut self, app: &mut Ui, id: &str) -> Result<(), String> {
        let store = self
            .store
            .as_ref()
            .ok_or_else(|| "sessions are not saved in this mode".to_owned())?;
        let saved = store
            .load(id)
            .map_err(|e| format!("cannot open session {id}: {e}"))?;
        self.open(app, saved).await
    }

    /// Replace the conversation with `saved`: every turn rebuilt from its raw stream at once, the
    /// agent that recorded it (a fresh demo agent for a demo session), ready for a follow-up from
    /// its last checkpoint. Later turns are saved into the same session.
    pub async fn open(&mut self, app: &mut Ui, saved: SavedSession) -> Result<(), String> {
        // A turn followed from another process goes on there: stop following it here.
        if self.follow.is_tailing() {
            self.stop_tailing(app);
            app.turns.pop();
        }
        if self.is_streaming() || app.in_progress() {
            return Err("a stream is running — Ctrl-C to cancel it first".into());
        }
        let warning = self.agent_for(app, &saved).await?;
        // A turn still streaming in another process is followed, not rebuilt.
        let live = saved
            .meta
            .turns
            .last()
            .filter(|turn| turn.status == TurnStatus::Streaming)
            .cloned();
        let finished = saved.meta.turns.len() - usize::from(live.is_some());
        // Replaying every raw turn file is file I/O and parsing: off the event loop's thread.
        let to_replay = saved.clone();
        let turns = tokio::task::spawn_blocking(move || restore_first_turns(&to_replay, finished))
            .await
            .map_err(|e| format!("cannot rebuild the session: {e}"))?;
        let n = saved.meta.turns.len();
        app.load_turns(turns, Some(saved.meta.id.clone()));
        app.resume = Continuation {
            chat_id: saved.meta.chat_id.clone(),
            ..Continuation::default()
        };
        let not_saved = saved.meta.turns.iter().enumerate().find_map(|(i, turn)| {
            let note = turn.not_saved.as_deref()?;
            Some(format!("turn {}'s file: {note}", i + 1))
        });
        self.saved = Some(saved);
        let watching = live.is_some();
        self.follow_opened(app, live);
        match warning {
            Some(warning) => app.set_message(warning, Severity::Warning),
            None if watching => {
                let quits = app.keys.quit_keys();
                let text = format!("watching live — {quits} quits, the session goes on");
                app.set_message(text, Severity::Info)
            }
            // The turns are shown whole; their files are not.
            None if not_saved.is_some() => app.set_message(
                format!("opened a saved session — {}", not_saved.unwrap_or_default()),
                Severity::Warning,
            ),
            None => app.set_message(
                format!(
                    "opened a saved session ({n} turn{}) — type a follow-up",
                    if n == 1 { "" } else { "s" }
                ),
                Severity::Info,
            ),
        }
        Ok(())
    }

    /// Answer follow-ups of `saved` with the agent that recorded it: a demo agent for a demo
    /// session (or with `--demo`), else the live provider with the user's own key and base URL.
    /// A warning when follow-ups may not work as the user expects.
    async fn agent_for(
        &mut self,
        app: &mut Ui,
        saved: &SavedSession,
    ) -> Result<Option<String>, String> {
        let provider = saved.provider();
        let mut warning = None;
        if self.force_demo || is_loopback(&saved.meta.base_url) {
            let reuse = self
                .agent
                .as_ref()
                .is_some_and(|a| a.is_demo() && a.accepts_foreign);
            if reuse {
                let mut agent = self.agent.take().expect("checked above");
                let addr = agent
                    .config
                    .base_url
                    .trim_start_matches("http://")
                    .parse()
                    .map_err(|e| format!("the demo agent's address: {e}"))?;
                agent.config = LiveConfig {
                    options: agent.config.options,
                    ..LiveConfig::demo(provider, addr)
                };
                self.set_agent(agent, app);
            } else {
                let agent = Agent::demo(provider, &self.settings, true)
                    .await
                    .map_err(|e| format!("cannot start the built-in demo agent: {e}"))?;
                self.set_agent(agent, app);
            }
        } else {
            let key = provider_key(provider);
            if key.is_none() {
                warning = Some(format!(
                    "no API key for {} ({}): follow-ups will fail",
                    provider.label(),
                    provider.spec().api_key_env
                ));
            }
            // The key goes only where the user's own configuration points, never to a URL read
            // from a session file (which anyone could have edited or shared).
            let base_url = configured_base_url(provider);
            let recorded = saved.meta.base_url.trim_end_matches('/');
            if key.is_some() && recorded != base_url {
                warning = Some(format!(
                    "this session was recorded against {}; follow-ups go to {base_url}",
                    crate::render::sanitize::sanitize_line(recorded)
                ));
            }
            let config = LiveConfig {
                base_url,
                ..LiveConfig::new(provider, key)
            }
            .with_options(&saved.meta.options);
            let agent = Agent::live(config, &self.settings);
            self.set_agent(agent, app);
        }
        Ok(warning)
    }
}

/// The app's newest turn, which the running stream feeds (through the app, which keeps its own
/// bookkeeping of the stream).
struct NewestTurn<'a>(&'a mut App);

impl TurnTarget for NewestTurn<'_> {
    fn apply_update(&mut self, update: StreamUpdate) {
        self.0.apply_update(update);
    }

    fn session(&self) -> Option<&Session> {
        self.0.turns.last().map(|turn| &turn.session)
    }
}

/// Cancel `run` on the server in the background (the app goes on at once); the outcome goes to
/// the log.
fn cancel_on_server(app: &mut Ui, run: ServerRun) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    if let Some(id) = run.run_id() {
        app.set_message(
            format!("cancelled; cancelling the run {id} on the server too"),
            Severity::Info,
        );
    }
    runtime.spawn(async move {
        let outcome = match run.cancel().await {
            Ok(id) => format!("cancelled the run {id} on the server"),
            Err(e) => format!("the run may go on on the server: {e}"),
        };
        crate::log::log(&outcome);
    });
}

fn warn_unsaved(app: &mut Ui, e: &io::Error) {
    app.set_message(
        format!("could not update the saved session: {e}"),
        Severity::Error,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_base_urls_are_demo_sessions() {
        assert!(is_loopback("http://127.0.0.1:41234"));
        assert!(is_loopback("http://localhost:8787/"));
        assert!(is_loopback("http://[::1]:9"));
        assert!(!is_loopback("https://agents.bigdata.com"));
        assert!(!is_loopback("https://api.x.ai"));
    }
}
