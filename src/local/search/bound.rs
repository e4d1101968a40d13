//! An upper bound on the score `nucleo` gives a field, cheap enough to compute before asking it:
//! a field whose bound is below what it needs (the floor, or more than the best field so far) is
//! never scored, which changes no result, since its score could not have counted.
//!
//! How `nucleo-matcher` 0.3 scores one word of the query in a field (its `score.rs`,
//! `fuzzy_optimal.rs`, `fuzzy_greedy.rs`, `exact.rs`; every path it takes is one of these):
//! every matched character earns 16; the word's first character also twice the bonus of its
//! position, a character after a gap once its bonus, a character right after the previous one the
//! larger of its bonus and the consecutive bonus carried along the run (at least 4, never above
//! the largest bonus, 10); a gap costs 3 for its first character and 1 for each further one,
//! subtracted with saturation at 0 (so after a long gap the score restarts from 0, not below).
//! The optimal match is a dynamic programme over those rules that keeps, per cell, the better of
//! two predecessors. A position's bonus depends only on its own and the previous character's
//! classes (at most 10: after a space).
//!
//! The bound runs the same programme with each rule made as generous as it can be: a character
//! right after the previous one earns 26 (16 + the largest bonus); a first character or one after
//! a gap earns exactly what it does in `nucleo`, from the same bonus table where both characters
//! are ASCII and with the largest bonus (10) next to anything else; gaps cost what they cost,
//! saturating the same way; a position matches a word's character if `nucleo` might match it
//! there (ASCII case ignored, a character beyond ASCII standing for every ASCII character it might
//! normalise or fold to, as [`super::could_be`] says). Every step being monotone and at least as
//! generous, each cell of the bound's programme is at least `nucleo`'s cell (which, where it reads
//! 0 from before the first possible match, is below a real path's value), and its best cell at
//! least `nucleo`'s score for the word. A word of one character, or with a character beyond
//! ASCII, is bounded by the most any word of its length can score (36, then 26 a character).
//! The query's bound is the sum of its words' bounds, as its score is the sum of their scores.
//!
//! Only matched positions are visited: each row of the programme is the word character's
//! occurrences, found with `memchr`, and a gap's cost is linear in its length, so the best
//! predecessor over a gap is a running maximum. A property test holds the bound at or above
//! `nucleo`'s score for random and recorded fields and queries, and search results equal.

/// What every matched character earns.
const MATCH: i32 = 16;
/// The largest bonus a position gets (after whitespace or at the start).
const MOST_BONUS: i32 = 10;
/// The most a character right after the previous matched one earns.
const CONSECUTIVE: i32 = MATCH + MOST_BONUS;
/// A gap of `g` characters costs `g + GAP_EXTRA` (3 for the first, 1 for each further one).
const GAP_EXTRA: i32 = 2;

/// The most a word of `len` characters can score anywhere.
pub fn most(len: usize) -> u32 {
    if len == 0 {
        return 0;
    }
    (MATCH + 2 * MOST_BONUS + (len as i32 - 1) * CONSECUTIVE) as u32
}

use super::hay::{Hay, NO_KEY};

/// `nucleo`'s character classes for ASCII characters (its `CharClass`, in the same order).
const WHITESPACE: u8 = 0;
const NON_WORD: u8 = 1;
const DELIMITER: u8 = 2;
const LOWER: u8 = 3;
const UPPER: u8 = 4;
const NUMBER: u8 = 6;

const fn class(c: u8) -> u8 {
    match c {
        b'a'..=b'z' => LOWER,
        b'A'..=b'Z' => UPPER,
        b'0'..=b'9' => NUMBER,
        // `u8::is_ascii_whitespace`, as `nucleo` asks.
        b' ' | b'\t' | b'\n' | b'\x0C' | b'\r' => WHITESPACE,
        // `Config::DEFAULT`'s delimiters.
        b'/' | b',' | b':' | b';' | b'|' => DELIMITER,
        _ => NON_WORD,
    }
}

/// The bonus `nucleo`'s default config gives a character of class `class` after one of class
/// `prev` (its `Config::bonus_for`).
const fn bonus(prev: u8, class: u8) -> u8 {
    if class > DELIMITER {
        match prev {
            WHITESPACE => return 10,
            DELIMITER => return 9,
            NON_WORD => return 8,
            _ => {}
        }
    }
    if prev == LOWER && class == UPPER || prev != NUMBER && class == NUMBER {
        5
    } else if class == WHITESPACE {
        10
    } else if class == NON_WORD {
        8
    } else {
        0
    }
}

