//! The skim held to the full decode: every recording (all providers, told and detected, in chunks
//! of every size) and generated payloads near the skim's shape (escapes, ids that change, keys
//! twice, other types, white space, control characters) decode to the same events either way.

use proptest::prelude::*;

use super::*;
use crate::model::event::AgentEvent;
use crate::model::session::Session;
use crate::wire::provider::{Dialect, EventPipeline, EventSink, Provider};

/// Every event (and every feed's result) of `bytes` fed in `chunk`-byte pieces, then finished.
fn events(mut pipeline: EventPipeline, bytes: &[u8], chunk: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut results = Vec::new();
    for piece in bytes.chunks(chunk.max(1)) {
        results.push(format!("{:?}", pipeline.feed(piece, &mut out)));
    }
    results.push(format!("{:?}", pipeline.finish(&mut out)));
    let mut all: Vec<String> = out.iter().map(|e| format!("{e:?}")).collect();
    all.extend(results);
    all
}

fn assert_same(provider: Option<Provider>, bytes: &[u8], chunk: usize, what: &str) {
    let full = events(EventPipeline::new(provider), bytes, chunk);
    let skimmed = events(EventPipeline::new(provider).skimming(), bytes, chunk);
    assert!(
        full == skimmed,
        "{what}, {provider:?}, chunks of {chunk}: the skimming pipeline differs"
    );
}

fn recordings() -> Vec<std::path::PathBuf> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut files = Vec::new();
    let mut dirs = vec![
        std::path::PathBuf::from(format!("{root}/tests/fixtures/real")),
        std::path::PathBuf::from(format!("{root}/assets/recordings")),
    ];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "sse") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn a_skimming_pipeline_decodes_every_recording_exactly_as_the_full_decode() {
    let files = recordings();
    assert!(files.len() >= 40, "only {} recordings", files.len());
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let what = path.display().to_string();
        for provider in [Some(Provider::Bigdata), None] {
            // Byte by byte only where it stays quick (the large ones are other providers').
            let tiny = if bytes.len() < 100_000 { 1 } else { 5 };
            for chunk in [bytes.len(), tiny, 2, 3, 7, 64, 1000, 65536] {
                assert_same(provider, &bytes, chunk, &what);
            }
        }
        // Every provider told, as the proxy tells its pipeline.
        for provider in Provider::ALL {
            assert_same(Some(provider), &bytes, 4096, &what);
        }
    }
}

#[test]
fn bytes_that_are_not_utf8_decode_the_same_skimmed_or_not() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let clean = std::fs::read(format!(
        "{root}/assets/recordings/bigdata/earnings-deep-dive.sse"
    ))
    .unwrap();
    // A byte that is never UTF-8, and the first byte of a 3-byte character alone, in every
    // part of the payloads in turn (keys, ids, the content, the structure).
    for (n, bad) in [&[0xFFu8][..], &[0xE2, b'x']].iter().enumerate() {
        for at in (n * 7..clean.len()).step_by(97) {
            let mut bytes = clean.clone();
            bytes.splice(at..at, bad.iter().copied());
            assert_same(
                Some(Provider::Bigdata),
                &bytes,
                4096,
                &format!("{bad:?} at {at}"),
            );
        }
    }
}

#[test]
fn the_skim_reads_the_answer_chunks_of_every_bigdata_recording() {
    let mut skimmed = 0;
    let mut answers = 0;
    for path in recordings() {
        let text = std::fs::read_to_string(&path).unwrap();
        if !text.contains("\"ANSWER\"") {
            continue;
        }
        let mut dialect = crate::wire::provider::bigdata::BigdataDialect::default();
        for line in text.lines().filter_map(|l| l.strip_prefix("data:")) {
            let data = line.strip_prefix(' ').unwrap_or(line);
            answers += usize::from(data.contains("\"ANSWER\""));
            if let Some(event) = dialect.skim(data.as_bytes()) {
                assert!(matches!(event, AgentEvent::AnswerDelta { .. }));
                skimmed += 1;
            } else {
                // The full decode learns the ids the skim compares with.
                let mut out = Vec::new();
                let event = crate::wire::sse::SseEvent {
                    data: data.into(),
                    ..Default::default()
                };
                dialect.decode(event, &mut out);
            }
        }
    }
    // All but the first chunk of each turn (its ids are new: the full decode reports them).
    assert!(
        answers > 400 && skimmed + 20 >= answers,
        "{skimmed} of {answers}"
    );
}

