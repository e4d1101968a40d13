//! A live turn against the demo agent, as the tests of the research APIs follow it: the session
//! its stream builds, how it ended and the retries it reported; what the agent received; a turn
//! saved nowhere.

use std::net::SocketAddr;
use std::time::Duration;

use research_tui::agent::stream::StreamUpdate;

use research_tui::agent::client::StreamHandle;

use research_tui::agent::turn::TurnRecorder;
use research_tui::model::session::Session;
use research_tui::model::stream_end::StreamEnd;
use serde_json::Value;

/// The session, how the stream ended, and the retries it reported (within 60 s).
pub async fn run(mut handle: StreamHandle) -> (Session, StreamEnd, Vec<String>) {
    let mut session = Session::new();
    let mut retries = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let update = tokio::time::timeout_at(deadline, handle.updates.recv())
            .await
            .expect("the stream ends within 60 s")
            .expect("Ended comes before the channel closes");
        match update {
            StreamUpdate::Events(events) => session.apply_all(events),
            StreamUpdate::Retrying { reason, .. } => retries.push(reason),
            StreamUpdate::Ended(end) => return (session, end, retries),
            _ => {}
        }
    }
}

/// The requests the demo agent at `addr` received (`GET /_demo/requests`).
pub async fn received(addr: SocketAddr) -> Vec<Value> {
    let client = research_tui::agent::http::client_builder()
        .no_proxy()
        .build()
        .unwrap();
    let url = format!("http://{addr}/_demo/requests");
    client.get(url).send().await.unwrap().json().await.unwrap()
}

/// A turn saved nowhere.
pub struct NoSave;

impl TurnRecorder for NoSave {
    fn progress(&mut self, _: &Session) -> std::io::Result<()> {
        Ok(())
    }
    fn end(&mut self, _: &Session, _: &StreamEnd) -> std::io::Result<()> {
        Ok(())
    }
}
