//! The timeline's views beyond the waterfall (issue 21): the Timeline tab below 100 columns, the
//! raw SSE events behind a row (offsets in the turn file, type, size, arrival, the selected one's
//! JSON; `y` copies it) and every turn's figures above the waterfall — drawn live and complete on
//! the demo's earnings recording, saved as the app saves a turn (its bytes, and when each frame
//! arrived beside them); and the real binary in tmux.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crossterm::event::KeyCode;
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::stream_end::StreamEnd;
use research_tui::tui::state::{Effect, Focus, Popup};
use research_tui::tui::ui::Ui;
use research_tui::wire::provider::EventPipeline;
use research_tui::wire::recording::parse_frames;

use crate::support::tmux::{Tmux, assert_exited_and_restored, status_line};
use crate::support::{self, *};

/// `recording` saved as the app saves a turn in `dir`: its frames' bytes as `turn-001.sse` and,
/// beside it, when each frame arrived by the delays the recording notes (`turn-001.sse.times`).
fn saved_turn(dir: &Path, recording: &str, name: &str) -> PathBuf {
    let frames = parse_frames(&std::fs::read(recording).unwrap());
    let mut bytes = Vec::new();
    let mut times = String::from("# research-tui arrival times 1\nsent 1764120000000\n");
    let mut ms = 0;
    for frame in &frames {
        ms += frame.delay_ms;
        times.push_str(&format!("{} {ms}\n", bytes.len()));
        bytes.extend_from_slice(&frame.bytes);
    }
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    std::fs::write(dir.join(format!("{name}.times")), times).unwrap();
    path
}

/// Play the first `limit` frames (all of them: the end too) of `recording` into a new turn whose
/// raw file is `raw`, each frame's events at the time its delays add up to.
fn play_saved(app: &mut Ui, recording: &str, raw: &Path, limit: Option<usize>) {
    let frames = parse_frames(&std::fs::read(recording).unwrap());
    app.begin_turn(Some(DEMO_QUESTION.to_owned()));
    app.apply_update(StreamUpdate::Connected);
    app.turns.last_mut().unwrap().raw = Some(raw.to_owned());
    let mut pipeline = EventPipeline::auto();
    let mut ms = 0;
    for frame in &frames[..limit.unwrap_or(frames.len())] {
        ms += frame.delay_ms;
        let mut events = Vec::new();
        let _ = pipeline.feed(&frame.bytes, &mut events);
        app.turns.last_mut().unwrap().apply_events_at(events, ms);
    }
    if limit.is_none() {
        let mut events = Vec::new();
        let _ = pipeline.finish(&mut events);
        app.turns.last_mut().unwrap().apply_events_at(events, ms);
        app.apply_update(StreamUpdate::Ended(StreamEnd::Closed));
    }
}

/// Where the line holding `needle` starts in the file at `path` (found here, not by the app).
fn line_offset(path: &Path, needle: &str) -> u64 {
    let text = std::fs::read_to_string(path).unwrap();
    let at = text.find(needle).unwrap();
    text[..at].rfind('\n').map_or(0, |nl| nl + 1) as u64
}

#[test]
fn below_100_columns_the_timeline_is_a_tab_that_t_and_tab_reach() {
    let dir = tempfile::tempdir().unwrap();
    let raw = saved_turn(dir.path(), EARNINGS, "turn-001.sse");
    let mut app = support::app();
    play_saved(&mut app, EARNINGS, &raw, None);
    browse(&mut app);
    draw(&mut app, 80, 24);
    key(&mut app, KeyCode::Char('T'));
    assert_eq!(app.popup, None, "a tab, not a popup");
    assert_eq!(app.focus, Focus::Timeline);
    keys(&mut app, "jjjjjj");
    let terminal = draw(&mut app, 80, 24);
    let screen = format!("{:?}", terminal.backend());
    assert!(screen.contains("Timeline"), "{screen}");
    assert!(screen.contains("Query    NVIDIA first quarter"), "{screen}");
    insta::assert_snapshot!("timeline_tab_complete_80x24", terminal.backend());
    // Tab goes round the tabs: from Sources the next is the Timeline.
    key(&mut app, KeyCode::Char('c'));
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Timeline);

    // Live: half the answer so far.
    let mut app = support::app();
    play_saved(&mut app, EARNINGS, &raw, Some(half_of_the_answer(EARNINGS)));
    browse(&mut app);
    draw(&mut app, 80, 24);
    key(&mut app, KeyCode::Char('T'));
    insta::assert_snapshot!("timeline_tab_live_80x24", draw(&mut app, 80, 24).backend());
}

