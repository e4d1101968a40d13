//! `/` in the panes: searching the whole conversation — every turn's question and answer — and the
//! shown turn's sources' titles, like `less`. [`Search`] holds the query, whether it is being typed,
//! every hit and the current one.
//!
//! Each turn is searched once per query change (and, while its answer streams, only the text that
//! arrived since), never per frame: a hit is a raw byte range of a turn's question or answer, which
//! the answer pane highlights and brings into view through the rows it already keeps. Matching is
//! smart-case, as in `less -i` or vim's `smartcase`: a query with no capital letter ignores ASCII
//! case.

use std::ops::Range;

use super::app::App;
use super::turn::SidebarItem;

/// One place the query was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hit {
    /// Raw bytes of turn `.0`'s question.
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

    /// `+` when an answer held more hits than are kept.
    fn more(&self) -> &'static str {
        if self.turns.iter().any(|t| t.answer.len() >= MOST_HITS) {
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
            Some(Hit::Answer(t, range)) if t == turn => hits.iter().find(|r| **r == range),
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
        for (turn, hits) in app.turns.iter().zip(self.turns.iter_mut()) {
            let text = turn.session.answer.as_str();
            let now = Searched {
                turn: turn.id,
                generation: turn.generation,
                len: text.len(),
            };
            if now == hits.searched {
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
                find_all(
                    turn.question.as_deref().unwrap_or_default(),
                    &self.query,
                    0,
                    &mut hits.question,
                );
                0
            };
            find_all(text, &self.query, from, &mut hits.answer);
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
                .and_then(|hit| (0..self.len()).find(|&i| self.hit(i).as_ref() == Some(&hit)))
                .or_else(|| (!self.is_empty()).then_some(0));
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

/// At most this many hits are kept in one answer: a one-letter query over a hostile 64 MiB answer would
/// otherwise hold tens of millions of ranges; past it the count reads `100000+`.
pub const MOST_HITS: usize = 100_000;

/// Every occurrence of `query` in `text` from byte `from`, appended to `out` (not overlapping),
/// until `out` holds [`MOST_HITS`]. Ignoring case folds ASCII only, so byte offsets stay the
/// text's own.
pub fn find_all(text: &str, query: &str, from: usize, out: &mut Vec<Range<usize>>) {
    if query.is_empty() || from >= text.len() || out.len() >= MOST_HITS {
        return;
    }
    let rest = &text[from..];
    let room = MOST_HITS - out.len();
    let hits = |haystack: &str, needle: &str, out: &mut Vec<Range<usize>>| {
        out.extend(
            haystack
                .match_indices(needle)
                .take(room)
                .map(|(i, m)| from + i..from + i + m.len()),
        );
    };
    if case_matters(query) {
        hits(rest, query, out);
    } else {
        hits(&rest.to_ascii_lowercase(), &query.to_ascii_lowercase(), out);
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
