//! A field as the tests before scoring read it, and the first test: that every word's characters
//! occur in the field in order.
//!
//! `nucleo`'s fuzzy match needs each character of a word matched, in order, by a character of the
//! field equal to it after normalisation and case folding (each as the word asks). An ASCII
//! character of the field stays ASCII, equal to the word's character ignoring ASCII case; any
//! other character counts for every ASCII character it, normalised or folded, might become (`é`
//! for `e`, the Kelvin sign for `k`; a dash or a CJK character for none): its *key*. A field
//! beyond ASCII is read once into one key a `char` (positions as the matcher counts them); an
//! ASCII field is read in place, each character in either case.

use std::sync::OnceLock;

/// The key of a character that matches no ASCII character.
pub const NO_KEY: u8 = 0x80;
/// The key of a character that might match several ASCII characters.
pub const ANY_KEY: u8 = 0x81;

/// A field, read: its characters (ASCII bytes; a character beyond ASCII as [`NO_KEY`]) and, for
/// a field beyond ASCII, each character's key.
#[derive(Debug, Clone, Copy)]
pub struct Hay<'a> {
    /// One byte a position: the ASCII character, or [`NO_KEY`] for any other (for bonuses).
    pub raw: &'a [u8],
    /// One key a position, for a field beyond ASCII (`None`: the keys are `raw` in either case).
    keys: Option<&'a [u8]>,
    /// Whether some key is [`ANY_KEY`].
    any: bool,
}

/// The buffers a field beyond ASCII is read into, reused from field to field.
#[derive(Debug, Default)]
pub struct Reader {
    raw: Vec<u8>,
    keys: Vec<u8>,
}

/// `text` as the letters test may read it: in place, one position a byte, unless it has a
/// character beyond ASCII that might match an ASCII one (`None`: read it with [`Reader::read`]).
/// The bytes of a character beyond ASCII are never ASCII, so they match nothing, as its key says.
pub fn in_place(text: &str) -> Option<Hay<'_>> {
    let bytes = text.as_bytes();
    (text.is_ascii() || !may_fold(bytes)).then_some(Hay {
        raw: bytes,
        keys: None,
        any: false,
    })
}

/// Whether UTF-8 `bytes` might hold a character with a key beyond ASCII: one in U+00C0–U+036F
/// (lead bytes C3–CD), U+1D00–U+1EF1 (lead byte E1) or U+2071–U+2184 (E2, then 81–86). A
/// dash, a quote or an ellipsis (E2 80) is not one.
pub fn may_fold(bytes: &[u8]) -> bool {
    let lead = bytes.iter().fold(false, |seen, &b| {
        seen | (b.wrapping_sub(0xC3) <= 0xCD - 0xC3) | (b == 0xE1)
    });
    lead || memchr::memchr_iter(0xE2, bytes)
        .any(|at| matches!(bytes.get(at + 1), Some(0x81..=0x86)))
}

impl Reader {
    /// `text`, which [`in_place`] takes as it is, read one position a `char`, as the matcher
    /// counts them: as [`Reader::read`] reads it, without decoding a `char` (none of its
    /// characters beyond ASCII has a key, so each is one [`NO_KEY`] position, found from its
    /// first byte, and the keys are the positions in either case).
    pub fn read_in_place<'a>(&'a mut self, text: &'a str) -> Hay<'a> {
        let bytes = text.as_bytes();
        if text.is_ascii() {
            return Hay {
                raw: bytes,
                keys: None,
                any: false,
            };
        }
        self.raw.clear();
        // A `char` starts at every byte that is not a continuation byte (10xxxxxx).
        self.raw.extend(
            bytes
                .iter()
                .filter(|&&b| b & 0xC0 != 0x80)
                .map(|&b| b.min(NO_KEY)),
        );
        Hay {
            raw: &self.raw,
            keys: None,
            any: false,
        }
    }

