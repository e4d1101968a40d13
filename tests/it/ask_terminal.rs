//! `research-tui ask` on a terminal (tmux): the plan and tools on one live line that is replaced
//! and cleared, never lines between the answer's paragraphs, and the saved session named after the
//! whole result.

use std::time::Duration;

use crate::support::tmux::Tmux;

#[test]
fn ask_on_a_terminal_keeps_progress_on_one_live_line_and_names_the_session_last() {
    let t = Tmux::start(
        100,
        30,
        &[
            "ask",
            "What did NVIDIA report?",
            "--demo",
            "--demo-speed",
            "4",
        ],
    );
    // While it researches: one live line, which names a step rather than a bare count.
    let screen = t.wait_for("the live progress line", Duration::from_secs(30), |s| {
        s.contains("[plan ")
    });
    let live: Vec<&str> = screen.lines().filter(|l| l.contains("[plan ")).collect();
    assert_eq!(live.len(), 1, "one live line:\n{screen}");
    assert!(
        !live[0].trim_end().ends_with(']'),
        "the line says what is under way: {live:?}"
    );
    assert_eq!(t.wait_exit(Duration::from_secs(60)), "0");
    let screen = t.wait_for("the shell", Duration::from_secs(5), |s| {
        s.contains("the app exited")
    });
    assert!(
        !screen.contains("[plan "),
        "the live line is cleared:\n{screen}"
    );
    assert!(
        !screen.contains("⚙ "),
        "the live line is cleared:\n{screen}"
    );
    let lines: Vec<&str> = screen.lines().collect();
    let saved = lines
        .iter()
        .position(|l| l.starts_with("research-tui: saved as session "))
        .unwrap_or_else(|| panic!("the saved session is named:\n{screen}"));
    // The result ends with its checkpoint and the turn's timing; the session is named after it,
    // last.
    assert!(
        lines[saved - 1].starts_with("timing: first byte "),
        "{screen}"
    );
    assert!(lines[saved - 3].starts_with("Checkpoint: "), "{screen}");
    assert!(lines[saved + 1].starts_with("the app exited"), "{screen}");
}

/// `render --format text` on a terminal is for people, as `ask`'s text is there: Markdown rendered
/// (no `##`, no `**`, the table's `|---|` rule drawn as a table), the sources after it. It printed
/// the raw Markdown, which only a pipe or a file should get.
#[test]
fn render_as_text_on_a_terminal_is_rendered_markdown() {
    let recording = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/recordings/bigdata/earnings-deep-dive.sse"
    );
    let t = Tmux::start(120, 200, &["render", recording, "--format", "text"]);
    assert_eq!(t.wait_exit(Duration::from_secs(30)), "0");
    let screen = t.wait_for("the shell", Duration::from_secs(5), |s| {
        s.contains("the app exited")
    });
    assert!(
        screen.contains("NVIDIA Q1 FY2027 — at a glance"),
        "{screen}"
    );
    assert!(screen.contains("Sources"), "{screen}");
    for markdown in ["## ", "**", "|---|"] {
        assert!(!screen.contains(markdown), "{markdown} in:\n{screen}");
    }
}
