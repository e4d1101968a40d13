use super::*;

/// Every event's bytes, cut out of the stream by the ranges the decoder noted, whatever the
/// chunks: comments and blank lines between events belong to none.
#[test]
fn each_event_s_place_in_the_stream_is_noted_whatever_the_chunks() {
    let stream = "\u{feff}: hello\n\nevent: a\r\ndata: 1\r\n\r\ndata: {\"x\":2}\ndata: {\"y\":3}\n\n: ping\rdata: 4\n\ndata: {\"tail\":5}";
    let bytes = stream.as_bytes();
    let want = [
        "event: a\r\ndata: 1\r\n\r\n",
        "data: {\"x\":2}\n",
        "data: {\"y\":3}\n",
        "data: 4\n\n",
        "data: {\"tail\":5}",
    ];
    for size in [1, 2, 3, 7, bytes.len()] {
        let mut decoder = SseDecoder::new(Framing::JsonLines).track_offsets();
        let mut events = Vec::new();
        for chunk in bytes.chunks(size) {
            decoder.feed(chunk, &mut events).unwrap();
        }
        // The last line has no ending: the end of the stream ends it.
        decoder.finish(&mut events);
        assert_eq!(events.len(), want.len());
        let mut ranges = Vec::new();
        decoder.take_offsets(&mut ranges);
        // A CRLF cut between two chunks: the event was dispatched at its CR, before its LF came
        // (that byte then belongs to no event).
        let cut: Vec<String> = ranges
            .iter()
            .map(|r| {
                (
                    &stream[r.start as usize..r.end as usize],
                    &stream[r.end as usize..],
                )
            })
            .map(
                |(cut, after)| match cut.ends_with('\r') && after.starts_with('\n') {
                    true => format!("{cut}\n"),
                    false => cut.to_owned(),
                },
            )
            .collect();
        assert_eq!(cut, want, "chunks of {size}");
    }
}

fn decode_all(framing: Framing, chunks: &[&[u8]]) -> (Vec<SseEvent>, Option<SseEvent>) {
    let mut decoder = SseDecoder::new(framing);
    let mut out = Vec::new();
    for chunk in chunks {
        decoder.feed(chunk, &mut out).unwrap();
    }
    let end = decoder.finish(&mut out);
    assert_eq!(end.error, None);
    (out, end.pending)
}

#[test]
fn a_json_line_without_a_blank_line_is_dispatched_at_once() {
    let mut decoder = SseDecoder::default();
    let mut out = Vec::new();
    decoder.feed(b"data: {\"a\":1}\n", &mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].data, "{\"a\":1}");
}

#[test]
fn pretty_printed_json_waits_for_its_blank_line() {
    let (events, _) = decode_all(
        Framing::JsonLines,
        &[b"data: {\ndata:   \"a\": {\"b\": 1}\ndata: }\n\n"],
    );
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].data, "{\n  \"a\": {\"b\": 1}\n}");
}

#[test]
fn an_event_type_line_before_a_json_line_is_kept_and_reset() {
    let (events, _) = decode_all(
        Framing::JsonLines,
        &[b"event: response.created\ndata: {\"x\":1}\n\ndata: {\"y\":2}\n"],
    );
    assert_eq!(events[0].event, "response.created");
    assert_eq!(events[1].event, "");
}

#[test]
fn a_last_line_without_ending_is_processed_at_end_of_stream() {
    let (events, pending) = decode_all(Framing::JsonLines, &[b"data: {\"a\":1}"]);
    assert_eq!(events.len(), 1);
    assert!(pending.is_none());
    let (events, pending) = decode_all(Framing::Standard, &[b"data: {\"a\":1}"]);
    assert!(events.is_empty());
    assert_eq!(pending.unwrap().data, "{\"a\":1}");
}

#[test]
fn an_overlong_line_is_an_error_and_the_stream_goes_on() {
    let mut decoder = SseDecoder::with_limit(Framing::Standard, 8);
    let mut out = Vec::new();
    assert!(decoder.feed(b"data: 0123456789", &mut out).is_err());
    decoder.feed(b"abc\n\ndata: ok\n\n", &mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].data, "ok");
}

#[test]
fn an_overlong_event_is_an_error() {
    let mut decoder = SseDecoder::with_limit(Framing::Standard, 11);
    let mut out = Vec::new();
    decoder.feed(b"data: 12345\n", &mut out).unwrap();
    assert!(decoder.feed(b"data: 12345\n", &mut out).is_err());
}

#[test]
fn the_tail_of_an_overlong_event_is_not_dispatched_as_an_event_of_its_own() {
    let mut decoder = SseDecoder::with_limit(Framing::Standard, 11);
    let mut out = Vec::new();
    assert!(
        decoder
            .feed(
                b"data: 12345\ndata: 12345\ndata: ab\n\ndata: ok\n\n",
                &mut out
            )
            .is_err()
    );
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].data, "ok");
}

#[test]
fn an_overlong_last_line_does_not_lose_the_pending_event_or_its_type() {
    let mut decoder = SseDecoder::with_limit(Framing::Standard, 32);
    let mut out = Vec::new();
    decoder
        .feed(b"event: new_message\ndata: {\"a\":\ndata: 1}\n", &mut out)
        .ok();
    assert!(decoder.feed(&[b'x'; 40], &mut out).is_err());
    let end = decoder.finish(&mut out);
    let pending = end.pending.unwrap();
    assert_eq!(pending.data, "{\"a\":\n1}");
    assert_eq!(pending.event, "new_message");
}

#[test]
fn a_retry_value_too_large_keeps_the_previous_one() {
    let mut decoder = SseDecoder::new(Framing::Standard);
    let mut out = Vec::new();
    decoder
        .feed(b"retry: 1000\nretry: 99999999999999999999999\n", &mut out)
        .unwrap();
    assert_eq!(decoder.retry(), Some(1000));
}

#[test]
fn complete_json_detection_respects_strings_and_nesting() {
    assert!(is_complete_json("{\"a\":\"}\"}"));
    assert!(is_complete_json("  [1,{\"b\":[2]}] "));
    assert!(!is_complete_json("{"));
    assert!(!is_complete_json("{}{}"));
    assert!(!is_complete_json("[DONE]x"));
    assert!(!is_complete_json("{\"a\":\"\\\"}"));
    assert!(!is_complete_json("42"));
}
