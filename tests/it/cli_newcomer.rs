//! A newcomer's command-line findings (round w12), each checked on the real binary: the app's
//! `--base-url` without a key, errors in Markdown, `ask -`, a broken config file, flag checks
//! made before anything is sent.

use std::process::{Child, Stdio};
use std::time::Duration;

use crate::support::{self, tmux::Tmux};

/// `research-tui serve --port 0` (the demo agent as a separate process) and its base URL; killed
/// when the guard drops.
struct Served(Child, String);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `research-tui serve` playing at `speed` times the recordings' pace.
fn serve(speed: &str) -> Served {
    serve_with(&["--speed", speed])
}

/// `research-tui serve --port 0 ARGS`.
fn serve_with(args: &[&str]) -> Served {
    let (child, line) = support::spawn_announcing(
        support::cli(support::scratch())
            .args(["serve", "--port", "0"])
            .args(args),
    );
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("the server prints its address")
        .trim_end_matches('/')
        .to_owned();
    Served(child, url)
}

/// The request bodies the demo agent at `base` received.
fn received(base: &str) -> Vec<serde_json::Value> {
    let out = std::process::Command::new("curl")
        .args(["-s", &format!("{base}/_demo/requests")])
        .output()
        .expect("curl runs");
    serde_json::from_slice(&out.stdout).expect("the demo agent lists its requests")
}

fn asked_there(base: &str, question: &str) -> bool {
    received(base)
        .iter()
        .any(|r| r["body"]["message"].as_str() == Some(question))
}

#[test]
fn the_app_without_a_key_asks_the_agent_base_url_names_not_the_built_in_demo() {
    let served = serve("50");
    for demo in [false, true] {
        let question = format!("Who answers this (demo flag {demo})?");
        let mut args = vec!["--base-url", &served.1, "--question", &question];
        if demo {
            args.push("--demo");
        }
        args.extend(["--exit-when-done", "--demo-speed", "50"]);
        let t = Tmux::start(140, 42, &args);
        let status = t.wait_exit(Duration::from_secs(60));
        assert_eq!(status, "0", "{}", t.capture());
        assert!(
            asked_there(&served.1, &question),
            "the agent at --base-url got the question (--demo: {demo}): {:?}",
            received(&served.1)
        );
    }
}

