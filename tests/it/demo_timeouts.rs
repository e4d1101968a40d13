//! The demo agent and the recording proxy time out connections that never send a whole request
//! head (half-open ones, or headers trickled a byte at a time), and only those: a stream longer
//! than the timeout plays out.
//!
//! Timing runs on tokio's paused clock (`start_paused`): timeouts are advanced to, not waited
//! for. Every deciding timeout is several of the server's own timer ticks away, so I/O still on
//! its way through the loopback is taken at the next tick, long before it could be missed.

use std::time::Duration;

use tokio::time::Instant;

use research_tui::agent::client::{AgentClient, ResearchRequest, StreamOptions};
use research_tui::agent::stream::StreamUpdate;
use research_tui::demo::ServerConfig;
use research_tui::model::stream_end::StreamEnd;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support;

async fn demo(speed: f64) -> std::net::SocketAddr {
    support::demo_agent_with(ServerConfig {
        speed,
        header_read_timeout: Duration::from_millis(500),
        ..ServerConfig::default()
    })
    .await
}

/// How long the server took to close `socket` (reading until it does), at most `limit`.
async fn closed_within(socket: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut buf = [0u8; 1024];
    tokio::time::timeout(limit, async {
        loop {
            match socket.read(&mut buf).await {
                Ok(0) | Err(_) => return started.elapsed(),
                // A 408 may come first; the close follows.
                Ok(_) => continue,
            }
        }
    })
    .await
    .ok()
}

#[tokio::test(start_paused = true)]
async fn half_open_and_trickling_connections_are_closed_after_the_header_timeout() {
    let addr = demo(1.0).await;
    let mut silent = Vec::new();
    for _ in 0..50 {
        silent.push(TcpStream::connect(addr).await.unwrap());
    }
    let mut trickling = TcpStream::connect(addr).await.unwrap();
    let trickle = tokio::spawn(async move {
        let _ = trickling
            .write_all(b"POST /v1/research-agent HTTP/1.1\r\nx-slow: ")
            .await;
        // A byte every 100 ms for up to 2 s: the head never completes.
        for _ in 0..20 {
            if trickling.write_all(b"a").await.is_err() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        closed_within(&mut trickling, Duration::from_secs(3))
            .await
            .is_some()
    });
    for socket in &mut silent {
        let closed = closed_within(socket, Duration::from_secs(5)).await;
        assert!(closed.is_some(), "a half-open connection is still held");
    }
    assert!(
        trickle.await.unwrap(),
        "the trickling connection is still held"
    );
}

#[tokio::test(start_paused = true)]
async fn a_stream_longer_than_the_header_timeout_plays_to_its_end() {
    // The earnings recording lasts a few seconds at this speed: several header timeouts.
    let addr = demo(8.0).await;
    let started = Instant::now();
    let mut handle = AgentClient::new(&format!("http://{addr}"), None)
        .research(ResearchRequest::new("NVIDIA?"), StreamOptions::default());
    let mut last = None;
    while let Some(update) = handle.updates.recv().await {
        let ended = matches!(update, StreamUpdate::Ended(_));
        last = Some(update);
        if ended {
            break;
        }
    }
    assert_eq!(last, Some(StreamUpdate::Ended(StreamEnd::Closed)));
    assert!(
        started.elapsed() > Duration::from_secs(1),
        "the stream outlasted the header timeout ({:?})",
        started.elapsed()
    );
}

#[tokio::test(start_paused = true)]
async fn the_proxy_closes_half_open_connections_after_the_header_timeout_too() {
    let store_dir = tempfile::tempdir().unwrap();
    let mut config = research_tui::proxy::ProxyConfig::new(
        research_tui::local::store::SessionStore::new(store_dir.path()),
    );
    config.header_read_timeout = Duration::from_millis(500);
    let (addr, _task) = research_tui::proxy::spawn(config, "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let mut silent = Vec::new();
    for _ in 0..20 {
        silent.push(TcpStream::connect(addr).await.unwrap());
    }
    for socket in &mut silent {
        let closed = closed_within(socket, Duration::from_secs(5)).await;
        assert!(
            closed.is_some_and(|t| t < Duration::from_secs(3)),
            "a silent connection to the proxy stayed open ({closed:?})"
        );
    }
}
