//! The demo agent's Bigdata.com side against the API's documented behaviour: a conversation keeps
//! its `persistence_mode` for its whole life (a follow-up asking for the other mode gets 400
//! `persistence_mode mismatch`), a follow-up is answered as one (refused while the chat still
//! streams its last answer, never given the first answer again), and every grounding reference of
//! its recordings names an AUDIT trace. Real HTTP on 127.0.0.1, through the app's own client.

use std::net::SocketAddr;
use std::time::Duration;

use research_tui::agent::client::{AgentClient, ResearchRequest, StreamHandle, StreamOptions};
use research_tui::agent::stream::StreamUpdate;
use research_tui::demo::{Fault, ServerConfig};
use research_tui::model::session::{Session, Status};
use research_tui::model::stream_end::StreamEnd;
use serde_json::Value;

use crate::support;

async fn start() -> SocketAddr {
    support::demo_agent(200.0).await
}

/// The session and how the stream ended.
async fn research(addr: SocketAddr, request: ResearchRequest) -> (Session, StreamEnd) {
    let mut handle = send(addr, request);
    follow(&mut handle, Session::new()).await
}

fn send(addr: SocketAddr, request: ResearchRequest) -> StreamHandle {
    let client = AgentClient::new(&format!("http://{addr}/"), None);
    client.research(request, StreamOptions::default())
}

/// `session` brought to the end of `handle`'s stream, and how it ended.
async fn follow(handle: &mut StreamHandle, mut session: Session) -> (Session, StreamEnd) {
    loop {
        let update = tokio::time::timeout(Duration::from_secs(30), handle.updates.recv())
            .await
            .expect("the stream ends within 30 s")
            .expect("Ended comes before the channel closes");
        match update {
            StreamUpdate::Events(events) => session.apply_all(events),
            StreamUpdate::Ended(end) => return (session, end),
            _ => {}
        }
    }
}

fn ask(persistence_mode: Option<&str>) -> ResearchRequest {
    ResearchRequest {
        persistence_mode: persistence_mode.map(str::to_owned),
        ..ResearchRequest::new("Break down NVIDIA's latest quarter")
    }
}

fn assert_mismatch(end: &StreamEnd) {
    match end {
        StreamEnd::Http { status, message } => {
            assert_eq!(*status, 400);
            assert!(message.contains("persistence_mode mismatch"), "{message}");
        }
        other => panic!("expected HTTP 400, got {other:?}"),
    }
}

#[tokio::test]
async fn a_follow_up_in_another_persistence_mode_is_refused_and_the_same_mode_continues() {
    let addr = start().await;
    let (first, _) = research(addr, ask(Some("enabled"))).await;
    assert_eq!(first.status(), Status::Complete);
    let chat_id = first.ids.chat_id.clone().unwrap();
    let checkpoint = first.checkpoint_id().unwrap().to_owned();

    // No mode means the default, `disabled`: not the conversation's.
    let (_, end) = research(
        addr,
        ResearchRequest {
            chat_id: Some(chat_id.clone()),
            ..ask(None)
        },
    )
    .await;
    assert_mismatch(&end);
    let (_, end) = research(
        addr,
        ResearchRequest {
            from_checkpoint_id: Some(checkpoint),
            ..ask(Some("disabled"))
        },
    )
    .await;
    assert_mismatch(&end);

    let (follow_up, _) = research(
        addr,
        ResearchRequest {
            chat_id: Some(chat_id.clone()),
            ..ask(Some("enabled"))
        },
    )
    .await;
    assert_eq!(follow_up.status(), Status::Complete);
    assert_eq!(follow_up.ids.chat_id.as_deref(), Some(chat_id.as_str()));
}

#[tokio::test]
async fn a_new_conversation_without_a_mode_is_disabled_and_refuses_enabled_follow_ups() {
    let addr = start().await;
    let (first, _) = research(addr, ask(None)).await;
    let chat_id = first.ids.chat_id.clone().unwrap();
    let (_, end) = research(
        addr,
        ResearchRequest {
            chat_id: Some(chat_id),
            ..ask(Some("enabled"))
        },
    )
    .await;
    assert_mismatch(&end);
}

/// The plan titles of the demo's Bigdata.com recordings: the first answer and the follow-up.
const FIRST_ANSWER: &str = "NVIDIA Q1 FY2027 earnings deep dive";
const FOLLOW_UP: &str = "NVIDIA vs AMD: data-center guidance";

