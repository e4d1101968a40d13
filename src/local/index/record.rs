//! One line of the sessions index: a session's state on disk (the stamp its freshness is checked
//! with) and what listing and searching it need, as tab-separated text with tabs, newlines and
//! backslashes escaped, so a line is read without a JSON parse:
//!
//! `rt1.V ID INO.SIZE.MTIME TURN:SIZE,… UPDATED PROVIDER TURNS STATUS CHECKPOINT QUESTION ITEM… META LENGTH`
//!
//! where V is the summary's [`VERSION`] (a line written by a build that summarised sessions
//! differently is stale and the session is read raw again), CHECKPOINT is `-` (none) or `=` and the id, each ITEM is a searchable field as the search
//! takes it (`q` a question line, `tN:` turn N's plan title, `sN:` a source title, `aN:` an answer
//! line of the first [`ANSWER_HEAD`] bytes), META is `meta.json` as compact JSON and LENGTH the
//! byte length of the line before it, so a line cut short, or glued to the next, is not taken.

use std::borrow::Cow;
use std::path::Path;

use crate::local::meta::SessionMeta;
use crate::local::search::Field;
use crate::local::session_files::is_plain_name;
use crate::local::summary::{SessionSummary, TurnSummary, VERSION};
use crate::local::turn_status::TurnStatus;

/// The first field of every line of this layout, before `.` and the summary's [`VERSION`] (a line
/// of another layout, or of another way of summarising a session, is not read).
const TAG: &str = "rt1";

/// Whether `field` is the tag of this layout and this summary version.
fn is_current_tag(field: &str) -> bool {
    field
        .strip_prefix(TAG)
        .and_then(|rest| rest.strip_prefix('.'))
        .is_some_and(|version| version.parse() == Ok(VERSION))
}

/// Before the turn files of a session with a turn streaming: its record is never taken as fresh
/// (a live turn is read from its growing file), but it is written, so an older record cannot pass
/// for the session's state.
const LIVE: &str = "!";

/// How much of each turn's answer the index keeps for search (bytes, cut at a character): the
/// opening of an answer, where its findings are stated, without a 100,000-session history costing
/// gigabytes to read per query.
pub const ANSWER_HEAD: usize = 4 * 1024;

/// The state of a session's `meta.json` as one `stat` tells it: every writer replaces the file
/// (a new inode) and a hand edit changes its size or time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetaStamp {
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
}

impl MetaStamp {
    pub fn of(metadata: &std::fs::Metadata) -> MetaStamp {
        use std::os::unix::fs::MetadataExt;
        MetaStamp {
            ino: metadata.ino(),
            size: metadata.size(),
            mtime_ns: i128::from(metadata.mtime()) * 1_000_000_000
                + i128::from(metadata.mtime_nsec()),
        }
    }

    pub(super) fn parse(text: &str) -> Option<MetaStamp> {
        let mut parts = text.split('.');
        let stamp = MetaStamp {
            ino: parts.next()?.parse().ok()?,
            size: parts.next()?.parse().ok()?,
            mtime_ns: parts.next()?.parse().ok()?,
        };
        parts.next().is_none().then_some(stamp)
    }
}

/// A line of the index, read: borrowed from the line except where unescaping was needed.
#[derive(Debug)]
pub struct Record<'a> {
    pub id: &'a str,
    pub stamp: MetaStamp,
    turns: &'a str,
    pub updated_at: Cow<'a, str>,
    pub provider: Cow<'a, str>,
    pub turn_count: usize,
    pub status: Cow<'a, str>,
    pub checkpoint: Option<Cow<'a, str>>,
    pub question: Cow<'a, str>,
    /// The items, tab-separated (`None`: there are none).
    items: Option<&'a str>,
    pub meta_json: &'a str,
}

