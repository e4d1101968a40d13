//! A newcomer's command-line findings (round w12), each checked on the real binary: the app's
//! `--base-url` without a key, errors in Markdown, `ask -`, a broken config file, flag checks
//! made before anything is sent.

use std::io::BufRead;
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

fn serve(extra: &[&str]) -> Served {
    let mut child = support::cli(support::scratch())
        .args(["serve", "--port", "0", "--speed", "50"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
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
    let served = serve(&[]);
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
