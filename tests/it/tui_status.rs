//! The status bar tells of the turn the panes show: its state, its time and its tokens together,
//! whichever turn `[` and `]` picked, drawn into a `TestBackend`.

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::stream_end::StreamEnd;
use research_tui::tui::ui::Ui;

use crate::support::*;

/// The bottom row of a frame of `width` × `height`.
fn status_row(app: &mut Ui, width: u16, height: u16) -> String {
    let terminal = draw(app, width, height);
    let buffer = terminal.backend().buffer();
    (0..width)
        .map(|x| buffer[(x, height - 1)].symbol().to_owned())
        .collect()
}

/// Two turns on a real clock: the first completed in 22.5 s, the second was cancelled after 8 s.
fn complete_then_cancelled() -> Ui {
    let mut app = app();
    app.fixed_elapsed = None;
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    play(&mut app, FOLLOW_UP, Some("And AMD?"), Some(3));
    app.apply_update(StreamUpdate::Ended(StreamEnd::Cancelled));
    let now = Instant::now();
    for (turn, took) in app.turns.iter_mut().zip([22_500, 8_000]) {
        turn.ended = Some(now);
        turn.started = now - Duration::from_millis(took);
    }
    app
}

#[test]
fn an_earlier_turn_picked_shows_its_own_state_and_time_beside_its_tokens() {
    let mut app = complete_then_cancelled();
    let latest = status_row(&mut app, 140, 42);
    assert!(latest.contains("! cancelled · 0:08"), "{latest}");
    assert!(latest.contains("turn 2/2"), "{latest}");
    browse(&mut app);
    keys(&mut app, "[");
    let earlier = status_row(&mut app, 140, 42);
    assert!(
        earlier.contains("✔ complete · 0:22 · "),
        "turn 1's state and time, not turn 2's: {earlier}"
    );
    assert!(earlier.contains("turn 1/2"), "{earlier}");
    assert!(!earlier.contains("cancelled"), "{earlier}");
    // Its tokens are its own too (the second turn was cut before any came).
    assert!(earlier.contains(" tok"), "{earlier}");
    keys(&mut app, "]");
    let back = status_row(&mut app, 140, 42);
    assert!(back.contains("! cancelled · 0:08"), "{back}");
}

#[test]
fn an_earlier_turn_picked_while_the_newest_streams_says_the_newest_still_streams() {
    let mut app = app();
    app.fixed_elapsed = None;
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    play(&mut app, FOLLOW_UP, Some("And AMD?"), Some(3));
    browse(&mut app);
    keys(&mut app, "[");
    let row = status_row(&mut app, 140, 42);
    assert!(row.contains("✔ complete"), "{row}");
    assert!(row.contains("turn 2 streaming"), "{row}");
}

#[test]
fn the_status_bar_says_ctrl_c_cancels_while_the_answer_streams_and_quits_once_it_ended() {
    let streaming = status_row(&mut half_answered(), 140, 42);
    assert!(streaming.contains("Ctrl-C cancels"), "{streaming}");
    assert!(!streaming.contains("quits"), "{streaming}");
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    let ended = status_row(&mut app, 140, 42);
    assert!(ended.contains("Ctrl-C quits"), "{ended}");
    assert!(!ended.contains("cancels"), "{ended}");
}

/// A message with no room for the whole of it says its first clause (before the ` — `) whole,
/// rather than a word cut short: in a comparison's column Ctrl-C's `cancelled — Ctrl-C again
/// quits` read `cancelle…`.
#[test]
fn a_message_too_long_for_a_narrow_bar_keeps_its_first_clause_whole() {
    let mut app = half_answered();
    ctrl(&mut app, 'c');
    let row = status_row(&mut app, 46, 24);
    assert!(row.contains("cancelled · "), "{row}");
    assert!(!row.contains("cancelle…"), "{row}");
    // With room, the whole message.
    let row = status_row(&mut app, 140, 42);
    assert!(row.contains("cancelled — Ctrl-C again quits"), "{row}");
}

/// A popup opened from the prompt (F1) takes every key, as one opened from a pane does: the bar
/// says POPUP, not BROWSE (nothing moves around the panes) nor TYPE (nothing is typed), and TYPE
/// again once it is closed.
#[test]
fn a_popup_opened_from_the_prompt_is_named_in_the_bar_not_browse() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    assert!(status_row(&mut app, 140, 42).starts_with(" DEMO  TYPE "));
    key(&mut app, KeyCode::F(1));
    let bar = status_row(&mut app, 140, 42);
    assert!(bar.starts_with(" DEMO  POPUP "), "{bar}");
    key(&mut app, KeyCode::Esc);
    let bar = status_row(&mut app, 140, 42);
    assert!(bar.starts_with(" DEMO  TYPE "), "{bar}");
}
