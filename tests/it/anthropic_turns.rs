//! Anthropic turns over real sockets: a turn the server pauses (`stop_reason: pause_turn`) is
//! continued by the client within the same turn — the paused content sent back, the continuation's
//! stream read into the same answer — and ends exactly as the same turn unpaused would; follow-ups
//! resend each earlier turn's content blocks, rebuilt from what was saved.
//!
//! Two servers on 127.0.0.1: one that replays the real recorded pause and continuation of
//! tests/fixtures/real/ (pydantic-ai's cassette) and keeps what it was sent, and the demo agent.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use research_tui::agent::client::ApiKey;
use research_tui::agent::client::StreamHandle;
use research_tui::agent::live::{self, LiveConfig};
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::citations::Attribution;
use research_tui::model::session::{Session, Status};
use research_tui::model::stream_end::StreamEnd;
use research_tui::wire::input::read_session;
use research_tui::wire::provider::Ask;
use research_tui::wire::provider::Provider;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support;

const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/real");
const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/recordings/anthropic");

/// The session, how the stream ended and every raw byte (within 30 s).
async fn run(mut handle: StreamHandle, raw: Arc<Mutex<Vec<u8>>>) -> (Session, StreamEnd, Vec<u8>) {
    let mut session = Session::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let update = tokio::time::timeout_at(deadline, handle.updates.recv())
            .await
            .expect("the stream ends within 30 s")
            .expect("Ended comes before the channel closes");
        match update {
            StreamUpdate::Events(events) => session.apply_all(events),
            StreamUpdate::Ended(end) => {
                let raw = raw.lock().unwrap().clone();
                return (session, end, raw);
            }
            _ => {}
        }
    }
}

async fn ask(config: &LiveConfig, ask: &Ask) -> (Session, StreamEnd, Vec<u8>) {
    let raw: Arc<Mutex<Vec<u8>>> = Arc::default();
    let sink: research_tui::agent::client::RawSink = raw.clone();
    run(live::start_recorded(config, ask, Some(sink)), raw).await
}

/// One request as the server got it: its head (lower-cased) and its JSON body.
struct Received {
    head: String,
    body: Value,
}

/// Answers `POST /v1/messages` with the real paused stream, and a request whose last message is the
/// assistant's with the real continuation; keeps every request.
async fn replay_server() -> (SocketAddr, Arc<Mutex<Vec<Received>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let received: Arc<Mutex<Vec<Received>>> = Arc::default();
    let log = received.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let log = log.clone();
            tokio::spawn(async move {
                let (head, body) = read_request(&mut socket).await;
                let continues = body["messages"]
                    .as_array()
                    .and_then(|m| m.last())
                    .is_some_and(|m| m["role"] == "assistant");
                let part = if continues { "2-continued" } else { "1-paused" };
                let stream =
                    std::fs::read(format!("{REAL}/anthropic-pause-turn-{part}.sse")).unwrap();
                log.lock().unwrap().push(Received { head, body });
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n\
                            cache-control: no-cache\r\nconnection: close\r\n\r\n";
                let _ = socket.write_all(head.as_bytes()).await;
                // In pieces, as a network delivers them: lines broken anywhere.
                for piece in stream.chunks(4093) {
                    let _ = socket.write_all(piece).await;
                }
                let _ = socket.shutdown().await;
            });
        }
    });
    (addr, received)
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> (String, Value) {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        let n = socket.read(&mut buf).await.unwrap();
        bytes.extend_from_slice(&buf[..n]);
        let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map_or(0, |v| v.trim().parse().unwrap());
        while bytes.len() < end + 4 + length {
            let n = socket.read(&mut buf).await.unwrap();
            bytes.extend_from_slice(&buf[..n]);
        }
        let body = serde_json::from_slice(&bytes[end + 4..end + 4 + length]).unwrap();
        return (head, body);
    }
}

fn expected(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(format!("{REAL}/{name}")).unwrap()).unwrap()
}

