//! Fuzzy search over saved sessions: the `nucleo` matcher (as helix and television use) run over
//! each session's questions, plan titles, source titles and answer lines, as its summary holds them
//! ([`crate::local::summary`]). Shared by `research-tui sessions --search` and the sessions picker,
//! so both find and rank the same sessions.
//!
//! The query's words must all match, in order of their letters, within one field (one question,
//! one title, one answer line, one source title): a session scores what its best field scores.
//! Case is ignored unless the query has a capital letter; accents are ignored unless it has one.
//! A match must also be close to the words typed, or any query's letters turn up scattered across
//! long text: in answers, plan titles and source titles it needs at least [`PROSE_SHARE`] percent
//! of the score the query gets against itself; in questions, which people remember and abbreviate,
//! [`QUESTION_SHARE`] percent.

use std::borrow::Cow;

use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use serde::Serialize;

use crate::local::summary::SessionSummary;

mod bound;
mod hay;
use bound::Bound;
pub use hay::RawLetters;
use hay::{Letters, Reader};

/// Which part of a session matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Question,
    Title,
    Source,
    Answer,
}

impl Field {
    /// The field's name, as `sessions --search --json` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Question => "question",
            Field::Title => "title",
            Field::Source => "source",
            Field::Answer => "answer",
        }
    }
}

/// How one session matched: its score, the field, that field's text (one line) and the matched
/// characters in it (indices of `char`s, ascending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub score: u32,
    pub field: Field,
    pub text: String,
    pub indices: Vec<u32>,
}

/// How much of the query's own score a match in an answer or a title needs (percent).
pub const PROSE_SHARE: u32 = 80;
/// How much of it a match in a question needs: less, since people abbreviate what they asked.
pub const QUESTION_SHARE: u32 = 50;

/// At most this many threads match one query.
pub const MOST_THREADS: usize = 4;
/// A thread gets at least this many sessions to match (fewer are not worth a thread).
const PER_THREAD: usize = 1000;

