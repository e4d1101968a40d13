//! End to end: the real binary in a detached tmux session (its own tmux server), driven with
//! `send-keys` and read with `capture-pane`. Fails when tmux is not installed.

use std::process::Command;
use std::time::Duration;

use crate::support;

use support::tmux::*;

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
    t.send(&["o", "Enter"]);
    // There may be no browser here: then the URL is shown and copied.
    t.wait_for("the opener", Duration::from_secs(5), |s| {
        let line = status_line(s);
        line.contains("opening https://www.reuters.com")
            || line.contains("copied the URL: https://www.reuters.com")
    });
    // Export the conversation: into the current directory, path in the status bar.
    // The file is the signal: the opener's own late message ("… copied the URL") may replace
    // the "exported to" line in the status bar.
    t.send(&["e", "Enter"]);
    let mut exports = Vec::new();
    support::wait_until("the export file", Duration::from_secs(10), || {
        exports = t.files_named("research-tui-export-");
        !exports.is_empty()
    });
    let export = exports.pop().expect("an export file");
    // Written in one go after the file is created: read it once it stops growing.
    let mut text = String::new();
    support::wait_until("the whole export", Duration::from_secs(10), || {
        let now = std::fs::read_to_string(&export).unwrap_or_default();
        let settled = !now.is_empty() && now == text;
        text = now;
        settled
    });
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
    t.send(&["Escape", "q", "q"]);
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
    t.send(&["Escape", "q", "q"]);
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
    // The demo agent on its own port plays the part of the real service.
    let (mut server, line) = support::spawn_announcing(
        support::cli(support::scratch()).args(["serve", "--port", "0", "--speed", "6"]),
    );
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
    t.send(&["Escape", "q", "q"]);
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
    let out = support::cli(data)
        .args(["ask", "--demo", "--demo-speed", "200", question])
        .env("XDG_DATA_HOME", data)
        .env("XDG_CONFIG_HOME", data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    saved_sessions(data)[0]["id"].as_str().unwrap().to_owned()
}

fn saved_sessions(data: &std::path::Path) -> Vec<serde_json::Value> {
    let out = support::cli(data)
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
    t.send(&["Escape", "q", "q"]);
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
    // A unique prefix is enough, as for git's hashes.
    let prefix = &checkpoint[..checkpoint.len() - 4];
    let t = Tmux::start_with_env(80, 24, &[&env], &["--resume", prefix, "--demo"]);
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
    t.send(&["Escape", "q", "q"]);
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
    t.send(&["Escape", "q", "q"]);
    assert_exited_and_restored(&t);
    let sessions = saved_sessions(t.dir.path());
    let turn = &sessions[0]["turns"][0];
    assert_eq!(turn["from_checkpoint_id"], "ckpt-00000000feedbeef");
    assert_eq!(sessions[0]["chat_id"], "chat-from-elsewhere");
}

#[test]
fn open_of_an_unknown_session_fails_before_touching_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let out = support::cli(dir.path())
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
    assert!(status_line(&screen).contains("r⏎ retry"), "{screen}");
    assert!(
        status_line(&screen).contains("kept what arrived"),
        "{screen}"
    );
    t.send(&["Escape", "r", "Enter"]);
    t.wait_for("the retry, cut again", Duration::from_secs(60), |s| {
        status_line(s).contains("turn 2/2") && status_line(s).contains("cut")
    });
    t.send(&["Escape", "q", "q"]);
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
        status_line(s).contains("error") && status_line(s).contains("r⏎ retry")
    });
    t.send(&["Escape", "q", "q"]);
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
    t.send(&["Escape", "q", "q"]);
    assert_exited_and_restored(&t);
    let sessions = saved_sessions(t.dir.path());
    assert_eq!(sessions[0]["provider"], "xai");
}

#[test]
fn open_takes_a_unique_prefix_of_an_id_and_names_the_matches_of_an_ambiguous_one() {
    let data = tempfile::tempdir().unwrap();
    let first = ask_demo(data.path(), "What did NVIDIA report?");
    ask_demo(data.path(), "And AMD?");
    let ids: Vec<String> = saved_sessions(data.path())
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect();
    let other = ids.iter().find(|id| **id != first).unwrap();
    let shared = first
        .chars()
        .zip(other.chars())
        .take_while(|(a, b)| a == b)
        .count();

    // Before the terminal is touched, an ambiguous prefix names both sessions.
    let ambiguous = support::cli(data.path())
        .args(["open", &first[..shared]])
        .env("XDG_DATA_HOME", data.path())
        .output()
        .unwrap();
    assert_eq!(ambiguous.status.code(), Some(1));
    assert!(
        ambiguous.stdout.is_empty(),
        "nothing written to the terminal"
    );
    let stderr = String::from_utf8_lossy(&ambiguous.stderr);
    assert!(stderr.contains("is ambiguous: it starts"), "{stderr}");
    assert!(
        stderr.contains(&first) && stderr.contains(other.as_str()),
        "{stderr}"
    );

    // One character more names the first session alone: it opens.
    let env = format!("XDG_DATA_HOME={}", data.path().display());
    let t = Tmux::start_with_env(140, 42, &[&env], &["open", &first[..shared + 1]]);
    t.wait_for("the saved session", Duration::from_secs(5), |s| {
        status_line(s).contains("opened a saved session")
    });
    // The ids popup names the session opened: the first one, whole.
    t.send(&["Escape", "I"]);
    t.wait_for("the ids popup", Duration::from_secs(5), |s| {
        s.contains(&first)
    });
    t.send(&["Escape", "q", "q"]);
    assert_exited_and_restored(&t);
}

#[test]
fn replay_of_a_file_without_events_fails_like_render_before_the_app_starts() {
    let readme = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let empty = tempfile::NamedTempFile::new().unwrap();
    for path in [readme.as_path(), empty.path()] {
        let t = Tmux::start(100, 30, &["replay", path.to_str().unwrap()]);
        assert_eq!(t.wait_exit(Duration::from_secs(10)), "1");
        let screen = t.wait_for("the shell", Duration::from_secs(5), |s| {
            s.contains("the app exited")
        });
        assert!(
            screen.contains("no events found in"),
            "one line says why:\n{screen}"
        );
        assert!(
            !screen.contains("Answer"),
            "the app never started:\n{screen}"
        );
    }
}
