//! Google Gemini over real sockets: the demo agent on 127.0.0.1 speaking the Interactions API (the
//! Deep Research agent) and `streamGenerateContent` (a model grounded with Google Search), reached
//! through `agent::live` and the real `research-tui ask` binary. A deep research interaction cut
//! mid-answer resumes from its last event id and equals the uncut one exactly; Ctrl-C's cancel
//! reaches the server; a follow-up sends `previous_interaction_id`; a grounded answer's byte
//! offsets land on the right text after non-ASCII characters.

use std::net::SocketAddr;
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
use serde_json::{Value, json};

use crate::support;
use crate::support::live::{NoSave, received, run};

const KEY: &str = "AIzaTEST-gemini-key-0042";

async fn start(fault: Option<Fault>, speed: f64) -> SocketAddr {
    support::demo_agent_with(ServerConfig {
        speed,
        fault,
        ..ServerConfig::default()
    })
    .await
}

fn config(addr: SocketAddr, model: Option<&str>) -> LiveConfig {
    let mut config = LiveConfig {
        api_key: Some(ApiKey::new(KEY)),
        ..LiveConfig::demo(Provider::Gemini, addr)
    };
    config.model = model.map(str::to_owned);
    config
}

/// What a reader sees of a session: answer, every citation (its text and its source's URL and
/// publisher), consulted sources, thinking, and the tool calls in order.
fn seen(session: &Session) -> Value {
    let attribution = Attribution::resolve(session, true);
    let answer = session.answer.as_str();
    let citations: Vec<Value> = attribution
        .citations
        .iter()
        .map(|c| {
            let source = c
                .source
                .and_then(|n| attribution.numbered().find(|s| s.n == n));
            json!([
                c.start,
                c.end,
                c.text(answer),
                source.map(|s| (&s.url, &s.publisher))
            ])
        })
        .collect();
    let consulted: Vec<&str> = attribution
        .sources
        .iter()
        .filter(|s| s.consulted_only)
        .map(|s| s.key.as_str())
        .collect();
    let mut thinking = String::new();
    let mut tools = Vec::new();
    for activity in &session.activity {
        match activity {
            Activity::Thinking { text, .. } => thinking.push_str(text),
            Activity::ToolCall {
                tool_name,
                arguments,
                ..
            } => tools.push(format!("{tool_name} {arguments}")),
            _ => {}
        }
    }
    json!({"answer": answer, "citations": citations, "consulted": consulted,
           "thinking": thinking, "tools": tools, "status": session.status().as_str()})
}

#[tokio::test]
async fn a_deep_research_interaction_cut_mid_answer_resumes_from_its_last_event_id_exactly() {
    let question = Ask::new(live::demo_question(Provider::Gemini));
    let whole = start(None, 100.0).await;
    let (uncut, end, retries) = run(live::start(&config(whole, None), &question)).await;
    assert_eq!(end, StreamEnd::Closed);
    assert!(retries.is_empty());
    assert_eq!(uncut.status(), Status::Complete);

    // The server-wide fault cuts the stream that creates the interaction, halfway through the
    // report.
    let cutting = start(Some(Fault::CutMidAnswer), 100.0).await;
    let raw: Arc<Mutex<Vec<u8>>> = Arc::default();
    let sink: RawSink = raw.clone();
    let handle = live::start_recorded(&config(cutting, None), &question, Some(sink));
    let (resumed, end, retries) = run(handle).await;

    assert_eq!(end, StreamEnd::Closed, "the resumed stream completes");
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert!(retries[0].contains("resuming the run"), "{retries:?}");
    // Answer, every citation with its source, consulted pages, thinking, searches and status:
    // nothing lost, nothing twice.
    assert_eq!(seen(&resumed), seen(&uncut));
    assert_eq!(resumed.stats, uncut.stats);
    assert_eq!(Attribution::resolve(&uncut, true).citations.len(), 5);

    // The client created the interaction in the background, then asked for the events after the
    // last one it had, by its id, with its key, as a GET.
    let requests = received(cutting).await;
    let created = &requests[0];
    assert_eq!(created["path"], "/v1beta/interactions");
    assert_eq!(created["body"]["agent"], "deep-research-preview-04-2026");
    assert_eq!(created["body"]["background"], true);
    assert_eq!(created["body"]["stream"], true);
    let resume = &requests[1];
    assert_eq!(resume["method"], "GET");
    let path = resume["path"].as_str().unwrap();
    let id = resumed.ids.chat_id.clone().unwrap();
    let prefix = format!("/v1beta/interactions/{id}?stream=true&last_event_id=v1_");
    assert!(path.starts_with(&prefix), "{path}");
    assert_eq!(resume["api_key_present"], true);
    assert!(!requests.iter().any(|r| r.to_string().contains(KEY)));

    // The saved bytes of both connections replay, unnamed, into the same session.
    let mut pipeline = EventPipeline::auto();
    let mut events = Vec::new();
    pipeline.feed(&raw.lock().unwrap(), &mut events).unwrap();
    pipeline.finish(&mut events).unwrap();
    assert_eq!(pipeline.provider(), Some(Provider::Gemini));
    let mut replayed = Session::new();
    replayed.apply_all(events);
    assert_eq!(seen(&replayed), seen(&uncut));
}

