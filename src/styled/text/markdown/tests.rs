//! The Markdown renderer: inline text without its markup, citation markers at the exact byte,
//! provider-written markers replaced, control characters never in a row.

use super::*;
use crate::styled::text::test_support::{plain, theme};

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
