//! Snapshots of the interactive app drawn into a `TestBackend`, driven by the real demo recordings and
//! fixtures applied through the event pipeline. The clock is fixed so nothing depends on time.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::stream_end::StreamEnd;
use research_tui::styled::theme::Theme;

use research_tui::tui::state::{AppConfig, Effect, Focus, Mode};
use research_tui::tui::ui::Ui;
use research_tui::wire::provider::EventPipeline;
use research_tui::wire::recording::parse_frames;

use crate::support;

use support::*;

#[test]
fn streaming_mid_answer() {
    let mut app = half_answered();
    assert!(app.in_progress());
    insta::assert_snapshot!(draw(&mut app, 140, 42).backend());
}

#[test]
fn complete_following_the_bottom() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    insta::assert_snapshot!(draw(&mut app, 140, 42).backend());
}

#[test]
fn complete_answer_scrolled_to_the_top() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    draw(&mut app, 140, 42);
    browse(&mut app);
    keys(&mut app, "ag");
    insta::assert_snapshot!(draw(&mut app, 140, 42).backend());
}

#[test]
fn sub_agents_tool_errors_and_retries_in_the_activity_pane() {
    let mut app = app();
    play(&mut app, SECTOR, None, None);
    browse(&mut app);
    keys(&mut app, "t");
    insta::assert_snapshot!(draw(&mut app, 140, 42).backend());
}

#[test]
fn error_stream() {
    let mut app = app();
    play(&mut app, "tests/fixtures/workflow-error.sse", None, None);
    insta::assert_snapshot!(draw(&mut app, 140, 42).backend());
}

#[test]
fn cut_stream() {
    let mut app = app();
    play(
        &mut app,
        "tests/fixtures/cut-mid-answer.sse",
        Some("Review NVIDIA's quarter"),
        None,
    );
    insta::assert_snapshot!(draw(&mut app, 140, 42).backend());
}

#[test]
fn narrow_layout_80x24() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    keys(&mut app, "ag");
    insta::assert_snapshot!("narrow_answer", draw(&mut app, 80, 24).backend());
    keys(&mut app, "c");
    insta::assert_snapshot!("narrow_sources", draw(&mut app, 80, 24).backend());
    keys(&mut app, "p");
    insta::assert_snapshot!("narrow_plan", draw(&mut app, 80, 24).backend());
}

#[test]
fn source_detail_popup() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    keys(&mut app, "cj");
    key(&mut app, KeyCode::Enter);
    let terminal = draw(&mut app, 140, 42);
    let screen = terminal.backend().to_string();
    assert!(screen.contains("[2] Reuters - May 27, 2026"));
    assert!(screen.contains("Supports 2 spans"));
    insta::assert_snapshot!(terminal.backend());
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none());
}

#[test]
fn help_overlay() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    keys(&mut app, "?");
    insta::assert_snapshot!(draw(&mut app, 140, 42).backend());
}

#[test]
fn follow_up_turns_stack_under_their_questions() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    play(
        &mut app,
        FOLLOW_UP,
        Some("How does that compare with AMD's data-center guidance?"),
        None,
    );
    draw(&mut app, 140, 42);
    browse(&mut app);
    // Scroll up until the second question header is on screen.
    assert!(
        scroll_up_until(&mut app, "▍You: How does that compare", 200),
        "the follow-up's question header is shown"
    );
    insta::assert_snapshot!(draw(&mut app, 140, 42).backend());
}

#[test]
fn the_selected_source_highlights_its_spans_and_n_jumps_to_them() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    draw(&mut app, 140, 42);
    browse(&mut app);
    keys(&mut app, "c");
    // Source [2] (Reuters) supports two spans; jump to the first.
    keys(&mut app, "jn");
    let terminal = draw(&mut app, 140, 42);
    let buffer = terminal.backend().buffer();
    let theme = Theme::default();
    let mut lit = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            let cell = &buffer[(x, y)];
            if cell.bg == theme.highlight_bg {
                lit.push_str(cell.symbol());
            }
        }
        lit.push('\n');
    }
    assert!(
        lit.contains("the $80.0 billion Q2 revenue guide sits about") || lit.contains("LSEG"),
        "highlighted: {lit}"
    );
    assert_eq!(app.focus, Focus::Sources);
    assert!(app.panes.answer.focus_span.is_some());
}