/// The bonus of a character after another, `[prev][this]`, for ASCII characters and
/// [`NO_KEY`] (any other character: the largest bonus, whichever it follows or precedes).
static BONUS: [[u8; 129]; 129] = {
    let mut table = [[MOST_BONUS as u8; 129]; 129];
    let mut prev = 0;
    while prev < 128 {
        let mut this = 0;
        while this < 128 {
            table[prev][this] = bonus(class(prev as u8), class(this as u8));
            this += 1;
        }
        prev += 1;
    }
    table
};

/// The bonus of position `q` of `hay` (before the first, `nucleo` counts whitespace), or more.
#[inline]
fn bonus_at(hay: &Hay, q: usize) -> i32 {
    let prev = if q == 0 { b' ' } else { hay.raw[q - 1] };
    let this = hay.raw[q];
    BONUS[prev.min(NO_KEY) as usize][this.min(NO_KEY) as usize] as i32
}

/// One word of the query, as the bound reads it.
#[derive(Debug, Clone)]
enum Word {
    /// ASCII characters, lower case, at least two: bounded by the programme.
    Chars(Vec<u8>),
    /// One character, or characters beyond ASCII: bounded by [`most`] of its length.
    Most(u32),
}

impl Word {
    fn most(&self) -> u32 {
        match self {
            Word::Chars(chars) => most(chars.len()),
            Word::Most(most) => *most,
        }
    }
}

/// The bound for one query, with the programme's rows reused from field to field.
#[derive(Debug, Default)]
pub struct Bound {
    words: Vec<Word>,
    /// The sum of [`most`] over the words.
    most: u32,
    rows: Rows,
}

/// The programme's previous and current rows: (position, value) of each cell kept.
#[derive(Debug, Default)]
struct Rows {
    row: Vec<(u32, i32)>,
    next: Vec<(u32, i32)>,
}

impl Bound {
    /// The bound for a query of these words (each as `nucleo` holds it: its characters if all
    /// are ASCII, and its length).
    pub fn new<'w>(words: impl IntoIterator<Item = (Option<&'w [u8]>, usize)>) -> Bound {
        let words: Vec<Word> = words
            .into_iter()
            .map(|(ascii, len)| match ascii {
                Some(chars) if chars.len() > 1 => Word::Chars(chars.to_ascii_lowercase()),
                _ => Word::Most(most(len)),
            })
            .collect();
        Bound {
            most: words.iter().map(Word::most).sum(),
            words,
            ..Bound::default()
        }
    }

    /// A bound that lets every field through (to compare with).
    #[cfg(test)]
    pub fn off() -> Bound {
        Bound {
            most: u32::MAX,
            ..Bound::default()
        }
    }

    /// Whether `nucleo` might match `hay` and score it at `need` or more (false: it scores it
    /// lower, or does not match it).
    pub fn may_reach(&mut self, hay: &Hay, need: u32) -> bool {
        if self.most < need {
            return false;
        }
        // What the words not yet bounded might score at most, and the others' bounds.
        let mut rest = self.most;
        let mut total: u32 = 0;
        for word in &self.words {
            let Word::Chars(chars) = word else {
                continue;
            };
            rest -= most(chars.len());
            // What this word must score for the field to reach `need`.
            let want = need.saturating_sub(total + rest);
            let Some(bound) = self.rows.word(hay, chars, want) else {
                return false;
            };
            total += bound;
        }
        total + rest >= need
    }
}

