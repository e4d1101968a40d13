//! A newcomer's command-line findings, each checked on the real binary, by topic: the agents a
//! command talks to (`--base-url` without a key, a proxied request, retries, `--demo` with a saved
//! live session), what goes wrong said plainly (errors in Markdown, a broken config file, flag
//! checks made before anything is sent, a cut stream), and input and output (`ask -`, usage lines,
//! a terminal's wrapping, an empty workflow question). The helpers they share are here.

mod agents;
mod errors;
mod input_output;

use std::process::{Child, Stdio};

use crate::support;

/// `research-tui serve --port 0` (the demo agent as a separate process) and its base URL; killed
/// when the guard drops.
pub(super) struct Served(pub(super) Child, pub(super) String);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `research-tui serve` playing at `speed` times the recordings' pace.
pub(super) fn serve(speed: &str) -> Served {
    serve_with(&["--speed", speed])
}

/// `research-tui serve --port 0 ARGS`.
pub(super) fn serve_with(args: &[&str]) -> Served {
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
pub(super) fn received(base: &str) -> Vec<serde_json::Value> {
    let out = std::process::Command::new("curl")
        .args(["-s", &format!("{base}/_demo/requests")])
        .output()
        .expect("curl runs");
    serde_json::from_slice(&out.stdout).expect("the demo agent lists its requests")
}

pub(super) fn asked_there(base: &str, question: &str) -> bool {
    received(base)
        .iter()
        .any(|r| r["body"]["message"].as_str() == Some(question))
}

/// The binary run with `args` and no terminal: its exit code and stderr.
pub(super) fn run(args: &[&str]) -> (Option<i32>, String) {
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

/// `ask ARGS --demo --format json` in `home`, which must succeed (a session saved).
pub(super) fn ask_demo(home: &std::path::Path, args: &[&str]) {
    let asked = support::cli(home)
        .arg("ask")
        .args(args)
        .args(["--demo", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(asked.status.code(), Some(0), "{asked:?}");
}
