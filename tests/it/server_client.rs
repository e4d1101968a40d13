//! The HTTP client against the built-in demo agent, over real sockets on 127.0.0.1: no mocks.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use research_tui::agent::client::StreamHandle;
use research_tui::agent::client::{
    AgentClient, ApiKey, Effort, ResearchRequest, StreamOptions, WorkflowRequest,
};
use research_tui::agent::stream::StreamUpdate;
use research_tui::demo::{self, Fault, ServerConfig};
use research_tui::model::session::{Session, Status};
use research_tui::model::stream_end::StreamEnd;
use serde_json::{Value, json};

use crate::support;

const FAST: f64 = 200.0;

async fn start(fault: Option<Fault>) -> SocketAddr {
    start_with(ServerConfig {
        speed: FAST,
        fault,
        ..ServerConfig::default()
    })
    .await
}

async fn start_with(config: ServerConfig) -> SocketAddr {
    support::demo_agent_with(config).await
}

fn client(addr: SocketAddr) -> AgentClient {
    AgentClient::new(&format!("http://{addr}/"), None)
}

fn quick_retries() -> StreamOptions {
    StreamOptions {
        retry_base: Duration::from_millis(10),
        ..StreamOptions::default()
    }
}

/// Every update until `Ended`, which must come within 30 s.
async fn collect(mut handle: StreamHandle) -> Vec<StreamUpdate> {
    let mut updates = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let update = tokio::time::timeout_at(deadline, handle.updates.recv())
            .await
            .expect("the stream ends within 30 s")
            .expect("the task reports Ended before closing the channel");
        let done = matches!(update, StreamUpdate::Ended(_));
        updates.push(update);
        if done {
            return updates;
        }
    }
}

fn session_of(updates: &[StreamUpdate]) -> Session {
    let mut session = Session::new();
    for update in updates {
        if let StreamUpdate::Events(events) = update {
            assert!(!events.is_empty(), "event batches are never empty");
            session.apply_all(events.iter().cloned());
        }
    }
    session
}

fn end_of(updates: &[StreamUpdate]) -> &StreamEnd {
    match updates.last() {
        Some(StreamUpdate::Ended(end)) => end,
        other => panic!("last update is not Ended: {other:?}"),
    }
}

fn connects(updates: &[StreamUpdate]) -> usize {
    updates
        .iter()
        .filter(|u| matches!(u, StreamUpdate::Connecting { .. }))
        .count()
}

fn retry_waits(updates: &[StreamUpdate]) -> Vec<u64> {
    updates
        .iter()
        .filter_map(|u| match u {
            StreamUpdate::Retrying { wait_ms, .. } => Some(*wait_ms),
            _ => None,
        })
        .collect()
}

fn plan_title(session: &Session) -> String {
    session
        .plan
        .as_ref()
        .and_then(|p| p.title.clone())
        .unwrap_or_default()
}

async fn research(addr: SocketAddr, request: ResearchRequest) -> (Vec<StreamUpdate>, Session) {
    let updates = collect(client(addr).research(request, StreamOptions::default())).await;
    let session = session_of(&updates);
    (updates, session)
}

#[tokio::test]
async fn a_new_conversation_streams_a_complete_session_with_a_generated_chat_id_and_a_fresh_checkpoint()
 {
    let addr = start(None).await;
    let (updates, first) = research(addr, ResearchRequest::new("NVIDIA's latest earnings?")).await;
    assert_eq!(updates[0], StreamUpdate::Connecting { attempt: 1 });
    assert_eq!(updates[1], StreamUpdate::Connected);
    assert_eq!(end_of(&updates), &StreamEnd::Closed);
    assert_eq!(first.status(), Status::Complete);
    assert!(!first.answer.as_str().is_empty());
    assert!(!first.references.is_empty());
    assert!(plan_title(&first).contains("earnings deep dive"));

    let (_, second) = research(addr, ResearchRequest::new("NVIDIA's latest earnings?")).await;
    let (a, b) = (
        first.checkpoint_id().unwrap(),
        second.checkpoint_id().unwrap(),
    );
    assert!(a.starts_with("ckpt-") && b.starts_with("ckpt-"), "{a} {b}");
    assert_ne!(a, b);
    let (chat_a, chat_b) = (first.ids.chat_id.unwrap(), second.ids.chat_id.unwrap());
    assert!(
        chat_a.starts_with("chat-") && chat_a.len() == 21,
        "{chat_a}"
    );
    assert_ne!(chat_a, chat_b);
}

