//! Exact attribution: grounding references → numbered sources and validated citations.
//!
//! Offsets are code points into the whole answer. A reference is valid iff both offsets are integers
//! with `0 ≤ start ≤ end ≤ answer length` once the answer is complete; invalid ones are dropped,
//! counted, and play no part in numbering. A reference the provider gives without a position
//! ([`Reference::unplaced`]) numbers its source like a valid one but cites no text. Sources are
//! numbered by first appearance among valid and unplaced sourced references, keyed by `id` > `url` >
//! `action.url` > `hd` (never the audit id), a URL without its `utm_*` tracking parameters.
//!
//! [`Reference::unplaced`]: crate::model::event::Reference::unplaced

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use crate::model::event::SourceDoc;
use crate::model::session::Session;

/// A date shown in labels (`Apr 05, 2026`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Date(jiff::civil::Date);

impl Date {
    /// The first 10 characters of `ts` when they are a real calendar date `YYYY-MM-DD`.
    ///
    /// ```
    /// use research_tui_core::model::citations::Date;
    /// let date = Date::from_timestamp("2026-04-05T13:20:00Z").unwrap();
    /// assert_eq!(date.display(), "Apr 05, 2026");
    /// assert!(Date::from_timestamp("2026-02-29").is_none());
    /// ```
    pub fn from_timestamp(ts: &str) -> Option<Date> {
        let head = ts.get(..10)?;
        // Exactly `YYYY-MM-DD`: jiff's parser alone also takes other ISO 8601 shapes (a signed year,
        // `20260415T1`), which are not the dates these fields carry.
        let shaped = head.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        });
        let date: jiff::civil::Date = head.parse().ok().filter(|_| shaped)?;
        // Year 0000 parses as ISO 8601 but is no one's publication date.
        (date.year() >= 1).then_some(Date(date))
    }

    /// `2026-04-05`.
    pub fn iso(&self) -> String {
        self.0.to_string()
    }

    /// `Apr 05, 2026`.
    pub fn display(&self) -> String {
        self.0.strftime("%b %d, %Y").to_string()
    }
}

/// A numbered, deduplicated source.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub n: usize,
    pub key: String,
    pub kind: Option<String>,
    pub headline: Option<String>,
    pub publisher: String,
    pub date: Option<Date>,
    pub url: Option<String>,
    pub label: String,
    /// The document as first cited (chunks, extract text).
    pub doc: SourceDoc,
    /// Indices into [`Attribution::citations`] of the spans it supports.
    pub citations: Vec<usize>,
    /// The answer cites it without a position (an unplaced reference names it).
    pub cited_without_position: bool,
    /// Consulted but never cited.
    pub consulted_only: bool,
}

/// Who published `doc`, when, and the label that says both.
fn published(doc: &SourceDoc) -> (String, Option<Date>, String) {
    let publisher = doc
        .src_name
        .clone()
        .or_else(|| doc.action_name.clone())
        .unwrap_or_else(|| "Unknown source".to_owned());
    // `ts`, else `action.ts` (EXTERNAL results date their action); a present but malformed `ts`
    // means no date rather than a guess from elsewhere.
    let date = doc
        .ts
        .as_deref()
        .filter(|ts| !ts.is_empty())
        .or(doc.action_ts.as_deref())
        .and_then(Date::from_timestamp);
    let label = match date {
        Some(date) => format!("{publisher} - {}", date.display()),
        None => publisher.clone(),
    };
    (publisher, date, label)
}

impl Source {
    pub(crate) fn from_doc(n: usize, key: String, doc: &SourceDoc) -> Self {
        let (publisher, date, label) = published(doc);
        Source {
            n,
            key,
            kind: doc.kind.clone(),
            headline: doc.headline.clone(),
            publisher,
            date,
            url: doc.url.clone().or_else(|| doc.action_url.clone()),
            label,
            doc: doc.clone(),
            citations: Vec::new(),
            cited_without_position: false,
            consulted_only: false,
        }
    }

    /// What a list of sources calls the source `doc` is: its headline, else its label (as
    /// [`Source::headline`], else [`Source::label`], of the source made of it).
    pub fn title_of(doc: &SourceDoc) -> Cow<'_, str> {
        match &doc.headline {
            Some(headline) => Cow::Borrowed(headline),
            None => Cow::Owned(published(doc).2),
        }
    }

    /// Numbered, but not one span of the answer is its citation: cited without a position only.
    pub fn unplaced(&self) -> bool {
        !self.consulted_only && self.citations.is_empty() && self.cited_without_position
    }
}