#[test]
fn enter_on_a_tool_call_lists_the_raw_events_behind_it_and_y_copies_the_selected_ones_json() {
    let dir = tempfile::tempdir().unwrap();
    let raw = saved_turn(dir.path(), EARNINGS, "turn-001.sse");
    let mut app = support::app();
    play_saved(&mut app, EARNINGS, &raw, None);
    browse(&mut app);
    key(&mut app, KeyCode::Char('T'));
    // The first search: request, step, thinking, the calendar tool, step, thinking, search.
    keys(&mut app, "jjjjjj");
    key(&mut app, KeyCode::Enter);
    let Some(Popup::Timeline(view)) = &app.popup else {
        panic!("the timeline stays open");
    };
    let events = view.events.as_ref().expect("the raw events behind the row");
    // The search's call and its results: the ACTION naming it and the AUDIT after it.
    let action = line_offset(&raw, r#""tool_name":"search""#);
    assert_eq!(events.found.events[0].range.start, action);
    assert!(events.found.events.len() >= 2, "{events:?}");
    let terminal = draw(&mut app, 140, 42);
    let screen = format!("{:?}", terminal.backend());
    assert!(screen.contains("Raw events behind ⚙ search"), "{screen}");
    assert!(screen.contains(&format!("▶ {action:>10}")), "{screen}");
    assert!(
        screen.contains("\"type\": \"ACTION\""),
        "pretty JSON:\n{screen}"
    );
    insta::assert_snapshot!("timeline_raw_events_complete_140x42", terminal.backend());

    let Some(Effect::CopyText(json)) = key(&mut app, KeyCode::Char('y')) else {
        panic!("y copies the selected event");
    };
    let event: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(event["message"]["type"], "ACTION");
    key(&mut app, KeyCode::Char('j'));
    let Some(Effect::CopyText(json)) = key(&mut app, KeyCode::Char('y')) else {
        panic!("y copies the next event");
    };
    let event: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(event["message"]["type"], "AUDIT", "{event}");
    // Esc: back to the waterfall; Esc again closes it.
    key(&mut app, KeyCode::Esc);
    assert!(matches!(&app.popup, Some(Popup::Timeline(v)) if v.events.is_none()));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.popup, None);
}

#[test]
fn the_raw_events_of_a_streaming_turn_are_those_in_its_file_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let raw = saved_turn(dir.path(), EARNINGS, "turn-001.sse");
    let mut app = support::app();
    let half = half_of_the_answer(EARNINGS);
    play_saved(&mut app, EARNINGS, &raw, Some(half));
    // The file holds what arrived so far.
    let frames = parse_frames(&std::fs::read(EARNINGS).unwrap());
    let so_far: Vec<u8> = frames[..half]
        .iter()
        .flat_map(|f| f.bytes.clone())
        .collect();
    std::fs::write(&raw, so_far).unwrap();
    browse(&mut app);
    key(&mut app, KeyCode::Char('T'));
    key(&mut app, KeyCode::Char('G'));
    // The answer, streaming: its events so far.
    for _ in 0..100 {
        if format!("{:?}", draw(&mut app, 140, 42).backend()).contains("Phase    answer") {
            break;
        }
        key(&mut app, KeyCode::Char('k'));
    }
    key(&mut app, KeyCode::Enter);
    let terminal = draw(&mut app, 140, 42);
    let screen = format!("{:?}", terminal.backend());
    assert!(screen.contains("Raw events behind answer"), "{screen}");
    insta::assert_snapshot!("timeline_raw_events_live_140x42", terminal.backend());
}

