//! End to end: the real binary in a detached tmux session (its own tmux server), driven with
//! `send-keys` and read with `capture-pane`. Skipped when tmux is not installed.

use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_research-tui");
static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

struct Tmux {
    socket: String,
    session: String,
    dir: tempfile::TempDir,
}

impl Tmux {
    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// Start the app with `args` in a `width`×`height` window.
    fn start(width: u16, height: u16, args: &[&str]) -> Tmux {
        Tmux::start_with_env(width, height, &[], args)
    }

    /// Like [`Tmux::start`], with extra `NAME=value` environment entries.
    fn start_with_env(width: u16, height: u16, env: &[&str], args: &[&str]) -> Tmux {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let config = tempfile::tempdir().unwrap();
        let t = Tmux {
            socket: format!("research-tui-e2e-{}-{n}", std::process::id()),
            session: format!("e2e{n}"),
            dir: config,
        };
        // Once the app is gone the shell records its exit status, says so on the (main) screen and
        // stays, so the restored terminal can be inspected.
        let status = t.dir.path().join("exit-status");
        let mut command = vec![
            "sh".to_owned(),
            "-c".into(),
            format!(
                "\"$@\"; echo $? > '{}'; echo 'the app exited'; sleep 120",
                status.display()
            ),
            "sh".into(),
            "env".into(),
            "-u".into(),
            "BIGDATA_API_KEY".into(),
            "-u".into(),
            "NO_COLOR".into(),
            format!("XDG_CONFIG_HOME={}", t.dir.path().display()),
            format!("XDG_CACHE_HOME={}", t.dir.path().display()),
            format!("XDG_DATA_HOME={}", t.dir.path().display()),
            "TERM=xterm-256color".into(),
        ];
        command.extend(env.iter().map(|e| e.to_string()));
        command.push(BIN.into());
        command.extend(args.iter().map(|a| a.to_string()));
        let w = width.to_string();
        let h = height.to_string();
        let cwd = t.dir.path().display().to_string();
        let mut full: Vec<&str> = vec![
            "new-session",
            "-d",
            "-x",
            &w,
            "-y",
            &h,
            "-s",
            &t.session,
            "-c",
            &cwd,
        ];
        full.extend(command.iter().map(String::as_str));
        let out = t.tmux(&full);
        assert!(out.status.success(), "tmux new-session: {out:?}");
        t
    }

    fn capture(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", &self.session]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn send(&self, keys: &[&str]) {
        for key in keys {
            self.tmux(&["send-keys", "-t", &self.session, key]);
            std::thread::sleep(Duration::from_millis(60));
        }
    }