/// The identity key: `id`, else `url`, else `action.url`, else `hd`; a URL without its `utm_*`
/// tracking parameters ([`without_tracking`]), so a page cited with `?utm_source=openai` and found
/// by a search without it is one source. A source with none of them cannot be told apart from any
/// other, so (like the reference client) it is not numbered and its citation is kept as a
/// tool-level one.
pub fn source_key(doc: &SourceDoc) -> Option<Cow<'_, str>> {
    fn non_empty(field: &Option<String>) -> Option<&str> {
        field.as_deref().filter(|key| !key.is_empty())
    }
    if let Some(id) = non_empty(&doc.id) {
        return Some(Cow::Borrowed(id));
    }
    if let Some(url) = non_empty(&doc.url).or_else(|| non_empty(&doc.action_url)) {
        return Some(without_tracking(url));
    }
    non_empty(&doc.headline).map(Cow::Borrowed)
}

/// `url` without the `utm_*` query parameters that only say where a click came from; the others
/// stay as written, in order.
///
/// ```
/// use research_tui_core::model::citations::without_tracking;
/// assert_eq!(without_tracking("https://a.com/x?utm_source=openai"), "https://a.com/x");
/// assert_eq!(without_tracking("https://a.com/x?id=1&utm_medium=m#top"), "https://a.com/x?id=1#top");
/// ```
pub fn without_tracking(url: &str) -> Cow<'_, str> {
    let (head, fragment) = url.split_at(url.find('#').unwrap_or(url.len()));
    let Some((base, query)) = head.split_once('?') else {
        return Cow::Borrowed(url);
    };
    let tracking = |param: &&str| {
        let name = param.split('=').next().unwrap_or_default();
        name.get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case("utm_"))
    };
    if !query.split('&').any(|param| tracking(&param)) {
        return Cow::Borrowed(url);
    }
    let kept: Vec<&str> = query
        .split('&')
        .filter(|param| !param.is_empty() && !tracking(param))
        .collect();
    let mut out = base.to_owned();
    if !kept.is_empty() {
        out.push('?');
        out.push_str(&kept.join("&"));
    }
    out.push_str(fragment);
    Cow::Owned(out)
}

/// A valid citation: a span of the answer and what supports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Citation {
    pub start: usize,
    pub end: usize,
    pub bytes: Range<usize>,
    /// The source number, or `None` for a tool-level citation.
    pub source: Option<usize>,
    pub tool_name: Option<String>,
    pub audit_id: Option<String>,
    /// The search query of the audit trace this reference names.
    pub query: Option<String>,
    /// The span is the provider's own citation marker (see [`crate::model::event::Reference::marker`]):
    /// displays hide it and show the `[n]` marker at its end instead.
    pub marker: bool,
}

impl Citation {
    pub fn text<'a>(&self, answer: &'a str) -> &'a str {
        &answer[self.bytes.clone()]
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attribution {
    /// Numbered sources in order (`sources[i].n == i + 1`), then consulted-only ones.
    pub sources: Vec<Source>,
    /// Valid citations in arrival order.
    pub citations: Vec<Citation>,
    pub invalid_references: usize,
    /// References whose span is not in the answer yet (only while streaming).
    pub pending_references: usize,
}

impl Attribution {
    /// Resolve a session's references. While the answer may still grow (`session.is_finished()` is
    /// false and `finished` is false), references past the current end are pending, not invalid, and
    /// keep their source's number so numbers do not shift as the answer streams in.
    pub fn resolve(session: &Session, finished: bool) -> Attribution {
        let finished = finished || session.is_finished();
        let answer = &session.answer;
        let len = answer.char_len();
        let mut numbering = Numbering::default();
        for reference in &session.references {
            if reference.unplaced {
                if let Some(n) = numbering.number(reference.source.as_ref()) {
                    numbering.attribution.sources[n - 1].cited_without_position = true;
                }
                continue;
            }
            let span = match (reference.start, reference.end) {
                (Some(start), Some(end)) if start <= end => Some((start as usize, end as usize)),
                _ => None,
            };
            let Some((start, end)) = span.filter(|&(_, end)| end <= len || !finished) else {
                numbering.attribution.invalid_references += 1;
                continue;
            };
            let source = numbering.number(reference.source.as_ref());
            if end > len {
                numbering.attribution.pending_references += 1;
                continue;
            }
            let bytes = answer.byte_of(start).unwrap_or(0)..answer.byte_of(end).unwrap_or(0);
            numbering.cite(Citation {
                start,
                end,
                bytes,
                source,
                tool_name: reference.tool_name.clone(),
                audit_id: reference.audit_id.clone(),
                query: reference
                    .audit_id
                    .as_deref()
                    .and_then(|id| session.audit(id))
                    .and_then(|trace| trace.query.clone()),
                marker: reference.marker,
            });
        }
        for doc in &session.consulted {
            numbering.consulted(doc);
        }
        numbering.finish()
    }