#[tokio::test]
async fn a_chat_id_sent_by_the_client_is_honoured_even_if_the_server_never_saw_it() {
    let addr = start(None).await;
    let request = ResearchRequest {
        chat_id: Some("chat-from-another-run".into()),
        ..ResearchRequest::new("And what about AMD?")
    };
    let (updates, session) = research(addr, request).await;
    assert_eq!(end_of(&updates), &StreamEnd::Closed);
    assert_eq!(
        session.ids.chat_id.as_deref(),
        Some("chat-from-another-run")
    );
    assert!(
        plan_title(&session).contains("NVIDIA vs AMD"),
        "a follow-up"
    );
}

#[tokio::test]
async fn a_comparison_question_gets_the_sector_comparison() {
    let addr = start(None).await;
    let (_, session) = research(
        addr,
        ResearchRequest::new("Compare ASML with its peers on valuation"),
    )
    .await;
    assert_eq!(session.status(), Status::Complete);
    assert!(plan_title(&session).contains("Semiconductor equipment"));
}

#[tokio::test]
async fn a_follow_up_from_a_checkpoint_of_a_previous_run_gets_the_follow_up_in_the_same_chat() {
    let addr = start(None).await;
    let (_, first) = research(addr, ResearchRequest::new("NVIDIA's latest earnings?")).await;
    let request = ResearchRequest {
        from_checkpoint_id: first.checkpoint_id().map(str::to_owned),
        ..ResearchRequest::new("How does that compare with AMD?")
    };
    let (updates, follow_up) = research(addr, request).await;
    assert_eq!(end_of(&updates), &StreamEnd::Closed);
    assert!(plan_title(&follow_up).contains("NVIDIA vs AMD"));
    assert_eq!(follow_up.ids.chat_id, first.ids.chat_id);
    assert_ne!(follow_up.checkpoint_id(), first.checkpoint_id());
}

#[tokio::test]
async fn a_checkpoint_the_server_never_issued_is_a_404_and_is_not_retried() {
    let addr = start(None).await;
    let request = ResearchRequest {
        from_checkpoint_id: Some("ckpt-0000000000000000".into()),
        ..ResearchRequest::new("Resume please")
    };
    let (updates, _) = research(addr, request).await;
    match end_of(&updates) {
        StreamEnd::Http { status, message } => {
            assert_eq!(*status, 404);
            assert_eq!(
                message,
                "unknown or expired chat or checkpoint: Checkpoint not found"
            );
        }
        other => panic!("expected HTTP 404, got {other:?}"),
    }
    assert_eq!(connects(&updates), 1);
}

#[tokio::test]
async fn the_workflow_endpoint_streams_a_run_with_a_fresh_execution_id_or_the_resumed_one() {
    let addr = start(None).await;
    let mut request = WorkflowRequest::new("earnings-brief");
    request.input.insert("company_id".into(), json!("D8442A"));
    request.time_range = Some("last_7_days".into());
    let updates = collect(client(addr).workflow(request.clone(), StreamOptions::default())).await;
    let session = session_of(&updates);
    assert_eq!(end_of(&updates), &StreamEnd::Closed);
    assert_eq!(session.status(), Status::Complete);
    assert!(!session.answer.as_str().is_empty());
    let execution_id = session.ids.execution_id.clone().unwrap();
    assert!(execution_id.starts_with("exec-"), "{execution_id}");
    assert!(session.ids.request_id.unwrap().starts_with("req-"));

    request.execution_id = Some(execution_id.clone());
    let resumed =
        session_of(&collect(client(addr).workflow(request, StreamOptions::default())).await);
    assert_eq!(resumed.ids.execution_id, Some(execution_id));
}

