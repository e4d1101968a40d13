//! The answer's block cache: Markdown rendered per block, completed blocks kept, rows kept only
//! around the window shown, the same rows however the text arrives.

use super::*;
use crate::styled::text::test_support::{FRAGMENTS, answer_of, theme};

#[test]
fn lists_tables_headings_and_code_render() {
    let text = "## Mix\n\n- one\n- two\n  wrapped\n\n1. a\n2. b\n\n| A | B |\n|---|--:|\n| x | 10 |\n\n```\nlet x = 1;\n```\n";
    let mut view = AnswerView::new();
    view.sync(text, &Annotations::default(), 0, 0, 40, &theme());
    let rows: Vec<String> = view
        .rows(0, 100)
        .map(|l| l.text().trim_end().to_owned())
        .collect();
    assert_eq!(
        rows,
        [
            "Mix",
            "",
            "• one",
            "• two wrapped",
            "",
            "1. a",
            "2. b",
            "",
            "A │  B",
            "──┼───",
            "x │ 10",
            "",
            "  let x = 1;"
        ]
    );
}

#[test]
fn completed_blocks_are_cached_and_only_the_tail_is_redone() {
    let theme = theme();
    let mut view = AnswerView::new();
    let mut text = String::new();
    for i in 0..50 {
        text.push_str(&format!("Paragraph {i} with some words.\n\n"));
    }
    view.sync(&text, &Annotations::default(), 0, 0, 60, &theme);
    text.push_str("Growing tail");
    view.sync(&text, &Annotations::default(), 0, 0, 60, &theme);
    let renders = view.renders;
    text.push_str(" keeps growing");
    view.sync(&text, &Annotations::default(), 0, 0, 60, &theme);
    assert_eq!(view.renders - renders, 1, "only the open block re-rendered");
    assert_eq!(view.cached_blocks(), 50);
    let last: Vec<String> = view.rows(view.height() - 1, 5).map(RLine::text).collect();
    assert_eq!(last, ["Growing tail keeps growing"]);
    // A row lookup by byte lands on the right paragraph.
    let pos = text.find("Paragraph 30").unwrap();
    let row = view.row_of_byte(pos).unwrap();
    assert_eq!(
        view.rows(row, 1).next().unwrap().text(),
        "Paragraph 30 with some words."
    );
}

#[test]
fn incremental_rendering_matches_rendering_all_at_once() {
    let theme = theme();
    let text = "# Title\n\nFirst para\nsecond line.\n\n```\ncode\n\nmore code\n```\n\n- a\n\n- b\n\nEnd **bold** text.\n";
    let ann = Annotations {
        markers: vec![(text.find(" text").unwrap(), vec![1])],
        hidden: Vec::new(),
    };
    let mut whole = AnswerView::new();
    whole.sync(text, &ann, 1, 0, 30, &theme);
    let mut inc = AnswerView::new();
    for end in 1..=text.len() {
        if text.is_char_boundary(end) {
            inc.sync(&text[..end], &ann, 1, 0, 30, &theme);
        }
    }
    let a: Vec<String> = whole.rows(0, 100).map(RLine::text).collect();
    let b: Vec<String> = inc.rows(0, 100).map(RLine::text).collect();
    assert_eq!(a, b);
    assert!(a.iter().any(|l| l.contains("bold[1]")));
    assert!(a.iter().any(|l| l.contains("more code")));
}

fn all_rows(view: &AnswerView) -> Vec<String> {
    view.rows(0, usize::MAX).map(RLine::text).collect()
}

/// Every row of `view`, read through windows of `height` rows as the screen would show them.
fn rows_through_windows(view: &mut AnswerView, text: &str, height: usize) -> Vec<String> {
    let theme = theme();
    let mut rows = Vec::new();
    let mut top = 0;
    while top < view.height() {
        view.show(text, top, height, &theme);
        rows.extend(view.rows(top, height).map(RLine::text));
        top += height;
    }
    rows
}

