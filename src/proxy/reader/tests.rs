//! The reader's fast paths held to its plain one: a batch saved as its chunks (not copied
//! together) and decoding deferred to the turn file (read back as the stream pauses or ends) give
//! the same turn file, session and summary as every batch joined, saved and decoded at once.

use std::sync::{Arc, Mutex};

use axum::body::Bytes;

use super::*;
use crate::local::session_files::TurnFile;
use crate::wire::provider::Provider;
use crate::wire::provider::asked::Asked;

const KEY: &str = "sk-test-0123456789abcdef";

/// A reader of `provider`'s stream saving into `dir`/turn.sse, masking [`KEY`], its answer limit
/// `max_answer`.
fn reader(dir: &std::path::Path, provider: Provider, max_answer: usize) -> Reader {
    let path = dir.join("turn.sse");
    let file = std::fs::File::create(&path).unwrap();
    let sink: RawSink = Arc::new(Mutex::new(TurnFile::new(file)));
    let turn = TurnToRecord {
        provider,
        endpoint: provider.spec().endpoints[0],
        upstream: "http://127.0.0.1:9".into(),
        asked: Asked::default(),
        request: serde_json::Value::Null,
        key: Secret::new(KEY),
        status: 200,
        sent: std::time::Instant::now(),
    };
    let mut reader = Reader::new(&turn, sink, Some(path));
    reader.max_answer = max_answer;
    reader
}

/// How a stream is fed: each batch of chunks, whether decoding may wait, and whether the stream
/// paused after it (a lagging reader then decodes one block of its backlog).
type Plan = Vec<(Vec<Bytes>, bool, bool)>;

/// What the reader made of the stream fed by `plan`: the turn file, the session, the summary,
/// the failure noted.
fn recorded(provider: Provider, plan: &Plan, max_answer: usize) -> [String; 4] {
    let dir = tempfile::tempdir().unwrap();
    let mut reader = reader(dir.path(), provider, max_answer);
    for (chunks, defer, paused) in plan {
        reader.feed_batch(chunks, *defer);
        if *paused && reader.lagging() {
            reader.catch_up(true);
        }
    }
    let end = reader.finish(StreamEnd::Closed, 200);
    let file = std::fs::read(dir.path().join("turn.sse")).unwrap();
    let summary = reader.digest.summary(&reader.session, "turn.sse", 0);
    [
        String::from_utf8_lossy(&file).into_owned(),
        format!(
            "{} {end:?}",
            without_indexes(format!("{:?}", reader.session))
        ),
        format!("{summary:?}"),
        format!("{:?}", reader.failure),
    ]
}

/// A session's `Debug` without its hash-map indexes (of its audits and activity, which it
/// shows in their order): their order differs from one map to the next.
fn without_indexes(mut session: String) -> String {
    for index in ["audit_by_tool_id: {", "thinking_by_message_id: {"] {
        if let Some(start) = session.find(index) {
            let end = start + session[start..].find("}, ").unwrap() + 3;
            session.replace_range(start..end, "");
        }
    }
    session
}

/// `bytes` cut into chunks of `size` (then of sizes that vary), in batches of `per_batch`
/// chunks; with `defer`, three batches in four may wait to be decoded (the fourth comes alone, as
/// in a lull), else none; a pause after every `pause`th.
fn plan(bytes: &[u8], size: usize, per_batch: usize, defer: bool, pause: usize) -> Plan {
    let mut chunks = Vec::new();
    let mut at = 0;
    let mut n = 0;
    while at < bytes.len() {
        let len = (size + n % 3 * size / 2).clamp(1, bytes.len() - at);
        chunks.push(Bytes::copy_from_slice(&bytes[at..at + len]));
        at += len;
        n += 1;
    }
    chunks
        .chunks(per_batch)
        .enumerate()
        .map(|(i, batch)| {
            (
                batch.to_vec(),
                defer && i % 4 != 3,
                pause > 0 && i % pause == 0,
            )
        })
        .collect()
}

