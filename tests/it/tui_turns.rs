//! Snapshots of conversations in the app drawn into a `TestBackend`: earlier turns shown again, the
//! session picker, branches, cut turns and retries, a source's detail and structured output that
//! arrives late. The clock is fixed so nothing depends on time.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::stream_end::StreamEnd;
use research_tui::tui::state::Effect;
use research_tui::tui::ui::Ui;
use research_tui::wire::provider::EventPipeline;
use research_tui::wire::recording::parse_frames;

use crate::support;

use support::*;

#[test]
fn brackets_show_an_earlier_turn_in_the_panes() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    play(
        &mut app,
        FOLLOW_UP,
        Some("How does that compare with AMD's data-center guidance?"),
        None,
    );
    let latest = draw(&mut app, 140, 42).backend().to_string();
    assert!(latest.contains("AMD Investor Relations"), "{latest}");
    browse(&mut app);
    keys(&mut app, "[");
    assert_eq!(app.current_index(), 0);
    let earlier = draw(&mut app, 140, 42).backend().to_string();
    assert!(earlier.contains("[1] NVIDIA Newsroom"), "{earlier}");
    assert!(
        earlier.contains("▍You: Break down NVIDIA"),
        "scrolled to its question"
    );
    // Its sources highlight its own spans.
    keys(&mut app, "cn");
    assert!(app.panes.answer.focus_span.is_some());
    keys(&mut app, "]");
    assert_eq!(app.current_index(), 1);
    assert!(
        draw(&mut app, 140, 42)
            .backend()
            .to_string()
            .contains("AMD Investor Relations")
    );
}

/// Like [`play`], for a turn sent with `cont` (a follow-up, a branch, a retry).
fn play_from(
    app: &mut Ui,
    path: &str,
    question: &str,
    cont: research_tui::tui::state::Continuation,
) {
    let bytes = std::fs::read(path).unwrap();
    app.begin_turn_with(Some(question.to_owned()), cont);
    app.apply_update(StreamUpdate::Connected);
    let mut pipeline = EventPipeline::auto();
    for frame in parse_frames(&bytes) {
        let mut events = Vec::new();
        let _ = pipeline.feed(&frame.bytes, &mut events);
        app.apply_update(StreamUpdate::Events(events));
    }
    let mut events = Vec::new();
    let _ = pipeline.finish(&mut events);
    app.apply_update(StreamUpdate::Events(events));
    app.apply_update(StreamUpdate::Ended(StreamEnd::Closed));
}

pub(crate) fn saved_meta(
    id: &str,
    updated: &str,
    provider: &str,
    questions: &[&str],
    status: &str,
) -> research_tui::local::meta::SessionMeta {
    use research_tui::local::meta::SessionMeta;
    use research_tui::local::meta::TurnMeta;
    SessionMeta {
        id: id.into(),
        created_at: updated.into(),
        updated_at: updated.into(),
        endpoint: "research-agent".into(),
        provider: provider.into(),
        base_url: "http://127.0.0.1:8787".into(),
        chat_id: Some(format!("chat-{id}")),
        execution_id: None,
        options: Default::default(),
        comparison: None,
        branched_from: None,
        turns: questions
            .iter()
            .enumerate()
            .map(|(i, q)| TurnMeta {
                question: (*q).into(),
                started_at: updated.into(),
                ended_at: Some(updated.into()),
                from_checkpoint_id: None,
                checkpoint_id: (status == "complete").then(|| format!("ckpt-{id}-{i}")),
                status: status.into(),
                stream_file: format!("turn-{:03}.sse", i + 1),
                reason: None,
                request: None,
                not_saved: None,
            })
            .collect(),
    }
}

