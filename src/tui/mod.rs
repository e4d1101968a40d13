//! The interactive terminal app: set-up and restore of the terminal, and the event loop that merges
//! key presses, stream updates and a render tick.
//!
//! Drawing is coalesced: state changes mark the screen dirty and at most one frame is drawn per
//! [`FRAME`], except that a key's change is drawn at once ([`pacing`]). Keys come before stream
//! updates: a batch of updates stops as soon as a key waits. The spinner tick runs only while a
//! stream is in progress, so an idle app does not wake up.

#[cfg(test)]
mod batch_tests;
pub mod compare;
pub mod conversation;
mod effects;
pub mod export;
mod hangup;
mod pacing;
pub mod screen;
pub mod state;
mod terminal;
pub mod ui;

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use crossterm::event::EventStream;
use futures::StreamExt;

use crate::agent::client::{ApiKey, StreamOptions};
use crate::agent::live;
use crate::agent::replay::{Speed, replay_file};
use crate::agent::stream::StreamUpdate;
use crate::model::event::AgentEvent;
use crate::report::eyre::{self, WrapErr};
use crate::wire::provider::{Provider, ProviderOptions};
use conversation::{Agent, Conversation, Incoming, LiveConfig, Settings};
use state::{AppConfig, Continuation, Mode, Severity};
pub use terminal::restore_terminal;
pub(crate) use terminal::{Term, TerminalGuard, setup_terminal, suspend};
use ui::Ui;

/// The demo's first question.
pub const DEMO_QUESTION: &str =
    "Break down NVIDIA's latest quarter: data-center growth, margins, and guidance";

/// The production agent.
pub const DEFAULT_BASE_URL: &str = crate::local::config::DEFAULT_BASE_URL;

pub use pacing::FRAME;
use pacing::{Pacing, TEXT_PER_FRAME};
use tokio::time::Instant;
/// Spinner and clock refresh while a stream runs.
pub const TICK: Duration = Duration::from_millis(100);

#[derive(Debug, Clone)]
pub struct ReplayOptions {
    pub path: PathBuf,
    pub speed: Speed,
    /// The wire format; `None` detects it.
    pub provider: Option<Provider>,
}

/// How the app starts.
#[derive(Debug, Clone)]
pub struct TuiOptions {
    /// Use the built-in demo agent (also when there is no API key).
    pub demo: bool,
    /// Demo playback speed (1.0 = as recorded).
    pub demo_speed: f64,
    /// Make the demo agent misbehave on every request (tests).
    pub demo_fault: Option<crate::demo::Fault>,
    /// Who answers: Bigdata.com, xAI or Zeta Alpha.
    pub provider: Provider,
    pub base_url: String,
    /// LIVE mode's key (never printed: `ApiKey` hides it).
    pub api_key: Option<ApiKey>,
    /// Ask the agent at `base_url` without a key (one on this machine, or `--demo --base-url`
    /// naming a running demo agent) rather than start the built-in demo agent.
    pub keyless: bool,
    /// Play a recording instead of talking to an agent.
    pub replay: Option<ReplayOptions>,
    /// Quit shortly after the stream ends.
    pub exit_when_done: bool,
    /// Theme name (overrides the config file).
    pub theme: Option<String>,
    /// A first question to ask (LIVE); the demo asks its own.
    pub question: Option<String>,
    /// Seconds without data before a stream counts as stalled.
    pub idle_timeout: Duration,
    /// Continue from here (`--resume`, `--chat-id`) when no saved session knows it.
    pub resume: Continuation,
    /// A saved session to rebuild at once and continue (`open`, or `--resume` of a known one).
    pub open: Option<crate::local::store::SavedSession>,
    /// `open --speed`: play that session at its recorded pace instead.
    pub open_speed: Option<Speed>,
    /// Where conversations are saved (`None`: not saved).
    pub store: Option<crate::local::store::SessionStore>,
    /// xAI model, Zeta Alpha tenant and agent.
    pub provider_options: ProviderOptions,
    /// A failure also prints where it happened (`--debug`).
    pub debug: bool,
    /// `watch`: open the newest live session (waiting for one); `Some(true)` (`--follow`) also
    /// opens each new one as it starts.
    pub watch: Option<bool>,
    /// The key map in force (the config file's `[keys]` applied: [`load_keys`]).
    pub keys: state::keymap::Keymap,
    /// Where each turn is sent as a trace (`--otlp-endpoint`, the OTEL_ variables).
    pub otlp: Option<crate::otel::Config>,
}