fn recordings() -> Vec<(std::path::PathBuf, Provider)> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut files = Vec::new();
    for dir in ["tests/fixtures/real", "assets/recordings"] {
        let mut dirs = vec![std::path::Path::new(root).join(dir)];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "sse") {
                    let named = path.to_string_lossy().into_owned();
                    let provider = Provider::ALL
                        .into_iter()
                        .find(|p| named.contains(&format!("/{}", p.as_str())))
                        .unwrap_or(Provider::Bigdata);
                    files.push((path, provider));
                }
            }
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// A Bigdata.com stream of `chunks` answer chunks of `size` bytes, the key quoted now and then.
fn flood(chunks: usize, size: usize) -> Vec<u8> {
    let mut out = String::new();
    for i in 0..chunks {
        let mut text = format!("part {i} 📈 ").repeat(size / 12 + 1);
        if i % 7 == 3 {
            text.push_str(KEY);
        }
        let event =
            serde_json::json!({"chat_id": "c-1", "message": {"type": "ANSWER", "content": text}});
        out.push_str(&format!("data: {event}\n\n"));
    }
    out.push_str("data: {\"chat_id\":\"c-1\",\"message\":{\"type\":\"COMPLETE\"}}\n\n");
    out.into_bytes()
}

#[test]
fn a_deferred_and_uncopied_recording_saves_and_decodes_every_recording_as_the_plain_one() {
    let files = recordings();
    assert!(files.len() >= 40, "only {} recordings", files.len());
    for (path, provider) in &files {
        let bytes = std::fs::read(path).unwrap();
        for (size, per_batch) in [(1 << 16, 16), (997, 8), (61, 64), (5, 3)] {
            let plain = recorded(
                *provider,
                &plan(&bytes, size, per_batch, false, 0),
                usize::MAX,
            );
            for pause in [0, 1, 3] {
                let fast = plan(&bytes, size, per_batch, true, pause);
                let got = recorded(*provider, &fast, usize::MAX);
                assert!(
                    got == plain,
                    "{}, chunks of {size}, {per_batch} a batch, a pause every {pause}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn a_flood_with_the_key_in_it_is_saved_masked_and_decoded_the_same_deferred_or_not() {
    // 2.7 MB: a pause finds more than a block of it waiting to be decoded.
    let bytes = flood(2500, 900);
    // Batches of one chunk, and of many large ones (a body hyper hands on in 8 KiB pieces).
    let sizes = [
        (1 << 16, 16),
        (4096, 64),
        (KEY.len() / 2, 64),
        (300, 2),
        (8192, 128),
        (4096, 1),
    ];
    for (size, per_batch) in sizes {
        let plain = recorded(
            Provider::Bigdata,
            &plan(&bytes, size, per_batch, false, 0),
            usize::MAX,
        );
        assert!(!plain[0].contains(KEY) && plain[0].contains(&"*".repeat(KEY.len())));
        for pause in [0, 1, 3] {
            let fast = plan(&bytes, size, per_batch, true, pause);
            assert!(
                recorded(Provider::Bigdata, &fast, usize::MAX) == plain,
                "chunks of {size}, {per_batch} a batch, a pause every {pause}"
            );
        }
    }
}

#[test]
fn deferred_decoding_never_saves_an_answer_past_its_limit() {
    let bytes = flood(400, 900);
    // The answer's limit met in the middle of the flood: what is saved and noted is the same.
    for max_answer in [50_000, 100_000, 333_333] {
        let plain = recorded(
            Provider::Bigdata,
            &plan(&bytes, 4096, 4, false, 0),
            max_answer,
        );
        assert!(plain[3].contains("--max-answer-mib"), "{}", plain[3]);
        assert!(
            plain[0].len() < max_answer + max_answer / 10 + 40_000,
            "{} bytes",
            plain[0].len()
        );
        for pause in [0, 1, 3] {
            let fast = recorded(
                Provider::Bigdata,
                &plan(&bytes, 4096, 4, true, pause),
                max_answer,
            );
            assert!(
                fast == plain,
                "an answer limit of {max_answer}, a pause every {pause}"
            );
        }
    }
}

#[test]
fn a_line_past_the_decoders_limit_stops_a_deferred_recording_where_it_stops_the_plain_one() {
    let mut bytes = flood(200, 900);
    let long = crate::wire::sse::DEFAULT_LIMIT + (1 << 20);
    bytes.extend(std::iter::repeat_n(b'x', long));
    bytes.extend(flood(200, 900));
    let plain = recorded(
        Provider::Bigdata,
        &plan(&bytes, 1 << 16, 16, false, 0),
        usize::MAX,
    );
    assert!(plain[3].contains("a line passed"), "{}", plain[3]);
    let fast = recorded(
        Provider::Bigdata,
        &plan(&bytes, 1 << 16, 16, true, 0),
        usize::MAX,
    );
    assert!(fast == plain);
}

/// A long flood with no lull never leaves more than [`MOST_DEFERRED`] waiting to be decoded (what
/// waits is decoded at once past it, so the queue behind the recorder cannot fill meanwhile), and
/// is saved and decoded as the plain recording.
#[test]
fn a_long_flood_never_leaves_more_than_the_most_deferred_waiting() {
    let bytes = flood(360, 64 << 10);
    assert!(bytes.len() > 2 * MOST_DEFERRED);
    let plain = recorded(
        Provider::Bigdata,
        &plan(&bytes, 1 << 16, 16, false, 0),
        usize::MAX,
    );
    let dir = tempfile::tempdir().unwrap();
    let mut reader = reader(dir.path(), Provider::Bigdata, usize::MAX);
    let mut most = 0;
    for chunks in plan(&bytes, 1 << 16, 16, false, 0).into_iter().map(|b| b.0) {
        reader.feed_batch(&chunks, true);
        most = most.max(reader.undecoded);
    }
    assert!(most > MOST_DEFERRED / 2, "it deferred: {most}");
    assert!(most <= MOST_DEFERRED, "{most} waited");
    let all_deferred: Plan = plan(&bytes, 1 << 16, 16, false, 0)
        .into_iter()
        .map(|(chunks, _, _)| (chunks, true, false))
        .collect();
    assert!(recorded(Provider::Bigdata, &all_deferred, usize::MAX) == plain);
}

/// Saving stopped at the file's cap while decoding waited for the file: the session is of what
/// the file holds (its answer as long as the saved stream's), never the saved start with a later
/// piece of the stream glued on (the bytes between were neither saved nor decoded).
#[test]
fn a_deferred_recording_whose_file_stops_growing_decodes_what_was_saved() {
    let bytes = flood(80, 16 << 10);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("turn.sse");
    let cap = 400 << 10;
    let file = std::fs::File::create(&path).unwrap();
    let sink: RawSink = Arc::new(Mutex::new(TurnFile::with_limits(file, 16 << 20, cap)));
    let mut reader = reader(dir.path(), Provider::Bigdata, usize::MAX);
    reader.sink = sink;
    for chunks in plan(&bytes, 16 << 10, 8, false, 0).into_iter().map(|b| b.0) {
        reader.feed_batch(&chunks, true);
    }
    let _ = reader.finish(StreamEnd::Closed, 200);
    let saved = std::fs::read(&path).unwrap();
    assert_eq!(saved.len() as u64, cap, "the file stopped at its cap");
    let (from_file, _) =
        crate::wire::input::read_session(saved.as_slice(), Provider::Bigdata).unwrap();
    assert!(!from_file.answer.is_empty());
    assert_eq!(reader.session.answer.len(), from_file.answer.len());
}

/// A stream whose lines end with a bare `\r` (the decoder reads them as line ends) is saved whole
/// past 16 MiB: its lines were counted as one, and saving stopped "for a line too long".
#[test]
fn a_stream_with_bare_cr_line_ends_is_saved_whole() {
    let bytes: Vec<u8> = flood(20_000, 900)
        .into_iter()
        .map(|b| if b == b'\n' { b'\r' } else { b })
        .collect();
    assert!(bytes.len() > crate::wire::sse::DEFAULT_LIMIT);
    let plain = recorded(
        Provider::Bigdata,
        &plan(&bytes, 1 << 16, 16, false, 0),
        usize::MAX,
    );
    assert_eq!(
        plain[3],
        "None",
        "saved {} of {} bytes",
        plain[0].len(),
        bytes.len()
    );
}

/// A line just past the decoder's limit that ends inside a batch stops the recording at the same
/// byte whether the batch is written as its chunks (judged chunk by chunk, it was stopped) or
/// joined (judged whole, only its last line was looked at: the long line was missed and the rest
/// of the stream saved), and wherever the line falls in the batch.
#[test]
fn a_line_just_past_the_limit_ending_inside_a_batch_stops_both_paths_at_the_same_byte() {
    let limit = crate::wire::sse::DEFAULT_LIMIT;
    for (past, head) in [(300_000, 211), (4_000, 333), (1, 200)] {
        let mut bytes = flood(head, 900);
        bytes.extend(std::iter::repeat_n(b'x', limit + past));
        bytes.push(b'\n');
        bytes.extend(flood(300, 900));
        // 8 KiB chunks, 128 a batch: each batch is written as its chunks when decoding waits.
        let plain = recorded(
            Provider::Bigdata,
            &plan(&bytes, 8192, 128, false, 0),
            usize::MAX,
        );
        let fast = recorded(
            Provider::Bigdata,
            &plan(&bytes, 8192, 128, true, 0),
            usize::MAX,
        );
        assert_eq!(
            (plain[0].len(), &plain[3]),
            (fast[0].len(), &fast[3]),
            "a line {past} bytes past the limit after {head} events: bytes saved and why"
        );
        assert!(
            plain[3].contains("a line passed"),
            "{past} past: {}",
            plain[3]
        );
        assert!(fast == plain, "a line {past} bytes past the limit");
    }
}

/// A flood's full batches of 8 KiB chunks (a body hyper hands on in 8 KiB pieces, 128 a 1 MiB
/// batch) are written as their chunks, each batch in one write: the file holds the stream, the key
/// masked, every chunk in its place (a chunk dropped or two swapped would show).
#[test]
fn full_batches_of_large_chunks_are_saved_as_the_stream_in_order() {
    let bytes = flood(1500, 4000);
    assert!(bytes.len() > 6 << 20 && bytes.len() < MOST_DEFERRED);
    let dir = tempfile::tempdir().unwrap();
    let mut reader = reader(dir.path(), Provider::Bigdata, usize::MAX);
    let chunks: Vec<Bytes> = bytes.chunks(8192).map(Bytes::copy_from_slice).collect();
    let batches: Vec<&[Bytes]> = chunks.chunks(128).collect();
    for batch in &batches {
        reader.feed_batch(batch, true);
    }
    assert!(reader.failure.is_none(), "{:?}", reader.failure);
    // The first batch waits for the conversation's ids, the last is partial: the rest go whole.
    assert!(
        reader.uncopied_batches >= batches.len() - 2,
        "{} of {} batches written as their chunks",
        reader.uncopied_batches,
        batches.len()
    );
    let _ = reader.finish(StreamEnd::Closed, 200);
    let saved = std::fs::read(dir.path().join("turn.sse")).unwrap();
    let masked = String::from_utf8(bytes)
        .unwrap()
        .replace(KEY, &"*".repeat(KEY.len()));
    assert!(
        saved == masked.as_bytes(),
        "the saved file is not the stream"
    );
    let (from_file, _) =
        crate::wire::input::read_session(saved.as_slice(), Provider::Bigdata).unwrap();
    assert_eq!(reader.session.answer.len(), from_file.answer.len());
}

/// A lagging reader of a stream whose lines end with a bare `\r` decodes its backlog a block of
/// whole lines at a time, as with `\n` (it looked only for `\n`, so it decoded each block whole and
/// an event cut between two blocks went down the decoder's slow path), and decodes it the same.
#[test]
fn a_lagging_reader_of_bare_cr_lines_decodes_whole_lines_at_a_time() {
    let bytes: Vec<u8> = flood(3000, 900)
        .into_iter()
        .map(|b| if b == b'\n' { b'\r' } else { b })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut reader = reader(dir.path(), Provider::Bigdata, usize::MAX);
    let chunks: Vec<Bytes> = bytes.chunks(8192).map(Bytes::copy_from_slice).collect();
    for batch in chunks.chunks(128) {
        reader.feed_batch(batch, true);
    }
    let saved = std::fs::read(dir.path().join("turn.sse")).unwrap();
    let mut blocks = 0;
    while let Some(from) = reader.lag_from {
        reader.catch_up(true);
        if let Some(at) = reader.lag_from {
            assert!(at > from, "no progress at {from}");
            assert_eq!(
                saved[at as usize - 1],
                b'\r',
                "block ended at {at}, inside a line"
            );
            blocks += 1;
        }
    }
    assert!(blocks > 2, "{blocks} blocks");
    let plain = recorded(
        Provider::Bigdata,
        &plan(&bytes, 8192, 128, false, 0),
        usize::MAX,
    );
    for pause in [1, 3] {
        let fast = recorded(
            Provider::Bigdata,
            &plan(&bytes, 8192, 128, true, pause),
            usize::MAX,
        );
        assert!(fast == plain, "a pause every {pause}");
    }
}

#[test]
fn whole_lines_end_at_the_last_line_end_but_never_at_a_last_cr() {
    assert_eq!(whole_lines(b"a\nb"), Some(2));
    assert_eq!(whole_lines(b"a\rb"), Some(2));
    assert_eq!(whole_lines(b"a\r\nb"), Some(3));
    assert_eq!(whole_lines(b"a\nb\r"), Some(2));
    assert_eq!(whole_lines(b"a\r\r"), Some(2));
    assert_eq!(whole_lines(b"ab\r"), None);
    assert_eq!(whole_lines(b"ab"), None);
}