impl<'a> Record<'a> {
    /// The line's record, if it is one of this layout; its searchable items
    /// are split only when they are asked for.
    pub fn parse(line: &'a str) -> Option<Record<'a>> {
        // A line cut short (a torn write, a truncated file) does not end in its own length.
        let (line, length) = line.rsplit_once('\t')?;
        if length.parse::<usize>().ok()? != line.len() {
            return None;
        }
        let mut fields = line.splitn(11, '\t');
        let mut next = || fields.next();
        let head: [&str; 10] = [
            next()?,
            next()?,
            next()?,
            next()?,
            next()?,
            next()?,
            next()?,
            next()?,
            next()?,
            next()?,
        ];
        // The items and the meta: the meta is the last field.
        let rest = next()?;
        let (items, meta_json) = match rest.rsplit_once('\t') {
            Some((items, meta)) => (Some(items), meta),
            None => (None, rest),
        };
        if !is_current_tag(head[0]) {
            return None;
        }
        let checkpoint = match head[8].split_at_checked(1)? {
            ("-", "") => None,
            ("=", id) => Some(unescape(id)),
            _ => return None,
        };
        Some(Record {
            id: head[1],
            stamp: MetaStamp::parse(head[2])?,
            turns: head[3],
            updated_at: unescape(head[4]),
            provider: unescape(head[5]),
            turn_count: head[6].parse().ok()?,
            status: unescape(head[7]),
            checkpoint,
            question: unescape(head[9]),
            items,
            meta_json,
        })
    }

    /// The searchable items, as written.
    fn items(&self) -> impl Iterator<Item = &'a str> + 'a {
        let (items, mut at) = match self.items {
            Some(items) => (items, 0),
            None => ("", 1),
        };
        // Split at tabs with `memchr`'s vector search (`str::split` walks a word at a time).
        std::iter::from_fn(move || {
            let rest = items.get(at..)?;
            let end = memchr::memchr(b'\t', rest.as_bytes()).unwrap_or(rest.len());
            at += end + 1;
            Some(&rest[..end])
        })
    }

    /// The turn files and their sizes when the record was made.
    pub fn turn_files(&self) -> impl Iterator<Item = Option<(&'a str, u64)>> + 'a {
        let turns = self.turns.strip_prefix(LIVE).unwrap_or(self.turns);
        turns.split(',').filter(|t| !t.is_empty()).map(|turn| {
            let (name, size) = turn.rsplit_once(':')?;
            Some((name, size.parse().ok()?))
        })
    }

    /// Whether the session still is as recorded: the meta's stamp is `disk`, every turn file has
    /// its size, and no turn streams (a live turn is read from its growing file).
    pub fn is_fresh(&self, dir: &Path, disk: MetaStamp) -> bool {
        self.is_fresh_by(disk, |name| {
            std::fs::metadata(dir.join(name)).ok().map(|m| m.len())
        })
    }

    /// [`Record::is_fresh`], with the size of a turn file (by name) from `size`.
    pub fn is_fresh_by(&self, disk: MetaStamp, mut size: impl FnMut(&str) -> Option<u64>) -> bool {
        self.stamp == disk
            && !self.turns.starts_with(LIVE)
            && self.turn_files().all(|turn| {
                turn.is_some_and(|(name, recorded)| {
                    is_plain_name(name) && size(name) == Some(recorded)
                })
            })
    }

    /// The searchable fields, in the order the search takes a summary's.
    pub fn fields(&self) -> impl Iterator<Item = (Field, Cow<'a, str>)> + '_ {
        self.fields_where(|_| true)
    }

    /// [`Record::fields`] whose item, as written, passes `keep` (the others not even unescaped).
    pub fn fields_where<'s>(
        &'s self,
        keep: impl Fn(&[u8]) -> bool + 's,
    ) -> impl Iterator<Item = (Field, Cow<'a, str>)> + 's {
        self.items()
            .filter(move |item| keep(item.as_bytes()))
            .filter_map(field_of)
    }

    /// The session's meta.
    pub fn meta(&self) -> Option<SessionMeta> {
        serde_json::from_str(self.meta_json).ok()
    }

    /// The session's summary as the index keeps it (answers cut to their heads).
    pub fn summary(&self) -> Option<SessionSummary> {
        let meta = self.meta()?;
        let sizes: Vec<Option<(&str, u64)>> = self.turn_files().collect();
        let mut turns: Vec<TurnSummary> = meta
            .turns
            .iter()
            .enumerate()
            .map(|(n, turn)| TurnSummary {
                stream_file: turn.stream_file.clone(),
                bytes: sizes.get(n).copied().flatten().map_or(0, |(_, size)| size),
                ..TurnSummary::default()
            })
            .collect();
        for item in self.items() {
            let (kind, rest) = item.split_at_checked(1)?;
            if kind == "q" {
                continue;
            }
            let (n, text) = rest.split_once(':')?;
            let turn = turns.get_mut(n.parse::<usize>().ok()?)?;
            let text = unescape(text).into_owned();
            match kind {
                "t" => turn.title = Some(text),
                "s" => turn.sources.push(text),
                "a" if turn.answer.is_empty() => turn.answer = text,
                "a" => {
                    turn.answer.push('\n');
                    turn.answer.push_str(&text);
                }
                _ => return None,
            }
        }
        Some(SessionSummary {
            version: crate::local::summary::VERSION,
            meta,
            turns,
        })
    }
}

/// The searchable field an item holds, if it holds one.
fn field_of(item: &str) -> Option<(Field, Cow<'_, str>)> {
    let (kind, rest) = item.split_at_checked(1)?;
    let (field, text) = match kind {
        "q" => (Field::Question, rest),
        "t" => (Field::Title, rest.split_once(':')?.1),
        "s" => (Field::Source, rest.split_once(':')?.1),
        "a" => (Field::Answer, rest.split_once(':')?.1),
        _ => return None,
    };
    Some((field, unescape(text))).filter(|(_, text)| !text.trim().is_empty())
}

/// The index line of `summary`, whose `meta.json` had `stamp` when it was built; `None` for a
/// session a line cannot name (an id or turn file name with separators in it) or whose meta is
/// over [`super::MAX_LINE`] as JSON.
pub fn line(summary: &SessionSummary, stamp: MetaStamp) -> Option<String> {
    let meta = &summary.meta;
    let plain = |name: &str| !name.contains(['\t', '\n', '\r', '\\', ',', ':']);
    if !plain(&meta.id) || !meta.turns.iter().all(|t| plain(&t.stream_file)) {
        return None;
    }
    let json = serde_json::to_string(meta).ok()?;
    let mut out = format!(
        "{TAG}.{VERSION}\t{}\t{}.{}.{}\t",
        meta.id, stamp.ino, stamp.size, stamp.mtime_ns
    );
    if meta.turns.iter().any(|t| t.status == TurnStatus::Streaming) {
        out.push_str(LIVE);
    }
    for (n, turn) in meta.turns.iter().enumerate() {
        let size = summary.turns.get(n).map_or(0, |t| t.bytes);
        out.push_str(&format!(
            "{}{}:{size}",
            if n > 0 { "," } else { "" },
            turn.stream_file
        ));
    }
    let checkpoint = meta
        .last_checkpoint_id()
        .map_or("-".to_owned(), |id| format!("={}", escape(id)));
    out.push_str(&format!(
        "\t{}\t{}\t{}\t{}\t{checkpoint}\t{}",
        escape(&meta.updated_at),
        escape(&meta.provider),
        meta.turns.len(),
        escape(meta.status()),
        escape(meta.first_question()),
    ));
    let mut item = |kind: &str, text: &str| {
        out.push('\t');
        out.push_str(kind);
        out.push_str(&escape(text));
    };
    for line in meta.turns.iter().flat_map(|t| t.question.lines()) {
        if !line.trim().is_empty() {
            item("q", line);
        }
    }
    for (n, turn) in summary.turns.iter().enumerate() {
        if let Some(title) = &turn.title {
            item(&format!("t{n}:"), title);
        }
    }
    for (n, turn) in summary.turns.iter().enumerate() {
        for source in &turn.sources {
            item(&format!("s{n}:"), source);
        }
    }
    for (n, turn) in summary.turns.iter().enumerate() {
        let head = &turn.answer[..turn.answer.floor_char_boundary(ANSWER_HEAD)];
        for line in head.lines().filter(|l| !l.trim().is_empty()) {
            item(&format!("a{n}:"), line);
        }
    }
    out.push('\t');
    out.push_str(&json);
    let length = out.len();
    out.push_str(&format!("\t{length}\n"));
    (out.len() <= super::MAX_LINE).then_some(out)
}

/// `summary` with each answer cut to what the index keeps of it, so a session read from its raw
/// files is searched exactly as one read from the index.
pub fn with_answer_heads(mut summary: SessionSummary) -> SessionSummary {
    for turn in &mut summary.turns {
        let head = turn.answer.floor_char_boundary(ANSWER_HEAD);
        turn.answer.truncate(head);
    }
    summary
}

pub(super) fn escape(text: &str) -> Cow<'_, str> {
    if !text.contains(['\t', '\n', '\r', '\\']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

pub(super) fn unescape(text: &str) -> Cow<'_, str> {
    if !text.contains('\\') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::search::Search;

    /// A settled two-turn session with awkward text: tabs, newlines, backslashes, accents, an
    /// answer longer than the head with a character across the cut.
    fn awkward() -> SessionSummary {
        let turn = |question: &str, file: &str| {
            serde_json::json!({"question": question, "started_at": "t", "ended_at": "t",
                "from_checkpoint_id": null, "checkpoint_id": "ck\\1", "status": "complete",
                "stream_file": file})
        };
        let meta: SessionMeta = serde_json::from_value(serde_json::json!({
            "id": "20260101-000000-0001", "created_at": "a", "updated_at": "b",
            "endpoint": "research-agent", "provider": "xai", "base_url": "u", "chat_id": null,
            "execution_id": null,
            "turns": [turn("First\tquestion\nsecond line", "turn-001.sse"), turn("Zweite Frage: Größe?", "turn-002.sse")],
        }))
        .unwrap();
        let long = format!("{}é and the rest", "x".repeat(ANSWER_HEAD - 1));
        SessionSummary {
            version: crate::local::summary::VERSION,
            meta,
            turns: vec![
                TurnSummary {
                    stream_file: "turn-001.sse".into(),
                    bytes: 10,
                    title: Some("Plan\\title\t".into()),
                    answer: "Line one\n\n  \nLine\ttwo \\ back".into(),
                    answer_cut: false,
                    sources: vec!["Reuters: chips".into(), "".into()],
                },
                TurnSummary {
                    stream_file: "turn-002.sse".into(),
                    bytes: 20,
                    title: None,
                    answer: long,
                    answer_cut: false,
                    sources: vec![],
                },
            ],
        }
    }

    #[test]
    fn a_line_reads_back_as_the_summary_it_was_made_of_answers_cut_to_their_heads() {
        let summary = awkward();
        let stamp = MetaStamp {
            ino: 7,
            size: 8,
            mtime_ns: -9,
        };
        let text = line(&summary, stamp).unwrap();
        assert_eq!(text.matches('\n').count(), 1);
        let record = Record::parse(text.trim_end()).unwrap();
        assert_eq!(record.stamp, stamp);
        assert_eq!(record.meta().unwrap(), summary.meta);
        let headed = with_answer_heads(summary.clone());
        assert_eq!(headed.turns[1].answer.len(), ANSWER_HEAD - 1);
        let read = record.summary().unwrap();
        assert_eq!(read.meta, headed.meta);
        assert_eq!(read.turns[0].title, headed.turns[0].title);
        assert_eq!(read.turns[1].answer, headed.turns[1].answer);
        // Searched alike: the same best field for every query.
        for query in [
            "line two",
            "plan title",
            "reuters",
            "größe",
            "second line",
            "xxxx",
            "rest",
        ] {
            let mut search = Search::new(query);
            assert_eq!(
                search.best_of(record.fields()),
                search.best(&headed),
                "{query}"
            );
            assert_eq!(search.best(&read), search.best(&headed), "{query}");
        }
        assert_eq!(record.checkpoint.as_deref(), Some("ck\\1"));
        assert_eq!(record.question, "First\tquestion\nsecond line");
    }

    /// Pieces of awkward text: both cases, what the index escapes (tab, newline, return,
    /// backslash, and a backslash before a letter), characters that might be letters (accents,
    /// the long s, the Kelvin sign, a subscript letter, a roman numeral, a Latin letter from
    /// E1) and ones that are not (dashes, quotes, CJK, emoji), the kinds' own characters.
    const PIECES: &[&str] = &[
        "a", "N", "v", "i", "d", "m", "r", "g", "s", "c", "o", "w", "k", "p", "\t", "\n", "\r",
        "\\", "\\t", "\\n", "é", "É", "ſ", "\u{212a}", "\u{2099}", "\u{2174}", "\u{1e7d}",
        "\u{2014}", "\u{2019}", "出光", "🔋", " ", ":", "0", "q", "t", "a0:", "-",
    ];

    fn piece_text(max: usize) -> impl proptest::strategy::Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(PIECES), 0..max)
            .prop_map(|pieces| pieces.concat())
    }

    fn query() -> impl proptest::strategy::Strategy<Value = String> {
        let ascii: Vec<&str> = [
            "a", "N", "v", "i", "d", "m", "g", "s", "co", "wos", " ", "k",
        ]
        .to_vec();
        proptest::collection::vec(proptest::sample::select(ascii), 1..7)
            .prop_map(|pieces| pieces.concat())
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// A session searched from its index line with the first letters pass over the items
        /// as written finds the same best field, score and characters as with every field read,
        /// and as its summary does.
        #[test]
        fn the_first_pass_over_written_items_never_changes_what_a_search_finds(
            query in query(),
            question in piece_text(12),
            title in piece_text(12),
            sources in proptest::collection::vec(piece_text(12), 0..3),
            answer in piece_text(40),
        ) {
            let mut summary = awkward();
            summary.meta.turns[0].question = question;
            summary.turns[0].title = Some(title);
            summary.turns[0].sources = sources;
            summary.turns[0].answer = answer;
            let stamp = MetaStamp { ino: 1, size: 2, mtime_ns: 3 };
            let text = line(&summary, stamp).unwrap();
            let record = Record::parse(text.trim_end_matches('\n')).unwrap();
            let mut search = Search::new(&query);
            let raw = search.raw_letters();
            let first = search.best_of(record.fields_where(|item| raw.may_match(item)));
            prop_assert_eq!(&first, &search.best_of(record.fields()));
            prop_assert_eq!(&first, &search.best(&with_answer_heads(summary)));
        }
    }

    #[test]
    fn a_line_written_under_another_summary_version_is_not_taken() {
        let stamp = MetaStamp {
            ino: 1,
            size: 2,
            mtime_ns: 3,
        };
        let text = line(&awkward(), stamp).unwrap();
        let text = text.trim_end();
        assert!(Record::parse(text).is_some());
        // The same line under another tag, its length mended so only the tag differs.
        let body = text.rsplit_once('\t').unwrap().0;
        let rest = body.split_once('\t').unwrap().1;
        for tag in [
            format!("{TAG}.{}", VERSION + 1),
            format!("{TAG}.{}", VERSION - 1),
            TAG.to_string(),
            format!("{TAG}.{VERSION}x"),
        ] {
            let other = format!("{tag}\t{rest}");
            let other = format!("{other}\t{}", other.len());
            assert!(Record::parse(&other).is_none(), "{tag}");
        }
    }

    #[test]
    fn escaped_text_reads_back_as_it_was() {
        for text in ["plain", "tab\there", "a\\b\nc\r", "\\t is not a tab", "é\t"] {
            assert_eq!(unescape(&escape(text)), text);
        }
    }
}
