//! Reading a long answer (issue 19): `/` searches the answer and the sources' titles like `less`,
//! `z` / `+` / `-` / `=` keep the line being read where it was, the full-screen chart viewer pages
//! between charts and a bar chart fills it, the help lists the focused pane's keys first. Driven
//! through the real demo recording (and, in tmux, the real binary against the demo agent).

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use research_tui::tui::state::{Effect, Focus, Popup};
use research_tui::tui::ui::Ui;

use crate::support::tmux::*;
use crate::support::*;

mod in_tmux;
mod long;

const ANSWER: Duration = Duration::from_secs(60);
const SOON: Duration = Duration::from_secs(5);

/// The demo's answer, complete, browsed from the answer's top.
fn answered() -> Ui {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    draw(&mut app, 140, 42);
    browse(&mut app);
    keys(&mut app, "ag");
    app
}

/// Occurrences of `query` in `text` ignoring ASCII case, counted without the app's search.
fn occurrences(text: &str, query: &str) -> usize {
    let (text, query) = (text.to_ascii_lowercase(), query.to_ascii_lowercase());
    let mut count = 0;
    let mut at = 0;
    while let Some(i) = text[at..].find(&query) {
        count += 1;
        at += i + query.len();
    }
    count
}

/// The status bar (the last row of a drawn screen).
fn status(app: &mut Ui, width: u16, height: u16) -> String {
    let screen = draw(app, width, height).backend().to_string();
    let rows: Vec<&str> = screen.lines().collect();
    rows[rows.len() - 1].to_owned()
}

#[test]
fn slash_finds_every_hit_counts_them_and_n_and_enter_walk_through_them() {
    let mut app = answered();
    let answer = app.current().unwrap().session.answer.as_str().to_owned();
    let in_answer = occurrences(&answer, "margin");
    assert!(in_answer > 2, "the demo answer speaks of margins");
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "margin");
    let search = app.search.clone().expect("a search");
    assert_eq!(search.turns[0].answer.len(), in_answer);
    let total = search.len();
    assert!(
        status(&mut app, 140, 42).contains(&format!("/margin  1/{total}")),
        "the count in the status bar"
    );
    // Every hit is the query, whatever its case.
    for range in &search.turns[0].answer {
        assert_eq!(answer[range.clone()].to_ascii_lowercase(), "margin");
    }
    // Enter while typing goes to the next hit, Shift-Enter back; the view follows.
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.search.as_ref().unwrap().current, Some(1));
    let shift_enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT);
    let action = app.handle_key(shift_enter).unwrap();
    app.update(action);
    assert_eq!(app.search.as_ref().unwrap().current, Some(0));
    // Esc: browse the hits with n / N (N from the first wraps to the last).
    key(&mut app, KeyCode::Esc);
    assert!(!app.search.as_ref().unwrap().typing);
    key(&mut app, KeyCode::Char('N'));
    assert_eq!(app.search.as_ref().unwrap().current, Some(total - 1));
    assert!(status(&mut app, 140, 42).contains(&format!("{total}/{total}")));
    // Esc again ends the search: n goes back to the selected source's spans.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.search, None);
    assert!(!status(&mut app, 140, 42).contains("/margin"));
}

#[test]
fn the_current_hit_is_brought_into_view_far_down_the_answer() {
    let mut app = answered();
    let answer = app.current().unwrap().session.answer.as_str().to_owned();
    // A word only near the end of the answer.
    let word = "extended trading";
    assert_eq!(occurrences(&answer, word), 1);
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, word);
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains(word), "{screen}");
    assert!(app.panes.answer.scroll.top > 0, "scrolled down to it");
}

#[test]
fn a_query_with_a_capital_letter_matches_case_and_no_match_says_so() {
    let mut app = answered();
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "REVENUE");
    assert!(status(&mut app, 140, 42).contains("no match"));
    // Backspace edits; on an empty query it ends the search.
    for _ in 0.."REVENUE".len() + 1 {
        key(&mut app, KeyCode::Backspace);
    }
    assert_eq!(app.search, None);
}

#[test]
fn ctrl_c_while_searching_ends_the_search_and_does_not_quit() {
    let mut app = answered();
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "margin");
    let prompt = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        prompt.contains("searching: letters go to the search"),
        "the prompt says so"
    );
    assert_eq!(ctrl(&mut app, 'c'), None);
    assert!(!app.quit);
    assert_eq!(app.search, None);
    assert!(status(&mut app, 140, 42).contains("search ended"));
}