#[tokio::test]
async fn thoughts_searches_and_pages_read_show_in_the_activity_and_never_in_the_answer() {
    let addr = start(None, 100.0).await;
    let question = Ask::new(live::demo_question(Provider::Gemini));
    let (session, _, _) = run(live::start(&config(addr, None), &question)).await;
    let seen = seen(&session);
    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(tools.len(), 6, "{tools:?}");
    assert!(tools[0].starts_with("google_search {\"query\":\"perovskite silicon tandem record"));
    assert!(tools[2].starts_with("url_context {\"url\":\"https://www.oxfordpv.com/"));
    let thinking = seen["thinking"].as_str().unwrap();
    assert!(
        thinking.starts_with("**Planning the research**"),
        "{thinking}"
    );
    let answer = session.answer.as_str();
    assert!(
        answer.starts_with("# Perovskite–silicon tandems"),
        "{answer}"
    );
    assert!(!answer.contains("Planning the research"));
    // The citations sit on their sentences, after an emoji, `≈` and `–` (byte offsets resolved).
    let attribution = Attribution::resolve(&session, true);
    let first = &attribution.citations[0];
    assert_eq!(
        first.text(answer),
        "Certified lab cells have passed 34 % efficiency, well above the ≈ 27 % ceiling of \
         single-junction silicon"
    );
    let publishers: Vec<&str> = attribution
        .numbered()
        .map(|s| s.publisher.as_str())
        .collect();
    assert_eq!(
        publishers,
        [
            "nrel.gov",
            "longi.com",
            "oxfordpv.com",
            "pv-magazine.com",
            "iea.org"
        ]
    );
}

#[tokio::test]
async fn a_follow_up_sends_the_previous_interaction_and_reads_the_older_content_events() {
    let addr = start(None, 100.0).await;
    let first = Ask::new(live::demo_question(Provider::Gemini));
    let (session, _, _) = run(live::start(&config(addr, None), &first)).await;
    let id = session.ids.chat_id.clone().unwrap();
    let follow_up = Ask {
        checkpoint_id: session.checkpoint_id().map(str::to_owned),
        chat_id: Some(id.clone()),
        ..Ask::new("What would have to happen for tandems to reach gigawatt factories?")
    };
    let (next, end, _) = run(live::start(&config(addr, None), &follow_up)).await;
    assert_eq!(end, StreamEnd::Closed);
    assert_eq!(next.status(), Status::Complete);
    assert!(
        next.answer
            .as_str()
            .starts_with("Three things would move tandems")
    );
    let attribution = Attribution::resolve(&next, true);
    let cited: Vec<&str> = attribution
        .citations
        .iter()
        .map(|c| c.text(next.answer.as_str()))
        .collect();
    assert_eq!(
        cited,
        [
            "Insurers and lenders want years of outdoor performance, not only damp-heat certificates",
            "With silicon modules under US$0.10/W"
        ]
    );
    let requests = received(addr).await;
    assert_eq!(requests[1]["body"]["previous_interaction_id"], id.as_str());
}

