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
    assert!(bar.contains("⏎ quits · q… types"), "{bar}");
    assert!(bar.contains("? help"), "{bar}");
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

fn demo_answered(width: u16, height: u16) -> Tmux {
    let t = Tmux::start(width, height, &["--demo", "--demo-speed", "8"]);
    t.wait_for("the answer to complete", ANSWER, |s| {
        status_line(s).contains("complete")
    });
    t
}

#[test]
fn in_tmux_slash_searches_the_answer_with_hits_and_n_walks_them() {
    let t = demo_answered(140, 42);
    t.send(&["Escape"]);
    t.wait_for("BROWSE", SOON, |s| status_line(s).contains("BROWSE"));
    t.send(&["/", "margin"]);
    let screen = t.wait_for("the hit count", SOON, |s| {
        status_line(s).contains("SEARCH") && status_line(s).contains("/margin  1/")
    });
    assert!(screen.contains("Answer /margin 1/"), "{screen}");
    t.send(&["Enter"]);
    t.wait_for("the second hit", SOON, |s| {
        status_line(s).contains("/margin  2/")
    });
    t.send(&["Escape"]);
    t.wait_for("browsing the hits", SOON, |s| {
        status_line(s).contains("n next")
    });
    t.send(&["n"]);
    t.wait_for("the third hit", SOON, |s| {
        status_line(s).contains("/margin  3/")
    });
    t.send(&["Escape"]);
    let screen = t.wait_for("the search ended", SOON, |s| {
        !status_line(s).contains("/margin")
    });
    assert!(t.still_running(), "{screen}");
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

/// `/` searches the whole conversation: every turn's question and answer, the count covering them
/// all; a hit in another turn than the one shown selects that turn and brings the hit into view.
#[test]
fn in_tmux_slash_searches_every_turns_question_and_answer_and_n_crosses_turns() {
    for (width, height) in [(140, 42), (80, 24)] {
        let t = demo_answered(width, height);
        t.send(&["What about AMD?", "Enter"]);
        t.wait_for("the second turn to start", ANSWER, |s| {
            !status_line(s).contains("complete")
        });
        t.wait_for("the second turn to complete", ANSWER, |s| {
            status_line(s).contains("complete")
        });
        t.send(&["Escape"]);
        t.wait_for("BROWSE", SOON, |s| status_line(s).contains("BROWSE"));
        // Only the first turn's question says it: the first turn is shown, its question in view.
        t.send(&["/", "Break down"]);
        let screen = t.wait_for("the hit in the first question", SOON, |s| {
            status_line(s).contains("/Break down  1/1")
        });
        assert!(screen.contains("▍You: Break down"), "{screen}");
        assert!(screen.contains("▶ turn 1 · selected"), "{screen}");
        if width < 100 {
            t.send(&["C-c", "C-c"]);
            assert_exited_and_restored(&t);
            continue;
        }
        // A word both answers hold: n walks from the first turn's hits into the second's, with
        // one count for both.
        t.send(&["/", "Escape", "BSpace", "Escape"]);
        t.wait_for("the search ended", SOON, |s| {
            !status_line(s).contains("/Break")
        });
        t.send(&["/", "revenue"]);
        let screen = t.wait_for("the hits", SOON, |s| {
            status_line(s).contains("/revenue  1/")
        });
        let total = hits_total(status_line(&screen), "/revenue");
        t.send(&["Escape"]);
        t.wait_for("browsing the hits from the first turn", SOON, |s| {
            status_line(s).contains("n next") && s.contains("from turn 1")
        });
        let mut crossed = false;
        for step in 2..=total {
            t.send(&["n"]);
            let screen = t.wait_for("the next hit", SOON, |s| {
                status_line(s).contains(&format!("/revenue  {step}/{total}"))
            });
            // (A question asked now branches from the turn shown: the prompt's title says which.)
            if !screen.contains("from turn 1") {
                crossed = true;
                break;
            }
        }
        assert!(crossed, "n reached the second turn's hits");
        t.send(&["Escape"]);
        t.wait_for("the search ended", SOON, |s| {
            !status_line(s).contains("/revenue")
        });
        t.send(&["C-c"]);
        assert_exited_and_restored(&t);
    }
}

/// `17` of `/query  3/17` in a status bar.
fn hits_total(status: &str, query: &str) -> usize {
    let after = status
        .split(&format!("{query}  "))
        .nth(1)
        .unwrap_or_default();
    let count = after.split_whitespace().next().unwrap_or_default();
    count
        .split('/')
        .nth(1)
        .and_then(|n| n.trim_end_matches('+').parse().ok())
        .unwrap_or_else(|| panic!("a count in {status:?}"))
}

#[test]
fn in_tmux_zoom_keeps_the_line_being_read() {
    let t = demo_answered(140, 42);
    t.send(&["Escape"]);
    t.wait_for("BROWSE", SOON, |s| status_line(s).contains("BROWSE"));
    t.send(&["a", "g"]);
    for _ in 0..30 {
        t.send(&["j"]);
    }
    let screen = t.wait_for("scrolled", SOON, |s| !s.contains("You: Break down"));
    let top = |s: &str| words(&focused_top_row(s));
    let before = top(&screen);
    assert!(!before.is_empty(), "{screen}");
    t.send(&["z"]);
    let zoomed = t.wait_for("zoomed", SOON, |s| s.contains("z all panes"));
    assert!(
        focused_top_row(&zoomed).contains(&before),
        "{before:?} not at the top:\n{zoomed}"
    );
    t.send(&["z"]);
    let back = t.wait_for("all panes", SOON, |s| !s.contains("z all panes"));
    assert_eq!(top(&back), before, "{back}");
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

#[test]
fn in_tmux_the_chart_viewer_pages_between_charts() {
    let t = demo_answered(140, 42);
    t.send(&["Escape"]);
    t.wait_for("BROWSE", SOON, |s| status_line(s).contains("BROWSE"));
    t.send(&["a", "g"]);
    // Down to the first chart, then Enter opens it full screen.
    for _ in 0..60 {
        if t.capture().contains("Enter: the chart full screen") {
            break;
        }
        t.send(&["j"]);
    }
    t.send(&["Enter"]);
    let screen = t.wait_for("chart 1", SOON, |s| s.contains("Chart 1 of 2"));
    let bar_rows = screen.lines().filter(|l| l.contains('█')).count();
    assert!(bar_rows >= 25, "the bars fill the screen:\n{screen}");
    t.send(&["Right"]);
    t.wait_for("chart 2", SOON, |s| s.contains("Chart 2 of 2"));
    t.send(&["PageUp"]);
    t.wait_for("chart 1 again", SOON, |s| s.contains("Chart 1 of 2"));
    t.send(&["Escape"]);
    t.wait_for("closed", SOON, |s| !s.contains("Chart 1 of 2"));
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

/// A streaming turn whose answer is about `bytes` of Markdown paragraphs, each naming revenue.
fn long_answer(bytes: usize) -> Ui {
    use research_tui::agent::stream::StreamUpdate;
    use research_tui::model::event::AgentEvent;
    let sentence = "Data-center revenue grew strongly on Blackwell demand while margins held. ";
    let mut text = String::new();
    let mut block = 0;
    while text.len() < bytes {
        if block % 20 == 0 {
            text.push_str(&format!("## Section {block}\n\n"));
        }
        for _ in 0..3 {
            text.push_str(sentence);
        }
        text.push_str("\n\n");
        block += 1;
    }
    let mut app = app();
    app.begin_turn(Some("How did revenue move?".into()));
    app.apply_update(StreamUpdate::Connected);
    let events = text
        .as_bytes()
        .chunks(4096)
        .map(|chunk| AgentEvent::AnswerDelta {
            message_id: None,
            text: String::from_utf8(chunk.to_vec()).unwrap(),
        })
        .collect();
    app.apply_update(StreamUpdate::Events(events));
    app
}

/// The median of `rounds` timings of `a` and of `b`, taken in turn so load hits both alike.
fn interleaved(rounds: usize, a: &mut dyn FnMut(), b: &mut dyn FnMut()) -> (Duration, Duration) {
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let start = std::time::Instant::now();
        a();
        ta.push(start.elapsed());
        let start = std::time::Instant::now();
        b();
        tb.push(start.elapsed());
    }
    ta.sort();
    tb.sort();
    (ta[rounds / 2], tb[rounds / 2])
}

#[test]
fn a_search_of_a_1_mb_answer_costs_a_frame_no_more_than_twice_one_without() {
    let mut plain = long_answer(1 << 20);
    let mut searched = long_answer(1 << 20);
    browse(&mut plain);
    browse(&mut searched);
    let mut plain_term =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(140, 42)).unwrap();
    let mut search_term =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(140, 42)).unwrap();
    plain_term.draw(|f| plain.draw(f)).unwrap();
    search_term.draw(|f| searched.draw(f)).unwrap();
    // Typing the query searches the whole answer once a key.
    let start = std::time::Instant::now();
    key(&mut searched, KeyCode::Char('/'));
    keys(&mut searched, "revenue");
    let typing = start.elapsed();
    let hits = searched.search.as_ref().unwrap().turns[0].answer.len();
    let answer = searched
        .current()
        .unwrap()
        .session
        .answer
        .as_str()
        .to_owned();
    assert_eq!(hits, occurrences(&answer, "revenue"));
    assert!(hits > 10_000, "{hits} hits");
    // Esc keeps the hits lit; frames then only draw what is in view.
    key(&mut searched, KeyCode::Esc);
    search_term.draw(|f| searched.draw(f)).unwrap();
    let (t_plain, t_search) = interleaved(
        31,
        &mut || {
            plain_term.draw(|f| plain.draw(f)).unwrap();
        },
        &mut || {
            search_term.draw(|f| searched.draw(f)).unwrap();
        },
    );
    let ratio = t_search.as_secs_f64() / t_plain.as_secs_f64();
    println!(
        "1 MB answer, {hits} hits: typing a 7-letter query {typing:?} ({:?} a key); a frame \
         {t_search:?} against {t_plain:?} without the search, ratio {ratio:.2}x",
        typing / 8
    );
    assert!(ratio <= 2.0, "a frame with the search costs {ratio:.2}x");
}

