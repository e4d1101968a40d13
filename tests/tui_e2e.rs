//! End to end: the real binary in a detached tmux session (its own tmux server), driven with
//! `send-keys` and read with `capture-pane`. Skipped when tmux is not installed.

use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_research-tui");
static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// These tests drive the real binary in tmux; without it they fail rather than pass unseen.
fn require_tmux() {
    let found = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "tmux is required for the end-to-end tests (apt-get install tmux)"
    );
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
        require_tmux();
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

    /// Paste `text` as a terminal does: bracketed (the app asked for it), line breaks sent as CR.
    fn paste(&self, text: &str) {
        self.tmux(&["set-buffer", "-b", "e2e", text]);
        self.tmux(&["paste-buffer", "-p", "-b", "e2e", "-t", &self.session]);
        std::thread::sleep(Duration::from_millis(100));
    }

    /// Files in the app's working directory whose name starts with `prefix`.
    fn files_named(&self, prefix: &str) -> Vec<std::path::PathBuf> {
        std::fs::read_dir(self.dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
            })
            .collect()
    }

    fn still_running(&self) -> bool {
        !self.dir.path().join("exit-status").exists()
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
    let t = Tmux::start(140, 42, &["--demo", "--demo-speed", "6"]);
    let screen = t.wait_for("the answer to complete", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    assert!(status_line(&screen).contains("DEMO"));
    assert!(screen.contains("Sources 9"), "{screen}");
    assert!(screen.contains("Bottom line"), "{screen}");
    // The prompt waits for a question: Esc to browse; Sources, second entry, its detail.
    t.send(&["Escape", "c", "j", "Enter"]);
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
        status_line(s).contains("copied https://www.reuters.com/")
    });
    t.send(&["o"]);
    // There may be no browser here: then the URL is shown and copied.
    t.wait_for("the opener", Duration::from_secs(5), |s| {
        let line = status_line(s);
        line.contains("opening https://www.reuters.com")
            || line.contains("copied the URL: https://www.reuters.com")
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
    // A title from the first question, metadata, the question as `##`, the answer's headings below.
    assert!(
        text.starts_with("# Break down NVIDIA's latest quarter"),
        "{text}"
    );
    assert!(
        text.contains("\n- Provider: Bigdata.com (demo)\n"),
        "{text}"
    );
    assert!(text.contains("\n- Session: `"), "{text}");
    assert!(text.contains("\n## Break down NVIDIA"), "{text}");
    let answer_headings: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("## "))
        .skip(1)
        .filter(|l| l.starts_with('#'))
        .collect();
    assert!(!answer_headings.is_empty(), "{text}");
    assert!(
        answer_headings
            .iter()
            .all(|h| h.starts_with("### ") || h.starts_with("####")),
        "{answer_headings:?}"
    );
    assert!(text.contains("[^2]: [Reuters - May 27, 2026]"), "{text}");
    t.send(&["Escape", "q"]);
    assert_exited_and_restored(&t);
}

