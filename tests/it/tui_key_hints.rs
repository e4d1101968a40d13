//! Hints that name a key name the key in force: with `[keys]` changing keys, the popups' footers,
//! the panes' titles and notes and the status bar say the new keys, drawn into a `TestBackend`.

use crossterm::event::KeyCode;
use research_tui::tui::state::keymap::Keymap;
use research_tui::tui::ui::Ui;

use crate::support::*;

/// The app with `[keys]` entries applied, the demo's answer complete.
fn answered_with(entries: &[(&str, &[&str])]) -> Ui {
    let mut app = app();
    app.keys = keymap(entries);
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    app
}

fn screen(app: &mut Ui) -> String {
    draw(app, 140, 42).backend().to_string()
}

#[test]
fn a_source_detail_and_the_sidebar_name_the_open_and_copy_keys_in_force() {
    let mut app = answered_with(&[("open_source", &["O"]), ("copy", &["Y"])]);
    browse(&mut app);
    keys(&mut app, "cj");
    // The note shows below the entries when they leave it room.
    let sidebar = draw(&mut app, 200, 100).backend().to_string();
    assert!(sidebar.contains("O open · Y copy"), "{sidebar}");
    assert!(!sidebar.contains("o open"), "{sidebar}");
    key(&mut app, KeyCode::Enter);
    let detail = screen(&mut app);
    assert!(detail.contains("O⏎ open · Y copy · Esc close"), "{detail}");
    assert!(!detail.contains("o⏎ open"), "{detail}");
}

#[test]
fn a_key_that_is_not_a_letter_is_named_without_enter_and_an_action_with_no_key_is_not_offered() {
    let mut app = answered_with(&[("open_source", &["ctrl-o"]), ("copy", &[])]);
    browse(&mut app);
    keys(&mut app, "cj");
    key(&mut app, KeyCode::Enter);
    let detail = screen(&mut app);
    assert!(
        detail.contains("Enter show · Ctrl-O open · Esc close"),
        "{detail}"
    );
    assert!(!detail.contains("copy"), "{detail}");
}

#[test]
fn the_prompt_title_and_the_help_hint_name_the_keys_in_force() {
    let mut app = answered_with(&[("leave_prompt", &["ctrl-g"]), ("help", &["H"])]);
    let typing = screen(&mut app);
    assert!(typing.contains("Ctrl-G browse"), "{typing}");
    assert!(!typing.contains("Esc browse"), "{typing}");
    ctrl(&mut app, 'g');
    let browsing = screen(&mut app);
    assert!(browsing.contains("letters are keys (H)"), "{browsing}");
}

#[test]
fn the_timeline_names_the_moving_and_closing_keys_in_force() {
    let mut app = answered_with(&[("down", &["ctrl-n"]), ("escape", &["ctrl-x"])]);
    browse(&mut app);
    keys(&mut app, "T");
    let timeline = screen(&mut app);
    assert!(timeline.contains("Ctrl-N/k select"), "{timeline}");
    assert!(timeline.contains("Ctrl-X close"), "{timeline}");
}

#[test]
fn the_answer_offers_g_to_follow_only_where_g_moves_the_answer() {
    let mut app = answered_with(&[]);
    // The prompt has the keys: G is a letter there.
    draw(&mut app, 140, 16);
    key(&mut app, KeyCode::PageUp);
    let typing = draw(&mut app, 140, 16).backend().to_string();
    let title = typing.lines().find(|l| l.contains("Answer")).unwrap();
    assert!(title.contains("Answer ↓ more ─"), "{title}");
    browse(&mut app);
    // At the top: no chart in view (Enter would open it: the title says that instead).
    keys(&mut app, "ag");
    let browsing = draw(&mut app, 140, 16).backend().to_string();
    let title = browsing.lines().find(|l| l.contains("Answer")).unwrap();
    assert!(title.contains("Answer ↓ more · G follows"), "{title}");
}

/// The key map with `[keys]` entries applied.
fn keymap(entries: &[(&str, &[&str])]) -> Keymap {
    let entries: Vec<_> = entries
        .iter()
        .map(|(name, keys)| {
            let keys = keys.iter().map(|k| (*k).to_owned()).collect();
            ((*name).to_owned(), Some(keys))
        })
        .collect();
    Keymap::with_entries(&entries).unwrap()
}

