//! What the app's tests share: an app with a fixed clock, recordings fed through the real event
//! pipeline, frames drawn into a `TestBackend`, and keys pressed.
#![allow(dead_code)]

pub mod demo;
pub mod live;
pub mod otlp;
pub mod tmux;

pub use demo::{demo_agent, demo_agent_with};

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::stream_end::StreamEnd;
use research_tui::styled::theme::Theme;

use research_tui::tui::state::{AppConfig, Effect, Focus, Mode};
use research_tui::tui::ui::Ui;
use research_tui::wire::provider::{EventPipeline, Provider};
use research_tui::wire::recording::parse_frames;

/// The real binary, built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_research-tui");

/// Run `command` with its output discarded; its exit status and peak resident memory in bytes,
/// as GNU time measures it (`wait4` on a child it forked itself). Measured here instead, `wait4`
/// counts the test process's memory (the child's image before `exec`), and polling `VmHWM`
/// misses a short process's peak.
pub fn peak_rss(command: Command) -> (std::process::ExitStatus, u64) {
    use std::process::Stdio;
    assert!(
        Path::new("/usr/bin/time").exists(),
        "GNU time is required for the memory tests (apt-get install time)"
    );
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut timed = Command::new("/usr/bin/time");
    timed
        .args(["-f", "%M", "-o"])
        .arg(report.path())
        .arg(command.get_program())
        .args(command.get_args());
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => timed.env(name, value),
            None => timed.env_remove(name),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        timed.current_dir(dir);
    }
    let status = timed
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let text = std::fs::read_to_string(report.path()).unwrap();
    let kb: u64 = text
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("GNU time reported {text:?}"));
    (status, kb * 1024)
}

/// Every environment variable a provider's key can come from, from the provider table.
pub fn key_variables() -> impl Iterator<Item = &'static str> {
    Provider::ALL.into_iter().map(|p| p.spec().api_key_env)
}

/// Variables from the developer's shell that would change what the binary does: a provider's key
/// turns a demo run live, the others move its endpoint, its limits or its colours.
fn foreign_variables() -> impl Iterator<Item = &'static str> {
    key_variables().chain([
        "BIGDATA_AGENTS_URL",
        "RESEARCH_TUI_MAX_ANSWER_MIB",
        "NO_COLOR",
        "BROWSER",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        "OTEL_SERVICE_NAME",
    ])
}

/// The XDG directories one spawned binary sees, all under one temporary home.
pub struct Home {
    pub root: PathBuf,
}

impl Home {
    pub fn new(root: &Path) -> Home {
        Home {
            root: root.to_path_buf(),
        }
    }
    pub fn data(&self) -> PathBuf {
        self.root.join("data")
    }
    pub fn config(&self) -> PathBuf {
        self.root.join("config")
    }
    pub fn cache(&self) -> PathBuf {
        self.root.join("cache")
    }
    /// Write `contents` as this home's `config.toml` (its folder made first); its path.
    pub fn write_config(&self, contents: impl AsRef<[u8]>) -> PathBuf {
        let dir = self.config().join("research-tui");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("config.toml");
        std::fs::write(&path, contents).unwrap();
        path
    }
    /// Where saved sessions go (`$XDG_DATA_HOME/research-tui/sessions`).
    pub fn sessions(&self) -> PathBuf {
        self.data().join("research-tui").join("sessions")
    }
    /// `NAME=value` entries for a shell or tmux: this home's XDG directories.
    pub fn env_entries(&self) -> Vec<String> {
        vec![
            format!("XDG_DATA_HOME={}", self.data().display()),
            format!("XDG_CONFIG_HOME={}", self.config().display()),
            format!("XDG_CACHE_HOME={}", self.cache().display()),
            format!("XDG_STATE_HOME={}", self.root.join("state").display()),
        ]
    }
}

/// An HTTP client for talking to the servers the tests start (through the app's one client
/// builder, which installs the TLS crypto provider first).
pub fn http() -> reqwest::Client {
    research_tui::agent::http::client_builder().build().unwrap()
}

/// The real binary isolated in `home`: its own data, config, cache and state directories, and no
/// provider key, endpoint or limit inherited from whoever runs the tests. A test adds what it means.
pub fn cli(home: &Path) -> Command {
    let mut command = Command::new(BIN);
    for entry in Home::new(home).env_entries() {
        let (name, value) = entry.split_once('=').unwrap();
        command.env(name, value);
    }
    for name in foreign_variables() {
        command.env_remove(name);
    }
    command
}

/// A home for a command whose files no test reads (`render`, a usage error): inside the target
/// directory, so nothing reaches the developer's own directories.
pub fn scratch() -> &'static Path {
    static SCRATCH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    SCRATCH.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scratch-home");
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

