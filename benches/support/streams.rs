//! Deterministic synthetic Bigdata.com streams for the benchmarks and the stress tests: one SSE event
//! per frame (`data: {…}` and a blank line), as a live agent sends them, so a replay delivers them one
//! by one.
//!
//! - [`benchmark_stream`]: ≈1.8 M answer characters in 40 k ANSWER chunks, 5,000 references to 1,000
//!   sources, 200 tool calls with audit traces — about 8 MB. With `groundings_first` every GROUNDING
//!   is sent before the first ANSWER chunk (as the Bigdata agent does): every reference is pending
//!   while the answer streams in.
//! - [`write_large_stream`]: a stream of about `target` bytes, mostly answer text in 1 KB chunks of
//!   Markdown, with 2,000 references sent before the answer: for peak-memory measurements.
//!   [`write_stream_in_chunks`]: the same with answer chunks of another size (small ones, for a
//!   stream of many small events).
//!
//! [`serve_event_stream`] answers every HTTP request on 127.0.0.1 with such a stream.

#![allow(dead_code)]

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};

use serde_json::{Value, json};

const WORDS: [&str; 12] = [
    "revenue",
    "margin",
    "guidance",
    "€2.1bn",
    "東京",
    "growth",
    "data-center",
    "📈",
    "capex",
    "demand",
    "supply",
    "Müller",
];

/// One SSE event for `message`.
fn event(out: &mut impl Write, chat_id: &str, message: Value) -> io::Result<()> {
    out.write_all(b"data: ")?;
    serde_json::to_writer(&mut *out, &json!({"chat_id": chat_id, "message": message}))?;
    out.write_all(b"\n\n")
}

/// A cited document: a Bigdata one for even `i`, an external one for odd `i`.
fn source(i: usize) -> Value {
    if i.is_multiple_of(2) {
        json!({"type": "BIGDATA", "id": format!("doc-{i:05}"), "hd": format!("Quarterly filing number {i}"),
               "src_name": "SEC EDGAR", "ts": "2026-04-15T00:00:00Z", "url": format!("https://example.com/doc/{i}"),
               "chunks": [{"cnum": 1, "text": "Data Center revenue was $39.1 billion, up 73% from a year ago.", "relevance": 0.9}]})
    } else {
        json!({"type": "EXTERNAL", "id": format!("ext-{i:05}"), "hd": format!("Market report {i}"), "ts": "2026-05-02T13:20:00Z",
               "text": "Shares rose after the forecast topped estimates.", "action": {"name": "Reuters", "url": format!("https://example.org/{i}")}})
    }
}

/// `tool_calls` searches, each with an audit trace listing `sources / tool_calls` documents.
fn tool_calls(
    out: &mut impl Write,
    chat_id: &str,
    tool_calls: usize,
    sources: usize,
) -> io::Result<()> {
    for t in 0..tool_calls {
        event(
            out,
            chat_id,
            json!({"type": "ACTION", "tool_name": "search", "tool_arguments": {"query": format!("query {t}")}}),
        )?;
        let values: Vec<Value> = (0..sources / tool_calls)
            .map(|k| source(t * (sources / tool_calls) + k))
            .collect();
        event(
            out,
            chat_id,
            json!({"type": "AUDIT", "audit_traces": [{"audit_type": "SearchAuditV1", "tool_id": format!("audit-{t}"),
                    "query": {"text": format!("query {t}")}, "results": [{"type": "CQS", "values": values}]}]}),
        )?;
    }
    Ok(())
}

fn complete(out: &mut impl Write, chat_id: &str) -> io::Result<()> {
    event(
        out,
        chat_id,
        json!({"type": "COMPLETE", "checkpoint_id": "ckpt-bench", "consumption": [{"type": "base", "input_tokens": 1, "output_tokens": 2, "cached_tokens": 0}]}),
    )
}