/// The watching view, before any session starts, says how to quit with the quit key in force: the
/// letter twice, or a Ctrl key alone.
#[test]
fn the_watching_view_names_the_quit_key_in_force() {
    for (quit, says) in [
        (None, "(q q quits)"),
        (Some("Q"), "(Q Q quits)"),
        (Some("ctrl-q"), "(Ctrl-Q quits)"),
    ] {
        let mut app = Ui::new(research_tui::tui::state::AppConfig {
            mode: research_tui::tui::state::Mode::Watch,
            theme: research_tui::styled::theme::Theme::default(),
            can_ask: false,
        });
        if let Some(quit) = quit {
            app.keys = keymap(&[("quit", &[quit])]);
        }
        let waiting = draw(&mut app, 140, 42).backend().to_string();
        assert!(
            waiting.contains(&format!("Waiting for a research session to start… {says}")),
            "{waiting}"
        );
        if quit.is_some() {
            assert!(!waiting.contains("q q"), "{waiting}");
        }
    }
}

/// The empty prompt's placeholder says how to send, add a line and start typing with the keys in
/// force, not Enter, Alt-Enter and `i` written in.
#[test]
fn the_prompt_placeholder_names_the_send_new_line_and_typing_keys_in_force() {
    let mut app = answered_with(&[
        ("send", &["ctrl-s"]),
        ("new_line", &["alt-m"]),
        ("focus_prompt", &["K"]),
    ]);
    let typing = screen(&mut app);
    assert!(
        typing.contains("Type a question — Ctrl-S sends it, Alt-M adds a line"),
        "{typing}"
    );
    assert!(!typing.contains("Enter sends it"), "{typing}");
    key(&mut app, KeyCode::Esc);
    let browsing = screen(&mut app);
    assert!(
        browsing.contains("K (or a letter no key takes) types a question"),
        "{browsing}"
    );
    let narrow = draw(&mut app, 60, 24).backend().to_string();
    assert!(narrow.contains("K: type a question"), "{narrow}");
}

/// The app with `[keys]` entries applied, its answer cut mid-stream (so it offers a retry).
fn cut_with(entries: &[(&str, &[&str])]) -> Ui {
    let mut app = app();
    app.keys = keymap(entries);
    play(
        &mut app,
        "tests/fixtures/cut-mid-answer.sse",
        Some("Review NVIDIA's quarter"),
        None,
    );
    app
}

/// A cut turn's own line and the mouse message say the retry and mouse keys in force: `R then
/// Enter` for a letter, `F2` alone for a key that acts at once.
#[test]
fn the_retry_sentence_and_the_mouse_message_name_their_keys_in_force() {
    let mut app = cut_with(&[("retry", &["R"]), ("mouse", &["f2"])]);
    let cut = screen(&mut app);
    assert!(cut.contains("R then Enter asks it again"), "{cut}");
    assert!(!cut.contains("r then Enter"), "{cut}");
    browse(&mut app);
    key(&mut app, KeyCode::F(2));
    let off = screen(&mut app);
    assert!(
        off.contains("mouse off: select text with it · F2 takes it back"),
        "{off}"
    );
}

/// A key that acts at once is named alone even when its name is one character: retry on `↑`
/// says `↑ asks it again`, not `↑ then Enter` (pressing ↑ retries at once).
#[test]
fn the_retry_sentence_names_an_arrow_alone_since_an_arrow_never_waits_for_enter() {
    let mut app = cut_with(&[("up", &["k"]), ("retry", &["up"])]);
    let cut = screen(&mut app);
    assert!(cut.contains("↑ asks it again"), "{cut}");
    assert!(!cut.contains("then Enter"), "{cut}");
}

/// The tool data popup says how to open its chart in the answer with the key in force, not a
/// literal `Enter`.
#[test]
fn the_tool_citations_chart_line_names_the_key_in_force_that_opens_the_chart() {
    let mut app = answered_with(&[("enter", &["f6"])]);
    browse(&mut app);
    // Past the nine sources to the first tool data entry: the chart tool.
    keys(&mut app, "cjjjjjjjjj");
    key(&mut app, KeyCode::F(6));
    let detail = draw(&mut app, 200, 42).backend().to_string();
    assert!(detail.contains("(F6 on it: full screen)"), "{detail}");
    assert!(!detail.contains("Enter on it"), "{detail}");
}

