//! Scrolling up after the answer pane followed a long answer (issue 20): the blocks left unmeasured
//! while it followed the bottom are measured from the bottom up as far as a scroll key goes (and
//! the hint on the border needs), not the whole answer; every screen — rows, charts, the hint — and
//! every click is the one an app that laid out every block as it came shows.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use proptest::prelude::*;
use ratatui::buffer::Buffer;
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::event::{AgentEvent, Chart, Reference, SourceDoc};
use research_tui::model::stream_end::StreamEnd;
use research_tui::tui::state::{Action, Focus, Spot};
use research_tui::tui::ui::Ui;

use crate::support::*;

/// Blocks of Markdown of every kind the answer pane lays out, prose the most.
const FRAGMENTS: &[&str] = &[
    "Revenue rose in 東京 and grew.",
    "A longer paragraph about margins and capex that wraps over several rows at narrow widths, \
     with **bold** and `code` in it, and a [link](https://example.com/report) too, and more words.",
    "## Segment results",
    "- data center\n- gaming, which grew a little\n- automotive",
    "```\nlet margin = revenue - cost;\nprintln!(\"{margin}\");\n```",
    "| segment | revenue |\n|---|---|\n| data center | 30.8 |\n| gaming | 3.3 |",
    "> Management expects supply to improve through the year.",
    "1. first quarter\n2. second quarter",
    "Short.",
];

/// The answer of `picks`, each block numbered so no two are alike.
fn answer_of(picks: &[usize]) -> String {
    picks
        .iter()
        .enumerate()
        .map(|(n, &pick)| format!("{n}: {}\n\n", FRAGMENTS[pick]))
        .collect()
}

/// A turn streaming `text` in `chunks` pieces (after a first small one) with a frame after each (`before` runs once it is
/// connected), a chart after the block code point `chart_at` is in (when given), then complete.
fn stream_turn(
    app: &mut Ui,
    (text, chart_at): &(String, Option<usize>),
    chunks: usize,
    size: (u16, u16),
    before: &dyn Fn(&mut Ui),
) {
    app.begin_turn(Some(format!("Question {}", app.turns.len() + 1)));
    app.apply_update(StreamUpdate::Connected);
    draw(app, size.0, size.1);
    before(app);
    // A first small piece: the pane has shown a window before the rest arrives (until then every
    // block's rows are kept).
    let first = text.ceil_char_boundary(64.min(text.len()));
    let step = (text.len() - first).div_ceil(chunks.max(1)).max(1);
    let mut from = 0;
    while from < text.len() {
        let to = match from {
            0 => first,
            _ => text.ceil_char_boundary(from + step),
        };
        let delta = AgentEvent::AnswerDelta {
            message_id: None,
            text: text[from..to].to_owned(),
        };
        app.apply_update(StreamUpdate::Events(vec![delta]));
        from = to;
        let charted = !app.turns.last().unwrap().session.charts.is_empty();
        if let Some(at) = chart_at.filter(|&at| !charted && text[..from].chars().count() > at) {
            let chart = Chart {
                title: Some("Revenue by segment".into()),
                start: Some(0),
                end: Some(at as u64 + 1),
                ..Chart::default()
            };
            app.apply_update(StreamUpdate::Events(vec![AgentEvent::Chart(chart)]));
        }
        draw(app, size.0, size.1);
    }
    let complete = AgentEvent::Complete {
        checkpoint_id: None,
        consumption: Vec::new(),
    };
    app.apply_update(StreamUpdate::Events(vec![complete]));
    app.apply_update(StreamUpdate::Ended(StreamEnd::Closed));
    draw(app, size.0, size.1);
}

/// The app after `turns` streamed in, the answer focused: following the bottom (blocks far above
/// it left unmeasured), or (`every_block`) scrolled to the top while each turn streamed, so every
/// block was laid out as it came, then back at the bottom with `G`.
fn streamed(
    turns: &[(String, Option<usize>)],
    chunks: usize,
    size: (u16, u16),
    every_block: bool,
) -> Ui {
    let mut app = app();
    let before = |app: &mut Ui| {
        if app.focus != Focus::Answer {
            browse(app);
            keys(app, "a");
        }
        if every_block {
            keys(app, "g");
        }
    };
    for turn in turns {
        stream_turn(&mut app, turn, chunks, size, &before);
    }
    if every_block {
        keys(&mut app, "G");
    }
    draw(&mut app, size.0, size.1);
    app
}

