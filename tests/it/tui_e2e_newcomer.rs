//! End to end, what a newcomer meets: typing without `i`, pasting, the mouse, the errors, the colors
//! and `ask` on a terminal — the real binary in tmux (see `support::tmux`).

use std::time::{Duration, Instant};

use crate::support;

use support::tmux::*;

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
        status_line(s).contains("Enter: quit")
    });
    t.send(&["uarterly"]);
    let screen = t.wait_for("quarterly in the prompt", Duration::from_secs(5), |s| {
        prompt_rows(s).first().is_some_and(|r| r == "quarterly")
    });
    assert!(t.still_running(), "{screen}");
    // Ctrl-C cancels the answer, then clears the prompt, then quits.
    t.send(&["C-c", "C-c", "C-c"]);
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
    // With --debug: the same line, then color-eyre's whole report: each context, the cause, where.
    let out = run_plain(&["replay", "nope.sse", "--debug"], &env);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("research-tui: cannot read nope.sse: No such file or directory\n"),
        "{stderr}"
    );
    for part in [
        "0: cannot read nope.sse",
        "1: No such file or directory (os error 2)",
        "Location:",
        "src/tui/mod.rs:",
    ] {
        assert!(stderr.contains(part), "{part:?} in:\n{stderr}");
    }
}

#[test]
fn a_panic_gives_the_terminal_back_first_and_says_where_to_report_it() {
    // A debug build panics right after its first frame when asked to.
    let t = Tmux::start_with_env(
        140,
        42,
        &["RESEARCH_TUI_TEST_PANIC=1", "RUST_BACKTRACE=0"],
        &["--demo", "--demo-speed", "8"],
    );
    assert_eq!(
        t.wait_exit(Duration::from_secs(30)),
        "101",
        "a panic's exit status"
    );
    let screen = t.wait_for("the shell after the app", Duration::from_secs(5), |s| {
        s.contains("the app exited")
    });
    assert_eq!(t.pane("#{alternate_on}"), "0", "alternate screen left");
    assert_eq!(
        t.pane("#{mouse_any_flag}"),
        "0",
        "the mouse is the terminal's"
    );
    assert!(
        !screen.contains("Sources"),
        "the app's screen is gone:\n{screen}"
    );
    for part in [
        "The application panicked (crashed).",
        "RESEARCH_TUI_TEST_PANIC is set",
        "src/tui/mod.rs:",
        "Please report it",
    ] {
        assert!(screen.contains(part), "{part:?} in:\n{screen}");
    }
    // Raw mode is off: each line the shell prints after it starts at the left edge.
    assert!(
        screen.lines().any(|l| l == "the app exited"),
        "line feeds return to the first column again:\n{screen}"
    );
    let log = std::fs::read_to_string(t.dir.path().join("research-tui/research-tui.log")).unwrap();
    assert!(log.contains("panicked: The application panicked"), "{log}");
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
    t.send(&["Escape", "c", "j", "o", "Enter"]);
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
    t.send(&["Escape", "c", "j", "o", "Enter"]);
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
        // The first frame may come before the theme's colours are known: wait for a coloured one.
        t.wait_for("a coloured frame", Duration::from_secs(10), |_| {
            has_color(&t)
        });
        assert_eq!(has_24_bit_color(&t), truecolor, "{term} {colorterm}");
        t.send(&["C-c", "C-c"]);
        assert_exited_and_restored(&t);
    }
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
    t.wait_for("scrolled up", Duration::from_secs(5), |s| {
        s.contains("Answer ↓ more")
    });
    // Under load the later wheel events are still being drawn: read the marker's place once
    // the answer has stopped moving, or the click lands beside it.
    let screen = t.wait_still("the scrolling to settle", Duration::from_secs(10));
    // A click on a citation marker picks its source.
    let (x, y) = cell_of(&screen, "China[4]");
    t.mouse(0, x + "China[".len() as u16, y);
    t.wait_for("source 4 picked", Duration::from_secs(5), |s| {
        s.contains("▶ [4] Bigdata.com") && status_line(s).contains("source [4] selected")
    });
    // `m` leaves the mouse to the terminal.
    t.send(&["m", "Enter"]);
    t.wait_for("mouse off", Duration::from_secs(5), |s| {
        status_line(s).contains("mouse off")
    });
    t.send(&["q", "q"]);
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

/// Without a terminal (standard input not one, no controlling terminal to fall back on) the app
/// says so in one line and exits 1, and saves no session for a question nobody could watch.
#[test]
fn without_a_terminal_the_app_says_so_and_saves_no_session() {
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    let home = tempfile::tempdir().unwrap();
    let mut command = support::cli(home.path());
    command
        .args(["--demo", "--demo-speed", "8"])
        .stdin(Stdio::null());
    // SAFETY: `setsid` is async-signal-safe; it detaches the child from the tests' terminal.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let out = command.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("research-tui: cannot set up the terminal"),
        "{stderr}"
    );
    let listed = support::cli(home.path()).arg("sessions").output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.starts_with("No saved sessions"), "{listed}");
}

/// `sessions` in the directories the app in `t` used.
fn sessions_of(t: &Tmux) -> String {
    let output = support::cli(t.dir.path())
        .arg("sessions")
        .env("XDG_DATA_HOME", t.dir.path())
        .env("XDG_CONFIG_HOME", t.dir.path())
        .env("XDG_CACHE_HOME", t.dir.path())
        .env("XDG_STATE_HOME", t.dir.path())
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// An app started and quit with nothing asked leaves no session behind (the picker and `sessions`
/// say none); the demo's turn, played at start, is a turn and is saved.
#[test]
fn a_session_is_saved_only_once_a_question_is_sent() {
    let t = Tmux::start_with_env(
        80,
        24,
        &["BIGDATA_API_KEY=sk-never-sent"],
        &["--base-url", "http://127.0.0.1:9"],
    );
    t.wait_for("the prompt", Duration::from_secs(10), |s| {
        status_line(s).contains("ready")
    });
    t.send(&["Escape"]);
    t.wait_for("BROWSE", Duration::from_secs(5), |s| {
        status_line(s).contains("BROWSE")
    });
    t.send(&["s"]);
    t.wait_for(
        "no saved session in the picker",
        Duration::from_secs(5),
        |s| s.contains("Saved sessions (0)"),
    );
    t.send(&["Escape"]);
    t.send(&["C-c"]);
    t.wait_exit(Duration::from_secs(10));
    let listed = sessions_of(&t);
    assert!(listed.starts_with("No saved sessions"), "{listed}");

    let demo = Tmux::start(80, 24, &["--demo", "--demo-speed", "8"]);
    demo.wait_for("the demo's answer", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    demo.send(&["C-c"]);
    demo.wait_exit(Duration::from_secs(10));
    let listed = sessions_of(&demo);
    assert_eq!(
        listed.lines().count(),
        2,
        "a header and the demo's session: {listed}"
    );
    assert!(listed.contains("Break down NVIDIA"), "{listed}");
}
