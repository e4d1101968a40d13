//! xAI and Zeta Alpha over real sockets: the demo server's `/v1/responses` and
//! `/v0/service/chat/stream`, reached through `agent::live` exactly as a live session would be.

use std::net::SocketAddr;
use std::time::Duration;

use research_tui::agent::client::ApiKey;
use research_tui::agent::client::StreamHandle;
use research_tui::agent::live::{self, LiveConfig};
use research_tui::agent::stream::StreamUpdate;
use research_tui::demo::{Fault, ServerConfig};
use research_tui::model::session::{Session, Status};
use research_tui::model::stream_end::StreamEnd;
use research_tui::wire::provider::Ask;
use research_tui::wire::provider::Provider;

use crate::support;

async fn start(fault: Option<Fault>) -> SocketAddr {
    support::demo_agent_with(ServerConfig {
        speed: 200.0,
        fault,
        ..ServerConfig::default()
    })
    .await
}

/// The session and how the stream ended (within 30 s).
async fn run(mut handle: StreamHandle) -> (Session, StreamEnd) {
    let mut session = Session::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let update = tokio::time::timeout_at(deadline, handle.updates.recv())
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

#[tokio::test]
async fn an_xai_question_streams_a_complete_session_and_the_follow_up_chains_the_response_id() {
    let addr = start(None).await;
    let config = LiveConfig {
        api_key: Some(ApiKey::new("xai-demo-key")),
        ..LiveConfig::demo(Provider::Xai, addr)
    };
    let (first, end) = run(live::start(
        &config,
        &Ask::new(live::demo_question(Provider::Xai)),
    ))
    .await;
    assert_eq!(end, StreamEnd::Closed);
    assert_eq!(first.status(), Status::Complete);
    let response_id = first.checkpoint_id().unwrap().to_owned();
    assert!(response_id.starts_with("resp-"), "{response_id}");
    assert_eq!(first.ids.chat_id.as_deref(), Some(response_id.as_str()));
    assert!(
        first
            .answer
            .as_str()
            .contains("[[1]](https://global.toyota/")
    );
    assert_eq!(first.references.len(), 15);

    let follow_up = Ask {
        chat_id: first.ids.chat_id.clone(),
        checkpoint_id: Some(response_id.clone()),
        ..Ask::new("How do their energy densities compare?")
    };
    let (second, _) = run(live::start(&config, &follow_up)).await;
    assert_eq!(second.status(), Status::Complete);
    assert!(second.answer.as_str().starts_with("## Energy density"));
    assert_ne!(second.checkpoint_id(), Some(response_id.as_str()));

    let requests = crate::support::live::received(addr).await;
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0]["path"], "/v1/responses");
    assert_eq!(requests[0]["api_key_present"], true);
    assert_eq!(requests[0]["body"]["stream"], true);
    assert_eq!(requests[0]["body"]["tools"][1]["type"], "x_search");
    assert_eq!(requests[1]["body"]["previous_response_id"], response_id);
}

#[tokio::test]
async fn a_zeta_question_streams_a_complete_session_and_the_follow_up_keeps_the_session() {
    let addr = start(None).await;
    let config = LiveConfig::demo(Provider::Zeta, addr);
    let question = live::demo_question(Provider::Zeta);
    let (first, end) = run(live::start(&config, &Ask::new(question))).await;
    assert_eq!(end, StreamEnd::Closed);
    assert_eq!(first.status(), Status::Complete);
    let session_id = first.ids.chat_id.clone().unwrap();
    assert!(session_id.starts_with("sess-"), "{session_id}");
    assert!(first.answer.as_str().contains("<sup>1</sup>"));
    assert!(!first.answer.as_str().contains("[[1]]("));
    assert_eq!(first.references.len(), 11);

    let follow_up = Ask {
        chat_id: Some(session_id.clone()),
        history: vec![(question.to_owned(), first.answer.as_str().to_owned())],
        ..Ask::new("Which works best for scientific PDFs with tables?")
    };
    let (second, _) = run(live::start(&config, &follow_up)).await;
    assert_eq!(second.status(), Status::Complete);
    assert_eq!(second.ids.chat_id.as_deref(), Some(session_id.as_str()));
    assert!(second.answer.as_str().starts_with("## Scientific PDFs"));
    // This turn's evidences only: none of the first turn's documents.
    let first_keys: Vec<_> = first
        .references
        .iter()
        .filter_map(|r| r.source.as_ref()?.url.clone())
        .collect();
    assert!(second.references.iter().all(|r| {
        let url = r.source.as_ref().unwrap().url.clone().unwrap();
        !first_keys.contains(&url) || url.contains("7c41e0a5b2f6")
    }));

    let requests = crate::support::live::received(addr).await;
    assert_eq!(requests[0]["path"], "/v0/service/chat/stream?tenant=demo");
    assert_eq!(
        requests[0]["body"]["agent_identifier"],
        "chat_with_dynamic_retrieval"
    );
    let conversation = requests[1]["body"]["conversation"].as_array().unwrap();
    assert_eq!(conversation.len(), 3);
    assert_eq!(conversation[1]["sender"], "bot");
    assert_eq!(requests[1]["body"]["session_id"], session_id.as_str());
}

#[tokio::test]
async fn a_zeta_stream_cut_mid_answer_is_not_taken_as_complete() {
    let addr = start(Some(Fault::CutMidAnswer)).await;
    let config = LiveConfig::demo(Provider::Zeta, addr);
    let (session, end) = run(live::start(&config, &Ask::new("q"))).await;
    assert!(matches!(end, StreamEnd::Cut { .. }), "{end:?}");
    assert_eq!(session.status(), Status::Incomplete);
    assert!(!session.answer.as_str().is_empty());
}

#[tokio::test]
async fn a_rejected_xai_key_is_an_http_error_and_is_not_retried() {
    let addr = start(Some(Fault::Status(401))).await;
    let config = LiveConfig {
        api_key: Some(ApiKey::new("xai-wrong-key")),
        ..LiveConfig::demo(Provider::Xai, addr)
    };
    let (session, end) = run(live::start(&config, &Ask::new("q"))).await;
    match end {
        StreamEnd::Http { status, message } => {
            assert_eq!(status, 401);
            assert!(message.starts_with("the API key was rejected"), "{message}");
            assert!(!message.contains("xai-wrong-key"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(session.status(), Status::Incomplete);
    assert_eq!(crate::support::live::received(addr).await.len(), 1);
}