#[test]
fn xai_inline_links_become_our_markers() {
    let mut app = app();
    play(
        &mut app,
        "assets/recordings/xai/solid-state-batteries.sse",
        None,
        None,
    );
    browse(&mut app);
    keys(&mut app, "ag");
    let terminal = draw(&mut app, 140, 42);
    let screen = terminal.backend().to_string();
    assert!(
        !screen.contains("]]("),
        "provider links are hidden:\n{screen}"
    );
    insta::assert_snapshot!(terminal.backend());
}

#[test]
fn zeta_anchors_become_our_markers() {
    let mut app = app();
    play(
        &mut app,
        "assets/recordings/zeta/rag-long-documents.sse",
        None,
        None,
    );
    browse(&mut app);
    keys(&mut app, "ag");
    let terminal = draw(&mut app, 140, 42);
    let screen = terminal.backend().to_string();
    assert!(
        !screen.contains("<sup>"),
        "provider anchors are hidden:\n{screen}"
    );
    insta::assert_snapshot!(terminal.backend());
}

/// The app's first frame is drawn before its first question is asked (saving the question's
/// session would hold the frame back): that frame says what is being asked, not to type a
/// question, and the question's text is sanitised like any other.
#[test]
fn the_first_frame_before_the_first_question_is_asked_says_it_is_being_asked() {
    let mut app = Ui::new(AppConfig {
        mode: Mode::Demo,
        theme: Theme::default(),
        can_ask: true,
    });
    app.first_question = Some("Break down NVIDIA's quarter\u{1b}[2J\u{202e}".into());
    let screen = draw(&mut app, 100, 20).backend().to_string();
    assert!(
        screen.contains("Asking: Break down NVIDIA's quarter"),
        "{screen}"
    );
    assert!(!screen.contains("Type a question below"), "{screen}");
    assert!(
        !screen.contains('\u{1b}') && !screen.contains('\u{202e}'),
        "{screen}"
    );
}

#[test]
fn idle_app_with_no_question_focuses_an_empty_prompt() {
    let mut app = Ui::new(AppConfig {
        mode: Mode::Live,
        theme: Theme::default(),
        can_ask: true,
    });
    app.focus = Focus::Prompt;
    let terminal = draw(&mut app, 100, 20);
    let screen = terminal.backend().to_string();
    assert!(screen.contains("LIVE"));
    assert!(screen.contains("Type a question below"), "{screen}");
    // Typing goes to the prompt and Enter asks.
    keys(&mut app, "hello");
    let effect = key(&mut app, KeyCode::Enter);
    assert_eq!(effect, Some(Effect::Ask("hello".into())));
}

#[test]
fn no_color_draws_without_any_color() {
    let mut app = Ui::new(AppConfig {
        mode: Mode::Demo,
        theme: Theme::default().without_colors(),
        can_ask: true,
    });
    app.fixed_elapsed = Some(Duration::from_secs(1));
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    keys(&mut app, "c");
    let terminal = draw(&mut app, 140, 42);
    let buffer = terminal.backend().buffer();
    for cell in buffer.content() {
        assert_eq!(cell.fg, ratatui::style::Color::Reset);
        assert_eq!(cell.bg, ratatui::style::Color::Reset);
    }
}

#[test]
fn ctrl_c_cancels_a_running_turn_then_quits() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), Some(40));
    assert!(app.in_progress());
    assert_eq!(ctrl(&mut app, 'c'), Some(Effect::Cancel));
    assert!(!app.in_progress());
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains("cancelled"), "{screen}");
    assert_eq!(ctrl(&mut app, 'c'), Some(Effect::Quit));
    assert!(app.quit);
}

#[test]
fn q_quits_except_while_typing_in_the_prompt() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    keys(&mut app, "i");
    assert_eq!(app.focus, Focus::Prompt);
    keys(&mut app, "quit");
    assert!(!app.quit);
    assert_eq!(app.panes.prompt.editor.lines(), ["quit"]);
    key(&mut app, KeyCode::Esc);
    // In a pane `q` waits for Enter or a second `q` (a word typed there never quits).
    assert_eq!(key(&mut app, KeyCode::Char('q')), None);
    assert_eq!(key(&mut app, KeyCode::Char('q')), Some(Effect::Quit));
}