#[test]
fn every_turn_s_figures_show_above_the_waterfall_and_brackets_show_another_turn() {
    let dir = tempfile::tempdir().unwrap();
    let first = saved_turn(dir.path(), EARNINGS, "turn-001.sse");
    let second = saved_turn(dir.path(), FOLLOW_UP, "turn-002.sse");
    let mut app = support::app();
    play_saved(&mut app, EARNINGS, &first, None);
    play_saved(
        &mut app,
        FOLLOW_UP,
        &second,
        Some(half_of_the_answer(FOLLOW_UP)),
    );
    browse(&mut app);
    key(&mut app, KeyCode::Char('T'));
    let terminal = draw(&mut app, 140, 42);
    let screen = format!("{:?}", terminal.backend());
    assert!(screen.contains("first byte first text"), "{screen}");
    assert!(screen.contains("Timeline · turn 2 of 2"), "{screen}");
    insta::assert_snapshot!("timeline_turns_live_140x42", terminal.backend());

    play_rest(&mut app, FOLLOW_UP, half_of_the_answer(FOLLOW_UP));
    key(&mut app, KeyCode::Char('['));
    let terminal = draw(&mut app, 140, 42);
    let screen = format!("{:?}", terminal.backend());
    assert!(screen.contains("Timeline · turn 1 of 2"), "{screen}");
    insta::assert_snapshot!("timeline_turns_complete_140x42", terminal.backend());
    let Some(Popup::Timeline(view)) = &app.popup else {
        panic!("still open");
    };
    assert_eq!(view.turn, 0, "turn 1's waterfall");
}

/// The frames of `recording` from `from` on into the newest turn, then its end.
fn play_rest(app: &mut Ui, recording: &str, from: usize) {
    let frames = parse_frames(&std::fs::read(recording).unwrap());
    let mut pipeline = EventPipeline::auto();
    let mut ms = 0;
    for (i, frame) in frames.iter().enumerate() {
        ms += frame.delay_ms;
        let mut events = Vec::new();
        let _ = pipeline.feed(&frame.bytes, &mut events);
        if i >= from {
            app.turns.last_mut().unwrap().apply_events_at(events, ms);
        }
    }
    let mut events = Vec::new();
    let _ = pipeline.finish(&mut events);
    app.turns.last_mut().unwrap().apply_events_at(events, ms);
    app.apply_update(StreamUpdate::Ended(StreamEnd::Closed));
}

