//! The interactive terminal app: set-up and restore of the terminal, and the event loop that merges
//! key presses, stream updates and a render tick.
//!
//! Drawing is coalesced: state changes mark the screen dirty and at most one frame is drawn per
//! [`FRAME`]. The spinner tick runs only while a stream is in progress, so an idle app does not wake up.

pub mod conversation;
pub mod export;
pub mod screen;
pub mod state;
pub mod text;
pub mod theme;

use std::io;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use color_eyre::eyre::{WrapErr, eyre};
use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, Event, EventStream, KeyEventKind,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use crate::agent::client::{ApiKey, StreamOptions};
use crate::agent::live;
use crate::agent::replay::{Speed, replay_file};
use crate::agent::stream::StreamUpdate;
use crate::model::event::AgentEvent;
use crate::wire::provider::Provider;
use conversation::{Agent, Conversation, LiveConfig, Settings};
use state::{Action, App, AppConfig, Continuation, Effect, Focus, Mode, Severity};

/// The demo's first question.
pub const DEMO_QUESTION: &str =
    "Break down NVIDIA's latest quarter: data-center growth, margins, and guidance";

/// The production agent.
pub const DEFAULT_BASE_URL: &str = crate::local::config::DEFAULT_BASE_URL;

/// At most one frame per this long.
pub const FRAME: Duration = Duration::from_millis(16);
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
    /// Where conversations are saved (`None`: not saved).
    pub store: Option<crate::local::store::SessionStore>,
    /// xAI model, Zeta Alpha tenant and agent.
    pub provider_options: live::ProviderOptions,
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
            replay: None,
            exit_when_done: false,
            theme: None,
            question: None,
            idle_timeout: StreamOptions::default().idle_timeout,
            resume: Continuation::default(),
            open: None,
            store: Some(crate::local::store::SessionStore::default()),
            provider_options: live::ProviderOptions::default(),
        }
    }
}

/// Restore the terminal: raw mode off, main screen back, paste mode off, cursor shown.
pub fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableBracketedPaste,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Restore the terminal before the panic is reported, when the panic ends the app (it happened on the
/// thread running the event loop). A panicking background task only fails that task: its report goes
/// to the log file, since printing it would scribble over the screen the app still owns.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    let ui_thread = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == ui_thread {
            restore_terminal();
            previous(info);
        } else {
            crate::local::log::log(&format!("background task panicked: {info}"));
        }
    }));
}

type Term = Terminal<CrosstermBackend<io::Stdout>>;

fn setup_terminal() -> io::Result<Term> {
    install_panic_hook();
    enable_raw_mode()?;
    execute!(io::stdout(), EnterAlternateScreen, EnableBracketedPaste)?;
    Terminal::new(CrosstermBackend::new(io::stdout()))
}

/// Run the app on its own tokio runtime; the exit code for `main`.
pub fn run_blocking(opts: TuiOptions) -> std::process::ExitCode {
    let _ = color_eyre::install();
    let runtime = match crate::runtime() {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    match runtime.block_on(run(opts)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("research-tui: {e:?}");
            std::process::ExitCode::from(1)
        }
    }
}

