//! The end of an answer and what sits over it: the source detail popup (as big as its content, dates
//! as in the list, spans in words, Enter on a span jumps to it), the ids popup behind the terse status
//! bar, and the status bar itself.

use crossterm::event::KeyCode;
use research_tui::tui::state::{Effect, Focus, Popup};

use crate::support;

use support::*;

/// The demo's first answer, finished, browsing the Sources pane.
fn in_sources() -> research_tui::tui::ui::Ui {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    keys(&mut app, "c");
    app
}

#[test]
fn the_source_detail_sizes_to_its_content_and_quotes_spans_as_words() {
    let mut app = in_sources();
    for source in 0..9 {
        key(&mut app, KeyCode::Enter);
        let screen = draw(&mut app, 140, 42).backend().to_string();
        assert!(!screen.contains("**"), "no raw Markdown:\n{screen}");
        assert!(
            !screen.contains("Date       2026"),
            "one date format:\n{screen}"
        );
        key(&mut app, KeyCode::Esc);
        keys(&mut app, "j");
        let _ = source;
    }
    keys(&mut app, "g");
    keys(&mut app, "j");
    key(&mut app, KeyCode::Enter);
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains("Date       May 27, 2026"), "{screen}");
    let lines: Vec<&str> = screen.lines().collect();
    let top = lines.iter().position(|l| l.contains('╔')).unwrap();
    let bottom = lines.iter().position(|l| l.contains('╚')).unwrap();
    assert!(bottom - top < 25, "as tall as its rows:\n{screen}");
}

#[test]
fn j_picks_a_listed_span_and_enter_shows_it_in_the_answer() {
    let mut app = in_sources();
    keys(&mut app, "j");
    key(&mut app, KeyCode::Enter);
    keys(&mut app, "jj");
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        screen.contains("▶ 2. “The stock rose about 3% in extended trading”"),
        "{screen}"
    );
    let Some(Popup::Source { item, .. }) = app.popup else {
        panic!("the popup is open");
    };
    let second = app.item_citations(item)[1];
    key(&mut app, KeyCode::Enter);
    assert!(app.popup.is_none());
    assert_eq!(app.panes.answer.focus_span, Some(second));
    let terminal = draw(&mut app, 140, 42);
    let buffer = terminal.backend().buffer();
    let underlined: String = buffer
        .content()
        .iter()
        .filter(|c| {
            c.modifier.contains(ratatui::style::Modifier::UNDERLINED)
                && c.bg == app.theme.highlight_bg
        })
        .map(|c| c.symbol())
        .collect();
    assert!(underlined.contains("The stock rose"), "{underlined:?}");
    // One pane at a time, the answer takes the screen.
    let mut narrow = in_sources();
    draw(&mut narrow, 80, 24);
    keys(&mut narrow, "j");
    key(&mut narrow, KeyCode::Enter);
    keys(&mut narrow, "j");
    key(&mut narrow, KeyCode::Enter);
    assert_eq!(narrow.focus, Focus::Answer);
}

#[test]
fn the_ids_popup_shows_every_id_whole_and_y_copies_the_checkpoint() {
    let mut app = in_sources();
    let screen = draw(&mut app, 140, 42).backend().to_string();
    let status = screen.lines().last().unwrap();
    assert!(
        status.contains("ckpt-…7-0001"),
        "short in the bar: {status}"
    );
    assert!(!status.contains("ckpt-demo-nvda"), "{status}");
    keys(&mut app, "I");
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        screen.contains("Checkpoint  ckpt-demo-nvda-q1fy27-0001"),
        "{screen}"
    );
    assert!(
        screen.contains("Chat        demo-chat-4f7d2c9a-nvda-earnings"),
        "{screen}"
    );
    insta::assert_snapshot!("ids_popup", screen);
    assert_eq!(
        key(&mut app, KeyCode::Char('y')),
        Some(Effect::CopyText("ckpt-demo-nvda-q1fy27-0001".into()))
    );
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none());
}

#[test]
fn the_status_bar_is_terse_and_always_names_the_help_key() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    play(&mut app, FOLLOW_UP, Some("And AMD?"), None);
    browse(&mut app);
    keys(&mut app, "[");
    for width in [40u16, 80, 140, 200] {
        let screen = draw(&mut app, width, 24).backend().to_string();
        let status = screen.lines().last().unwrap().trim_matches('"');
        assert!(status.trim_end().ends_with("? help"), "{width}: {status}");
        assert!(status.matches("turn 1").count() <= 1, "{width}: {status}");
    }
    let screen = draw(&mut app, 140, 42).backend().to_string();
    let status = screen.lines().last().unwrap();
    assert!(status.contains("turn 1/2"), "{status}");
    assert!(status.contains("48.2k/3.9k tok"), "{status}");
    key(&mut app, KeyCode::Char('i'));
    let screen = draw(&mut app, 40, 12).backend().to_string();
    let status = screen.lines().last().unwrap().trim_matches('"');
    assert!(status.trim_end().ends_with("F1 help"), "{status}");
}

#[test]
fn posts_on_x_are_told_apart_in_the_sidebar_and_the_detail() {
    let mut app = app();
    play(
        &mut app,
        "assets/recordings/xai/solid-state-batteries.sse",
        None,
        None,
    );
    let screen = draw(&mut app, 140, 42).backend().to_string();
    for post in [
        "1911234567890123456",
        "1912345678901234567",
        "1913456789012345678",
    ] {
        assert!(screen.contains(&format!("X post {post}")), "{screen}");
    }
    assert!(screen.contains("1 span · “while investors"), "{screen}");
    browse(&mut app);
    keys(&mut app, "c");
    for _ in 0..9 {
        keys(&mut app, "j");
    }
    key(&mut app, KeyCode::Enter);
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        screen.contains("[10] X post 1911234567890123456"),
        "{screen}"
    );
}