#[test]
fn session_picker_popup() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    app.session_id = Some("20260528-101500-1a2b".into());
    browse(&mut app);
    // `s` asks the loop for the list; the loop hands it back.
    assert_eq!(
        key(&mut app, KeyCode::Char('s')),
        Some(Effect::ListSessions)
    );
    let list = vec![
        saved_meta(
            "20260528-101500-1a2b",
            "2026-05-28T10:15:00Z",
            "bigdata",
            &[DEMO_QUESTION, "And AMD?"],
            "complete",
        ),
        saved_meta(
            "20260527-090000-00ff",
            "2026-05-27T09:00:00Z",
            "xai",
            &["Which solid-state battery makers are closest to mass production?"],
            "complete",
        ),
        saved_meta(
            "20260526-180000-0042",
            "2026-05-26T18:00:00Z",
            "bigdata",
            &["Compare ASML and Lam Research"],
            "cut",
        ),
    ];
    app.show_sessions(list);
    // The open conversation is selected first; j moves down.
    key(&mut app, KeyCode::Char('j'));
    let terminal = draw(&mut app, 140, 42);
    let screen = terminal.backend().to_string();
    assert!(screen.contains("Saved sessions (3)"), "{screen}");
    assert!(screen.contains("▸ 2026-05-27 09:00  1 turn"), "{screen}");
    assert!(screen.contains("(open)"), "{screen}");
    insta::assert_snapshot!("session_picker_popup", terminal.backend());
    insta::assert_snapshot!(
        "session_picker_popup_narrow",
        draw(&mut app, 80, 24).backend()
    );
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        Some(Effect::OpenSession("20260527-090000-00ff".into()))
    );
    assert!(app.popup.is_none());
}

#[test]
fn the_session_picker_refuses_to_replace_a_running_stream() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), Some(40));
    app.show_sessions(vec![saved_meta(
        "20260527-090000-00ff",
        "2026-05-27T09:00:00Z",
        "bigdata",
        &["Q"],
        "complete",
    )]);
    assert_eq!(key(&mut app, KeyCode::Enter), None);
    assert!(app.message.as_ref().unwrap().0.contains("cancel it first"));
    let empty = {
        let mut app = self::app();
        app.show_sessions(Vec::new());
        draw(&mut app, 80, 24).backend().to_string()
    };
    assert!(empty.contains("No saved sessions yet"), "{empty}");
}

#[test]
fn a_branched_conversation_marks_the_selected_turn_and_where_the_next_question_goes() {
    use research_tui::tui::state::Continuation;
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    let follow = app.continuation();
    assert_eq!(
        follow.checkpoint_id.as_deref(),
        Some("ckpt-demo-nvda-q1fy27-0001")
    );
    assert_eq!(follow.from_turn, Some(0));
    play_from(
        &mut app,
        FOLLOW_UP,
        "How does that compare with AMD's data-center guidance?",
        follow,
    );
    // The next question follows the newest turn…
    assert_eq!(
        app.continuation().checkpoint_id.as_deref(),
        Some("ckpt-demo-nvda-q1fy27-0002")
    );
    assert_eq!(app.branch_from(), None);
    // …unless an earlier turn is selected: then it branches from that turn's checkpoint, same chat.
    browse(&mut app);
    keys(&mut app, "[");
    let branch = app.continuation();
    assert_eq!(
        branch,
        Continuation {
            chat_id: app.turns[0].session.ids.chat_id.clone(),
            checkpoint_id: Some("ckpt-demo-nvda-q1fy27-0001".into()),
            from_turn: Some(0),
        }
    );
    assert_eq!(app.branch_from(), Some(0));
    let terminal = draw(&mut app, 140, 42);
    let screen = terminal.backend().to_string();
    assert!(
        screen.contains("↳ from turn 1 · ckpt-demo-nvda-q1fy27-0001"),
        "{screen}"
    );
    assert!(
        screen.contains("▶ turn 1 · selected"),
        "the selected turn's header is marked:\n{screen}"
    );
    insta::assert_snapshot!("branch_selected_turn", terminal.backend());

    // The branch becomes turn 3, marked as coming from turn 1.
    keys(&mut app, "iMargins instead?");
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        Some(Effect::Ask("Margins instead?".into()))
    );
    play_from(&mut app, FOLLOW_UP, "Margins instead?", branch);
    assert_eq!(app.history(app.turns[2].request.from_turn).len(), 1);
    browse(&mut app);
    keys(&mut app, "a");
    assert!(
        scroll_up_until(&mut app, "── turn 3 · ↳ from turn 1", 300),
        "turn 3's rule says where it branched from"
    );
    // The export says so too, under turn 3's question, and turn 2 (on from turn 1) says nothing.
    let exported =
        research_tui::tui::export::conversation_markdown(&app.turns, &Default::default());
    let turn_3 = exported.find("## Margins instead?\n\n").unwrap();
    assert!(
        exported[turn_3..].starts_with("## Margins instead?\n\n*Branches from turn 1.*\n"),
        "{exported}"
    );
    assert_eq!(exported.matches("Branches from").count(), 1, "{exported}");
    insta::assert_snapshot!("branch_narrow_prompt", {
        keys(&mut app, "[[");
        draw(&mut app, 80, 24).backend().to_string()
    });
    // Where the whole checkpoint id does not fit, its short form does (never an id cut to
    // nothing useful).
    let medium = draw(&mut app, 100, 30).backend().to_string();
    assert!(
        medium.contains("↳ from turn 1 · ckpt-…7-0001 ─"),
        "{medium}"
    );
}