impl Default for TuiOptions {
    fn default() -> Self {
        TuiOptions {
            demo: false,
            demo_speed: 1.0,
            demo_fault: None,
            provider: Provider::Bigdata,
            base_url: DEFAULT_BASE_URL.into(),
            api_key: None,
            keyless: false,
            replay: None,
            exit_when_done: false,
            theme: None,
            question: None,
            idle_timeout: StreamOptions::default().idle_timeout,
            resume: Continuation::default(),
            open: None,
            open_speed: None,
            store: Some(crate::local::store::SessionStore::default()),
            provider_options: ProviderOptions::default(),
            debug: false,
            watch: None,
            keys: state::keymap::Keymap::default(),
            otlp: None,
        }
    }
}

/// The key map with the config file's `[keys]` applied, or the one line that says which entry is
/// bad (a file that is not TOML leaves the keys as they are: the app warns about it).
pub fn load_keys(path: &std::path::Path) -> Result<state::keymap::Keymap, String> {
    let entries = match crate::local::config::read_file_config(path) {
        Ok(config) => config.key_entries(),
        Err(_) => Vec::new(),
    };
    state::keymap::Keymap::with_entries(&entries).map_err(|e| format!("{}: {e}", path.display()))
}

/// Put the config file's keys in `opts`; the exit (code 2, the bad entry said in one line) when an
/// entry of `[keys]` is bad.
fn keys_in_force(opts: &mut TuiOptions) -> Option<std::process::ExitCode> {
    match load_keys(&crate::local::config::config_file()) {
        Ok(keys) => {
            opts.keys = keys;
            None
        }
        Err(line) => {
            eprintln!("research-tui: {line}");
            Some(std::process::ExitCode::from(2))
        }
    }
}

/// Run the app on its own tokio runtime; the exit code for `main` (a failure is one line on stderr;
/// a bad `[keys]` entry exits with 2 before the terminal is touched).
pub fn run_blocking(opts: TuiOptions) -> std::process::ExitCode {
    block_on_screen(opts, run)
}

/// Run a comparison (see [`compare`]) on its own tokio runtime; the exit code.
pub fn run_compare_blocking(opts: TuiOptions, start: compare::Start) -> std::process::ExitCode {
    block_on_screen(opts, |opts| async move {
        let _ = crate::log::init(&crate::local::config::log_file());
        crate::log::log("start: a comparison");
        // Every agent started and asked (or every session reopened) before the screen is taken over.
        let mut screen = compare::start(&opts, start).await?;
        let mut terminal = setup_terminal().wrap_err("cannot set up the terminal")?;
        let _guard = TerminalGuard;
        let result = compare::event_loop(&mut terminal, &mut screen).await;
        hangup::loop_ended();
        result
    })
}

