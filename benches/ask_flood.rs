//! `ask`'s CPU per answer chunk on a flood: the 8 MB benchmark stream (40 k ANSWER chunks of ~43
//! characters, 5,000 references, 200 tool calls) sent by a local server as fast as the socket takes
//! it, each event one HTTP chunk (chunked transfer encoding, as streaming servers send it), answered by `ask --format text` and `--format json` with stdout to
//! /dev/null. The anchor, measured in the same run: `render` of the same file (decoding and
//! rendering without a network, a runtime or threads). With `ASK_FLOOD_BASELINE=<another build's
//! binary>` that build runs too, alternating with this one, for a before/after ratio.
//!
//! Run with `cargo bench --bench ask_flood` (needs GNU time, `/usr/bin/time`); `ASK_FLOOD_RUNS`
//! rounds (default 5), medians of user+sys CPU.

#[path = "support/streams.rs"]
mod streams;
#[path = "support/timed.rs"]
mod timed;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use timed::{TIME_FORMAT, Usage, parse_usage};

const CHUNKS: usize = 40_000;

/// `bin args…` under GNU time in `home`, stdout and stderr to /dev/null.
fn run(bin: &Path, args: &[&str], home: &Path) -> Usage {
    let out = home.join("usage");
    let status = Command::new("/usr/bin/time")
        .arg("-f")
        .arg(TIME_FORMAT)
        .arg("-o")
        .arg(&out)
        .arg(bin)
        .args(args)
        .env("XDG_DATA_HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .env("XDG_CACHE_HOME", home)
        .env("XDG_STATE_HOME", home)
        .env("BIGDATA_API_KEY", "ask-flood-key")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("GNU time runs");
    assert!(status.success(), "{} {args:?} failed", bin.display());
    parse_usage(&out).expect("GNU time wrote its report")
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn per_chunk_us(cpu: Duration) -> f64 {
    cpu.as_secs_f64() * 1e6 / CHUNKS as f64
}

fn main() {
    // `cargo bench` passes `--bench`; a filter that is not ours means another bench was asked for.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.is_some_and(|f| !"ask_flood".contains(f.as_str())) {
        return;
    }
    let runs: usize = std::env::var("ASK_FLOOD_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flood.sse");
    let stream = streams::benchmark_stream(false);
    std::fs::write(&file, &stream).unwrap();
    let events: Vec<Vec<u8>> =
        stream
            .split_inclusive(|&b| b == b'\n')
            .fold(vec![Vec::new()], |mut events, line| {
                events.last_mut().unwrap().extend_from_slice(line);
                if line == b"\n" {
                    events.push(Vec::new());
                }
                events
            });
    let base_url = streams::serve_chunked_events(events);
    let this = PathBuf::from(env!("CARGO_BIN_EXE_research-tui"));
    let baseline = std::env::var_os("ASK_FLOOD_BASELINE").map(PathBuf::from);
    let mut builds = vec![("this build", this.clone())];
    builds.extend(baseline.map(|bin| ("baseline", bin)));
    let path = file.display().to_string();
    println!(
        "flood: {:.1} MB, {CHUNKS} answer chunks; {runs} rounds, medians of user+sys CPU",
        stream.len() as f64 / 1e6
    );
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at start: {}", load.trim());
    for format in ["text", "json"] {
        let mut asked = vec![Vec::new(); builds.len()];
        let mut rendered = Vec::new();
        for _ in 0..runs {
            let ask = [
                "ask",
                "a question",
                "--base-url",
                &base_url,
                "--format",
                format,
            ];
            for (i, (_, bin)) in builds.iter().enumerate() {
                asked[i].push(run(bin, &ask, dir.path()).cpu);
            }
            rendered.push(run(&this, &["render", "--format", format, &path], dir.path()).cpu);
        }
        let render = median(rendered);
        let medians: Vec<Duration> = asked.into_iter().map(median).collect();
        for ((name, _), cpu) in builds.iter().zip(&medians) {
            println!(
                "ask --format {format} ({name}): {:.1} µs CPU per chunk = {:.2}× `render` of the file ({:.1} µs)",
                per_chunk_us(*cpu),
                cpu.as_secs_f64() / render.as_secs_f64(),
                per_chunk_us(render)
            );
        }
        if let [now, before] = medians[..] {
            println!(
                "ask --format {format}: this build / baseline = {:.2}×",
                now.as_secs_f64() / before.as_secs_f64()
            );
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at end: {}", load.trim());
}
