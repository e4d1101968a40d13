//! The recording proxy's overhead against the demo agent: time to first byte and total time of a
//! research stream through `research-tui proxy` (recording into a temporary store) as a ratio to
//! the same request sent straight to the agent, measured in the same run with the two interleaved,
//! for every provider; and how much later each point of the stream reaches a client through the
//! proxy (the added delay per chunk). Target: within 5 %, no added delay per chunk.
//!
//! Two settings: the recordings' own pacing sped up 20× (a stream of about a second, chunks spaced
//! as an agent spaces them), and no pacing at all (the stream as fast as loopback carries it: the
//! proxy's cost per request and per byte, nothing hidden behind waiting).
//!
//! `cargo bench --bench proxy` (`PROXY_BENCH_ROUNDS=N` for more rounds).

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use research_tui::agent::live::{self, Ask, LiveConfig};
use research_tui::demo::{self, ServerConfig};
use research_tui::local::store::SessionStore;
use research_tui::proxy::{self, ProxyConfig};
use research_tui::wire::provider::Provider;

/// One stream as a client saw it: when its first byte came, when it ended, and when each chunk
/// arrived (time since the request, bytes so far).
struct Timing {
    first_byte: Duration,
    total: Duration,
    arrivals: Vec<(Duration, usize)>,
}

async fn timed(
    client: &reqwest::Client,
    base: &str,
    provider: Provider,
    demo: SocketAddr,
) -> Timing {
    let request = live::request(
        &LiveConfig::demo(provider, demo),
        &Ask::new(live::demo_question(provider)),
    );
    let auth = provider.spec().auth;
    let start = Instant::now();
    let mut response = client
        .post(format!("{base}{}", request.path))
        .header(auth.name(), auth.value("sk-bench-key"))
        .header("content-type", "application/json")
        .body(request.body_bytes())
        .send()
        .await
        .expect("the request is answered");
    assert!(response.status().is_success());
    let mut arrivals = Vec::new();
    let mut received = 0;
    while let Some(chunk) = response.chunk().await.expect("the stream is whole") {
        received += chunk.len();
        arrivals.push((start.elapsed(), received));
    }
    Timing {
        first_byte: arrivals.first().map_or(Duration::ZERO, |a| a.0),
        total: start.elapsed(),
        arrivals,
    }
}

/// How much later than `direct` each point of the stream arrived in `proxied`: for every chunk
/// end of the direct stream, the time the proxied stream had that many bytes, minus the direct
/// time (the fresh ids the agent gives each response have the same length).
fn added_delays(direct: &Timing, proxied: &Timing) -> Vec<f64> {
    direct
        .arrivals
        .iter()
        .filter_map(|&(at, bytes)| {
            let reached = proxied.arrivals.iter().find(|a| a.1 >= bytes)?;
            Some(reached.0.as_secs_f64() * 1e3 - at.as_secs_f64() * 1e3)
        })
        .collect()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

fn percentile(mut values: Vec<f64>, p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let at = ((values.len() as f64 - 1.0) * p).round() as usize;
    values.get(at).copied().unwrap_or(0.0)
}

/// Interleaved direct and proxied runs of every provider's demo question; one line per provider.
async fn measure(speed: f64, rounds: usize, store: &std::path::Path) {
    let config = ServerConfig {
        speed,
        ..ServerConfig::default()
    };
    let (demo, _server) = demo::spawn(config, 0).await.expect("the demo agent starts");
    let config = Provider::ALL.into_iter().fold(
        ProxyConfig::new(SessionStore::new(store)),
        |config, provider| config.with_upstream(provider, &format!("http://{demo}")),
    );
    let (proxy, _proxy) = proxy::spawn(config, SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
        .await
        .expect("the proxy starts");
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let pacing = if speed >= 1000.0 {
        "no pacing"
    } else {
        "paced"
    };
    let mut table = vec![format!(
        "\n{pacing} (demo speed {speed}), {rounds} rounds, medians:"
    )];
    table.push(format!(
        "{:<11} {:>10} {:>10} {:>7}   {:>10} {:>10} {:>7}   {:>17}",
        "provider",
        "TTFB dir",
        "TTFB prx",
        "ratio",
        "total dir",
        "total prx",
        "ratio",
        "added/chunk p50/p95"
    ));
    for provider in Provider::ALL {
        let (mut first, mut total, mut added) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..=rounds {
            let direct_base = format!("http://{demo}");
            let proxied_base = format!("http://{proxy}/{}", provider.as_str());
            // Alternate which goes first, so neither always meets a warmer server.
            let (direct, proxied) = if round % 2 == 0 {
                let d = timed(&client, &direct_base, provider, demo).await;
                (d, timed(&client, &proxied_base, provider, demo).await)
            } else {
                let p = timed(&client, &proxied_base, provider, demo).await;
                (timed(&client, &direct_base, provider, demo).await, p)
            };
            if round == 0 {
                continue; // warm-up: connections, the store's first directory
            }
            first.push((
                direct.first_byte.as_secs_f64(),
                proxied.first_byte.as_secs_f64(),
            ));
            total.push((direct.total.as_secs_f64(), proxied.total.as_secs_f64()));
            added.extend(added_delays(&direct, &proxied));
        }
        let ms = |pairs: &[(f64, f64)], side: fn(&(f64, f64)) -> f64| {
            median(pairs.iter().map(side).collect()) * 1e3
        };
        let (first_d, first_p) = (ms(&first, |p| p.0), ms(&first, |p| p.1));
        let (total_d, total_p) = (ms(&total, |p| p.0), ms(&total, |p| p.1));
        table.push(format!(
            "{:<11} {:>8.2}ms {:>8.2}ms {:>6.3}×   {:>8.1}ms {:>8.1}ms {:>6.3}×   {:>7.2}/{:.2} ms",
            provider.as_str(),
            first_d,
            first_p,
            first_p / first_d,
            total_d,
            total_p,
            total_p / total_d,
            median(added.clone()),
            percentile(added, 0.95),
        ));
    }
    // After the runs: the proxy's own lines (one per saved turn) do not break up the table.
    println!("{}", table.join("\n"));
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is not used here.
    let rounds = std::env::var("PROXY_BENCH_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(8);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let store = tempfile::tempdir().expect("a temporary store");
    runtime.block_on(async {
        measure(20.0, rounds, store.path()).await;
        measure(100_000.0, rounds * 4, store.path()).await;
    });
    // Leave the recorders a moment to save the last turns before the store is removed.
    std::thread::sleep(Duration::from_millis(200));
}