#[tokio::test]
async fn a_connection_cut_mid_answer_ends_as_cut_with_a_partial_answer_and_no_retry() {
    let addr = start(Some(Fault::CutMidAnswer)).await;
    let (updates, session) = research(addr, ResearchRequest::new("NVIDIA earnings")).await;
    assert!(
        matches!(end_of(&updates), StreamEnd::Cut { .. }),
        "{:?}",
        end_of(&updates)
    );
    assert_eq!(connects(&updates), 1);
    assert!(retry_waits(&updates).is_empty());
    assert_eq!(session.status(), Status::Incomplete);

    let full = research(start(None).await, ResearchRequest::new("NVIDIA earnings"))
        .await
        .1;
    let (partial, whole) = (session.answer.char_len(), full.answer.char_len());
    assert!(partial > 0 && partial < whole, "{partial} of {whole}");
}

#[tokio::test]
async fn a_stalled_stream_ends_as_stalled_after_the_idle_timeout() {
    let addr = start(Some(Fault::Stall)).await;
    // Long enough that a loaded machine's gaps between the events sent before the stall are not
    // taken for it (300 ms failed under a load of 8), short enough to keep the test quick.
    let options = StreamOptions {
        idle_timeout: Duration::from_millis(1500),
        ..StreamOptions::default()
    };
    let started = Instant::now();
    let updates = collect(client(addr).research(ResearchRequest::new("NVIDIA"), options)).await;
    assert_eq!(end_of(&updates), &StreamEnd::Stalled { idle_secs: 1 });
    assert_eq!(connects(&updates), 1, "events had arrived: no retry");
    assert!(!session_of(&updates).answer.as_str().is_empty());
    assert!(started.elapsed() >= Duration::from_millis(1500));
}

#[tokio::test]
async fn a_503_is_retried_with_backoff_up_to_max_attempts_then_reported() {
    let addr = start(Some(Fault::Status(503))).await;
    let updates =
        collect(client(addr).research(ResearchRequest::new("NVIDIA"), quick_retries())).await;
    assert_eq!(connects(&updates), 3);
    let waits = retry_waits(&updates);
    assert_eq!(waits.len(), 2);
    assert!(
        (10..=12).contains(&waits[0]) && (20..=25).contains(&waits[1]),
        "{waits:?}"
    );
    assert!(updates.iter().any(|u| matches!(
        u,
        StreamUpdate::Retrying { attempt: 2, reason, .. } if reason.contains("503")
    )));
    match end_of(&updates) {
        StreamEnd::Http { status, message } => {
            assert_eq!(*status, 503);
            assert_eq!(message, "the server failed: Service Unavailable");
        }
        other => panic!("expected HTTP 503, got {other:?}"),
    }
    assert_eq!(crate::support::live::received(addr).await.len(), 3);
}

#[tokio::test]
async fn a_401_is_reported_as_a_rejected_key_and_not_retried() {
    let addr = start(Some(Fault::Status(401))).await;
    let key = ApiKey::new("bd-very-secret-key");
    let handle = AgentClient::new(&format!("http://{addr}"), Some(key))
        .research(ResearchRequest::new("NVIDIA"), quick_retries());
    let updates = collect(handle).await;
    assert_eq!(connects(&updates), 1);
    match end_of(&updates) {
        StreamEnd::Http { status, message } => {
            assert_eq!(*status, 401);
            assert!(message.starts_with("the API key was rejected"), "{message}");
        }
        other => panic!("expected HTTP 401, got {other:?}"),
    }
    assert!(!format!("{updates:?}").contains("very-secret"));
}

#[tokio::test]
async fn a_429_is_retried_after_the_servers_retry_after() {
    let addr = start(Some(Fault::Status(429))).await;
    let options = StreamOptions {
        max_attempts: 2,
        ..quick_retries()
    };
    let started = Instant::now();
    let updates = collect(client(addr).research(ResearchRequest::new("NVIDIA"), options)).await;
    assert_eq!(connects(&updates), 2);
    assert_eq!(retry_waits(&updates), vec![1000], "Retry-After: 1");
    assert!(started.elapsed() >= Duration::from_secs(1));
    assert!(matches!(
        end_of(&updates),
        StreamEnd::Http { status: 429, message } if message.starts_with("rate limited")
    ));
}