/// A scroll the person makes.
#[derive(Debug, Clone, Copy)]
enum Move {
    Key(KeyCode),
    CtrlU,
    Wheel(isize),
}

fn moves() -> impl Strategy<Value = Move> {
    prop_oneof![
        3 => Just(Move::Key(KeyCode::PageUp)),
        1 => Just(Move::Key(KeyCode::PageDown)),
        2 => Just(Move::Key(KeyCode::Char('k'))),
        1 => Just(Move::Key(KeyCode::Char('j'))),
        1 => Just(Move::Key(KeyCode::Up)),
        1 => Just(Move::CtrlU),
        2 => Just(Move::Wheel(-3)),
        1 => Just(Move::Wheel(3)),
    ]
}

fn make(app: &mut Ui, step: Move) {
    match step {
        Move::Key(code) => {
            key(app, code);
        }
        Move::CtrlU => {
            let ctrl_u = KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL);
            if let Some(action) = app.handle_key(ctrl_u) {
                app.update(action);
            }
        }
        Move::Wheel(rows) => {
            app.update(Action::Wheel(Spot::Pane(Focus::Answer), rows));
        }
    }
}

/// The screen, where the hint on the answer's border is (the row `draw` puts it on: in the default
/// theme it looks like the border it is drawn on), and what a click on each cell picks (every
/// fourth column).
fn seen(app: &mut Ui, (width, height): (u16, u16)) -> (Buffer, usize, Vec<Spot>) {
    let screen = draw(app, width, height).backend().buffer().clone();
    let scroll = app.panes.answer.scroll;
    let hint = (scroll.top * scroll.viewport.saturating_sub(1))
        .checked_div(scroll.max_top())
        .unwrap_or(0);
    let spots = (0..height)
        .flat_map(|y| (0..width).step_by(4).map(move |x| (x, y)))
        .map(|(x, y)| app.panes.spot(&app.app, x, y))
        .collect();
    (screen, hint, spots)
}

/// Blocks of every kind enough for thousands of rows: most stay unmeasured while followed.
fn long_turn(blocks: usize) -> (String, Option<usize>) {
    let picks: Vec<usize> = (0..blocks)
        .map(|n| (n * 7 + n / 3) % FRAGMENTS.len())
        .collect();
    (answer_of(&picks), None)
}

/// One-row paragraphs: at the bottom, only the rows that fill the pane are measured.
fn short_turn(blocks: usize) -> (String, Option<usize>) {
    let short = FRAGMENTS.len() - 1;
    (answer_of(&vec![short; blocks]), None)
}