#[test]
fn alt_enter_and_ctrl_j_insert_newlines_and_enter_sends() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    keys(&mut app, "ab");
    let alt_enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT);
    let action = app.handle_key(alt_enter).unwrap();
    app.update(action);
    keys(&mut app, "c");
    ctrl(&mut app, 'j');
    keys(&mut app, "d");
    assert_eq!(app.panes.prompt.editor.lines(), ["ab", "c", "d"]);
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        Some(Effect::Ask("ab\nc\nd".into()))
    );
    assert_eq!(app.panes.prompt.editor.lines(), [""]);
}

/// Enter while the answer streams queues the question (it was refused before: the README promised
/// it is sent once the stream ends); the prompt's title shows it, Ctrl-C drops it.
#[test]
fn a_follow_up_asked_while_the_answer_runs_is_queued_shown_and_can_be_dropped() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), Some(40));
    assert_eq!(app.focus, Focus::Prompt, "typing ahead while it answers");
    keys(&mut app, "And what about the guidance for next quarter?");
    assert_eq!(key(&mut app, KeyCode::Enter), None);
    assert_eq!(
        app.queued.as_deref(),
        Some("And what about the guidance for next quarter?")
    );
    assert!(app.panes.prompt.is_empty(), "the prompt is free again");
    assert_eq!(app.take_queued(), None, "not while the answer streams");
    insta::assert_snapshot!("queued_question_140x42", draw(&mut app, 140, 42).backend());
    insta::assert_snapshot!("queued_question_80x24", draw(&mut app, 80, 24).backend());
    insta::assert_snapshot!("queued_question_40x12", draw(&mut app, 40, 12).backend());
    // Ctrl-C drops the queued question first; the answer goes on.
    assert_eq!(ctrl(&mut app, 'c'), None);
    assert_eq!(app.queued, None);
    assert!(app.in_progress());
}

#[test]
fn tab_cycles_focus_in_layout_order() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    draw(&mut app, 140, 42);
    assert_eq!(
        app.focus,
        Focus::Prompt,
        "the answer ended: the prompt waits"
    );
    let mut seen = Vec::new();
    for _ in 0..5 {
        key(&mut app, KeyCode::Tab);
        seen.push(app.focus);
    }
    assert_eq!(
        seen,
        [
            Focus::Plan,
            Focus::Activity,
            Focus::Answer,
            Focus::Sources,
            Focus::Prompt,
        ]
    );
    key(&mut app, KeyCode::Esc);
    assert_eq!(
        app.focus,
        Focus::Answer,
        "Esc leaves the prompt for the answer"
    );
    draw(&mut app, 80, 24);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Plan, "narrow: the tab order");
}

#[test]
fn scrolling_up_stops_following_and_g_resumes() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), Some(200));
    draw(&mut app, 140, 42);
    browse(&mut app);
    assert!(app.panes.answer.scroll.follow);
    key(&mut app, KeyCode::PageUp);
    assert!(!app.panes.answer.scroll.follow);
    let top = app.panes.answer.scroll.top;
    // More answer arrives: the view stays where the user put it.
    let bytes = std::fs::read(EARNINGS).unwrap();
    let frames = parse_frames(&bytes);
    let mut pipeline = EventPipeline::auto();
    for frame in &frames[200..] {
        let mut events = Vec::new();
        let _ = pipeline.feed(&frame.bytes, &mut events);
        app.apply_update(StreamUpdate::Events(events));
    }
    draw(&mut app, 140, 42);
    assert_eq!(app.panes.answer.scroll.top, top);
    keys(&mut app, "G");
    assert!(app.panes.answer.scroll.follow);
}

#[test]
fn enter_expands_the_selected_activity() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    keys(&mut app, "tg");
    key(&mut app, KeyCode::Enter);
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains("▾ thinking"), "{screen}");
    // The whole thought is there, wrapped, not cut with an ellipsis: the left column's words.
    let answer_x = screen
        .lines()
        .find_map(|l| l.find("╭ Answer").map(|at| l[..at].chars().count()))
        .unwrap();
    let left: Vec<String> = screen
        .lines()
        .map(|l| l.chars().take(answer_x).collect::<String>())
        .collect();
    let words = left
        .join(" ")
        .split(|c: char| c.is_whitespace() || c == '┃' || c == '│' || c == '"')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains("so the search window lines up with the release."),
        "{screen}"
    );
}