/// A JSON string token for `text` with some characters escaped, as servers may send them.
fn string_token(text: &str, escape_every: usize) -> String {
    let mut out = String::from("\"");
    for (i, c) in text.chars().enumerate() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if escape_every > 0 && i % escape_every == 0 => {
                let mut units = [0; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Raw JSON fragments that are near the skim's shape, some of which it must refuse.
fn odd_value() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "null",
        "\"\"",
        "7",
        "true",
        "[]",
        "{}",
        "\"a\\u0000b\"",
        "\"\\ud83d\\ude00\"",
        "\"\\ud800\"",
        "\"\\udc00x\"",
        "\"tab\there\"",
        "\"bad \\x escape\"",
        "\"\\/\\b\\f\\r\\t\"",
        "\"ANSWER\"",
        "\"ANSW\\u0045R\"",
        "\"chat-1\"",
        "\"chat-2\"",
        "\"x\\\"y\"",
        "nul",
        "\"unterminated",
    ])
    .prop_map(str::to_owned)
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "a", "ab ", "é", "🔋", "\"", "\\", "\n", "\t", "\u{1}", "\u{7f}", "}", "{", ",", ":",
            "\u{2028}", "data: ", "\r",
        ]),
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

/// One payload: the answer shape with its fields in any order, some of them odd.
fn payload() -> impl Strategy<Value = String> {
    let ws = prop::sample::select(vec!["", " ", "  ", "\t"]);
    (
        text(),
        0usize..4,
        prop::sample::select(vec![
            "chat_id",
            "chat_id",
            "execution_id",
            "request_id",
            "none",
            "twice",
        ]),
        prop::sample::select(vec![
            "\"chat-1\"",
            "\"chat-1\"",
            "\"chat-1\"",
            "\"chat-2\"",
            "\"\"",
            "null",
            "5",
        ]),
        prop::sample::select(vec!["message", "message", "delta", "both", "extra"]),
        prop::sample::select(vec!["message_id", "messageId", "both", "none", "empty"]),
        prop::option::weighted(0.3, (0usize..6, odd_value())),
        prop::sample::select(vec!["ANSWER", "ANSWER", "ANSWER", "THINKING", "COMPLETE"]),
        any::<prop::sample::Index>(),
        ws,
    )
        .prop_map(
            |(text, escape, id_key, id, body_key, mid, odd, kind, order, ws)| {
                let mut fields = vec![
                    format!("\"type\":{ws}\"{kind}\""),
                    format!("\"role\":\"assistant\""),
                    format!("\"content\":{ws}{}", string_token(&text, escape)),
                ];
                match mid {
                    "message_id" => fields.push("\"message_id\":\"ans-1\"".into()),
                    "messageId" => fields.push("\"messageId\":\"ans-2\"".into()),
                    "both" => {
                        fields.push("\"messageId\":\"ans-2\"".into());
                        fields.push("\"message_id\":\"ans-1\"".into());
                    }
                    "empty" => fields.push("\"message_id\":\"\"".into()),
                    _ => {}
                }
                if let Some((at, value)) = &odd {
                    let key = ["type", "role", "content", "message_id", "messageId", "x"][*at];
                    fields.push(format!("\"{key}\":{value}"));
                }
                let at = order.index(fields.len());
                fields.rotate_left(at);
                let body = format!("{{{ws}{}{ws}}}", fields.join(&format!(",{ws}")));
                let mut envelope = Vec::new();
                match id_key {
                    "none" => {}
                    "twice" => {
                        envelope.push(format!("\"chat_id\":{id}"));
                        envelope.push(format!("\"chat_id\":{id}"));
                    }
                    key => envelope.push(format!("\"{key}\":{id}")),
                }
                match body_key {
                    "both" => {
                        envelope.push(format!("\"message\":{body}"));
                        envelope.push(format!("\"delta\":{body}"));
                    }
                    "extra" => {
                        envelope.push(format!("\"message\":{body}"));
                        envelope.push("\"extra\":1".into());
                    }
                    key => envelope.push(format!("\"{key}\":{body}")),
                }
                let turn = order.index(envelope.len());
                envelope.rotate_left(turn);
                format!("{ws}{{{ws}{}{ws}}}{ws}", envelope.join(","))
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn generated_payloads_decode_the_same_skimmed_or_not(
        payloads in prop::collection::vec(payload(), 1..12),
        separators in prop::collection::vec(prop::sample::select(vec!["\n", "\n\n", "\n", "\n\n", "\r\n", "\r\n\r\n", "\n: c\n", "\nevent: x\n"]), 12),
        first in prop::sample::select(vec![
            "data: {\"chat_id\":\"chat-1\",\"message\":{\"type\":\"THINKING\",\"content\":\"x\"}}\n\n",
            "data: {\"request_id\":\"chat-1\",\"execution_id\":\"chat-1\",\"delta\":{\"type\":\"THINKING\"}}\n\n",
            "",
            "\u{feff}",
        ]),
        chunk in 1usize..200,
    ) {
        let mut stream = String::from(first);
        for (payload, separator) in payloads.iter().zip(separators.iter().cycle()) {
            stream.push_str("data: ");
            stream.push_str(payload);
            stream.push_str(separator);
        }
        for provider in [Some(Provider::Bigdata), None] {
            for chunk in [chunk, stream.len()] {
                let full = events(EventPipeline::new(provider), stream.as_bytes(), chunk);
                let skimmed = events(EventPipeline::new(provider).skimming(), stream.as_bytes(), chunk);
                prop_assert_eq!(full, skimmed);
            }
        }
    }
}

#[test]
fn a_plain_answer_chunk_is_skimmed_and_odd_ones_are_left_to_the_full_decode() {
    let ids = ConversationIds {
        chat_id: Some("c".into()),
        ..Default::default()
    };
    let skim = |data: &str| answer(data.as_bytes(), &ids);
    assert_eq!(
        skim(
            r#"{"chat_id":"c","message":{"type":"ANSWER","message_id":"a","role":"assistant","content":"x\"\u00e9\ud83d\ude00"}}"#
        ),
        Some(AgentEvent::AnswerDelta {
            message_id: Some("a".into()),
            text: "x\"é😀".into()
        })
    );
    for odd in [
        r#"{"chat_id":"d","message":{"type":"ANSWER","content":"x"}}"#,
        r#"{"chat_id":"c","message":{"type":"ANSWER","content":"\ud800"}}"#,
        r#"{"chat_id":"c","message":{"type":"ANSWER","content":7}}"#,
        r#"{"chat_id":"c","message":{"type":"THINKING","content":"x"}}"#,
        r#"{"chat_id":"c","message":{"type":"ANSWER","content":"x","content":"y"}}"#,
        r#"{"chat_id":"c","message":{"type":"ANSWER","content":"x"}} x"#,
        r#"{"chat_id":5,"message":{"type":"ANSWER","content":"x"}}"#,
    ] {
        assert_eq!(skim(odd), None, "{odd}");
    }
}

/// A reader that counts the answer rather than keeping it (as the recording proxy does): the
/// session it ends with (as `Debug`), the answer as it came — its text while it is short (the proxy
/// keeps the start for the summary), then a `#` per byte — and every feed's result. `borrowed`:
/// skimmed chunks taken through [`EventSink::answer`] (their text built only while it is kept);
/// else every event taken from the full decode's `Vec`.
fn counted(provider: Option<Provider>, bytes: &[u8], chunk: usize, borrowed: bool) -> Vec<String> {
    struct Counting {
        events: Vec<AgentEvent>,
        session: Session,
        answer: String,
    }
    impl Counting {
        fn flush(&mut self) {
            for event in self.events.drain(..) {
                if let AgentEvent::AnswerDelta { text, .. } = &event {
                    match self.answer.len() >= 40 && !self.session.answer.is_resent() {
                        true => self.answer.push_str(&"#".repeat(text.len())),
                        false => self.answer.push_str(text),
                    }
                }
                self.session.apply(event);
            }
        }
    }
    impl EventSink for Counting {
        fn events(&mut self) -> &mut Vec<AgentEvent> {
            &mut self.events
        }
        fn answer(&mut self, answer: crate::wire::provider::SkimmedAnswer<'_>) {
            self.flush();
            // As the proxy does: the text while the answer's start is kept, then lengths alone.
            let text = &answer.text;
            if self.answer.len() >= 40
                && self.session.apply_answer_counted(text.len(), text.chars())
            {
                self.answer.push_str(&"#".repeat(text.len()));
                return;
            }
            self.answer.push_str(&text.text());
            self.session.apply_answer_delta(&text.text());
        }
    }
    let mut sink = Counting {
        events: Vec::new(),
        session: Session::new(),
        answer: String::new(),
    };
    sink.session.answer.stop_keeping_text();
    let mut pipeline = match borrowed {
        true => EventPipeline::new(provider).skimming(),
        false => EventPipeline::new(provider),
    };
    let mut results = Vec::new();
    for piece in bytes.chunks(chunk.max(1)) {
        let fed = match borrowed {
            true => pipeline.feed_into(piece, &mut sink),
            false => pipeline.feed(piece, &mut sink.events),
        };
        results.push(format!("{fed:?}"));
        sink.flush();
    }
    results.push(format!("{:?}", pipeline.finish(&mut sink.events)));
    sink.flush();
    results.push(sorted_maps(&format!("{:?}", sink.session)));
    results.push(sink.answer);
    results
}

/// A session's `Debug` with the entries of its maps (`{"id": n, …}`, printed in hash order) sorted.
fn sorted_maps(debug: &str) -> String {
    let mut out = String::new();
    let mut rest = debug;
    while let Some(at) = rest.find("_id: {") {
        let (head, map) = rest.split_at(at + "_id: {".len());
        out.push_str(head);
        // The map's entries, split at `, ` outside their quoted keys.
        let (mut entries, mut entry, mut quoted, mut escaped) =
            (Vec::new(), String::new(), false, false);
        let mut end = map.len();
        for (i, c) in map.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if quoted => escaped = true,
                '"' => quoted = !quoted,
                '}' if !quoted => {
                    end = i;
                    break;
                }
                ',' if !quoted => {
                    entries.push(std::mem::take(&mut entry).trim().to_owned());
                    continue;
                }
                _ => {}
            }
            entry.push(c);
        }
        if !entry.trim().is_empty() {
            entries.push(entry.trim().to_owned());
        }
        entries.sort();
        out.push_str(&entries.join(", "));
        rest = &map[end..];
    }
    out.push_str(rest);
    out
}