fn plan_title(session: &Session) -> &str {
    session
        .plan
        .as_ref()
        .and_then(|plan| plan.title.as_deref())
        .unwrap_or("")
}

fn follow_up_in(chat_id: &str) -> ResearchRequest {
    ResearchRequest {
        chat_id: Some(chat_id.to_owned()),
        ..ResearchRequest::new("And how does AMD's data-center guidance compare?")
    }
}

#[tokio::test]
async fn a_follow_up_sent_while_the_first_answer_streams_is_refused_then_answered_as_a_follow_up() {
    // About 5 s for the first answer: long enough for the follow-up to arrive while it streams.
    let addr = support::demo_agent(4.0).await;
    let mut first = send(addr, ask(None));
    let mut session = Session::new();
    let chat_id = loop {
        match first.updates.recv().await.expect("the first turn streams") {
            StreamUpdate::Events(events) => session.apply_all(events),
            StreamUpdate::Ended(end) => {
                panic!("the first turn ended before naming its chat: {end:?}")
            }
            _ => {}
        }
        if let Some(chat_id) = session.ids.chat_id.clone() {
            break chat_id;
        }
    };

    let (early, end) = research(addr, follow_up_in(&chat_id)).await;
    match &end {
        StreamEnd::Http {
            status: 400,
            message,
        } => {
            assert!(message.contains("still answering"), "{message}");
        }
        other => panic!("a follow-up while the first answer streams is refused, got {other:?}"),
    }
    assert_eq!(plan_title(&early), "", "nothing is played for it");

    let (first, end) = follow(&mut first, session).await;
    assert_eq!(first.status(), Status::Complete, "{end:?}");
    assert_eq!(plan_title(&first), FIRST_ANSWER);
    let (follow_up, _) = research(addr, follow_up_in(&chat_id)).await;
    assert_eq!(follow_up.status(), Status::Complete);
    assert_eq!(plan_title(&follow_up), FOLLOW_UP);
    assert_eq!(follow_up.ids.chat_id.as_deref(), Some(chat_id.as_str()));
}

#[tokio::test]
async fn after_a_first_turn_is_cut_its_retry_gets_the_first_answer_and_a_new_question_the_follow_up()
 {
    let addr = support::demo_agent_with(ServerConfig {
        speed: 200.0,
        fault: Some(Fault::CutMidAnswer),
        ..ServerConfig::default()
    })
    .await;
    let (first, end) = research(addr, ask(None)).await;
    assert!(matches!(end, StreamEnd::Cut { .. }), "{end:?}");
    let chat_id = first.ids.chat_id.clone().unwrap();
    // Every stream is cut too, after its plan has arrived.
    let (follow_up, _) = research(addr, follow_up_in(&chat_id)).await;
    assert_eq!(plan_title(&follow_up), FOLLOW_UP);
    let retry = ResearchRequest {
        chat_id: Some(chat_id),
        ..ask(None)
    };
    let (retried, _) = research(addr, retry).await;
    assert_eq!(plan_title(&retried), FIRST_ANSWER);
}

#[test]
fn every_grounding_reference_of_the_demo_recordings_names_an_audit_trace_of_its_stream() {
    let dir = format!("{}/assets/recordings/bigdata", env!("CARGO_MANIFEST_DIR"));
    for name in [
        "earnings-deep-dive.sse",
        "sector-comparison.sse",
        "follow-up.sse",
        "workflow-earnings-brief.sse",
    ] {
        let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
        let messages: Vec<Value> = text
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .map(|data| serde_json::from_str::<Value>(data).unwrap())
            .map(|event| {
                let body = event.get("message").or_else(|| event.get("delta"));
                body.cloned().unwrap()
            })
            .collect();
        // As the grounding guide links them: `audit_id` on a reference, `tool_id` on a trace.
        let traces: Vec<&str> = messages
            .iter()
            .filter(|m| m["type"] == "AUDIT")
            .flat_map(|m| m["audit_traces"].as_array().unwrap())
            .filter_map(|t| t["tool_id"].as_str())
            .collect();
        let references: Vec<&str> = messages
            .iter()
            .filter(|m| m["type"] == "GROUNDING")
            .flat_map(|m| m["references"].as_array().unwrap())
            .filter_map(|r| r["audit_id"].as_str())
            .collect();
        assert!(!references.is_empty(), "{name}");
        for audit_id in references {
            assert!(
                traces.contains(&audit_id),
                "{name}: {audit_id} names no trace"
            );
        }
    }
}
