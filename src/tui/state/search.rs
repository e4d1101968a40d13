//! `/` in the panes: searching the whole conversation — every turn's question and answer — and the
//! shown turn's sources' titles, like `less`. [`Search`] holds the query, whether it is being typed,
//! every hit and the current one.
//!
//! Each turn is searched once per query change (and, while its answer streams, only the text that
//! arrived since), never per frame: a hit is a byte range of a turn's question as shown or of its
//! raw answer, which the answer pane highlights and brings into view through the rows it already
//! keeps. Matching is smart-case, as in `less -i` or vim's `smartcase`: a query with no capital
//! letter ignores ASCII case.

use std::ops::Range;

use super::app::App;
use super::turn::SidebarItem;

/// One place the query was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hit {
    /// Bytes of turn `.0`'s question as shown ([`super::Turn::shown_question`], lines joined).
    Question(usize, Range<usize>),
    /// Raw bytes of turn `.0`'s answer.
    Answer(usize, Range<usize>),
    /// Entry `n` of the sources sidebar (the shown turn's): its title or publisher holds the query.
    Source(usize),
}

/// What a turn's answer was searched as: its id, its version and how much of it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Searched {
    turn: u64,
    generation: u64,
    len: usize,
}

/// The hits in one turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnHits {
    /// In the question, in order.
    pub question: Vec<Range<usize>>,
    /// In the answer, in order: disjoint raw byte ranges (highlighted as they are).
    pub answer: Vec<Range<usize>>,
    searched: Searched,
}

/// The search `/` started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    /// As typed.
    pub query: String,
    /// The query is being typed: characters go to it, Enter / Shift-Enter move between hits.
    pub typing: bool,
    /// Each turn's hits, by turn index: the question's then the answer's, turn after turn.
    pub turns: Vec<TurnHits>,
    /// Sidebar entries whose title holds the query, in order: hits after every turn's.
    pub sources: Vec<usize>,
    /// The hit shown: an index into the turns' hits in order, then the sources'.
    pub current: Option<usize>,
    /// The shown turn and its sidebar's length when the sources were searched.
    sources_of: (usize, usize),
}

impl Search {
    /// A new search, being typed.
    pub fn start() -> Search {
        Search {
            typing: true,
            ..Search::default()
        }
    }

    /// Every hit.
    pub fn len(&self) -> usize {
        self.in_turns() + self.sources.len()
    }

    fn in_turns(&self) -> usize {
        self.turns
            .iter()
            .map(|t| t.question.len() + t.answer.len())
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hit `i`.
    pub fn hit(&self, mut i: usize) -> Option<Hit> {
        for (turn, hits) in self.turns.iter().enumerate() {
            if let Some(range) = hits.question.get(i) {
                return Some(Hit::Question(turn, range.clone()));
            }
            i -= hits.question.len();
            if let Some(range) = hits.answer.get(i) {
                return Some(Hit::Answer(turn, range.clone()));
            }
            i -= hits.answer.len();
        }
        self.sources.get(i).copied().map(Hit::Source)
    }

    /// `3/17`, `no match`, or nothing before anything is typed.
    pub fn count(&self) -> String {
        match (self.query.is_empty(), self.len(), self.current) {
            (true, ..) => String::new(),
            (false, 0, _) => "no match".to_owned(),
            (false, n, Some(i)) => format!("{}/{n}{}", i + 1, self.more()),
            (false, n, None) => format!("{n}{} hits", self.more()),
        }
    }

    /// `+` when the conversation held more hits than are kept.
    fn more(&self) -> &'static str {
        if self.in_turns() >= MOST_HITS {
            "+"
        } else {
            ""
        }
    }

    /// Turn `turn`'s answer hits (highlighted), and the current hit when it is one of them.
    pub fn answer_hits(&self, turn: usize) -> (&[Range<usize>], Option<&Range<usize>>) {
        let hits = self
            .turns
            .get(turn)
            .map_or(&[][..], |t| t.answer.as_slice());
        let current = match self.current.and_then(|i| self.hit(i)) {
            Some(Hit::Answer(t, range)) if t == turn => hits
                .binary_search_by_key(&range.start, |r| r.start)
                .ok()
                .map(|k| &hits[k]),
            _ => None,
        };
        (hits, current)
    }

