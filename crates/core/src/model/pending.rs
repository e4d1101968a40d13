//! Attribution kept up to date as a session streams ([`LiveResolver`]), doing work only for what
//! changed: new references are numbered as they arrive, and a reference that points past the current
//! end of the answer waits in a queue ordered by its end offset until the answer reaches it — it
//! becomes a citation once, then. Answer chunks that complete no reference cost nothing.
//!
//! The result is always exactly what [`Attribution::resolve`] gives for the same session (numbering,
//! validity, citation order: see [`crate::model::citations`]); a property test holds the two equal
//! over arbitrary event orders and chunkings. What incremental work cannot express — a finished
//! answer (pending references become invalid and numbers may close up), a replaced answer or
//! reference list — is a full resolution, once per such change.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

use crate::model::citations::{Attribution, Citation, Source, source_key};
use crate::model::event::{Reference, SourceDoc};
use crate::model::session::Session;

/// What an update changed in the attribution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Unchanged,
    /// Citations were added (and possibly sources): `added` are their indices in
    /// [`Attribution::citations`], ascending. Citations added before existing ones move those up
    /// (`shifted`); `sources` says whether the list of sources changed.
    Grew {
        added: Vec<usize>,
        shifted: bool,
        sources: bool,
    },
    /// Resolved anew: anything may have changed.
    Rebuilt,
}

/// What the attribution was last brought up to date with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Basis {
    references: usize,
    grounding_revision: u64,
    grounding_replacements: u64,
    answer_replacements: u64,
    answer_chars: usize,
    consulted: usize,
    audits: usize,
    finished: bool,
}

impl Basis {
    fn of(session: &Session, finished: bool) -> Basis {
        Basis {
            references: session.references.len(),
            grounding_revision: session.grounding_revision,
            grounding_replacements: session.grounding_replacements(),
            answer_replacements: session.answer.replacements(),
            answer_chars: session.answer.char_len(),
            consulted: session.consulted.len(),
            audits: session.audits.len(),
            finished,
        }
    }
}

/// Keeps one [`Attribution`] equal to [`Attribution::resolve`] of a streaming session (see the module
/// docs). Call [`LiveResolver::update`] with the same attribution, starting from
/// `Attribution::default()`, after every batch of events.
#[derive(Debug, Default)]
pub struct LiveResolver {
    basis: Basis,
    /// Source key → number, for numbered sources.
    number_of: HashMap<String, usize>,
    /// Keys of the consulted-only sources.
    consulted_only: HashSet<String>,
    /// The reference index of each citation (citations are in reference order).
    citation_refs: Vec<usize>,
    /// `(end, reference index)` of references past the current end of the answer, soonest first.
    pending: BinaryHeap<Reverse<(usize, usize)>>,
    /// Full resolutions so far (a streaming answer should need none).
    rebuilds: usize,
}

impl LiveResolver {
    pub fn new() -> Self {
        Self::default()
    }

    /// How many times the whole resolution ran (a finished or replaced answer; never per chunk).
    pub fn rebuilds(&self) -> usize {
        self.rebuilds
    }

    /// Bring `attribution` up to date with `session`. `finished` as for [`Attribution::resolve`]:
    /// the answer will not grow (the session's own end counts too).
    pub fn update(
        &mut self,
        attribution: &mut Attribution,
        session: &Session,
        finished: bool,
    ) -> Change {
        let basis = Basis::of(session, finished || session.is_finished());
        if basis == self.basis {
            return Change::Unchanged;
        }
        let old = std::mem::replace(&mut self.basis, basis);
        if basis.finished {
            // Pending references become invalid and numbers may close up: resolve anew.
            *self = LiveResolver {
                basis,
                rebuilds: self.rebuilds + 1,
                ..LiveResolver::default()
            };
            *attribution = Attribution::resolve(session, true);
            return Change::Rebuilt;
        }
        let restart = old.finished
            || basis.grounding_replacements != old.grounding_replacements
            || basis.answer_replacements != old.answer_replacements
            || basis.answer_chars < old.answer_chars
            || basis.references < old.references;
        if restart {
            *self = LiveResolver {
                basis,
                rebuilds: self.rebuilds + 1,
                ..LiveResolver::default()
            };
            *attribution = Attribution::default();
            self.advance(attribution, session, Basis::default());
            return Change::Rebuilt;
        }
        self.advance(attribution, session, old)
    }

    /// Take in what arrived since `old`: new references, consulted sources and audit traces, and the
    /// pending references the answer now reaches.
    fn advance(&mut self, attribution: &mut Attribution, session: &Session, old: Basis) -> Change {
        let len = session.answer.char_len();
        let sources_before = attribution.sources.len();
        let mut sources = false;
        let mut ready: Vec<usize> = Vec::new();
        for (index, reference) in session.references.iter().enumerate().skip(old.references) {
            if reference.unplaced {
                // Cited without a position: its source is numbered, no text is cited.
                if let Some(n) = self.number_source(attribution, reference) {
                    attribution.sources[n - 1].cited_without_position = true;
                    sources = true;
                }
                continue;
            }
            let Some((_, end)) = span(reference) else {
                attribution.invalid_references += 1;
                continue;
            };
            let numbered = self.number_of.len();
            self.number_source(attribution, reference);
            sources |= self.number_of.len() != numbered;
            if end > len {
                attribution.pending_references += 1;
                self.pending.push(Reverse((end, index)));
            } else {
                ready.push(index);
            }
        }
        while let Some(&Reverse((end, index))) = self.pending.peek()
            && end <= len
        {
            self.pending.pop();
            attribution.pending_references -= 1;
            ready.push(index);
        }
        for doc in &session.consulted[old.consulted..] {
            let Some(key) = source_key(doc) else { continue };
            if self.number_of.contains_key(key.as_ref())
                || !self.consulted_only.insert(key.clone().into_owned())
            {
                continue;
            }
            let mut source = Source::from_doc(0, key.into_owned(), doc);
            source.consulted_only = true;
            attribution.sources.push(source);
            sources = true;
        }
        if session.audits.len() > old.audits {
            fill_queries(attribution, session);
        }
        sources |= attribution.sources.len() != sources_before;
        if ready.is_empty() {
            return if sources {
                Change::Grew {
                    added: Vec::new(),
                    shifted: false,
                    sources,
                }
            } else {
                Change::Unchanged
            };
        }
        ready.sort_unstable();
        let (added, shifted) = self.insert_citations(attribution, session, &ready);
        Change::Grew {
            added,
            shifted,
            sources,
        }
    }