#[test]
fn a_cut_turn_keeps_what_arrived_and_r_retries_it() {
    let mut app = app();
    play(
        &mut app,
        "tests/fixtures/cut-mid-answer.sse",
        Some("Review NVIDIA's quarter"),
        None,
    );
    let terminal = draw(&mut app, 140, 42);
    let screen = terminal.backend().to_string();
    let status = screen.lines().last().unwrap();
    assert!(status.contains("cut · kept what arrived"), "{status}");
    assert!(status.contains("r⏎ retry"), "{status}");
    assert!(screen.contains("r then Enter asks it again"), "{screen}");
    insta::assert_snapshot!("retry_after_a_cut", draw(&mut app, 80, 24).backend());
    browse(&mut app);
    assert_eq!(key(&mut app, KeyCode::Char('r')), None, "r waits for Enter");
    assert_eq!(key(&mut app, KeyCode::Enter), Some(Effect::Retry(0)));
    // A complete turn is not retried.
    let mut done = self::app();
    play(&mut done, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut done);
    assert_eq!(key(&mut done, KeyCode::Char('r')), None);
    assert_eq!(key(&mut done, KeyCode::Enter), None);
    assert!(done.message.as_ref().unwrap().0.contains("follow-up"));
}

#[test]
fn status_bar_while_retrying() {
    let mut app = app();
    app.begin_turn(Some(DEMO_QUESTION.into()));
    app.apply_update(StreamUpdate::Connecting { attempt: 1 });
    app.apply_update(StreamUpdate::Retrying {
        attempt: 2,
        wait_ms: 2000,
        reason: "HTTP 503: Service Unavailable".into(),
    });
    let terminal = draw(&mut app, 140, 42);
    let status = terminal.backend().to_string();
    let status = status.lines().last().unwrap().to_owned();
    assert!(
        status.contains("retrying in 2 s (try 2/3): HTTP 503: Service Unavailable"),
        "{status}"
    );
    insta::assert_snapshot!("status_bar_while_retrying", terminal.backend());
}

#[test]
fn zeta_source_detail_shows_the_key_sentence_bold() {
    use ratatui::style::Modifier;
    let mut app = app();
    app.provider = Some(research_tui::wire::provider::Provider::Zeta);
    play(
        &mut app,
        "assets/recordings/zeta/rag-long-documents.sse",
        Some("What do recent papers say about retrieval-augmented generation for long documents?"),
        None,
    );
    browse(&mut app);
    keys(&mut app, "c");
    key(&mut app, KeyCode::Enter);
    let terminal = draw(&mut app, 140, 42);
    let screen = terminal.backend().to_string();
    // The title line of the extract repeats the headline: left out.
    assert_eq!(
        screen
            .matches("Lost in the Middle: How Language Models Use Long Contexts")
            .count(),
        // Popup title and headline (the sidebar behind is covered).
        2,
        "{screen}"
    );
    let buffer = terminal.backend().buffer();
    let mut bold = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            let cell = &buffer[(x, y)];
            if cell.modifier.contains(Modifier::BOLD) {
                bold.push_str(cell.symbol());
            }
        }
        bold.push('\n');
    }
    assert!(
        bold.contains("Performance is often highest when") && !bold.contains("We analyze"),
        "{bold}"
    );
    assert!(!screen.contains("<b>"), "{screen}");
    insta::assert_snapshot!("zeta_source_detail", terminal.backend());
}

