//! The session store with several real processes at once: `research-tui ask` binaries resuming the
//! same saved session against the demo agent on 127.0.0.1, and a writer killed mid-stream. Each test
//! gets its own XDG directories.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use research_tui::local::store::SessionStore;
use research_tui::tui::conversation::restore_turns;
use research_tui::tui::state::ConnState;
use serde_json::Value;

use crate::support;

struct Env {
    dir: tempfile::TempDir,
    base_url: String,
}

async fn server(speed: f64) -> Env {
    let addr = support::demo_agent(speed).await;
    Env {
        dir: tempfile::tempdir().unwrap(),
        base_url: format!("http://{addr}"),
    }
}

impl Env {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = support::cli(self.dir.path());
        command.args(args).env("BIGDATA_API_KEY", "sk-test-key");
        command
    }

    /// `research-tui ask QUESTION ARGS…` against the demo agent, started (not waited for).
    fn ask(&self, question: &str, args: &[&str]) -> Child {
        self.command(&["ask", question, "--base-url", &self.base_url])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    fn sessions(&self) -> Vec<Value> {
        let output = self.command(&["sessions", "--json"]).output().unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The store `ask` saves into, as the app reads it.
    fn store(&self) -> SessionStore {
        SessionStore::new(self.dir.path().join("data/research-tui/sessions"))
    }

    fn session_dir(&self, id: &str) -> PathBuf {
        self.store().root().join(id)
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// How many events of `kind` the raw stream file holds.
fn count_events(path: &Path, kind: &str) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    text.matches(&format!("\"type\": \"{kind}\""))
        .count()
        .max(text.matches(&format!("\"type\":\"{kind}\"")).count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_resumes_of_one_session_keep_every_turn_each_in_its_own_file() {
    const WRITERS: usize = 6;
    let env = server(100.0).await;
    let first = tokio::task::block_in_place(|| {
        env.ask("What did NVIDIA report?", &["--format", "json"])
            .wait_with_output()
            .unwrap()
    });
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let doc: Value = serde_json::from_slice(&first.stdout).unwrap();
    let checkpoint = doc["checkpoint_id"].as_str().unwrap().to_owned();

    let questions: Vec<String> = (1..=WRITERS).map(|i| format!("Follow-up {i}?")).collect();
    let outputs: Vec<Output> = tokio::task::block_in_place(|| {
        let children: Vec<Child> = questions
            .iter()
            .map(|q| env.ask(q, &["--resume", &checkpoint, "--format", "json"]))
            .collect();
        children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect()
    });
    for output in &outputs {
        assert_eq!(output.status.code(), Some(0), "{}", stderr(output));
        assert!(!stderr(output).contains("save"), "{}", stderr(output));
    }

    let sessions = env.sessions();
    assert_eq!(sessions.len(), 1, "every follow-up joins the saved session");
    let turns = sessions[0]["turns"].as_array().unwrap();
    assert_eq!(turns.len(), WRITERS + 1, "{turns:#?}");
    let mut asked: Vec<&str> = turns[1..]
        .iter()
        .map(|t| t["question"].as_str().unwrap())
        .collect();
    asked.sort_unstable();
    assert_eq!(
        asked,
        questions.iter().map(String::as_str).collect::<Vec<_>>()
    );
    let dir = env.session_dir(sessions[0]["id"].as_str().unwrap());
    let mut files = std::collections::HashSet::new();
    for turn in turns {
        assert_eq!(turn["status"], "complete", "{turn}");
        let file = turn["stream_file"].as_str().unwrap();
        assert!(files.insert(file.to_owned()), "{file} is shared");
        assert_eq!(
            count_events(&dir.join(file), "COMPLETE"),
            1,
            "{file} holds one stream"
        );
    }
    // Each turn's file holds the stream that answered that turn: its checkpoint and no other.
    for (turn, output) in turns[1..]
        .iter()
        .zip(order_by_question(turns, &questions, &outputs))
    {
        let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(turn["checkpoint_id"], doc["checkpoint_id"]);
    }
}

/// The outputs in the order their questions appear among `turns` (after the first).
fn order_by_question<'a>(
    turns: &[Value],
    questions: &[String],
    outputs: &'a [Output],
) -> Vec<&'a Output> {
    turns[1..]
        .iter()
        .map(|turn| {
            let i = questions
                .iter()
                .position(|q| turn["question"] == q.as_str())
                .unwrap();
            &outputs[i]
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_cannot_be_saved_says_so_and_fails() {
    let env = server(100.0).await;
    // The sessions directory cannot be created: a file stands where it should be.
    let data = env.dir.path().join("data/research-tui");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("sessions"), "not a directory").unwrap();
    let output = tokio::task::block_in_place(|| {
        env.ask("What did NVIDIA report?", &[])
            .wait_with_output()
            .unwrap()
    });
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(text.contains("error: this run cannot be saved"), "{text}");
    assert!(text.contains("not saved"), "{text}");
    // The answer itself still arrives.
    assert!(String::from_utf8_lossy(&output.stdout).contains("NVIDIA"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_killed_mid_stream_leaves_its_turn_cut_in_sessions_the_picker_and_open() {
    // Slow playback: the answer takes several seconds, so the kill lands mid-stream.
    let env = server(0.5).await;
    let mut child = env.ask("What did NVIDIA report?", &[]);
    let store = env.store();
    let started = tokio::task::block_in_place(|| {
        wait_for(Duration::from_secs(30), || {
            store.list().first().is_some_and(|meta| {
                let dir = env.session_dir(&meta.id);
                meta.status() == "streaming"
                    && std::fs::metadata(dir.join(&meta.turns[0].stream_file))
                        .is_ok_and(|m| m.len() > 0)
            })
        })
    });
    assert!(started, "the stream never started");
    // While its writer lives, the turn is streaming, not cut.
    assert_eq!(env.sessions()[0]["turns"][0]["status"], "streaming");

    child.kill().unwrap();
    child.wait().unwrap();

    let sessions = env.sessions();
    let turn = &sessions[0]["turns"][0];
    assert_eq!(turn["status"], "cut", "{turn}");
    let reason = turn["reason"].as_str().unwrap();
    assert!(reason.contains("interrupted"), "{reason}");
    // The app's picker lists the same, and opening the session shows the turn cut, with why.
    assert_eq!(store.list()[0].status(), "cut");
    let saved = store.load(sessions[0]["id"].as_str().unwrap()).unwrap();
    let turns = restore_turns(&saved);
    assert_eq!(turns[0].conn, ConnState::Cut(reason.to_owned()));
    assert!(turns[0].session.stats.events > 0, "what arrived is kept");
}

/// Wait until `check` holds (polling), at most `limit`.
fn wait_for(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}
