//! OpenAI Responses (deep research) and Perplexity Sonar over real sockets: the demo agent on
//! 127.0.0.1 reached through `agent::live` and through the real `research-tui ask` binary. A deep
//! research stream cut mid-answer is resumed from its last sequence number; a cancelled run is
//! cancelled on the server; Perplexity's `[n]` markers cite the right sources and its `<think>` is
//! thinking, never answer.

use std::net::SocketAddr;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use research_tui::agent::client::{ApiKey, RawSink};
use research_tui::agent::live::{self, LiveConfig};
use research_tui::agent::turn::TurnDriver;
use research_tui::demo::{Fault, ServerConfig};
use research_tui::model::citations::Attribution;
use research_tui::model::session::{Activity, Session, Status};
use research_tui::model::stream_end::StreamEnd;
use research_tui::wire::provider::Ask;
use research_tui::wire::provider::{EventPipeline, Provider};
use serde_json::Value;

use crate::support;
use crate::support::live::{NoSave, received, run};

const KEY: &str = "sk-proj-TEST-key-0042";

async fn start(fault: Option<Fault>, speed: f64) -> SocketAddr {
    support::demo_agent_with(ServerConfig {
        speed,
        fault,
        ..ServerConfig::default()
    })
    .await
}

fn config(provider: Provider, addr: SocketAddr) -> LiveConfig {
    LiveConfig {
        api_key: Some(ApiKey::new(KEY)),
        ..LiveConfig::demo(provider, addr)
    }
}

/// Every web search action in the Activity pane, in order: what it did and with what.
fn searches(session: &Session) -> Vec<String> {
    session
        .activity
        .iter()
        .filter_map(|a| match a {
            Activity::ToolCall {
                tool_name,
                arguments,
                ..
            } => {
                let detail = ["query", "pattern", "url"]
                    .iter()
                    .find_map(|key| arguments[*key].as_str())
                    .unwrap_or_default();
                let kind = if tool_name == "web_search" {
                    "search"
                } else {
                    tool_name
                };
                Some(format!("{kind} {detail}"))
            }
            _ => None,
        })
        .collect()
}