/// `(start, end, text, source)` of every citation, in the expectation files' order.
fn citations(session: &Session) -> Vec<Value> {
    let attribution = Attribution::resolve(session, true);
    let answer = session.answer.as_str();
    let mut cited: Vec<Value> = attribution
        .citations
        .iter()
        .map(
            |c| json!({"start": c.start, "end": c.end, "text": c.text(answer), "source": c.source}),
        )
        .collect();
    cited.sort_by_key(|c| {
        let n = |key: &str| c[key].as_u64().unwrap_or(0);
        (n("start"), n("end"), n("source"))
    });
    cited
}

#[tokio::test]
async fn a_real_paused_turn_is_continued_with_its_content_and_ends_as_one_answer() {
    let (addr, received) = replay_server().await;
    let config = LiveConfig {
        base_url: format!("http://{addr}"),
        api_key: Some(ApiKey::new("sk-ant-test-key")),
        ..LiveConfig::new(Provider::Anthropic, None)
    };
    let question = "Run a series of web searches";
    let (session, end, raw) = ask(&config, &Ask::new(question)).await;
    let whole = expected("anthropic-pause-turn-whole.expected.json");
    assert_eq!(end, StreamEnd::Closed);
    assert_eq!(session.status(), Status::Complete);
    assert_eq!(session.answer.as_str(), whole["answer"]);
    assert_eq!(Value::from(citations(&session)), whole["citations"]);
    assert!(!session.paused);

    let received = received.lock().unwrap();
    assert_eq!(received.len(), 2, "the question, then its continuation");
    for request in received.iter() {
        assert!(request.head.contains("\r\nx-api-key: sk-ant-test-key"));
        assert!(request.head.contains("\r\nanthropic-version: 2023-06-01"));
        assert_eq!(request.body["messages"][0]["content"], question);
    }
    // What the client sent back is what pydantic-ai sent back in the recorded session, which the
    // API accepted: every block of the paused turn, rebuilt from the stream. (pydantic-ai drops
    // the results' `caller` and writes typographic quotes in titles as ASCII; the client sends
    // them as the stream had them.)
    let real = expected("anthropic-pause-turn-continuation-request.json");
    let sent = &received[1].body["messages"][1];
    assert_eq!(sent["role"], "assistant");
    assert_eq!(
        essence(&sent["content"]),
        essence(&real["messages"][1]["content"])
    );
    assert_eq!(sent["content"].as_array().unwrap().len(), 25);
    // The saved stream is both responses, and rebuilds the same turn.
    let (saved, errors) = read_session(raw.as_slice(), None).unwrap();
    assert!(errors.is_empty());
    assert_eq!(saved.answer.as_str(), session.answer.as_str());
    assert_eq!(saved.transcript, session.transcript);
    assert_eq!(saved.status(), Status::Complete);
}

/// What the API needs of content blocks: their kinds, ids, inputs, texts, thinking with its
/// signature, and each result's URL and encrypted content.
fn essence(blocks: &Value) -> Vec<Value> {
    blocks
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let results: Vec<Value> = b["content"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| json!([r["url"], r["encrypted_content"], r["page_age"]]))
                .collect();
            json!([
                b["type"],
                b["id"],
                b["input"],
                b["tool_use_id"],
                b["text"],
                b["thinking"],
                b["signature"],
                results
            ])
        })
        .collect()
}

async fn demo_agent() -> SocketAddr {
    support::demo_agent(500.0).await
}

#[tokio::test]
async fn the_demo_agents_paused_turn_ends_exactly_as_the_same_turn_unpaused() {
    let addr = demo_agent().await;
    let config = LiveConfig::demo(Provider::Anthropic, addr);
    let (paused, end, _) = ask(&config, &Ask::new(live::demo_question(Provider::Anthropic))).await;
    assert_eq!(end, StreamEnd::Closed);
    assert_eq!(paused.status(), Status::Complete);
    let file = std::fs::File::open(format!("{DEMO}/congestion-pricing-unpaused.sse")).unwrap();
    let (unpaused, _) = read_session(file, Some(Provider::Anthropic)).unwrap();
    assert_eq!(paused.answer.as_str(), unpaused.answer.as_str());
    assert_eq!(citations(&paused), citations(&unpaused));
    assert_eq!(paused.consulted, unpaused.consulted);
    assert_eq!(paused.answer.as_str().matches("New York").count(), 2);
    assert!(paused.answer.as_str().contains("Göteborg"));
}

