//! `research-tui render` on input that holds no event at all, or events in no format it reads: it
//! says so and fails, instead of printing an empty document with exit 0 (`replay` too); a format
//! named wrongly is told which one the file reads as; a stream cut short renders and says so.

use std::io::Write;
use std::process::{Output, Stdio};

use crate::support;

fn render_file(path: &std::path::Path) -> Output {
    support::cli(support::scratch())
        .args(["render", path.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap()
}

fn render_stdin(input: &[u8]) -> Output {
    let mut child = support::cli(support::scratch())
        .args(["render", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn input_without_events_is_reported_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in [
        ("empty.sse", ""),
        (
            "page.html",
            "<!DOCTYPE html><html><body>Bad gateway</body></html>\n",
        ),
        ("pings.sse", ": ping\n\n: ping\n\n"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        let output = render_file(&path);
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{name}: {text}");
        assert!(text.contains("no events found in"), "{name}: {text}");
        assert!(output.stdout.is_empty(), "{name}: nothing is rendered");
    }
    let output = render_stdin(b"hello\n");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("no events found in standard input"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn events_in_no_known_format_fail_with_one_line_naming_the_formats_tried() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other-agent.sse");
    std::fs::write(
        &path,
        "data: {\"candidates\":[]}\n\ndata: {\"foo\":1}\n\ndata: not json\n\n",
    )
    .unwrap();
    let output = render_file(&path);
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(output.stdout.is_empty());
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.contains("is in no format research-tui reads (3 events"),
        "{text}"
    );
    assert!(
        text.contains(
            "tried Bigdata.com, xAI, Zeta Alpha, OpenAI, Perplexity, Google Gemini, Anthropic"
        ),
        "{text}"
    );
    // Named, only that format was tried.
    let output = support::cli(support::scratch())
        .args(["render", path.to_str().unwrap(), "--provider", "anthropic"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).ends_with("tried Anthropic)\n"),
        "{}",
        stderr(&output)
    );
    // `replay` says the same and never takes over the terminal.
    let output = support::cli(support::scratch())
        .args(["replay", path.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "the app never started");
    assert_eq!(stderr(&output), text);
}

#[test]
fn a_stream_with_events_still_renders_and_a_missing_file_is_named_once() {
    let output = render_stdin(
        b"data: {\"chat_id\":\"c\",\"message\":{\"type\":\"ANSWER\",\"content\":\"Hi\"}}\n\n",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("Hi"));

    let output = render_file(std::path::Path::new("/nonexistent/stream.sse"));
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text.starts_with("research-tui: cannot read /nonexistent/stream.sse: "),
        "{text}"
    );
    assert_eq!(text.matches("cannot").count(), 1, "{text}");
}

/// `--provider` naming the wrong format for a file: the one line says which format it reads as.
#[test]
fn a_recording_given_the_wrong_provider_is_told_which_it_reads_as() {
    for command in ["render", "replay"] {
        let output = support::cli(support::scratch())
            .args([
                command,
                "assets/recordings/bigdata/follow-up.sse",
                "--provider",
                "xai",
            ])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let text = stderr(&output);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(
            text.ends_with(
                "tried xAI); it reads as Bigdata.com: leave out --provider, or give --provider bigdata\n"
            ),
            "{command}: {text}"
        );
    }
}

/// A stream that stops before the agent finished renders what came, and Markdown and text (which
/// would look finished) say on stderr that it ends early; JSON says so in its `status`.
#[test]
fn a_stream_cut_before_the_agent_finished_renders_and_says_so() {
    let recording = std::fs::read_to_string(support::EARNINGS).unwrap();
    let cut = &recording[..recording.find("\"type\":\"ANSWER\"").unwrap() + 2000];
    let cut = &cut[..cut.rfind("\n\n").unwrap() + 2];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.sse");
    std::fs::write(&path, cut).unwrap();
    for format in ["markdown", "text"] {
        let output = support::cli(support::scratch())
            .args(["render", path.to_str().unwrap(), "--format", format])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        assert!(!output.stdout.is_empty(), "what came is rendered");
        assert!(
            stderr(&output).ends_with(
                "cut.sse ends before the agent finished (no completion, error or cancellation): rendered as far as it goes\n"
            ),
            "{format}: {}",
            stderr(&output)
        );
    }
    let output = render_file(&path);
    assert_eq!(stderr(&output), "");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["status"], "incomplete");
    // A complete recording says nothing.
    let output = support::cli(support::scratch())
        .args(["render", support::EARNINGS, "--format", "text"])
        .output()
        .unwrap();
    assert_eq!(stderr(&output), "");
}

/// A speed that is not one — zero, negative, a word — is refused by `replay` and `open` with the
/// same line (a negative one was taken for an unknown flag).
#[test]
fn a_speed_that_is_not_one_is_refused_with_what_a_speed_is() {
    for (command, speed) in [
        ("replay", "-1"),
        ("replay", "0"),
        ("replay", "fast"),
        ("open", "-2"),
    ] {
        let target = if command == "replay" {
            "x.sse"
        } else {
            "some-id"
        };
        let output = support::cli(support::scratch())
            .args([command, target, "--speed", speed])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{command} {speed}");
        assert!(
            stderr(&output).contains(&format!(
                "`{speed}` is not a speed: use a positive factor (0.5, 2, 10) or `max`"
            )),
            "{command} {speed}: {}",
            stderr(&output)
        );
    }
}

/// A file given on the command line that is not there: every command says it in the same words,
/// `cannot read <what>: <cause>`, without the operating system's error number.
#[test]
fn every_command_names_a_missing_file_in_the_same_words() {
    let missing = "/nonexistent/given.file";
    // `ask` checks what it is given before it asks: a usage error (2), as its other flags' are.
    for (args, what, code) in [
        (&["render", missing][..], missing.to_owned(), 1),
        (&["replay", missing][..], missing.to_owned(), 1),
        (
            &["ask", "Q?", "--demo", "--schema", missing][..],
            format!("the schema {missing}"),
            2,
        ),
        (
            &[
                "ask",
                "Q?",
                "--demo",
                "--workflow",
                "/nonexistent/template.json",
            ][..],
            "the workflow template /nonexistent/template.json".to_owned(),
            2,
        ),
    ] {
        let output = support::cli(support::scratch())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(code), "{args:?}");
        assert_eq!(
            stderr(&output),
            format!("research-tui: cannot read {what}: No such file or directory\n"),
            "{args:?}"
        );
    }
}