#[test]
fn rows_are_kept_only_around_the_window_shown_and_come_back_when_scrolled_to() {
    let theme = theme();
    let mut text = String::new();
    for i in 0..2000 {
        text.push_str(&format!(
            "Paragraph {i} with **some** words to wrap at forty columns.\n\n"
        ));
    }
    let mut view = AnswerView::new();
    view.sync(&text, &Annotations::default(), 0, 0, 40, &theme);
    let mut fresh = AnswerView::new();
    fresh.sync(&text, &Annotations::default(), 0, 0, 40, &theme);
    let expected = all_rows(&fresh);
    // Following the bottom: only the last blocks keep their rows.
    view.show(&text, view.height() - 30, 30, &theme);
    assert!(
        view.kept_blocks() <= 40,
        "{} blocks kept",
        view.kept_blocks()
    );
    // Scrolling back through everything shows every row exactly, a window at a time.
    assert_eq!(rows_through_windows(&mut view, &text, 30), expected);
    assert!(
        view.kept_blocks() <= 60,
        "{} blocks kept",
        view.kept_blocks()
    );
    // A jump to a span far up lands on its row.
    let pos = text.find("Paragraph 123 ").unwrap();
    let row = view.locate(&text, pos, &theme).unwrap();
    assert_eq!(
        view.rows(row, 1).next().unwrap().text(),
        "Paragraph 123 with some words to wrap at"
    );
}

#[test]
fn an_answer_without_blank_lines_is_cut_into_blocks_the_same_however_it_arrives() {
    let theme = theme();
    let mut text = String::from("```\n");
    for i in 0..3000 {
        text.push_str(&format!("let line_{i} = {i};\n"));
    }
    text.push_str("```\n");
    // One endless line, then one long paragraph of short lines.
    for i in 0..12000 {
        text.push_str(&format!("word{i} "));
    }
    text.push('\n');
    for i in 0..4000 {
        text.push_str(&format!("line {i} of one paragraph\n"));
    }
    let mut whole = AnswerView::new();
    whole.sync(&text, &Annotations::default(), 0, 0, 60, &theme);
    assert!(
        whole.cached_blocks() >= 6,
        "{} blocks",
        whole.cached_blocks()
    );
    let mut streamed = AnswerView::new();
    let mut end = 0;
    while end < text.len() {
        end = (end + 997).min(text.len());
        streamed.sync(&text[..end], &Annotations::default(), 0, 0, 60, &theme);
    }
    let rows = all_rows(&whole);
    assert_eq!(all_rows(&streamed), rows);
    // Code cut in the middle is still shown as code, and nothing is lost at the cuts.
    assert!(
        rows.contains(&"  let line_2999 = 2999;".to_owned()),
        "code continues"
    );
    let words: usize = rows.iter().map(|r| r.matches("word").count()).sum();
    assert_eq!(words, 12000);
    assert!(
        rows.iter()
            .any(|r| r.contains("line 3999 of one paragraph"))
    );
}

/// `text` as it streams in: longer by about `step` bytes each time (to a character boundary).
fn prefixes(text: &str, step: usize) -> impl Iterator<Item = &str> {
    let mut end = 0;
    std::iter::from_fn(move || {
        if end >= text.len() {
            return None;
        }
        end = text.ceil_char_boundary((end + step).min(text.len()));
        Some(&text[..end])
    })
}

/// Rows `top..top + height` of `view` once shown there.
fn window(view: &mut AnswerView, text: &str, top: usize, height: usize) -> Vec<String> {
    view.show(text, top, height, &theme());
    view.rows(top, height).map(RLine::text).collect()
}

