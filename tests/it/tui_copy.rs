//! `y` in every popup copies what it shows, or says why it cannot: a chart full screen copies its
//! data as CSV, the sessions picker the selected session's id, tool data its fields and its
//! charts' data; the help says it has nothing to copy. Drawn into a `TestBackend`.

use crossterm::event::KeyCode;
use research_tui::tui::state::{Effect, Popup};
use research_tui::tui::ui::Ui;

use crate::support::*;
use crate::tui_turns::saved_meta;

fn answered() -> Ui {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    app
}

fn message(app: &Ui) -> String {
    app.message
        .as_ref()
        .map(|(m, _)| m.clone())
        .unwrap_or_default()
}

/// The recording's first chart (`assets/recordings/bigdata/earnings-deep-dive.sse`, chart-1), its
/// Vega-Lite `data.values` read by hand: a horizontal bar chart, segments on the y axis.
const SEGMENTS_CSV: &str = "Segment,Revenue ($B)\nData Center,66.8\nGaming,4.5\n\
    Professional Visualization,0.8\nAutomotive & Robotics,0.7\nOEM & Other,0.4\n";

#[test]
fn y_on_a_chart_full_screen_copies_its_data_as_csv_and_the_footer_says_so() {
    let mut app = answered();
    app.popup = Some(Popup::Chart { turn: 0, chart: 0 });
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains("y copy data · Esc close"), "{screen}");
    let Some(Effect::CopyText(copied)) = key(&mut app, KeyCode::Char('y')) else {
        panic!("y copies the chart's data: {}", message(&app));
    };
    assert_eq!(copied, SEGMENTS_CSV);
}

#[test]
fn y_in_the_sessions_picker_copies_the_selected_sessions_id() {
    let mut app = answered();
    app.show_sessions(vec![
        saved_meta(
            "20260528-101500-1a2b",
            "2026-05-28T10:15:00Z",
            "bigdata",
            &[DEMO_QUESTION],
            "complete",
        ),
        saved_meta(
            "20260527-090000-00ff",
            "2026-05-27T09:00:00Z",
            "xai",
            &["Which battery makers lead?"],
            "complete",
        ),
    ]);
    key(&mut app, KeyCode::Char('j'));
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains("y copy id · Esc close"), "{screen}");
    assert_eq!(
        key(&mut app, KeyCode::Char('y')),
        Some(Effect::CopyText("20260527-090000-00ff".into()))
    );
    // An empty list has nothing selected: it says so.
    app.show_sessions(Vec::new());
    assert_eq!(key(&mut app, KeyCode::Char('y')), None);
    assert_eq!(message(&app), "no session selected to copy");
}

#[test]
fn y_in_the_help_says_there_is_nothing_to_copy() {
    let mut app = answered();
    keys(&mut app, "?");
    assert!(matches!(app.popup, Some(Popup::Help { .. })));
    assert_eq!(key(&mut app, KeyCode::Char('y')), None);
    assert_eq!(message(&app), "the help has nothing to copy or open");
}

#[test]
fn a_source_detail_taller_than_an_80_by_24_screen_keeps_its_keys_in_the_footer() {
    let mut app = answered();
    keys(&mut app, "c");
    key(&mut app, KeyCode::Enter);
    let screen = draw(&mut app, 80, 24).backend().to_string();
    // The keys say what can be done; the position of the rows gives way to them.
    assert!(
        screen.contains("j/k spans · Enter show · o⏎ open · y copy · Esc close"),
        "{screen}"
    );
    assert!(!screen.contains("lines 1–"), "{screen}");
    // Where there is room for both, both are there.
    let screen = draw(&mut app, 140, 24).backend().to_string();
    assert!(
        screen.contains("lines 1–") && screen.contains("y copy · Esc close"),
        "{screen}"
    );
}

#[test]
fn tool_data_offers_no_url_to_open_and_y_copies_the_data() {
    let mut app = answered();
    // Past the nine sources to the first tool data entry: the chart tool.
    keys(&mut app, "cjjjjjjjjj");
    key(&mut app, KeyCode::Enter);
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        screen.contains("Tool data: python_code_execution"),
        "{screen}"
    );
    assert!(
        screen.contains("Enter show · y copy · Esc close"),
        "{screen}"
    );
    assert!(!screen.contains("open ·"), "no open offered:\n{screen}");
    let Some(Effect::CopyText(copied)) = key(&mut app, KeyCode::Char('y')) else {
        panic!("y copies the tool data: {}", message(&app));
    };
    assert!(
        copied.starts_with("Tool: python_code_execution\n"),
        "{copied}"
    );
    assert!(
        copied.contains("Chart: Revenue by segment, Q1 FY2027\n"),
        "{copied}"
    );
    assert!(copied.ends_with(SEGMENTS_CSV.trim_end()), "{copied}");
    key(&mut app, KeyCode::Char('o'));
    assert_eq!(key(&mut app, KeyCode::Enter), None);
    assert!(
        message(&app).starts_with("tool data has no web page"),
        "{}",
        message(&app)
    );
}

/// The chart full screen covers the status bar, so what the status bar says after `y` ("copied 6
/// lines") shows in the chart's footer instead: a person sees the copy happened.
#[test]
fn what_y_on_a_chart_full_screen_did_shows_in_its_footer() {
    let mut app = answered();
    app.popup = Some(Popup::Chart { turn: 0, chart: 0 });
    draw(&mut app, 140, 42);
    assert!(key(&mut app, KeyCode::Char('y')).is_some());
    // What running the copy says (the effect runs on the terminal, outside the app's state).
    app.set_message(
        "copied 6 lines (OSC 52)",
        research_tui::tui::state::Severity::Info,
    );
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        screen.contains("copied 6 lines (OSC 52) · ") && screen.contains("y copy data · Esc close"),
        "{screen}"
    );
}
