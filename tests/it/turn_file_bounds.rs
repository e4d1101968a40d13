//! A saved turn's file holds what the decoder reads, no more: a hostile server's line far past the
//! decoder's 16 MiB limit (which it skips) is saved only up to the limit, by `ask` and by the app,
//! and the session says what was left out — in its meta, in `sessions`, on `ask`'s stderr and on
//! the app's status line. The turn replays exactly as it was shown.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use research_tui::local::store::SessionStore;
use serde_json::Value;

use crate::large_streams::streams;
use crate::support::tmux::{Tmux, status_line};
use crate::support::{self, Home};

/// The decoder's limit on one line.
const LIMIT: usize = 16 << 20;
/// The hostile line's payload: 40 MiB on one line.
const HUGE: usize = 40 << 20;

/// A server on 127.0.0.1 sending one 40 MiB line, then a real-sized answer.
fn hostile_server() -> String {
    streams::serve_event_stream(|socket| {
        let mut out = std::io::BufWriter::new(socket);
        let _ = out.write_all(b"data: {\"junk\":\"");
        let block = vec![b'A'; 1 << 20];
        for _ in 0..HUGE >> 20 {
            let _ = out.write_all(&block);
        }
        let _ = out.write_all(b"\"}\n\n");
        let _ = out.write_all(&rest());
        let _ = out.flush();
    })
}

/// What the server sends after the huge line: a real-sized answer.
fn rest() -> Vec<u8> {
    let mut rest = Vec::new();
    streams::write_large_stream(&mut rest, 200_000).unwrap();
    rest
}

/// The size the saved turn file must have: the huge line's first `LIMIT + 1` bytes (enough for a
/// replay to skip it as the live decoder did), its line break and blank line, and all the rest.
fn saved_size() -> u64 {
    (LIMIT + 1 + 2 + rest().len()) as u64
}

/// The bytes of the hostile line (without its line break) the file leaves out: all but the
/// decoder's limit and one byte (so a replay skips the line as the live decoder did).
fn left_out() -> usize {
    let line = "data: {\"junk\":\"".len() + HUGE + "\"}".len();
    line - (LIMIT + 1)
}

/// The one session saved under the sessions folder `root`.
fn only_session(root: &Path) -> research_tui::local::store::SavedSession {
    let store = SessionStore::new(root);
    let listed = store.list();
    assert_eq!(listed.len(), 1);
    store.load(&listed[0].id).unwrap()
}

#[test]
fn ask_saves_a_huge_line_only_up_to_the_decoders_limit_and_says_what_was_left_out() {
    let base_url = hostile_server();
    let home = tempfile::tempdir().unwrap();
    let output = support::cli(home.path())
        .args([
            "ask",
            "a question",
            "--format",
            "json",
            "--base-url",
            &base_url,
        ])
        .env("BIGDATA_API_KEY", "test-key-turn-file")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let shown: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(shown["status"], "complete");

    let saved = only_session(&Home::new(home.path()).sessions());
    let turn = &saved.meta.turns[0];
    let note = turn
        .not_saved
        .as_deref()
        .expect("the meta says what was cut");
    let expected = format!(
        "1 line past the decoder's 16 MiB limit kept in part ({} bytes left out)",
        left_out()
    );
    assert_eq!(note, expected);
    assert_eq!(turn.status.as_str(), "complete");
    let file = std::fs::metadata(saved.stream_path(turn).unwrap())
        .unwrap()
        .len();
    assert_eq!(file, saved_size(), "a {} MiB line", HUGE >> 20);
    // The saved turn replays as it was shown.
    let replayed = saved.replay_turn(turn);
    assert_eq!(replayed.answer.as_str(), shown["answer"].as_str().unwrap());

    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("turn 1 of session {}: {expected}", saved.meta.id)),
        "{stderr}"
    );
    for args in [&[][..], &["--search", "question"][..]] {
        let listed = support::cli(home.path())
            .arg("sessions")
            .args(args)
            .output()
            .unwrap();
        let listed = String::from_utf8_lossy(&listed.stdout);
        assert!(
            listed.contains(&format!("↳ turn 1: {expected}")),
            "{listed}"
        );
    }
}

#[test]
fn the_app_saves_a_huge_line_only_up_to_the_decoders_limit_and_says_so() {
    let base_url = hostile_server();
    let t = Tmux::start_with_env(
        140,
        42,
        &["BIGDATA_API_KEY=test-key-turn-file"],
        &["--base-url", &base_url],
    );
    t.wait_for("LIVE and ready", Duration::from_secs(10), |s| {
        status_line(s).contains("LIVE") && status_line(s).contains("ready")
    });
    t.send(&["a question", "Enter"]);
    let screen = t.wait_for("the turn saved", Duration::from_secs(90), |s| {
        s.contains("turn file: 1 line past the decoder's 16 MiB limit kept in part")
    });
    assert!(
        screen.contains(&format!("({} bytes left out)", left_out())),
        "{screen}"
    );
    let saved = only_session(&t.dir.path().join("research-tui/sessions"));
    let turn = &saved.meta.turns[0];
    assert!(
        turn.not_saved
            .as_deref()
            .unwrap()
            .ends_with(&format!("({} bytes left out)", left_out()))
    );
    let file = std::fs::metadata(saved.stream_path(turn).unwrap())
        .unwrap()
        .len();
    assert_eq!(file, saved_size());
    // Opened again, the session says it too.
    let env = format!("XDG_DATA_HOME={}", t.dir.path().display());
    let opened = Tmux::start_with_env(140, 42, &[&env], &["open", &saved.meta.id]);
    opened.wait_for("the saved session", Duration::from_secs(30), |s| {
        status_line(s).contains("turn 1's file: 1 line past the decoder's 16 MiB limit")
    });
}