/// The tab row of the one-pane layout names the keys in force that switch tabs and end a zoom,
/// not `Tab/←→` and `z` written in.
#[test]
fn the_tab_row_names_the_switching_and_zoom_keys_in_force() {
    let mut app = answered_with(&[
        ("previous_tab", &["h"]),
        ("next_tab", &["l"]),
        ("zoom", &["Z"]),
    ]);
    browse(&mut app);
    let narrow = draw(&mut app, 80, 24).backend().to_string();
    assert!(narrow.contains("Tab/h/l switch"), "{narrow}");
    assert!(!narrow.contains("←→"), "{narrow}");
    keys(&mut app, "Z");
    let zoomed = screen(&mut app);
    assert!(zoomed.contains("Z all panes"), "{zoomed}");
    assert!(!zoomed.contains("z all panes"), "{zoomed}");
}

/// While the prompt is typed in, ← → move its cursor: the tab row names only the key that takes
/// the keyboard to the tabs (Tab), and with a popup open, which takes every key, no switching key.
#[test]
fn the_tab_row_names_only_the_keys_that_switch_tabs_in_the_mode_in_force() {
    let mut app = answered_with(&[]);
    let tab_row = |app: &mut Ui| {
        let screen = draw(app, 80, 24).backend().to_string();
        let row = screen
            .lines()
            .find(|l| l.contains("Answer"))
            .map(str::to_owned);
        (row.unwrap_or_default(), screen)
    };
    let (typing, screen) = tab_row(&mut app);
    assert!(typing.contains("Tab switch"), "{screen}");
    assert!(!typing.contains('←'), "{screen}");
    browse(&mut app);
    let (browsing, screen) = tab_row(&mut app);
    assert!(browsing.contains("Tab/←→ switch"), "{screen}");
    keys(&mut app, "?");
    let (popup, screen) = tab_row(&mut app);
    assert!(!popup.contains("switch"), "{screen}");
}

/// The tab row of the one-pane layout (99 columns: room for long key names), with the keymap that
/// `config` (a `config.toml`) sets, the demo's answer complete and the panes browsed.
fn tab_row_with_config(config: &str) -> String {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("config.toml");
    std::fs::write(&path, config).unwrap();
    let mut app = app();
    app.keys = research_tui::tui::load_keys(&path).unwrap();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    let screen = draw(&mut app, 99, 30).backend().to_string();
    screen.lines().next().unwrap_or_default().to_owned()
}

/// Keys moved off the arrows by `[keys]` are named apart (`PgUp/PgDn`, not `PgUpPgDn`), and a
/// switching action left with no key leaves the others named.
#[test]
fn the_tab_row_keeps_the_switching_keys_apart_and_names_those_still_bound() {
    let moved = "[keys]\npage_up = \"f11\"\npage_down = \"f12\"\n\
                 previous_tab = \"pgup\"\nnext_tab = \"pgdn\"\n";
    let row = tab_row_with_config(moved);
    assert!(row.contains("  Tab/PgUp/PgDn switch"), "{row}");
    let row = tab_row_with_config(&format!("{moved}focus_next = []\n"));
    assert!(row.contains("  PgUp/PgDn switch"), "{row}");
    assert!(!row.contains("Tab"), "{row}");
    let row = tab_row_with_config("[keys]\nfocus_next = []\n");
    assert!(row.contains("  ←→ switch"), "{row}");
}

/// A quit key moved by `[keys]` arms as `q` does, and pressed again quits: the bar names that key,
/// wide and at 80 columns, not `q`.
#[test]
fn the_armed_quit_hint_names_the_quit_key_in_force_wide_and_narrow() {
    let mut app = answered_with(&[("quit", &["Q"])]);
    browse(&mut app);
    keys(&mut app, "Q");
    let wide = screen(&mut app);
    assert!(wide.contains("Enter: quit (Q works too)"), "{wide}");
    let narrow = draw(&mut app, 80, 24).backend().to_string();
    assert!(narrow.contains("⏎ or Q quits · Q… types"), "{narrow}");
}