#[tokio::test]
async fn a_follow_up_resends_the_earlier_turns_search_blocks_rebuilt_from_the_saved_stream() {
    let addr = demo_agent().await;
    let config = LiveConfig::demo(Provider::Anthropic, addr);
    let question = live::demo_question(Provider::Anthropic);
    let (first, _, raw) = ask(&config, &Ask::new(question)).await;
    // As `open` and `--resume` do: the earlier turn from its saved stream.
    let (saved, _) = read_session(raw.as_slice(), None).unwrap();
    let follow_up = Ask {
        history: vec![(question.to_owned(), saved.answer.as_str().to_owned())],
        transcripts: vec![saved.transcript.clone()],
        ..Ask::new("How has New York's scheme done so far?")
    };
    let (second, end, _) = ask(&config, &follow_up).await;
    assert_eq!(end, StreamEnd::Closed);
    assert_eq!(second.status(), Status::Complete);
    assert!(second.answer.as_str().starts_with("In New York"));

    let requests = crate::support::live::received(addr).await;
    assert_eq!(requests.len(), 3, "question, continuation, follow-up");
    let sent = &requests[2]["body"]["messages"];
    assert_eq!(sent[0]["content"], question);
    assert_eq!(sent[2]["content"], "How has New York's scheme done so far?");
    let blocks = sent[1]["content"].as_array().unwrap();
    assert_eq!(
        blocks.len(),
        first.transcript.len() - 1,
        "all but the thinking"
    );
    let kinds: Vec<&str> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "server_tool_use").count(), 3);
    assert_eq!(
        kinds
            .iter()
            .filter(|k| **k == "web_search_tool_result")
            .count(),
        3
    );
    assert!(
        blocks
            .iter()
            .any(|b| b["citations"][0]["encrypted_index"].is_string())
    );
}

#[test]
fn a_cited_pages_quotes_and_age_show_in_its_detail_and_thinking_stays_out_of_the_answer() {
    use crate::support::{app, browse, draw, key, keys, play};
    use crossterm::event::KeyCode;
    let mut app = app();
    let path = format!("{REAL}/anthropic-web-search-thinking.sse");
    play(
        &mut app,
        &path,
        Some("What is the weather in San Francisco today?"),
        None,
    );
    browse(&mut app);
    keys(&mut app, "c");
    key(&mut app, KeyCode::Enter);
    let screen = draw(&mut app, 140, 42).backend().to_string();
    // Source 1 is AccuWeather's monthly page: the quote the model relied on, and the page's age
    // as its search result gave it.
    assert!(screen.contains("Extracts"), "{screen}");
    assert!(
        screen.contains("San Francisco, CA Weather Today"),
        "{screen}"
    );
    assert!(screen.contains("Supports 1 span"), "{screen}");
    let answer = app.turns[0].session.answer.as_str();
    assert!(answer.contains("76°F"));
    assert!(!answer.contains("The user is asking about the weather"));
}

#[tokio::test]
async fn a_server_that_pauses_every_time_is_continued_ten_times_then_the_turn_ends_cut() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let requests = Arc::new(Mutex::new(0usize));
    let count = requests.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let _ = read_request(&mut socket).await;
            *count.lock().unwrap() += 1;
            let stream =
                std::fs::read(format!("{REAL}/anthropic-pause-turn-1-paused.sse")).unwrap();
            let head =
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(&stream).await;
            let _ = socket.shutdown().await;
        }
    });
    let config = LiveConfig {
        base_url: format!("http://{addr}"),
        api_key: Some(ApiKey::new("sk-ant-test-key")),
        ..LiveConfig::new(Provider::Anthropic, None)
    };
    let (session, end, _) = ask(&config, &Ask::new("Search forever")).await;
    assert_eq!(
        *requests.lock().unwrap(),
        11,
        "the question and ten continuations"
    );
    let StreamEnd::Cut { reason } = end else {
        panic!("{end:?}")
    };
    assert!(reason.contains("paused the turn 10 times"), "{reason}");
    assert_eq!(session.status(), Status::Incomplete);
}