#[test]
fn the_app_refuses_a_remote_base_url_without_a_key_instead_of_showing_the_demo() {
    let out = support::cli(support::scratch())
        .args(["--base-url", "https://agents.example.com"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no API key for --base-url https://agents.example.com"),
        "{err}"
    );
    assert!(err.contains("BIGDATA_API_KEY"), "{err}");
}

fn render_markdown(file: &str) -> std::process::Output {
    support::cli(support::scratch())
        .args(["render", file, "--format", "markdown"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

#[test]
fn render_markdown_says_the_turn_ended_in_an_error_with_its_tool_errors() {
    let out = render_markdown("tests/fixtures/workflow-error.sse");
    let md = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        md.contains("\n> **Error:** Request failed: model capacity exhausted\n"),
        "{md}"
    );
    assert!(
        md.contains(
            "**Tool errors**\n\n- `get_earnings_calendar`: Upstream calendar service timed out"
        ),
        "{md}"
    );
    assert!(
        err.contains(
            "the agent's turn ended in an error: Request failed: model capacity exhausted"
        ),
        "{err}"
    );
    // The file was read and rendered: the turn's outcome is data, as docs/commands.md says.
    assert_eq!(out.status.code(), Some(0));

    let out = render_markdown("tests/fixtures/real/zeta-replay-errored.sse");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        md.contains("\n> **Error:** the stream ended with status"),
        "{md}"
    );
}

#[test]
fn ask_markdown_says_the_agents_error_sanitised_and_exits_4() {
    let fixture = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/workflow-error.sse"),
    )
    .unwrap();
    // The agent's error carries an escape sequence and Markdown of its own.
    let hostile = String::from_utf8(fixture).unwrap().replace(
        "model capacity exhausted",
        "model \\u001b[31mcapacity* [exhausted](x)",
    );
    let base = crate::large_streams::streams::serve_event_stream(move |socket| {
        use std::io::Write;
        let _ = socket.write_all(hostile.as_bytes());
    });
    let out = support::cli(support::scratch())
        .args([
            "ask",
            "Is there capacity?",
            "--base-url",
            &base,
            "--format",
            "markdown",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{md}");
    assert!(
        md.contains(
            "> **Error:** Request failed: model \u{fffd}\\[31mcapacity\\* \\[exhausted\\](x)"
        ),
        "{md}"
    );
    assert!(!md.contains('\u{1b}'));
}

/// `research-tui proxy --port 0` with Bigdata.com's requests sent to `upstream`, saving under
/// `home`; its base URL. Killed when the guard drops.
fn proxy(home: &std::path::Path, upstream: &str) -> Served {
    let (child, line) = support::spawn_announcing(
        support::cli(home)
            .args(["proxy", "--port", "0", "--upstream"])
            .arg(format!("bigdata={upstream}")),
    );
    let url = line
        .trim()
        .strip_prefix("research-tui proxy listening on ")
        .unwrap_or_else(|| panic!("the proxy says where it listens: {line:?}"))
        .to_owned();
    Served(child, url)
}

#[test]
fn a_proxied_request_that_could_not_be_read_keeps_its_question_unknown_and_is_not_retried() {
    let home = tempfile::tempdir().unwrap();
    let served = serve("50");
    let proxied = proxy(home.path(), &served.1);
    let out = std::process::Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-XPOST"])
        .args(["-H", "content-type: application/json", "-d", "{\"bad\":1}"])
        .arg(format!("{}/bigdata/v1/research-agent", proxied.1))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "422");
    let sessions = home.path().join("data/research-tui/sessions");
    let mut meta = None;
    support::wait_until("the proxy saved the turn", Duration::from_secs(10), || {
        meta = std::fs::read_dir(&sessions)
            .ok()
            .and_then(|mut dirs| dirs.next())
            .and_then(|dir| std::fs::read(dir.ok()?.path().join("meta.json")).ok())
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .filter(|meta| meta["turns"][0]["ended_at"].is_string());
        meta.is_some()
    });
    let meta = meta.unwrap();
    // Unknown: empty, as a question-less turn's is (the field stays a string), the request kept.
    assert_eq!(meta["turns"][0]["question"], "", "{meta}");
    assert!(meta["turns"][0]["request"].is_object(), "{meta}");
    let id = meta["id"].as_str().unwrap().to_owned();
    let asked_before = received(&served.1).len();

    let env = support::Home::new(home.path()).env_entries();
    let env: Vec<&str> = env.iter().map(String::as_str).collect();
    let t = Tmux::start_with_env(140, 42, &env, &["open", &id, "--demo-speed", "50"]);
    t.wait_for("the saved turn", Duration::from_secs(10), |s| {
        s.contains("▍You: (a request research-tui could not read)")
    });
    t.send(&["Escape", "r", "Enter"]);
    let screen = t.wait_for("the refusal", Duration::from_secs(10), |s| {
        s.contains("turn 1 has no question to ask again: its request could not be read")
    });
    assert!(!screen.contains("turn 2"), "{screen}");
    t.send(&["q", "q"]);
    t.wait_exit(Duration::from_secs(10));
    assert_eq!(received(&served.1).len(), asked_before, "nothing was sent");
    let after: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sessions.join(&id).join("meta.json")).unwrap())
            .unwrap();
    assert_eq!(after["turns"].as_array().unwrap().len(), 1, "{after}");
}

