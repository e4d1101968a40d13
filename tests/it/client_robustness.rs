//! The client against hostile servers on 127.0.0.2 that answer `200` with something other than an
//! event stream, trickle their response headers, or send nothing but keep-alive comments.
//!
//! Timing runs on tokio's paused clock (`start_paused`): timeouts are advanced to, not waited
//! for. Every deciding timeout is several of the server's own timer ticks away, so I/O still on
//! its way through the loopback is taken at the next tick, long before it could be missed.

use std::future::Future;
use std::process::Output;
use std::time::Duration;

use tokio::time::Instant;

use research_tui::agent::client::{AgentClient, ResearchRequest, StreamOptions};
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::stream_end::StreamEnd;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::support;

const KEY: &str = "sk-test-SECRET-9876-zyxwvuts";

/// Serves every connection on 127.0.0.2: reads the request, then hands the socket to `respond`.
async fn hostile<F, Fut>(respond: F) -> String
where
    F: Fn(TcpStream) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind(("127.0.0.2", 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let respond = std::sync::Arc::new(respond);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let respond = respond.clone();
            tokio::spawn(async move {
                // The request is small: its head and body arrive in one read or two.
                let mut buf = vec![0u8; 16 * 1024];
                let _ = tokio::time::timeout(Duration::from_millis(300), async {
                    let mut seen = Vec::new();
                    while let Ok(n) = socket.read(&mut buf).await {
                        seen.extend_from_slice(&buf[..n]);
                        if n == 0 || seen.windows(4).any(|w| w == b"\r\n\r\n") {
                            break;
                        }
                    }
                })
                .await;
                respond(socket).await;
            });
        }
    });
    format!("http://{addr}")
}

/// A server that answers every request with `response`, then closes.
async fn answering(response: Vec<u8>) -> String {
    hostile(move |mut socket| {
        let response = response.clone();
        async move {
            let _ = socket.write_all(&response).await;
            let _ = socket.shutdown().await;
        }
    })
    .await
}

/// `research-tui ask` against `base_url`, with the key set and private XDG directories.
fn ask(base_url: &str, args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    support::cli(dir.path())
        .args(["ask", "What changed?", "--base-url", base_url])
        .args(args)
        .env("BIGDATA_API_KEY", KEY)
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_200_html_page_is_reported_as_what_it_is_with_the_key_redacted() {
    let page = format!(
        "<!DOCTYPE html><html><head><title>Sign in to the proxy</title></head><body>token {KEY}</body></html>"
    );
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
        page.len()
    );
    let url = answering(response.into_bytes()).await;
    let output = tokio::task::block_in_place(|| ask(&url, &[]));
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{text}");
    assert!(
        text.contains("HTTP 200: expected an event stream, got text/html: <!DOCTYPE html>"),
        "{text}"
    );
    assert!(text.contains("Sign in to the proxy"), "{text}");
    assert!(!text.contains("before COMPLETE"), "{text}");
    assert!(!text.contains("SECRET"), "the key is redacted: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gzip_body_is_reported_as_compressed_not_as_a_cut_stream() {
    let gzip: &[u8] = &[
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x4b, 0x49, 0x2c, 0x49, 0xb4,
        0x52, 0xa8, 0xae, 0xe5, 0xe2, 0x02, 0x00,
    ];
    let mut response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: gzip\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        gzip.len()
    )
    .into_bytes();
    response.extend_from_slice(gzip);
    let url = answering(response).await;
    let output = tokio::task::block_in_place(|| ask(&url, &[]));
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{text}");
    assert!(
        text.contains("expected an event stream, got a body compressed with gzip"),
        "{text}"
    );
    assert!(!text.contains('\u{FFFD}'), "no binary is quoted: {text}");
}

/// Every update of one research stream against `base_url`, and how long it took.
async fn run(base_url: &str, options: StreamOptions) -> (Vec<StreamUpdate>, Duration) {
    let started = Instant::now();
    let mut handle = AgentClient::new(base_url, None).research(ResearchRequest::new("q"), options);
    let mut updates = Vec::new();
    let collect = async {
        while let Some(update) = handle.updates.recv().await {
            let ended = matches!(update, StreamUpdate::Ended(_));
            updates.push(update);
            if ended {
                break;
            }
        }
    };
    // Long past every bound the options set: a stream still going then is never going to end.
    let _ = tokio::time::timeout(Duration::from_secs(20), collect).await;
    (updates, started.elapsed())
}

