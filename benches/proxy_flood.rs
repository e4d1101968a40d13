//! The recording proxy on an answer flood, as a separate process (the real binary), in one run:
//! a Bigdata.com stream of 30, 100 and 200 MB (mostly answer text, written in 64 KB writes by a
//! plain upstream on 127.0.0.1) fetched straight and through the proxy, alternating, while the
//! proxy records it into a temporary store.
//!
//! Printed as ratios within the run: the proxy's peak resident memory (the kernel's high-water
//! mark, one fresh proxy per size, read once the turn is saved) against the stream's size and the
//! 200 MB peak against the 30 MB one (flat: ≈ 1); the proxied wall time against the direct one
//! (medians). `PROXY_FLOOD_BASELINE=/path/to/research-tui` measures another build's proxy in the
//! same run, for a before/after. `cargo bench --bench proxy_flood` (`PROXY_FLOOD_ROUNDS=N`).

#[path = "support/streams.rs"]
mod streams;

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use research_tui::agent::live::{self, LiveConfig};
use research_tui::local::store::SessionStore;
use research_tui::wire::provider::{Ask, Provider};

const BIN: &str = env!("CARGO_BIN_EXE_research-tui");
const MB: f64 = 1_000_000.0;

/// A proxy process recording into its own temporary store.
struct ProxyProcess {
    child: Child,
    addr: SocketAddr,
    home: tempfile::TempDir,
}