fn assert_counted_same(provider: Option<Provider>, bytes: &[u8], chunk: usize, what: &str) {
    let full = counted(provider, bytes, chunk, false);
    let borrowed = counted(provider, bytes, chunk, true);
    assert!(
        full == borrowed,
        "{what}, {provider:?}, chunks of {chunk}: counting from borrowed text differs"
    );
}

#[test]
fn a_reader_counting_the_answer_from_borrowed_text_ends_with_the_session_every_event_gives() {
    for path in recordings() {
        let bytes = std::fs::read(&path).unwrap();
        let what = path.display().to_string();
        for provider in [Some(Provider::Bigdata), None] {
            for chunk in [bytes.len(), 3, 64, 1000, 65536] {
                assert_counted_same(provider, &bytes, chunk, &what);
            }
        }
        assert_counted_same(Some(Provider::OpenAI), &bytes, 4096, &what);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn generated_payloads_count_the_same_from_borrowed_text(
        payloads in prop::collection::vec(payload(), 1..12),
        separator in prop::sample::select(vec!["\n\n", "\r\n\r\n", "\n: c\n\n", "\n"]),
        chunk in 1usize..200,
    ) {
        let mut stream = String::from(
            "data: {\"chat_id\":\"chat-1\",\"message\":{\"type\":\"THINKING\",\"content\":\"x\"}}\n\n",
        );
        for payload in &payloads {
            stream.push_str("data: ");
            stream.push_str(payload);
            stream.push_str(separator);
        }
        for provider in [Some(Provider::Bigdata), None] {
            for chunk in [chunk, stream.len()] {
                let full = counted(provider, stream.as_bytes(), chunk, false);
                let borrowed = counted(provider, stream.as_bytes(), chunk, true);
                prop_assert_eq!(full, borrowed);
            }
        }
    }
}

/// What the pipeline's search-first path makes of the line `rest` begins with: the line up to its
/// first LF or CR, skimmed when that end is an LF — the answer and the line's length.
fn skimmed_searching<'a>(
    rest: &'a [u8],
    ids: &ConversationIds,
) -> Option<(SkimmedAnswer<'a>, usize)> {
    let end = memchr::memchr2(b'\n', b'\r', rest)?;
    if rest[end] != b'\n' {
        return None;
    }
    answer_borrowed(&rest[..end], ids).map(|answer| (answer, end))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// The skim that finds the line's end itself reads exactly what finding the end first and
    /// skimming the line reads: the same answer and the same length, or neither, whatever follows
    /// the payload (line ends of every kind, white space, another event, nothing).
    #[test]
    fn a_payload_read_to_its_line_end_is_the_line_read_whole(
        payload in payload(),
        after in prop::sample::select(vec!["\n", "\n\n", "\r\n", "\r", " \n", "\t\n", "", " ", "\ndata: {\"x\":1}\n\n", " x\n", "\u{0}\n"]),
        cut in any::<prop::sample::Index>(),
        known in any::<bool>(),
    ) {
        let ids = ConversationIds {
            chat_id: known.then(|| "chat-1".into()),
            ..Default::default()
        };
        let line = format!("{payload}{after}");
        // Whole, and cut anywhere (a chunk may end inside the line).
        let cut = cut.index(line.len() + 1);
        for rest in [line.as_bytes(), &line.as_bytes()[..cut]] {
            prop_assert_eq!(answer_in_line(rest, &ids), skimmed_searching(rest, &ids));
        }
    }
}

