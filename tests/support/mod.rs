//! What the app's tests share: an app with a fixed clock, recordings fed through the real event
//! pipeline, frames drawn into a `TestBackend`, and keys pressed.
#![allow(dead_code)]

pub mod tmux;

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use research_tui::agent::stream::{StreamEnd, StreamUpdate};
use research_tui::tui::screen;
use research_tui::tui::state::{App, AppConfig, Effect, Focus, Mode};
use research_tui::tui::theme::Theme;
use research_tui::wire::provider::EventPipeline;
use research_tui::wire::recording::parse_frames;

pub const EARNINGS: &str = "assets/recordings/bigdata/earnings-deep-dive.sse";
pub const SECTOR: &str = "assets/recordings/bigdata/sector-comparison.sse";
pub const FOLLOW_UP: &str = "assets/recordings/bigdata/follow-up.sse";
pub const DEMO_QUESTION: &str = research_tui::tui::DEMO_QUESTION;

pub fn app() -> App {
    let mut app = App::new(AppConfig {
        mode: Mode::Demo,
        theme: Theme::default(),
        can_ask: true,
    });
    app.fixed_elapsed = Some(Duration::from_secs(42));
    app
}

/// Feed a recording's frames (all, or the first `limit`) into a new turn; end it when complete.
pub fn play(app: &mut App, path: &str, question: Option<&str>, limit: Option<usize>) {
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

pub fn draw(app: &mut App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| screen::draw(frame, app)).unwrap();
    terminal
}

pub fn key(app: &mut App, code: KeyCode) -> Option<Effect> {
    let action = app.handle_key(KeyEvent::new(code, KeyModifiers::NONE))?;
    app.update(action)
}

pub fn keys(app: &mut App, codes: &str) {
    for c in codes.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// Leave the prompt (where the app waits once an answer ends) to move around the panes.
pub fn browse(app: &mut App) {
    if app.focus == Focus::Prompt {
        key(app, KeyCode::Esc);
    }
    assert_ne!(app.focus, Focus::Prompt);
}

pub fn ctrl(app: &mut App, c: char) -> Option<Effect> {
    let action = app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))?;
    app.update(action)
}
