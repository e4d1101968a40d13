//! Large and fast streams through the real binary: `ask` keeps memory flat (`text`) or within twice
//! the stream (`json`) on a 100 MB answer from a local server, an answer past `--max-answer-mib` is
//! cut with a message in `ask` and in the app, and the app answers a key and a terminal hangup while
//! a replay with every reference sent before its text floods in (tmux, skipped never: tmux is
//! required as for the other end-to-end tests).

#[path = "../../benches/support/streams.rs"]
pub(crate) mod streams;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support;

const BIN: &str = env!("CARGO_BIN_EXE_research-tui");

/// `ask` against `base_url` with a throwaway data directory.
fn ask(base_url: &str, dir: &Path, args: &[&str]) -> Command {
    let mut command = support::cli(dir);
    command
        .args(["ask", "a question", "--base-url", base_url])
        .args(args)
        .env("BIGDATA_API_KEY", "test-key-large-streams")
        .env("XDG_DATA_HOME", dir)
        .env("XDG_CONFIG_HOME", dir)
        .env("XDG_CACHE_HOME", dir);
    command
}

/// Run `command` with stdout discarded; its exit status and peak resident memory (the kernel's
/// high-water mark, read while it runs).
fn peak_rss(mut command: Command) -> (std::process::ExitStatus, u64) {
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    loop {
        if let Ok(status) = std::fs::read_to_string(&status_file)
            && let Some(kb) = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(kb * 1024);
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (status, peak);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn ask_keeps_memory_flat_for_text_and_within_twice_the_stream_for_json_on_a_100_mb_answer() {
    const SIZE: u64 = 100_000_000;
    let base_url = streams::serve_event_stream(|socket| {
        let mut out = std::io::BufWriter::new(socket);
        let _ = streams::write_large_stream(&mut out, SIZE);
        let _ = out.flush();
    });
    let dir = tempfile::tempdir().unwrap();
    let (status, text_peak) = peak_rss(ask(
        &base_url,
        dir.path(),
        &["--format", "text", "--max-answer-mib", "1024"],
    ));
    assert!(status.success(), "{status}");
    assert!(
        text_peak < 50_000_000,
        "ask --format text peaked at {} MB on a 100 MB stream",
        text_peak / 1_000_000
    );
    let (status, json_peak) = peak_rss(ask(
        &base_url,
        dir.path(),
        &["--format", "json", "--max-answer-mib", "1024"],
    ));
    assert!(status.success(), "{status}");
    assert!(
        json_peak < 2 * SIZE,
        "ask --format json peaked at {} MB on a 100 MB stream",
        json_peak / 1_000_000
    );
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn an_answer_past_the_limit_is_cut_there_with_a_message_and_exit_5() {
    let base_url = streams::serve_event_stream(|socket| {
        let mut out = std::io::BufWriter::new(socket);
        let _ = streams::write_large_stream(&mut out, 3_000_000);
        let _ = out.flush();
    });
    let dir = tempfile::tempdir().unwrap();
    let output = ask(&base_url, dir.path(), &["--max-answer-mib", "1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the answer passed 1 MiB, the limit set by --max-answer-mib"),
        "{stderr}"
    );
    // What arrived up to the limit is printed, and nothing after the chunk that passed it: the
    // rest is the sources' trailer (~74 KB). A batch of chunks taken together (up to 256 KiB
    // under load) must not all be printed.
    let printed = stdout(&output).len();
    assert!(
        (1 << 20) < printed && printed < (1 << 20) + 100_000,
        "{printed} bytes"
    );
    // The limit also comes from the environment.
    let output = ask(&base_url, dir.path(), &["--format", "json"])
        .env("RESEARCH_TUI_MAX_ANSWER_MIB", "2")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["status"], "incomplete");
    assert!(
        doc["error"]
            .as_str()
            .unwrap()
            .contains("the answer passed 2 MiB"),
        "{}",
        doc["error"]
    );
}

/// Numbers the apps' tmux sockets.
static NEXT_SOCKET: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The app in a detached tmux session on its own server, started directly (the pane's process is
/// the app).
pub(crate) struct App {
    socket: String,
    _dir: tempfile::TempDir,
}

impl App {
    pub(crate) fn start(args: &[&str]) -> App {
        assert!(
            Command::new("tmux")
                .arg("-V")
                .output()
                .is_ok_and(|o| o.status.success()),
            "tmux is required for the end-to-end tests (apt-get install tmux)"
        );
        let dir = tempfile::tempdir().unwrap();
        let app = App {
            // One server per app, even for two apps started one after the other with the same
            // arguments (the first one's server may still be going away).
            socket: format!(
                "research-tui-large-{}-{}-{}",
                std::process::id(),
                args.join("").len(),
                NEXT_SOCKET.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ),
            _dir: dir,
        };
        let home = app._dir.path().display().to_string();
        let mut command = vec!["env".to_owned()];
        command.extend(support::unset_args());
        command.extend([
            format!("XDG_CONFIG_HOME={home}"),
            format!("XDG_DATA_HOME={home}"),
            format!("XDG_CACHE_HOME={home}"),
            "TERM=xterm-256color".into(),
            BIN.into(),
        ]);
        command.extend(args.iter().map(|a| a.to_string()));
        let mut tmux = vec!["new-session", "-d", "-x", "140", "-y", "42", "-s", "app"];
        tmux.extend(command.iter().map(String::as_str));
        assert!(app.tmux(&tmux).status.success());
        app
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .unwrap()
    }

    pub(crate) fn screen(&self) -> String {
        stdout(&self.tmux(&["capture-pane", "-p", "-t", "app"]))
    }

    /// The screen once it shows `text`, or `None` after `limit`.
    pub(crate) fn wait_for(&self, text: &str, limit: Duration) -> Option<Duration> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if self.screen().contains(text) {
                return Some(start.elapsed());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }

    /// The app's XDG home (its log file is here).
    pub(crate) fn home(&self) -> &Path {
        self._dir.path()
    }

    pub(crate) fn pid(&self) -> u32 {
        stdout(&self.tmux(&["list-panes", "-t", "app", "-F", "#{pane_pid}"]))
            .trim()
            .parse()
            .unwrap()
    }
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

#[test]
fn keys_and_a_hangup_are_answered_while_a_replay_with_references_first_floods_in() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("groundings-first.sse");
    std::fs::write(&file, streams::benchmark_stream(true)).unwrap();
    let app = App::start(&["replay", file.to_str().unwrap(), "--speed", "max"]);
    assert!(
        app.wait_for("revenue", Duration::from_secs(30)).is_some(),
        "the answer streams in:\n{}",
        app.screen()
    );
    let pid = app.pid();
    app.tmux(&["send-keys", "-t", "app", "?"]);
    let shown = app.wait_for("Esc close", Duration::from_secs(10));
    assert!(
        shown.is_some_and(|t| t < Duration::from_secs(3)),
        "the help opened after {shown:?} while the replay streamed"
    );
    // Closing the terminal (tmux sends SIGHUP) ends the app at once.
    app.tmux(&["kill-session", "-t", "app"]);
    let start = Instant::now();
    while is_running(pid) && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "the app took {:?} to end after the hangup",
        start.elapsed()
    );
    // A hung-up terminal is an end, not a crash: nothing panicked on the way out (ratatui's own
    // drop once reported the cursor it could not show on the closed stderr, which panics).
    let log_file = app.home().join("research-tui").join("research-tui.log");
    let log = std::fs::read_to_string(&log_file).expect("the app keeps its log");
    assert!(
        !log.contains("panicked"),
        "the app panicked after the hangup:\n{log}"
    );
    // It ended on its SIGHUP, not because the hangup watch ended a stuck loop.
    assert!(
        !log.contains("loop did not end"),
        "the app's loop did not see the hangup:\n{log}"
    );
}

#[test]
fn the_app_cuts_an_answer_past_the_limit_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("large.sse");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    streams::write_large_stream(&mut out, 3_000_000).unwrap();
    drop(out);
    let app = App::start(&[
        "replay",
        file.to_str().unwrap(),
        "--speed",
        "max",
        "--max-answer-mib",
        "1",
    ]);
    assert!(
        app.wait_for("✂ Cut: the answer passed 1 MiB", Duration::from_secs(60))
            .is_some(),
        "{}",
        app.screen()
    );
    let screen = app.screen();
    assert!(screen.contains("--max-answer-mib"), "{screen}");
    assert!(screen.contains("! cut · kept what arrived"), "{screen}");
}

/// Closing the terminal as the app starts ends it, every time. crossterm's key reader retries
/// forever on a hung-up terminal, and an app whose loop was inside it then never saw the SIGHUP:
/// the first-frame benchmark, which closes the terminal once the first frame is on it, left 14
/// of 63 apps running, a core busy each, until killed with SIGKILL.
#[test]
fn an_app_whose_terminal_closes_as_it_starts_ends_every_time() {
    for round in 1..=40 {
        let app = App::start(&["--demo"]);
        assert!(
            app.wait_for("Answer", Duration::from_secs(30)).is_some(),
            "round {round}: the first frame:\n{}",
            app.screen()
        );
        let pid = app.pid();
        app.tmux(&["kill-session", "-t", "app"]);
        let start = Instant::now();
        while is_running(pid) && start.elapsed() < Duration::from_secs(8) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let running = is_running(pid);
        if running {
            // Not left behind to load the machine for the other tests.
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
        assert!(
            !running,
            "round {round}: the app still ran {:?} after its terminal closed",
            start.elapsed()
        );
    }
}

/// Whether process `pid` runs: it exists and is not a zombie (ended, its parent not yet told:
/// the tmux server is gone, and the machine's init reaps orphans every few seconds).
fn is_running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    })
}
