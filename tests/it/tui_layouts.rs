//! The layout at the sizes people use — 200×50, 140×42, 80×24 and 40×12 — on a finished demo answer
//! with a source selected: the answer no wider than a readable line, Sources with the rest, labels
//! whole, the selection marked, the active tab visible.

use crossterm::event::KeyCode;
use research_tui::tui::state::Focus;

use crate::support;

use support::*;

const SIZES: [(u16, u16); 4] = [(200, 50), (140, 42), (80, 24), (40, 12)];

/// The demo's first answer, finished, with source [2] selected in Sources.
fn answered_with_a_source_selected() -> research_tui::tui::ui::Ui {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    keys(&mut app, "cj");
    app
}

#[test]
fn layouts_at_every_size() {
    for (w, h) in SIZES {
        let mut app = answered_with_a_source_selected();
        let screen = draw(&mut app, w, h).backend().to_string();
        insta::assert_snapshot!(format!("sources_selected_{w}x{h}"), screen);
    }
}

/// Column `x` where `text` starts on the first row that has it.
fn column_of(screen: &str, text: &str) -> Option<usize> {
    screen.lines().find_map(|l| {
        let at = l.find(text)?;
        Some(l[..at].chars().count())
    })
}

#[test]
fn the_answer_stops_at_a_readable_width_and_sources_take_the_rest() {
    let mut app = answered_with_a_source_selected();
    let screen = draw(&mut app, 300, 50).backend().to_string();
    let answer = column_of(&screen, "╭ Answer").unwrap();
    let sources = column_of(&screen, "┏ Sources").unwrap();
    assert!(sources - answer <= 104, "answer {answer}..{sources}");
    assert!(300 - sources >= 120, "sources from {sources}");
    let narrower = draw(&mut app, 140, 42).backend().to_string();
    let sources = column_of(&narrower, "┏ Sources").unwrap();
    assert!(140 - sources >= 38, "sources from {sources} at 140 columns");
}

#[test]
fn labels_keep_their_publisher_and_date_whole_at_every_size() {
    for (w, h) in SIZES {
        let mut app = answered_with_a_source_selected();
        let screen = draw(&mut app, w, h).backend().to_string();
        let x = screen
            .lines()
            .find_map(|l| {
                let at = l.find("┏ Sources 9").or_else(|| l.find("╭ Sources 9"))?;
                Some(l[..at].chars().count())
            })
            .expect("the Sources pane");
        let mut labels = 0;
        for line in screen.lines() {
            // A label row of the pane: `[n] Publisher - date`, or the publisher alone.
            let pane: String = line.chars().skip(x + 1).collect();
            let content = pane.trim_start_matches([' ', '▶', '┃', '│']);
            if content.starts_with('[') && content.contains("] ") {
                assert!(!content.contains('…'), "{w}x{h}: cut label in {line}");
                labels += 1;
            }
        }
        assert!(labels >= 2, "{w}x{h}: labels seen\n{screen}");
        if w >= 80 {
            assert!(
                screen.contains("Bigdata.com Transcripts"),
                "{w}x{h}\n{screen}"
            );
            assert!(screen.contains("Apr 23, 2026"), "{w}x{h}\n{screen}");
        }
    }
}

#[test]
fn the_selected_source_and_activity_carry_a_marker_and_a_bar_across_the_pane() {
    let mut app = answered_with_a_source_selected();
    let terminal = draw(&mut app, 140, 42);
    let buffer = terminal.backend().buffer();
    let screen = terminal.backend().to_string();
    let y = screen
        .lines()
        .position(|l| l.contains("▶ [2] Reuters"))
        .expect("the marker") as u16;
    let x0 = column_of(&screen, "┏ Sources").unwrap() as u16 + 1;
    let bar = app.theme.selection_bg;
    // Inside the border, from edge to edge.
    for x in x0..139 {
        assert_eq!(buffer[(x, y)].bg, bar, "cell {x} of the selected row");
    }
    // Up past the two charts, the chart tool's call and trace and the last thought.
    keys(&mut app, "tkkkkkk");
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        screen
            .lines()
            .any(|l| l.contains("┃ ▶ ⚙ get_market_tearsheet")),
        "{screen}"
    );
}

#[test]
fn the_newest_activity_item_wraps_instead_of_being_cut() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    let screen = draw(&mut app, 140, 42).backend().to_string();
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("▦ chart: Quarterly revenue"))
        .expect("the newest item");
    assert!(lines[at + 1].contains("and non-GAAP gross"), "{screen}");
    assert!(!lines[at].contains('…'), "{screen}");
}