/// Poll `ready` until it holds; fail the test after `timeout` naming `what` it waited for.
pub fn wait_until(what: &str, timeout: Duration, mut ready: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + timeout;
    while !ready() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting until {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `research-tui sessions ARGS` run in `home`: its output, after asserting it returned within
/// `limit` (killed and failed as hung at five times that).
pub fn sessions_within(home: &Path, args: &[&str], limit: Duration) -> std::process::Output {
    let mut child = cli(home)
        .arg("sessions")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit * 5 {
            let _ = child.kill();
            panic!("sessions {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = start.elapsed();
    assert!(took < limit, "sessions {args:?} took {took:?}");
    child.wait_with_output().unwrap()
}

/// Every file under `dir`, recursively (none when it does not exist).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// `env -u NAME …` arguments that clear the same variables as [`cli`], for a shell command line.
pub fn unset_args() -> Vec<String> {
    foreign_variables()
        .flat_map(|name| ["-u".to_owned(), name.to_owned()])
        .collect()
}

pub const EARNINGS: &str = "assets/recordings/bigdata/earnings-deep-dive.sse";
pub const SECTOR: &str = "assets/recordings/bigdata/sector-comparison.sse";
pub const FOLLOW_UP: &str = "assets/recordings/bigdata/follow-up.sse";
pub const DEMO_QUESTION: &str = research_tui::tui::DEMO_QUESTION;

pub fn app() -> Ui {
    let mut app = Ui::new(AppConfig {
        mode: Mode::Demo,
        theme: Theme::default(),
        can_ask: true,
    });
    app.fixed_elapsed = Some(Duration::from_secs(42));
    app
}

/// Feed a recording's frames (all, or the first `limit`) into a new turn; end it when complete.
pub fn play(app: &mut Ui, path: &str, question: Option<&str>, limit: Option<usize>) {
    let bytes = std::fs::read(path).unwrap();
    let frames = parse_frames(&bytes);
    app.begin_turn(question.map(str::to_owned));
    app.apply_update(StreamUpdate::Connected);
    let mut pipeline = EventPipeline::auto();
    let n = limit.unwrap_or(frames.len());
    for frame in &frames[..n] {
        let mut events = Vec::new();
        let _ = pipeline.feed(&frame.bytes, &mut events);
        app.apply_update(StreamUpdate::Events(events));
    }
    if limit.is_none() {
        let mut events = Vec::new();
        let _ = pipeline.finish(&mut events);
        app.apply_update(StreamUpdate::Events(events));
        app.apply_update(StreamUpdate::Ended(StreamEnd::Closed));
    }
}

/// The demo's answer streaming, half of it in.
pub fn half_answered() -> Ui {
    let mut app = app();
    play(
        &mut app,
        EARNINGS,
        Some(DEMO_QUESTION),
        Some(half_of_the_answer(EARNINGS)),
    );
    app
}

/// Frames up to and including half of the ANSWER frames.
pub fn half_of_the_answer(path: &str) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let frames = parse_frames(&bytes);
    let is_answer = |f: &&research_tui::wire::recording::Frame| {
        String::from_utf8_lossy(&f.bytes).contains("\"type\":\"ANSWER\"")
    };
    let answers = frames.iter().filter(is_answer).count();
    let mut seen = 0;
    for (i, frame) in frames.iter().enumerate() {
        if is_answer(&frame) {
            seen += 1;
            if seen == answers / 2 {
                return i + 1;
            }
        }
    }
    frames.len()
}

pub fn draw(app: &mut Ui, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| app.draw(frame)).unwrap();
    terminal
}

/// Press ↑ (at most `tries` times) until a 140×42 frame shows `text`; whether it did.
pub fn scroll_up_until(app: &mut Ui, text: &str, tries: usize) -> bool {
    for _ in 0..tries {
        if draw(app, 140, 42).backend().to_string().contains(text) {
            return true;
        }
        key(app, KeyCode::Up);
    }
    false
}

pub fn key(app: &mut Ui, code: KeyCode) -> Option<Effect> {
    let action = app.handle_key(KeyEvent::new(code, KeyModifiers::NONE))?;
    app.update(action)
}

pub fn keys(app: &mut Ui, codes: &str) {
    for c in codes.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// Leave the prompt (where the app waits once an answer ends) to move around the panes.
pub fn browse(app: &mut Ui) {
    if app.focus == Focus::Prompt {
        key(app, KeyCode::Esc);
    }
    assert_ne!(app.focus, Focus::Prompt);
}

pub fn ctrl(app: &mut Ui, c: char) -> Option<Effect> {
    let action = app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))?;
    app.update(action)
}

/// `command` spawned with no input, its stderr piped: the child and the first line it writes
/// there (a server saying where it listens). The rest of its stderr is read in the background, so
/// its later log lines never meet a closed pipe.
pub fn spawn_announcing(command: &mut Command) -> (Child, String) {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    (child, line)
}