#[test]
fn a_long_answer_followed_at_the_bottom_measures_only_the_blocks_near_it() {
    let theme = theme();
    let ann = Annotations::default();
    let mut text = String::new();
    let mut view = AnswerView::new();
    view.follow_bottom(Some(31));
    let mut full = AnswerView::new();
    for i in 0..2000 {
        text.push_str(&format!(
            "Paragraph {i} with **some** words to wrap at forty columns.\n\n"
        ));
        if i % 100 == 99 {
            view.sync(&text, &ann, 0, 0, 40, &theme);
            full.sync(&text, &ann, 0, 0, 40, &theme);
            let (top, full_top) = (view.height() - 30, full.height() - 30);
            assert_eq!(
                window(&mut view, &text, top, 30),
                window(&mut full, &text, full_top, 30)
            );
        }
    }
    assert!(
        view.renders < full.renders / 3,
        "{} blocks laid out, {} when measuring all",
        view.renders,
        full.renders
    );
    // Leaving the bottom: every block is measured, the rows are those of a view that measured all.
    let short = view.height();
    assert_eq!(
        short + view.measure_deferred(&text, 0, &theme),
        full.height()
    );
    assert_eq!(view.measure_deferred(&text, 0, &theme), 0, "measured once");
    view.follow_bottom(None);
    assert_eq!(
        rows_through_windows(&mut view, &text, 30),
        rows_through_windows(&mut full, &text, 30)
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

    /// Followed at the bottom as it streams in, blocks far above the window are left unmeasured:
    /// the window at the bottom shows the rows a view that measures every block shows there (and
    /// more rows than fit, so the scroll hint is the same), and once they are measured (the view
    /// leaves the bottom) every row and the height are the same.
    #[test]
    fn blocks_left_unmeasured_while_following_the_bottom_change_no_row_shown(
        picks in proptest::collection::vec(0usize..FRAGMENTS.len(), 0..160),
        width in 1usize..60,
        step in 1usize..400,
        height in 1usize..12,
    ) {
        let theme = theme();
        let ann = Annotations::default();
        let text = answer_of(&picks).repeat(3);
        let mut built = AnswerView::new();
        built.sync(&text, &ann, 0, 0, width, &theme);
        let mut full = AnswerView::new();
        let mut view = AnswerView::new();
        view.follow_bottom(Some(height + 1));
        for now in prefixes(&text, step) {
            full.sync(now, &ann, 0, 0, width, &theme);
            view.sync(now, &ann, 0, 0, width, &theme);
            let (all, counted) = (full.height(), view.height());
            proptest::prop_assert!(counted <= all);
            proptest::prop_assert!(counted == all || counted > height);
            let shown = window(&mut view, now, counted.saturating_sub(height), height);
            let expected = window(&mut full, now, all.saturating_sub(height), height);
            proptest::prop_assert_eq!(shown, expected);
        }
        let counted = view.height();
        proptest::prop_assert_eq!(counted + view.measure_deferred(&text, 0, &theme), built.height());
        view.follow_bottom(None);
        proptest::prop_assert_eq!(rows_through_windows(&mut view, &text, height), all_rows(&built));
    }

    /// An answer streaming in below the window shown has its blocks out of view only measured;
    /// read back a window at a time, every row is the one a view that built every row shows.
    #[test]
    fn blocks_measured_out_of_view_show_the_same_rows_when_scrolled_to(
        picks in proptest::collection::vec(0usize..FRAGMENTS.len(), 0..160),
        width in 1usize..60,
        step in 1usize..400,
        height in 1usize..12,
    ) {
        let theme = theme();
        let ann = Annotations::default();
        let text = answer_of(&picks).repeat(3);
        let mut built = AnswerView::new();
        built.sync(&text, &ann, 0, 0, width, &theme);
        let expected = all_rows(&built);
        // Scrolled to the top while the rest streams in below.
        let mut view = AnswerView::new();
        for now in prefixes(&text, step) {
            view.sync(now, &ann, 0, 0, width, &theme);
            view.show(now, 0, height, &theme);
        }
        proptest::prop_assert_eq!(view.height(), built.height());
        proptest::prop_assert_eq!(rows_through_windows(&mut view, &text, height), expected);
    }
}
