//! The SSE decoder against the shared conformance vectors, whole and in 1-, 2- and 3-byte chunks,
//! plus properties: any chunking gives the same events, and no input panics.

use proptest::prelude::*;
use research_tui::wire::sse::{Framing, SseDecoder, SseEvent};
use serde_json::Value;

/// The project's shared vectors when the checkout sits beside `shared/`, else the vendored copy.
fn vectors() -> Vec<Value> {
    let shared = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/sse-vectors.json");
    let vendored = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sse-vectors.json"
    );
    let text = std::fs::read_to_string(shared)
        .or_else(|_| std::fs::read_to_string(vendored))
        .expect("sse-vectors.json");
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["vectors"].as_array().unwrap().clone()
}

fn input_bytes(vector: &Value) -> Vec<u8> {
    if let Some(text) = vector["input"].as_str() {
        return text.as_bytes().to_vec();
    }
    let hex = vector["input_hex"].as_str().unwrap();
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

fn decode(framing: Framing, input: &[u8], chunk: usize) -> (Vec<SseEvent>, Option<SseEvent>) {
    let mut decoder = SseDecoder::new(framing);
    let mut out = Vec::new();
    for piece in input.chunks(chunk.max(1)) {
        decoder.feed(piece, &mut out).unwrap();
    }
    let end = decoder.finish(&mut out);
    assert_eq!(end.error, None);
    (out, end.pending)
}

#[test]
fn every_shared_vector_decodes_whole_and_in_one_two_and_three_byte_chunks() {
    let vectors = vectors();
    assert!(vectors.len() >= 30, "expected the full vector set");
    for vector in &vectors {
        let name = vector["name"].as_str().unwrap();
        let input = input_bytes(vector);
        for chunk in [input.len(), 1, 2, 3] {
            let (events, pending) = decode(Framing::Standard, &input, chunk);
            let expected = vector["events"].as_array().unwrap();
            assert_eq!(
                events.len(),
                expected.len(),
                "{name} (chunk {chunk}): {events:?}"
            );
            for (got, want) in events.iter().zip(expected) {
                assert_eq!(
                    got.data,
                    want["data"].as_str().unwrap(),
                    "{name} (chunk {chunk})"
                );
                if let Some(event) = want.get("event") {
                    assert_eq!(got.event, event.as_str().unwrap(), "{name} (chunk {chunk})");
                }
                if let Some(id) = want.get("id") {
                    assert_eq!(got.id, id.as_str().unwrap(), "{name} (chunk {chunk})");
                }
            }
            if name == "retry digits only" {
                let mut decoder = SseDecoder::new(Framing::Standard);
                decoder.feed(&input, &mut Vec::new()).unwrap();
                assert_eq!(decoder.retry(), Some(1000), "{name}");
            }
            let want_pending = vector.get("pending_at_eof").and_then(Value::as_str);
            assert_eq!(
                pending.as_ref().map(|e| e.data.as_str()),
                want_pending,
                "{name} (chunk {chunk}): pending event at end of stream"
            );
        }
    }
}

#[test]
fn json_line_framing_agrees_with_the_vectors_that_hold_no_json() {
    for vector in vectors() {
        let input = input_bytes(&vector);
        if input.contains(&b'{') || input.contains(&b'[') {
            continue;
        }
        assert_eq!(
            decode(Framing::JsonLines, &input, 1).0,
            decode(Framing::Standard, &input, 1).0,
            "{}",
            vector["name"]
        );
    }
}

fn split_points(len: usize) -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(0..=len, 0..12).prop_map(|mut cuts| {
        cuts.sort_unstable();
        cuts
    })
}

fn chunked(input: &[u8], cuts: &[usize], framing: Framing) -> (Vec<SseEvent>, Option<SseEvent>) {
    let mut decoder = SseDecoder::new(framing);
    let mut out = Vec::new();
    let mut from = 0;
    for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
        decoder.feed(&input[from..cut], &mut out).unwrap();
        from = cut;
    }
    let end = decoder.finish(&mut out);
    assert_eq!(end.error, None);
    (out, end.pending)
}

/// Inputs built from the pieces SSE streams are made of, so the property explores the grammar and
/// not only random noise.
fn sse_like() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"data: ".to_vec()),
        Just(b"data:".to_vec()),
        Just(b"event: x".to_vec()),
        Just(b"id: 7".to_vec()),
        Just(b"retry: 10".to_vec()),
        Just(b": c".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"{\"a\":[1,\"}\"]}".to_vec()),
        Just("€😀".as_bytes().to_vec()),
        Just(vec![0xEF, 0xBB, 0xBF]),
        Just(vec![0xFF]),
        Just(vec![0xE2, 0x82]),
        proptest::collection::vec(any::<u8>(), 0..4),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("SSE_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000)
    ))]

    #[test]
    fn any_chunking_of_any_input_gives_the_same_events_as_one_chunk(
        (input, cuts) in sse_like().prop_flat_map(|input| {
            let len = input.len();
            (Just(input), split_points(len))
        })
    ) {
        for framing in [Framing::Standard, Framing::JsonLines] {
            prop_assert_eq!(chunked(&input, &cuts, framing), chunked(&input, &[], framing));
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(input in proptest::collection::vec(any::<u8>(), 0..512), cut in 0usize..512) {
        let cut = cut.min(input.len());
        let _ = chunked(&input, &[cut], Framing::JsonLines);
    }
}
