//! The mouse, through the screen's own map of what it drew (`Panes::spot`): a click focuses a pane and
//! picks a source, an activity item or a citation marker's source; the wheel scrolls the pane under
//! the pointer; clicks on the tab row switch tabs; `m` leaves the mouse to the terminal.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use research_tui::tui::state::{Action, Effect, Focus, Spot};
use research_tui::tui::ui::Ui;

use crate::support;

use support::*;

/// A frame drawn (the panes keep its map of the screen), and the screen's text.
fn frame(app: &mut Ui, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| app.draw(f)).unwrap();
    terminal.backend().to_string()
}

/// The cell where `text` starts on screen (the first row that has it).
fn cell_of(screen: &str, text: &str) -> (u16, u16) {
    screen
        .lines()
        .enumerate()
        .find_map(|(y, line)| {
            let at = line.find(text)?;
            // The backend's rows are quoted: one column more.
            Some((line[..at].chars().count() as u16 - 1, y as u16))
        })
        .unwrap_or_else(|| panic!("{text:?} on screen:\n{screen}"))
}

fn click(app: &mut Ui, (x, y): (u16, u16)) -> Option<Effect> {
    let spot = app.panes.spot(&app.app, x, y);
    app.update(Action::Click(spot))
}

#[test]
fn a_click_focuses_a_pane_and_picks_a_source_or_an_activity_item() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    let screen = frame(&mut app, 140, 42);
    click(&mut app, cell_of(&screen, "[3] SEC EDGAR"));
    assert_eq!(app.focus, Focus::Sources);
    assert_eq!(app.panes.sources.selected, Some(2));
    // A click on the picked source opens its detail.
    let screen = frame(&mut app, 140, 42);
    click(&mut app, cell_of(&screen, "[3] SEC EDGAR"));
    assert!(app.popup.is_some());
    let screen = frame(&mut app, 140, 42);
    // Outside the popup closes it.
    click(&mut app, (1, 1));
    assert!(app.popup.is_none());
    let _ = screen;
    let screen = frame(&mut app, 140, 42);
    click(&mut app, cell_of(&screen, "⚙ search \"NVIDIA first"));
    assert_eq!(app.focus, Focus::Activity);
    assert_eq!(app.panes.activity.selected, Some(4));
    let screen = frame(&mut app, 140, 42);
    click(&mut app, cell_of(&screen, "types a question"));
    assert_eq!(app.focus, Focus::Prompt);
}

#[test]
fn clicking_a_citation_marker_selects_its_source() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    keys(&mut app, "ag");
    let screen = frame(&mut app, 140, 42);
    let (x, y) = cell_of(&screen, "consensus[2]");
    click(&mut app, (x + "consensus[".len() as u16, y));
    let source = app.panes.sources.selected_number(&app.app);
    assert_eq!(source, Some(2), "{:?}", app.panes.sources.selected);
    assert_eq!(app.focus, Focus::Answer);
    let screen = frame(&mut app, 140, 42);
    assert!(screen.contains("▶ [2] Reuters"), "{screen}");
}

#[test]
fn the_wheel_scrolls_the_pane_under_the_pointer_without_moving_the_focus() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    let screen = frame(&mut app, 140, 42);
    assert!(app.panes.answer.scroll.follow);
    let over_answer = cell_of(&screen, "hyperscaler capex.");
    for _ in 0..5 {
        let spot = app.panes.spot(&app.app, over_answer.0, over_answer.1);
        app.update(Action::Wheel(spot, -3));
    }
    assert!(!app.panes.answer.scroll.follow, "scrolled up");
    assert_eq!(app.focus, Focus::Prompt, "the focus stays");
    let before = app.panes.answer.scroll.top;
    frame(&mut app, 140, 42);
    assert_eq!(app.panes.answer.scroll.top, before);
    // The Sources list scrolls away from its selection until a key moves it.
    browse(&mut app);
    keys(&mut app, "c");
    let screen = frame(&mut app, 70, 14);
    let over_sources = cell_of(&screen, "[1] NVIDIA");
    let spot = app.panes.spot(&app.app, over_sources.0, over_sources.1);
    app.update(Action::Wheel(spot, 3));
    let screen = frame(&mut app, 70, 14);
    assert!(!screen.contains("▶ [1] NVIDIA"), "{screen}");
    keys(&mut app, "k");
    let screen = frame(&mut app, 70, 14);
    assert!(screen.contains("▶ [1] NVIDIA"), "{screen}");
}

#[test]
fn a_click_on_the_structured_output_line_unfolds_it_and_tabs_switch() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    let screen = frame(&mut app, 140, 42);
    click(&mut app, cell_of(&screen, "▸ Structured output"));
    let screen = frame(&mut app, 140, 42);
    assert!(screen.contains("▾ Structured output"), "{screen}");
    let narrow = frame(&mut app, 80, 24);
    click(&mut app, cell_of(&narrow, "Sources 9 "));
    assert_eq!(app.focus, Focus::Sources);
    assert_eq!(
        app.panes.spot(&app.app, 79, 23),
        Spot::Nothing,
        "the status bar"
    );
}

#[test]
fn m_leaves_the_mouse_to_the_terminal_and_back() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    assert_eq!(key(&mut app, crossterm::event::KeyCode::Char('m')), None);
    assert_eq!(
        key(&mut app, crossterm::event::KeyCode::Enter),
        Some(Effect::MouseCapture(false))
    );
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        screen.lines().last().unwrap().contains("mouse off (m)"),
        "{screen}"
    );
    assert_eq!(key(&mut app, crossterm::event::KeyCode::Char('m')), None);
    assert_eq!(
        key(&mut app, crossterm::event::KeyCode::Enter),
        Some(Effect::MouseCapture(true))
    );
}

#[test]
fn clicking_a_chart_opens_it_full_screen() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    keys(&mut app, "ag");
    let screen = frame(&mut app, 140, 42);
    click(&mut app, cell_of(&screen, "Gaming                ██"));
    assert_eq!(
        app.popup,
        Some(research_tui::tui::state::Popup::Chart { turn: 0, chart: 0 })
    );
    let screen = frame(&mut app, 140, 42);
    assert!(screen.contains("Chart 1 of 2"), "{screen}");
}