    /// `text`, read one position a `char`, as the matcher counts them.
    pub fn read<'a>(&'a mut self, text: &'a str) -> Hay<'a> {
        if text.is_ascii() {
            return Hay {
                raw: text.as_bytes(),
                keys: None,
                any: false,
            };
        }
        self.raw.clear();
        self.keys.clear();
        let mut any = false;
        for c in text.chars() {
            let key = key(c);
            any |= key == ANY_KEY;
            self.keys.push(key);
            self.raw.push(if c.is_ascii() { c as u8 } else { NO_KEY });
        }
        Hay {
            raw: &self.raw,
            keys: Some(&self.keys),
            any,
        }
    }
}

impl Hay<'_> {
    /// The first position from `from` on that might match `c` (an ASCII character, lower case).
    #[inline]
    pub fn find(&self, c: u8, from: usize) -> Option<usize> {
        let at = match self.keys {
            Some(keys) => {
                let keys = keys.get(from..)?;
                if self.any {
                    memchr::memchr2(c, ANY_KEY, keys)
                } else {
                    memchr::memchr(c, keys)
                }
            }
            None => {
                let raw = self.raw.get(from..)?;
                let upper = c.to_ascii_uppercase();
                if upper == c {
                    memchr::memchr(c, raw)
                } else {
                    memchr::memchr2(c, upper, raw)
                }
            }
        };
        at.map(|at| from + at)
    }

    /// Every position from `from` on that might match `c` (an ASCII character, lower case), in
    /// order.
    pub fn positions(&self, c: u8, from: usize) -> Positions<'_, '_> {
        Positions { hay: self, c, from }
    }
}

/// Positions that might match a character: see [`Hay::positions`].
pub struct Positions<'h, 'a> {
    hay: &'h Hay<'a>,
    c: u8,
    from: usize,
}

impl Iterator for Positions<'_, '_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let at = self.hay.find(self.c, self.from)?;
        self.from = at + 1;
        Some(at)
    }
}

/// The test a field passes before the matcher scores it, which no field the matcher would match
/// fails, so it changes no result: every word's characters must occur in the field in order, as
/// [`Hay::find`] finds them. A word with a character beyond ASCII is not tested. The matcher skips
/// most fields on a test like this itself, but a word at a time (a field whose first word passes
/// is scored for that word before its second word fails), and only after copying a field with
/// characters beyond ASCII to one `char` each.
#[derive(Debug, Default, Clone)]
pub struct Letters {
    /// Each testable word's characters, ASCII lower case.
    words: Vec<Vec<u8>>,
}

impl Letters {
    /// The test for these words (each as `nucleo` holds it; `None` for one beyond ASCII).
    pub fn of<'w>(words: impl IntoIterator<Item = Option<&'w [u8]>>) -> Letters {
        let words = words
            .into_iter()
            .flatten()
            .map(<[u8]>::to_ascii_lowercase)
            .collect();
        Letters { words }
    }

    /// Whether the matcher might match every word in `hay` (false: it matches none).
    pub fn may_match(&self, hay: &Hay) -> bool {
        self.words.iter().all(|word| {
            let mut from = 0;
            word.iter()
                .all(|&c| hay.find(c, from).map(|at| from = at + 1).is_some())
        })
    }
}

/// The letters test as a first pass over an item of the sessions index as written (see
/// `index::record`): escaped, with its kind before it, bytes not yet checked to be one field.
/// It passes every item whose field [`Letters::may_match`] passes, so an item it fails needs no
/// unescaping, no reading and no other test: escaping only adds characters, a kind only adds
/// characters before the field, and a character beyond ASCII with a key has a first byte that
/// passes for any character here (a byte [`may_fold`] looks for).
///
/// Two steps, both a table lookup a byte: whether the item holds every character the words need
/// at all (four running masks, no branch), then each word's characters in order.
#[derive(Debug, Clone)]
pub struct RawLetters {
    /// For each byte, the word characters it might be (a bit each, [`u64::MAX`]: any; E2:
    /// [`E2_BIT`] only, any when the next byte is 81–86).
    table: Box<[u64; 256]>,
    /// Each word's characters, as their bits.
    words: Vec<Vec<u64>>,
    /// Every bit a word asks for.
    need: u64,
}

