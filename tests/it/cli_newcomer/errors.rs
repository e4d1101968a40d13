//! What goes wrong, said plainly: an agent's error in Markdown, a broken config file, flag checks
//! made before anything is sent, usage and start-up errors, a cut stream, the app without a terminal.

use std::process::Stdio;

use super::{received, run, serve, serve_with};
use crate::support;

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

#[test]
fn a_broken_config_file_stops_every_command_that_reads_it_with_the_same_line_and_position() {
    let home = tempfile::tempdir().unwrap();
    let path = support::Home::new(home.path())
        .write_config("api_key = \"sk-held-in-a-broken-file\"\nchar ts = true\n");
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

/// A file saved in Latin-1 is as broken as any other: line and column of its first byte that is
/// not UTF-8, in the same words (it said only "stream did not contain valid UTF-8").
#[test]
fn a_config_file_that_is_not_utf8_is_named_with_the_line_and_column_of_its_first_bad_byte() {
    let home = tempfile::tempdir().unwrap();
    let path =
        support::Home::new(home.path()).write_config(b"theme = \"dark\"\n\n# caf\xe9 au lait\n");
    let out = support::cli(home.path())
        .args(["ask", "What changed?", "--demo"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "research-tui: cannot read {}: invalid TOML at line 3, column 6: fix it, or move it \
             aside to use the defaults\n",
            path.display()
        )
    );
    assert_eq!(out.status.code(), Some(1));
}

/// An id from an unset shell variable (`--chat-id "$CHAT"`) is blank: a usage error before
/// anything is sent, not a question sent with an empty chat id ("no saved session knows chat : the
/// question is sent with it").
#[test]
fn a_blank_id_is_a_usage_error_and_nothing_is_sent() {
    let served = serve("50");
    for args in [
        &["ask", "q", "--chat-id", "", "--base-url", &served.1][..],
        &["ask", "q", "--resume", "  ", "--base-url", &served.1],
        &[
            "ask",
            "q",
            "--workflow",
            "w",
            "--execution-id",
            "",
            "--base-url",
            &served.1,
        ],
        &["open", ""],
        &["sessions", "--delete", ""],
    ] {
        let (code, err) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("the id is empty"), "{args:?}: {err}");
    }
    assert!(received(&served.1).is_empty());
}

/// A workflow from an unset shell variable (`--workflow "$TEMPLATE"`) is blank: a usage error
/// naming `--workflow` before anything is sent, not a run sent with an empty template id.
#[test]
fn a_blank_workflow_is_a_usage_error_naming_the_flag_and_nothing_is_sent() {
    let served = serve("50");
    for blank in ["", "   "] {
        let (code, err) = run(&[
            "ask",
            "a note",
            "--workflow",
            blank,
            "--base-url",
            &served.1,
        ]);
        assert_eq!(code, Some(2), "{blank:?}: {err}");
        assert!(err.contains("--workflow"), "{blank:?}: {err}");
        assert!(err.contains("the workflow is empty"), "{blank:?}: {err}");
    }
    assert!(received(&served.1).is_empty());
}

/// `replay DIR` says what `render DIR` says (it said "cannot read DIR: Is a directory"), and a
/// `--record` file that cannot be written is named as a file that cannot be read is, without the
/// system's error number.
#[test]
fn replay_of_a_directory_and_an_unwritable_record_file_are_said_in_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    let (code, err) = run(&["replay", dir.path().to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("is a directory: give a recording"), "{err}");
    let record = dir.path().join("missing/out.sse");
    let (code, err) = run(&["ask", "q", "--demo", "--record", record.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains(&format!(
            "cannot write {}: No such file or directory\n",
            record.display()
        )),
        "{err}"
    );
    assert!(!err.contains("os error"), "{err}");
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

/// The line a person reads stays ours; what the connection said (hyper's cause under reqwest's)
/// goes to the log file, and with `--debug` to stderr after the line, never with the key.
#[test]
fn a_cut_streams_whole_error_chain_is_logged_and_shown_with_debug_without_the_key() {
    const KEY: &str = "bd-secret-key-0123456789";
    let served = serve_with(&["--fault", "cut", "--speed", "20"]);
    let home = tempfile::tempdir().unwrap();
    let ask = |debug: bool| {
        let mut command = support::cli(home.path());
        command
            .args(["ask", "What did NVIDIA report?", "--base-url", &served.1])
            .env("BIGDATA_API_KEY", KEY)
            .stdin(Stdio::null());
        if debug {
            command.arg("--debug");
        }
        let out = command.output().unwrap();
        assert_eq!(out.status.code(), Some(5));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let log_file = support::Home::new(home.path())
        .cache()
        .join("research-tui/research-tui.log");

    let err = ask(false);
    assert!(err.contains("the connection closed"), "{err}");
    assert!(!err.contains("chunk size line"), "{err}");
    let log = std::fs::read_to_string(&log_file).unwrap_or_default();
    let chain = "Bigdata.com stream cut: error decoding response body: error reading a body from \
                 connection: unexpected EOF during chunk size line";
    assert!(log.contains(chain), "{log}");

    let err = ask(true);
    let lines: Vec<&str> = err.lines().collect();
    let said = lines
        .iter()
        .position(|l| l.contains("the connection closed"));
    let debug = lines
        .iter()
        .position(|l| *l == format!("research-tui: debug: {chain}"));
    assert!(said.is_some() && debug > said, "{err}");
    let log = std::fs::read_to_string(&log_file).unwrap();
    assert!(!err.contains(KEY) && !log.contains(KEY), "{err}\n{log}");
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
