//! Typing can never lose work: the prompt waits whenever the app waits for a question, characters
//! typed from a pane go to the prompt, `q` while a stream runs asks first, pasted and typed lines are
//! kept, and the prompt grows with its text under the terminal's own cursor.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use research_tui::tui::state::{Action, Effect, Focus};

use crate::support;

use support::*;

/// Type `text` key by key; every effect it asked for.
fn type_text(app: &mut research_tui::tui::ui::Ui, text: &str) -> Vec<Effect> {
    text.chars()
        .filter_map(|c| key(app, KeyCode::Char(c)))
        .collect()
}

#[test]
fn a_question_typed_when_the_answer_ends_is_typed_not_run() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    assert_eq!(
        app.focus,
        Focus::Prompt,
        "the prompt waits for the next question"
    );
    let effects = type_text(
        &mut app,
        "quarterly results? What about last quarter, export it",
    );
    assert_eq!(effects, []);
    assert!(!app.quit && app.popup.is_none());
    assert_eq!(
        app.panes.prompt.editor.lines(),
        ["quarterly results? What about last quarter, export it"]
    );
}

#[test]
fn a_character_no_pane_key_takes_starts_typing_the_question() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    let effects = type_text(&mut app, "What about last quarter? So export it");
    assert_eq!(effects, [], "no command ran");
    assert_eq!(app.focus, Focus::Prompt);
    assert!(app.popup.is_none() && !app.quit);
    assert_eq!(
        app.panes.prompt.editor.lines(),
        ["What about last quarter? So export it"]
    );
}

#[test]
fn q_while_a_stream_runs_asks_first_and_typing_on_keeps_the_q() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), Some(40));
    browse(&mut app);
    assert_eq!(key(&mut app, KeyCode::Char('q')), None);
    assert!(!app.quit);
    let message = &app.message.as_ref().unwrap().0;
    assert!(message.contains("Enter: quit"), "{message}");
    // Typing on: the q was the start of a word.
    assert_eq!(type_text(&mut app, "uarterly"), []);
    assert_eq!(app.panes.prompt.editor.lines(), ["quarterly"]);
    assert_eq!(app.focus, Focus::Prompt);
    // Another key forgets the q; q q quits.
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('q'));
    key(&mut app, KeyCode::Down);
    assert_eq!(key(&mut app, KeyCode::Char('q')), None, "asks again");
    assert_eq!(key(&mut app, KeyCode::Char('q')), Some(Effect::Quit));
}

#[test]
fn q_in_a_pane_quits_only_with_enter_or_a_second_q_even_when_nothing_streams() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    assert_eq!(key(&mut app, KeyCode::Char('q')), None);
    assert_eq!(key(&mut app, KeyCode::Enter), Some(Effect::Quit));
    let mut app = self::app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    assert_eq!(key(&mut app, KeyCode::Char('q')), None);
    assert_eq!(key(&mut app, KeyCode::Char('q')), Some(Effect::Quit));
}

/// A pasted tab (cells of a spreadsheet, indented code) keeps the words apart as four spaces;
/// other control characters go.
#[test]
fn a_pasted_tab_keeps_words_apart_and_other_controls_go() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    app.update(Action::Paste("\tGaming\t$4.5B\x07\x1b[31m".into()));
    assert_eq!(app.panes.prompt.editor.lines(), ["    Gaming    $4.5B[31m"]);
}

/// A long paste scrolls the prompt to its end: its border says how many lines are out of sight
/// above (and, with the cursor moved up, below), or its first lines seem lost.
#[test]
fn a_twenty_line_paste_says_on_the_prompt_border_how_many_lines_are_above() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    let pasted: Vec<String> = (1..=20)
        .map(|i| format!("point {i} of the question"))
        .collect();
    app.update(Action::Paste(pasted.join("\r")));
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains("┃ point 20 of the question"), "{screen}");
    assert!(!screen.contains("┃ point 12 of the question"), "{screen}");
    assert!(screen.contains("┗━ ↑ 12 more lines ━"), "{screen}");
    for _ in 0..15 {
        key(&mut app, KeyCode::Up);
    }
    let screen = draw(&mut app, 80, 24).backend().to_string();
    assert!(screen.contains("┃ point 5 of the question"), "{screen}");
    assert!(
        screen.contains("┗━ ↑ 4 more lines · ↓ 8 more ━"),
        "{screen}"
    );
}