fn thinking(session: &Session) -> String {
    session
        .activity
        .iter()
        .filter_map(|a| match a {
            Activity::Thinking { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_dropped_deep_research_stream_resumes_from_its_last_sequence_number() {
    let question = Ask::new(live::demo_question(Provider::OpenAI));
    let whole = start(None, 100.0).await;
    let (uncut, end, retries) = run(live::start(&config(Provider::OpenAI, whole), &question)).await;
    assert_eq!(end, StreamEnd::Closed);
    assert!(retries.is_empty());

    // The server-wide fault cuts the stream that creates the run, halfway through the answer.
    let cutting = start(Some(Fault::CutMidAnswer), 100.0).await;
    let raw: Arc<Mutex<Vec<u8>>> = Arc::default();
    let sink: RawSink = raw.clone();
    let handle = live::start_recorded(&config(Provider::OpenAI, cutting), &question, Some(sink));
    let (resumed, end, retries) = run(handle).await;

    assert_eq!(end, StreamEnd::Closed, "the resumed stream completes");
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert!(retries[0].contains("resuming the run"), "{retries:?}");
    assert_eq!(resumed.status(), Status::Complete);
    // Exactly the uncut answer, reasoning and web actions: nothing lost, nothing twice.
    assert_eq!(resumed.answer.as_str(), uncut.answer.as_str());
    assert_eq!(thinking(&resumed), thinking(&uncut));
    assert_eq!(searches(&resumed), searches(&uncut));
    assert_eq!(resumed.stats, uncut.stats);
    assert!(resumed.answer.as_str().contains("Sodium-ion vs LFP"));

    // The client asked for the events after the last one it had, with its key, as a GET.
    let requests = received(cutting).await;
    let created = &requests[0];
    assert_eq!(created["body"]["background"], true);
    assert_eq!(created["body"]["tools"][0]["type"], "web_search_preview");
    let resume = &requests[1];
    assert_eq!(resume["method"], "GET");
    let path = resume["path"].as_str().unwrap();
    let run_id = resumed.ids.chat_id.clone().unwrap();
    let prefix = format!("/v1/responses/{run_id}?stream=true&starting_after=");
    let after: u64 = path.strip_prefix(&prefix).expect(path).parse().unwrap();
    assert!(after > 10, "{path}");
    assert_eq!(resume["api_key_present"], true);
    assert!(!requests.iter().any(|r| r.to_string().contains(KEY)));

    // The saved bytes of both connections replay into the same answer.
    let mut pipeline = EventPipeline::auto();
    let mut events = Vec::new();
    pipeline.feed(&raw.lock().unwrap(), &mut events).unwrap();
    pipeline.finish(&mut events).unwrap();
    assert_eq!(pipeline.provider(), Some(Provider::OpenAI));
    let mut replayed = Session::new();
    replayed.apply_all(events);
    assert_eq!(replayed.answer.as_str(), uncut.answer.as_str());
}

#[tokio::test]
async fn every_web_search_action_and_the_reasoning_show_in_the_activity_as_they_happen() {
    let addr = start(None, 100.0).await;
    let question = Ask::new(live::demo_question(Provider::OpenAI));
    let (session, _, _) = run(live::start(&config(Provider::OpenAI, addr), &question)).await;
    assert_eq!(
        searches(&session),
        [
            "search sodium-ion battery grid storage deployment 2026 MWh",
            "search sodium-ion vs LFP cell cost per kWh 2026",
            "open_page https://about.bnef.com/insights/sodium-ion-cell-costs-2026",
            "find_in_page $/kWh",
            "search CATL Naxtra sodium-ion energy density cycle life",
            "open_page https://www.iea.org/reports/grid-scale-storage-assessment",
        ]
    );
    assert!(thinking(&session).contains("**Checking the cost claims**"));
    // The reasoning arrives before the first search, the searches before the answer.
    let first_search = session
        .activity
        .iter()
        .position(|a| matches!(a, Activity::ToolCall { .. }))
        .expect("a tool call");
    assert!(matches!(session.activity[0], Activity::Thinking { .. }));
    assert!(first_search > 0);
}

#[tokio::test]
async fn cancelling_a_deep_research_turn_cancels_the_run_on_the_server() {
    // Slow enough that the run is still going when it is cancelled.
    let addr = start(None, 2.0).await;
    let config = config(Provider::OpenAI, addr);
    let question = Ask::new(live::demo_question(Provider::OpenAI));
    let mut driver: TurnDriver<NoSave> = TurnDriver::start(Vec::new(), None, |sink| {
        live::start_recorded(&config, &question, sink)
    });
    let mut session = Session::new();
    while session.ids.chat_id.is_none() {
        let update = tokio::time::timeout(Duration::from_secs(20), driver.next_update())
            .await
            .unwrap();
        driver.apply(update, &mut session).unwrap();
    }
    driver.cancel(&session).unwrap();
    let run = driver.take_cancelled_run().expect("a run on the server");
    let id = run.cancel().await.expect("the server cancels it");
    assert_eq!(Some(id.clone()), session.ids.chat_id);

    let requests = received(addr).await;
    let cancel = requests.last().unwrap();
    assert_eq!(cancel["method"], "POST");
    assert_eq!(cancel["path"], format!("/v1/responses/{id}/cancel"));
    assert_eq!(cancel["status"], 200);
    assert_eq!(cancel["api_key_present"], true);
    let status: Value = research_tui::agent::http::client_builder()
        .no_proxy()
        .build()
        .unwrap()
        .get(format!("http://{addr}/v1/responses/{id}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(status["status"], "cancelled");
}

#[tokio::test]
async fn perplexity_markers_cite_their_sources_and_think_is_thinking() {
    let addr = start(None, 200.0).await;
    let question = Ask::new(live::demo_question(Provider::Perplexity));
    let (session, end, _) = run(live::start(&config(Provider::Perplexity, addr), &question)).await;
    assert_eq!(end, StreamEnd::Closed);
    assert_eq!(session.status(), Status::Complete);
    let answer = session.answer.as_str();
    assert!(answer.starts_with("In 2025 the AI Act"), "{answer}");
    assert!(!answer.contains("think>"), "{answer}");
    assert!(thinking(&session).starts_with("\nThe user asks about 2025 changes"));
    // Each `[n]` is a citation of its own span, of entry n of the provider's list.
    let attribution = Attribution::resolve(&session, true);
    let cited: Vec<(String, String)> = attribution
        .citations
        .iter()
        .map(|c| {
            let source = &attribution.sources[c.source.unwrap() - 1];
            (c.text(answer).to_owned(), source.url.clone().unwrap())
        })
        .collect();
    let act = "https://eur-lex.europa.eu/eli/reg/2024/1689/oj";
    let timeline = "https://artificialintelligenceact.eu/implementation-timeline/";
    assert_eq!(
        cited,
        [
            ("[1]", act),
            ("[4]", timeline),
            (
                "[2]",
                "https://digital-strategy.ec.europa.eu/en/library/guidelines-gpai-providers"
            ),
            (
                "[3]",
                "https://digital-strategy.ec.europa.eu/en/policies/contents-code-gpai"
            ),
            ("[1]", act),
            ("[4]", timeline),
        ]
        .map(|(text, url)| (text.to_owned(), url.to_owned()))
    );
    assert_eq!(attribution.invalid_references, 0);
    // The fifth search result is listed, never cited.
    let consulted: Vec<_> = attribution
        .sources
        .iter()
        .filter(|s| s.consulted_only)
        .collect();
    assert_eq!(consulted.len(), 1);
}

#[tokio::test]
async fn a_perplexity_follow_up_resends_the_conversation() {
    let addr = start(None, 200.0).await;
    let config = config(Provider::Perplexity, addr);
    let first = Ask::new(live::demo_question(Provider::Perplexity));
    let (session, _, _) = run(live::start(&config, &first)).await;
    let follow_up = Ask {
        history: vec![(first.question.clone(), session.answer.as_str().to_owned())],
        chat_id: session.ids.chat_id.clone(),
        ..Ask::new("And what are the fines?")
    };
    let (second, _, _) = run(live::start(&config, &follow_up)).await;
    assert!(second.answer.as_str().contains("3 % of worldwide"));
    let requests = received(addr).await;
    let messages = requests[1]["body"]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"], session.answer.as_str());
    assert_eq!(messages[2]["content"], "And what are the fines?");
    assert_eq!(requests[1]["body"]["model"], "sonar-pro");
}

// ------------------------------------------------------------------------------ `ask`, end to end

fn ask(dir: &std::path::Path, args: &[&str]) -> Output {
    support::cli(dir).arg("ask").args(args).output().unwrap()
}

#[test]
fn ask_with_the_demo_answers_in_every_format_for_both_providers() {
    let dir = tempfile::tempdir().unwrap();
    for provider in ["openai", "perplexity"] {
        let demo = ["--demo", "--demo-speed", "100", "--provider", provider];
        let text = ask(dir.path(), &[&["What is new?"][..], &demo].concat());
        assert_eq!(text.status.code(), Some(0), "{provider}");
        let text = String::from_utf8(text.stdout).unwrap();
        let markdown = ask(
            dir.path(),
            &[&["What is new?", "--format", "markdown"][..], &demo].concat(),
        );
        let markdown = String::from_utf8(markdown.stdout).unwrap();
        let json = ask(
            dir.path(),
            &[&["What is new?", "--format", "json"][..], &demo].concat(),
        );
        let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(doc["status"], "complete", "{provider}");
        assert!(doc["checkpoint_id"].is_string(), "{provider}: {doc}");
        // Cited sources, or (OpenAI's link spans, until the Responses dialect resolves any span)
        // the same URLs as consulted ones.
        let listed = |key: &str| doc[key].as_array().map_or(0, Vec::len);
        assert!(
            listed("sources") + listed("consulted_sources") >= 4,
            "{provider}: {doc}"
        );
        let answer = doc["answer"].as_str().unwrap();
        assert!(!answer.contains("<think>"), "{provider}");
        let first_line = answer.lines().next().unwrap();
        assert!(text.contains(first_line), "{provider}: {text}");
        assert!(
            markdown.contains(first_line.trim_start_matches("# ")),
            "{provider}"
        );
        if provider == "perplexity" {
            // Our numbers stand in for Perplexity's, the same in the streamed text and the
            // sources list: its `[4]` (our second source) prints as [2].
            assert!(text.contains("training content [1][2]."), "{text}");
            assert!(text.contains("[2] artificialintelligenceact.eu"), "{text}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_follow_ups_chain_the_previous_response_and_the_key_is_never_written() {
    let addr = start(None, 200.0).await;
    let base = format!("http://{addr}");
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        support::cli(dir.path())
            .args([
                "ask",
                "--provider",
                "openai",
                "--base-url",
                &base,
                "--format",
                "json",
            ])
            .args(args)
            .env("OPENAI_API_KEY", KEY)
            .output()
            .unwrap()
    };
    let first = tokio::task::block_in_place(|| run(&["Sodium-ion?"]));
    assert_eq!(first.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&first.stdout).unwrap();
    let chat = doc["chat_id"].as_str().unwrap().to_owned();
    let second = tokio::task::block_in_place(|| run(&["What would tip it?", "--chat-id", &chat]));
    assert_eq!(second.status.code(), Some(0));
    let requests = received(addr).await;
    assert_eq!(requests[1]["body"]["previous_response_id"], chat.as_str());
    for output in [&first, &second] {
        assert!(!String::from_utf8_lossy(&output.stdout).contains(KEY));
        assert!(!String::from_utf8_lossy(&output.stderr).contains(KEY));
    }
    for path in walk(dir.path()) {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        assert!(!text.contains(KEY), "{}", path.display());
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_in_ask_cancels_the_deep_research_run_on_the_server() {
    let addr = start(None, 1.0).await;
    let dir = tempfile::tempdir().unwrap();
    let child = support::cli(dir.path())
        .args(["ask", "Sodium-ion?", "--provider", "openai"])
        .args(["--base-url", &format!("http://{addr}")])
        .env("OPENAI_API_KEY", KEY)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The run exists once response.created arrived: wait until `ask` has saved it in its turn file.
    let sessions = dir.path().join("data/research-tui/sessions");
    support::wait_until(
        "ask saved response.created",
        Duration::from_secs(20),
        || {
            support::files_under(&sessions).iter().any(|path| {
                path.extension().is_some_and(|e| e == "sse")
                    && std::fs::read_to_string(path).is_ok_and(|t| t.contains("response.created"))
            })
        },
    );
    let pid = child.id().to_string();
    let killed = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(killed.success());
    let output = tokio::task::block_in_place(|| child.wait_with_output().unwrap());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cancelled the run resp-"), "{stderr}");
    let requests = received(addr).await;
    let cancel = requests.last().unwrap();
    assert!(
        cancel["path"].as_str().unwrap().ends_with("/cancel"),
        "{requests:?}"
    );
    assert_eq!(cancel["status"], 200);
}
