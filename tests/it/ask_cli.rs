//! `research-tui ask` end to end: the real binary against the project's demo server on 127.0.0.1,
//! with its fault modes. Each test gets its own XDG directories, so saved sessions are checked too.

use std::path::Path;
use std::process::Output;

use research_tui::demo::{Fault, ServerConfig};
use serde_json::Value;

use crate::support;

pub(crate) const KEY: &str = "sk-test-SECRET-4242";

pub(crate) struct Env {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) base_url: String,
}

pub(crate) async fn server(fault: Option<Fault>) -> Env {
    server_with(ServerConfig {
        speed: 200.0,
        fault,
        ..Default::default()
    })
    .await
}

pub(crate) async fn server_with(config: ServerConfig) -> Env {
    let addr = support::demo_agent_with(config).await;
    Env {
        dir: tempfile::tempdir().unwrap(),
        base_url: format!("http://{addr}"),
    }
}

impl Env {
    pub(crate) fn ask(&self, args: &[&str]) -> Output {
        let base = self.base_url.clone();
        let mut command = support::cli(self.dir.path());
        command
            .arg("ask")
            .args(args)
            .args(["--base-url", &base])
            .env("BIGDATA_API_KEY", KEY);
        command.output().unwrap()
    }

    pub(crate) fn sessions(&self) -> Vec<Value> {
        let output = support::cli(self.dir.path())
            .args(["sessions", "--json"])
            .output()
            .unwrap();
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    pub(crate) async fn requests(&self) -> Vec<Value> {
        crate::support::http()
            .get(format!("{}/_demo/requests", self.base_url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

pub(crate) fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Every file under `dir`, recursively.
pub(crate) fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(files(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_complete_answer_streams_to_stdout_with_sources_and_is_saved() {
    let env = server(None).await;
    let output = tokio::task::block_in_place(|| env.ask(&["What did NVIDIA report?"]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("NVIDIA"), "{text}");
    assert!(text.contains("\nSources\n  [1] "), "{text}");
    assert!(text.contains("Checkpoint: ckpt-"), "{text}");
    let sessions = env.sessions();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["turns"][0]["status"], "complete");
    assert!(
        sessions[0]["turns"][0]["checkpoint_id"]
            .as_str()
            .unwrap()
            .starts_with("ckpt-")
    );
    assert!(
        sessions[0]["chat_id"]
            .as_str()
            .unwrap()
            .starts_with("chat-")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_output_is_the_core_document_and_the_raw_stream_can_be_recorded() {
    let env = server(None).await;
    let record = env.dir.path().join("run.sse");
    let output = tokio::task::block_in_place(|| {
        env.ask(&[
            "What did NVIDIA report?",
            "--format",
            "json",
            "--record",
            record.to_str().unwrap(),
        ])
    });
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["status"], "complete");
    assert!(doc["sources"].as_array().unwrap().len() >= 8);
    // The recording renders to the same document.
    let rendered = support::cli(support::scratch())
        .args(["render", record.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    let again: Value = serde_json::from_slice(&rendered.stdout).unwrap();
    assert_eq!(again["answer"], doc["answer"]);
    assert_eq!(again["citations"], doc["citations"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_goes_on_without_arrival_times_where_they_cannot_be_kept() {
    let env = server(None).await;
    // A device has nothing beside it: no `/dev/null.times` is made, and the run succeeds.
    let output = tokio::task::block_in_place(|| {
        env.ask(&["What did NVIDIA report?", "--record", "/dev/null"])
    });
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!std::path::Path::new("/dev/null.times").exists());
    // A times file that cannot be written (a folder of that name) costs the times, not the run.
    let record = env.dir.path().join("run.sse");
    std::fs::create_dir(env.dir.path().join("run.sse.times")).unwrap();
    let output = tokio::task::block_in_place(|| {
        env.ask(&[
            "What did NVIDIA report?",
            "--record",
            record.to_str().unwrap(),
        ])
    });
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("recording without arrival times: cannot write"),
        "{}",
        stderr(&output)
    );
    assert!(
        !std::fs::read(&record).unwrap().is_empty(),
        "the stream is recorded"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_checkpoint_sends_the_saved_chat_id_and_adds_a_turn() {
    let env = server(None).await;
    let first =
        tokio::task::block_in_place(|| env.ask(&["What did NVIDIA report?", "--format", "json"]));
    let first: Value = serde_json::from_slice(&first.stdout).unwrap();
    let checkpoint = first["checkpoint_id"].as_str().unwrap().to_owned();
    let chat_id = first["chat_id"].as_str().unwrap().to_owned();
    let output = tokio::task::block_in_place(|| {
        env.ask(&[
            "And AMD?",
            "--resume",
            &checkpoint,
            "--effort",
            "lite",
            "--model",
            "pro",
        ])
    });
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let requests = env.requests().await;
    let body = &requests.last().unwrap()["body"];
    assert_eq!(body["from_checkpoint_id"], checkpoint.as_str());
    assert_eq!(body["chat_id"], chat_id.as_str());
    assert_eq!(body["research_effort"], "lite");
    assert_eq!(body["model_name"], "pro");
    assert_eq!(body["message"], "And AMD?");
    let sessions = env.sessions();
    assert_eq!(sessions.len(), 1, "the follow-up joins the saved session");
    assert_eq!(sessions[0]["turns"].as_array().unwrap().len(), 2);
    assert_eq!(
        sessions[0]["turns"][1]["from_checkpoint_id"],
        checkpoint.as_str()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workflow_run_posts_its_template_inputs_and_time_range() {
    let env = server(None).await;
    let output = tokio::task::block_in_place(|| {
        env.ask(&[
            "",
            "--workflow",
            "earnings-brief",
            "--input",
            "company_id=D8442A",
            "--input",
            "quarter=Q1",
            "--time-range",
            "last_30_days",
            "--format",
            "json",
        ])
    });
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(doc["execution_id"].as_str().is_some());
    let requests = env.requests().await;
    let last = requests.last().unwrap();
    assert_eq!(last["path"], "/v1/workflow/execute");
    assert_eq!(last["body"]["template"], "earnings-brief");
    assert_eq!(last["body"]["input"]["company_id"], "D8442A");
    assert_eq!(last["body"]["time_range"], "last_30_days");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_key_exits_3_with_one_clear_line_and_no_retry() {
    let env = server(Some(Fault::Status(401))).await;
    let output = tokio::task::block_in_place(|| env.ask(&["Q?", "--format", "json"]));
    assert_eq!(output.status.code(), Some(3));
    let err = stderr(&output);
    assert!(
        err.contains("HTTP 401") && err.contains("key was rejected"),
        "{err}"
    );
    assert!(!err.contains("retrying"), "{err}");
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["status"], "error");
    assert_eq!(env.requests().await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limiting_is_retried_visibly_before_giving_up() {
    let env = server(Some(Fault::Status(429))).await;
    let output = tokio::task::block_in_place(|| env.ask(&["Q?"]));
    assert_eq!(output.status.code(), Some(3));
    let err = stderr(&output);
    assert_eq!(err.matches("retrying in").count(), 2, "{err}");
    assert!(err.contains("rate limited"), "{err}");
    assert_eq!(env.requests().await.len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_cut_mid_answer_exits_5_and_keeps_what_arrived() {
    let env = server(Some(Fault::CutMidAnswer)).await;
    let output =
        tokio::task::block_in_place(|| env.ask(&["What did NVIDIA report?", "--format", "json"]));
    assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["status"], "incomplete");
    assert!(!doc["answer"].as_str().unwrap().is_empty());
    assert!(stderr(&output).contains("cut"));
    assert_eq!(
        env.requests().await.len(),
        1,
        "never re-sent after events arrived"
    );
    assert_eq!(env.sessions()[0]["turns"][0]["status"], "cut");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_stream_is_reported_as_stalled_after_the_idle_timeout() {
    let env = server(Some(Fault::Stall)).await;
    let output = tokio::task::block_in_place(|| {
        env.ask(&["What did NVIDIA report?", "--idle-timeout", "1"])
    });
    assert_eq!(output.status.code(), Some(5));
    assert!(stderr(&output).contains("stalled"), "{}", stderr(&output));
    assert_eq!(env.sessions()[0]["turns"][0]["status"], "stalled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_event_exits_4_and_the_text_says_what_failed() {
    let recordings = tempfile::tempdir().unwrap();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/recordings/bigdata");
    for name in [
        "sector-comparison.sse",
        "follow-up.sse",
        "workflow-earnings-brief.sse",
    ] {
        std::fs::copy(format!("{root}/{name}"), recordings.path().join(name)).unwrap();
    }
    std::fs::write(
        recordings.path().join("earnings-deep-dive.sse"),
        ": delay=1\ndata: {\"chat_id\":\"x\",\"message\":{\"type\":\"ANSWER\",\"content\":\"Partial\"}}\n\n: delay=1\ndata: {\"chat_id\":\"x\",\"message\":{\"type\":\"ERROR\",\"error\":\"Request failed: capacity\"}}\n\n",
    )
    .unwrap();
    let env = server_with(ServerConfig {
        speed: 100.0,
        recordings_dir: Some(recordings.path().to_owned()),
        fault: None,
        ..ServerConfig::default()
    })
    .await;
    let output = tokio::task::block_in_place(|| env.ask(&["What did NVIDIA report?"]));
    assert_eq!(output.status.code(), Some(4));
    assert!(stdout(&output).contains("Partial"));
    assert!(stdout(&output).contains("Error: Request failed: capacity"));
    assert!(stderr(&output).contains("the agent reported an error"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_errors_exit_2() {
    let env = server(None).await;
    let output = tokio::task::block_in_place(|| env.ask(&["Q?", "--input", "a=b"]));
    assert_eq!(output.status.code(), Some(2));
    // An agent on another machine needs a key (one on this machine may be asked without).
    let no_key = support::cli(support::scratch())
        .args(["ask", "Q?", "--base-url", "https://agents.example.com"])
        .env("XDG_CONFIG_HOME", env.dir.path().join("none"))
        .output()
        .unwrap();
    assert_eq!(no_key.status.code(), Some(2));
    assert!(
        stderr(&no_key).contains("no API key"),
        "{}",
        stderr(&no_key)
    );
    let flag_key = support::cli(support::scratch())
        .args(["ask", "Q?", "--api-key", KEY])
        .output()
        .unwrap();
    assert_eq!(
        flag_key.status.code(),
        Some(2),
        "the key is never a command-line argument"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xai_and_zeta_answers_come_through_the_same_outputs_and_follow_ups_chain() {
    let env = server(None).await;
    for (provider, key_var) in [("xai", "XAI_API_KEY"), ("zeta", "ZETA_ALPHA_API_KEY")] {
        let run = |extra: &[&str]| {
            let mut command = support::cli(env.dir.path());
            command
                .args([
                    "ask",
                    "--provider",
                    provider,
                    "--base-url",
                    &env.base_url,
                    "--format",
                    "json",
                ])
                .args(["--tenant", "demo"])
                .args(extra)
                .env(key_var, KEY);
            command.output().unwrap()
        };
        let first = tokio::task::block_in_place(|| run(&["Which battery makers lead?"]));
        assert_eq!(
            first.status.code(),
            Some(0),
            "{provider}: {}",
            stderr(&first)
        );
        let doc: Value = serde_json::from_slice(&first.stdout).unwrap();
        assert_eq!(doc["status"], "complete", "{provider}");
        assert!(!doc["sources"].as_array().unwrap().is_empty(), "{provider}");
        let chat = doc["chat_id"].as_str().unwrap().to_owned();
        let second = tokio::task::block_in_place(|| run(&["Tell me more", "--chat-id", &chat]));
        assert_eq!(
            second.status.code(),
            Some(0),
            "{provider}: {}",
            stderr(&second)
        );
        let requests = env.requests().await;
        let body = &requests.last().unwrap()["body"];
        match provider {
            "xai" => assert!(body["previous_response_id"].is_string(), "{body}"),
            _ => {
                assert_eq!(body["session_id"], chat.as_str());
                assert_eq!(
                    body["conversation"].as_array().unwrap().len(),
                    3,
                    "history is sent"
                );
            }
        }
    }
    let sessions = env.sessions();
    let providers: Vec<_> = sessions
        .iter()
        .map(|s| s["provider"].as_str().unwrap())
        .collect();
    assert!(
        providers.contains(&"xai") && providers.contains(&"zeta"),
        "{providers:?}"
    );
    assert!(
        sessions
            .iter()
            .all(|s| s["turns"].as_array().unwrap().len() == 2)
    );
}

#[test]
fn streamed_text_output_matches_render_of_the_same_stream_for_every_provider() {
    let dir = tempfile::tempdir().unwrap();
    for provider in ["bigdata", "xai", "zeta", "perplexity"] {
        let record = dir.path().join(format!("{provider}.sse"));
        let output = support::cli(dir.path())
            .args([
                "ask",
                "What is new?",
                "--demo",
                "--demo-speed",
                "100",
                "--provider",
                provider,
            ])
            .args(["--record", record.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{provider}: {}",
            stderr(&output)
        );
        // The turn as saved: the same bytes as `--record`, its arrival times beside it, so its
        // rendering ends with the same timing line as the streamed output.
        let recorded = std::fs::read(&record).unwrap();
        let saved = support::files_under(&support::Home::new(dir.path()).sessions())
            .into_iter()
            .find(|p| {
                p.extension().is_some_and(|e| e == "sse") && std::fs::read(p).unwrap() == recorded
            })
            .expect("the turn is saved byte for byte");
        let rendered = support::cli(support::scratch())
            .args(["render", saved.to_str().unwrap(), "--format", "text"])
            .output()
            .unwrap();
        let streamed = stdout(&output);
        let timing = streamed.trim_end().lines().last().unwrap();
        assert!(timing.starts_with("timing: first byte "), "{streamed}");
        if provider == "xai" {
            // xAI's inline links are printed as they stream; render swaps them for [n].
            assert!(streamed.contains("[[1]]("), "{streamed}");
            assert_eq!(
                streamed.split("\nSources\n").nth(1),
                stdout(&rendered).split("\nSources\n").nth(1)
            );
        } else {
            assert_eq!(streamed, stdout(&rendered), "{provider}");
        }
        assert!(streamed.contains("[1]"), "{provider}: markers in the text");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zeta_tenant_is_saved_with_the_session_and_sent_again_on_follow_ups() {
    let env = server(None).await;
    let run = |extra: &[&str]| {
        support::cli(env.dir.path())
            .args([
                "ask",
                "--provider",
                "zeta",
                "--base-url",
                &env.base_url,
                "--format",
                "json",
            ])
            .args(extra)
            .env("ZETA_ALPHA_API_KEY", KEY)
            .output()
            .unwrap()
    };
    let first = tokio::task::block_in_place(|| {
        run(&[
            "RAG papers?",
            "--tenant",
            "acme",
            "--agent",
            "research_agent",
        ])
    });
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let chat = serde_json::from_slice::<Value>(&first.stdout).unwrap()["chat_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let second = tokio::task::block_in_place(|| run(&["More?", "--chat-id", &chat]));
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let requests = env.requests().await;
    for request in &requests[requests.len() - 2..] {
        assert!(
            request["path"].as_str().unwrap().contains("tenant=acme"),
            "{request}"
        );
        assert_eq!(request["body"]["agent_identifier"], "research_agent");
    }
    let sessions = env.sessions();
    assert_eq!(sessions[0]["tenant"], "acme");
    assert_eq!(sessions[0]["agent"], "research_agent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unique_prefix_of_a_checkpoint_resumes_it_and_an_ambiguous_one_names_the_matches() {
    let env = server(None).await;
    let first = tokio::task::block_in_place(|| env.ask(&["NVIDIA?", "--format", "json"]));
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let first: Value = serde_json::from_slice(&first.stdout).unwrap();
    let checkpoint = first["checkpoint_id"].as_str().unwrap().to_owned();
    // "ckpt-" and eight characters: unique among one session's checkpoints.
    let prefix = &checkpoint[..13];
    let resumed = tokio::task::block_in_place(|| {
        env.ask(&["And AMD?", "--resume", prefix, "--format", "json"])
    });
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    let requests = env.requests().await;
    assert_eq!(
        requests.last().unwrap()["body"]["from_checkpoint_id"],
        checkpoint.as_str(),
        "the whole checkpoint id is sent"
    );
    let sessions = env.sessions();
    assert_eq!(sessions.len(), 1, "the follow-up joined the session");
    assert_eq!(sessions[0]["turns"].as_array().unwrap().len(), 2);

    // Two checkpoints now start with "ckpt-": the prefix is refused, naming both.
    let ambiguous = tokio::task::block_in_place(|| env.ask(&["Q?", "--resume", "ckpt-"]));
    assert_eq!(ambiguous.status.code(), Some(2));
    let text = stderr(&ambiguous);
    assert!(
        text.contains("checkpoint \"ckpt-\" is ambiguous: it starts ckpt-"),
        "{text}"
    );
    assert!(text.contains(&checkpoint), "{text}");
}

/// `ask … | head -2`: a reader that stops early ends nothing badly. The turn still ends, is saved
/// and exits as it would have; before, every format could panic ("failed printing to stdout:
/// Broken pipe", exit 101) on the timing line or the Markdown written at the end.
#[test]
fn a_reader_that_stops_early_gets_no_panic_and_the_turn_is_still_saved() {
    use std::io::Read;
    for format in ["text", "markdown", "json"] {
        let home = tempfile::tempdir().unwrap();
        let mut child = support::cli(home.path())
            .args(["ask", "NVIDIA?", "--demo", "--demo-speed", "20"])
            .args(["--format", format])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut answer = child.stdout.take().unwrap();
        if format == "text" {
            // The first bytes of the streamed answer, then the reader goes.
            let mut first = [0u8; 16];
            answer.read_exact(&mut first).unwrap();
        }
        drop(answer);
        let output = child.wait_with_output().unwrap();
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(0), "{format}: {said}");
        assert!(!said.contains("panicked"), "{format}: {said}");
        let listed = support::cli(home.path())
            .args(["sessions", "--json"])
            .output()
            .unwrap();
        assert!(
            stdout(&listed).contains("\"complete\""),
            "{format}: {}",
            stdout(&listed)
        );
    }
}