/// Run the app until the user quits (or the stream ends, with `exit_when_done`).
pub async fn run(opts: TuiOptions) -> color_eyre::Result<()> {
    // The screen belongs to the app: diagnostics go to the log file (logging is off if it cannot open).
    let _ = crate::local::log::init(&crate::local::log::default_path());
    crate::local::log::log(&format!(
        "start: research-tui {} (demo: {}, replay: {})",
        env!("CARGO_PKG_VERSION"),
        opts.demo,
        opts.replay.is_some()
    ));
    let (config, config_warning) = theme::read_config();
    let (theme, theme_warning) =
        theme::select(opts.theme.as_deref(), &config, theme::no_color_env());

    let settings = Settings {
        demo_speed: opts.demo_speed,
        demo_fault: opts.demo_fault,
        options: StreamOptions {
            idle_timeout: opts.idle_timeout.max(Duration::from_secs(1)),
            ..StreamOptions::default()
        },
    };
    let replaying = opts.replay.is_some();
    let mut app = App::new(AppConfig {
        mode: if replaying { Mode::Replay } else { Mode::Demo },
        theme,
        can_ask: !replaying,
    });
    let mut conversation =
        Conversation::new(if replaying { None } else { opts.store.clone() }, settings);

    // Everything that can fail before the screen is taken over.
    if let Some(replay_opts) = &opts.replay {
        let cannot_read = || format!("cannot read {}", replay_opts.path.display());
        let head = read_head(&replay_opts.path).wrap_err_with(cannot_read)?;
        app.provider = replay_opts.provider.or_else(|| detect_provider(&head));
        // Played as it is read: a recording of any size is never in memory whole.
        let handle = replay_file(&replay_opts.path, replay_opts.speed, replay_opts.provider)
            .wrap_err_with(cannot_read)?;
        conversation.play(&mut app, handle);
    } else if let Some(saved) = opts.open.clone() {
        conversation.force_demo = opts.demo;
        conversation
            .open(&mut app, saved)
            .await
            .map_err(|e| eyre!(e))?;
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
            app.scroll_to_turn = Some(i);
        }
        if let Some(question) = opts.question.as_deref().map(str::trim)
            && !question.is_empty()
        {
            let cont = app.continuation();
            conversation.ask(&mut app, question.to_owned(), cont);
        }
    } else {
        let resuming = opts.resume != Continuation::default();
        let demo = opts.demo || opts.api_key.as_ref().is_none_or(|k| k.expose().is_empty());
        let agent = if demo {
            Agent::demo(opts.provider, &settings, resuming)
                .await
                .wrap_err("cannot start the built-in demo agent")?
        } else {
            let config = LiveConfig {
                base_url: opts.base_url.trim_end_matches('/').to_owned(),
                ..LiveConfig::new(opts.provider, opts.api_key.clone())
            }
            .with_options(&opts.provider_options);
            Agent::live(config, &settings)
        };
        conversation.set_agent(agent, &mut app);
        app.resume = opts.resume.clone();
        let question = match opts.question.as_deref().map(str::trim) {
            Some(q) if !q.is_empty() => Some(q.to_owned()),
            _ if demo && !resuming => Some(live::demo_question(opts.provider).to_owned()),
            _ => None,
        };
        match question {
            Some(question) => {
                let cont = app.continuation();
                conversation.ask(&mut app, question, cont);
            }
            None => app.focus = Focus::Prompt,
        }
    }
    if let Some(warning) = theme_warning.or(config_warning) {
        app.set_message(warning, Severity::Warning);
    }

    let mut terminal = setup_terminal().wrap_err("cannot set up the terminal")?;
    let _guard = TerminalGuard;
    let result = event_loop(&mut terminal, &mut app, &mut conversation, &opts).await;
    conversation.finish(&mut app);
    drop(_guard);
    result
}

/// The first MiB of a recording: enough to tell its provider.
fn read_head(path: &std::path::Path) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)?
        .take(1 << 20)
        .read_to_end(&mut head)?;
    Ok(head)
}

/// The provider a recording speaks, from its first identifying events.
fn detect_provider(bytes: &[u8]) -> Option<Provider> {
    let mut pipeline = crate::wire::provider::EventPipeline::auto();
    let mut events = Vec::new();
    for chunk in bytes.chunks(64 * 1024) {
        let _ = pipeline.feed(chunk, &mut events);
        events.clear();
        if let Some(provider) = pipeline.provider() {
            return Some(provider);
        }
    }
    None
}

/// Messages from helper threads (a browser opener that failed).
enum Note {
    Error(String),
}

/// Stream updates applied in one go before input is read again…
const UPDATE_BATCH: usize = 256;
/// …and for at most this long.
const UPDATE_BUDGET: Duration = Duration::from_millis(8);
/// Answer text taken in between two frames: the next frame lays it out, which must stay quick, so
/// more waits for that frame (the stream task waits meanwhile: see `agent::stream::BACKLOG`).
const TEXT_PER_FRAME: usize = 256 * 1024;

