//! The frame and the panes' kept rows: a frame changes no conversation data, and rows kept between
//! frames are the rows a frame without them lays out.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

use super::Ui;
use crate::agent::stream::StreamUpdate;
use crate::model::stream_end::StreamEnd;
use crate::tui::screen::{self, Panes};
use crate::tui::state::Popup;
use crate::tui::state::{AppConfig, Mode};
use crate::wire::provider::EventPipeline;
use crate::wire::recording::parse_frames;

const EARNINGS: &str = "assets/recordings/bigdata/earnings-deep-dive.sse";
const SECTOR: &str = "assets/recordings/bigdata/sector-comparison.sse";

fn app() -> Ui {
    let mut app = Ui::new(AppConfig {
        mode: Mode::Demo,
        theme: Default::default(),
        can_ask: true,
    });
    app.fixed_elapsed = Some(Duration::from_secs(7));
    app
}

/// Feed a recording's first `limit` frames (all, and end the turn, with `None`) into a new turn.
fn play(app: &mut Ui, path: &str, limit: Option<usize>) {
    app.begin_turn(Some("Q".into()));
    feed(app, path, 0, limit);
}

/// Feed frames `from..limit` of a recording (all from `from` on, and end the turn, with `None`)
/// into the newest turn.
fn feed(app: &mut Ui, path: &str, from: usize, limit: Option<usize>) {
    let frames = parse_frames(&std::fs::read(path).unwrap());
    let mut pipeline = EventPipeline::auto();
    for (i, frame) in frames[..limit.unwrap_or(frames.len())].iter().enumerate() {
        let mut events = Vec::new();
        let _ = pipeline.feed(&frame.bytes, &mut events);
        if i >= from {
            app.apply_update(StreamUpdate::Events(events));
        }
    }
    if limit.is_none() {
        let mut events = Vec::new();
        let _ = pipeline.finish(&mut events);
        app.apply_update(StreamUpdate::Events(events));
        app.apply_update(StreamUpdate::Ended(StreamEnd::Closed));
    }
}

fn press(app: &mut Ui, code: KeyCode) {
    if let Some(action) = app.handle_key(KeyEvent::new(code, KeyModifiers::NONE)) {
        app.update(action);
    }
}

/// One frame of `width` × `height`, drawn as the event loop draws it.
fn frame(app: &mut Ui, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| app.draw(frame)).unwrap();
    terminal.backend().buffer().clone()
}

/// A frame drawn with the rows the panes kept between frames is the frame drawn with none kept.
fn assert_caches_hold(app: &mut Ui, width: u16, height: u16) {
    let kept = frame(app, width, height);
    let mut set_aside = Panes::new(true, &app.theme);
    app.panes.swap_rows(&mut set_aside);
    let fresh = frame(app, width, height);
    app.panes.swap_rows(&mut set_aside);
    assert_eq!(kept, fresh);
}

#[test]
fn kept_caches_follow_streaming_expanding_resizing_and_a_replaced_conversation() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(60));
    assert_caches_hold(&mut app, 140, 42);
    play(&mut app, EARNINGS, None);
    assert_caches_hold(&mut app, 140, 42);
    // Expand the first activity item, then fold it again.
    for code in [KeyCode::Char('t'), KeyCode::Char('g'), KeyCode::Enter] {
        press(&mut app, code);
    }
    assert_caches_hold(&mut app, 140, 42);
    press(&mut app, KeyCode::Enter);
    assert_caches_hold(&mut app, 140, 42);
    assert_caches_hold(&mut app, 120, 30);
    press(&mut app, KeyCode::Char('g'));
    assert_caches_hold(&mut app, 120, 30);
    // A saved session replaces the conversation: same turn indices, other turns.
    let mut other = self::app();
    play(&mut other, SECTOR, None);
    app.load_turns(std::mem::take(&mut other.turns), None);
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('t'));
    press(&mut app, KeyCode::Char('g'));
    assert_caches_hold(&mut app, 120, 30);
}

#[test]
fn structured_output_arriving_after_a_frame_replaces_the_kept_rows() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(40));
    assert_caches_hold(&mut app, 140, 42);
    feed(&mut app, EARNINGS, 40, None);
    assert!(app.turns[0].session.structured_output.is_some());
    press(&mut app, KeyCode::Char('G'));
    assert_caches_hold(&mut app, 140, 42);
}

#[test]
fn drawing_the_same_state_twice_gives_equal_frames_and_leaves_the_conversation_alone() {
    let mut app = app();
    play(&mut app, EARNINGS, None);
    // A selected source, a span jumped to (a scroll request for the next frame), a popup scrolled
    // past its end: what the frame resolves is the panes' business or a fact, never the app's.
    for code in [
        KeyCode::Esc,
        KeyCode::Char('c'),
        KeyCode::Char('j'),
        KeyCode::Char('n'),
    ] {
        press(&mut app, code);
    }
    app.popup = Some(Popup::Help { scroll: 10_000 });
    let conversation = format!("{:?}", app.app);
    let first = frame(&mut app, 140, 42);
    assert_eq!(format!("{:?}", app.app), conversation, "the first frame");
    let facts = app.facts.clone();
    assert!(
        facts.popup_scroll.is_some_and(|top| top < 10_000),
        "{facts:?}"
    );
    let second = frame(&mut app, 140, 42);
    assert_eq!(first, second);
    assert_eq!(app.facts, facts);
    assert_eq!(format!("{:?}", app.app), conversation, "the second frame");
    // Drawing alone reads `&App` and `&Panes`: the same prepared state draws the same frame.
    let mut terminal = Terminal::new(TestBackend::new(140, 42)).unwrap();
    let mut drawn = Vec::new();
    for _ in 0..2 {
        let mut facts = None;
        terminal
            .draw(|frame| facts = Some(screen::draw(frame, &app.app, &app.panes)))
            .unwrap();
        drawn.push((terminal.backend().buffer().clone(), facts));
    }
    assert_eq!(drawn[0], drawn[1]);
    assert_eq!(drawn[0].0, second);
}

#[test]
fn panes_prepared_as_text_streams_in_draw_the_frame_a_frame_preparing_them_itself_draws() {
    // The event loop lays a flood's text out as it comes (prepare) and its paced frame then only
    // draws; that frame must be the one drawn by preparing at frame time.
    let (mut early, mut late) = (app(), app());
    for app in [&mut early, &mut late] {
        play(app, EARNINGS, Some(30));
        frame(app, 140, 42);
        feed(app, EARNINGS, 30, Some(60));
    }
    let area = ratatui::layout::Rect::new(0, 0, 140, 42);
    early.prepare(area);
    let mut terminal = Terminal::new(TestBackend::new(140, 42)).unwrap();
    terminal.draw(|frame| early.draw_prepared(frame)).unwrap();
    let drawn = terminal.backend().buffer().clone();
    assert_eq!(drawn, frame(&mut late, 140, 42));
    assert_eq!(early.facts, late.facts);
    // Keys read the panes the same way afterwards.
    for app in [&mut early, &mut late] {
        press(app, KeyCode::Esc);
        press(app, KeyCode::Char('k'));
    }
    assert_eq!(frame(&mut early, 140, 42), frame(&mut late, 140, 42));
}
