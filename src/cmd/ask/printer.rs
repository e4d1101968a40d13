//! `ask --format text`: the answer printed as it streams, with our `[n]` after each cited span
//! (in place of a provider's own markers), then the sources; rendered Markdown on a terminal.

use std::collections::HashSet;
use std::io::{IsTerminal, Write};

use crate::model::citations::Attribution;
use crate::model::session::Session;
use crate::render::sanitize::sanitize;

/// `answer[range]` without the provider marker `spans` in it (our `[n]` stands in for each).
fn push_visible(
    text: &mut String,
    answer: &str,
    range: std::ops::Range<usize>,
    spans: &[std::ops::Range<usize>],
) {
    let mut from = range.start;
    for span in spans
        .iter()
        .filter(|s| s.start >= range.start && s.end <= range.end)
    {
        if span.start < from {
            // Overlaps the one before: already left out.
            from = from.max(span.end);
            continue;
        }
        text.push_str(&answer[from..span.start]);
        from = span.end;
    }
    text.push_str(&answer[from..range.end]);
}

/// `--format text`: rendered Markdown on a terminal, plain text to a pipe or a file.
pub(super) enum TextPrinter {
    Plain(AnswerPrinter),
    Terminal(Box<crate::cmd::ask_terminal::TerminalAnswer>),
}

impl TextPrinter {
    pub(super) fn for_stdout() -> TextPrinter {
        if std::io::stdout().is_terminal() {
            TextPrinter::Terminal(Box::default())
        } else {
            TextPrinter::Plain(AnswerPrinter::new())
        }
    }

    pub(super) fn print_new(&mut self, session: &Session) {
        match self {
            TextPrinter::Plain(printer) => printer.print_new(session),
            TextPrinter::Terminal(printer) => printer.print_new(session),
        }
    }

    pub(super) fn finish(&mut self, session: &Session) {
        match self {
            TextPrinter::Plain(printer) => printer.finish(session),
            TextPrinter::Terminal(printer) => printer.finish(session),
        }
    }
}

/// Prints the answer's new text as it grows, with `[n]` after each cited span whose reference is
/// known by the time the text passes its end (GROUNDING usually precedes the text it cites).
pub(super) struct AnswerPrinter {
    /// Bytes of the answer already printed.
    printed: usize,
    /// `(byte position, source number)` markers already printed.
    shown: HashSet<(usize, usize)>,
    /// The answer is resent whole (it may be rewritten): print it once, at the end.
    deferred: bool,
    /// Markers from the last resolution (all, and those added after cited text), the provider's
    /// own marker spans, and what it was based on.
    markers: Vec<(usize, Vec<usize>)>,
    added: Vec<(usize, Vec<usize>)>,
    spans: Vec<std::ops::Range<usize>>,
    resolved_for: Option<(usize, u64)>,
    pending: usize,
}

impl AnswerPrinter {
    fn new() -> Self {
        Self {
            printed: 0,
            shown: HashSet::new(),
            deferred: false,
            markers: Vec::new(),
            added: Vec::new(),
            spans: Vec::new(),
            resolved_for: None,
            pending: 0,
        }
    }

    pub(super) fn print_new(&mut self, session: &Session) {
        self.deferred |= session.answer.is_resent();
        let answer = session.answer.as_str();
        let Some(new) = answer.get(self.printed..) else {
            // The answer was replaced under us: the rest is printed whole at the end.
            self.deferred = true;
            return;
        };
        if self.deferred || new.is_empty() {
            return;
        }
        let mut text = String::with_capacity(new.len() + 16);
        let mut from = self.printed;
        // Markers the provider wrote into the text print as our `[n]` when the reference came with
        // them (Perplexity's `[4]`); those already printed (xAI's inline links, annotated after
        // the text) stay as they are.
        self.refresh_markers(session);
        let printed = self.printed;
        let fresh =
            |span: &std::ops::Range<usize>| span.start >= printed && span.end <= answer.len();
        let spans: Vec<_> = self
            .spans
            .iter()
            .filter(|span| fresh(span))
            .cloned()
            .collect();
        for (pos, numbers) in &self.markers {
            if *pos < self.printed || *pos > answer.len() {
                continue;
            }
            let written = spans.iter().any(|span| span.end == *pos);
            let added = self.added.iter().any(|(p, _)| p == pos);
            if !written && !added {
                // A provider marker printed before its reference arrived.
                continue;
            }
            push_visible(&mut text, answer, from..*pos, &spans);
            from = *pos;
            for &n in numbers {
                if self.shown.insert((*pos, n)) {
                    text.push_str(&format!("[{n}]"));
                }
            }
        }
        push_visible(&mut text, answer, from..answer.len(), &spans);
        self.printed = answer.len();
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(sanitize(&text).as_bytes());
        let _ = out.flush();
    }

    /// Re-resolve only when the references changed or some are still waiting for their text.
    fn refresh_markers(&mut self, session: &Session) {
        let basis = (session.references.len(), session.grounding_revision);
        if self.resolved_for == Some(basis) && self.pending == 0 {
            return;
        }
        let attribution = Attribution::resolve(session, false);
        self.markers = attribution.markers();
        self.added = attribution.added_markers();
        // Each marker on its own (adjacent ones, `[1][4]`, are not merged): our `[n]` replaces each.
        self.spans = attribution
            .citations
            .iter()
            .filter(|c| c.marker && c.bytes.start < c.bytes.end)
            .map(|c| c.bytes.clone())
            .collect();
        self.spans.sort_unstable_by_key(|r| (r.start, r.end));
        self.spans.dedup();
        self.pending = attribution.pending_references;
        self.resolved_for = Some(basis);
    }

    /// After the stream: the rest of the answer (or all of it, when deferred), then the sources.
    pub(super) fn finish(&mut self, session: &Session) {
        self.deferred |= session.answer.is_resent();
        let mut out = std::io::stdout().lock();
        if self.deferred {
            let _ = out.write_all(
                crate::render::text::render(session, &Attribution::resolve(session, true))
                    .as_bytes(),
            );
        } else {
            self.print_new(session);
            if self.printed > 0 && !session.answer.as_str().ends_with('\n') {
                let _ = writeln!(out);
            }
            let attribution = Attribution::resolve(session, true);
            let _ = out.write_all(crate::render::text::trailer(session, &attribution).as_bytes());
        }
        let _ = out.flush();
    }
}
