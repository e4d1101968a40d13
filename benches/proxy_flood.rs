//! The recording proxy on an answer flood, as a separate process (the real binary), against a plain
//! TCP relay (socat) in the same run. Bigdata.com streams served by a plain upstream on 127.0.0.1:
//!
//! - bulk: 30, 100 and 200 MB, mostly answer text in 1 KB events, written in 64 KB writes;
//! - per event: 10 MB of small events (64-byte answer chunks, ~165 bytes each), one write (and one
//!   TCP segment: `TCP_NODELAY`) per event, as an agent sends them.
//!
//! Each stream is fetched straight, through socat (`TCP-LISTEN` → `TCP:` the upstream, its default
//! 8 KB buffer), through the proxy recording it, and through the proxy relaying a request it does
//! not record (a GET: what passing the bytes on costs without the recorder), in rounds with the
//! order rotated, after a warm-up round. Printed as ratios within the run, medians:
//!
//! - wall time (the client's, to the stream's last byte) against direct and against socat;
//! - CPU (user+sys) per MB of the relaying process, the mean over the rounds: socat's from `times`
//!   in the shell that waited for it (one socat per request); the proxy's from `/proc/PID/stat`
//!   (10 ms ticks) from the request until the turn is saved, so the recorder's work is counted;
//! - what decoding the stream alone costs (the recorder's pipeline, run in the bench's process), as
//!   a multiple of socat's CPU: the floor of the proxy's CPU while it records;
//! - the proxy's peak resident memory (the kernel's high-water mark, one fresh proxy per stream)
//!   against the stream's size, and the 200 MB peak against the 30 MB one (flat: ≈ 1).
//!
//! Every turn saved `complete` is checked byte for byte against the stream (the stream holds no key
//! to mask), and the statuses of all turns are printed: a flood that outruns the recorder is cut.
//!
//! `cargo bench --bench proxy_flood` (`PROXY_FLOOD_ROUNDS=N`, `PROXY_FLOOD_SIZES=30,100` in MB for
//! the bulk streams; `PROXY_FLOOD_BASELINE=/path/to/research-tui` adds another build's proxy to
//! the rotation, for a before/after). Needs socat.

#[path = "support/streams.rs"]
mod streams;
#[path = "support/timing.rs"]
mod timing;

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use research_tui::model::event::AgentEvent;
use research_tui::model::session::Session;
use research_tui::wire::provider::{EventPipeline, EventSink, Provider, SkimmedAnswer};
use timing::median;

const BIN: &str = env!("CARGO_BIN_EXE_research-tui");
const MB: f64 = 1_000_000.0;

/// A proxy process recording into its own temporary store.
struct ProxyProcess {
    child: Child,
    addr: SocketAddr,
    /// What the proxy says of each turn: whether the line says it is saved, and what it says.
    saved: mpsc::Receiver<(bool, String)>,
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
        // Its report lines are read as they come, so it never blocks on a full pipe.
        let (tx, saved) = mpsc::channel();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                // "… turn 1 of session ID: why" and "saved … turn 1 of session ID: status"
                if let Some((_, said)) = line.split_once(" of session ")
                    && let Some((_, said)) = said.split_once(": ")
                {
                    let said = said.split("; saved in").next().unwrap_or(said);
                    let _ = tx.send((line.contains("saved "), said.to_owned()));
                }
            }
        });
        ProxyProcess {
            child,
            addr,
            saved,
            home,
        }
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

    /// CPU seconds (user+sys) the proxy has used, threads that ended included (the kernel's
    /// count, in clock ticks of 10 ms).
    fn cpu(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))
            .expect("the proxy's stat");
        // After the command's name: state is field 3, utime and stime fields 14 and 15.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        let ticks: u64 = fields[11..13]
            .iter()
            .map(|t| t.parse::<u64>().unwrap())
            .sum();
        ticks as f64 / 100.0
    }

    /// The turn file written last, whole.
    fn last_turn_file(&self) -> Vec<u8> {
        let sessions = self.home.path().join("research-tui/sessions");
        let files = std::fs::read_dir(sessions).into_iter().flatten().flatten();
        let newest = files
            .flat_map(|session| {
                std::fs::read_dir(session.path())
                    .into_iter()
                    .flatten()
                    .flatten()
            })
            .filter(|file| file.file_name().to_string_lossy().ends_with(".sse"))
            .max_by_key(|file| file.metadata().and_then(|m| m.modified()).ok());
        newest.map_or_else(Vec::new, |file| {
            std::fs::read(file.path()).unwrap_or_default()
        })
    }

    /// Wait (up to a minute) for the proxy to save the next turn: its status, and why when the
    /// proxy said more.
    fn wait_saved(&self) -> String {
        let mut said = Vec::new();
        loop {
            let (saved, line) = self
                .saved
                .recv_timeout(Duration::from_secs(60))
                .expect("the proxy saves the turn");
            said.push(line);
            if saved {
                said.rotate_right(1);
                return said.join(": ");
            }
        }
    }
}

