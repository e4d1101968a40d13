//! Client behaviour at the edges of a stream, against a tiny raw HTTP server on 127.0.0.1 that can
//! misbehave in ways the demo server does not (hold the connection open after COMPLETE, answer 200
//! and close without an event).
//!
//! These run in real time, not on tokio's paused clock: between the server's last write and the
//! client's own idle timeout no other timer is pending, so a paused clock would jump to that
//! timeout while the close is still on its way through the loopback (seen 1 run in 25).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use research_tui::agent::client::{AgentClient, ResearchRequest, StreamOptions};
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::stream_end::StreamEnd;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Serves every connection with `body` after a 200 SSE header; keeps it open afterwards when `hold`.
async fn raw_server(body: &'static str, hold: bool) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let _ = socket.read(&mut buf).await;
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\r\n";
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body.as_bytes()).await;
                let _ = socket.flush().await;
                if hold {
                    tokio::time::sleep(Duration::from_secs(30)).await;
                }
            });
        }
    });
    (format!("http://{addr}"), hits)
}

async fn run(base_url: &str) -> (Vec<StreamUpdate>, Duration) {
    let started = Instant::now();
    let options = StreamOptions {
        idle_timeout: Duration::from_secs(10),
        max_attempts: 3,
        retry_base: Duration::from_millis(10),
        ..StreamOptions::default()
    };
    let mut handle = AgentClient::new(base_url, None).research(ResearchRequest::new("q"), options);
    let mut updates = Vec::new();
    while let Some(update) = handle.updates.recv().await {
        let ended = matches!(update, StreamUpdate::Ended(_));
        updates.push(update);
        if ended {
            break;
        }
    }
    (updates, started.elapsed())
}

#[tokio::test]
async fn the_stream_ends_at_complete_even_when_the_server_keeps_the_connection_open() {
    let body = "data: {\"chat_id\":\"c\",\"message\":{\"type\":\"ANSWER\",\"content\":\"Hi\"}}\n\ndata: {\"chat_id\":\"c\",\"message\":{\"type\":\"COMPLETE\",\"checkpoint_id\":\"k\"}}\n\n";
    let (url, _) = raw_server(body, true).await;
    let (updates, elapsed) = run(&url).await;
    assert_eq!(
        updates.last(),
        Some(&StreamUpdate::Ended(StreamEnd::Closed))
    );
    assert!(
        elapsed < Duration::from_secs(3),
        "waited {elapsed:?} after COMPLETE"
    );
}

#[tokio::test]
async fn a_200_that_closes_before_any_event_is_not_sent_again() {
    let (url, hits) = raw_server(": heartbeat\n\n", false).await;
    let (updates, _) = run(&url).await;
    assert!(
        matches!(
            updates.last(),
            Some(StreamUpdate::Ended(StreamEnd::Cut { .. }))
        ),
        "{updates:?}"
    );
    assert_eq!(
        hits.load(Ordering::SeqCst),
        1,
        "the research already began: no second POST"
    );
}
