//! `ask --format text`: the answer printed as it streams, with our `[n]` after each cited span (in
//! place of a provider's own markers), then the sources; rendered Markdown on a terminal. To a pipe
//! or a file it keeps no copy of the answer.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{IsTerminal, Write};

use crate::model::citations::Attribution;
use crate::model::pending::{Change, LiveResolver};
use crate::model::session::{AnswerBuffer, Session};
use crate::render::sanitize::sanitize;
use crate::styled::text::wrap::pack_items;

/// `--format text`: rendered Markdown on a terminal, plain text to a pipe or a file.
pub(super) enum TextPrinter {
    Plain(Box<AnswerPrinter>),
    Terminal(Box<crate::cmd::ask_terminal::TerminalAnswer>),
}

impl TextPrinter {
    pub(super) fn for_stdout() -> TextPrinter {
        if std::io::stdout().is_terminal() {
            TextPrinter::Terminal(Box::default())
        } else {
            TextPrinter::Plain(Box::new(AnswerPrinter::new()))
        }
    }

    /// The printer needs only the chunks it is given: the session need not keep the answer.
    pub(super) fn streams_without_keeping(&self) -> bool {
        matches!(self, TextPrinter::Plain(_))
    }

    /// Print what `session` just took in (`chunks`, its new answer text).
    pub(super) fn print(&mut self, session: &Session, chunks: &[String]) {
        match self {
            TextPrinter::Plain(printer) => printer.print(session, chunks),
            TextPrinter::Terminal(printer) => printer.print_new(session),
        }
    }

    pub(super) fn finish(&mut self, session: &mut Session) {
        match self {
            TextPrinter::Plain(printer) => printer.finish(session),
            TextPrinter::Terminal(printer) => printer.finish(session),
        }
    }

    /// `line` (`timing: a · b · c`) as printed: on a terminal, broken between its ` · ` items to
    /// the answer's width, so the terminal never splits one (`total` / `7.7 s`); else as it is.
    pub(super) fn fit_items(&self, line: &str) -> String {
        match self {
            TextPrinter::Plain(_) => line.to_owned(),
            TextPrinter::Terminal(printer) => fit_items(line, printer.width()),
        }
    }
}

/// `line`'s ` · `-separated items on lines of at most `width` columns (an item wider stays
/// whole), the lines after the first indented under the first item.
fn fit_items(line: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    let indent = line.find(": ").map_or(0, |at| line[..at + 2].width());
    let indent = " ".repeat(indent.min(width / 2));
    pack_items(line, width, &indent).join(" ·\n")
}

/// How much recently printed text is kept to quote tool-level citations whose reference arrives
/// after their text.
const RECENT_TEXT: usize = 256 * 1024;

/// Prints the answer's new text as it grows, with `[n]` after each cited span whose reference is
/// known by the time the text passes its end (GROUNDING usually precedes the text it cites). It
/// works in code points and keeps no copy of the answer: only the last [`RECENT_TEXT`] bytes, to
/// quote tool-level citations in the trailer.
pub(super) struct AnswerPrinter {
    /// Code points of the answer printed.
    printed: usize,
    /// The answer is resent whole (it may be rewritten): print it once, at the end.
    deferred: bool,
    /// Citations, resolved as the answer arrives.
    resolver: LiveResolver,
    attribution: Attribution,
    /// `(code point, source number)` markers to print when the text reaches them.
    markers: BTreeSet<(usize, usize)>,
    /// Markers printed.
    shown: HashSet<(usize, usize)>,
    /// `(start, end)` code points of provider-written markers not printed yet (Perplexity's `[4]`):
    /// left out, our `[n]` at their end stands in for each.
    hidden: BTreeSet<(usize, usize)>,
    /// The last text printed, from code point `recent_start`.
    recent: String,
    recent_start: usize,
    /// The printed text ends with a line break.
    ends_with_newline: bool,
    /// Quotes of tool-level citations by `(start, end)` code points.
    quotes: HashMap<(usize, usize), String>,
}

impl AnswerPrinter {
    pub(super) fn new() -> Self {
        Self {
            printed: 0,
            deferred: false,
            resolver: LiveResolver::new(),
            attribution: Attribution::default(),
            markers: BTreeSet::new(),
            shown: HashSet::new(),
            hidden: BTreeSet::new(),
            recent: String::new(),
            recent_start: 0,
            ends_with_newline: false,
            quotes: HashMap::new(),
        }
    }

    /// Print `chunks`, the text `session` just took in (see [`AnswerPrinter::next_text`]).
    pub(super) fn print(&mut self, session: &Session, chunks: &[String]) {
        let text = self.next_text(session, chunks);
        if !text.is_empty() {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(sanitize(&text).as_bytes());
            let _ = out.flush();
        }
    }

