//! The Markdown renderer: inline text without its markup, citation markers at the exact byte,
//! provider-written markers replaced, control characters never in a row.

use super::*;
use crate::styled::text::test_support::{FRAGMENTS, answer_of, plain, theme};

#[test]
fn inline_text_drops_the_markup_and_keeps_the_words() {
    assert_eq!(
        inline_text("Revenue was **$73.2B**, up `66%` (see [the release](https://x.y))"),
        "Revenue was $73.2B, up 66% (see the release)"
    );
    assert_eq!(inline_text("- a list\nitem"), "a list item");
}

#[test]
fn markers_follow_the_cited_text_even_after_bold_markup() {
    let text = "Revenue was **$73.2B** and more.";
    let end_of_bold = text.find(" and").unwrap();
    let markers = vec![(end_of_bold, vec![1]), (text.len(), vec![2, 3])];
    let lines = render_block(text, 0, &markers, &[], 80, &theme());
    assert_eq!(plain(&lines), ["Revenue was $73.2B[1] and more.[2,3]"]);
}

#[test]
fn markers_inside_text_split_it_at_the_exact_byte() {
    let text = "NVIDIA grew fast, margins held.";
    let at = text.find(',').unwrap();
    let lines = render_block(text, 100, &[(100 + at, vec![4])], &[], 80, &theme());
    assert_eq!(plain(&lines), ["NVIDIA grew fast[4], margins held."]);
}

#[test]
fn provider_written_markers_are_left_out_and_replaced_by_ours() {
    // xAI writes `[[1]](url)` links, Zeta Alpha `<sup>1</sup>` anchors.
    let text = "Revenue rose[[1]](https://x.com/a) and margins held<sup>2</sup>.";
    let link = text.find("[[").unwrap()..text.find(" and").unwrap();
    let sup = text.find("<sup>").unwrap()..text.rfind('.').unwrap();
    let markers = vec![(link.end, vec![1]), (sup.end, vec![2])];
    let lines = render_block(text, 0, &markers, &[link, sup], 80, &theme());
    assert_eq!(plain(&lines), ["Revenue rose[1] and margins held[2]."]);
}

#[test]
fn control_characters_never_reach_rows() {
    let text = "evil \u{1b}]8;;http://x\u{7}link and \u{202e}bidi\ttab";
    let lines = render_block(text, 0, &[], &[], 80, &theme());
    let all: String = lines.iter().map(RLine::text).collect();
    assert!(!all.chars().any(|c| c.is_control()));
    assert!(all.contains('\u{FFFD}'));
}

/// The character boundary at or before `per_mille` of `text`.
fn boundary(text: &str, per_mille: usize) -> usize {
    text.floor_char_boundary(text.len() * per_mille.min(1000) / 1000)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// A block out of view is only measured: the count is the number of rows the block would
    /// show, for any Markdown, width, citation markers and hidden provider markers.
    #[test]
    fn the_height_of_a_block_is_the_number_of_its_rows(
        picks in proptest::collection::vec(0usize..FRAGMENTS.len(), 0..48),
        width in 1usize..100,
        base in 0usize..5000,
        marks in proptest::collection::vec((0usize..=1000, proptest::collection::vec(1usize..40, 1..3)), 0..6),
        hides in proptest::collection::vec((0usize..=1000, 0usize..=1000), 0..3),
    ) {
        let text = answer_of(&picks);
        let mut markers: Vec<(usize, Vec<usize>)> = marks
            .into_iter()
            .map(|(at, ns)| (base + boundary(&text, at), ns))
            .collect();
        markers.sort_by_key(|(p, _)| *p);
        let hidden = crate::styled::text::merge_ranges(
            hides
                .into_iter()
                .map(|(a, b)| base + boundary(&text, a.min(b))..base + boundary(&text, a.max(b)))
                .collect(),
        );
        let theme = theme();
        let rows = render_block(&text, base, &markers, &hidden, width, &theme);
        proptest::prop_assert_eq!(
            block_height(&text, base, &markers, &hidden, width, &theme),
            rows.len(),
            "{:?} at width {}",
            text,
            width
        );
    }
}

/// Pieces of one line of prose: words, wide characters, emoji (a ZWJ family, a variation
/// selector), combining marks, words longer than a row, the punctuation prose uses, and characters
/// that are Markdown or are cleaned (so both ways of measuring a block are taken).
const PROSE: [&str; 49] = [
    "revenue",
    " ",
    "  ",
    "東京",
    "ｗｉｄｅ",
    "📈",
    "👨‍👩‍👧",
    "❤️",
    "e\u{301}t\u{301}",
    "a\u{300}\u{300}\u{300}",
    "supercalifragilisticexpialidocious",
    "data-center",
    "€2.1bn,",
    "Müller",
    "rose.",
    "(Q3)",
    "50%",
    "$4",
    "a/b",
    "x=y+z",
    "#1",
    "@home",
    "'q'",
    "\"q\"",
    "{^}",
    ":;?",
    "1. ",
    "- ",
    "*",
    "_",
    "[1]",
    "&amp;",
    "<b>",
    "~",
    "|",
    "\\",
    "!",
    "`",
    "\u{a0}",
    "\u{3000}",
    "\u{200b}",
    "\u{202e}",
    "\u{feff}",
    "\u{85}",
    "\u{61c}",
    "\u{e0041}",
    "\t",
    "\r",
    "https://x.y",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]

    /// A line of plain prose is measured without parsing it ([`super::super::plain`]): the count is
    /// still the number of rows the block shows, for any words, widths and trailing newlines.
    #[test]
    fn a_line_of_prose_is_measured_as_tall_as_its_rows(
        picks in proptest::collection::vec(0usize..400, 1..40),
        newlines in 0usize..3,
        width in 1usize..60,
    ) {
        // Mostly prose (the first 26 pieces), one pick in twenty anything: most lines are plain.
        let piece = |p: usize| if p < 380 { PROSE[p % 26] } else { PROSE[p % PROSE.len()] };
        let mut text: String = picks.iter().map(|&p| piece(p)).collect();
        text.push_str(&"\n".repeat(newlines));
        let theme = theme();
        let rows = render_block(&text, 0, &[], &[], width, &theme);
        proptest::prop_assert_eq!(
            block_height(&text, 0, &[], &[], width, &theme),
            rows.len(),
            "{:?} at width {}",
            text,
            width
        );
    }
}

#[test]
fn lines_of_prose_are_measured_without_parsing_and_markup_is_not() {
    use super::super::plain::plain_line;
    // The answer flood's paragraphs (benches/support/streams.rs) take the quick count.
    for line in [
        "margin guidance demand supply growth data-center, margin rose.\n\n",
        "€2.1bn 東京 Müller revenue 📈 capex €2.1bn, 東京 Müller revenue rose.\n\n",
        "Revenue was $39.1 billion (up 73%) in Q3: a record.",
    ] {
        assert!(plain_line(line).is_some(), "{line:?}");
    }
    for block in [
        "## Section 0\n\n",
        "- item",
        "1. item",
        "a *b*",
        "a [1](x)",
        "a\nb",
        "a  ",
        " a",
        "a &amp; b",
        "a\u{200b}b",
        "a\u{202e}b",
        "a\u{feff}b",
        "a\u{85}b",
        "a\u{e0041}b",
        "a\tb",
        "| a |",
        "> a",
        "\u{a0}a",
    ] {
        assert!(plain_line(block).is_none(), "{block:?}");
    }
}