impl Drop for ProxyProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One socat relaying one connection on 127.0.0.1 to `upstream`, in a shell that prints its CPU
/// time when it ends.
struct Socat {
    shell: Child,
    base: String,
}

impl Socat {
    fn start(upstream: &str) -> Socat {
        let to = upstream.trim_start_matches("http://");
        // A free port: bound, let go, then taken by socat (reuseaddr).
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let shell = Command::new("bash")
            .arg("-c")
            .arg(format!(
                "socat TCP-LISTEN:{port},bind=127.0.0.1,reuseaddr TCP:{to} && times"
            ))
            .stdout(Stdio::piped())
            .spawn()
            .expect("socat starts (is it installed?)");
        let deadline = Instant::now() + Duration::from_secs(10);
        while !listening(port) {
            assert!(Instant::now() < deadline, "socat does not listen");
            std::thread::sleep(Duration::from_millis(2));
        }
        Socat {
            shell,
            base: format!("http://127.0.0.1:{port}"),
        }
    }

    /// Wait for socat to end: its CPU seconds (user+sys).
    fn cpu(self) -> f64 {
        let out = self.shell.wait_with_output().expect("socat ends");
        let times = String::from_utf8_lossy(&out.stdout);
        // `times`: the shell's user and sys, then its children's.
        let children = times.lines().nth(1).expect("socat's times");
        children.split_whitespace().map(shell_seconds).sum()
    }
}

/// `1m0.250s` in seconds.
fn shell_seconds(time: &str) -> f64 {
    let (minutes, seconds) = time
        .trim_end_matches('s')
        .split_once('m')
        .unwrap_or(("0", time));
    minutes.parse::<f64>().unwrap_or(0.0) * 60.0 + seconds.parse::<f64>().unwrap_or(0.0)
}

/// Whether something listens on 127.0.0.1:`port` (read from /proc, without connecting to it).
fn listening(port: u16) -> bool {
    let tcp = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
    let local = format!("0100007F:{port:04X}");
    tcp.lines().skip(1).any(|line| {
        let mut fields = line.split_whitespace().skip(1);
        fields.next() == Some(&local) && fields.nth(1) == Some("0A")
    })
}

/// A stream served to every request by a plain upstream: its name, URL and bytes.
struct Upstream {
    name: String,
    url: String,
    len: usize,
    bytes: Arc<Vec<u8>>,
}

/// A bulk stream of about `size` bytes, served in 64 KB writes.
fn bulk(size: u64) -> Upstream {
    let mut bytes = Vec::with_capacity(size as usize + (1 << 20));
    streams::write_large_stream(&mut bytes, size).expect("the stream is written");
    let len = bytes.len();
    let bytes = Arc::new(bytes);
    let served = bytes.clone();
    let url = streams::serve_event_stream(move |socket| {
        for chunk in served.chunks(64 << 10) {
            if socket.write_all(chunk).is_err() {
                return;
            }
        }
    });
    let name = format!("bulk {:.0} MB, 64 KB writes", len as f64 / MB);
    Upstream {
        name,
        url,
        len,
        bytes,
    }
}