    /// Turn `turn`'s question hits, and whether the current hit is one of them.
    pub fn question_hits(&self, turn: usize) -> (&[Range<usize>], Option<Range<usize>>) {
        let hits = self
            .turns
            .get(turn)
            .map_or(&[][..], |t| t.question.as_slice());
        let current = match self.current.and_then(|i| self.hit(i)) {
            Some(Hit::Question(t, range)) if t == turn => Some(range),
            _ => None,
        };
        (hits, current)
    }

    /// Does sidebar entry `index` hold the query?
    pub fn is_source_hit(&self, index: usize) -> bool {
        self.sources.contains(&index)
    }

    /// Search the conversation again for a changed query: every hit anew, the first one at or
    /// after the shown turn current.
    pub fn set_query(&mut self, app: &App, query: String) {
        self.query = query;
        self.turns.clear();
        self.sources.clear();
        self.current = None;
        self.sources_of = (usize::MAX, 0);
        self.refresh(app);
        let shown = app.current_index();
        self.current = (0..self.len())
            .find(|&i| match self.hit(i) {
                Some(Hit::Question(t, _) | Hit::Answer(t, _)) => t >= shown,
                _ => true,
            })
            .or(self.current);
    }

    /// Bring the hits up to date with the conversation: only the answer text that arrived since the
    /// last search is searched; a replaced answer (or a turn that is not the one searched at its
    /// place) is searched anew.
    pub fn refresh(&mut self, app: &App) {
        if self.query.is_empty() {
            return;
        }
        let current = self.current.and_then(|i| self.hit(i));
        self.turns.truncate(app.turns.len());
        self.turns.resize_with(app.turns.len(), TurnHits::default);
        let mut changed = false;
        let mut kept = 0;
        for (turn, hits) in app.turns.iter().zip(self.turns.iter_mut()) {
            let text = turn.session.answer.as_str();
            let now = Searched {
                turn: turn.id,
                generation: turn.generation,
                len: text.len(),
            };
            if now == hits.searched {
                kept += hits.question.len() + hits.answer.len();
                continue;
            }
            changed = true;
            let was = hits.searched;
            let grew = was.turn == now.turn
                && was.generation == now.generation
                && was.len <= now.len
                && was.len > 0;
            let from = if grew {
                // The text only grew: the hits found stay; one may straddle the old end, so the
                // search goes on from where such a hit could start.
                let back = was.len.saturating_sub(self.query.len() - 1);
                let resume = hits.answer.last().map_or(0, |r| r.end).max(back);
                text.floor_char_boundary(resume)
            } else {
                hits.answer.clear();
                hits.question.clear();
                // Counted where it is lit: on the question as shown, not its raw text.
                let shown = turn.shown_question().unwrap_or_default().join("\n");
                find_all(&shown, &self.query, 0, &mut hits.question);
                0
            };
            // The conversation's hits together stay under the bound (question hits are few:
            // a question is short).
            let room = MOST_HITS.saturating_sub(kept + hits.question.len());
            find_within(text, &self.query, from, room, &mut hits.answer);
            kept += hits.question.len() + hits.answer.len();
            hits.searched = now;
        }
        let sources_of = (app.current_index(), app.sidebar_items().len());
        if sources_of != self.sources_of {
            changed = true;
            self.sources = source_hits(app, &self.query).collect();
            self.sources_of = sources_of;
        }
        if changed {
            self.current = current
                .and_then(|hit| self.index_of(&hit))
                .or_else(|| (!self.is_empty()).then_some(0));
        }
    }

    /// Where `hit` is among the hits in order (the inverse of [`Search::hit`]), found by the
    /// turns' counts and a binary search in its turn: a refresh while an answer streams must
    /// not cost hits × turns.
    fn index_of(&self, hit: &Hit) -> Option<usize> {
        let before = |turn: usize| -> usize {
            self.turns[..turn]
                .iter()
                .map(|t| t.question.len() + t.answer.len())
                .sum()
        };
        let within = |ranges: &[Range<usize>], range: &Range<usize>| {
            ranges
                .binary_search_by_key(&range.start, |r| r.start)
                .ok()
                .filter(|&k| ranges[k] == *range)
        };
        match hit {
            Hit::Question(turn, range) => {
                let hits = self.turns.get(*turn)?;
                Some(before(*turn) + within(&hits.question, range)?)
            }
            Hit::Answer(turn, range) => {
                let hits = self.turns.get(*turn)?;
                Some(before(*turn) + hits.question.len() + within(&hits.answer, range)?)
            }
            Hit::Source(n) => {
                let k = self.sources.iter().position(|s| s == n)?;
                Some(self.in_turns() + k)
            }
        }
    }