#[test]
fn hostile_text_never_reaches_a_cell_as_a_control_character() {
    let mut app = app();
    play(
        &mut app,
        "tests/fixtures/hostile.sse",
        Some("evil\u{1b}[2J?"),
        None,
    );
    browse(&mut app);
    for keys_pressed in ["", "c", "t", "p"] {
        keys(&mut app, keys_pressed);
        let terminal = draw(&mut app, 140, 42);
        for cell in terminal.backend().buffer().content() {
            assert!(
                !cell.symbol().chars().any(|c| c.is_control()
                    || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')),
                "control character in {:?}",
                cell.symbol()
            );
        }
    }
    keys(&mut app, "c");
    key(&mut app, KeyCode::Enter);
    let terminal = draw(&mut app, 140, 42);
    for cell in terminal.backend().buffer().content() {
        assert!(!cell.symbol().chars().any(char::is_control));
    }
}

#[test]
fn tiny_and_odd_sizes_do_not_panic() {
    let mut app = app();
    play(&mut app, SECTOR, Some(DEMO_QUESTION), None);
    browse(&mut app);
    for (w, h) in [
        (1, 1),
        (10, 3),
        (20, 5),
        (30, 8),
        (60, 12),
        (99, 20),
        (100, 20),
        (300, 80),
    ] {
        for k in ["", "c", "?", "t"] {
            keys(&mut app, k);
            draw(&mut app, w, h);
            key(&mut app, KeyCode::Esc);
        }
        keys(&mut app, "cjj");
        key(&mut app, KeyCode::Enter);
        draw(&mut app, w, h);
        key(&mut app, KeyCode::Esc);
    }
}

/// Rendering while the stream arrives (blocks cached, markers arriving late) ends with exactly the rows
/// of rendering the finished answer in one go, for every recording and a few widths.
#[test]
fn incremental_rendering_matches_a_fresh_render_for_every_recording() {
    use research_tui::styled::text::AnswerView;
    let theme = Theme::default();
    for path in [
        EARNINGS,
        SECTOR,
        FOLLOW_UP,
        "assets/recordings/bigdata/workflow-earnings-brief.sse",
        "assets/recordings/xai/solid-state-batteries.sse",
        "assets/recordings/zeta/rag-long-documents.sse",
    ] {
        for width in [38, 64, 101] {
            let mut app = app();
            app.begin_turn(None);
            // The rows the answer pane keeps for the turn, synced after every update.
            let mut view = AnswerView::new();
            let bytes = std::fs::read(path).unwrap();
            let mut pipeline = EventPipeline::auto();
            for frame in parse_frames(&bytes) {
                let mut events = Vec::new();
                let _ = pipeline.feed(&frame.bytes, &mut events);
                app.apply_update(StreamUpdate::Events(events));
                let turn = app.turns.last().unwrap();
                view.sync(
                    turn.session.answer.as_str(),
                    &turn.ann,
                    turn.markers_version,
                    turn.generation,
                    width,
                    &theme,
                );
            }
            let mut events = Vec::new();
            let _ = pipeline.finish(&mut events);
            app.apply_update(StreamUpdate::Events(events));
            app.apply_update(StreamUpdate::Ended(StreamEnd::Closed));
            let turn = app.turns.last().unwrap();
            view.sync(
                turn.session.answer.as_str(),
                &turn.ann,
                turn.markers_version,
                turn.generation,
                width,
                &theme,
            );
            let mut fresh = AnswerView::new();
            fresh.sync(
                turn.session.answer.as_str(),
                &turn.ann,
                turn.markers_version,
                turn.generation,
                width,
                &theme,
            );
            let a: Vec<String> = view.rows(0, usize::MAX).map(|r| r.text()).collect();
            let b: Vec<String> = fresh.rows(0, usize::MAX).map(|r| r.text()).collect();
            assert_eq!(a, b, "{path} at {width} columns");
            assert_eq!(view.height(), fresh.height());
        }
    }
}