/// A stream of about `size` bytes of small events, served one write per event.
fn per_event(size: u64) -> Upstream {
    let mut bytes = Vec::with_capacity(size as usize + (1 << 20));
    streams::write_stream_in_chunks(&mut bytes, size, 64).expect("the stream is written");
    let len = bytes.len();
    let ends: Vec<usize> = bytes
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w == b"\n\n")
        .map(|(i, _)| i + 2)
        .collect();
    let events = ends.len();
    let bytes = Arc::new(bytes);
    let served = bytes.clone();
    let url = streams::serve_event_stream(move |socket: &mut TcpStream| {
        let _ = socket.set_nodelay(true);
        let mut start = 0;
        for &end in &ends {
            if socket.write_all(&served[start..end]).is_err() {
                return;
            }
            start = end;
        }
    });
    let name = format!(
        "per event {:.0} MB, {events} events of {:.0} bytes, a write each",
        len as f64 / MB,
        len as f64 / events as f64
    );
    Upstream {
        name,
        url,
        len,
        bytes,
    }
}

/// CPU seconds (user+sys) the calling thread has run.
fn thread_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let nanos: u64 = stat
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    nanos as f64 / 1e9
}

/// A session that counts the answer rather than keeping it, taking a skimmed answer chunk by its
/// length, as the recorder does.
#[derive(Default)]
struct Counting {
    events: Vec<AgentEvent>,
    session: Session,
}

impl Counting {
    fn flush(&mut self) {
        self.session.apply_all(self.events.drain(..));
    }
}

impl EventSink for Counting {
    fn events(&mut self) -> &mut Vec<AgentEvent> {
        &mut self.events
    }

    fn answer(&mut self, answer: SkimmedAnswer<'_>) {
        self.flush();
        let text = &answer.text;
        if !self.session.apply_answer_counted(text.len(), text.chars()) {
            self.session.apply_answer_delta(&text.text());
        }
    }
}

/// CPU seconds decoding `bytes` alone takes, as the recorder decodes them (in 1 MiB batches, into
/// a session that counts the answer rather than keeping it), `skimming` as the recorder does
/// (answer chunks taken by their length) or the full way as `render` does: the median of 3.
fn decode_alone(bytes: &[u8], skimming: bool) -> f64 {
    let runs = (0..3)
        .map(|_| {
            let start = thread_cpu();
            let mut pipeline = EventPipeline::new(Provider::Bigdata);
            if skimming {
                pipeline = pipeline.skimming();
            }
            let mut sink = Counting::default();
            sink.session.answer.stop_keeping_text();
            for batch in bytes.chunks(1 << 20) {
                match skimming {
                    true => drop(pipeline.feed_into(batch, &mut sink)),
                    false => drop(pipeline.feed(batch, &mut sink.events)),
                }
                sink.flush();
            }
            let _ = pipeline.finish(&mut sink.events);
            sink.flush();
            std::hint::black_box(&sink.session);
            thread_cpu() - start
        })
        .collect();
    median(runs)
}

/// The ways a stream is fetched.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Route {
    Direct,
    Socat,
    /// The proxy, recording the turn.
    Proxy,
    /// The proxy passing on a request it does not record.
    Relay,
    /// Another build's proxy, recording.
    Baseline,
}

impl Route {
    fn label(self) -> &'static str {
        match self {
            Route::Direct => "direct",
            Route::Socat => "socat",
            Route::Proxy => "proxy, recording",
            Route::Relay => "proxy, not recording",
            Route::Baseline => "baseline proxy, recording",
        }
    }
}

/// Wall and CPU seconds of every round of one route.
#[derive(Default)]
struct Samples {
    wall: Vec<f64>,
    cpu: Vec<f64>,
}

/// What one stream gave: samples per route (in `routes` order), the proxies' peak RSS and the
/// statuses of the turns saved.
struct Measured {
    samples: Vec<(Route, Samples)>,
    peak_rss: u64,
    baseline_rss: Option<u64>,
    saved: Vec<String>,
    /// Complete turns whose file is byte-equal to the stream (checked: all of them).
    byte_equal: usize,
}

