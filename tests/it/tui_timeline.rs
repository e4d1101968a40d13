//! The Timeline view (`T`): the demo's earnings recording played with the pacing its `: delay=MS`
//! comments record (each frame's events given that time, so the drawing is the same on every run),
//! drawn live and complete at 140×42 and 80×24; selecting a row and copying it; and the real binary
//! in tmux.

use std::time::Duration;

use crossterm::event::KeyCode;
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::stream_end::StreamEnd;
use research_tui::tui::state::{Effect, Popup};
use research_tui::tui::ui::Ui;
use research_tui::wire::provider::EventPipeline;
use research_tui::wire::recording::parse_frames;

use crate::support::tmux::{Tmux, assert_exited_and_restored, status_line};
use crate::support::{self, *};

/// [`support::play`], each frame's events arriving at the time its recorded delays add up to.
fn play_timed(app: &mut Ui, path: &str, limit: Option<usize>) {
    let frames = parse_frames(&std::fs::read(path).unwrap());
    app.begin_turn(Some(DEMO_QUESTION.to_owned()));
    app.apply_update(StreamUpdate::Connected);
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

fn timeline_open(app: &mut Ui) {
    browse(app);
    key(app, KeyCode::Char('T'));
    assert!(matches!(app.popup, Some(Popup::Timeline(_))));
}

#[test]
fn the_timeline_of_a_streaming_turn_shows_its_phases_so_far_and_the_silence_since_the_last_event() {
    for (w, h) in [(140, 42), (80, 24)] {
        let mut app = support::app();
        // Half the answer has arrived; the app's clock says 42 s, long after the last event.
        play_timed(&mut app, EARNINGS, Some(half_of_the_answer(EARNINGS)));
        timeline_open(&mut app);
        let terminal = draw(&mut app, w, h);
        let screen = format!("{:?}", terminal.backend());
        assert!(screen.contains("live · 42.0 s so far"), "{screen}");
        insta::assert_snapshot!(format!("timeline_live_{w}x{h}"), terminal.backend());
    }
}

#[test]
fn the_timeline_of_a_complete_turn_details_the_selected_tool_call_and_y_copies_it() {
    for (w, h) in [(140, 42), (80, 24)] {
        let mut app = support::app();
        play_timed(&mut app, EARNINGS, None);
        timeline_open(&mut app);
        // The first search: request, step, thinking, the calendar tool, step, thinking, search.
        keys(&mut app, "jjjjjj");
        insta::assert_snapshot!(
            format!("timeline_complete_{w}x{h}"),
            draw(&mut app, w, h).backend()
        );
        let Some(Effect::CopyText(json)) = key(&mut app, KeyCode::Char('y')) else {
            panic!("y copies the selected row");
        };
        let row: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(row["kind"], "tool");
        assert_eq!(row["label"], "search");
        assert!(row["results"].as_u64().unwrap() > 0, "{row}");
        assert!(row["end_ms"].as_u64() > row["start_ms"].as_u64(), "{row}");
    }
}

#[test]
fn a_newcomer_opens_the_timeline_with_t_while_the_demo_streams_and_closes_it_with_esc() {
    let t = Tmux::start(140, 42, &["--demo", "--demo-speed", "2"]);
    t.wait_for("the demo to stream", Duration::from_secs(20), |s| {
        status_line(s).contains("streaming")
    });
    t.send(&["Escape"]);
    t.wait_for("browsing", Duration::from_secs(5), |s| {
        status_line(s).contains("BROWSE")
    });
    t.send(&["T"]);
    let screen = t.wait_for("the timeline", Duration::from_secs(10), |s| {
        s.contains("Timeline") && s.contains("request → first byte")
    });
    assert!(screen.contains("live · "), "{screen}");
    let screen = t.wait_for(
        "the answer phase, then the end",
        Duration::from_secs(60),
        |s| s.contains(" answer ") && s.contains(" complete "),
    );
    assert!(screen.contains("first answer text"), "{screen}");
    t.send(&["Escape"]);
    t.wait_for("the timeline closed", Duration::from_secs(5), |s| {
        !s.contains("request → first byte")
    });
    // The answer ended: the prompt has the focus again; leave it to quit.
    t.send(&["Escape"]);
    t.wait_for("browsing", Duration::from_secs(5), |s| {
        status_line(s).contains("BROWSE")
    });
    t.send(&["q", "q"]);
    assert_exited_and_restored(&t);
}

#[test]
fn until_answer_text_arrives_activity_and_the_timeline_take_the_answers_room() {
    let frames = parse_frames(&std::fs::read(EARNINGS).unwrap());
    let first_answer = frames
        .iter()
        .position(|f| String::from_utf8_lossy(&f.bytes).contains("\"type\":\"ANSWER\""))
        .unwrap();
    let mut app = support::app();
    play_timed(&mut app, EARNINGS, Some(first_answer));
    let terminal = draw(&mut app, 140, 42);
    let screen = format!("{:?}", terminal.backend());
    // The question and how the turn is doing stay in view, above the wider Activity and the
    // waterfall.
    assert!(screen.contains("You: Break down NVIDIA"), "{screen}");
    assert!(screen.contains("researching…"), "{screen}");
    assert!(screen.contains("╭ Timeline T details"), "{screen}");
    insta::assert_snapshot!("timeline_while_researching_140x42", terminal.backend());

    let mut app = support::app();
    play_timed(&mut app, EARNINGS, Some(first_answer + 1));
    let screen = format!("{:?}", draw(&mut app, 140, 42).backend());
    assert!(
        !screen.contains("╭ Timeline"),
        "the answer has its room back:\n{screen}"
    );
}

#[test]
fn a_thinking_row_is_cut_at_a_word_with_an_ellipsis_and_y_copies_the_whole_thought() {
    // think-1 of the recording, its THINKING contents joined (read with a few lines of Python).
    const THOUGHT: &str = "The user wants a full picture of NVIDIA's most recent quarter. NVIDIA's \
        fiscal year ends in late January, so results published in late May would be Q1 FY2027 — \
        but I should confirm the report date on the earnings calendar first, so the search window \
        lines up with the release.";
    let mut app = support::app();
    play_timed(&mut app, EARNINGS, None);
    timeline_open(&mut app);
    // Request, step, thinking.
    keys(&mut app, "jj");
    let screen = draw(&mut app, 140, 42).backend().to_string();
    let detail = screen
        .lines()
        .find(|l| l.contains("Detail"))
        .expect("the thinking row's detail");
    assert!(
        // Its first 80 characters end inside "year": the cut is before it.
        detail.contains("Detail   The user wants a full picture of NVIDIA's most recent quarter. NVIDIA's fiscal… "),
        "cut after a whole word, with an ellipsis: {detail}"
    );
    let Some(Effect::CopyText(json)) = key(&mut app, KeyCode::Char('y')) else {
        panic!("y copies the selected row");
    };
    let row: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(row["kind"], "thinking");
    assert_eq!(row["detail"], THOUGHT);
}

/// The turn's figures above the waterfall break between two figures, never inside one: at 80
/// columns `total` kept its `22.1 s` (it was `total` at one line's end, `22.1 s` on the next).
#[test]
fn the_timeline_figures_break_between_figures_never_inside_one() {
    let mut app = support::app();
    play_timed(&mut app, EARNINGS, None);
    timeline_open(&mut app);
    let screen = draw(&mut app, 80, 24).backend().to_string();
    let figures: Vec<&str> = screen
        .lines()
        .skip_while(|l| !l.contains("first byte"))
        .take(2)
        .collect();
    assert!(figures[0].contains("chars/s"), "{screen}");
    assert!(figures[1].contains("total 22.1 s"), "{screen}");
}