/// The bit of byte E2, whose character might be a letter only when the next byte is 81–86 (most
/// are dashes and quotes, E2 80, which stand for nothing): no word character has it.
const E2_BIT: u64 = 1 << 63;

impl Default for RawLetters {
    fn default() -> RawLetters {
        Letters::default().raw()
    }
}

impl Letters {
    /// The same test, as a first pass over index items.
    pub fn raw(&self) -> RawLetters {
        let mut distinct: Vec<u8> = self.words.iter().flatten().copied().collect();
        distinct.sort_unstable();
        distinct.dedup();
        let mut table = Box::new([0u64; 256]);
        if distinct.len() >= 64 {
            // More characters than bits (no real query): every byte might be any of them.
            table.fill(u64::MAX);
        }
        let bit = |c: u8| {
            distinct
                .iter()
                .position(|&d| d == c)
                .map_or(u64::MAX, |at| {
                    1u64.checked_shl(at as u32).unwrap_or(u64::MAX)
                })
        };
        for b in 0..=255u8 {
            table[b as usize] |= match b {
                0..=0x7F if distinct.contains(&b.to_ascii_lowercase()) => {
                    bit(b.to_ascii_lowercase())
                }
                // A first byte of a character that might have a key.
                0xC3..=0xCD | 0xE1 => u64::MAX,
                0xE2 => E2_BIT,
                _ => 0,
            };
        }
        let words: Vec<Vec<u64>> = self
            .words
            .iter()
            .map(|word| word.iter().map(|&c| bit(c)).collect())
            .collect();
        let need = words.iter().flatten().fold(0, |need, bit| need | bit);
        RawLetters { table, words, need }
    }
}

impl RawLetters {
    /// Whether the field in `item` might pass [`Letters::may_match`] (false: it does not).
    pub fn may_match(&self, item: &[u8]) -> bool {
        self.holds_all(item) && self.in_order(item)
    }

    /// Whether `item` holds a byte that might be each character the words need.
    fn holds_all(&self, item: &[u8]) -> bool {
        let mut masks = [0u64; 4];
        let mut quads = item.chunks_exact(4);
        for quad in &mut quads {
            for (mask, &b) in masks.iter_mut().zip(quad) {
                *mask |= self.table[b as usize];
            }
        }
        let tail = quads.remainder().iter().map(|&b| self.table[b as usize]);
        let all = masks.iter().copied().chain(tail).fold(0, |all, m| all | m);
        all & self.need == self.need
            || all & E2_BIT != 0
                && memchr::memchr_iter(0xE2, item)
                    .any(|at| matches!(item.get(at + 1), Some(0x81..=0x86)))
    }

    /// Whether every word's characters occur in `item` in order.
    fn in_order(&self, item: &[u8]) -> bool {
        self.words.iter().all(|word| {
            let mut at = 0;
            word.iter().all(|&bit| {
                while let Some(&b) = item.get(at) {
                    at += 1;
                    if self.table[b as usize] & (bit | E2_BIT) != 0
                        && (b != 0xE2 || matches!(item.get(at), Some(0x81..=0x86)))
                    {
                        return true;
                    }
                }
                false
            })
        })
    }
}