#[tokio::test]
async fn a_model_with_google_search_cites_byte_offset_spans_and_names_publishers_by_domain() {
    let addr = start(None, 100.0).await;
    let question = Ask::new("Is perovskite–silicon tandem solar in mass production yet?");
    let (session, end, _) = run(live::start(
        &config(addr, Some("gemini-2.5-flash")),
        &question,
    ))
    .await;
    assert_eq!(end, StreamEnd::Closed);
    assert_eq!(session.status(), Status::Complete);
    let answer = session.answer.as_str();
    assert!(answer.starts_with("Perovskite–silicon tandem solar is close to"));
    assert!(
        !answer.contains("Checking the state"),
        "a thought part is not answer text"
    );
    let seen = seen(&session);
    assert!(
        seen["thinking"]
            .as_str()
            .unwrap()
            .contains("Checking the state")
    );
    assert_eq!(
        seen["tools"][0],
        "google_search {\"query\":\"perovskite silicon tandem mass production 2026\"}"
    );
    let attribution = Attribution::resolve(&session, true);
    let cited: Vec<(&str, &str)> = attribution
        .citations
        .iter()
        .map(|c| {
            let source = attribution
                .numbered()
                .find(|s| Some(s.n) == c.source)
                .unwrap();
            (c.text(answer), source.publisher.as_str())
        })
        .collect();
    // One support citing two pages is two citations of one span.
    assert_eq!(
        cited,
        [
            ("Record research cells exceed 34 % efficiency", "nrel.gov"),
            (
                "the first commercial tandem modules have shipped while large manufacturers run pilot lines",
                "oxfordpv.com"
            ),
            (
                "the first commercial tandem modules have shipped while large manufacturers run pilot lines",
                "longi.com"
            ),
            ("outdoor track records are still short", "pv-magazine.com"),
        ]
    );
    // The links open as given (Google's redirect); the page never cited is consulted.
    let first = attribution.numbered().next().unwrap();
    assert!(
        first
            .url
            .as_deref()
            .unwrap()
            .starts_with("https://vertexaisearch.cloud.google.com/grounding-api-redirect/")
    );
    assert_eq!(seen["consulted"].as_array().unwrap().len(), 1);

    let requests = received(addr).await;
    assert_eq!(
        requests[0]["path"],
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(requests[0]["body"]["tools"], json!([{"google_search": {}}]));
}

#[tokio::test]
async fn cancelling_a_deep_research_turn_cancels_the_interaction_on_the_server() {
    // Slow enough that the interaction is still going when it is cancelled.
    let addr = start(None, 2.0).await;
    let config = config(addr, None);
    let question = Ask::new(live::demo_question(Provider::Gemini));
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
    let run = driver
        .take_cancelled_run()
        .expect("an interaction on the server");
    let id = run.cancel().await.expect("the server cancels it");
    assert_eq!(Some(id.clone()), session.ids.chat_id);

    let requests = received(addr).await;
    let cancel = requests.last().unwrap();
    assert_eq!(cancel["method"], "POST");
    assert_eq!(cancel["path"], format!("/v1beta/interactions/{id}/cancel"));
    assert_eq!(cancel["status"], 200);
    assert_eq!(cancel["api_key_present"], true);
}

// ------------------------------------------------------------------------------ `ask`, end to end

fn ask(dir: &std::path::Path, args: &[&str]) -> Value {
    let demo = [
        "--demo",
        "--demo-speed",
        "100",
        "--provider",
        "gemini",
        "--format",
        "json",
    ];
    let output = crate::support::cli(dir)
        .arg("ask")
        .args(args)
        .args(demo)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn ask_with_the_demo_runs_deep_research_and_a_resumed_follow_up_continues_the_interaction() {
    let dir = tempfile::tempdir().unwrap();
    let first = ask(dir.path(), &["How far has tandem solar come?"]);
    assert_eq!(first["status"], "complete");
    assert_eq!(first["sources"].as_array().unwrap().len(), 5, "{first}");
    let checkpoint = first["checkpoint_id"].as_str().unwrap().to_owned();
    assert!(checkpoint.starts_with("v1_"), "{checkpoint}");
    let next = ask(
        dir.path(),
        &[
            "What would it take to reach gigawatt factories?",
            "--resume",
            &checkpoint,
        ],
    );
    assert_eq!(next["status"], "complete");
    let answer = next["answer"].as_str().unwrap();
    assert!(
        answer.starts_with("Three things would move tandems"),
        "{answer}"
    );
    // Both turns are in one saved session.
    let sessions = crate::support::cli(dir.path())
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    let listed = String::from_utf8(sessions.stdout).unwrap();
    assert_eq!(listed.lines().count(), 1, "{listed}");
    let session: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(session["turns"].as_array().unwrap().len(), 2, "{listed}");
    assert_eq!(
        session["turns"][1]["from_checkpoint_id"],
        checkpoint.as_str()
    );
}