#[tokio::test(start_paused = true)]
async fn headers_sent_a_byte_at_a_time_hit_the_time_to_headers_bound() {
    let url = hostile(|mut socket| async move {
        let _ = socket.write_all(b"HTTP/1.1 200 OK\r\nx-slow: ").await;
        for _ in 0..600 {
            if socket.write_all(b"a").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    let options = StreamOptions {
        idle_timeout: Duration::from_secs(30),
        headers_timeout: Duration::from_millis(800),
        max_attempts: 1,
        ..StreamOptions::default()
    };
    let (updates, elapsed) = run(&url, options).await;
    assert!(
        matches!(
            updates.last(),
            Some(StreamUpdate::Ended(StreamEnd::Stalled { .. }))
        ),
        "{updates:?}"
    );
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
}

#[tokio::test(start_paused = true)]
async fn a_stream_of_keep_alive_comments_alone_stalls_after_the_idle_timeout() {
    let url = hostile(|mut socket| async move {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";
        let _ = socket.write_all(head.as_bytes()).await;
        for _ in 0..600 {
            if socket.write_all(b": ping\r\n\r\n").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    let options = StreamOptions {
        idle_timeout: Duration::from_secs(1),
        max_attempts: 1,
        ..StreamOptions::default()
    };
    let (updates, elapsed) = run(&url, options).await;
    assert!(
        matches!(
            updates.last(),
            Some(StreamUpdate::Ended(StreamEnd::Stalled { idle_secs: 1 }))
        ),
        "{updates:?}"
    );
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
}

#[tokio::test(start_paused = true)]
async fn keep_alives_between_events_do_not_hide_a_stall_and_data_resets_the_clock() {
    // Events every 400 ms for 2 s (longer than the idle timeout in all), then only pings.
    let url = hostile(|mut socket| async move {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";
        let _ = socket.write_all(head.as_bytes()).await;
        let answer =
            "data: {\"chat_id\":\"c\",\"message\":{\"type\":\"ANSWER\",\"content\":\"a\"}}\n\n";
        for _ in 0..5 {
            let _ = socket.write_all(answer.as_bytes()).await;
            tokio::time::sleep(Duration::from_millis(200)).await;
            let _ = socket.write_all(b": ping\n\n").await;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        for _ in 0..600 {
            if socket.write_all(b": ping\n\n").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    let options = StreamOptions {
        idle_timeout: Duration::from_secs(1),
        max_attempts: 1,
        ..StreamOptions::default()
    };
    let (updates, elapsed) = run(&url, options).await;
    let answers = updates
        .iter()
        .filter(|u| matches!(u, StreamUpdate::Events(_)))
        .count();
    assert_eq!(answers, 5, "{updates:?}");
    assert!(
        matches!(
            updates.last(),
            Some(StreamUpdate::Ended(StreamEnd::Stalled { .. }))
        ),
        "{updates:?}"
    );
    assert!(
        elapsed >= Duration::from_millis(2500) && elapsed < Duration::from_secs(6),
        "took {elapsed:?}"
    );
}

#[test]
fn an_invalid_base_url_is_a_usage_error_for_ask_and_the_app() {
    for bad in [
        "not a url",
        "ftp://agents.example",
        "http://",
        "https://x.example/?q=1",
    ] {
        let output = ask(bad, &[]);
        let text = stderr(&output);
        assert_eq!(
            output.status.code(),
            Some(2),
            "ask --base-url {bad:?}: {text}"
        );
        assert!(text.contains("--base-url takes an http(s) URL"), "{text}");
        // The app checks it before it touches the terminal.
        let app = support::cli(support::scratch())
            .args(["--base-url", bad])
            .env("BIGDATA_API_KEY", KEY)
            .env("XDG_CONFIG_HOME", "/nonexistent")
            .output()
            .unwrap();
        assert_eq!(
            app.status.code(),
            Some(2),
            "app --base-url {bad:?}: {}",
            stderr(&app)
        );
    }
}

/// Why a base URL is refused is said in plain words, with a good value to copy: never the URL
/// parser's own text ("relative URL without a base", "invalid port number").
#[test]
fn a_bad_base_url_is_explained_in_plain_words_with_an_example() {
    for (bad, why) in [
        (
            "agents.example.com",
            "it has no scheme (did you mean https://agents.example.com?)",
        ),
        ("not a url", "it does not start with http:// or https://"),
        (
            "http://x.example:99999",
            "its port is not a number from 0 to 65535",
        ),
        (
            "http://a b",
            "its host has characters no host name can have",
        ),
        ("https://[::1", "its IP address is not valid"),
    ] {
        let text = stderr(&ask(bad, &[]));
        assert_eq!(
            text,
            format!(
                "research-tui: --base-url takes an http(s) URL such as \
                 https://agents.bigdata.com, not {bad:?}: {why}\n"
            )
        );
    }
}