/// `ask ARGS` against the agent at `base`, `stdin` piped in.
fn ask_with_stdin(base: &str, args: &[&str], stdin: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = support::cli(support::scratch())
        .arg("ask")
        .args(args)
        .args(["--base-url", base, "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn ask_dash_reads_the_question_from_stdin_and_refuses_an_empty_one() {
    let served = serve("50");
    let out = ask_with_stdin(&served.1, &["-"], "  What drove margins, from stdin?\n\n");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        asked_there(&served.1, "What drove margins, from stdin?"),
        "{:?}",
        received(&served.1)
    );
    assert!(!asked_there(&served.1, "-"));

    let asked = received(&served.1).len();
    let out = ask_with_stdin(&served.1, &["-"], " \n\t\n");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("standard input held no question"), "{err}");
    assert_eq!(received(&served.1).len(), asked, "nothing was sent");
}

#[test]
fn a_broken_config_file_stops_every_command_that_reads_it_with_the_same_line_and_position() {
    let home = tempfile::tempdir().unwrap();
    let dir = support::Home::new(home.path())
        .config()
        .join("research-tui");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("config.toml");
    std::fs::write(
        &path,
        "api_key = \"sk-held-in-a-broken-file\"\nchar ts = true\n",
    )
    .unwrap();
    let expected = format!(
        "research-tui: cannot read {}: invalid TOML at line 2, column 6: fix it, or move it aside \
         to use the defaults\n",
        path.display()
    );
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/workflow-error.sse"
    );
    let commands: [&[&str]; 6] = [
        &[],
        &["--demo"],
        &["ask", "What changed?", "--demo"],
        &["ask", "What changed?"],
        &["open", "20260101"],
        &["replay", fixture],
    ];
    for args in commands {
        let out = support::cli(home.path())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err, expected, "{args:?}");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
    }
    // A command that never reads the file is not stopped by it.
    let out = support::cli(home.path())
        .args(["render", fixture, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_bogus_time_range_is_a_usage_error_listing_every_value_and_nothing_is_sent() {
    let served = serve("50");
    let out = support::cli(support::scratch())
        .args([
            "ask",
            "",
            "--workflow",
            "earnings-brief",
            "--time-range",
            "bogus",
        ])
        .args(["--base-url", &served.1])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid value 'bogus' for '--time-range"),
        "{err}"
    );
    let help = support::cli(support::scratch())
        .args(["ask", "-h"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for range in research_tui::wire::provider::bigdata::request::TIME_RANGES {
        assert!(err.contains(range), "{range} in {err}");
        assert!(help.contains(range), "{range} in {help}");
    }
    assert!(received(&served.1).is_empty(), "nothing was sent");
}

#[test]
fn retrying_a_cancelled_first_turn_keeps_its_chat() {
    let served = serve("4");
    let t = cancel_and_retry(&served, &[], "chat-");
    let requests = received(&served.1);
    assert_eq!(requests.len(), 2, "{requests:?}");
    let retried = requests[1]["body"]["chat_id"]
        .as_str()
        .unwrap_or_else(|| panic!("the retry names the chat: {requests:?}"))
        .to_owned();
    assert_eq!(requests[1]["body"]["message"], RETRIED);
    let sessions = t.dir.path().join("research-tui/sessions");
    let session = std::fs::read_dir(&sessions)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(session.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["chat_id"], retried.as_str(), "{meta}");
    let first = std::fs::read_to_string(session.join("turn-001.sse")).unwrap();
    assert!(
        first.contains(&retried),
        "the chat the first turn was given"
    );
}

/// The question whose first turn is cancelled, then retried.
const RETRIED: &str = "Break down NVIDIA's latest quarter, then retry it";

/// The app asks `served` (with `args`) [`RETRIED`], is cancelled once the status bar shows the
/// agent's id (`id`), retried with `r` Enter, and quits once the retry completed.
fn cancel_and_retry(served: &Served, args: &[&str], id: &str) -> Tmux {
    let mut all = args.to_vec();
    all.extend(["--base-url", &served.1, "--question", RETRIED]);
    let t = Tmux::start(140, 42, &all);
    t.wait_for("the agent's id", Duration::from_secs(20), |s| {
        crate::support::tmux::status_line(s).contains(id)
    });
    t.send(&["C-c"]);
    t.wait_for("the cancel", Duration::from_secs(10), |s| {
        crate::support::tmux::status_line(s).contains("cancelled")
    });
    t.send(&["Escape", "r", "Enter"]);
    t.wait_for("the retry's answer", Duration::from_secs(60), |s| {
        s.contains("turn 2") && crate::support::tmux::status_line(s).contains("complete")
    });
    t.send(&["Escape", "q", "q"]);
    t.wait_exit(Duration::from_secs(10));
    t
}

/// Where a response id continues the conversation (OpenAI), retrying a cancelled first turn asks
/// it anew: sending the cancelled response's id would make the retry a follow-up of it.
#[test]
fn retrying_a_cancelled_first_openai_turn_is_not_a_follow_up_of_it() {
    let served = serve("4");
    cancel_and_retry(&served, &["--provider", "openai"], "resp");
    let requests = received(&served.1);
    let retry = requests.last().unwrap();
    assert!(
        retry["body"]["previous_response_id"].is_null(),
        "{requests:?}"
    );
}

/// The binary run with `args` and no terminal: its exit code and stderr.
fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = support::cli(support::scratch())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn usage_and_start_up_errors_say_what_to_do_in_plain_words() {
    let (code, err) = run(&["compare"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("compare agents with --provider a,b"), "{err}");
    assert!(!err.contains("completions"), "{err}");

    let (code, err) = run(&["ask", "q", "--demo", "--provider", "bigdata,"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("an empty provider name in --provider's list"),
        "{err}"
    );

    let (code, err) = run(&["ask", "q", "--demo", "--idle-timeout", "0"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("it must be at least 1 second"), "{err}");
    assert!(!err.contains("18446744073709551615"), "{err}");

    let (code, err) = run(&["ask", "q", "--demo", "--otlp-endpoint", "notaurl"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--otlp-endpoint is not a URL"), "{err}");
    assert!(!err.contains("(an endpoint that is not a URL)"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let (code, err) = run(&["render", dir.path().to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("is a directory: give a recording"), "{err}");
    assert!(!err.contains("os error"), "{err}");

    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port().to_string();
    let (code, err) = run(&["proxy", "--port", &port]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains(&format!("port {port} is already in use")) && err.contains("--port 0"),
        "{err}"
    );
}

#[test]
fn a_cut_stream_is_said_in_our_words_not_hypers() {
    let served = serve_with(&["--fault", "cut"]);
    let (code, err) = run(&["ask", "What did NVIDIA report?", "--base-url", &served.1]);
    assert_eq!(code, Some(5), "{err}");
    assert!(
        err.contains("the agent's stream stopped mid-transfer (the connection closed)"),
        "{err}"
    );
    assert!(!err.contains("chunk size line"), "{err}");
}

#[cfg(unix)]
#[test]
fn without_a_terminal_the_app_says_ask_works_without_one() {
    use std::os::unix::process::CommandExt;
    let mut command = support::cli(support::scratch());
    command.args(["--demo"]).stdin(Stdio::null());
    // SAFETY: `setsid` is async-signal-safe; it detaches the child from the tests' terminal.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let out = command.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`research-tui ask` works without"), "{err}");
    assert!(!err.contains("No such device or address"), "{err}");
}

#[test]
fn usage_lines_show_each_way_to_call_sessions_and_help_sets_the_global_options_apart() {
    let (code, err) = run(&["sessions", "--json", "--delete", "X"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("research-tui sessions --delete <ID>..."),
        "{err}"
    );
    assert!(!err.contains("sessions --json <ID>..."), "{err}");
    let (code, err) = run(&["sessions", "--search", "T", "--json", "ID"]);
    assert_eq!(code, Some(2));
    assert!(!err.contains("--search <TEXT> --json [ID]..."), "{err}");

    let help = support::cli(support::scratch())
        .args(["ask", "-h"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let (own, global) = help.split_once("\nGlobal options:\n").expect(&help);
    for flag in ["--theme", "--debug"] {
        assert!(global.contains(flag) && !own.contains(flag), "{help}");
    }
    assert!(own.contains("--time-range") && !global.contains("--time-range"));
}

#[test]
fn on_a_terminal_sources_and_tool_data_wrap_at_words_with_urls_whole() {
    let recording = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/recordings/bigdata/earnings-deep-dive.sse"
    );
    let t = Tmux::start(60, 300, &["render", recording, "--format", "text"]);
    t.wait_exit(Duration::from_secs(20));
    let screen = t.wait_for("the sources", Duration::from_secs(5), |s| {
        s.contains("the app exited")
    });
    let lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
    for expected in [
        "  [1] NVIDIA Newsroom - May 27, 2026 — NVIDIA Announces",
        "      Financial Results for First Quarter Fiscal 2027",
        "  - python_code_execution (audit-dd601c3f): “Data Center is",
        "    now more than nine-tenths of the business.”",
    ] {
        assert!(lines.contains(&expected), "{expected:?} in\n{screen}");
    }
    // A URL longer than the line starts a line of its own (the terminal folds it, whole).
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("      https://nvidianews.nvidia.com/news/")),
        "{screen}"
    );
}

/// A workflow run without a note has an empty question: `sessions --json` keeps it a string (a
/// field whose type scripts rely on), and the app shows no placeholder for it — only a proxied
/// request that could not be read is "unknown".
#[test]
fn a_workflow_turns_empty_question_stays_an_empty_string() {
    let home = tempfile::tempdir().unwrap();
    ask_demo(home.path(), &["", "--workflow", "wf-1"]);
    let listed = support::cli(home.path())
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    let row: serde_json::Value = serde_json::from_str(listed.lines().next().unwrap()).unwrap();
    assert_eq!(row["turns"][0]["question"], "", "{listed}");
}

/// `--demo --base-url URL` opening a saved live session (`--chat-id`) answers its follow-up with a
/// demo agent: the key in the environment never goes to the provider's URL (the branch that made
/// `--base-url` work without a key turned `--demo` off here, and the follow-up went live, key and
/// all).
#[test]
fn demo_with_a_base_url_never_sends_a_saved_live_sessions_follow_up_with_the_key() {
    let home = tempfile::tempdir().unwrap();
    ask_demo(home.path(), &["What did NVIDIA report?"]);
    // The session as a live one recorded it.
    let sessions = home.path().join("data/research-tui/sessions");
    let dir = std::fs::read_dir(&sessions)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let path = dir.join("meta.json");
    let mut meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    meta["base_url"] = "https://agents.bigdata.com".into();
    std::fs::write(&path, serde_json::to_vec(&meta).unwrap()).unwrap();
    let chat = meta["chat_id"].as_str().unwrap().to_owned();
    // Where the live provider would be asked: any connection is the key leaving.
    let provider = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let provider_url = format!(
        "BIGDATA_AGENTS_URL=http://{}",
        provider.local_addr().unwrap()
    );
    provider.set_nonblocking(true).unwrap();
    let mut env = support::Home::new(home.path()).env_entries();
    env.push("BIGDATA_API_KEY=sk-test-never-sent".to_owned());
    env.push(provider_url);
    let env: Vec<&str> = env.iter().map(String::as_str).collect();
    let args = [
        "--demo",
        "--base-url",
        "http://127.0.0.1:1",
        "--chat-id",
        &chat,
        "--question",
        "What about margins?",
        "--demo-speed",
        "50",
    ];
    let t = Tmux::start_with_env(140, 42, &env, &args);
    let screen = t.wait_for("the follow-up answered", Duration::from_secs(30), |s| {
        s.contains("turn 2/2") && s.contains("complete")
    });
    assert!(screen.contains("DEMO"), "{screen}");
    assert!(
        provider.accept().is_err(),
        "the follow-up went to the live provider's URL"
    );
}

/// `ask ARGS --demo --format json` in `home`, which must succeed (a session saved).
fn ask_demo(home: &std::path::Path, args: &[&str]) {
    let asked = support::cli(home)
        .arg("ask")
        .args(args)
        .args(["--demo", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(asked.status.code(), Some(0), "{asked:?}");
}