#[test]
fn a_pasted_question_keeps_its_lines_and_so_does_its_echo() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    // Terminals send a pasted line break as CR.
    app.update(Action::Paste(
        "Compare these:\r1. margins\r\n2. guidance".into(),
    ));
    assert_eq!(app.focus, Focus::Prompt);
    assert_eq!(
        app.panes.prompt.editor.lines(),
        ["Compare these:", "1. margins", "2. guidance"]
    );
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains("┃ 1. margins"), "{screen}");
    let asked = key(&mut app, KeyCode::Enter);
    assert_eq!(
        asked,
        Some(Effect::Ask(
            "Compare these:\n1. margins\n2. guidance".into()
        ))
    );
    play(
        &mut app,
        FOLLOW_UP,
        Some("Compare these:\n1. margins\n2. guidance"),
        None,
    );
    browse(&mut app);
    let mut seen = String::new();
    for _ in 0..300 {
        seen = draw(&mut app, 140, 42).backend().to_string();
        if seen.contains("▍You: Compare these:") {
            break;
        }
        key(&mut app, KeyCode::Up);
    }
    let lines: Vec<&str> = seen.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("▍You: Compare these:"))
        .expect("the echoed question");
    assert!(lines[at + 1].contains("▍     1. margins"), "{seen}");
    assert!(lines[at + 2].contains("▍     2. guidance"), "{seen}");
}

/// The prompt's box: its top and bottom rows on screen.
fn prompt_box(screen: &str) -> (usize, usize) {
    let lines: Vec<&str> = screen.lines().collect();
    let top = lines
        .iter()
        .position(|l| l.contains(" Ask "))
        .expect("the prompt's title");
    let bottom = top
        + lines[top..]
            .iter()
            .position(|l| l.contains('┛') || l.contains('╯'))
            .unwrap();
    (top, bottom)
}

#[test]
fn the_prompt_grows_with_its_text_up_to_eight_rows_then_scrolls() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    let empty = draw(&mut app, 140, 42).backend().to_string();
    let (top, bottom) = prompt_box(&empty);
    assert_eq!(bottom - top, 2, "one row of text:\n{empty}");
    app.update(Action::Paste("one\ntwo\nthree".into()));
    let three = draw(&mut app, 140, 42).backend().to_string();
    let (top, bottom) = prompt_box(&three);
    assert_eq!(bottom - top, 4, "three rows:\n{three}");
    for word in ["one", "two", "three"] {
        assert!(three.contains(&format!("┃ {word} ")), "{three}");
    }
    let many: String = (1..=20).map(|i| format!("\nline {i}")).collect();
    app.update(Action::Paste(many));
    let tall = draw(&mut app, 140, 42);
    let screen = tall.backend().to_string();
    let (top, bottom) = prompt_box(&screen);
    assert_eq!(bottom - top, 9, "eight rows, then it scrolls:\n{screen}");
    assert!(screen.contains("line 20"), "the cursor's line is in view");
    // The terminal's cursor sits after the last character typed.
    let mut terminal = tall;
    let cursor = terminal.get_cursor_position().unwrap();
    let buffer = terminal.backend().buffer();
    let before: String = (0..cursor.x)
        .map(|x| buffer[(x, cursor.y)].symbol())
        .collect();
    assert!(before.ends_with("┃ line 20"), "{before:?}");
}

#[test]
fn the_status_bar_says_whether_keys_type_or_browse() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    let typing = draw(&mut app, 140, 42).backend().to_string();
    assert!(typing.lines().last().unwrap().contains("TYPE"), "{typing}");
    browse(&mut app);
    let browsing = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        browsing.lines().last().unwrap().contains("BROWSE"),
        "{browsing}"
    );
}

#[test]
fn ctrl_and_alt_letters_from_a_pane_are_not_typed() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    let alt_x = app.handle_key(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::ALT));
    assert_eq!(alt_x, None);
    assert_ne!(app.focus, Focus::Prompt);
}