/// The ≈8 MB benchmark stream (see the module docs).
pub fn benchmark_stream(groundings_first: bool) -> Vec<u8> {
    const CHUNKS: usize = 40_000;
    const SOURCES: usize = 1_000;
    const REFERENCES: usize = 5_000;
    const TOOL_CALLS: usize = 200;
    const CHAT: &str = "chat-bench";
    let mut out = Vec::with_capacity(9 << 20);
    tool_calls(&mut out, CHAT, TOOL_CALLS, SOURCES).unwrap();
    let chunks: Vec<String> = (0..CHUNKS)
        .map(|c| {
            let mut chunk = String::new();
            let mut w = c;
            while chunk.chars().count() < 43 {
                chunk.push_str(WORDS[w % WORDS.len()]);
                chunk.push(' ');
                w = w.wrapping_mul(31).wrapping_add(7);
            }
            chunk
        })
        .collect();
    // A batch of references every 400 chunks, each within the text sent by then.
    let mut groundings: Vec<(usize, Value)> = Vec::new();
    let mut answer_len = 0usize;
    let mut refs_sent = 0usize;
    for (c, chunk) in chunks.iter().enumerate() {
        answer_len += chunk.chars().count();
        if (c + 1) % (CHUNKS / 100) == 0 {
            let refs: Vec<Value> = (0..REFERENCES / 100)
                .map(|k| {
                    let i = refs_sent + k;
                    let end = answer_len - (i * 13) % 500;
                    let s = (i * 7) % SOURCES;
                    json!({"start": end - 30, "end": end, "tool_name": "search", "audit_id": format!("audit-{}", s / (SOURCES / TOOL_CALLS)), "source": source(s)})
                })
                .collect();
            refs_sent += refs.len();
            groundings.push((c, json!({"type": "GROUNDING", "references": refs})));
        }
    }
    if groundings_first {
        for (_, grounding) in groundings.drain(..) {
            event(&mut out, CHAT, grounding).unwrap();
        }
    }
    let mut pending = groundings.into_iter().peekable();
    for (c, chunk) in chunks.iter().enumerate() {
        event(
            &mut out,
            CHAT,
            json!({"type": "ANSWER", "message_id": "ans-1", "content": chunk}),
        )
        .unwrap();
        while let Some((_, grounding)) = pending.next_if(|(after, _)| *after == c) {
            event(&mut out, CHAT, grounding).unwrap();
        }
    }
    complete(&mut out, CHAT).unwrap();
    out
}

/// The Markdown answer of the large stream, block by block: headings, paragraphs, lists and a table
/// now and then, with multi-byte text.
fn large_answer_block(i: usize) -> String {
    match i % 20 {
        0 => format!("## Section {i}: data-center demand in 東京 and München\n\n"),
        7 => "- **Compute** grew on Blackwell Ultra 📈 and the networking attach rate.\n- **Networking** grew on Spectrum-X and InfiniBand.\n- Gaming rose on RTX demand.\n\n".to_owned(),
        13 => "| Segment | Revenue | YoY |\n|---|---:|---:|\n| Data Center | $66.8B | +71% |\n| Gaming | $4.5B | +20% |\n\n".to_owned(),
        _ => {
            let mut paragraph = String::new();
            let mut w = i;
            while paragraph.len() < 600 {
                paragraph.push_str(WORDS[w % WORDS.len()]);
                paragraph.push_str(if w.is_multiple_of(9) { ", " } else { " " });
                w = w.wrapping_mul(31).wrapping_add(7);
            }
            paragraph.push_str("rose.\n\n");
            paragraph
        }
    }
}

/// The large stream's answer cut into chunks of about `chunk` bytes (at character boundaries),
/// `target` bytes of answer in all.
fn large_answer_chunks(target: usize, chunk: usize) -> impl Iterator<Item = String> {
    let mut block = 0usize;
    let mut buffer = String::new();
    let mut produced = 0usize;
    std::iter::from_fn(move || {
        if produced >= target {
            return None;
        }
        while buffer.len() < chunk {
            buffer.push_str(&large_answer_block(block));
            block += 1;
        }
        let mut cut = chunk;
        while !buffer.is_char_boundary(cut) {
            cut += 1;
        }
        let chunk: String = buffer.drain(..cut).collect();
        produced += chunk.len();
        Some(chunk)
    })
}

/// What [`write_large_stream`] wrote.
#[derive(Debug, Clone, Copy)]
pub struct LargeStream {
    pub bytes: u64,
    pub answer_bytes: u64,
    pub chunks: usize,
    pub references: usize,
}