impl Rows {
    /// The bound on `nucleo`'s score for a word of these ASCII characters (lower case, at least
    /// two) in `hay`, if it is `want` or more (`None`: it is less, or the word cannot match).
    fn word(&mut self, hay: &Hay, chars: &[u8], want: u32) -> Option<u32> {
        let (row, next) = (&mut self.row, &mut self.next);
        let want = want as i32;
        // A cell is kept only if the word might still reach `want` from it: each character after
        // it earns at most CONSECUTIVE, whatever the path (a gap only takes away), so a cell that
        // cannot is on no path that reaches it, and dropping it changes no bound at or above it.
        let alive = |value: i32, left: usize| value + left as i32 * CONSECUTIVE >= want;
        row.clear();
        for q in hay.positions(chars[0], 0) {
            let value = MATCH + 2 * bonus_at(hay, q);
            if alive(value, chars.len() - 1) {
                row.push((q as u32, value));
            }
        }
        for (i, &c) in chars.iter().enumerate().skip(1) {
            next.clear();
            let &(first, _) = row.first()?;
            // The best (value + position) of the previous row's cells at least two positions
            // before q: a gap from position p to q costs (q - p - 1) + GAP_EXTRA.
            let mut best = i32::MIN;
            let mut k = 0;
            for q in hay.positions(c, first as usize + 1) {
                let q32 = q as u32;
                while k < row.len() && row[k].0 + 2 <= q32 {
                    best = best.max(row[k].1 + row[k].0 as i32);
                    k += 1;
                }
                let mut value = i32::MIN;
                if k < row.len() && row[k].0 + 1 == q32 {
                    value = row[k].1 + CONSECUTIVE;
                }
                if best > i32::MIN {
                    let after_gap = (best - q as i32 + 1 - GAP_EXTRA).max(0);
                    value = value.max(after_gap + MATCH + bonus_at(hay, q));
                }
                if value > i32::MIN && alive(value, chars.len() - 1 - i) {
                    next.push((q32, value));
                }
            }
            std::mem::swap(row, next);
        }
        row.iter()
            .map(|&(_, value)| value as u32)
            .max()
            .filter(|&bound| bound as i32 >= want)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::hay::Reader;
    use super::*;
    use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
    use nucleo_matcher::{Config, Matcher, Utf32Str};
    use proptest::prelude::*;

    impl Bound {
        /// The bound itself: the sum of the words' bounds (`None` if a word cannot match).
        fn total(&mut self, hay: &Hay) -> Option<u32> {
            let mut total = 0;
            for word in &self.words {
                total += match word {
                    Word::Chars(chars) => self.rows.word(hay, chars, 0)?,
                    Word::Most(most) => *most,
                };
            }
            Some(total)
        }
    }

    fn pattern(query: &str) -> Pattern {
        Pattern::new(
            query,
            CaseMatching::Smart,
            Normalization::Smart,
            AtomKind::Fuzzy,
        )
    }

    fn bound(pattern: &Pattern) -> Bound {
        Bound::new(pattern.atoms.iter().map(|atom| match atom.needle_text() {
            Utf32Str::Ascii(word) => (Some(word), word.len()),
            Utf32Str::Unicode(word) => (None, word.len()),
        }))
    }

    /// `nucleo`'s score for `text`, read as the search reads it.
    fn score(pattern: &Pattern, matcher: &mut Matcher, text: &str) -> Option<u32> {
        let chars: Vec<char> = text.chars().collect();
        let hay = if text.is_ascii() {
            Utf32Str::Ascii(text.as_bytes())
        } else {
            Utf32Str::Unicode(&chars)
        };
        pattern.score(hay, matcher)
    }

    /// Checks the bound of `query` against `nucleo` on `text`: never below its score, and the
    /// quick answer (which drops hopeless cells) the same as the bound's for any need.
    fn check(query: &str, text: &str, needs: &[u32]) -> Result<(), TestCaseError> {
        let pattern = pattern(query);
        let mut bound = bound(&pattern);
        let mut matcher = Matcher::new(Config::DEFAULT);
        let mut reader = Reader::default();
        let hay = reader.read(text);
        let total = bound.total(&hay);
        if let Some(score) = score(&pattern, &mut matcher, text) {
            prop_assert!(
                total.is_some_and(|total| total >= score),
                "{query:?} in {text:?}: nucleo {score}, bound {total:?}"
            );
            prop_assert!(bound.may_reach(&hay, score), "{query:?} in {text:?}");
        }
        for &need in needs {
            prop_assert_eq!(
                bound.may_reach(&hay, need),
                total.is_some_and(|total| total >= need),
                "{:?} in {:?}, need {}",
                query,
                text,
                need
            );
        }
        Ok(())
    }

    /// Pieces of fields: every character class (cases, digits, whitespace of several kinds,
    /// delimiters, other punctuation), characters that normalise or fold to ASCII letters, some
    /// that look like they might and do not, CJK, emoji and combining marks.
    const PIECES: &[&str] = &[
        "a", "A", "n", "N", "m", "s", "S", "k", "K", "i", "g", "ia", "Nv", "nvidia", "NVIDIA",
        "margin", "Margins", "mar", "gins", "cowos", "CoWoS", "pack", "aging", "1", "27", " ",
        "  ", "\t", "\n", "\x0C", "\u{a0}", "/", ",", ":", ";", "|", "-", "_", ".", "'", "(", "\\",
        "é", "É", "ä", "ö", "ü", "ſ", "\u{212a}", "ß", "ǅ", "\u{301}", "\u{1d00}", "\u{2098}",
        "\u{ff21}", "—", "’", "€", "出光", "📌", "İ",
    ];

    fn text(max: usize) -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(PIECES), 0..max)
            .prop_map(|pieces| pieces.concat())
    }

    /// ASCII words (a word beyond ASCII is bounded by its length alone, and the matcher's debug
    /// build trips its own assertion on some), one to three of them.
    fn query() -> impl Strategy<Value = String> {
        let ascii: Vec<&str> = PIECES
            .iter()
            .copied()
            .filter(|p| p.is_ascii() && !p.trim().is_empty() && !p.contains('\\'))
            .collect();
        let word = proptest::collection::vec(proptest::sample::select(ascii), 1..4)
            .prop_map(|pieces| pieces.concat());
        proptest::collection::vec(word, 1..4).prop_map(|words| words.join(" "))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn the_bound_is_never_below_the_matchers_score(
            query in query(),
            field in text(40),
            needs in proptest::collection::vec(0u32..700, 4),
        ) {
            check(&query, &field, &needs)?;
        }
    }

    /// Every searchable field of every recording in `assets/recordings`, as its session's
    /// summary holds it (questions, plan titles, source titles, answer lines).
    pub(in crate::local::search) fn recorded_fields() -> &'static [String] {
        static FIELDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
        FIELDS.get_or_init(|| {
            let mut fields = Vec::new();
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/recordings");
            let tmp = tempfile::tempdir().unwrap();
            for provider in std::fs::read_dir(&root).unwrap().flatten() {
                let name = provider.file_name().to_string_lossy().into_owned();
                for file in std::fs::read_dir(provider.path()).unwrap().flatten() {
                    if file.path().extension().is_none_or(|e| e != "sse") {
                        continue;
                    }
                    let stem = file
                        .path()
                        .file_stem()
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    let id = format!("{name}-{stem}");
                    let dir = tmp.path().join(&id);
                    std::fs::create_dir(&dir).unwrap();
                    let meta = serde_json::json!({
                        "id": id, "created_at": "", "updated_at": "", "endpoint": "research-agent",
                        "provider": name, "base_url": "", "chat_id": null, "execution_id": null,
                        "turns": [{"question": "q", "started_at": "", "ended_at": "",
                            "from_checkpoint_id": null, "checkpoint_id": null,
                            "status": "complete", "stream_file": "turn-001.sse"}],
                    });
                    std::fs::write(dir.join("meta.json"), meta.to_string()).unwrap();
                    std::fs::copy(file.path(), dir.join("turn-001.sse")).unwrap();
                    let Ok(summary) = crate::local::summary::load(&dir) else {
                        continue;
                    };
                    for turn in summary.turns {
                        fields.extend(turn.title);
                        fields.extend(turn.sources);
                        fields.extend(turn.answer.lines().map(str::to_owned));
                    }
                }
            }
            fields.retain(|field| !field.trim().is_empty());
            fields
        })
    }

    /// A query made from a recorded field: a few runs of its ASCII letters and digits, in order,
    /// some in another case, split into words (what someone half remembering it might type).
    pub(in crate::local::search) fn recorded_query(
        field: &str,
        picks: &[(usize, bool, bool)],
    ) -> String {
        let chars: Vec<char> = field.chars().filter(char::is_ascii_alphanumeric).collect();
        let mut query = String::new();
        let mut at = 0;
        for &(skip, upper, space) in picks {
            at += skip;
            let Some(&c) = chars.get(at) else { break };
            query.push(if upper {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            });
            if space {
                query.push(' ');
            }
            at += 1;
        }
        query
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]

        /// Over the recordings' real text (prose, tables, links, accents, emoji, dashes), with
        /// queries made from it: the bound is never below `nucleo`'s score.
        #[test]
        fn the_bound_holds_on_recorded_answers(
            from in 0usize..100_000,
            picks in proptest::collection::vec((0usize..4, any::<bool>(), proptest::bool::weighted(0.2)), 2..12),
            others in proptest::collection::vec(0usize..100_000, 24),
            needs in proptest::collection::vec(0u32..600, 3),
        ) {
            let fields = recorded_fields();
            prop_assert!(fields.len() > 400, "{}", fields.len());
            let field = &fields[from % fields.len()];
            let query = recorded_query(field, &picks);
            if query.trim().is_empty() {
                return Ok(());
            }
            check(&query, field, &needs)?;
            for other in others {
                check(&query, &fields[other % fields.len()], &needs)?;
            }
        }
    }

    #[test]
    fn the_bound_is_exact_where_the_rules_leave_no_slack() {
        // A word at the start, every character consecutive: 36 + 26 a character, as the matcher.
        let mut matcher = Matcher::new(Config::DEFAULT);
        for (query, text) in [("nvidia", "nvidia margins"), ("margins", "Q1 margins")] {
            let pattern = pattern(query);
            let mut reader = Reader::default();
            let total = bound(&pattern).total(&reader.read(text));
            assert_eq!(total, score(&pattern, &mut matcher, text), "{query}");
        }
        // Letters scattered over prose: far below what the query scores against itself.
        let mut reader = Reader::default();
        let scattered = reader.read("many vivid ideas around the market, a region in sales");
        let own = 166 + 192;
        let total = bound(&pattern("nvidia margins")).total(&scattered).unwrap();
        assert!(total < own * 80 / 100, "{total}");
    }
}