/// Zeta resends the whole answer with every message (xAI once at its end). A scroll key pressed
/// after such a resend, before the next frame, moves from the bottom exactly as it does once a
/// frame has drawn the resent answer: one row, one page — never back into the middle (blocks left
/// unmeasured while following can no longer be measured from the replaced text).
#[test]
fn a_scroll_key_right_after_the_whole_answer_was_resent_moves_from_the_bottom() {
    use research_tui::agent::stream::StreamUpdate;
    use research_tui::model::event::AgentEvent;
    let paragraphs: Vec<String> = (0..1200)
        .map(|n| {
            let grew = "and grew ".repeat(n % 17);
            format!("Paragraph {n}: revenue rose in 東京 {grew}.\n\n")
        })
        .collect();
    let text = paragraphs.concat();
    let streamed = |scroll: KeyCode, frame_between: bool| {
        let mut app = app();
        app.begin_turn(Some("How did revenue move?".into()));
        app.apply_update(StreamUpdate::Connected);
        browse(&mut app);
        keys(&mut app, "a");
        for chunk in paragraphs.chunks(30) {
            let text = chunk.concat();
            let delta = AgentEvent::AnswerDelta {
                message_id: None,
                text,
            };
            app.apply_update(StreamUpdate::Events(vec![delta]));
            draw(&mut app, 140, 42);
        }
        let resent = AgentEvent::AnswerReplace { text: text.clone() };
        app.apply_update(StreamUpdate::Events(vec![resent]));
        if frame_between {
            draw(&mut app, 140, 42);
        }
        key(&mut app, scroll);
        draw(&mut app, 140, 42).backend().buffer().clone()
    };
    for scroll in [KeyCode::Char('k'), KeyCode::PageUp, KeyCode::Up] {
        assert_eq!(
            streamed(scroll, false),
            streamed(scroll, true),
            "{scroll:?} right after the resend"
        );
    }
}