#[test]
fn a_sources_title_holding_the_query_is_a_hit_that_selects_it() {
    let mut app = answered();
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "Reuters");
    let search = app.search.clone().unwrap();
    assert!(!search.sources.is_empty(), "Reuters publishes source [2]");
    let first_source = search.len() - search.sources.len();
    while app.search.as_ref().unwrap().current != Some(first_source) {
        key(&mut app, KeyCode::Enter);
    }
    assert_eq!(app.focus, Focus::Sources);
    assert_eq!(app.panes.sources.selected, Some(search.sources[0]));
}

#[test]
fn in_the_prompt_a_slash_is_only_a_character() {
    let mut app = answered();
    key(&mut app, KeyCode::Char('i'));
    keys(&mut app, "a/b");
    assert_eq!(app.search, None);
    assert_eq!(app.panes.prompt.text(), "a/b");
}

/// The first row inside the focused pane (the answer: a thick border) of a screen.
fn focused_top_row(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines.iter().position(|l| l.contains('┏')).unwrap();
    lines[at + 1].split('┃').nth(1).unwrap_or("").to_owned()
}

fn answer_top_row(app: &mut Ui, width: u16, height: u16) -> String {
    focused_top_row(&draw(app, width, height).backend().to_string())
}

/// The first words of a row of answer text (a bullet off).
fn words(row: &str) -> String {
    row.trim()
        .trim_start_matches(['•', ' '])
        .split(' ')
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn zoom_and_resize_keep_the_line_being_read_at_the_top() {
    let mut app = answered();
    for _ in 0..30 {
        key(&mut app, KeyCode::Char('j'));
    }
    let before = words(&answer_top_row(&mut app, 140, 42));
    assert!(!before.is_empty());
    key(&mut app, KeyCode::Char('z'));
    let zoomed = answer_top_row(&mut app, 140, 42);
    // Wider rows: the line read is in the top row (it may start earlier in its sentence).
    assert!(zoomed.contains(&before), "{before:?} not in {zoomed:?}");
    key(&mut app, KeyCode::Char('z'));
    assert_eq!(
        words(&answer_top_row(&mut app, 140, 42)),
        before,
        "and back"
    );
    key(&mut app, KeyCode::Char('+'));
    let wider = answer_top_row(&mut app, 140, 42);
    assert!(wider.contains(&before), "{before:?} not in {wider:?}");
    // = puts the sizes back (remembered) and the line is still there.
    assert!(matches!(
        key(&mut app, KeyCode::Char('=')),
        Some(Effect::SaveLayout(_))
    ));
    assert_eq!(app.pane_sizes, Default::default());
    assert!(answer_top_row(&mut app, 140, 42).contains(&before));
}

#[test]
fn a_terminal_resized_keeps_the_line_being_read_at_the_top() {
    let mut app = answered();
    for _ in 0..30 {
        key(&mut app, KeyCode::Char('j'));
    }
    let before = words(&answer_top_row(&mut app, 140, 42));
    assert!(!before.is_empty());
    for (w, h) in [(100, 30), (80, 24), (140, 42)] {
        let row = answer_top_row(&mut app, w, h);
        assert!(row.contains(&before), "{w}x{h}: {before:?} not in {row:?}");
    }
}

#[test]
fn the_chart_viewer_pages_between_the_turns_charts() {
    let mut app = answered();
    let charts = app.current().unwrap().session.charts.len();
    assert_eq!(charts, 2, "the demo answer has two charts");
    app.popup = Some(Popup::Chart { turn: 0, chart: 0 });
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains("Chart 1 of 2"));
    assert!(screen.contains("← → previous / next chart"));
    key(&mut app, KeyCode::Right);
    assert!(
        draw(&mut app, 140, 42)
            .backend()
            .to_string()
            .contains("Chart 2 of 2")
    );
    key(&mut app, KeyCode::Right);
    assert_eq!(
        app.popup,
        Some(Popup::Chart { turn: 0, chart: 1 }),
        "the last"
    );
    key(&mut app, KeyCode::PageUp);
    assert_eq!(app.popup, Some(Popup::Chart { turn: 0, chart: 0 }));
    key(&mut app, KeyCode::PageDown);
    assert_eq!(app.popup, Some(Popup::Chart { turn: 0, chart: 1 }));
}

#[test]
fn a_bar_chart_full_screen_fills_the_screen_it_was_given() {
    let mut app = answered();
    app.popup = Some(Popup::Chart { turn: 0, chart: 0 });
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains("· bar"), "{screen}");
    let bar_rows = screen.lines().filter(|l| l.contains('█')).count();
    assert!(bar_rows >= 25, "{bar_rows} of 40 rows have bars:\n{screen}");
    let small = draw(&mut app, 40, 12).backend().to_string();
    assert!(
        small.lines().filter(|l| l.contains('█')).count() >= 3,
        "{small}"
    );
}