    /// The documents [`Attribution::resolve`] numbers, in number order (each source as first
    /// cited), without building the citations and sources: for a list of what an answer cites
    /// (a turn's summary), at a fraction of the cost on a turn of thousands of references.
    pub fn numbered_docs(session: &Session, finished: bool) -> Vec<&SourceDoc> {
        let finished = finished || session.is_finished();
        let len = session.answer.char_len();
        let mut numbered = std::collections::HashSet::new();
        let mut docs = Vec::new();
        for reference in &session.references {
            // Numbered as `resolve` numbers: unplaced, or a span that is (or may become) valid.
            let numbers = reference.unplaced
                || matches!((reference.start, reference.end),
                    (Some(start), Some(end)) if start <= end && (end as usize <= len || !finished));
            let Some(doc) = reference.source.as_ref().filter(|_| numbers) else {
                continue;
            };
            if let Some(key) = source_key(doc)
                && numbered.insert(key)
            {
                docs.push(doc);
            }
        }
        docs
    }

    /// Numbered (cited) sources only.
    pub fn numbered(&self) -> impl Iterator<Item = &Source> {
        self.sources.iter().filter(|s| !s.consulted_only)
    }

    /// Numbered sources cited without a position only ([`Source::unplaced`]), in number order.
    pub fn unplaced(&self) -> impl Iterator<Item = &Source> {
        self.sources.iter().filter(|s| s.unplaced())
    }

    pub fn tool_citations(&self) -> impl Iterator<Item = &Citation> {
        self.citations.iter().filter(|c| c.source.is_none())
    }

    /// Source numbers to show right after each end offset: `(byte position, ascending unique n)`,
    /// ordered by position.
    pub fn markers(&self) -> Vec<(usize, Vec<usize>)> {
        self.markers_where(|_| true)
    }

    /// Like [`Attribution::markers`], for citations the provider did not write into the answer
    /// itself: the `[n]`s to add to an answer printed as it was sent (its own markers stand in it).
    pub fn added_markers(&self) -> Vec<(usize, Vec<usize>)> {
        self.markers_where(|c| !c.marker)
    }

    fn markers_where(&self, keep: impl Fn(&Citation) -> bool) -> Vec<(usize, Vec<usize>)> {
        let mut at: Vec<(usize, usize)> = self
            .citations
            .iter()
            .filter(|c| keep(c))
            .filter_map(|c| c.source.map(|n| (c.bytes.end, n)))
            .collect();
        at.sort_unstable();
        at.dedup();
        let mut markers: Vec<(usize, Vec<usize>)> = Vec::new();
        for (pos, n) in at {
            match markers.last_mut() {
                Some((last, ns)) if *last == pos => ns.push(n),
                _ => markers.push((pos, vec![n])),
            }
        }
        markers
    }

    /// Byte ranges of the answer that are provider-written citation markers (xAI's `[[1]](url)`,
    /// Zeta Alpha's anchors), sorted and disjoint. Displays leave these bytes out; the `[n]` from
    /// [`Attribution::markers`] sits at each range's end and stands in for it.
    pub fn marker_spans(&self) -> Vec<Range<usize>> {
        let mut spans: Vec<Range<usize>> = self
            .citations
            .iter()
            .filter(|c| c.marker && c.bytes.start < c.bytes.end)
            .map(|c| c.bytes.clone())
            .collect();
        spans.sort_unstable_by_key(|r| (r.start, r.end));
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(spans.len());
        for span in spans {
            match merged.last_mut() {
                Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
                _ => merged.push(span),
            }
        }
        merged
    }
}

/// Sources numbered as their references arrive (see [`Attribution::resolve`]).
#[derive(Default)]
struct Numbering<'a> {
    attribution: Attribution,
    /// Source key → its number (0: consulted only).
    number_of: HashMap<Cow<'a, str>, usize>,
}

impl<'a> Numbering<'a> {
    /// The number of the source `doc` is (a new one when it is new); `None` for a tool-level
    /// reference or a document with no key.
    fn number(&mut self, doc: Option<&'a SourceDoc>) -> Option<usize> {
        let doc = doc?;
        let key = source_key(doc)?;
        let next = self.attribution.sources.len() + 1;
        let sources = &mut self.attribution.sources;
        let n = *self.number_of.entry(key).or_insert_with_key(|key| {
            sources.push(Source::from_doc(next, key.clone().into_owned(), doc));
            next
        });
        Some(n)
    }

    fn cite(&mut self, citation: Citation) {
        let index = self.attribution.citations.len();
        if let Some(n) = citation.source {
            self.attribution.sources[n - 1].citations.push(index);
        }
        self.attribution.citations.push(citation);
    }

    /// A consulted document, listed after the numbered ones unless it is one of them.
    fn consulted(&mut self, doc: &'a SourceDoc) {
        let Some(key) = source_key(doc) else { return };
        if self.number_of.contains_key(&key) {
            return;
        }
        let mut source = Source::from_doc(0, key.clone().into_owned(), doc);
        source.consulted_only = true;
        self.attribution.sources.push(source);
        self.number_of.insert(key, 0);
    }

    fn finish(self) -> Attribution {
        self.attribution
    }
}

#[cfg(test)]
mod tests;