/// The key of `c`: its ASCII character in lower case, or for another character the one ASCII
/// character (lower case) it might match, normalised or folded, [`ANY_KEY`] if several, [`NO_KEY`]
/// if none.
///
/// Only characters `nucleo` normalises (its tables cover U+00C0–U+036F, U+1D00–U+1EF1 and
/// U+2071–U+2184) or folds to ASCII (the long s and the Kelvin sign, both in those ranges) can
/// have a key: those are looked up, in a table made once; every other character is [`NO_KEY`]
/// at once (a test holds this equal to asking the matcher's tables, for every `char`).
pub fn key(c: char) -> u8 {
    let code = c as u32;
    if code < 0x80 {
        return (code as u8).to_ascii_lowercase();
    }
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    let table = || {
        TABLE.get_or_init(|| {
            (TABLE_START..TABLE_END)
                .map(|code| char::from_u32(code).map_or(NO_KEY, slow_key))
                .collect()
        })
    };
    match code {
        0xC0..=0x36F | 0x1D00..=0x1EF1 | 0x2071..=0x2184 => table()[(code - TABLE_START) as usize],
        _ => NO_KEY,
    }
}

/// The characters [`key`] looks up in its table.
const TABLE_START: u32 = 0xC0;
const TABLE_END: u32 = 0x2185;