async fn event_loop(
    terminal: &mut Term,
    app: &mut App,
    conversation: &mut Conversation,
    opts: &TuiOptions,
) -> color_eyre::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut events = EventStream::new();
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sighup = signal(SignalKind::hangup())?;
    let (note_tx, mut note_rx) = tokio::sync::mpsc::unbounded_channel::<Note>();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    // The screen's caches live next to the app, not in it.
    let mut view = screen::View::new();
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    let mut quit_at: Option<tokio::time::Instant> = None;
    // Answer bytes taken in since the last frame.
    let mut text_since_draw = 0usize;

    loop {
        if app.quit {
            break;
        }
        if dirty && last_draw.elapsed() >= FRAME {
            terminal.draw(|frame| view.draw(frame, app))?;
            last_draw = Instant::now();
            dirty = false;
            text_since_draw = 0;
        }
        let draw_at = tokio::time::Instant::from_std(last_draw + FRAME);
        let ticking = app.needs_tick();
        let take_updates = text_since_draw < TEXT_PER_FRAME;
        // In this order: signals, then keys, then a frame that is due, then the stream; so however
        // fast updates arrive, input and redraws never wait for more than one batch.
        tokio::select! {
            biased;
            _ = sigterm.recv() => break,
            _ = sighup.recv() => break,
            event = events.next() => match event {
                Some(Ok(event)) => {
                    dirty |= handle_event(event, app, conversation, terminal, &note_tx).await;
                }
                Some(Err(e)) => return Err(e).wrap_err("reading terminal input"),
                None => break,
            },
            Some(note) = note_rx.recv() => {
                match note {
                    Note::Error(text) => app.set_message(text, Severity::Error),
                }
                dirty = true;
            }
            _ = tokio::time::sleep_until(draw_at), if dirty => {}
            update = conversation.next_update(), if take_updates => {
                text_since_draw += apply_batch(app, conversation, update, text_since_draw);
                dirty = true;
                if opts.exit_when_done && !conversation.is_streaming() && !app.in_progress() && quit_at.is_none() {
                    quit_at = Some(tokio::time::Instant::now() + Duration::from_millis(500));
                }
            }
            _ = tick.tick(), if ticking => {
                app.tick = app.tick.wrapping_add(1);
                dirty = true;
            }
            _ = tokio::time::sleep_until(quit_at.unwrap_or_else(tokio::time::Instant::now)), if quit_at.is_some() => break,
        }
    }
    Ok(())
}

/// Apply `first` and the updates already waiting behind it — at most [`UPDATE_BATCH`], for at most
/// [`UPDATE_BUDGET`], until [`TEXT_PER_FRAME`] answer bytes (counting `taken` before) — and return
/// the answer bytes they carried.
fn apply_batch(
    app: &mut App,
    conversation: &mut Conversation,
    first: StreamUpdate,
    taken: usize,
) -> usize {
    let started = Instant::now();
    let mut text = 0;
    let mut update = first;
    for applied in 1.. {
        text += answer_bytes(&update);
        conversation.apply(app, update);
        if applied >= UPDATE_BATCH
            || taken + text >= TEXT_PER_FRAME
            || started.elapsed() >= UPDATE_BUDGET
        {
            break;
        }
        match conversation.try_next_update() {
            Some(next) => update = next,
            None => break,
        }
    }
    text
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

/// Handle one terminal event; returns whether the screen changed.
async fn handle_event(
    event: Event,
    app: &mut App,
    conversation: &mut Conversation,
    terminal: &mut Term,
    notes: &tokio::sync::mpsc::UnboundedSender<Note>,
) -> bool {
    let action = match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => app.handle_key(key),
        Event::Paste(text) => Some(Action::Paste(text)),
        Event::Resize(..) => return true,
        _ => return false,
    };
    let Some(action) = action else {
        return false;
    };
    if let Some(effect) = app.update(action) {
        run_effect(effect, app, conversation, terminal, notes).await;
    }
    true
}

async fn run_effect(
    effect: Effect,
    app: &mut App,
    conversation: &mut Conversation,
    terminal: &mut Term,
    notes: &tokio::sync::mpsc::UnboundedSender<Note>,
) {
    match effect {
        Effect::Quit => {}
        Effect::Cancel => conversation.cancelled(app),
        Effect::Ask(question) => {
            let cont = app.continuation();
            conversation.ask(app, question, cont);
        }
        Effect::Retry(index) => {
            conversation.retry(app, index);
        }
        Effect::ListSessions => {
            let list = conversation.list();
            app.show_sessions(list);
        }
        Effect::OpenSession(id) => {
            if let Err(e) = conversation.open_id(app, &id).await {
                app.set_message(e, Severity::Error);
            }
        }
        Effect::Open(url) => {
            let tx = notes.clone();
            match export::open_url(&url, move |error| {
                let _ = tx.send(Note::Error(error));
            }) {
                Ok(()) => {
                    app.set_message(format!("opening {}", screen::clean(&url)), Severity::Info)
                }
                Err(error) => app.set_message(error, Severity::Error),
            }
        }
        Effect::Copy(url) => {
            let result = export::copy_to_clipboard(terminal.backend_mut(), &url);
            match result {
                Ok(()) => app.set_message("copied the URL (OSC 52)", Severity::Info),
                Err(e) => app.set_message(format!("copy failed: {e}"), Severity::Error),
            }
        }
        Effect::Export => match export::export(&app.turns) {
            Ok(path) => app.set_message(format!("exported to {}", path.display()), Severity::Info),
            Err(e) => app.set_message(format!("export failed: {e}"), Severity::Error),
        },
    }
}
