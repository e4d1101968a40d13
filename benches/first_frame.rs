//! How long `research-tui --demo` takes to show its first frame in tmux (140×42), against a shell's
//! `printf` in the same tmux, alternating, medians: tmux's own start and capture latency is in both,
//! so the ratio is what the app adds. Each run starts a new session on one tmux server and polls
//! `capture-pane` until the text appears (the app's `Answer` pane title, the printed word).
//!
//! Run with `cargo bench --bench first_frame` (needs tmux); `FIRST_FRAME_RUNS` rounds (default 21);
//! `FIRST_FRAME_BASELINE=<another build's binary>` measures that build too, in the same rounds.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// Start `command` in a new 140×42 session and time until `marker` is on its screen.
    fn first_frame(&self, name: &str, command: &str, marker: &str) -> Duration {
        let start = Instant::now();
        let started = self.run(&[
            "new-session",
            "-d",
            "-x",
            "140",
            "-y",
            "42",
            "-s",
            name,
            command,
        ]);
        assert!(started.status.success(), "tmux starts {command}");
        let elapsed = loop {
            let screen = self.run(&["capture-pane", "-p", "-t", name]);
            if String::from_utf8_lossy(&screen.stdout).contains(marker) {
                break start.elapsed();
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "{command} showed no {marker}"
            );
        };
        self.run(&["kill-session", "-t", name]);
        elapsed
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The app's command line: its own data, config and cache in `home` (a new session is saved).
fn demo_command(bin: &Path, home: &Path) -> String {
    let home = home.display();
    format!(
        "env XDG_DATA_HOME={home} XDG_CONFIG_HOME={home} XDG_CACHE_HOME={home} XDG_STATE_HOME={home} TERM=xterm-256color {} --demo",
        bin.display()
    )
}

fn main() {
    // `cargo bench` passes `--bench`; a filter that is not ours means another bench was asked for.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.is_some_and(|f| !"first_frame".contains(f.as_str())) {
        return;
    }
    let runs: usize = std::env::var("FIRST_FRAME_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(21);
    let home = tempfile::tempdir().unwrap();
    let tmux = Tmux {
        socket: format!("research-tui-first-frame-{}", std::process::id()),
    };
    // The server stays up between runs (its own start is not what is measured).
    tmux.run(&["new-session", "-d", "-s", "keep", "sleep 3600"]);
    let mut builds = vec![(
        "this build",
        PathBuf::from(env!("CARGO_BIN_EXE_research-tui")),
    )];
    builds.extend(std::env::var_os("FIRST_FRAME_BASELINE").map(|b| ("baseline", PathBuf::from(b))));
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("{runs} rounds; load average at start: {}", load.trim());
    let mut printf = Vec::new();
    let mut demo = vec![Vec::new(); builds.len()];
    for round in 0..runs {
        printf.push(tmux.first_frame(
            &format!("printf-{round}"),
            "printf 'first frame\\n'; sleep 60",
            "first frame",
        ));
        for (i, (_, bin)) in builds.iter().enumerate() {
            demo[i].push(tmux.first_frame(
                &format!("demo-{round}-{i}"),
                &demo_command(bin, home.path()),
                "Answer",
            ));
        }
    }
    let printf = median(printf);
    println!("printf in tmux: {:.1} ms", ms(printf));
    for ((name, _), times) in builds.iter().zip(demo) {
        let time = median(times);
        println!(
            "research-tui --demo ({name}): first frame in {:.1} ms = {:.2}× printf (target ≤ 2×)",
            ms(time),
            time.as_secs_f64() / printf.as_secs_f64()
        );
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at end: {}", load.trim());
}