impl ProxyProcess {
    fn start(bin: &str, upstream: &str) -> ProxyProcess {
        let home = tempfile::tempdir().expect("a temporary home");
        let mut child = Command::new(bin)
            .args(["proxy", "--port", "0", "--upstream"])
            .arg(format!("bigdata={upstream}"))
            .env("XDG_DATA_HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path())
            .env("XDG_CACHE_HOME", home.path())
            // The whole answer is recorded: the flood is not cut at the default 64 MiB.
            .env("RESEARCH_TUI_MAX_ANSWER_MIB", "1024")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the proxy starts");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let addr = first
            .strip_prefix("research-tui proxy listening on http://")
            .unwrap_or_else(|| panic!("where the proxy listens: {first:?}"))
            .parse()
            .unwrap();
        // Its report lines are read and dropped, so it never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        ProxyProcess { child, addr, home }
    }

    /// The kernel's high-water mark of the proxy's resident memory, in bytes.
    fn peak_rss(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the proxy's status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    }

    fn sessions(&self) -> PathBuf {
        self.home.path().join("research-tui/sessions")
    }

    /// Wait (up to a minute) until `turns` turns are saved and none is streaming: their statuses.
    fn wait_saved(&self, turns: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        let store = SessionStore::new(self.sessions());
        while Instant::now() < deadline {
            let listed = store.list();
            let saved: usize = listed.iter().map(|m| m.turns.len()).sum();
            if saved >= turns && listed.iter().all(|m| m.status() != "streaming") {
                let mut statuses: Vec<String> = listed
                    .iter()
                    .flat_map(|m| &m.turns)
                    .map(|t| match &t.reason {
                        Some(reason) => format!("{} ({reason})", t.status.as_str()),
                        None => t.status.as_str().to_owned(),
                    })
                    .collect();
                statuses.sort_unstable();
                statuses.dedup();
                return statuses.join(", ");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the proxy did not save {turns} turns");
    }
}

impl Drop for ProxyProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A stream of about `size` bytes, served in 64 KB writes to every request: its URL and length.
fn upstream(size: u64) -> (String, usize) {
    let mut bytes = Vec::with_capacity(size as usize + (1 << 20));
    streams::write_large_stream(&mut bytes, size).expect("the stream is written");
    let len = bytes.len();
    let bytes = std::sync::Arc::new(bytes);
    let url = streams::serve_event_stream(move |socket| {
        for chunk in bytes.chunks(64 << 10) {
            if socket.write_all(chunk).is_err() {
                return;
            }
        }
    });
    (url, len)
}

/// POST the Bigdata.com research request to `base` and read the whole stream: seconds, bytes.
async fn fetch(client: &reqwest::Client, base: &str) -> (f64, usize) {
    let demo: SocketAddr = "127.0.0.1:9".parse().unwrap();
    let request = live::request(
        &LiveConfig::demo(Provider::Bigdata, demo),
        &Ask::new("What did NVIDIA report?"),
    );
    let auth = Provider::Bigdata.spec().auth;
    let start = Instant::now();
    let mut response = client
        .post(format!("{base}{}", request.path))
        .header(auth.name(), auth.value("sk-bench-key"))
        .header("content-type", "application/json")
        .body(request.body_bytes())
        .send()
        .await
        .expect("the request is answered");
    assert!(response.status().is_success(), "{}", response.status());
    let mut bytes = 0;
    while let Some(chunk) = response.chunk().await.expect("the stream is whole") {
        bytes += chunk.len();
    }
    (start.elapsed().as_secs_f64(), bytes)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// One size through `bin`'s proxy: peak RSS, median direct and proxied seconds, the turns saved.
fn measure(bin: &str, url: &str, len: usize, rounds: usize) -> (u64, f64, f64, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = research_tui::agent::http::client_builder()
        .no_proxy()
        .build()
        .unwrap();
    let proxy = ProxyProcess::start(bin, url);
    let proxied_base = format!("http://{}/bigdata", proxy.addr);
    let (mut direct, mut proxied) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        // Alternating which goes first, so neither always meets a warmer upstream.
        let order = if round % 2 == 0 {
            [false, true]
        } else {
            [true, false]
        };
        for through_proxy in order {
            let base = if through_proxy { &proxied_base } else { url };
            let (seconds, bytes) = runtime.block_on(fetch(&client, base));
            assert_eq!(bytes, len, "the whole stream arrives");
            if through_proxy {
                proxied.push(seconds);
            } else {
                direct.push(seconds);
            }
        }
    }
    let saved = proxy.wait_saved(rounds);
    (proxy.peak_rss(), median(direct), median(proxied), saved)
}

fn report(name: &str, bin: &str, sizes: &[(String, usize)], rounds: usize) -> Vec<String> {
    let mut lines = vec![format!(
        "{name}: {:>10} {:>12} {:>11} {:>11} {:>11} {:>13}  turns saved",
        "stream MB", "peak RSS MB", "RSS/stream", "direct s", "proxied s", "proxied/dir"
    )];
    let mut peaks = Vec::new();
    for (url, len) in sizes {
        let (peak, direct, proxied, saved) = measure(bin, url, *len, rounds);
        peaks.push(peak as f64);
        lines.push(format!(
            "{name}: {:>10.1} {:>12.1} {:>11.2} {:>11.3} {:>11.3} {:>12.2}×  {saved}",
            *len as f64 / MB,
            peak as f64 / MB,
            peak as f64 / *len as f64,
            direct,
            proxied,
            proxied / direct,
        ));
    }
    if let [first, .., last] = peaks[..] {
        lines.push(format!(
            "{name}: peak RSS at {:.0} MB / at {:.0} MB = {:.2}× (flat: ≈ 1; the stream grew {:.1}×)",
            sizes[sizes.len() - 1].1 as f64 / MB,
            sizes[0].1 as f64 / MB,
            last / first,
            sizes[sizes.len() - 1].1 as f64 / sizes[0].1 as f64
        ));
    }
    lines
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is read from the command line.
    let rounds = std::env::var("PROXY_FLOOD_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let sizes = [
        upstream(30_000_000),
        upstream(100_000_000),
        upstream(200_000_000),
    ];
    let mut lines = report("this build", BIN, &sizes, rounds);
    if let Ok(baseline) = std::env::var("PROXY_FLOOD_BASELINE")
        && Path::new(&baseline).exists()
    {
        lines.extend(report("baseline  ", &baseline, &sizes, rounds));
    }
    println!("{}", lines.join("\n"));
}
