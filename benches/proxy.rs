//! The recording proxy's overhead, measured in one run with direct and proxied requests
//! interleaved, the proxy recording into a temporary store as it does for real:
//!
//! 1. Against the demo agent, for every provider: time to first byte and total time of a research
//!    stream through the proxy, as a ratio to the same request sent straight to the agent. Two
//!    settings: the recordings' own pacing sped up 20× (a stream of about a second, chunks spaced
//!    as an agent spaces them), and no pacing (as fast as loopback carries it: the proxy's cost per
//!    request and per byte, nothing hidden behind waiting).
//! 2. Per chunk: an upstream that stamps each event with the time it sent it (200 events 5 ms
//!    apart); the client subtracts that from the time the event reached it, straight and through
//!    the proxy: the delay the proxy adds to every chunk.
//!
//! Target: within 5 %, and no added delay per chunk. `cargo bench --bench proxy`
//! (`PROXY_BENCH_ROUNDS=N` for more rounds).

#[path = "support/timing.rs"]
mod timing;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::{Body, Bytes};
use axum::serve::ListenerExt;
use research_tui::agent::live;
use research_tui::demo::{self, ServerConfig};
use research_tui::local::store::SessionStore;
use research_tui::proxy::{self, ProxyConfig};
use research_tui::wire::provider::Provider;
use timing::{median, percentile};

/// Events the stamping upstream sends, and the time between them.
const STAMPED_EVENTS: u32 = 200;
const STAMP_GAP: Duration = Duration::from_millis(5);