/// `screen` run on a tokio runtime of its own, once the `[keys]` in force are known; the exit code.
fn block_on_screen<F: std::future::Future<Output = eyre::Result<()>>>(
    mut opts: TuiOptions,
    screen: impl FnOnce(TuiOptions) -> F,
) -> std::process::ExitCode {
    if let Some(exit) = keys_in_force(&mut opts) {
        return exit;
    }
    let runtime = match crate::runtime() {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    let debug = opts.debug;
    match runtime.block_on(screen(opts)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(report) => crate::report::exit(&report, debug),
    }
}

/// The theme (for the terminal's colour depth) and the streams' settings, as every screen of the
/// app reads them, with the config file's or the theme's warning to show.
pub(crate) fn theme_and_settings(
    opts: &TuiOptions,
) -> (crate::styled::theme::Theme, Settings, Option<String>) {
    let (config, config_warning) = crate::styled::theme::read_config();
    let (theme, theme_warning) = crate::styled::theme::select(
        opts.theme.as_deref(),
        &config,
        crate::styled::theme::no_color_env(),
    );
    let theme = theme.for_depth(crate::styled::colors::ColorDepth::from_env());
    let settings = Settings {
        demo_speed: opts.demo_speed,
        demo_fault: opts.demo_fault,
        options: StreamOptions {
            idle_timeout: opts.idle_timeout.max(Duration::from_secs(1)),
            ..StreamOptions::default()
        },
    };
    (theme, settings, theme_warning.or(config_warning))
}

/// Run the app until the user quits (or the stream ends, with `exit_when_done`).
pub async fn run(opts: TuiOptions) -> eyre::Result<()> {
    // The screen belongs to the app: diagnostics go to the log file (logging is off if it cannot open).
    let _ = crate::log::init(&crate::local::config::log_file());
    crate::log::log(&format!(
        "start: research-tui {} (demo: {}, replay: {})",
        env!("CARGO_PKG_VERSION"),
        opts.demo,
        opts.replay.is_some()
    ));
    let (theme, settings, warning) = theme_and_settings(&opts);
    let replaying = opts.replay.is_some();
    let mut app = Ui::new(AppConfig {
        mode: if replaying { Mode::Replay } else { Mode::Demo },
        theme,
        can_ask: !replaying,
    });
    app.keys = opts.keys.clone();
    app.pane_sizes = crate::local::config::read_pane_sizes(&crate::local::config::layout_file());
    let mut conversation =
        Conversation::new(if replaying { None } else { opts.store.clone() }, settings);
    if let Some(config) = opts.otlp.as_ref().filter(|_| !replaying) {
        let mut secret = crate::local::summary::configured_keys();
        if let Some(key) = &opts.api_key {
            secret = secret.and(key.expose());
        }
        conversation.exporter =
            Some(crate::otel::Exporter::start(config, secret).map_err(|e| eyre::eyre!(e))?);
    }

    // Everything that can fail before the screen is taken over.
    let mut first_question = None;
    if let Some(replay_opts) = &opts.replay {
        start_replay(&mut app, &mut conversation, replay_opts)?;
    } else if let Some(saved) = opts.open.clone() {
        open_saved(&mut app, &mut conversation, &opts, saved).await?;
    } else if let Some(follow) = opts.watch {
        conversation.watch_sessions(&mut app, follow).await;
    } else {
        first_question = start_agent(&mut app, &mut conversation, &opts, &settings).await?;
    }
    if let Some(warning) = warning {
        app.set_message(warning, Severity::Warning);
    }
    // Without a terminal the app cannot run: said before the first question is asked, so no
    // session is saved for a question nobody could watch.
    terminal::terminal_available().wrap_err("cannot set up the terminal")?;
    let mut terminal = match setup_terminal() {
        Ok(terminal) => terminal,
        Err(e) => {
            // A question already asked (`open ID --question`) is cancelled, and saved so.
            conversation.finish(&mut app);
            return Err(e).wrap_err("cannot set up the terminal");
        }
    };
    let _guard = TerminalGuard;
    app.first_question = first_question;
    let result = event_loop(&mut terminal, &mut app, &mut conversation, &opts).await;
    hangup::loop_ended();
    conversation.finish(&mut app);
    drop(_guard);
    crate::otel::finish(conversation.exporter.as_ref()).await;
    result
}

/// `replay FILE`: the recording plays as a stream, read as it plays (opened before the screen is
/// taken over).
fn start_replay(
    app: &mut Ui,
    conversation: &mut Conversation,
    replay_opts: &ReplayOptions,
) -> eyre::Result<()> {
    let cannot_read = || format!("cannot read {}", replay_opts.path.display());
    let detected =
        crate::agent::replay::provider_of(&replay_opts.path).wrap_err_with(cannot_read)?;
    app.provider = replay_opts.provider.or(detected);
    // Played as it is read: a recording of any size is never in memory whole.
    let handle = replay_file(&replay_opts.path, replay_opts.speed, replay_opts.provider)
        .wrap_err_with(cannot_read)?;
    conversation.play(app, handle);
    if let Some(turn) = app.turns.last_mut() {
        turn.raw = Some(replay_opts.path.clone());
    }
    Ok(())
}

/// `open ID` (or `--resume` of a saved session): every turn at once, then `--question`, if any.
async fn open_saved(
    app: &mut Ui,
    conversation: &mut Conversation,
    opts: &TuiOptions,
    saved: crate::local::store::SavedSession,
) -> eyre::Result<()> {
    conversation.force_demo = opts.demo;
    let opened = match opts.open_speed {
        Some(speed) => conversation.play_saved(app, saved, speed).await,
        None => conversation.open(app, saved).await,
    };
    opened
        .map_err(|why| eyre::eyre!(why))
        .wrap_err("cannot open the saved session")?;
    conversation.force_demo = false;
    // `--resume CKPT` of an earlier turn: the next question branches from it.
    if let Some(checkpoint) = &opts.resume.checkpoint_id
        && let Some(i) = app
            .turns
            .iter()
            .position(|t| t.checkpoint_id() == Some(checkpoint.as_str()))
        && i + 1 < app.turns.len()
    {
        app.viewed_turn = Some(i);
        app.panes.answer.scroll_to_turn = Some(i);
    }
    if let Some(question) = opts.question.as_deref().map(str::trim)
        && !question.is_empty()
    {
        let cont = app.continuation();
        conversation.ask(app, question.to_owned(), cont);
    }
    Ok(())
}

/// A new conversation with the live agent, or the demo agent when there is no key (or `--demo`),
/// and its first question.
async fn start_agent(
    app: &mut Ui,
    conversation: &mut Conversation,
    opts: &TuiOptions,
    settings: &Settings,
) -> eyre::Result<Option<String>> {
    let resuming = opts.resume != Continuation::default();
    let demo =
        !opts.keyless && (opts.demo || opts.api_key.as_ref().is_none_or(|k| k.expose().is_empty()));
    let agent = if demo {
        let mut agent = Agent::demo(opts.provider, settings, resuming)
            .await
            .wrap_err("cannot start the built-in demo agent")?;
        // The demo answers what was asked for (Gemini's `--model` picks the grounded endpoint).
        agent.config = agent.config.clone().with_options(&opts.provider_options);
        agent
    } else {
        let config = LiveConfig {
            base_url: opts.base_url.trim_end_matches('/').to_owned(),
            ..LiveConfig::new(opts.provider, opts.api_key.clone())
        }
        .with_options(&opts.provider_options);
        Agent::live(config, settings)
    };
    conversation.set_agent(agent, app);
    app.resume = opts.resume.clone();
    if let Some(unknown) = crate::local::ids::unknown_continuation(
        opts.resume.checkpoint_id.as_deref(),
        opts.resume.chat_id.as_deref(),
        "the first question will be sent with it",
    ) {
        app.set_message(unknown, Severity::Warning);
    }
    Ok(match opts.question.as_deref().map(str::trim) {
        Some(q) if !q.is_empty() => Some(q.to_owned()),
        _ if demo && !resuming => Some(live::demo_question(opts.provider).to_owned()),
        _ => None,
    })
}

/// Stream updates applied in one go before input is read again…
const UPDATE_BATCH: usize = 256;
/// …and for at most this long (a key that comes meanwhile stops the batch at once).
const UPDATE_BUDGET: Duration = Duration::from_millis(8);

/// A key (or other terminal input) is waiting to be read. Not a read: the event stream gets it.
/// While the stream's reader thread waits for input it holds the reader, so this is a failed
/// try-lock until input comes.
fn input_waiting() -> bool {
    crossterm::event::poll(Duration::ZERO).unwrap_or(false)
}

/// The app's loop: draws when a frame is due and takes signals, keys, notes and the stream.
/// The app's first question (the demo's, or `--question`'s) is asked once the first frame is on
/// screen, which says it is being asked: saving its session (a folder, the meta, the turn file,
/// the index line) would otherwise hold that frame back.
async fn event_loop(
    terminal: &mut Term,
    app: &mut Ui,
    conversation: &mut Conversation,
    opts: &TuiOptions,
) -> eyre::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut events = EventStream::new();
    let mut sigterm = signal(SignalKind::terminate()).wrap_err("cannot watch for SIGTERM")?;
    let mut sighup = signal(SignalKind::hangup()).wrap_err("cannot watch for SIGHUP")?;
    let (note_tx, mut note_rx) = tokio::sync::mpsc::unbounded_channel::<effects::Note>();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut pacing = Pacing::new(Instant::now());
    // The area of the last frame: the panes are prepared early for it.
    let mut area = ratatui::layout::Rect::default();
    let mut quit_at: Option<Instant> = None;

    loop {
        if app.quit {
            break;
        }
        if pacing.due(Instant::now()) {
            let prepared = pacing.prepared();
            let drawn = terminal.draw(|frame| {
                if prepared && frame.area() == area {
                    app.draw_prepared(frame);
                } else {
                    area = frame.area();
                    app.draw(frame);
                }
            });
            match drawn {
                Ok(_) => {}
                // The terminal was closed (its SIGHUP may not have been read yet): an end, not a
                // failure to report on a terminal that is gone.
                Err(e) if terminal_gone(&e) => break,
                Err(e) => return Err(e).wrap_err("cannot draw on the terminal"),
            }
            // Tests of the panic path (debug builds only): a panic once the screen is the app's.
            #[cfg(debug_assertions)]
            if std::env::var_os("RESEARCH_TUI_TEST_PANIC").is_some() {
                panic!("RESEARCH_TUI_TEST_PANIC is set");
            }
            pacing.drawn(Instant::now());
            if let Some(question) = app.first_question.take() {
                let cont = app.continuation();
                conversation.ask(app, question, cont);
                pacing.changed();
            }
        }
        let draw_at = pacing.due_at();
        let ticking = app.needs_tick();
        let take_updates = pacing.take_updates();
        // In this order: signals, then keys, then a frame that is due, then the stream; so however
        // fast updates arrive, redraws never wait for more than one batch, and keys not even for
        // that (a batch stops when a key waits).
        tokio::select! {
            biased;
            _ = sigterm.recv() => break,
            _ = sighup.recv() => break,
            event = events.next() => match event {
                Some(Ok(event)) => {
                    pacing.input(effects::handle_event(event, app, conversation, terminal, &note_tx).await);
                }
                Some(Err(e)) if terminal_gone(&e) => break,
                Some(Err(e)) => return Err(e).wrap_err("cannot read the terminal's input"),
                None => break,
            },
            Some(note) = note_rx.recv() => {
                effects::note(note, app, terminal);
                pacing.changed();
            }
            _ = tokio::time::sleep_until(draw_at.unwrap_or_else(Instant::now)), if draw_at.is_some() => {}
            incoming = conversation.next_incoming(take_updates) => match incoming {
                Incoming::Update(update) => {
                    let taken = pacing.text_since_draw();
                    pacing.took_text(apply_batch(app, conversation, update, taken, input_waiting).text);
                    // A question asked while the answer streamed goes once it has ended (before
                    // the early layout, so the panes laid out hold its turn and any warning).
                    if !conversation.is_streaming() && let Some(question) = app.take_queued() {
                        let cont = app.continuation();
                        conversation.ask(app, question, cont);
                        pacing.changed();
                    }
                    if pacing.prepare_early() && !input_waiting() {
                        app.prepare(area);
                        pacing.set_prepared();
                    }
                    if opts.exit_when_done && !conversation.is_streaming() && !app.in_progress() && quit_at.is_none() {
                        quit_at = Some(Instant::now() + Duration::from_millis(500));
                    }
                }
                change => {
                    if conversation.on_change(app, change).await {
                        pacing.changed();
                    }
                }
            },
            _ = tick.tick(), if ticking => {
                app.tick = app.tick.wrapping_add(1);
                pacing.changed();
            }
            _ = tokio::time::sleep_until(quit_at.unwrap_or_else(Instant::now)), if quit_at.is_some() => break,
        }
    }
    Ok(())
}