#[test]
fn the_first_page_up_after_a_long_answer_was_followed_lays_out_a_few_blocks_not_the_answer() {
    let size = (140, 42);
    // In one piece only the bottom is measured; in 40 every frame measured the blocks at its
    // bottom.
    for (turn, chunks) in [
        (long_turn(6000), 1),
        (long_turn(6000), 40),
        (short_turn(6000), 1),
    ] {
        let turns = [turn];
        let mut following = streamed(&turns, chunks, size, false);
        let mut every = streamed(&turns, chunks, size, true);
        assert!(following.panes.answer.scroll.follow);
        assert_eq!(
            seen(&mut following, size),
            seen(&mut every, size),
            "at the bottom"
        );
        let before = following.panes.answer.blocks_laid_out();
        assert!(
            before < 1000,
            "{before} of 6000 blocks laid out while following the bottom"
        );
        for page in 1..=3 {
            let laid_out = following.panes.answer.blocks_laid_out();
            key(&mut following, KeyCode::PageUp);
            key(&mut every, KeyCode::PageUp);
            let shown = seen(&mut following, size);
            let by_key = following.panes.answer.blocks_laid_out() - laid_out;
            println!(
                "{} bytes in {chunks} chunks, page {page} up: {by_key} blocks laid out \
                 ({before} before)",
                turns[0].0.len()
            );
            // The window's blocks, and enough below it to place the hint on the border exactly.
            assert!(
                by_key < 1000,
                "page {page} up laid out {by_key} of 6000 blocks"
            );
            assert_eq!(shown, seen(&mut every, size), "{page} pages up");
        }
        keys(&mut following, "G");
        keys(&mut every, "G");
        assert_eq!(
            seen(&mut following, size),
            seen(&mut every, size),
            "back at the bottom"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the answers (one or two turns, a chart in them or not), the pane's size and the
    /// scrolls made after following them to the bottom, each screen and each click is the one
    /// of an app that laid out every block as it came.
    #[test]
    fn scrolling_up_from_the_bottom_shows_what_laying_out_every_block_shows(
        first in prop_oneof![
            proptest::collection::vec(0usize..FRAGMENTS.len(), 1..900),
            proptest::collection::vec(Just(FRAGMENTS.len() - 1), 1..2000),
        ],
        second in proptest::option::of(proptest::collection::vec(0usize..FRAGMENTS.len(), 1..400)),
        chart in proptest::option::of(0usize..20_000),
        chunks in prop_oneof![3 => Just(1usize), 1 => 2usize..12],
        width in 30u16..150,
        height in 6u16..45,
        steps in proptest::collection::vec(moves(), 1..24),
    ) {
        let size = (width, height);
        let mut turns = vec![(answer_of(&first), chart)];
        if let Some(second) = second {
            turns.push((answer_of(&second), None));
        }
        let mut following = streamed(&turns, chunks, size, false);
        let mut every = streamed(&turns, chunks, size, true);
        prop_assert_eq!(seen(&mut following, size), seen(&mut every, size), "at the bottom");
        for (n, step) in steps.iter().enumerate() {
            make(&mut following, *step);
            make(&mut every, *step);
            prop_assert_eq!(
                seen(&mut following, size),
                seen(&mut every, size),
                "after {:?}", &steps[..=n]
            );
        }
    }
}

/// Zeta resends the whole answer with every message: scrolled up from the bottom of a long
/// answer (blocks above the window still unmeasured), a resend of the same text and more keeps
/// the same rows in view as an app that laid out every block.
#[test]
fn a_resend_of_the_answer_while_scrolled_up_keeps_the_rows_in_view() {
    let size = (140, 42);
    let (text, _) = short_turn(3000);
    let turns = [(text.clone(), None)];
    let resend = |app: &mut Ui| {
        let resent = AgentEvent::AnswerReplace {
            text: format!("{text}More after the resend.\n\n"),
        };
        app.apply_update(StreamUpdate::Events(vec![resent]));
    };
    let mut following = streamed(&turns, 1, size, false);
    let mut every = streamed(&turns, 1, size, true);
    for app in [&mut following, &mut every] {
        key(app, KeyCode::PageUp);
        key(app, KeyCode::PageUp);
        draw(app, size.0, size.1);
        resend(app);
    }
    assert_eq!(
        seen(&mut following, size),
        seen(&mut every, size),
        "after the resend"
    );
    key(&mut following, KeyCode::PageUp);
    key(&mut every, KeyCode::PageUp);
    assert_eq!(
        seen(&mut following, size),
        seen(&mut every, size),
        "a page up"
    );
}

/// A resend while a chart fills the window (no answer text in view to put back in place) keeps the
/// chart in view (it jumped hundreds of blocks up: the rows left unmeasured above were counted).
#[test]
fn a_resend_while_a_chart_fills_the_window_keeps_the_chart_in_view() {
    let size = (80, 9);
    let (text, _) = long_turn(3000);
    let chart_at = text.chars().count() - 2500;
    let turns = [(text.clone(), Some(chart_at))];
    let mut following = streamed(&turns, 1, size, false);
    let mut every = streamed(&turns, 1, size, true);
    let all_chart = |app: &mut Ui| {
        draw(app, size.0, size.1);
        let area = app.panes.answer.last_area().unwrap();
        let inner = research_tui::tui::screen::pane_inner(area);
        let n = (inner.y..inner.y + inner.height)
            .filter(|&y| matches!(app.panes.spot(&app.app, inner.x + 1, y), Spot::Chart(..)))
            .count();
        n == inner.height as usize
    };
    let mut found = false;
    for n in 0..3000 {
        key(&mut following, KeyCode::Char('k'));
        key(&mut every, KeyCode::Char('k'));
        assert_eq!(seen(&mut following, size), seen(&mut every, size), "{n} up");
        if all_chart(&mut following) {
            found = true;
            break;
        }
    }
    assert!(found, "never a window of chart only");
    let resend = |app: &mut Ui| {
        let resent = AgentEvent::AnswerReplace {
            text: format!("{text}More after the resend.\n\n"),
        };
        app.apply_update(StreamUpdate::Events(vec![resent]));
    };
    resend(&mut following);
    resend(&mut every);
    assert_eq!(
        seen(&mut following, size),
        seen(&mut every, size),
        "after the resend"
    );
}

/// A resize while scrolled up lays the answer out once, at the new width (it measured every block
/// at the old width first, then again).
#[test]
fn a_resize_while_scrolled_up_lays_out_the_answer_once() {
    let size = (140, 42);
    let turns = [long_turn(6000)];
    let mut following = streamed(&turns, 1, size, false);
    let mut every = streamed(&turns, 1, size, true);
    for app in [&mut following, &mut every] {
        key(app, KeyCode::PageUp);
        draw(app, size.0, size.1);
    }
    let (f0, e0) = (
        following.panes.answer.blocks_laid_out(),
        every.panes.answer.blocks_laid_out(),
    );
    let f = draw(&mut following, 100, 42).backend().buffer().clone();
    let e = draw(&mut every, 100, 42).backend().buffer().clone();
    let (f1, e1) = (
        following.panes.answer.blocks_laid_out() - f0,
        every.panes.answer.blocks_laid_out() - e0,
    );
    assert_eq!(f, e);
    assert!(f1 <= e1 + 100, "following {f1} vs every {e1}");
}

/// jumps after a partial measurement.
#[test]
fn jumps_after_scrolling_up_show_what_every_block_shows() {
    for size in [(140u16, 42u16), (80, 24), (50, 12)] {
        let turns = [long_turn(2000), long_turn(1500)];
        let mut following = streamed(&turns, 1, size, false);
        let mut every = streamed(&turns, 1, size, true);
        for step in [
            "PageUp", "PageUp", "z", "k", "[", "z", "]", "G", "PageUp", "z", "z", "PageUp", "g",
        ] {
            for app in [&mut following, &mut every] {
                match step {
                    "PageUp" => {
                        key(app, KeyCode::PageUp);
                    }
                    s => keys(app, s),
                }
            }
            assert_eq!(
                seen(&mut following, size),
                seen(&mut every, size),
                "{size:?} after {step}"
            );
        }
    }
}

/// a click after a scroll key, before the next frame (keys within 16 ms of the last
/// key's frame are not drawn at once), picks from the screen the person sees.
#[test]
fn a_click_before_the_next_frame_picks_the_marker_on_screen() {
    let size = (100, 30);
    let (text, _) = long_turn(3000);
    let needle = "and more words.";
    let mut refs = Vec::new();
    for (byte, _) in text.match_indices(needle) {
        let end = text[..byte + needle.len()].chars().count() as u64;
        refs.push(citing(end - 5..end, refs.len() % 9));
    }
    let turns = [(text.clone(), None)];
    let mut following = streamed(&turns, 1, size, false);
    let mut every = streamed(&turns, 1, size, true);
    for app in [&mut following, &mut every] {
        app.apply_update(StreamUpdate::Events(vec![AgentEvent::Grounding(
            refs.clone(),
        )]));
        key(app, KeyCode::PageUp);
        draw(app, size.0, size.1);
        key(app, KeyCode::PageUp); // not drawn yet
    }
    let spots = |app: &Ui| {
        (0..size.1)
            .flat_map(|y| (0..size.0).map(move |x| (x, y)))
            .map(|(x, y)| app.panes.spot(&app.app, x, y))
            .collect::<Vec<_>>()
    };
    let (f, e) = (spots(&following), spots(&every));
    let markers = e.iter().filter(|s| matches!(s, Spot::Marker(_))).count();
    println!("{markers} marker cells on screen");
    assert_eq!(f, e);
}

/// The screen rows of the answer pane, top to bottom, as text.
fn rows_of(buffer: &Buffer) -> Vec<String> {
    let area = buffer.area;
    (0..area.height)
        .map(|y| (0..area.width).map(|x| buffer[(x, y)].symbol()).collect())
        .collect()
}

/// The block of the answer that begins on screen row `row` ("12: …"), if one does.
fn block_on(row: &str) -> Option<usize> {
    let text = row.trim_start_matches(|c: char| !c.is_ascii_digit());
    let digits = text.find(|c: char| !c.is_ascii_digit())?;
    text[digits..]
        .starts_with(':')
        .then(|| text[..digits].parse().ok())?
}

/// The row on screen where block `n` of the answer begins, if it is in view.
fn row_of_block(rows: &[String], n: usize) -> Option<usize> {
    rows.iter().position(|row| block_on(row) == Some(n))
}

/// A citation of code points `span` to source `n` of nine.
fn citing(span: std::ops::Range<u64>, n: usize) -> Reference {
    Reference {
        start: Some(span.start),
        end: Some(span.end),
        source: Some(SourceDoc {
            id: Some(format!("s{n}")),
            headline: Some("A source".into()),
            url: Some(format!("https://example.com/{n}")),
            ..SourceDoc::default()
        }),
        ..Reference::default()
    }
}

/// Citations of each block's number ("12:"), markers after each, all at once.
fn grounding_of_every_block(text: &str) -> AgentEvent {
    let mut refs = Vec::new();
    let mut at = 0u64;
    for block in text.split_inclusive("\n\n") {
        if let Some(colon) = block.find(':') {
            let end = at + block[..=colon].chars().count() as u64;
            // Three sources each: markers wide enough to wrap a row further.
            for _ in 0..3 {
                refs.push(citing(at..end, refs.len() % 9));
            }
        }
        at += block.chars().count() as u64;
    }
    AgentEvent::Grounding(refs)
}

/// Citations landing all at once (Perplexity sends them with its last chunk) add markers to the
/// blocks above a scrolled-up window, so those blocks wrap into more rows: the text being read stays
/// on the rows it was on, whether the pane laid out every block or only those it scrolled to.
#[test]
fn citations_landing_above_a_scrolled_up_window_keep_the_text_being_read_in_place() {
    let size = (36, 24);
    let (text, _) = long_turn(400);
    let turns = [(text.clone(), None)];
    for every_block in [false, true] {
        let mut app = streamed(&turns, 1, size, every_block);
        for _ in 0..6 {
            key(&mut app, KeyCode::PageUp);
        }
        let before = rows_of(draw(&mut app, size.0, size.1).backend().buffer());
        let (row, block) = (before.iter().enumerate())
            .find_map(|(row, text)| block_on(text).map(|n| (row, n)))
            .expect("a block's start in view");
        app.apply_update(StreamUpdate::Events(vec![grounding_of_every_block(&text)]));
        let after = rows_of(draw(&mut app, size.0, size.1).backend().buffer());
        let markers = |rows: &[String]| rows.iter().map(|r| r.matches('[').count()).sum::<usize>();
        assert!(
            markers(&after) > markers(&before),
            "markers landed in view too"
        );
        assert_eq!(
            row_of_block(&after, block),
            Some(row),
            "block {block} moved (every block laid out: {every_block})\nbefore:\n{}\nafter:\n{}",
            before.join("\n"),
            after.join("\n")
        );
    }
}