/// Fetch `stream` along every route `rounds` times (after a warm-up round), the order rotated.
fn measure(stream: &Upstream, routes: &[Route], baseline: Option<&str>, rounds: usize) -> Measured {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = research_tui::agent::http::client_builder()
        .no_proxy()
        .build()
        .unwrap();
    let proxy = ProxyProcess::start(BIN, &stream.url);
    let other = baseline.map(|bin| ProxyProcess::start(bin, &stream.url));
    let mut samples: Vec<(Route, Samples)> =
        routes.iter().map(|&r| (r, Samples::default())).collect();
    let mut saved = Vec::new();
    let mut byte_equal = 0;
    for round in 0..=rounds {
        for k in 0..routes.len() {
            let route = routes[(round + k) % routes.len()];
            let (proxy_process, socat) = match route {
                Route::Proxy | Route::Relay => (Some(&proxy), None),
                Route::Baseline => (other.as_ref(), None),
                Route::Socat => (None, Some(Socat::start(&stream.url))),
                Route::Direct => (None, None),
            };
            let base = match (route, proxy_process, &socat) {
                (_, Some(p), _) => format!("http://{}/bigdata", p.addr),
                (_, _, Some(socat)) => socat.base.clone(),
                _ => stream.url.clone(),
            };
            let demo: SocketAddr = "127.0.0.1:9".parse().unwrap();
            let question = "What did NVIDIA report?";
            let mut request =
                timing::research_request(&client, &base, Provider::Bigdata, demo, question);
            if route == Route::Relay {
                // Only a POST to the streaming endpoint is recorded.
                *request.method_mut() = reqwest::Method::GET;
                *request.body_mut() = None;
            }
            let cpu_before = proxy_process.map_or(0.0, ProxyProcess::cpu);
            let timed = runtime.block_on(timing::timed(&client, request));
            assert_eq!(timed.bytes, stream.len, "the whole stream arrives");
            let cpu = match (route, proxy_process, socat) {
                (_, _, Some(socat)) => socat.cpu(),
                (Route::Relay, Some(p), _) => p.cpu() - cpu_before,
                (_, Some(p), _) => {
                    let status = p.wait_saved();
                    let cpu = p.cpu() - cpu_before;
                    if status == "complete" {
                        // Saved whole, it holds exactly what the client got (no key to mask).
                        let file = p.last_turn_file();
                        assert!(file == stream.bytes[..], "a complete turn's file differs");
                        byte_equal += 1;
                    }
                    saved.push(format!("{}: {status}", route.label()));
                    cpu
                }
                _ => 0.0,
            };
            if round > 0 {
                let (_, s) = samples.iter_mut().find(|(r, _)| *r == route).unwrap();
                s.wall.push(timed.total);
                s.cpu.push(cpu);
            }
        }
    }
    Measured {
        samples,
        peak_rss: proxy.peak_rss(),
        baseline_rss: other.as_ref().map(ProxyProcess::peak_rss),
        saved,
        byte_equal,
    }
}