    fn pane(&self, format: &str) -> String {
        let out = self.tmux(&["list-panes", "-t", &self.session, "-F", format]);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Poll the screen until `pred` holds.
    fn wait_for(&self, what: &str, timeout: Duration, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if pred(&screen) {
                return screen;
            }
            if start.elapsed() > timeout {
                panic!("timed out waiting for {what}; screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Wait for the app to exit; returns its exit status.
    fn wait_exit(&self, timeout: Duration) -> String {
        let path = self.dir.path().join("exit-status");
        let start = Instant::now();
        loop {
            if let Ok(status) = std::fs::read_to_string(&path)
                && !status.trim().is_empty()
            {
                return status.trim().to_owned();
            }
            if start.elapsed() > timeout {
                panic!("the app did not exit; screen:\n{}", self.capture());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

fn status_line(screen: &str) -> &str {
    screen.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("")
}

/// The app exited with status 0, the alternate screen is left and the app's UI is gone.
fn assert_exited_and_restored(t: &Tmux) {
    assert_eq!(t.wait_exit(Duration::from_secs(5)), "0", "exit status");
    let screen = t.wait_for("the shell after the app", Duration::from_secs(5), |s| {
        s.contains("the app exited")
    });
    assert_eq!(t.pane("#{alternate_on}"), "0", "alternate screen left");
    assert!(
        !screen.contains("Sources") && !screen.contains("DEMO") && !screen.contains("╭"),
        "the app's UI is gone:\n{screen}"
    );
}

#[test]
fn demo_at_140x42_answers_then_shows_a_source_and_quits_cleanly() {
    if !tmux_available() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let t = Tmux::start(140, 42, &["--demo", "--demo-speed", "6"]);
    let screen = t.wait_for("the answer to complete", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    assert!(status_line(&screen).contains("DEMO"));
    assert!(screen.contains("Sources 9"), "{screen}");
    assert!(screen.contains("Bottom line"), "{screen}");
    // Sources, second entry, its detail.
    t.send(&["c", "j", "Enter"]);
    let popup = t.wait_for("the source popup", Duration::from_secs(5), |s| {
        s.contains("Supports 2 spans")
    });
    assert!(popup.contains("[2] Reuters - May 27, 2026"), "{popup}");
    assert!(popup.contains("Publisher  Reuters"), "{popup}");
    assert!(popup.contains("https://www.reuters.com/"), "{popup}");
    assert!(popup.contains("Query"), "{popup}");
    t.send(&["Escape"]);
    t.wait_for("the popup to close", Duration::from_secs(5), |s| {
        !s.contains("Supports 2 spans")
    });
    // Copy (OSC 52) and open (detached; there may be no browser here) the selected source's URL.
    t.send(&["y"]);
    t.wait_for("the copy", Duration::from_secs(5), |s| {
        status_line(s).contains("copied the URL")
    });
    t.send(&["o"]);
    t.wait_for("the opener", Duration::from_secs(5), |s| {
        let line = status_line(s);
        line.contains("opening https://www.reuters.com") || line.contains("open")
    });
    // Export the conversation: into the current directory, path in the status bar.
    t.send(&["e"]);
    t.wait_for("the export", Duration::from_secs(5), |s| {
        status_line(s).contains("exported to")
    });
    let export = std::fs::read_dir(t.dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("research-tui-export-"))
        })
        .expect("an export file");
    let text = std::fs::read_to_string(export).unwrap();
    assert!(text.contains("## You: Break down NVIDIA"), "{text}");
    assert!(text.contains("[^2]: [Reuters - May 27, 2026]"), "{text}");
    t.send(&["q"]);
    assert_exited_and_restored(&t);
}

#[test]
fn demo_at_80x24_is_usable_with_tabs() {
    if !tmux_available() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let t = Tmux::start(80, 24, &["--demo", "--demo-speed", "6"]);
    let screen = t.wait_for("the answer to complete", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    assert!(
        screen.contains("Answer") && screen.contains("Sources 9"),
        "{screen}"
    );
    for line in screen.lines() {
        assert!(
            unicode_width::UnicodeWidthStr::width(line) <= 80,
            "no line overflows: {line}"
        );
    }
    t.send(&["c"]);
    let sources = t.wait_for("the sources tab", Duration::from_secs(5), |s| {
        s.contains("[1] NVIDIA Newsroom")
    });
    assert!(sources.contains("[9]"), "{sources}");
    t.send(&["Enter"]);
    t.wait_for("the source popup", Duration::from_secs(5), |s| {
        s.contains("Publisher  NVIDIA Newsroom")
    });
    t.send(&["Escape", "?"]);
    t.wait_for("the help", Duration::from_secs(5), |s| {
        s.contains("Keys") && s.contains("Tab / Shift-Tab")
    });
    t.send(&["Escape", "q"]);
    assert_exited_and_restored(&t);
}

#[test]
fn ctrl_c_cancels_the_stream_and_a_second_ctrl_c_quits() {
    if !tmux_available() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let t = Tmux::start(120, 30, &["--demo", "--demo-speed", "0.5"]);
    t.wait_for("streaming", Duration::from_secs(30), |s| {
        status_line(s).contains("streaming")
    });
    t.send(&["C-c"]);
    t.wait_for("cancelled", Duration::from_secs(5), |s| {
        status_line(s).contains("cancelled")
    });
    assert!(
        !t.dir.path().join("exit-status").exists(),
        "still running after one Ctrl-C"
    );
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

#[test]
fn replay_with_exit_when_done_quits_by_itself() {
    if !tmux_available() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let recording = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/recordings/bigdata/sector-comparison.sse"
    );
    let t = Tmux::start(
        140,
        42,
        &["replay", recording, "--speed", "max", "--exit-when-done"],
    );
    assert_eq!(t.wait_exit(Duration::from_secs(30)), "0");
    assert_exited_and_restored(&t);
}

#[test]
fn live_mode_starts_with_an_empty_prompt_and_asks_what_is_typed() {
    if !tmux_available() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    use std::io::BufRead;
    // The demo agent on its own port plays the part of the real service.
    let mut server = Command::new(BIN)
        .args(["serve", "--port", "0", "--speed", "6"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(server.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("the server prints its address")
        .to_owned();
    let t = Tmux::start_with_env(
        120,
        32,
        &["BIGDATA_API_KEY=test-key-not-secret"],
        &["--base-url", &url],
    );
    let screen = t.wait_for("LIVE and ready", Duration::from_secs(10), |s| {
        status_line(s).contains("LIVE") && status_line(s).contains("ready")
    });
    assert!(!screen.contains("test-key-not-secret"));
    t.send(&["What drove NVIDIA's data-center growth?", "Enter"]);
    let screen = t.wait_for("the answer to complete", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    assert!(screen.contains("LIVE"), "{screen}");
    t.send(&["q"]);
    assert_exited_and_restored(&t);
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn sigterm_restores_the_terminal() {
    if !tmux_available() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let t = Tmux::start(100, 30, &["--demo", "--demo-speed", "0.5"]);
    t.wait_for("streaming", Duration::from_secs(30), |s| {
        status_line(s).contains("streaming")
    });
    let shell = t.pane("#{pane_pid}");
    let out = Command::new("ps")
        .args(["-o", "pid=", "--ppid", &shell])
        .output()
        .expect("ps runs");
    let app = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(!app.is_empty(), "found the app's pid");
    let killed = Command::new("kill").args(["-TERM", &app]).status().unwrap();
    assert!(killed.success());
    assert_exited_and_restored(&t);
}