#[test]
fn o_opens_zeta_relative_urls_against_the_api_base_and_not_custom_documents() {
    let mut app = app();
    app.provider = Some(research_tui::wire::provider::Provider::Zeta);
    app.api_base = Some("https://zeta.example".into());
    play(
        &mut app,
        "assets/recordings/zeta/rag-long-documents.sse",
        None,
        None,
    );
    browse(&mut app);
    keys(&mut app, "c");
    assert_eq!(key(&mut app, KeyCode::Char('o')), None, "o waits for Enter");
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        Some(Effect::Open(
            "https://zeta.example/documents/chunk/list?tenant=demo&property_name=id&property_values=f3a9c1d2e8b7_4"
                .into()
        ))
    );
    keys(&mut app, "G");
    assert_eq!(key(&mut app, KeyCode::Char('o')), None);
    assert_eq!(key(&mut app, KeyCode::Enter), None);
    let message = &app.message.as_ref().unwrap().0;
    assert!(message.contains("custom document"), "{message}");
}

#[test]
fn ctrl_or_alt_with_a_letter_never_runs_that_letters_command() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    for c in ['q', 'e', 's', 'r', 'o'] {
        assert_eq!(ctrl(&mut app, c), None, "Ctrl-{c}");
        let alt = app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT));
        assert!(alt.is_none(), "Alt-{c}");
    }
    assert!(!app.quit);
}

#[test]
fn structured_output_that_arrives_after_a_frame_was_drawn_still_shows() {
    let mut app = app();
    let bytes = std::fs::read(EARNINGS).unwrap();
    let frames = parse_frames(&bytes);
    app.begin_turn(Some(DEMO_QUESTION.to_owned()));
    app.apply_update(StreamUpdate::Connected);
    let mut pipeline = EventPipeline::auto();
    for (i, frame) in frames.iter().enumerate() {
        let mut events = Vec::new();
        let _ = pipeline.feed(&frame.bytes, &mut events);
        app.apply_update(StreamUpdate::Events(events));
        if i % 25 == 0 {
            draw(&mut app, 140, 42);
        }
    }
    app.apply_update(StreamUpdate::Ended(StreamEnd::Closed));
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains("▸ Structured output: company"), "{screen}");
    assert!(screen.contains("ticker NVDA"), "{screen}");
}

#[test]
fn the_end_of_an_answer_keeps_the_answer_in_view_and_enter_unfolds_the_structured_output() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    let screen = draw(&mut app, 140, 42).backend().to_string();
    // The last rows of the answer, then one folded line: no JSON dump.
    assert!(
        screen.contains("export policy and hyperscaler capex."),
        "{screen}"
    );
    assert!(!screen.contains("\"company\""), "{screen}");
    let folded = screen
        .lines()
        .filter(|l| l.contains("Structured output"))
        .count();
    assert_eq!(folded, 1, "{screen}");
    browse(&mut app);
    keys(&mut app, "a");
    key(&mut app, KeyCode::Enter);
    let terminal = draw(&mut app, 140, 42);
    let screen = terminal.backend().to_string();
    assert!(
        screen.contains("▾ Structured output · 13 fields"),
        "{screen}"
    );
    let row = |key: &str| screen.lines().find(|l| l.contains(key)).unwrap_or_default();
    assert!(row("guidance.period").contains("Q2 FY2027"), "{screen}");
    assert!(
        row("key_risks").contains("CoWoS and HBM4 supply; China"),
        "{screen}"
    );
    insta::assert_snapshot!("structured_output_unfolded", terminal.backend());
    key(&mut app, KeyCode::Enter);
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        screen.contains("▸ Structured output"),
        "folded again:\n{screen}"
    );
}

#[test]
fn the_selected_turns_rule_spans_the_answers_width_on_a_wide_screen() {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    play(&mut app, FOLLOW_UP, Some("And AMD?"), None);
    browse(&mut app);
    keys(&mut app, "a[");
    let screen = draw(&mut app, 200, 50).backend().to_string();
    let row = screen
        .lines()
        .find(|l| l.contains("━━ ▶ turn 1"))
        .unwrap_or_else(|| panic!("the selected turn's rule:\n{screen}"));
    // From the rule to the pane's right border: rule all the way, then at most the margin.
    let after = &row[row.find("━━ ▶").unwrap()..];
    let end = after.find('┃').expect("the focused answer's border");
    let rule = after[..end].trim_end_matches(' ');
    let gap = after[rule.len()..end].chars().count();
    assert!(gap <= 2, "the rule stops {gap} columns short:\n{row}");
}