    /// `n` (`forward`) or `N`: the next or previous hit, wrapping around; the hit, if any.
    pub fn step(&mut self, forward: bool) -> Option<Hit> {
        let n = self.len();
        if n == 0 {
            return None;
        }
        let next = match (self.current, forward) {
            (None, _) => 0,
            (Some(i), true) => (i + 1) % n,
            (Some(i), false) => (i + n - 1) % n,
        };
        self.current = Some(next);
        self.hit(next)
    }
}

/// Does `query` ask for case to matter (smart-case: it holds a capital letter)?
fn case_matters(query: &str) -> bool {
    query.chars().any(char::is_uppercase)
}

/// At most this many hits are kept in the whole conversation: a one-letter query over a hostile
/// 64 MiB answer (or many) would otherwise hold tens of millions of ranges; past it the count
/// reads `100000+`.
pub const MOST_HITS: usize = 100_000;

/// Every occurrence of `query` in `text` from byte `from`, appended to `out` (not overlapping),
/// until `out` holds [`MOST_HITS`]. Ignoring case folds ASCII only, so byte offsets stay the
/// text's own.
pub fn find_all(text: &str, query: &str, from: usize, out: &mut Vec<Range<usize>>) {
    find_within(text, query, from, MOST_HITS.saturating_sub(out.len()), out);
}

/// Bytes of text folded to lower case at a time: ignoring case never copies a whole answer.
const FOLDED_BLOCK: usize = 1 << 16;

/// [`find_all`], at most `room` more hits.
fn find_within(text: &str, query: &str, from: usize, room: usize, out: &mut Vec<Range<usize>>) {
    if query.is_empty() || from >= text.len() || room == 0 {
        return;
    }
    let limit = out.len() + room;
    if case_matters(query) {
        let finder = memchr::memmem::Finder::new(query.as_bytes());
        push_from(
            &finder,
            &text.as_bytes()[from..],
            from,
            query.len(),
            limit,
            out,
        );
        return;
    }
    find_folded(text, query, from, limit, out, FOLDED_BLOCK);
}

/// Ignoring ASCII case: the text folded `block` bytes at a time, each block read on past its end
/// by the query's length less one (a hit may straddle two), a hit kept once: the next block's
/// search starts after it.
fn find_folded(
    text: &str,
    query: &str,
    from: usize,
    limit: usize,
    out: &mut Vec<Range<usize>>,
    block: usize,
) {
    let query = query.to_ascii_lowercase();
    let finder = memchr::memmem::Finder::new(query.as_bytes());
    let mut folded = Vec::with_capacity(block + query.len());
    let mut start = from;
    while start < text.len() && out.len() < limit {
        let end = (start + block + query.len() - 1).min(text.len());
        folded.clear();
        folded.extend(
            text.as_bytes()[start..end]
                .iter()
                .map(u8::to_ascii_lowercase),
        );
        let found_before = out.len();
        push_from(&finder, &folded, start, query.len(), limit, out);
        // The next block starts after the last hit, or where a hit not yet found could start.
        let next = (start + block).min(text.len());
        start = match out[found_before..].last() {
            Some(hit) => hit.end.max(next),
            None => next,
        };
    }
}

/// The hits of `finder` in `hay` (found at byte `at` of the text), not overlapping, until `out`
/// holds `limit`.
fn push_from(
    finder: &memchr::memmem::Finder<'_>,
    hay: &[u8],
    at: usize,
    len: usize,
    limit: usize,
    out: &mut Vec<Range<usize>>,
) {
    let mut pos = 0;
    while out.len() < limit {
        let Some(i) = finder.find(&hay[pos..]) else {
            return;
        };
        out.push(at + pos + i..at + pos + i + len);
        pos += i + len;
    }
}