/// [`key`], asking the matcher's normalisation and case folding.
pub fn slow_key(c: char) -> u8 {
    if c.is_ascii() {
        return (c as u8).to_ascii_lowercase();
    }
    let normal = nucleo_matcher::chars::normalize(c);
    let mut found = NO_KEY;
    for v in [
        normal,
        nucleo_matcher::chars::to_lower_case(c),
        nucleo_matcher::chars::to_lower_case(normal),
    ] {
        if v.is_ascii() {
            let v = (v as u8).to_ascii_lowercase();
            if found == NO_KEY || found == v {
                found = v;
            } else {
                return ANY_KEY;
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_character_has_the_key_the_matchers_tables_give_it() {
        let mut with_key = 0;
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(key(c), slow_key(c), "{c:?} U+{:04X}", c as u32);
            with_key += usize::from(!c.is_ascii() && key(c) != NO_KEY);
        }
        // Accented Latin letters and their like: hundreds, not none.
        assert!(with_key > 300, "{with_key}");
        assert_eq!(key('é'), b'e');
        assert_eq!(key('\u{212A}'), b'k');
        assert_eq!(key('ſ'), b's');
        assert_eq!(key('—'), NO_KEY);
    }

    #[test]
    fn a_field_with_a_character_that_has_a_key_beyond_ascii_is_never_read_in_place() {
        let mut in_place = 0;
        for c in (0x80..=0x10FFFF).filter_map(char::from_u32) {
            let text = format!("x{c}y");
            if key(c) != NO_KEY {
                assert!(may_fold(text.as_bytes()), "{c:?} U+{:04X}", c as u32);
            } else {
                in_place += usize::from(!may_fold(text.as_bytes()));
            }
        }
        // Most characters beyond ASCII (dashes, quotes, CJK, emoji) leave a field in place.
        assert!(in_place > 1_000_000, "{in_place}");
        assert!(in_place_positions("a — b’s “c” …").is_some());
        assert!(in_place_positions("café").is_none());
    }

    fn in_place_positions(text: &str) -> Option<Vec<usize>> {
        in_place(text).map(|hay| hay.positions(b'a', 0).collect())
    }

    #[test]
    fn the_first_pass_over_an_item_passes_every_character_that_might_be_a_letter() {
        // Every character with a key, between two letters, in an item with a kind before it.
        for c in (0x80..=0x10FFFF).filter_map(char::from_u32) {
            let wanted = match key(c) {
                NO_KEY => continue,
                ANY_KEY => b'q',
                k => k,
            };
            let word = [b'x', wanted, b'y'];
            let raw = Letters::of([Some(&word[..])]).raw();
            let item = format!("a0:x{c}y");
            assert!(raw.may_match(item.as_bytes()), "{c:?} U+{:04X}", c as u32);
        }
    }

    #[test]
    fn the_first_pass_turns_away_items_missing_a_letter_or_out_of_order() {
        let raw = Letters::of([Some(&b"cowos"[..]), Some(&b"packaging"[..])]).raw();
        assert!(raw.may_match(b"a0:TSMC: CoWoS advanced PACKAGING"));
        assert!(!raw.may_match(b"a0:CoWoS capacity doubles"));
        assert!(!raw.may_match(b"a0:sowoc gnigakcap"));
        // A dash or a quote (E2 80) stands for nothing; a character that might be a letter for any.
        assert!(!raw.may_match("a0:cow\u{2014}s packaging".as_bytes()));
        assert!(raw.may_match("a0:cow\u{f6}s packaging".as_bytes()));
        assert!(raw.may_match("a0:cow\u{2092}s packaging".as_bytes()));
        // No words: every item passes.
        assert!(Letters::default().raw().may_match(b""));
    }

    #[test]
    fn positions_are_found_in_order_from_where_asked() {
        let text: String = (0..300)
            .map(|i| if i % 7 == 0 { 'A' } else { 'b' })
            .collect();
        let mut reader = Reader::default();
        let hay = reader.read(&text);
        for from in [0, 1, 63, 64, 65, 127, 128, 290, 299, 300, 400] {
            let found: Vec<usize> = hay.positions(b'a', from).collect();
            let expected: Vec<usize> = (from..300).filter(|i| i % 7 == 0).collect();
            assert_eq!(found, expected, "from {from}");
        }
        let text = format!("é{text}");
        let hay = reader.read(&text);
        assert_eq!(hay.positions(b'e', 0).collect::<Vec<_>>(), [0]);
        assert_eq!(hay.positions(b'a', 0).next(), Some(1));
    }

    /// Pieces of text a field read in place may hold: ASCII of every class, characters of two,
    /// three and four bytes with no key (no-break space, dashes, quotes, an ellipsis, CJK, emoji).
    const PIECES: &[&str] = &[
        "a",
        "N",
        "v",
        "K",
        "s",
        " ",
        "-",
        "1",
        ":",
        "\\",
        "\u{7f}",
        "\u{2014}",
        "\u{2019}",
        "\u{2026}",
        "出光",
        "🔋",
        "\u{10348}",
        "\u{a0}",
        "\u{80}",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// A field read in place from its bytes has the positions and characters of one read a
        /// `char` at a time: every ASCII character is found at the same positions.
        #[test]
        fn a_field_read_in_place_has_the_positions_of_one_read_a_char_at_a_time(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..30),
        ) {
            let text = pieces.concat();
            proptest::prop_assert!(in_place(&text).is_some());
            let mut slow = Reader::default();
            let mut fast = Reader::default();
            let (slow, fast) = (slow.read(&text), fast.read_in_place(&text));
            proptest::prop_assert_eq!(slow.raw, fast.raw);
            for c in 0..0x80u8 {
                let c = c.to_ascii_lowercase();
                for from in [0, 1, 5] {
                    let slow: Vec<usize> = slow.positions(c, from).collect();
                    let fast: Vec<usize> = fast.positions(c, from).collect();
                    proptest::prop_assert_eq!(slow, fast, "{:?} from {}", c as char, from);
                }
            }
        }
    }

    #[test]
    fn a_field_beyond_ascii_is_read_one_position_a_char() {
        let mut reader = Reader::default();
        let hay = reader.read("Ré—sumé K\u{212A}");
        assert_eq!(hay.raw.len(), 10);
        assert_eq!(hay.raw[1], NO_KEY);
        assert_eq!(hay.find(b'e', 0), Some(1));
        assert_eq!(hay.find(b'e', 2), Some(6));
        assert_eq!(hay.find(b'k', 0), Some(8));
        assert_eq!(hay.find(b'k', 9), Some(9));
        assert_eq!(hay.find(b'-', 0), None);
        let ascii = reader.read("Resume K");
        assert_eq!(ascii.find(b'r', 0), Some(0));
        assert_eq!(ascii.find(b'k', 0), Some(7));
        assert_eq!(ascii.find(b' ', 0), Some(6));
    }
}