#[tokio::test]
async fn nothing_listening_is_a_connect_error_after_the_retries() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let client = AgentClient::new(&format!("http://127.0.0.1:{port}"), None);
    let options = StreamOptions {
        max_attempts: 2,
        ..quick_retries()
    };
    let updates = collect(client.research(ResearchRequest::new("NVIDIA"), options)).await;
    assert_eq!(connects(&updates), 2);
    assert!(
        matches!(end_of(&updates), StreamEnd::Connect { .. }),
        "{:?}",
        end_of(&updates)
    );
}

#[tokio::test]
async fn the_server_receives_chat_id_checkpoint_and_effort_as_sent_and_never_stores_the_key() {
    let addr = start(None).await;
    let (_, first) = research(addr, ResearchRequest::new("NVIDIA's latest earnings?")).await;
    let checkpoint = first.checkpoint_id().unwrap().to_owned();
    let chat = first.ids.chat_id.clone().unwrap();
    let request = ResearchRequest {
        research_effort: Effort::Lite,
        chat_id: Some(chat.clone()),
        from_checkpoint_id: Some(checkpoint.clone()),
        model_name: Some("pro".into()),
        ..ResearchRequest::new("And AMD?")
    };
    let key = ApiKey::new("bd-key-that-must-not-leak");
    let handle = AgentClient::new(&format!("http://{addr}"), Some(key))
        .research(request, StreamOptions::default());
    assert_eq!(end_of(&collect(handle).await), &StreamEnd::Closed);

    let requests = crate::support::live::received(addr).await;
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0]["body"],
        json!({"message": "NVIDIA's latest earnings?", "research_effort": "standard"})
    );
    let last = &requests[1];
    assert_eq!(last["path"], "/v1/research-agent");
    assert_eq!(last["status"], 200);
    assert_eq!(last["api_key_present"], true);
    assert_eq!(
        last["body"],
        json!({
            "message": "And AMD?",
            "research_effort": "lite",
            "chat_id": chat,
            "from_checkpoint_id": checkpoint,
            "model_name": "pro",
        })
    );
    assert!(!Value::Array(requests).to_string().contains("must-not-leak"));
}

