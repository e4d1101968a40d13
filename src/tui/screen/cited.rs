//! What a source and its citations say, for people — shared by the Sources pane and a source's
//! detail popup: its label cleaned for the terminal, the text a citation supports (the sentence
//! before a provider-written marker), and the charts a tool-level citation drew.

use crate::model::citations::{Attribution, Citation, Source};
use crate::styled::text::clean;
use crate::tui::state::Turn;

/// How a source is named on screen: its label, cleaned for the terminal.
pub fn source_label(source: &Source) -> String {
    clean(&source.label)
}

/// What a citation supports, for people: its span, or — when the span is the provider's own marker
/// (xAI's inline link, a Zeta Alpha anchor) — the sentence before the marker, other markers left out.
pub fn cited_text(a: &Attribution, c: &Citation, answer: &str) -> String {
    if !c.marker {
        return c.text(answer).to_owned();
    }
    let sentence = sentence_before_marker(a, c, answer)
        .replace("**", "")
        .replace("__", "")
        .replace('`', "");
    let text = without_markdown_lead(sentence.trim());
    if text.is_empty() {
        c.text(answer).to_owned()
    } else {
        text.to_owned()
    }
}

/// The sentence a provider-written marker ends: back to the previous sentence end or marker.
fn sentence_before_marker<'a>(a: &Attribution, c: &Citation, answer: &'a str) -> &'a str {
    let end = c.bytes.start.min(answer.len());
    // Markers right before this one (`[1][2]`) belong to the same sentence: step over them.
    let mut cut = end;
    loop {
        let before = a
            .citations
            .iter()
            .filter(|o| o.marker && o.bytes.end == cut && o.bytes.start < cut)
            .map(|o| o.bytes.start)
            .min();
        match before {
            Some(start) => cut = start,
            None => break,
        }
    }
    let previous_marker = a
        .citations
        .iter()
        .filter(|o| o.marker && o.bytes.end <= cut)
        .map(|o| o.bytes.end)
        .max()
        .unwrap_or(0);
    let head = answer[..cut].trim_end();
    let ends_sentence = |i: usize, ch: char| {
        if ch == '\n' {
            return true;
        }
        if !matches!(ch, '.' | '!' | '?') {
            return false;
        }
        let rest = head[i + 1..].trim_start_matches(['*', '_']);
        rest.starts_with(char::is_whitespace)
    };
    let start = head
        .char_indices()
        .rev()
        .skip(1)
        .take_while(|&(i, _)| i >= previous_marker)
        .find(|&(i, ch)| ends_sentence(i, ch))
        .map_or(previous_marker, |(i, ch)| i + ch.len_utf8())
        .max(previous_marker)
        .min(head.len());
    &head[start..]
}

/// `text` without the list bullets or heading marks it starts with: Markdown, not what was said.
fn without_markdown_lead(mut text: &str) -> &str {
    loop {
        let stripped = text
            .strip_prefix("- ")
            .or_else(|| text.strip_prefix("* "))
            .or_else(|| text.strip_prefix("+ "))
            .or_else(|| text.strip_prefix('#'))
            .or_else(|| {
                let digits =
                    text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                (digits > 0)
                    .then(|| text[digits..].strip_prefix(". "))
                    .flatten()
            });
        match stripped {
            Some(rest) => text = rest.trim_start(),
            None => return text,
        }
    }
}

/// The charts a tool-level citation produced: those over the same span of the answer.
pub fn charts_of<'a>(
    turn: &'a Turn,
    citation: &'a Citation,
) -> impl Iterator<Item = &'a crate::model::event::Chart> {
    let span = (citation.start as u64, citation.end as u64);
    turn.session
        .charts
        .iter()
        .filter(move |chart| (chart.start, chart.end) == (Some(span.0), Some(span.1)))
}
