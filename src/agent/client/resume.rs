//! Runs that outlive their connection ([`Runs`]: OpenAI's background responses and Gemini's
//! background interactions, deep research above all). While the stream plays, a [`RunTracker`]
//! reads the run id and each event's place in the run ([`RunCursor`]: a sequence number, an event
//! id) from the raw bytes. When the connection drops, stalls or closes before the run ended,
//! [`reconnect`] streams the same run again after the last event it saw
//! (`GET /v1/responses/{id}?stream=true&starting_after=N`,
//! `GET /v1beta/interactions/{id}?stream=true&last_event_id=E`), into the same turn: the dialect
//! drops anything it already decoded, so nothing is lost and nothing repeats. When the user stops
//! the turn, [`ServerRun::cancel`] cancels the run on the server (`POST …/{id}/cancel`);
//! otherwise it would go on, and be billed, with nobody listening.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{AgentClient, StreamOptions, backoff};
use crate::agent::stream::{StreamUpdate, UpdateSender};
use crate::wire::provider::spec::{RunCursor, Runs};
use crate::wire::provider::{Provider, WireRequest};
use crate::wire::sse::{Framing, SseDecoder, SseEvent};

/// How long a cancel request may take before the app gives up on it.
pub const CANCEL_TIMEOUT: Duration = Duration::from_secs(10);

/// A run on the server that one stream follows: what cancels it, what resumes its stream.
#[derive(Clone)]
pub struct ServerRun {
    client: AgentClient,
    runs: &'static Runs,
    /// Learnt from the stream (`response.created`).
    run_id: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for ServerRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerRun")
            .field("run_id", &self.run_id())
            .finish()
    }
}

impl ServerRun {
    /// The run `request` starts, when `provider` runs such requests on the server.
    pub fn for_request(
        client: &AgentClient,
        provider: Provider,
        request: &WireRequest,
    ) -> Option<Self> {
        let runs = provider.spec().runs.as_ref()?;
        (runs.detached)(&request.body).then(|| Self {
            client: client.clone(),
            runs,
            run_id: Arc::default(),
        })
    }

    /// The run's id, once the stream has named it.
    pub fn run_id(&self) -> Option<String> {
        self.run_id.lock().ok()?.clone()
    }

    /// A fresh tracker for one connection's bytes (the id it learns is shared).
    pub(crate) fn tracker(&self) -> RunTracker {
        RunTracker {
            run: self.clone(),
            sse: SseDecoder::new(Framing::JsonLines),
            scratch: Vec::new(),
            last: None,
            mid_line: false,
        }
    }

    /// Cancel the run on the server. `Ok` names the run cancelled; `Err` says why not (no id yet,
    /// the server refused, the request failed), the key redacted.
    pub async fn cancel(&self) -> Result<String, String> {
        let id = self
            .run_id()
            .ok_or("the run had not started on the server")?;
        let path = (self.runs.cancel_path)(&id);
        let request = self.client.authorized(reqwest::Method::POST, &path)?;
        match tokio::time::timeout(CANCEL_TIMEOUT, request.send()).await {
            Err(_) => Err(format!("no answer to the cancel request for {id}")),
            Ok(Err(e)) => Err(self.client.redact(&e.to_string())),
            Ok(Ok(response)) if response.status().is_success() => Ok(id),
            Ok(Ok(response)) => Err(format!(
                "the server refused to cancel {id}: HTTP {}",
                response.status().as_u16()
            )),
        }
    }
}

/// Reads one connection's bytes for what a resume needs: the run id, the last sequence number,
/// and whether the bytes broke off inside a line.
pub(crate) struct RunTracker {
    run: ServerRun,
    sse: SseDecoder,
    scratch: Vec<SseEvent>,
    /// Where the stream stood at the last event that arrived.
    last: Option<RunCursor>,
    mid_line: bool,
}

impl RunTracker {
    pub fn feed(&mut self, chunk: &[u8]) {
        if let Some(&last) = chunk.last() {
            self.mid_line = !matches!(last, b'\n' | b'\r');
        }
        // An overlong line is the pipeline's to report; here it only has no sequence number.
        let _ = self.sse.feed(chunk, &mut self.scratch);
        for event in self.scratch.drain(..) {
            let marks = (self.run.runs.marks)(&event.data);
            if let Some(id) = marks.run_id
                && let Ok(mut run_id) = self.run.run_id.lock()
                && run_id.is_none()
            {
                *run_id = Some(id);
            }
            if let Some(cursor) = marks.cursor {
                self.last = Some(match self.last.take() {
                    Some(last) => last.furthest(cursor),
                    None => cursor,
                });
            }
        }
    }

    /// The bytes that end a line the dropped connection broke off, before the resumed stream's
    /// first line (nothing when it broke between lines).
    pub fn separator(&self) -> &'static [u8] {
        if self.mid_line { b"\n\n" } else { b"" }
    }

    /// The path that streams the run again after what arrived, once the run is known.
    fn resume_path(&self) -> Option<String> {
        let id = self.run.run_id()?;
        Some((self.run.runs.resume_path)(
            &id,
            &self.last.as_ref()?.as_text(),
        ))
    }
}

/// The stream broke (`reason`) before the run ended: stream the run again after the last event
/// that arrived. Tries up to the stream's `max_attempts` with backoff, reporting each as a retry;
/// `None` when the run cannot be resumed (unknown yet, refused, or every try failed).
pub(crate) async fn reconnect(
    tracker: &mut RunTracker,
    options: StreamOptions,
    reason: &str,
    tx: &UpdateSender,
) -> Option<reqwest::Response> {
    let path = tracker.resume_path()?;
    let client = &tracker.run.client;
    let mut reason = format!("{reason}; resuming the run where it broke off");
    for attempt in 1..=options.max_attempts.max(1) {
        // The first try goes at once: the run went on without us.
        let wait = if attempt == 1 {
            Duration::ZERO
        } else {
            backoff(options.retry_base, attempt - 1)
        };
        let retrying = StreamUpdate::Retrying {
            attempt: attempt + 1,
            wait_ms: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
            reason: client.redact(&reason),
        };
        if tx.send(retrying).await.is_err() {
            return None;
        }
        tokio::time::sleep(wait).await;
        let request = client.authorized(reqwest::Method::GET, &path).ok()?;
        match tokio::time::timeout(options.idle_timeout, request.send()).await {
            Ok(Ok(response)) if response.status().as_u16() == 200 => {
                tx.send(StreamUpdate::Connected).await.ok()?;
                return Some(response);
            }
            // The run is gone, or this key may not see it: resuming cannot work.
            Ok(Ok(response))
                if response.status().is_client_error() && response.status().as_u16() != 429 =>
            {
                return None;
            }
            Ok(Ok(response)) => reason = format!("HTTP {}", response.status().as_u16()),
            Ok(Err(e)) => reason = e.to_string(),
            Err(_) => reason = "no response".into(),
        }
    }
    None
}
