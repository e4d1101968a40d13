//! `/` over the whole conversation stays bounded: the hits kept across every turn together, the
//! count saying more were found.

use crossterm::event::KeyCode;
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::event::AgentEvent;
use research_tui::tui::state::search::MOST_HITS;

use crate::support::*;

/// Three turns, each an answer of 60,000 one-letter words: a search for the letter keeps at most
/// the bound across them (it kept the bound in each turn: three times as many), and says `+`.
#[test]
fn a_one_letter_search_over_many_long_turns_keeps_a_bounded_number_of_hits() {
    let mut app = app();
    for n in 0..3 {
        app.begin_turn(Some(format!("Question {n}")));
        app.apply_update(StreamUpdate::Connected);
        let text = "a ".repeat(60_000);
        app.apply_update(StreamUpdate::Events(vec![AgentEvent::AnswerDelta {
            message_id: None,
            text,
        }]));
        app.apply_update(StreamUpdate::Events(vec![AgentEvent::Complete {
            checkpoint_id: None,
            consumption: Vec::new(),
        }]));
        draw(&mut app, 140, 42);
    }
    browse(&mut app);
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "a");
    let search = app.search.as_ref().expect("searching");
    assert_eq!(search.len(), MOST_HITS);
    assert!(
        search.count().ends_with(&format!("/{MOST_HITS}+")),
        "{}",
        search.count()
    );
    // Stepping back from the first hit wraps to the last one kept.
    key(&mut app, KeyCode::Enter);
    let status = draw(&mut app, 140, 42).backend().to_string();
    assert!(status.contains(&format!("{MOST_HITS}+")), "{status}");
}

/// A question with a bidi override and a tab is shown cleaned (the override as `�`, the tab as a
/// space): the search counts its hits on that shown text, so every hit counted is one lit, and a
/// word seen on screen is found.
#[test]
fn question_hits_are_counted_on_the_question_as_shown() {
    let mut app = app();
    play(
        &mut app,
        EARNINGS,
        Some("Review NVIDIA\u{202E}'s quarter\twith care"),
        None,
    );
    browse(&mut app);
    key(&mut app, KeyCode::Char('/'));
    // The override itself: in the raw question, but nowhere on screen.
    key(&mut app, KeyCode::Char('\u{202E}'));
    let search = app.search.as_ref().expect("searching");
    assert_eq!((search.len(), search.question_hits(0).0.len()), (0, 0));
    key(&mut app, KeyCode::Backspace);
    // The words around the tab, as the screen shows them.
    keys(&mut app, "quarter with");
    let search = app.search.as_ref().expect("searching");
    assert_eq!(search.question_hits(0).0.len(), 1, "{}", search.count());
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(
        screen.contains("▍You: Review NVIDIA�'s quarter with care"),
        "{screen}"
    );
}