    /// The text to print for `chunks`, the text `session` just took in, with the markers due in
    /// or right before them.
    fn next_text(&mut self, session: &Session, chunks: &[String]) -> String {
        self.deferred |= session.answer.is_resent();
        if self.deferred {
            return String::new();
        }
        let change = self.resolver.update(&mut self.attribution, session, false);
        let fresh: Vec<usize> = match change {
            Change::Unchanged => Vec::new(),
            Change::Grew { added, .. } => added,
            Change::Rebuilt => (0..self.attribution.citations.len()).collect(),
        };
        for &i in &fresh {
            let citation = &self.attribution.citations[i];
            let Some(n) = citation.source else { continue };
            if citation.marker {
                // A marker the provider wrote: ours replaces it when none of it is printed yet;
                // one already printed (xAI's links, annotated after the text) stays as it is.
                if citation.start >= self.printed && citation.start < citation.end {
                    self.hidden.insert((citation.start, citation.end));
                    self.markers.insert((citation.end, n));
                }
            } else if citation.end >= self.printed {
                self.markers.insert((citation.end, n));
            }
        }
        let mut text = String::new();
        for chunk in chunks {
            self.push_chunk(chunk, &mut text);
        }
        // Markers due where the text stands now (their reference came after the text).
        self.push_markers_until(self.printed, &mut text);
        for &i in &fresh {
            self.quote(i);
        }
        text
    }

    /// Add `chunk` and the markers within it to `text`, leaving out the provider markers ours
    /// replace.
    fn push_chunk(&mut self, chunk: &str, text: &mut String) {
        let end = self.printed + chunk.chars().count();
        let mut at = ChunkCursor {
            chunk,
            byte: 0,
            cp: self.printed,
        };
        loop {
            let marker = self.markers.first().copied().filter(|&(pos, _)| pos <= end);
            let hidden = self
                .hidden
                .first()
                .copied()
                .filter(|&(start, _)| start < end);
            match (marker, hidden) {
                // A marker first when both are due at one place: it ends the span before.
                (Some((pos, n)), h) if h.is_none_or(|(start, _)| pos <= start) => {
                    text.push_str(at.take_until(pos));
                    self.markers.pop_first();
                    if self.shown.insert((pos, n)) {
                        text.push_str(&format!("[{n}]"));
                    }
                }
                (_, Some((start, stop))) => {
                    text.push_str(at.take_until(start));
                    at.take_until(stop);
                    self.hidden.pop_first();
                    if stop > end {
                        // The rest of the marker comes with the next chunk.
                        self.hidden.insert((end, stop));
                    }
                }
                _ => break,
            }
        }
        text.push_str(&chunk[at.byte..]);
        self.printed = end;
        self.remember(chunk);
    }

    /// Add the markers due at or before code point `until`.
    fn push_markers_until(&mut self, until: usize, text: &mut String) {
        while let Some(&(pos, n)) = self.markers.first()
            && pos <= until
        {
            self.markers.pop_first();
            if self.shown.insert((pos, n)) {
                text.push_str(&format!("[{n}]"));
            }
        }
    }

    /// Keep the end of the printed text for quotes.
    fn remember(&mut self, chunk: &str) {
        self.ends_with_newline =
            chunk.ends_with('\n') || (chunk.is_empty() && self.ends_with_newline);
        self.recent.push_str(chunk);
        if self.recent.len() > 2 * RECENT_TEXT {
            let cut = self
                .recent
                .ceil_char_boundary(self.recent.len() - RECENT_TEXT);
            self.recent_start += self.recent[..cut].chars().count();
            self.recent.drain(..cut);
        }
    }

    /// Quote citation `i` when it is tool-level and its text is still at hand ("…" for the part
    /// that is not).
    fn quote(&mut self, i: usize) {
        let citation = &self.attribution.citations[i];
        let span = (citation.start, citation.end);
        if citation.source.is_some() || self.quotes.contains_key(&span) {
            return;
        }
        let skip = span.0.saturating_sub(self.recent_start);
        let take = span.1.saturating_sub(self.recent_start.max(span.0));
        let mut quote: String = self.recent.chars().skip(skip).take(take).collect();
        if span.0 < self.recent_start {
            quote.insert(0, '…');
        }
        self.quotes.insert(span, quote);
    }

    /// After the stream: the markers due at the end, then the sources (or the whole answer, when it
    /// was resent).
    pub(super) fn finish(&mut self, session: &mut Session) {
        self.deferred |= session.answer.is_resent();
        if self.deferred {
            let text = crate::render::text::render(session, &Attribution::resolve(session, true));
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            return;
        }
        self.print(session, &[]);
        let mut attribution = Attribution::resolve(session, true);
        // The trailer quotes tool-level citations from an answer holding just their quotes.
        let mut quotes = AnswerBuffer::default();
        for citation in attribution
            .citations
            .iter_mut()
            .filter(|c| c.source.is_none())
        {
            let quote = self
                .quotes
                .get(&(citation.start, citation.end))
                .map_or("…", String::as_str);
            let start = quotes.len();
            quotes.push(quote);
            citation.bytes = start..quotes.len();
        }
        session.answer = quotes;
        let mut out = std::io::stdout().lock();
        if self.printed > 0 && !self.ends_with_newline {
            let _ = writeln!(out);
        }
        let _ = out.write_all(crate::render::text::trailer(session, &attribution).as_bytes());
        let _ = out.flush();
    }
}