/// The sidebar entries whose source's title or publisher holds `query`.
fn source_hits<'a>(app: &'a App, query: &'a str) -> impl Iterator<Item = usize> + 'a {
    let turn = app.current();
    app.sidebar_items()
        .iter()
        .enumerate()
        .filter_map(move |(index, item)| {
            let SidebarItem::Source(i) = item else {
                return None;
            };
            let source = turn?.attribution.sources.get(*i)?;
            let title = source.headline.as_deref().unwrap_or(&source.label);
            let found = [title, source.publisher.as_str()].iter().any(|field| {
                let mut hits = Vec::new();
                find_all(field, query, 0, &mut hits);
                !hits.is_empty()
            });
            found.then_some(index)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str, query: &str) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        find_all(text, query, 0, &mut out);
        out
    }

    #[test]
    fn a_lowercase_query_finds_every_case_and_a_capital_one_only_its_own() {
        let text = "Rust, rust and RUST — ünïcode rust";
        assert_eq!(found(text, "rust").len(), 4);
        assert_eq!(found(text, "Rust"), vec![0..4]);
        // Offsets are the text's own bytes, past multi-byte characters too.
        let last = found(text, "rust").pop().unwrap();
        assert_eq!(&text[last], "rust");
    }

    #[test]
    fn a_one_letter_query_over_a_huge_answer_keeps_a_bounded_number_of_hits() {
        let text = "a".repeat(3 * MOST_HITS);
        let mut hits = found(&text, "a");
        assert_eq!(hits.len(), MOST_HITS);
        // More text streamed in adds nothing once the bound is reached.
        find_all(&text, "a", 2 * MOST_HITS, &mut hits);
        assert_eq!(hits.len(), MOST_HITS);
        let search = Search {
            query: "a".into(),
            turns: vec![TurnHits {
                answer: hits,
                ..TurnHits::default()
            }],
            current: Some(0),
            ..Search::default()
        };
        assert_eq!(search.count(), format!("1/{MOST_HITS}+"));
    }

    proptest::proptest! {
        /// Folding a block at a time finds what folding the whole text finds, at any block size
        /// (hits straddling blocks, hits in the read-on part, non-ASCII text).
        #[test]
        fn folding_in_blocks_finds_what_folding_the_whole_text_finds(
            text in "[aAbB é]{0,60}",
            query in "[aAbB é]{1,4}",
            from in 0usize..60,
            block in 1usize..9,
        ) {
            let query = query.to_ascii_lowercase();
            let from = text.floor_char_boundary(from.min(text.len()));
            let mut blocks = Vec::new();
            find_folded(&text, &query, from, MOST_HITS, &mut blocks, block);
            let whole: Vec<_> = text[from..]
                .to_ascii_lowercase()
                .match_indices(&query)
                .map(|(i, m)| from + i..from + i + m.len())
                .collect();
            proptest::prop_assert_eq!(blocks, whole);
        }
    }

    #[test]
    fn hits_do_not_overlap_and_an_empty_query_finds_nothing() {
        assert_eq!(found("aaaa", "aa"), vec![0..2, 2..4]);
        assert!(found("abc", "").is_empty());
    }

    #[test]
    fn stepping_wraps_around_both_ways() {
        let mut search = Search {
            query: "x".into(),
            turns: vec![
                TurnHits {
                    question: Vec::from([4..5, 6..7]),
                    answer: Vec::from([0..1, 8..9]),
                    ..TurnHits::default()
                },
                TurnHits {
                    answer: Vec::from([2..3, 4..5]),
                    ..TurnHits::default()
                },
            ],
            sources: vec![0],
            current: Some(0),
            ..Search::default()
        };
        assert_eq!(search.hit(0), Some(Hit::Question(0, 4..5)));
        assert_eq!(search.step(false), Some(Hit::Source(0)));
        assert_eq!(search.count(), "7/7");
        assert_eq!(search.step(true), Some(Hit::Question(0, 4..5)));
        assert_eq!(search.step(true), Some(Hit::Question(0, 6..7)));
        assert_eq!(search.step(true), Some(Hit::Answer(0, 0..1)));
        assert_eq!(search.step(true), Some(Hit::Answer(0, 8..9)));
        assert_eq!(search.step(true), Some(Hit::Answer(1, 2..3)));
        assert!(search.is_source_hit(0));
        let (hits, current) = search.answer_hits(1);
        assert_eq!((hits.len(), current), (2, Some(&(2..3))));
        assert_eq!(search.answer_hits(0).1, None);
    }
}