#[test]
fn every_recorded_bigdata_line_is_read_to_its_end_as_when_its_end_is_found_first() {
    let ids = ConversationIds::default();
    let (mut lines, mut read) = (0, 0);
    for path in recordings() {
        let bytes = std::fs::read(&path).unwrap();
        // From every `data:` value's start to the end of the recording.
        for at in memchr::memmem::find_iter(&bytes, b"data:") {
            let rest = &bytes[at + 5..];
            let rest = rest.strip_prefix(b" ").unwrap_or(rest);
            // The ids the skim compares with: those of the line, so its answers are read.
            let ids = match skimmed_searching(rest, &ids) {
                None => chat_id_of(rest).unwrap_or_default(),
                Some(_) => ids.clone(),
            };
            let fast = answer_in_line(rest, &ids);
            assert_eq!(fast, skimmed_searching(rest, &ids), "{}", path.display());
            lines += 1;
            read += usize::from(fast.is_some());
        }
    }
    assert!(lines > 1000 && read > 400, "{read} of {lines} lines read");
}

/// The `chat_id` a line names, as the ids a dialect holds once it has read it.
fn chat_id_of(rest: &[u8]) -> Option<ConversationIds> {
    let line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
    let value: serde_json::Value = serde_json::from_slice(line).ok()?;
    Some(ConversationIds {
        chat_id: Some(value.get("chat_id")?.as_str()?.to_owned()),
        ..Default::default()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// A key or id is read to its closing quote only when no escape or control character comes
    /// first, as the search for the quote or backslash and a check for control characters read it.
    #[test]
    fn a_plain_string_ends_where_its_first_quote_does_with_nothing_odd_before_it(
        body in prop::collection::vec(prop::sample::select(vec![b'a', b'"', b'\\', b'\t', 0, b'\n', 0xC3, 0xA9, b'-']), 0..40),
    ) {
        let mut bytes = vec![b'"'];
        bytes.extend_from_slice(&body);
        let expected = memchr::memchr2(b'"', b'\\', &body)
            .filter(|&end| body[end] == b'"' && body[..end].iter().all(|&b| b >= 0x20))
            .map(|end| (&body[..end], end + 2));
        let mut s = Scanner::new(&bytes);
        let read = s.plain_string().map(|text| (text, s.pos));
        prop_assert_eq!(read, expected);
    }
}
