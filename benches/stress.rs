//! Large streams through the real binary: peak memory as a multiple of the stream size, CPU against
//! `render` of the same file, and how fast a key is answered while the stream floods in. Every number
//! is measured in this run, on files generated into a temporary directory that is deleted at the end.
//!
//! - Flood (issue 20): the 100 MB answer flood below, `replay --speed max` in the app against
//!   `render` of the same file, alternating, CPU (user+sys) medians: target ≤ 2×. And `?` pressed
//!   while it floods in against the same key once the answer is complete (idle, same app, same
//!   answer), medians: target ≤ 1.5×. Both ratios are printed with the machine's load. Then, in
//!   runs of their own, the first PgUp once the whole answer is in against the second (the pane
//!   followed the bottom, so blocks far above it were never measured): target about 1×.
//! - Memory: a 100 MB Bigdata.com stream (1 KB answer chunks, 2,000 references sent before the
//!   answer) replayed at max speed in the app (tmux, 140×42) and answered by `ask` (`--format json`
//!   and `text`) from a local server. Targets: app ≤ 3×, `ask --format json` ≤ 2×, `ask --format
//!   text` ≤ 50 MB flat.
//! - CPU: the 8 MB benchmark stream with every GROUNDING sent first (every reference pending while
//!   the answer streams): `replay --speed max` in the app against `render` of the same file.
//!   Target ≤ 5×.
//! - Responsiveness: `?` pressed during the 100 MB replay; the time until the help popup is on the
//!   screen (target ≤ 100 ms plus tmux's own capture latency).
//!
//! Run with `cargo bench --bench stress`. Needs tmux and GNU time (`/usr/bin/time`). Set `STRESS_BIN`
//! to measure another build of the binary (an older one, for a before/after comparison),
//! `STRESS_BASELINE` to another build's binary to replay the flood with it too, in the same rounds
//! (its app CPU and its key figures are printed beside),
//! `STRESS_MB` to change the size of the large stream, and `STRESS_WRITE=FILE` to only write the
//! groundings-first stream to FILE (for a profiler).

#[path = "support/streams.rs"]
mod streams;
#[path = "support/timed.rs"]
mod timed;

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use timed::{TIME_FORMAT, Usage, parse_usage};

fn binary() -> PathBuf {
    std::env::var_os("STRESS_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_research-tui")))
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

struct Bench {
    bin: PathBuf,
    dir: tempfile::TempDir,
    /// The binary takes `--max-answer-mib` (builds before it cut every answer at the default).
    limit_flag: bool,
    runs: usize,
}