#[test]
fn demo_at_80x24_is_usable_with_tabs() {
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
    t.send(&["Escape", "c"]);
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
    t.send(&["Escape", "q"]);
    assert_exited_and_restored(&t);
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn sigterm_restores_the_terminal() {
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

/// `research-tui ask --demo` with its sessions in `data`: the saved session's id.
fn ask_demo(data: &std::path::Path, question: &str) -> String {
    let out = Command::new(BIN)
        .args(["ask", "--demo", "--demo-speed", "200", question])
        .env("XDG_DATA_HOME", data)
        .env("XDG_CONFIG_HOME", data)
        .env_remove("BIGDATA_API_KEY")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    saved_sessions(data)[0]["id"].as_str().unwrap().to_owned()
}

fn saved_sessions(data: &std::path::Path) -> Vec<serde_json::Value> {
    let out = Command::new(BIN)
        .args(["sessions", "--json"])
        .env("XDG_DATA_HOME", data)
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn open_shows_a_session_saved_by_ask_at_once_and_continues_it() {
    let data = tempfile::tempdir().unwrap();
    let id = ask_demo(data.path(), "What did NVIDIA report?");
    let env = format!("XDG_DATA_HOME={}", data.path().display());
    let t = Tmux::start_with_env(140, 42, &[&env], &["open", &id, "--demo-speed", "8"]);
    // No stream: the saved answer is there on the first frames.
    let screen = t.wait_for("the saved answer", Duration::from_secs(3), |s| {
        s.contains("export policy and hyperscaler capex.") && status_line(s).contains("complete")
    });
    assert!(status_line(&screen).contains("DEMO"), "{screen}");
    assert!(screen.contains("Sources 9"), "{screen}");
    assert!(
        screen.contains("Enter send"),
        "the prompt has the focus:\n{screen}"
    );
    // A follow-up on a fresh demo agent, from the saved checkpoint.
    t.send(&["And AMD?", "Enter"]);
    t.wait_for("the follow-up", Duration::from_secs(60), |s| {
        status_line(s).contains("turn 2/2") && status_line(s).contains("complete")
    });
    // The sessions picker lists it; Esc closes it.
    t.send(&["Escape", "s"]);
    let picker = t.wait_for("the picker", Duration::from_secs(5), |s| {
        s.contains("Saved sessions (1)")
    });
    assert!(picker.contains("2 turns"), "{picker}");
    assert!(picker.contains("(open)"), "{picker}");
    t.send(&["Escape", "q"]);
    assert_exited_and_restored(&t);
    let sessions = saved_sessions(data.path());
    assert_eq!(sessions.len(), 1);
    let turns = sessions[0]["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[1]["question"], "And AMD?");
    assert_eq!(turns[1]["status"], "complete");
    assert_eq!(turns[1]["from_checkpoint_id"], turns[0]["checkpoint_id"]);
}

#[test]
fn resume_of_a_saved_checkpoint_loads_its_session_at_80x24() {
    let data = tempfile::tempdir().unwrap();
    ask_demo(data.path(), "What did NVIDIA report?");
    let checkpoint = saved_sessions(data.path())[0]["turns"][0]["checkpoint_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let env = format!("XDG_DATA_HOME={}", data.path().display());
    let t = Tmux::start_with_env(80, 24, &[&env], &["--resume", &checkpoint, "--demo"]);
    let screen = t.wait_for("the saved session", Duration::from_secs(3), |s| {
        status_line(s).contains("complete") && s.contains("Sources 9")
    });
    assert!(
        status_line(&screen).contains("opened a saved session (1 turn)"),
        "{screen}"
    );
    for line in screen.lines() {
        assert!(
            unicode_width::UnicodeWidthStr::width(line) <= 80,
            "no line overflows: {line}"
        );
    }
    t.send(&["q"]);
    // The prompt has the focus: `q` is typed, not quit; Esc leaves the prompt, then q quits.
    t.wait_for("q in the prompt", Duration::from_secs(5), |s| {
        s.lines()
            .any(|l| l.trim_matches(|c| c == '┃' || c == ' ') == "q")
    });
    t.send(&["Escape", "q"]);
    assert_exited_and_restored(&t);
}

#[test]
fn resume_of_an_unknown_checkpoint_starts_empty_with_the_ids_set() {
    let t = Tmux::start(
        120,
        30,
        &[
            "--demo",
            "--demo-speed",
            "8",
            "--resume",
            "ckpt-00000000feedbeef",
            "--chat-id",
            "chat-from-elsewhere",
        ],
    );
    let screen = t.wait_for("ready to resume", Duration::from_secs(5), |s| {
        status_line(s).contains("resume ckpt-…edbeef")
    });
    assert!(
        screen.contains("↳ resume ckpt-00000000feedbeef"),
        "{screen}"
    );
    t.send(&["And the guidance?", "Enter"]);
    t.wait_for("the answer", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    t.send(&["Escape", "q"]);
    assert_exited_and_restored(&t);
    let sessions = saved_sessions(t.dir.path());
    let turn = &sessions[0]["turns"][0];
    assert_eq!(turn["from_checkpoint_id"], "ckpt-00000000feedbeef");
    assert_eq!(sessions[0]["chat_id"], "chat-from-elsewhere");
}

#[test]
fn open_of_an_unknown_session_fails_before_touching_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["open", "20990101-000000-dead"])
        .env("XDG_DATA_HOME", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing written to the terminal");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no saved session") && stderr.contains("research-tui sessions"),
        "{stderr}"
    );
}

#[test]
fn r_after_a_cut_asks_the_same_question_again_as_a_new_turn() {
    let t = Tmux::start(
        80,
        24,
        &["--demo", "--demo-speed", "8", "--demo-fault", "cut"],
    );
    let screen = t.wait_for("the cut", Duration::from_secs(60), |s| {
        status_line(s).contains("cut")
    });
    assert!(status_line(&screen).contains("r retry"), "{screen}");
    assert!(
        status_line(&screen).contains("kept what arrived"),
        "{screen}"
    );
    t.send(&["Escape", "r"]);
    t.wait_for("the retry, cut again", Duration::from_secs(60), |s| {
        status_line(s).contains("turn 2/2") && status_line(s).contains("cut")
    });
    t.send(&["Escape", "q"]);
    assert_exited_and_restored(&t);
    let sessions = saved_sessions(t.dir.path());
    let turns = sessions[0]["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0]["question"], turns[1]["question"]);
    assert_eq!(
        turns[0]["from_checkpoint_id"],
        turns[1]["from_checkpoint_id"]
    );
    assert!(turns.iter().all(|t| t["status"] == "cut"));
}

#[test]
fn retries_before_the_stream_show_in_the_status_bar() {
    let t = Tmux::start(140, 42, &["--demo", "--demo-fault", "status=503"]);
    let screen = t.wait_for("retrying", Duration::from_secs(10), |s| {
        status_line(s).contains("retrying in")
    });
    assert!(
        status_line(&screen).contains("(try 2/3): HTTP 503"),
        "{screen}"
    );
    t.wait_for("the error", Duration::from_secs(20), |s| {
        status_line(s).contains("error") && status_line(s).contains("r retry")
    });
    t.send(&["Escape", "q"]);
    assert_exited_and_restored(&t);
}

#[test]
fn the_xai_demo_shows_its_markers_and_sources() {
    let t = Tmux::start(
        140,
        42,
        &["--provider", "xai", "--demo", "--demo-speed", "8"],
    );
    let screen = t.wait_for("the answer to complete", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    assert!(screen.contains("Sources 12"), "{screen}");
    assert!(screen.contains("[1] global.toyota"), "{screen}");
    let answer: String = screen
        .lines()
        .map(|l| l.chars().skip(39).take(66).collect::<String>())
        .collect();
    assert!(
        answer.contains("[9][2]") || answer.contains("[1]"),
        "markers in the answer:\n{screen}"
    );
    assert!(!screen.contains("]]("), "provider links hidden:\n{screen}");
    t.send(&["Escape", "q"]);
    assert_exited_and_restored(&t);
    let sessions = saved_sessions(t.dir.path());
    assert_eq!(sessions[0]["provider"], "xai");
}

/// The prompt box's text rows (inside its border), trimmed.
fn prompt_rows(screen: &str) -> Vec<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let Some(top) = lines.iter().rposition(|l| l.contains(" Ask ")) else {
        return Vec::new();
    };
    lines[top + 1..]
        .iter()
        .take_while(|l| !l.starts_with('┗') && !l.starts_with('╰'))
        .map(|l| {
            l.trim_matches(|c| c == '┃' || c == '│' || c == ' ')
                .to_owned()
        })
        .collect()
}

#[test]
fn a_question_typed_without_pressing_i_is_typed_and_nothing_runs() {
    let t = Tmux::start(140, 42, &["--demo", "--demo-speed", "8"]);
    t.wait_for("the answer to complete", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    // Every letter of it is a command in a pane: q quits, e exports, s lists sessions, o opens.
    let question = "quarterly results? What about last quarter, so export it";
    t.send(&[question]);
    let screen = t.wait_for("the typed question", Duration::from_secs(5), |s| {
        prompt_rows(s).concat().contains("export it")
    });
    assert!(t.still_running(), "nothing quit:\n{screen}");
    assert!(
        t.files_named("research-tui-export-").is_empty(),
        "no export"
    );
    assert!(!screen.contains("Saved sessions"), "no popup:\n{screen}");
    assert!(status_line(&screen).contains("TYPE"), "{screen}");
    // While a stream runs, from a pane: a q asks first, and typing on keeps it.
    t.send(&["Enter"]);
    t.wait_for("the follow-up streaming", Duration::from_secs(30), |s| {
        status_line(s).contains("streaming") || status_line(s).contains("connecting")
    });
    t.send(&["Escape", "q"]);
    t.wait_for("the question", Duration::from_secs(5), |s| {
        status_line(s).contains("q again quits")
    });
    t.send(&["uarterly"]);
    let screen = t.wait_for("quarterly in the prompt", Duration::from_secs(5), |s| {
        prompt_rows(s).first().is_some_and(|r| r == "quarterly")
    });
    assert!(t.still_running(), "{screen}");
    t.send(&["C-c", "C-c"]);
    assert_exited_and_restored(&t);
}

#[test]
fn a_pasted_multi_line_question_keeps_its_lines() {
    let t = Tmux::start(140, 42, &["--demo", "--demo-speed", "8"]);
    t.wait_for("the answer to complete", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    t.paste("Compare two things:\n1. margins\n2. guidance");
    let screen = t.wait_for("three lines in the prompt", Duration::from_secs(5), |s| {
        prompt_rows(s) == ["Compare two things:", "1. margins", "2. guidance"]
    });
    assert!(t.still_running(), "{screen}");
    t.send(&["Enter"]);
    let screen = t.wait_for("the echoed question", Duration::from_secs(30), |s| {
        s.contains("▍     2. guidance")
    });
    assert!(screen.contains("▍You: Compare two things:"), "{screen}");
    assert!(screen.contains("▍     1. margins"), "{screen}");
    t.send(&["C-c", "C-c"]);
    assert_exited_and_restored(&t);
}

/// Run the binary with `args` (no terminal); its output.
fn run_plain(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(BIN);
    command.args(args).env_remove("BIGDATA_API_KEY");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

#[test]
fn a_missing_replay_file_is_one_plain_line_and_exit_code_1() {
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().display().to_string();
    let env = [
        ("RUST_BACKTRACE", "1"),
        ("XDG_CACHE_HOME", cache_dir.as_str()),
    ];
    let out = run_plain(&["replay", "nope.sse"], &env);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "the terminal is left alone");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        "research-tui: cannot read nope.sse: No such file or directory\n"
    );
    // Where it happened: in the log file, and on stderr only with --debug.
    let log = std::fs::read_to_string(cache.path().join("research-tui/research-tui.log")).unwrap();
    assert!(log.contains("failed: cannot read nope.sse"), "{log}");
    assert!(log.contains("src/tui/"), "{log}");
    let out = run_plain(&["replay", "nope.sse", "--debug"], &env);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.lines().count() == 2 && stderr.contains("src/tui/"),
        "{stderr}"
    );
}

#[test]
fn o_opens_with_browser_and_with_nothing_to_open_shows_and_copies_the_url() {
    let dir = tempfile::tempdir().unwrap();
    let opened = dir.path().join("opened.txt");
    let script = dir.path().join("fake-browser");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho \"$1\" > '{}'\n", opened.display()),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let browser = format!("BROWSER={}", script.display());
    let t = Tmux::start_with_env(140, 42, &[&browser], &["--demo", "--demo-speed", "8"]);
    t.wait_for("the answer", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    t.send(&["Escape", "c", "j", "o"]);
    t.wait_for("the opener", Duration::from_secs(5), |s| {
        status_line(s).contains("opening https://www.reuters.com")
    });
    let start = Instant::now();
    while !opened.exists() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let url = std::fs::read_to_string(&opened).unwrap();
    assert!(
        url.starts_with("https://www.reuters.com/technology/"),
        "{url}"
    );
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);

    // No $BROWSER and no opener on PATH: the URL is shown and copied.
    let t = Tmux::start_with_env(
        200,
        42,
        &["BROWSER=", "PATH=/nonexistent"],
        &["--demo", "--demo-speed", "8"],
    );
    t.wait_for("the answer", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    t.send(&["Escape", "c", "j", "o"]);
    let screen = t.wait_for("the URL shown", Duration::from_secs(5), |s| {
        status_line(s).contains("copied the URL: https://www.reuters.com/")
    });
    assert!(
        status_line(&screen).contains("no browser found to open it (set $BROWSER)"),
        "{screen}"
    );
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

#[test]
fn resume_of_an_unknown_checkpoint_says_no_saved_session_knows_it() {
    let t = Tmux::start(200, 30, &["--demo", "--resume", "ckpt-doesnotexist"]);
    let screen = t.wait_for("the notice", Duration::from_secs(5), |s| {
        status_line(s).contains("no saved session knows checkpoint ckpt-doesnotexist")
    });
    assert!(
        status_line(&screen).contains("the first question will be sent with it"),
        "{screen}"
    );
    assert!(
        screen.contains("No saved session knows checkpoint ckpt-doesnotexist."),
        "the answer pane says it too:\n{screen}"
    );
    t.send(&["C-c"]);
    assert_exited_and_restored(&t);
}

/// Whether the screen (with its escape sequences) holds 24-bit colors.
fn has_24_bit_color(t: &Tmux) -> bool {
    let out = t.tmux(&["capture-pane", "-p", "-e", "-t", &t.session]);
    let screen = String::from_utf8_lossy(&out.stdout);
    screen.contains("38;2;") || screen.contains("48;2;")
}

#[test]
fn only_a_terminal_that_announces_it_gets_24_bit_color() {
    for (term, colorterm, truecolor) in [
        ("TERM=xterm", "COLORTERM=", false),
        ("TERM=xterm-256color", "COLORTERM=", false),
        ("TERM=xterm-256color", "COLORTERM=truecolor", true),
    ] {
        let t = Tmux::start_with_env(
            120,
            30,
            &[term, colorterm],
            &["--demo", "--demo-speed", "8"],
        );
        t.wait_for("the app", Duration::from_secs(30), |s| {
            status_line(s).contains("DEMO")
        });
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(has_24_bit_color(&t), truecolor, "{term} {colorterm}");
        t.send(&["C-c", "C-c"]);
        assert_exited_and_restored(&t);
    }
}

impl Tmux {
    /// A mouse event as the terminal sends it (SGR, 1-based cells): `button` 0 is a left press,
    /// 64/65 the wheel up/down.
    fn mouse(&self, button: u8, x: u16, y: u16) {
        let press = format!("\x1b[<{button};{};{}M", x + 1, y + 1);
        let mut sequences = vec![press];
        if button == 0 {
            sequences.push(format!("\x1b[<0;{};{}m", x + 1, y + 1));
        }
        for sequence in sequences {
            let hex: Vec<String> = sequence.bytes().map(|b| format!("{b:02x}")).collect();
            let mut args = vec!["send-keys", "-t", &self.session, "-H"];
            args.extend(hex.iter().map(String::as_str));
            self.tmux(&args);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Where `text` starts on `screen` (0-based cell).
fn cell_of(screen: &str, text: &str) -> (u16, u16) {
    screen
        .lines()
        .enumerate()
        .find_map(|(y, line)| {
            let at = line.find(text)?;
            Some((line[..at].chars().count() as u16, y as u16))
        })
        .unwrap_or_else(|| panic!("{text:?} on screen:\n{screen}"))
}

#[test]
fn the_mouse_clicks_sources_and_markers_and_scrolls_the_pane_under_it() {
    let t = Tmux::start(140, 42, &["--demo", "--demo-speed", "8"]);
    let screen = t.wait_for("the answer", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    // A click on a source picks it (the marker and the bar), a second one opens its detail.
    let (x, y) = cell_of(&screen, "[3] SEC EDGAR");
    t.mouse(0, x, y);
    t.wait_for("the picked source", Duration::from_secs(5), |s| {
        s.contains("▶ [3] SEC EDGAR") && status_line(s).contains("BROWSE")
    });
    t.mouse(0, x, y);
    t.wait_for("its detail", Duration::from_secs(5), |s| {
        s.contains("Publisher  SEC EDGAR")
    });
    t.mouse(0, 1, 1);
    let screen = t.wait_for("the popup closed", Duration::from_secs(5), |s| {
        !s.contains("Publisher  SEC EDGAR")
    });
    // The wheel over the answer scrolls it up, away from the bottom.
    let (x, y) = cell_of(&screen, "hyperscaler capex.");
    for _ in 0..10 {
        t.mouse(64, x, y);
    }
    let screen = t.wait_for("scrolled up", Duration::from_secs(5), |s| {
        s.contains("↓ more · G follows")
    });
    // A click on a citation marker picks its source.
    let (x, y) = cell_of(&screen, "billion[3];");
    t.mouse(0, x + "billion[".len() as u16, y);
    t.wait_for("source 3 picked", Duration::from_secs(5), |s| {
        s.contains("▶ [3] SEC EDGAR") && status_line(s).contains("source [3] selected")
    });
    // `m` leaves the mouse to the terminal.
    t.send(&["m"]);
    t.wait_for("mouse off", Duration::from_secs(5), |s| {
        status_line(s).contains("mouse off")
    });
    t.send(&["q"]);
    assert_exited_and_restored(&t);
}

#[test]
fn ask_on_a_terminal_renders_the_markdown() {
    let t = Tmux::start(
        100,
        50,
        &[
            "ask",
            "--demo",
            "--demo-speed",
            "200",
            "What did NVIDIA report?",
        ],
    );
    assert_eq!(t.wait_exit(Duration::from_secs(30)), "0");
    t.wait_for("the shell", Duration::from_secs(5), |s| {
        s.contains("the app exited")
    });
    let out = t.tmux(&["capture-pane", "-p", "-S", "-400", "-t", &t.session]);
    let text = String::from_utf8_lossy(&out.stdout);
    let answer = text.split("\nSources\n").next().unwrap();
    for raw in ["## ", "**", "|---", "| Segment"] {
        assert!(!answer.contains(raw), "{raw:?} in\n{text}");
    }
    assert!(
        answer.contains("Segment                    │ Q1 FY27"),
        "{text}"
    );
    assert!(answer.contains("• Compute revenue"), "{text}");
    assert!(text.contains("\nSources\n  [1] NVIDIA Newsroom"), "{text}");
}