#[test]
fn plus_and_minus_resize_the_focused_pane_and_z_zooms_it() {
    let mut app = answered_with_a_source_selected();
    let before = draw(&mut app, 140, 42).backend().to_string();
    let effect = key(&mut app, KeyCode::Char('+'));
    let Some(research_tui::tui::state::Effect::SaveLayout(sizes)) = effect else {
        panic!("{effect:?}");
    };
    assert!(sizes.sources > 28);
    let wider = draw(&mut app, 140, 42).backend().to_string();
    let (b, w) = (
        column_of(&before, "┏ Sources").unwrap(),
        column_of(&wider, "┏ Sources").unwrap(),
    );
    assert!(w < b, "Sources starts further left: {b} → {w}");
    key(&mut app, KeyCode::Char('-'));
    assert_eq!(
        column_of(&draw(&mut app, 140, 42).backend().to_string(), "┏ Sources"),
        Some(b)
    );
    key(&mut app, KeyCode::Char('z'));
    let zoomed = draw(&mut app, 140, 42).backend().to_string();
    assert!(!zoomed.contains("Activity 16 ─"), "one pane:\n{zoomed}");
    assert!(zoomed.contains("┏ Sources 9"), "{zoomed}");
    insta::assert_snapshot!("zoomed_sources_140x42", zoomed);
    key(&mut app, KeyCode::Char('z'));
    assert!(
        draw(&mut app, 140, 42)
            .backend()
            .to_string()
            .contains("Activity 20")
    );
}

#[test]
fn n_in_the_narrow_sources_tab_shows_the_span_in_the_answer() {
    let mut app = answered_with_a_source_selected();
    draw(&mut app, 80, 24);
    assert_eq!(app.focus, Focus::Sources);
    keys(&mut app, "n");
    assert_eq!(app.focus, Focus::Answer, "the answer takes the screen");
    let terminal = draw(&mut app, 80, 24);
    let buffer = terminal.backend().buffer();
    let lit = buffer
        .content()
        .iter()
        .filter(|c| c.bg == app.theme.highlight_bg)
        .count();
    assert!(lit > 10, "the span is highlighted on screen");
    assert!(
        app.message
            .as_ref()
            .unwrap()
            .0
            .contains("c back to Sources")
    );
}

#[test]
fn the_active_tab_stays_visible_at_40x12() {
    let mut app = answered_with_a_source_selected();
    for (k, name) in [
        ('c', "Sources"),
        ('t', "Activity"),
        ('p', "Plan"),
        ('a', "Answer"),
    ] {
        keys(&mut app, &k.to_string());
        let screen = draw(&mut app, 40, 12).backend().to_string();
        let tabs = screen.lines().next().unwrap();
        assert!(tabs.contains(name), "{name} in {tabs:?}");
    }
}

#[test]
fn providers_without_a_plan_give_its_room_to_the_activity() {
    let mut app = app();
    play(
        &mut app,
        "assets/recordings/xai/solid-state-batteries.sse",
        None,
        None,
    );
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(!screen.contains("Plan"), "{screen}");
    assert!(
        screen.lines().next().unwrap().contains("Activity"),
        "{screen}"
    );
    browse(&mut app);
    keys(&mut app, "p");
    assert_ne!(app.focus, Focus::Plan);
    let narrow = draw(&mut app, 80, 24).backend().to_string();
    assert!(!narrow.lines().next().unwrap().contains("Plan"), "{narrow}");
}

/// A search's results (`⌕`, under its tool call) stay in line with the others when selected: the
/// selected item is wrapped, and wrapping dropped the indent it starts with (Claude's web search,
/// tests/fixtures/real/anthropic-web-search.sse: the selected `⌕` sat two columns left).
#[test]
fn a_selected_search_result_row_stays_in_line_with_the_others() {
    let mut app = app();
    play(
        &mut app,
        "tests/fixtures/real/anthropic-web-search.sse",
        Some("Top news?"),
        None,
    );
    browse(&mut app);
    keys(&mut app, "t");
    for _ in 0..4 {
        let screen = draw(&mut app, 140, 42).backend().to_string();
        let columns: Vec<usize> = screen
            .lines()
            .filter_map(|line| line.find('⌕').map(|b| line[..b].chars().count()))
            .collect();
        assert!(columns.len() >= 2, "{screen}");
        assert!(
            columns.iter().all(|&c| c == columns[0]),
            "{columns:?}\n{screen}"
        );
        key(&mut app, KeyCode::Char('j'));
    }
}