/// Walks a chunk that starts at some code point of the answer.
struct ChunkCursor<'a> {
    chunk: &'a str,
    /// Byte of the chunk reached, which is code point `cp` of the answer.
    byte: usize,
    cp: usize,
}

impl<'a> ChunkCursor<'a> {
    /// The text from where the cursor stands to code point `pos` of the answer (at most the rest
    /// of the chunk); the cursor moves there.
    fn take_until(&mut self, pos: usize) -> &'a str {
        let rest = &self.chunk[self.byte..];
        let wanted = pos.saturating_sub(self.cp);
        let len = match rest.char_indices().nth(wanted) {
            Some((len, _)) => {
                self.cp += wanted;
                len
            }
            None => {
                self.cp += rest.chars().count();
                rest.len()
            }
        };
        self.byte += len;
        &rest[..len]
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_timing_line_breaks_between_its_items_under_the_first() {
        let line = "timing: first byte 0.1 s · first answer text 5.5 s · answer 1600 chars/s · \
                    total 7.7 s";
        assert_eq!(
            super::fit_items(line, 80),
            "timing: first byte 0.1 s · first answer text 5.5 s · answer 1600 chars/s ·\n        \
             total 7.7 s"
        );
        assert_eq!(super::fit_items(line, 100), line);
    }

    use super::*;
    use crate::model::event::{AgentEvent, Reference};

    fn tool_reference(start: usize, end: usize) -> Reference {
        Reference {
            start: Some(start as u64),
            end: Some(end as u64),
            tool_name: Some("calculator".into()),
            ..Reference::default()
        }
    }

    #[test]
    fn tool_level_quotes_come_from_recent_text_and_say_when_theirs_is_gone() {
        let mut session = Session::new();
        session.answer.stop_keeping_text();
        let mut printer = AnswerPrinter::new();
        let chunk = "x".repeat(1024);
        for _ in 0..600 {
            session.apply(AgentEvent::AnswerDelta {
                message_id: None,
                text: chunk.clone(),
            });
            printer.print(&session, std::slice::from_ref(&chunk));
        }
        assert_eq!(session.answer.as_str(), "", "the answer is not kept");
        let len = session.answer.char_len();
        session.apply(AgentEvent::Grounding(vec![
            tool_reference(0, 10),
            tool_reference(len - 10, len),
        ]));
        printer.print(&session, &[]);
        assert_eq!(printer.quotes[&(0, 10)], "…");
        assert_eq!(printer.quotes[&(len - 10, len)], "x".repeat(10));
        assert!(printer.recent.len() <= 2 * RECENT_TEXT);
    }

    fn marker_reference(start: u64, end: u64, url: &str) -> Reference {
        Reference {
            start: Some(start),
            end: Some(end),
            marker: true,
            source: Some(crate::model::event::SourceDoc {
                url: Some(url.into()),
                ..Default::default()
            }),
            ..Reference::default()
        }
    }

    #[test]
    fn a_provider_marker_split_across_chunks_of_one_update_prints_as_our_number_only() {
        // Perplexity writes `[2]` into the text for its second search result, the first one cited
        // here: it prints as our `[1]`. (Its dialect holds a split marker back until it is whole,
        // so both halves arrive in one update, with the reference.)
        let mut session = Session::new();
        session.answer.stop_keeping_text();
        let mut printer = AnswerPrinter::new();
        let first = "Revenue grew ".to_owned();
        session.apply(AgentEvent::AnswerDelta {
            message_id: None,
            text: first.clone(),
        });
        let mut printed = printer.next_text(&session, &[first]);
        let rest = ["[".to_owned(), "2] in Q3 [3].".to_owned()];
        for chunk in &rest {
            session.apply(AgentEvent::AnswerDelta {
                message_id: None,
                text: chunk.clone(),
            });
        }
        session.apply(AgentEvent::Grounding(vec![
            marker_reference(13, 16, "https://a.example/q3"),
            marker_reference(23, 26, "https://b.example"),
        ]));
        printed += &printer.next_text(&session, &rest);
        assert_eq!(printed, "Revenue grew [1] in Q3 [2].");
    }

    #[test]
    fn a_provider_marker_already_printed_stays_as_it_was_sent() {
        // xAI annotates its `[[1]](url)` links after the text went out: nothing is added.
        let mut session = Session::new();
        session.answer.stop_keeping_text();
        let mut printer = AnswerPrinter::new();
        let chunk = "Up 5% [[1]](https://x.example).".to_owned();
        session.apply(AgentEvent::AnswerDelta {
            message_id: None,
            text: chunk.clone(),
        });
        let mut printed = printer.next_text(&session, std::slice::from_ref(&chunk));
        session.apply(AgentEvent::Grounding(vec![marker_reference(
            6,
            30,
            "https://x.example",
        )]));
        printed += &printer.next_text(&session, &[]);
        assert_eq!(printed, chunk);
    }
}