#[test]
fn a_newcomer_at_80_columns_finds_the_timeline_tab_and_the_raw_events_behind_a_row() {
    let t = Tmux::start(80, 24, &["--demo", "--demo-speed", "8"]);
    t.wait_for("the demo's answer to end", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    t.send(&["Escape"]);
    t.wait_for("browsing", Duration::from_secs(5), |s| {
        status_line(s).contains("BROWSE")
    });
    t.send(&["T"]);
    t.wait_for("the Timeline tab", Duration::from_secs(10), |s| {
        s.contains("Timeline") && s.contains("request → first byte")
    });
    t.send(&["j", "Enter"]);
    let screen = t.wait_for("the raw events", Duration::from_secs(10), |s| {
        s.contains("Raw events behind")
    });
    assert!(screen.contains("offset"), "{screen}");
    t.send(&["Escape"]);
    t.wait_for("the waterfall again", Duration::from_secs(5), |s| {
        !s.contains("Raw events behind") && s.contains("request → first byte")
    });
    t.send(&["q", "q"]);
    assert_exited_and_restored(&t);
}

#[test]
fn a_newcomer_at_140_columns_opens_the_raw_events_of_the_demo_s_saved_turn() {
    let t = Tmux::start(140, 42, &["--demo", "--demo-speed", "8"]);
    t.wait_for("the demo's answer to end", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    t.send(&["Escape"]);
    t.wait_for("browsing", Duration::from_secs(5), |s| {
        status_line(s).contains("BROWSE")
    });
    t.send(&["T"]);
    t.wait_for("the timeline popup", Duration::from_secs(10), |s| {
        s.contains("Enter raw events")
    });
    t.send(&["G", "Enter"]);
    let screen = t.wait_for("the end's raw event", Duration::from_secs(10), |s| {
        s.contains("Raw events behind complete")
    });
    assert!(screen.contains("\"COMPLETE\""), "{screen}");
    t.send(&["Escape", "Escape"]);
    t.wait_for("the timeline closed", Duration::from_secs(5), |s| {
        !s.contains("request → first byte")
    });
    t.send(&["q", "q"]);
    assert_exited_and_restored(&t);
}

/// A server whose answer comes in three parts: the first at once, the second after 2.5 s, the
/// end 8 s later (a turn still live while a watcher looks at it).
async fn slow_server() -> std::net::SocketAddr {
    use axum::body::{Body, Bytes};
    use futures::StreamExt;
    const EVENTS: [(&str, u64); 3] = [
        (
            "data: {\"chat_id\":\"c1\",\"message\":{\"type\":\"ANSWER\",\"content\":\"First. \"}}\n\n",
            0,
        ),
        (
            "data: {\"chat_id\":\"c1\",\"message\":{\"type\":\"ANSWER\",\"content\":\"Second.\"}}\n\n",
            2500,
        ),
        (
            "data: {\"chat_id\":\"c1\",\"message\":{\"type\":\"COMPLETE\",\"checkpoint_id\":\"k1\"}}\n\n",
            8000,
        ),
    ];
    let app = axum::Router::new().fallback(axum::routing::post(|| async {
        let chunks = futures::stream::iter(EVENTS).then(|(event, gap)| async move {
            tokio::time::sleep(Duration::from_millis(gap)).await;
            Ok::<_, std::io::Error>(Bytes::from_static(event.as_bytes()))
        });
        (
            [("content-type", "text/event-stream")],
            Body::from_stream(chunks),
        )
    }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

#[tokio::test(flavor = "multi_thread")]
async fn watch_joining_a_turn_midway_times_it_from_the_request_by_the_writers_times_file() {
    let upstream = slow_server().await;
    let home = tempfile::tempdir().unwrap();
    let mut asking = support::cli(home.path())
        .args(["ask", "Slow?", "--base-url", &format!("http://{upstream}")])
        .env("BIGDATA_API_KEY", "test-key-0123456789")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Joined after the second part arrived, 2.5 s into the turn.
    let sessions = support::Home::new(home.path()).sessions();
    support::wait_until("the second part saved", Duration::from_secs(20), || {
        support::files_under(&sessions)
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "sse"))
            .any(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("Second.")))
    });
    let data = format!(
        "XDG_DATA_HOME={}",
        support::Home::new(home.path()).data().display()
    );
    let t = Tmux::start_with_env(140, 42, &[&data], &["watch"]);
    t.wait_for("the watched turn", Duration::from_secs(15), |s| {
        s.contains("Second.")
    });
    t.send(&["T"]);
    let screen = t.wait_for("the timeline", Duration::from_secs(10), |s| {
        s.contains("first answer text")
    });
    // From the request: the first part at once, the second 2.5 s later — not both at the moment
    // the watch began.
    assert!(screen.contains("first answer text 0."), "{screen}");
    assert!(screen.contains("first byte 0."), "{screen}");
    let _ = asking.wait();
    t.send(&["Escape", "q", "q"]);
}

#[test]
fn a_raw_event_longer_than_the_room_scrolls_with_page_keys() {
    let dir = tempfile::tempdir().unwrap();
    let raw = saved_turn(dir.path(), EARNINGS, "turn-001.sse");
    let mut app = support::app();
    play_saved(&mut app, EARNINGS, &raw, None);
    browse(&mut app);
    key(&mut app, KeyCode::Char('T'));
    key(&mut app, KeyCode::Char('G'));
    // A chart's event: its data points run to a hundred lines.
    for _ in 0..100 {
        if format!("{:?}", draw(&mut app, 140, 42).backend()).contains("Phase    chart") {
            break;
        }
        key(&mut app, KeyCode::Char('k'));
    }
    key(&mut app, KeyCode::Enter);
    let screen = format!("{:?}", draw(&mut app, 140, 42).backend());
    assert!(screen.contains("\"type\": \"CHART\""), "{screen}");
    assert!(screen.contains("lines 1–"), "{screen}");
    key(&mut app, KeyCode::PageDown);
    let screen = format!("{:?}", draw(&mut app, 140, 42).backend());
    assert!(screen.contains("lines 11–"), "{screen}");
    assert!(
        !screen.contains("\"type\": \"CHART\""),
        "scrolled past it:\n{screen}"
    );
}
