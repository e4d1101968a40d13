use std::borrow::Cow;

use proptest::prelude::*;

use super::*;

/// A listed row as `sessions` wrote it before rows were written straight into bytes: the
/// formatter's padding (in characters) is the reference the fast writer must equal.
fn row_by_format(out: &mut impl Write, meta: &Row) {
    let date = meta
        .updated_at
        .get(..16)
        .unwrap_or(&meta.updated_at)
        .replace('T', " ");
    let question = sanitize_line(&meta.question);
    let question: String = if question.chars().count() > 60 {
        question.chars().take(59).chain(['…']).collect()
    } else {
        question.into_owned()
    };
    let question = match &meta.comparison {
        Some(id) => format!("{question}  [comparison {}]", sanitize_line(id)),
        None => question,
    };
    let _ = writeln!(
        out,
        "{:<28} {:<17} {:<10} {:>5}  {:<13} {:<26} {}",
        sanitize_line(meta.id),
        sanitize_line(&date),
        sanitize_line(provider_name(&meta.provider)),
        meta.turns,
        sanitize_line(&meta.status),
        sanitize_line(meta.checkpoint.as_deref().unwrap_or("-")),
        question
    );
}

/// Text of every kind a field may hold: plain ASCII with `T`s and dates, controls, escapes,
/// wide and combining characters, emoji, invisible ones.
fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[ -~]{0,12}",
        Just("2026-02-06T17:56:00Z".to_string()),
        Just("T".to_string()),
        Just("—".to_string()),
        Just("\t\n\r\u{1b}[31m\u{7}".to_string()),
        Just("株式会社".to_string()),
        Just("e\u{301}".to_string()),
        Just("👩‍🔬".to_string()),
        Just("\u{200b}\u{202e}\u{feff}".to_string()),
        Just("\u{85}\u{9b}".to_string()),
        Just("x".repeat(70)),
    ];
    proptest::collection::vec(piece, 0..8).prop_map(|p| p.concat())
}

fn rows() -> impl Strategy<Value = (Vec<String>, usize, bool, bool)> {
    (
        proptest::collection::vec(text(), 7),
        prop_oneof![0usize..10, 0usize..1_000_000, Just(usize::MAX)],
        any::<bool>(),
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn a_row_written_straight_into_bytes_is_the_formatted_row(
        (texts, turns, checkpoint, comparison) in rows()
    ) {
        let row = Row {
            id: &texts[0],
            updated_at: Cow::Borrowed(&texts[1]),
            provider: Cow::Borrowed(&texts[2]),
            turns,
            status: Cow::Borrowed(&texts[3]),
            checkpoint: checkpoint.then(|| Cow::Borrowed(texts[4].as_str())),
            question: Cow::Borrowed(&texts[5]),
            json: None,
            comparison: comparison.then(|| Cow::Borrowed(texts[6].as_str())),
            noted: None,
        };
        let mut fast = Vec::new();
        row_into(&mut fast, &row);
        let mut formatted = Vec::new();
        row_by_format(&mut formatted, &row);
        prop_assert_eq!(String::from_utf8_lossy(&fast), String::from_utf8_lossy(&formatted));
        prop_assert_eq!(fast, formatted);
    }
}

#[test]
fn an_empty_provider_and_short_or_odd_times_are_written_as_formatted() {
    for time in [
        "",
        "2026",
        "2026-02-06T17:56",
        "2026-02-06T17:5é",
        "ééééééééééééééééé",
    ] {
        let row = Row {
            id: "20260101-000000-0001",
            updated_at: Cow::Borrowed(time),
            provider: Cow::Borrowed(""),
            turns: 123456,
            status: Cow::Borrowed("complete"),
            checkpoint: None,
            question: Cow::Borrowed(""),
            json: None,
            comparison: None,
            noted: None,
        };
        let (mut fast, mut formatted) = (Vec::new(), Vec::new());
        row_into(&mut fast, &row);
        row_by_format(&mut formatted, &row);
        assert_eq!(
            String::from_utf8(fast).unwrap(),
            String::from_utf8(formatted).unwrap()
        );
    }
}

#[test]
fn a_snippet_shows_text_that_fits_whole_and_keeps_the_match_in_a_full_window() {
    let question = "How does that compare with AMD?";
    assert_eq!(snippet(question, 27, 100), question);
    let long: String = (0..300)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    // Near the end: the window ends with the text, full width, `…` before it only.
    let end = snippet(&long, 290, 100);
    assert_eq!(end.chars().count(), 101);
    assert!(end.starts_with('…') && end.ends_with(&long[200..]));
    // In the middle: a quarter of the width before the match, `…` on both sides.
    assert_eq!(snippet(&long, 150, 100), format!("…{}…", &long[125..225]));
    // At the start: no `…` before it.
    assert_eq!(snippet(&long, 3, 100), format!("{}…", &long[..100]));
}