    /// The number of the source `reference` cites, numbering it when it is new; `None` for a
    /// tool-level reference or a document with no key.
    fn number_source(
        &mut self,
        attribution: &mut Attribution,
        reference: &Reference,
    ) -> Option<usize> {
        let doc = reference.source.as_ref()?;
        let key = source_key(doc)?;
        if let Some(&n) = self.number_of.get(key.as_ref()) {
            return Some(n);
        }
        Some(self.number(attribution, &key, doc))
    }

    /// Number a newly cited source: it goes after the numbered ones, and stops being consulted-only.
    fn number(&mut self, attribution: &mut Attribution, key: &str, doc: &SourceDoc) -> usize {
        let n = self.number_of.len() + 1;
        self.number_of.insert(key.to_owned(), n);
        if self.consulted_only.remove(key)
            && let Some(i) = attribution
                .sources
                .iter()
                .position(|s| s.consulted_only && s.key == key)
        {
            attribution.sources.remove(i);
        }
        attribution
            .sources
            .insert(n - 1, Source::from_doc(n, key.to_owned(), doc));
        n
    }

    /// Add the citations of references `ready` (ascending reference indices), keeping citations in
    /// reference order. Returns their new indices and whether existing citations moved.
    fn insert_citations(
        &mut self,
        attribution: &mut Attribution,
        session: &Session,
        ready: &[usize],
    ) -> (Vec<usize>, bool) {
        let appending = self
            .citation_refs
            .last()
            .is_none_or(|&last| last < ready[0]);
        let mut added = Vec::with_capacity(ready.len());
        if appending {
            for &index in ready {
                let citation = self.citation(attribution, session, index);
                let at = attribution.citations.len();
                if let Some(n) = citation.source {
                    attribution.sources[n - 1].citations.push(at);
                }
                attribution.citations.push(citation);
                self.citation_refs.push(index);
                added.push(at);
            }
            return (added, false);
        }
        // Merge by reference index; `moved[i]` is where old citation `i` goes.
        let old_refs = std::mem::take(&mut self.citation_refs);
        let old = std::mem::take(&mut attribution.citations);
        let mut moved = Vec::with_capacity(old.len());
        let mut merged = Vec::with_capacity(old.len() + ready.len());
        let mut refs = Vec::with_capacity(old.len() + ready.len());
        let mut new = ready.iter().peekable();
        for (citation, index) in old.into_iter().zip(old_refs) {
            while let Some(&&next) = new.peek()
                && next < index
            {
                added.push(merged.len());
                merged.push(self.citation(attribution, session, next));
                refs.push(next);
                new.next();
            }
            moved.push(merged.len());
            merged.push(citation);
            refs.push(index);
        }
        for &next in new {
            added.push(merged.len());
            merged.push(self.citation(attribution, session, next));
            refs.push(next);
        }
        for source in &mut attribution.sources {
            for i in &mut source.citations {
                *i = moved[*i];
            }
        }
        for &at in &added {
            if let Some(n) = merged[at].source {
                let list = &mut attribution.sources[n - 1].citations;
                let position = list.partition_point(|&i| i < at);
                list.insert(position, at);
            }
        }
        attribution.citations = merged;
        self.citation_refs = refs;
        (added, true)
    }

    /// The citation of reference `index`, which the answer now reaches.
    fn citation(&self, attribution: &Attribution, session: &Session, index: usize) -> Citation {
        let reference = &session.references[index];
        let (start, end) = span(reference).expect("only valid spans become citations");
        let source = reference
            .source
            .as_ref()
            .and_then(source_key)
            .and_then(|key| self.number_of.get(key.as_ref()).copied());
        debug_assert!(source.is_none_or(|n| attribution.sources[n - 1].n == n));
        let answer = &session.answer;
        Citation {
            start,
            end,
            bytes: answer.byte_of(start).unwrap_or(0)..answer.byte_of(end).unwrap_or(0),
            source,
            tool_name: reference.tool_name.clone(),
            audit_id: reference.audit_id.clone(),
            query: query_of(session, reference.audit_id.as_deref()),
            marker: reference.marker,
        }
    }
}

/// The span of a reference whose offsets are usable (both present, start ≤ end).
fn span(reference: &Reference) -> Option<(usize, usize)> {
    match (reference.start, reference.end) {
        (Some(start), Some(end)) if start <= end => Some((start as usize, end as usize)),
        _ => None,
    }
}

fn query_of(session: &Session, audit_id: Option<&str>) -> Option<String> {
    session.audit(audit_id?)?.query.clone()
}

/// Audit traces arrived: citations that name one and had no query yet get its query.
fn fill_queries(attribution: &mut Attribution, session: &Session) {
    for citation in &mut attribution.citations {
        if citation.query.is_none() {
            citation.query = query_of(session, citation.audit_id.as_deref());
        }
    }
}

#[cfg(test)]
mod tests;