/// Write a stream of about `target` bytes to `out` (see the module docs): a few tool calls, 2,000
/// references spread over the whole answer (all sent first, so they are pending while it streams),
/// the answer in 1 KB chunks, COMPLETE.
pub fn write_large_stream(out: &mut impl Write, target: u64) -> io::Result<LargeStream> {
    write_stream_in_chunks(out, target, 1024)
}

/// [`write_large_stream`] with answer chunks of about `chunk` bytes.
pub fn write_stream_in_chunks(
    out: &mut impl Write,
    target: u64,
    chunk: usize,
) -> io::Result<LargeStream> {
    const CHAT: &str = "chat-large";
    const SOURCES: usize = 1_000;
    const REFERENCES: usize = 2_000;
    let mut counted = CountingWriter {
        inner: out,
        bytes: 0,
    };
    // Per chunk the event adds about 100 bytes of JSON around the text.
    let answer_target = (target as usize / (chunk + 100)) * chunk;
    // First pass: where each chunk ends, in code points (reference offsets).
    let ends: Vec<usize> = large_answer_chunks(answer_target, chunk)
        .scan(0usize, |total, chunk| {
            *total += chunk.chars().count();
            Some(*total)
        })
        .collect();
    tool_calls(&mut counted, CHAT, 20, SOURCES)?;
    for batch in 0..REFERENCES / 100 {
        let refs: Vec<Value> = (0..100)
            .map(|k| {
                let i = batch * 100 + k;
                let end = ends[(i * ends.len() / REFERENCES).min(ends.len() - 1)] - (i * 13) % 200;
                let s = (i * 7) % SOURCES;
                json!({"start": end - 30, "end": end, "tool_name": "search", "audit_id": format!("audit-{}", s / 50), "source": source(s)})
            })
            .collect();
        event(
            &mut counted,
            CHAT,
            json!({"type": "GROUNDING", "references": refs}),
        )?;
    }
    let mut answer_bytes = 0u64;
    for chunk in large_answer_chunks(answer_target, chunk) {
        answer_bytes += chunk.len() as u64;
        event(
            &mut counted,
            CHAT,
            json!({"type": "ANSWER", "message_id": "ans-1", "content": chunk}),
        )?;
    }
    complete(&mut counted, CHAT)?;
    counted.flush()?;
    Ok(LargeStream {
        bytes: counted.bytes,
        answer_bytes,
        chunks: ends.len(),
        references: REFERENCES,
    })
}

struct CountingWriter<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// An HTTP server on 127.0.0.1 (a thread, one connection at a time) that answers every request with
/// `200 text/event-stream` and what `body` writes. Returns its base URL.
pub fn serve_event_stream(body: impl Fn(&mut TcpStream) + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            if read_request(&mut stream).is_none() {
                continue;
            }
            let head =
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
            if stream.write_all(head).is_ok() {
                body(&mut stream);
            }
        }
    });
    format!("http://{addr}")
}

/// Like [`serve_event_stream`], each of `events` sent as one HTTP chunk (chunked transfer encoding,
/// as streaming servers send them): a client reads each as a chunk of its own.
pub fn serve_chunked_events(events: Vec<Vec<u8>>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            if read_request(&mut stream).is_none() {
                continue;
            }
            let head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
            let mut out = io::BufWriter::with_capacity(64 * 1024, stream);
            let _ = out.write_all(head);
            for event in &events {
                let _ = write!(out, "{:x}\r\n", event.len());
                let _ = out.write_all(event);
                let _ = out.write_all(b"\r\n");
            }
            let _ = out.write_all(b"0\r\n\r\n");
            let _ = out.flush();
        }
    });
    format!("http://{addr}")
}

/// Read a request: its head, then the body its Content-Length announces. `None` if the client left.
fn read_request(stream: &mut TcpStream) -> Option<()> {
    let mut request = Vec::new();
    let mut buf = [0u8; 4096];
    let body_start = loop {
        let n = stream.read(&mut buf).ok().filter(|&n| n > 0)?;
        request.extend_from_slice(&buf[..n]);
        if let Some(i) = request.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&request[..body_start]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let mut have = request.len() - body_start;
    while have < length {
        have += stream.read(&mut buf).ok().filter(|&n| n > 0)?;
    }
    Some(())
}