/// The table for one stream: per route, median wall time against direct and socat, and median
/// CPU per MB against socat; then peak RSS and the turns saved.
fn report(stream: &Upstream, measured: &Measured, rounds: usize) -> Vec<String> {
    let mb = stream.len as f64 / MB;
    // CPU is counted in 10 ms ticks: its mean over the rounds is the finer measure.
    let medians = |route: Route| {
        let (_, s) = measured.samples.iter().find(|(r, _)| *r == route).unwrap();
        let cpu = s.cpu.iter().sum::<f64>() / s.cpu.len().max(1) as f64;
        (median(s.wall.clone()), cpu * 1e3 / mb)
    };
    let (direct, _) = medians(Route::Direct);
    let (socat_wall, socat_cpu) = medians(Route::Socat);
    let mut lines = vec![
        format!(
            "\n{}, {rounds} rounds, wall: medians, CPU: means:",
            stream.name
        ),
        format!(
            "  {:<26} {:>8} {:>9} {:>8} {:>11} {:>10}",
            "route", "wall s", "/direct", "/socat", "CPU ms/MB", "CPU/socat"
        ),
    ];
    for (route, _) in &measured.samples {
        let (wall, cpu) = medians(*route);
        let cpu_columns = if *route == Route::Direct {
            String::new()
        } else {
            format!("{cpu:>11.2} {:>9.2}×", cpu / socat_cpu)
        };
        lines.push(format!(
            "  {:<26} {wall:>8.3} {:>8.2}× {:>7.2}× {cpu_columns}",
            route.label(),
            wall / direct,
            wall / socat_wall,
        ));
    }
    let (proxy_wall, proxy_cpu) = medians(Route::Proxy);
    let wall_met = proxy_wall / direct <= (socat_wall / direct).max(1.1);
    let cpu_met = proxy_cpu <= 2.0 * socat_cpu;
    lines.push(format!(
        "  targets: wall {:.2}× direct ≤ max(socat {:.2}×, 1.1×): {}; CPU {:.2}× socat ≤ 2×: {}",
        proxy_wall / direct,
        socat_wall / direct,
        if wall_met { "met" } else { "NOT met" },
        proxy_cpu / socat_cpu,
        if cpu_met { "met" } else { "NOT met" },
    ));
    let decode = decode_alone(&stream.bytes, true) * 1e3 / mb;
    let full = decode_alone(&stream.bytes, false) * 1e3 / mb;
    lines.push(format!(
        "  decoding alone (the recorder's skimming pipeline, in this process): {decode:.2} ms/MB = {:.2}× socat's CPU (the full decode: {full:.2} ms/MB)",
        decode / socat_cpu
    ));
    let rss = |peak: u64| {
        format!(
            "{:.1} MB ({:.2}× the stream)",
            peak as f64 / MB,
            peak as f64 / stream.len as f64
        )
    };
    lines.push(format!("  proxy peak RSS {}", rss(measured.peak_rss)));
    if let Some(peak) = measured.baseline_rss {
        lines.push(format!("  baseline proxy peak RSS {}", rss(peak)));
    }
    let mut saved = std::collections::BTreeMap::<&str, usize>::new();
    for status in &measured.saved {
        *saved.entry(status).or_default() += 1;
    }
    let saved: Vec<String> = saved.iter().map(|(s, n)| format!("{s} ×{n}")).collect();
    lines.push(format!(
        "  turns (warm-up included): {}; the {} complete ones byte-equal to the stream",
        saved.join("; "),
        measured.byte_equal
    ));
    lines
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is read from the command line.
    let rounds = env_or("PROXY_FLOOD_ROUNDS", 3);
    let sizes: Vec<u64> = std::env::var("PROXY_FLOOD_SIZES")
        .unwrap_or_else(|_| "30,100,200".into())
        .split(',')
        .filter_map(|mb| mb.trim().parse::<u64>().ok())
        .collect();
    let baseline = std::env::var("PROXY_FLOOD_BASELINE")
        .ok()
        .filter(|bin| Path::new(bin).exists());
    let mut routes = vec![Route::Direct, Route::Socat, Route::Proxy, Route::Relay];
    if baseline.is_some() {
        routes.push(Route::Baseline);
    }
    let load = || std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at the start: {}", load().trim());
    let mut streams: Vec<(Upstream, usize)> = sizes
        .iter()
        .map(|&mb| (bulk(mb * 1_000_000), rounds))
        .collect();
    streams.push((per_event(10_000_000), rounds + 2));
    let mut peaks = Vec::new();
    for (stream, rounds) in &streams {
        let measured = measure(stream, &routes, baseline.as_deref(), *rounds);
        peaks.push((stream.len, measured.peak_rss));
        // Each table as soon as it is measured (a long run shows progress).
        println!("{}", report(stream, &measured, *rounds).join("\n"));
    }
    if let [(first_len, first), .., (last_len, last)] = peaks[..sizes.len().min(peaks.len())] {
        println!(
            "\nproxy peak RSS at {:.0} MB / at {:.0} MB = {:.2}× (flat: ≈ 1; the stream grew {:.1}×)",
            last_len as f64 / MB,
            first_len as f64 / MB,
            last as f64 / first as f64,
            last_len as f64 / first_len as f64
        );
    }
    println!("load average at the end: {}", load().trim());
}