/// `work` run on each `share` of `items` on a thread of its own, the results in the items' order.
/// A worker's panic is raised again here: its results are never left out, which would shift every
/// later result onto the wrong item.
pub fn in_shares<I: Sync, R: Send>(
    items: &[I],
    share: usize,
    work: impl Fn(&[I]) -> Vec<R> + Sync,
) -> Vec<R> {
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(share.max(1))
            .map(|share| scope.spawn(|| work(share)))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| {
                w.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// A query, ready to score sessions.
pub struct Search {
    query: String,
    pattern: Pattern,
    matcher: Matcher,
    chars: Vec<char>,
    /// The least score a match in prose counts with.
    prose_floor: u32,
    /// The least score a match in a question counts with.
    question_floor: u32,
    /// The score the query gets against itself: a field that scores as much is as good a match as
    /// there will be, so the session's other fields are not scored.
    own: u32,
    /// The matched characters of the field last scored, and of the best field so far (as
    /// `nucleo` gives them: each word's, unsorted).
    indices: Vec<u32>,
    best_indices: Vec<u32>,
    /// The buffers a field is read into for the tests before scoring.
    reader: Reader,
    /// Each word's letters, for the test a field must pass before it is scored ([`Letters`]).
    letters: Letters,
    /// The most the matcher might score a field, for the test a field passing [`Letters`] must
    /// pass before it is scored: that it might score what it needs to count.
    bound: Bound,
}

impl std::fmt::Debug for Search {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Search").finish_non_exhaustive()
    }
}

/// `text` as the matcher reads it: one position per `char`, so indices map back to `chars()`.
fn haystack<'a>(text: &'a str, chars: &'a mut Vec<char>) -> Utf32Str<'a> {
    if text.is_ascii() {
        return Utf32Str::Ascii(text.as_bytes());
    }
    chars.clear();
    chars.extend(text.chars());
    Utf32Str::Unicode(chars)
}

impl Search {
    pub fn new(query: &str) -> Search {
        let mut search = Search {
            query: query.to_owned(),
            pattern: Pattern::new(
                query,
                CaseMatching::Smart,
                Normalization::Smart,
                AtomKind::Fuzzy,
            ),
            matcher: Matcher::new(Config::DEFAULT),
            chars: Vec::new(),
            indices: Vec::new(),
            best_indices: Vec::new(),
            prose_floor: 0,
            question_floor: 0,
            own: 0,
            reader: Reader::default(),
            letters: Letters::default(),
            bound: Bound::default(),
        };
        let words = || {
            search
                .pattern
                .atoms
                .iter()
                .map(|atom| match atom.needle_text() {
                    Utf32Str::Ascii(word) => (Some(word), word.len()),
                    Utf32Str::Unicode(word) => (None, word.len()),
                })
        };
        let (letters, bound) = (Letters::of(words().map(|w| w.0)), Bound::new(words()));
        (search.letters, search.bound) = (letters, bound);
        search.own = search.score(query, 0).unwrap_or(0);
        search.prose_floor = search.own * PROSE_SHARE / 100;
        search.question_floor = search.own * QUESTION_SHARE / 100;
        search
    }

    /// The letters test before scoring, as a first pass over the sessions index's items: a field
    /// whose item it fails is not worth reading ([`RawLetters`]).
    pub fn raw_letters(&self) -> RawLetters {
        self.letters.raw()
    }

    /// The query has no words: everything matches.
    pub fn is_empty(&self) -> bool {
        self.pattern.atoms.is_empty()
    }

    /// The matcher's score for `text`, if it matches and scores at least `need` (else `None`, or
    /// its score: a field is scored only if it might reach `need`).
    fn score(&mut self, text: &str, need: u32) -> Option<u32> {
        // The letters test reads the field in place where it can, the bound one position a char.
        let in_place = hay::in_place(text);
        if in_place.is_some_and(|hay| !self.letters.may_match(&hay)) {
            return None;
        }
        let read = match in_place {
            Some(_) => self.reader.read_in_place(text),
            None => self.reader.read(text),
        };
        if in_place.is_none() && !self.letters.may_match(&read)
            || !self.bound.may_reach(&read, need)
        {
            return None;
        }
        // Scored with its matched characters, in the one call (the same programme, which also
        // keeps the path): the best field's are not asked for again.
        let hay = haystack(text, &mut self.chars);
        self.indices.clear();
        self.pattern
            .indices(hay, &mut self.matcher, &mut self.indices)
    }

    /// How `summary` matches the query, if it does: its best field.
    pub fn best(&mut self, summary: &SessionSummary) -> Option<Hit> {
        self.best_of(fields(summary).map(|(field, text)| (field, Cow::Borrowed(text))))
    }

    /// How a session whose searchable fields are `fields` (in the order [`fields`] gives a
    /// summary's, empty ones left out) matches the query, if it does: its best field.
    pub fn best_of<'t>(
        &mut self,
        fields: impl Iterator<Item = (Field, Cow<'t, str>)>,
    ) -> Option<Hit> {
        let mut best: Option<(u32, Field, Cow<'t, str>)> = None;
        let mut indices = std::mem::take(&mut self.best_indices);
        for (field, text) in fields {
            let floor = match field {
                Field::Question => self.question_floor,
                _ => self.prose_floor,
            };
            // A field counts only if it reaches the floor and beats the best so far.
            let need = best
                .as_ref()
                .map_or(floor, |(top, _, _)| floor.max(top + 1));
            if let Some(score) = self.score(&text, need)
                && score >= floor
                && best.as_ref().is_none_or(|(top, _, _)| score > *top)
            {
                best = Some((score, field, text));
                std::mem::swap(&mut indices, &mut self.indices);
                if score >= self.own {
                    break;
                }
            }
        }
        let Some((score, field, text)) = best else {
            self.best_indices = indices;
            return None;
        };
        indices.sort_unstable();
        indices.dedup();
        Some(Hit {
            score,
            field,
            text: text.into_owned(),
            indices,
        })
    }

    /// The sessions of `list` that match, best first (equal scores keep the list's order), each
    /// with its index in `list`.
    pub fn rank<'a, T: Sync + 'a>(
        &mut self,
        list: impl IntoIterator<Item = &'a T>,
        summary: impl Fn(&T) -> &SessionSummary + Sync,
    ) -> Vec<(usize, Hit)> {
        self.rank_indexed(list.into_iter().enumerate(), summary)
    }

    /// [`Search::rank`] over some items of a list, each given with its index in the list.
    ///
    /// A long list is split between the machine's cores (at most [`MOST_THREADS`]), each matching
    /// its share with a matcher of its own.
    pub fn rank_indexed<'a, T: Sync + 'a>(
        &mut self,
        list: impl IntoIterator<Item = (usize, &'a T)>,
        summary: impl Fn(&T) -> &SessionSummary + Sync,
    ) -> Vec<(usize, Hit)> {
        let list: Vec<(usize, &T)> = list.into_iter().collect();
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MOST_THREADS)
            .min(list.len() / PER_THREAD)
            .max(1);
        let match_all = |search: &mut Search, share: &[(usize, &T)]| -> Vec<(usize, Hit)> {
            share
                .iter()
                .filter_map(|&(i, item)| Some((i, search.best(summary(item))?)))
                .collect()
        };
        let mut hits = if threads == 1 {
            match_all(self, &list)
        } else {
            let query = &self.query;
            in_shares(&list, list.len().div_ceil(threads), |share| {
                match_all(&mut Search::new(query), share)
            })
        };
        hits.sort_by(|(a, hit_a), (b, hit_b)| hit_b.score.cmp(&hit_a.score).then(a.cmp(b)));
        hits
    }
}

/// Every searchable piece of text of a session, each one line: questions first, then titles,
/// source titles and the answers' lines (so on equal scores the question wins).
fn fields(summary: &SessionSummary) -> impl Iterator<Item = (Field, &str)> {
    let questions = summary
        .meta
        .turns
        .iter()
        .flat_map(|t| t.question.lines())
        .map(|q| (Field::Question, q));
    let titles = summary
        .turns
        .iter()
        .filter_map(|t| t.title.as_deref())
        .map(|t| (Field::Title, t));
    let sources = summary
        .turns
        .iter()
        .flat_map(|t| &t.sources)
        .map(|s| (Field::Source, s.as_str()));
    let answers = summary
        .turns
        .iter()
        .flat_map(|t| t.answer.lines())
        .map(|line| (Field::Answer, line));
    questions
        .chain(titles)
        .chain(sources)
        .chain(answers)
        .filter(|(_, text)| !text.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::meta::SessionMeta;
    use crate::local::meta::TurnMeta;
    use crate::local::summary::TurnSummary;

    fn summary(question: &str, answer: &str, sources: &[&str]) -> SessionSummary {
        let meta: SessionMeta = serde_json::from_value(serde_json::json!({
            "id": question, "created_at": "", "updated_at": "", "endpoint": "research-agent",
            "base_url": "", "chat_id": null, "execution_id": null, "turns": [],
        }))
        .unwrap();
        let mut summary = SessionSummary::of_meta(meta);
        summary.meta.turns.push(TurnMeta {
            question: question.into(),
            started_at: String::new(),
            ended_at: None,
            from_checkpoint_id: None,
            checkpoint_id: None,
            status: "complete".into(),
            stream_file: "turn-001.sse".into(),
            reason: None,
            request: None,
            not_saved: None,
        });
        summary.turns.push(TurnSummary {
            answer: answer.into(),
            sources: sources.iter().map(|s| s.to_string()).collect(),
            ..TurnSummary::default()
        });
        summary
    }

    #[test]
    fn the_best_field_wins_and_its_matched_characters_are_given() {
        let list = [
            summary("Compare ASML and Lam Research", "Lithography.", &[]),
            summary(
                "NVIDIA quarter",
                "Gross margin held at 75%.\nMore.",
                &["Reuters: margins"],
            ),
            summary("Solid-state batteries", "Nothing here.", &[]),
        ];
        let mut search = Search::new("margin");
        let hits = search.rank(&list, |s| s);
        assert_eq!(hits.len(), 1, "{hits:?}");
        let (i, hit) = &hits[0];
        assert_eq!(*i, 1);
        assert!(
            matches!(hit.field, Field::Answer | Field::Source),
            "{hit:?}"
        );
        let matched: String = hit
            .indices
            .iter()
            .map(|&k| hit.text.chars().nth(k as usize).unwrap())
            .collect();
        assert_eq!(matched.to_lowercase(), "margin");
        // A question match outranks a scattered one; every word must match.
        let hits = Search::new("asml lam").rank(&list, |s| s);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].1.field, Field::Question);
        assert!(Search::new("asml zebra").rank(&list, |s| s).is_empty());
    }

    #[test]
    fn letters_scattered_over_prose_do_not_match_but_an_abbreviated_question_does() {
        let nvda = Search::new("nvda").best(&summary("What did NVIDIA report?", "", &[]));
        assert_eq!(nvda.map(|hit| hit.field), Some(Field::Question));
        let scattered = "across two rooms";
        let list = [
            summary(scattered, scattered, &[scattered]),
            summary("Will TSMC double its Co-WoS lines?", "", &[]),
            summary("Q", "TSMC doubles CoWoS capacity", &[]),
        ];
        let hits = Search::new("cowos").rank(&list, |s| s);
        let found: Vec<(usize, Field)> = hits.iter().map(|(i, hit)| (*i, hit.field)).collect();
        assert_eq!(found, [(2, Field::Answer), (1, Field::Question)]);
    }

    #[test]
    fn indices_count_characters_in_text_that_is_not_ascii() {
        let list = [summary("Münchner Rück: Ergebnis", "", &[])];
        let hit = Search::new("ruck erg").best(&list[0]).unwrap();
        let chars: Vec<char> = hit.text.chars().collect();
        let matched: String = hit.indices.iter().map(|&k| chars[k as usize]).collect();
        assert_eq!(matched, "RückErg");
    }

    /// Pieces of text that fold, normalise or compare in awkward ways: both cases, accents that
    /// normalise to ASCII, the long s and the Kelvin sign (which fold to ASCII letters), a
    /// backslash and spaces (which a word can hold escaped).
    const PIECES: &[&str] = &[
        "a", "A", "k", "K", "s", "S", "n", "N", "ia", "Nv", "é", "É", "ſ", "\u{212a}", "ß", "ö",
        " ", "-", "1", "\\", "mar", "gin", "cowos", "ü", "\u{2014}", ".",
    ];

    fn text(max: usize) -> impl proptest::strategy::Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(PIECES), 0..max)
            .prop_map(|pieces| pieces.concat())
    }

    /// A query of ASCII words, the ones the test applies to (a word beyond ASCII is left to the
    /// matcher, whose debug build trips its own assertion on some, such as `sß` against `ſß`).
    fn query() -> impl proptest::strategy::Strategy<Value = String> {
        let ascii: Vec<&str> = PIECES.iter().copied().filter(|p| p.is_ascii()).collect();
        proptest::collection::vec(proptest::sample::select(ascii), 0..5)
            .prop_map(|pieces| pieces.concat())
    }

    /// The best field as the matcher alone finds it, field by field, scoring each with
    /// `Pattern::score` and asking the best one's matched characters after: no test before
    /// scoring, no characters kept from the scoring call.
    fn matcher_alone(query: &str, summary: &SessionSummary) -> Option<Hit> {
        let mut search = Search::new(query);
        let mut chars = Vec::new();
        let mut best: Option<(u32, Field, &str)> = None;
        for (field, text) in fields(summary) {
            let floor = match field {
                Field::Question => search.question_floor,
                _ => search.prose_floor,
            };
            let hay = haystack(text, &mut chars);
            if let Some(score) = search.pattern.score(hay, &mut search.matcher)
                && score >= floor
                && best.is_none_or(|(top, _, _)| score > top)
            {
                best = Some((score, field, text));
                if score >= search.own {
                    break;
                }
            }
        }
        let (score, field, text) = best?;
        let mut indices = Vec::new();
        let hay = haystack(text, &mut chars);
        search
            .pattern
            .indices(hay, &mut search.matcher, &mut indices);
        indices.sort_unstable();
        indices.dedup();
        Some(Hit {
            score,
            field,
            text: text.to_owned(),
            indices,
        })
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The test before scoring rejects only fields the matcher does not match, and a search
        /// with it finds the same best field, score and characters as the matcher alone.
        #[test]
        fn the_test_before_scoring_never_turns_a_match_away(
            query in query(),
            fields in proptest::collection::vec(text(24), 1..6),
        ) {
            let mut fast = Search::new(&query);
            let mut plain = Search::new(&query);
            plain.letters = Letters::default();
            plain.bound = Bound::off();
            let mut chars = Vec::new();
            for field in &fields {
                let in_place = hay::in_place(field);
                let passes = match in_place {
                    Some(hay) => fast.letters.may_match(&hay),
                    None => fast.letters.may_match(&fast.reader.read(field)),
                };
                if !passes {
                    let hay = haystack(field, &mut chars);
                    prop_assert_eq!(plain.pattern.score(hay, &mut plain.matcher), None);
                }
            }
            let mut one = summary(&fields[0], &fields[1..].join("\n"), &[]);
            one.turns[0].title = fields.last().cloned();
            let found = fast.best(&one);
            prop_assert_eq!(&found, &plain.best(&one));
            prop_assert_eq!(&found, &matcher_alone(&query, &one));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]

        /// Sessions made of the recordings' real text, searched with queries made from it: the
        /// same sessions, order, scores, fields and characters with the tests before scoring as
        /// with the matcher alone.
        #[test]
        fn recorded_sessions_rank_the_same_with_the_tests_before_scoring(
            from in 0usize..100_000,
            picks in proptest::collection::vec((0usize..4, any::<bool>(), proptest::bool::weighted(0.2)), 2..10),
            shift in 0usize..100_000,
        ) {
            let fields = bound::tests::recorded_fields();
            let query = bound::tests::recorded_query(&fields[from % fields.len()], &picks);
            let list: Vec<SessionSummary> = (0..12)
                .map(|k| {
                    let at = |n: usize| fields[(shift + k * 37 + n) % fields.len()].as_str();
                    let answer: Vec<&str> = (3..30).map(at).collect();
                    summary(at(0), &answer.join("\n"), &[at(1), at(2)])
                })
                .collect();
            let mut fast = Search::new(&query);
            let mut plain = Search::new(&query);
            plain.letters = Letters::default();
            plain.bound = Bound::off();
            let ranked = fast.rank(&list, |s| s);
            prop_assert_eq!(&ranked, &plain.rank(&list, |s| s));
            for (i, hit) in &ranked {
                prop_assert_eq!(Some(hit.clone()), matcher_alone(&query, &list[*i]));
            }
            let found = ranked.iter().map(|(i, _)| *i);
            let alone = (0..list.len()).filter(|&i| matcher_alone(&query, &list[i]).is_some());
            prop_assert_eq!(found.count(), alone.count());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]

        /// Sessions of the recordings' real text written as index lines: searched with the first
        /// letters pass over the items as written, each finds the same best field, score and
        /// characters as with every field read.
        #[test]
        fn recorded_sessions_searched_from_index_lines_find_the_same_with_the_first_pass(
            from in 0usize..100_000,
            picks in proptest::collection::vec((0usize..4, any::<bool>(), proptest::bool::weighted(0.2)), 2..10),
            shift in 0usize..100_000,
        ) {
            use crate::local::index::{MetaStamp, Record, line};
            let fields = bound::tests::recorded_fields();
            let query = bound::tests::recorded_query(&fields[from % fields.len()], &picks);
            let mut search = Search::new(&query);
            let raw = search.raw_letters();
            let stamp = MetaStamp { ino: 1, size: 2, mtime_ns: 3 };
            for k in 0..12 {
                let at = |n: usize| fields[(shift + k * 37 + n) % fields.len()].as_str();
                let answer: Vec<&str> = (3..30).map(at).collect();
                let mut one = summary(at(0), &answer.join("\n"), &[at(1), at(2)]);
                one.meta.id = format!("session-{k}");
                let text = line(&one, stamp).unwrap();
                let record = Record::parse(text.trim_end_matches('\n')).unwrap();
                let first = search.best_of(record.fields_where(|item| raw.may_match(item)));
                prop_assert_eq!(&first, &search.best_of(record.fields()));
                let read = record.summary().unwrap();
                prop_assert_eq!(&first, &matcher_alone(&query, &read));
            }
        }
    }

    #[test]
    fn a_field_missing_a_letter_of_any_word_is_not_scored_but_accents_and_case_still_match() {
        let mut search = Search::new("cowos packaging");
        let mut may_match = |text| search.letters.may_match(&search.reader.read(text));
        assert!(may_match("TSMC: CoWoS advanced packaging"));
        assert!(!may_match("CoWoS capacity doubles"));
        // An accent might normalise to the letter sought; an ASCII letter only is itself.
        assert!(may_match("cöwos packagíng"));
        assert!(
            Search::new("cowos packaging")
                .best(&summary("cöwos pâckaging", "", &[]))
                .is_some()
        );
    }
}
