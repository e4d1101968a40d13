//! `research-tui render` on input that holds no event at all, or events in no format it reads: it
//! says so and fails, instead of printing an empty document with exit 0 (`replay` too).

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
        text.starts_with("research-tui: cannot open /nonexistent/stream.sse: "),
        "{text}"
    );
    assert_eq!(text.matches("cannot").count(), 1, "{text}");
}
