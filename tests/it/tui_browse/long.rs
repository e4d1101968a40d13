//! Long answers: a search of a 1 MB answer costs about a frame, and scrolling right after a long
//! answer streamed in (or was resent whole) moves from where the reader is.

use super::*;

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