#[test]
fn compare_after_esc_types_the_whole_word() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    draw(&mut app, 140, 42);
    browse(&mut app);
    keys(&mut app, "compare");
    assert_eq!(app.focus, Focus::Prompt);
    assert_eq!(app.panes.prompt.text(), "compare");
}

#[test]
fn o_in_a_sources_detail_waits_for_enter() {
    let mut app = answered();
    keys(&mut app, "c");
    key(&mut app, KeyCode::Enter);
    assert!(matches!(app.popup, Some(Popup::Source { .. })));
    assert_eq!(key(&mut app, KeyCode::Char('o')), None, "armed, not opened");
    let bar = status(&mut app, 140, 42);
    assert!(
        bar.contains("Enter: open the selected source's URL · another key does not"),
        "{bar}"
    );
    assert!(matches!(
        key(&mut app, KeyCode::Enter),
        Some(Effect::Open(_))
    ));
}

#[test]
fn the_armed_hint_fits_an_80_column_status_bar() {
    let mut app = answered();
    key(&mut app, KeyCode::Char('q'));
    let bar = status(&mut app, 80, 24);
    assert!(bar.contains("⏎ or q quits · q… types"), "{bar}");
    assert!(bar.contains("? help"), "{bar}");
    // Narrower, the hint loses its last part whole, never a key cut in half.
    let bar = status(&mut app, 50, 24);
    assert!(bar.contains("⏎ or q quits · ? help"), "{bar}");
}

#[test]
fn search_snapshots() {
    // Each size searches anew: the hit is brought into view by the frame after the key.
    for (w, h) in [(140, 42), (80, 24), (40, 12)] {
        let mut app = answered();
        draw(&mut app, w, h);
        key(&mut app, KeyCode::Char('/'));
        keys(&mut app, "margin");
        insta::assert_snapshot!(
            format!("search_typing_{w}x{h}"),
            draw(&mut app, w, h).backend()
        );
    }
    let mut app = answered();
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "margin");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
    insta::assert_snapshot!("search_browsing_140x42", draw(&mut app, 140, 42).backend());
}

#[test]
fn chart_viewer_snapshots() {
    let mut app = answered();
    app.popup = Some(Popup::Chart { turn: 0, chart: 0 });
    for (w, h) in [(140, 42), (80, 24), (40, 12)] {
        insta::assert_snapshot!(
            format!("chart_viewer_{w}x{h}"),
            draw(&mut app, w, h).backend()
        );
    }
    key(&mut app, KeyCode::Right);
    insta::assert_snapshot!(
        "chart_viewer_second_140x42",
        draw(&mut app, 140, 42).backend()
    );
}

/// The answer pane's right border, top to bottom (its corners left out), of a frame.
fn answer_right_border(buffer: &ratatui::buffer::Buffer) -> Vec<String> {
    let area = buffer.area;
    let cell = |x: u16, y: u16| buffer[(x, y)].symbol().to_owned();
    let row = |y: u16| (0..area.width).map(|x| cell(x, y)).collect::<Vec<_>>();
    let (top, title) = (0..area.height)
        .find_map(|y| {
            let row = row(y);
            let at = row.windows(6).position(|w| w.concat() == "Answer")?;
            Some((y, at as u16))
        })
        .expect("the answer's title");
    let x = (title..area.width)
        .find(|&x| matches!(cell(x, top).as_str(), "╮" | "┓"))
        .expect("the answer's top-right corner");
    (top + 1..area.height)
        .map(|y| cell(x, y))
        .take_while(|c| !matches!(c.as_str(), "╯" | "┛"))
        .collect()
}

#[test]
fn a_scrolled_answer_keeps_its_position_mark_when_the_focus_moves_to_the_sources() {
    let mut app = answered();
    key(&mut app, KeyCode::PageDown);
    key(&mut app, KeyCode::PageDown);
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.focus, Focus::Sources);
    let marks = |app: &mut Ui| {
        let border = answer_right_border(draw(app, 140, 42).backend().buffer());
        let marks: Vec<usize> = (0..border.len()).filter(|&y| border[y] == "┃").collect();
        (marks, border.len())
    };
    // One mark on the unfocused answer's thin border, partway down: neither the top nor the end.
    let (down, rows) = marks(&mut app);
    assert_eq!(down.len(), 1, "{down:?}");
    assert!(down[0] > 0 && down[0] + 1 < rows, "{down:?} of {rows}");
    // Back at the answer's top, the mark is at the border's top.
    keys(&mut app, "agc");
    assert_eq!(marks(&mut app).0, vec![0]);
}