#[tokio::test]
async fn an_invalid_body_gets_a_fastapi_style_422() {
    let addr = start(None).await;
    let http = research_tui::agent::http::client_builder().build().unwrap();
    let response = http
        .post(format!("http://{addr}/v1/research-agent"))
        .json(&json!({"message": "", "research_effort": "deep"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 422);
    let body: Value = response.json().await.unwrap();
    let detail = body["detail"].as_array().unwrap();
    assert_eq!(detail[0]["loc"], json!(["body", "message"]));
    assert_eq!(detail[1]["loc"], json!(["body", "research_effort"]));
    assert!(detail.iter().all(|d| d["msg"].is_string()));

    let handle = client(addr).research(ResearchRequest::new(""), quick_retries());
    let updates = collect(handle).await;
    assert_eq!(connects(&updates), 1);
    assert!(matches!(
        end_of(&updates),
        StreamEnd::Http { status: 422, message }
            if message == "the request failed validation: body.message: String should have at least 1 character"
    ));
}

#[tokio::test]
async fn the_fault_header_overrides_the_server_fault_for_one_request() {
    let addr = start(None).await;
    let http = research_tui::agent::http::client_builder().build().unwrap();
    let post = |fault: &'static str| {
        http.post(format!("http://{addr}/v1/research-agent"))
            .header("X-Demo-Fault", fault)
            .json(&json!({"message": "hi", "research_effort": "lite"}))
            .send()
    };
    let unavailable = post("status=503").await.unwrap();
    assert_eq!(unavailable.status(), 503);
    assert_eq!(
        unavailable.json::<Value>().await.unwrap(),
        json!({"detail": "Service Unavailable"})
    );
    let limited = post("status=429").await.unwrap();
    assert_eq!(limited.status(), 429);
    assert_eq!(limited.headers()["retry-after"], "1");
    let bad = post("explode").await.unwrap();
    assert_eq!(bad.status(), 400);
    let fine = http
        .post(format!("http://{addr}/v1/research-agent"))
        .json(&json!({"message": "hi", "research_effort": "lite"}))
        .send()
        .await
        .unwrap();
    assert_eq!(fine.status(), 200);
    assert_eq!(fine.headers()["content-type"], "text/event-stream");
}

#[tokio::test]
async fn a_recordings_directory_replaces_the_built_in_ones_and_frames_keep_their_pacing() {
    let dir = tempfile::tempdir().unwrap();
    let builtin = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/recordings/bigdata");
    for name in [
        "sector-comparison.sse",
        "follow-up.sse",
        "workflow-earnings-brief.sse",
    ] {
        std::fs::copy(format!("{builtin}/{name}"), dir.path().join(name)).unwrap();
    }
    let frame = |delay: u64, message: Value| {
        format!(
            ": delay={delay}\ndata: {}\n\n",
            json!({"chat_id": "x", "message": message})
        )
    };
    let custom = [
        frame(150, json!({"type": "ANSWER", "content": "Hello "})),
        frame(150, json!({"type": "ANSWER", "content": "from disk."})),
        frame(
            150,
            json!({"type": "COMPLETE", "checkpoint_id": "old", "consumption": []}),
        ),
    ]
    .concat();
    std::fs::write(dir.path().join("earnings-deep-dive.sse"), custom).unwrap();
    std::fs::write(dir.path().join("notes.sse"), "data: {}\n\n").unwrap();

    let addr = start_with(ServerConfig {
        speed: 1.5,
        recordings_dir: Some(dir.path().to_owned()),
        fault: None,
        ..ServerConfig::default()
    })
    .await;
    let started = Instant::now();
    let (updates, session) = research(addr, ResearchRequest::new("Tell me about NVIDIA")).await;
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "450 ms at speed 1.5"
    );
    assert_eq!(end_of(&updates), &StreamEnd::Closed);
    assert_eq!(session.answer.as_str(), "Hello from disk.");
    assert!(session.checkpoint_id().unwrap().starts_with("ckpt-"));

    std::fs::remove_file(dir.path().join("follow-up.sse")).unwrap();
    let missing = demo::spawn(
        ServerConfig {
            recordings_dir: Some(dir.path().to_owned()),
            ..ServerConfig::default()
        },
        0,
    )
    .await;
    assert!(missing.unwrap_err().to_string().contains("follow-up.sse"));
}

#[test]
fn an_api_key_never_shows_in_debug_or_display() {
    let key = ApiKey::new("bd-live-0123456789abcdef");
    assert_eq!(format!("{key:?}"), "ApiKey(***)");
    assert_eq!(key.to_string(), "ApiKey(***)");
    let client = AgentClient::new("https://agents.bigdata.com", Some(key));
    assert!(!format!("{client:?}").contains("0123456789"));
}

#[test]
fn the_serve_command_announces_its_address_and_answers_requests() {
    use std::io::BufRead;
    let mut child = support::cli(support::scratch())
        .args(["serve", "--port", "0", "--speed", "max"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let result = std::panic::catch_unwind(|| {
        let url = line
            .trim()
            .strip_prefix("research-tui demo agent listening on ")
            .unwrap_or_else(|| panic!("unexpected announcement: {line:?}"));
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let handle = AgentClient::new(url, None)
                .research(ResearchRequest::new("NVIDIA"), StreamOptions::default());
            let updates = collect(handle).await;
            assert_eq!(end_of(&updates), &StreamEnd::Closed);
        });
        // A second agent on the same port says which port it could not have.
        let port = url.rsplit(':').next().unwrap();
        let busy = support::cli(support::scratch())
            .args(["serve", "--port", port])
            .output()
            .unwrap();
        assert_eq!(busy.status.code(), Some(1));
        let said = String::from_utf8_lossy(&busy.stderr);
        assert!(
            said.starts_with(&format!(
                "research-tui: cannot start the demo agent on 127.0.0.1:{port}: "
            )),
            "{said}"
        );
    });
    let _ = child.kill();
    let _ = child.wait();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}