/// The proxy, recording into `store`, with every provider sent to `upstream`.
async fn start_proxy(upstream: SocketAddr, store: &Path) -> SocketAddr {
    let config = Provider::ALL.into_iter().fold(
        ProxyConfig::new(SessionStore::new(store)),
        |config, provider| config.with_upstream(provider, &format!("http://{upstream}")),
    );
    proxy::spawn(config, SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
        .await
        .expect("the proxy starts")
        .0
}

/// Run `f` straight and through the proxy, alternating which goes first so neither always meets a
/// warmer server; round 0 is a warm-up.
async fn interleaved<T, F: Future<Output = T>>(
    rounds: usize,
    mut f: impl FnMut(bool) -> F,
) -> Vec<(T, T)> {
    let mut pairs = Vec::new();
    for round in 0..=rounds {
        let pair = if round % 2 == 0 {
            let direct = f(false).await;
            (direct, f(true).await)
        } else {
            let proxied = f(true).await;
            (f(false).await, proxied)
        };
        if round > 0 {
            pairs.push(pair);
        }
    }
    pairs
}

/// TTFB and total time of every provider's demo stream, straight and proxied: one line each.
async fn against_the_demo_agent(speed: f64, rounds: usize, store: &Path) -> String {
    let config = ServerConfig {
        speed,
        ..ServerConfig::default()
    };
    let (demo, _server) = demo::spawn(config, 0).await.expect("the demo agent starts");
    let proxy = start_proxy(demo, store).await;
    let client = research_tui::agent::http::client_builder()
        .no_proxy()
        .build()
        .unwrap();
    let pacing = if speed >= 1000.0 {
        "no pacing"
    } else {
        "paced"
    };
    let mut table = vec![
        format!("\ndemo agent, {pacing} (speed {speed}), {rounds} rounds, medians:"),
        format!(
            "{:<11} {:>10} {:>10} {:>7}   {:>10} {:>10} {:>7}",
            "provider", "TTFB dir", "TTFB prx", "ratio", "total dir", "total prx", "ratio"
        ),
    ];
    for provider in Provider::ALL {
        let direct = format!("http://{demo}");
        let proxied = format!("http://{proxy}/{}", provider.as_str());
        let pairs = interleaved(rounds, |through_proxy| {
            let base = if through_proxy { &proxied } else { &direct };
            let request = timing::research_request(
                &client,
                base,
                provider,
                demo,
                live::demo_question(provider),
            );
            let timed = timing::timed(&client, request);
            async move {
                let timed = timed.await;
                (timed.first_byte, timed.total)
            }
        })
        .await;
        let ms = |side: fn(&(f64, f64)) -> f64, proxied: bool| {
            let values = pairs
                .iter()
                .map(|(d, p)| side(if proxied { p } else { d }))
                .collect();
            median(values) * 1e3
        };
        let (first_d, first_p) = (ms(|t| t.0, false), ms(|t| t.0, true));
        let (total_d, total_p) = (ms(|t| t.1, false), ms(|t| t.1, true));
        table.push(format!(
            "{:<11} {:>8.2}ms {:>8.2}ms {:>6.3}×   {:>8.1}ms {:>8.1}ms {:>6.3}×",
            provider.as_str(),
            first_d,
            first_p,
            first_p / first_d,
            total_d,
            total_p,
            total_p / total_d,
        ));
    }
    table.join("\n")
}

fn unix_nanos(at: SystemTime) -> u128 {
    at.duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos()
}

/// An upstream whose `/chat/completions` streams [`STAMPED_EVENTS`] events [`STAMP_GAP`] apart,
/// each carrying the time it was sent (`data: {"sent":NANOS}`).
async fn stamping_upstream() -> SocketAddr {
    let app = axum::Router::new().route(
        "/chat/completions",
        axum::routing::post(|| async {
            let events = futures::stream::unfold(0, |n| async move {
                if n == STAMPED_EVENTS {
                    return None;
                }
                tokio::time::sleep(STAMP_GAP).await;
                let event = format!("data: {{\"sent\":{}}}\n\n", unix_nanos(SystemTime::now()));
                Some((Ok::<_, std::io::Error>(Bytes::from(event)), n + 1))
            });
            (
                [("content-type", "text/event-stream")],
                Body::from_stream(events),
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// How long each event took from the upstream's send to the client, in microseconds.
fn event_latencies(chunks: &[(SystemTime, Bytes)]) -> Vec<f64> {
    let mut latencies = Vec::new();
    for (arrived, chunk) in chunks {
        for sent in String::from_utf8_lossy(chunk).split("\"sent\":").skip(1) {
            let digits: String = sent.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(sent) = digits.parse::<u128>() {
                latencies.push(unix_nanos(*arrived).saturating_sub(sent) as f64 / 1e3);
            }
        }
    }
    latencies
}

/// The delay per event from the upstream to the client, straight and through the proxy.
async fn per_chunk(rounds: usize, store: &Path) -> String {
    let upstream = stamping_upstream().await;
    let proxy = start_proxy(upstream, store).await;
    let client = research_tui::agent::http::client_builder()
        .no_proxy()
        .build()
        .unwrap();
    let body = r#"{"model":"sonar","stream":true,"messages":[{"role":"user","content":"Q"}]}"#;
    let pairs = interleaved(rounds, |through_proxy| {
        let base = if through_proxy {
            format!("http://{proxy}/perplexity")
        } else {
            format!("http://{upstream}")
        };
        let request = client
            .post(format!("{base}/chat/completions"))
            .header("authorization", "Bearer sk-bench-key")
            .body(body);
        async move {
            let mut response = request.send().await.expect("the stream starts");
            let mut chunks = Vec::new();
            while let Some(chunk) = response.chunk().await.expect("the stream is whole") {
                chunks.push((SystemTime::now(), chunk));
            }
            event_latencies(&chunks)
        }
    })
    .await;
    let (direct, proxied): (Vec<f64>, Vec<f64>) = pairs.into_iter().fold(
        (Vec::new(), Vec::new()),
        |(mut d, mut p), (direct, proxied)| {
            d.extend(direct);
            p.extend(proxied);
            (d, p)
        },
    );
    let line = |name: &str, values: &[f64]| {
        format!(
            "{name:<9} {:>6} events  p50 {:>7.0} µs  p95 {:>7.0} µs  max {:>7.0} µs",
            values.len(),
            median(values.to_vec()),
            percentile(values.to_vec(), 0.95),
            percentile(values.to_vec(), 1.0),
        )
    };
    let added = median(proxied.clone()) - median(direct.clone());
    [
        format!(
            "\nper chunk: upstream send → client, {STAMPED_EVENTS} events {} ms apart, {rounds} rounds:",
            STAMP_GAP.as_millis()
        ),
        line("direct", &direct),
        line("proxied", &proxied),
        format!("added by the proxy (p50): {added:.0} µs per chunk"),
    ]
    .join("\n")
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is read from the command line.
    let rounds = std::env::var("PROXY_BENCH_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(8);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let store = tempfile::tempdir().expect("a temporary store");
    // The proxy prints a line per saved turn: the tables come after them all.
    let tables = runtime.block_on(async {
        [
            against_the_demo_agent(20.0, rounds, store.path()).await,
            against_the_demo_agent(100_000.0, rounds * 4, store.path()).await,
            per_chunk(rounds, store.path()).await,
        ]
    });
    // Leave the recorders a moment to save the last turns before the store is removed.
    std::thread::sleep(Duration::from_millis(300));
    println!("{}", tables.join("\n"));
}
