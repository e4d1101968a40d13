//! The agents a command talks to: the app's `--base-url` without a key, a proxied request that
//! could not be read, retrying a cancelled first turn, `--demo --base-url` with a saved live session.

use std::process::Stdio;
use std::time::Duration;

use super::{Served, ask_demo, asked_there, received, serve};
use crate::support::{self, tmux::Tmux};

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