/// A long answer streamed in while the pane followed the bottom (blocks far above it are then
/// not laid out) shows, at the bottom and then page after page up, the very screens of the same
/// answer streamed in while the pane was scrolled to the top (every block laid out as it came).
#[test]
fn scrolling_up_after_a_long_answer_streamed_in_shows_what_laying_out_every_block_shows() {
    use research_tui::agent::stream::StreamUpdate;
    use research_tui::model::event::AgentEvent;
    let chunks: Vec<String> = (0..40)
        .map(|c| {
            (0..30)
                .map(|i| {
                    let n = c * 30 + i;
                    format!(
                        "Paragraph {n}: revenue **rose** in 東京 {}.\n\n- item {n}\n- another\n\n",
                        "and grew ".repeat(n % 17)
                    )
                })
                .collect()
        })
        .collect();
    let started = || {
        let mut app = app();
        app.begin_turn(Some("How did revenue move?".into()));
        app.apply_update(StreamUpdate::Connected);
        draw(&mut app, 140, 42);
        app
    };
    let stream = |app: &mut Ui| {
        for chunk in &chunks {
            let text = chunk.clone();
            let delta = AgentEvent::AnswerDelta {
                message_id: None,
                text,
            };
            app.apply_update(StreamUpdate::Events(vec![delta]));
            draw(app, 140, 42);
        }
    };
    let mut following = started();
    stream(&mut following);
    browse(&mut following);
    keys(&mut following, "a");
    assert!(following.panes.answer.scroll.follow);
    let mut away = started();
    browse(&mut away);
    keys(&mut away, "ag");
    stream(&mut away);
    keys(&mut away, "G");
    let screen = |app: &mut Ui| draw(app, 140, 42).backend().buffer().clone();
    assert_eq!(screen(&mut following), screen(&mut away), "at the bottom");
    for page in 1..=6 {
        key(&mut following, KeyCode::PageUp);
        key(&mut away, KeyCode::PageUp);
        assert_eq!(screen(&mut following), screen(&mut away), "{page} pages up");
    }
    assert!(!following.panes.answer.scroll.follow);
    keys(&mut following, "G");
    keys(&mut away, "G");
    assert_eq!(
        screen(&mut following),
        screen(&mut away),
        "back at the bottom"
    );
}