/// The terminal hung up: reading or writing it fails with EIO.
fn terminal_gone(e: &io::Error) -> bool {
    e.raw_os_error() == Some(libc::EIO)
}

/// What a batch of stream updates applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Batch {
    updates: usize,
    /// Answer bytes.
    text: usize,
}

/// Apply `first` and the updates already waiting behind it — at most [`UPDATE_BATCH`], for at most
/// [`UPDATE_BUDGET`], until [`TEXT_PER_FRAME`] answer bytes (counting `taken` before), and no more
/// once `input_waiting` says a key waits.
fn apply_batch(
    app: &mut Ui,
    conversation: &mut Conversation,
    first: StreamUpdate,
    taken: usize,
    mut input_waiting: impl FnMut() -> bool,
) -> Batch {
    let started = Instant::now();
    let mut batch = Batch {
        updates: 0,
        text: 0,
    };
    let mut update = first;
    loop {
        batch.text += answer_bytes(&update);
        batch.updates += 1;
        conversation.apply(app, update);
        if batch.updates >= UPDATE_BATCH
            || taken + batch.text >= TEXT_PER_FRAME
            || started.elapsed() >= UPDATE_BUDGET
            || input_waiting()
        {
            break;
        }
        match conversation.try_next_update() {
            Some(next) => update = next,
            None => break,
        }
    }
    batch
}

/// The answer text an update carries, in bytes.
fn answer_bytes(update: &StreamUpdate) -> usize {
    match update {
        StreamUpdate::Events(events) => events
            .iter()
            .map(|event| match event {
                AgentEvent::AnswerDelta { text, .. } | AgentEvent::AnswerReplace { text } => {
                    text.len()
                }
                _ => 0,
            })
            .sum(),
        _ => 0,
    }
}