impl Bench {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `args` with the answer limit raised above the stream (when the binary has one).
    fn args<'a>(&self, args: &[&'a str]) -> Vec<&'a str> {
        let mut all = args.to_vec();
        if self.limit_flag {
            all.extend(["--max-answer-mib", "4096"]);
        }
        all
    }

    /// Run the binary under GNU time with stdout to /dev/null.
    fn run(&self, args: &[&str], env: &[(&str, String)]) -> Usage {
        let out = self.path("usage");
        Command::new("/usr/bin/time")
            .arg("-f")
            .arg(TIME_FORMAT)
            .arg("-o")
            .arg(&out)
            .arg(&self.bin)
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("XDG_DATA_HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path())
            .env("XDG_CACHE_HOME", self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("GNU time runs");
        parse_usage(&out).expect("GNU time wrote its report")
    }

    /// Run the app in a detached 140×42 tmux session; `during` is called while it runs (with a
    /// function that captures the screen). Returns what GNU time measured once the app quit.
    fn run_app(&self, args: &[&str], during: impl FnOnce(&dyn Fn() -> String)) -> Usage {
        let out = self.path("app-usage");
        let _ = std::fs::remove_file(&out);
        let socket = format!("research-tui-stress-{}", std::process::id());
        let dir = self.dir.path().display().to_string();
        let mut command = format!(
            "env XDG_DATA_HOME={dir} XDG_CONFIG_HOME={dir} XDG_CACHE_HOME={dir} TERM=xterm-256color /usr/bin/time -f '{TIME_FORMAT}' -o {} {}",
            out.display(),
            self.bin.display()
        );
        for arg in args {
            command.push_str(&format!(" '{arg}'"));
        }
        let tmux = |extra: &[&str]| {
            Command::new("tmux")
                .args(["-L", &socket, "-f", "/dev/null"])
                .args(extra)
                .output()
                .expect("tmux runs")
        };
        let started = tmux(&[
            "new-session",
            "-d",
            "-x",
            "140",
            "-y",
            "42",
            "-s",
            "stress",
            &command,
        ]);
        assert!(started.status.success(), "tmux starts the app");
        let capture = || {
            String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", "stress"]).stdout)
                .into_owned()
        };
        during(&capture);
        let deadline = Instant::now() + Duration::from_secs(1800);
        let usage = loop {
            if let Some(usage) = parse_usage(&out) {
                break usage;
            }
            assert!(Instant::now() < deadline, "the app did not finish");
            std::thread::sleep(Duration::from_millis(100));
        };
        let _ = tmux(&["kill-server"]);
        usage
    }
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; a filter that is not ours means another bench was asked for.
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_default();
    if !filter.is_empty() && !"stress".contains(filter.as_str()) {
        return;
    }
    if let Some(path) = std::env::var_os("STRESS_WRITE") {
        // For profiling: just write the groundings-first stream (the flood with STRESS_PART=flood).
        if std::env::var("STRESS_PART").is_ok_and(|p| p == "flood") {
            write_large(Path::new(&path));
        } else {
            std::fs::write(&path, streams::benchmark_stream(true)).unwrap();
        }
        return;
    }
    let has = |tool: &str, arg: &str| {
        Command::new(tool)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !has("tmux", "-V") || !Path::new("/usr/bin/time").exists() {
        eprintln!("stress: needs tmux and GNU time (/usr/bin/time); skipped");
        return;
    }
    let bin = binary();
    let help = Command::new(&bin)
        .arg("--help")
        .output()
        .expect("the binary runs");
    let bench = Bench {
        limit_flag: String::from_utf8_lossy(&help.stdout).contains("--max-answer-mib"),
        bin,
        dir: tempfile::Builder::new()
            .prefix("research-tui-stress")
            .tempdir_in(std::env::temp_dir())
            .expect("a temporary directory"),
        runs: 5,
    };
    println!("binary: {}", bench.bin.display());
    // `STRESS_PART=flood` runs only the flood ratios (the issue 20 rows).
    let part = std::env::var("STRESS_PART").unwrap_or_default();
    if part.is_empty() || part == "flood" {
        flood(&bench);
    }
    if part.is_empty() || part == "cpu" {
        cpu(&bench);
    }
    if part.is_empty() || part == "memory" {
        memory(&bench);
    }
}

/// Write the large stream, `STRESS_MB` (100 by default) MB of it, to `path`.
fn write_large(path: &Path) -> streams::LargeStream {
    let target_mb: u64 = std::env::var("STRESS_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let mut out = BufWriter::new(std::fs::File::create(path).unwrap());
    let stream = streams::write_large_stream(&mut out, target_mb * 1_000_000).unwrap();
    out.flush().unwrap();
    stream
}

/// The 1-minute load average and the number of cores, to read the figures against.
fn load() -> String {
    let avg = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    format!(
        "load average {} on {cores} cores",
        avg.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    )
}

/// The 100 MB answer flood (see the module docs): app CPU against `render` CPU, and a key during
/// the flood against the same key idle, each as a ratio of medians within this run.
fn flood(bench: &Bench) {
    let file = bench.path("flood.sse");
    let stream = write_large(&file);
    let path = file.display().to_string();
    println!(
        "flood: {:.1} MB stream ({:.1} MB of answer in {} chunks); {} at the start",
        mb(stream.bytes),
        mb(stream.answer_bytes),
        stream.chunks,
        load()
    );
    let (mut render, mut app) = (Vec::new(), Vec::new());
    let (mut busy, mut idle) = (Vec::new(), Vec::new());
    // Another build replaying the same flood in the same rounds (`STRESS_BASELINE`).
    let baseline = std::env::var_os("STRESS_BASELINE").map(|bin| Bench {
        limit_flag: bench.limit_flag,
        bin: PathBuf::from(bin),
        dir: tempfile::Builder::new()
            .prefix("research-tui-stress-base")
            .tempdir_in(std::env::temp_dir())
            .expect("a temporary directory"),
        runs: bench.runs,
    });
    let (mut base_app, mut base_busy, mut base_idle) = (Vec::new(), Vec::new(), Vec::new());
    let (mut pages, mut base_pages) = (Vec::new(), Vec::new());
    let runs = bench.runs.min(3);
    for _ in 0..runs {
        if let Some(base) = &baseline {
            let args = base.args(&["replay", &path, "--speed", "max"]);
            base_app.push(
                base.run_app(&args, |capture| {
                    let (during, after) = keys_during_and_after(capture);
                    base_busy.extend(during);
                    base_idle.extend(after);
                })
                .cpu,
            );
        }
        // With the answer limit raised as for the app: both take in the whole answer (with the
        // default limit `render` stopped at 64 MiB of the 91 MB, a third less work than the app's).
        let args = bench.args(&["render", &path, "--format", "markdown"]);
        render.push(bench.run(&args, &[]).cpu);
        // No --exit-when-done: the idle key is pressed once the answer is complete, then `q`.
        let args = bench.args(&["replay", &path, "--speed", "max"]);
        app.push(
            bench
                .run_app(&args, |capture| {
                    let (during, after) = keys_during_and_after(capture);
                    busy.extend(during);
                    idle.extend(after);
                })
                .cpu,
        );
        // The first and second PgUp once the whole answer is in, in runs of their own (the
        // baseline's first PgUp measures every block: its CPU would count in the flood's).
        for (build, pages) in [
            (Some(bench), &mut pages),
            (baseline.as_ref(), &mut base_pages),
        ] {
            if let Some(build) = build {
                let args = build.args(&["replay", &path, "--speed", "max"]);
                build.run_app(&args, |capture| pages.push(page_ups(capture)));
            }
        }
    }
    let (render, app) = (median(render), median(app));
    if let Some(base) = &baseline {
        let base_app = median(base_app);
        println!(
            "flood: baseline {} replay --speed max {:.2} s CPU ({:.1} ms/MB): {:.2}× render; \
             this build ÷ baseline {:.2}",
            base.bin.display(),
            base_app.as_secs_f64(),
            base_app.as_secs_f64() * 1e3 / mb(stream.bytes),
            base_app.as_secs_f64() / render.as_secs_f64(),
            app.as_secs_f64() / base_app.as_secs_f64()
        );
    }
    println!(
        "flood: app replay --speed max {:.2} s CPU ({:.1} ms/MB), render {:.2} s CPU ({:.1} ms/MB), \
         medians of {runs} alternating: {:.2}× (target ≤ 2×)",
        app.as_secs_f64(),
        app.as_secs_f64() * 1e3 / mb(stream.bytes),
        render.as_secs_f64(),
        render.as_secs_f64() * 1e3 / mb(stream.bytes),
        app.as_secs_f64() / render.as_secs_f64()
    );
    print_keys("flood:", busy, idle);
    print_pages("flood:", pages);
    if let Some(base) = &baseline {
        let label = format!("flood, baseline {}:", base.bin.display());
        print_keys(&label, base_busy, base_idle);
        print_pages(&label, base_pages);
    }
    println!("flood: {} at the end", load());
    std::fs::remove_file(&file).unwrap();
}

/// The key during the flood against the same key idle, as a ratio of medians.
fn print_keys(label: &str, busy: Vec<Duration>, idle: Vec<Duration>) {
    if busy.is_empty() || idle.is_empty() {
        println!(
            "{label} a key was answered {} times during the flood and {} times idle: no ratio",
            busy.len(),
            idle.len()
        );
        return;
    }
    let (n_busy, n_idle) = (busy.len(), idle.len());
    let (busy, idle) = (median(busy), median(idle));
    println!(
        "{label} `?` on screen {:.1} ms after the key during the flood ({n_busy} presses), {:.1} ms \
         idle ({n_idle}), medians, tmux capture included: {:.2}× (target ≤ 1.5×)",
        busy.as_secs_f64() * 1e3,
        idle.as_secs_f64() * 1e3,
        busy.as_secs_f64() / idle.as_secs_f64()
    );
}

/// The first and the second PgUp after the flood, medians of the runs.
fn print_pages(label: &str, pages: Vec<(Duration, Duration)>) {
    if pages.is_empty() {
        return;
    }
    let n = pages.len();
    let first = median(pages.iter().map(|p| p.0).collect());
    let second = median(pages.iter().map(|p| p.1).collect());
    println!(
        "{label} the first PgUp after the whole answer moved the screen in {:.1} ms, the second in \
         {:.1} ms (medians of {n}, tmux capture included): {:.2}×",
        first.as_secs_f64() * 1e3,
        second.as_secs_f64() * 1e3,
        first.as_secs_f64() / second.as_secs_f64()
    );
}

/// Once the answer is complete, PgUp twice: the times until each changed the screen. Quits the
/// app (`q`, Enter) at the end.
fn page_ups(capture: &dyn Fn() -> String) -> (Duration, Duration) {
    let socket = format!("research-tui-stress-{}", std::process::id());
    let send = |key: &str| {
        let _ = Command::new("tmux")
            .args(["-L", &socket, "send-keys", "-t", "stress", key])
            .output();
    };
    let deadline = Instant::now() + Duration::from_secs(600);
    while !capture().contains("complete") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    // The last frames drawn: the screen stays as it is until a key.
    std::thread::sleep(Duration::from_millis(300));
    let page_up = || {
        let before = capture();
        let pressed = Instant::now();
        send("PageUp");
        while capture() == before && pressed.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(1));
        }
        pressed.elapsed()
    };
    let first = page_up();
    std::thread::sleep(Duration::from_millis(150));
    let second = page_up();
    send("q");
    send("Enter");
    (first, second)
}

/// `?` pressed (and closed again) while the answer streams, then as often once it is complete:
/// the times until the help popup was on screen, during and after. Quits the app (`q`, Enter) at the end.
fn keys_during_and_after(capture: &dyn Fn() -> String) -> (Vec<Duration>, Vec<Duration>) {
    let socket = format!("research-tui-stress-{}", std::process::id());
    let send = |key: &str| {
        let _ = Command::new("tmux")
            .args(["-L", &socket, "send-keys", "-t", "stress", key])
            .output();
    };
    // The time until the popup shows, and whether the answer was still streaming then.
    let press = || -> Option<(Duration, bool)> {
        let pressed = Instant::now();
        send("?");
        while pressed.elapsed() < Duration::from_secs(10) {
            let screen = capture();
            if screen.contains("Esc close") {
                let latency = pressed.elapsed();
                send("Escape");
                let closed = Instant::now();
                while capture().contains("Esc close") && closed.elapsed() < Duration::from_secs(10)
                {
                    std::thread::sleep(Duration::from_millis(5));
                }
                return Some((latency, screen.contains("streaming")));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        None
    };
    let (mut during, mut after) = (Vec::new(), Vec::new());
    let deadline = Instant::now() + Duration::from_secs(600);
    while !capture().contains("Section") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    loop {
        std::thread::sleep(Duration::from_millis(150));
        let screen = capture();
        if !screen.contains("streaming") || Instant::now() > deadline {
            break;
        }
        if let Some((latency, true)) = press() {
            during.push(latency);
        }
    }
    while !capture().contains("complete") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    for _ in 0..during.len().clamp(5, 15) {
        std::thread::sleep(Duration::from_millis(150));
        if let Some((latency, false)) = press() {
            after.push(latency);
        }
    }
    // `q` asks whether to quit, Enter says yes.
    send("q");
    send("Enter");
    (during, after)
}

/// TUI replay at max speed against `render` of the same groundings-first file.
fn cpu(bench: &Bench) {
    let file = bench.path("groundings-first.sse");
    std::fs::write(&file, streams::benchmark_stream(true)).unwrap();
    let size = std::fs::metadata(&file).unwrap().len();
    let path = file.display().to_string();
    let render = median(
        (0..bench.runs)
            .map(|_| {
                bench
                    .run(&["render", &path, "--format", "markdown"], &[])
                    .cpu
            })
            .collect(),
    );
    // As many runs as `render` got, unless one takes long (a build from before the fix).
    let mut app_runs = Vec::new();
    while app_runs.len() < bench.runs && app_runs.iter().all(|t: &Duration| t.as_secs() < 20) {
        let args = bench.args(&["replay", &path, "--speed", "max", "--exit-when-done"]);
        app_runs.push(bench.run_app(&args, |_| {}).cpu);
    }
    let app = median(app_runs);
    println!(
        "groundings-first stream ({:.1} MB, 5,000 references pending while 40 k chunks stream): \
         app replay --speed max {:.2} s CPU, render {:.2} s CPU (medians): {:.1}× (target ≤ 5×)",
        mb(size),
        app.as_secs_f64(),
        render.as_secs_f64(),
        app.as_secs_f64() / render.as_secs_f64()
    );
    std::fs::remove_file(&file).unwrap();
}

/// Peak RSS of the app and of `ask` on the large stream.
fn memory(bench: &Bench) {
    let file = bench.path("large.sse");
    let stream = write_large(&file);
    let size = stream.bytes;
    println!(
        "large stream: {:.1} MB ({:.1} MB of answer in {} chunks, {} references sent first)",
        mb(size),
        mb(stream.answer_bytes),
        stream.chunks,
        stream.references
    );
    let ratio = |usage: Usage| usage.peak_rss as f64 / size as f64;
    let path = file.display().to_string();

    let mut key_latency = None;
    let app = bench.run_app(
        &bench.args(&["replay", &path, "--speed", "max", "--exit-when-done"]),
        |capture| key_latency = press_help_mid_stream(capture),
    );
    println!(
        "app replay --speed max: peak RSS {:.0} MB = {:.2}× the stream (target ≤ 3×), {:.1} s",
        mb(app.peak_rss),
        ratio(app),
        app.wall.as_secs_f64()
    );
    match key_latency {
        Some(latency) => println!(
            "  a key pressed mid-stream was on screen after {} ms (tmux capture included)",
            latency.as_millis()
        ),
        None => println!("  a key pressed mid-stream was not answered within 10 s"),
    }

    let served = file.clone();
    let base_url = streams::serve_event_stream(move |socket| {
        if let Ok(mut f) = std::fs::File::open(&served) {
            let _ = std::io::copy(&mut f, socket);
        }
    });
    let key = [("BIGDATA_API_KEY", "stress-test-key".to_owned())];
    for (format, target) in [("json", "≤ 2× the stream"), ("text", "≤ 50 MB flat")] {
        let usage = bench.run(
            &bench.args(&[
                "ask",
                "a question",
                "--base-url",
                &base_url,
                "--format",
                format,
            ]),
            &key,
        );
        println!(
            "ask --format {format}: peak RSS {:.0} MB = {:.2}× the stream (target {target}), {:.1} s",
            mb(usage.peak_rss),
            ratio(usage),
            usage.wall.as_secs_f64()
        );
    }
    std::fs::remove_file(&file).unwrap();
}

/// Once the answer is streaming, press `?` and time how long until the help popup shows.
fn press_help_mid_stream(capture: &dyn Fn() -> String) -> Option<Duration> {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !capture().contains("Section") {
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    let socket = format!("research-tui-stress-{}", std::process::id());
    let pressed = Instant::now();
    Command::new("tmux")
        .args(["-L", &socket, "send-keys", "-t", "stress", "?"])
        .output()
        .ok()?;
    while pressed.elapsed() < Duration::from_secs(10) {
        if capture().contains("Esc close") {
            let latency = pressed.elapsed();
            let _ = Command::new("tmux")
                .args(["-L", &socket, "send-keys", "-t", "stress", "Escape"])
                .output();
            return Some(latency);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    None
}
