//! One streamed request and its retries: connect (time-to-headers bounded), turn an error status
//! into a retry or an end, read the body through the provider's dialect (the key redacted before
//! decoding, the raw bytes teed to the sink), and follow a run that lives on the server.

use super::errors::{
    cut_reason, detail, error_chain, http_message, read_error_body, redirect_message,
};
use super::*;
use futures::FutureExt;

/// One streamed request and its retries.
pub(super) struct Call {
    pub(super) client: AgentClient,
    pub(super) endpoint: &'static Endpoint,
    pub(super) url: String,
    pub(super) body: Vec<u8>,
    /// The provider's own headers ([`WireRequest::headers`]).
    pub(super) headers: Vec<(&'static str, String)>,
    pub(super) options: StreamOptions,
    pub(super) sink: Option<RawSink>,
    pub(super) provider: Provider,
    /// The run on the server this stream follows, when it outlives the connection.
    pub(super) server_run: Option<ServerRun>,
    /// Continues a turn the provider paused.
    pub(super) continuation: Option<Continuation>,
}

/// How many times one turn is continued after a pause before the app gives up on it.
pub(crate) const MAX_CONTINUATIONS: u32 = 10;

/// How one try ended.
enum Outcome {
    Final(StreamEnd),
    /// Failed before any event arrived, in a way worth another try.
    Retryable {
        reason: String,
        retry_after: Option<Duration>,
        end: StreamEnd,
    },
    /// Nobody listens any more.
    Gone,
}

impl Call {
    pub(super) async fn run(self, tx: UpdateSender) {
        let max_attempts = self.options.max_attempts.max(1);
        let mut attempt = 1;
        loop {
            if tx.send(StreamUpdate::Connecting { attempt }).await.is_err() {
                return;
            }
            let end = match self.attempt(&tx).await {
                Outcome::Gone => return,
                Outcome::Final(end) => end,
                Outcome::Retryable { end, .. } if attempt >= max_attempts => end,
                Outcome::Retryable {
                    reason,
                    retry_after,
                    ..
                } => {
                    let wait = retry_after
                        .unwrap_or_else(|| backoff(self.options.retry_base, attempt))
                        .min(MAX_BACKOFF);
                    attempt += 1;
                    let retrying = StreamUpdate::Retrying {
                        attempt,
                        wait_ms: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                        reason: self.client.redact(&reason),
                    };
                    if tx.send(retrying).await.is_err() {
                        return;
                    }
                    tokio::time::sleep(wait).await;
                    continue;
                }
            };
            let _ = tx.send(StreamUpdate::Ended(self.redact_end(end))).await;
            return;
        }
    }

    async fn attempt(&self, tx: &UpdateSender) -> Outcome {
        let response = match self.connect(&self.body).await {
            Ok(response) => response,
            Err(outcome) => return outcome,
        };
        if tx.send(StreamUpdate::Connected).await.is_err() {
            return Outcome::Gone;
        }
        self.read_body(response, tx).await
    }

    /// The request with `body`, its key in the provider's header (marked sensitive).
    fn request(&self, body: &[u8]) -> Result<reqwest::RequestBuilder, Outcome> {
        let path = &self.url[self.client.base_url.len()..];
        self.client
            .authorized(reqwest::Method::POST, path)
            .map(|mut request| {
                for (name, value) in &self.headers {
                    request = request.header(*name, value);
                }
                request
                    .header(CONTENT_TYPE, "application/json")
                    .body(body.to_vec())
            })
            .map_err(|message| Outcome::Final(StreamEnd::Connect { message }))
    }

    /// Send the request with `body`: a `200` response whose body is the stream, or how this try
    /// ended.
    async fn connect(&self, body: &[u8]) -> Result<reqwest::Response, Outcome> {
        let wait = self.options.headers_timeout.min(self.options.idle_timeout);
        let request = self.request(body)?;
        if let Some(sink) = &self.sink
            && let Ok(mut sink) = sink.lock()
        {
            sink.request_sent(std::time::Instant::now());
        }
        let response = match tokio::time::timeout(wait, request.send()).await {
            Err(_) => {
                return Err(Outcome::Retryable {
                    reason: format!("no response headers within {} s", wait.as_secs_f64()),
                    retry_after: None,
                    end: StreamEnd::Stalled {
                        idle_secs: wait.as_secs(),
                    },
                });
            }
            Ok(Err(e)) if e.is_builder() => {
                return Err(Outcome::Final(StreamEnd::Connect {
                    message: error_chain(&e),
                }));
            }
            Ok(Err(e)) => {
                let message = error_chain(&e);
                return Err(Outcome::Retryable {
                    reason: message.clone(),
                    retry_after: None,
                    end: StreamEnd::Connect { message },
                });
            }
            Ok(Ok(response)) => response,
        };
        if response.status().as_u16() != 200 {
            return Err(self.http_error(response).await);
        }
        match not_an_event_stream(response.headers()) {
            None => Ok(response),
            Some(what) => Err(self.wrong_body(response, what).await),
        }
    }

    /// A `200` that is not an event stream (an HTML error page, a compressed body): what came back.
    async fn wrong_body(&self, mut response: reqwest::Response, what: WrongBody) -> Outcome {
        let mut message = format!("expected an event stream, got {}", what.described);
        if what.readable {
            let body = read_error_body(&mut response, self.options.idle_timeout).await;
            let body = self
                .client
                .secret()
                .redact_message(&String::from_utf8_lossy(&body));
            if let Some(detail) = detail(body.as_bytes()).filter(|d| !d.is_empty()) {
                message = format!("{message}: {detail}");
            }
        }
        Outcome::Final(StreamEnd::Http {
            status: 200,
            message,
        })
    }

    /// An error status: retried when it is 429 or 5xx (after `Retry-After`, when given).
    async fn http_error(&self, mut response: reqwest::Response) -> Outcome {
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        if (300..=399).contains(&status) {
            return Outcome::Final(StreamEnd::Http {
                status,
                message: redirect_message(&response, &self.url),
            });
        }
        let body = read_error_body(&mut response, self.options.idle_timeout).await;
        // Before the message is cut to length: a cut must not leave part of an echoed key behind.
        let body = self
            .client
            .secret()
            .redact_message(&String::from_utf8_lossy(&body));
        let message = http_message(self.endpoint, status, body.as_bytes());
        let end = StreamEnd::Http {
            status,
            message: message.clone(),
        };
        if status == 429 || (500..=599).contains(&status) {
            Outcome::Retryable {
                reason: format!("HTTP {status}: {message}"),
                retry_after,
                end,
            }
        } else {
            Outcome::Final(end)
        }
    }

    /// Read the stream through the provider's dialect, sending events as they are decoded.
    async fn read_body(&self, mut response: reqwest::Response, tx: &UpdateSender) -> Outcome {
        let idle = self.options.idle_timeout;
        let idle_secs = idle.as_secs();
        let mut keep_alive = KeepAlive::default();
        let mut deadline = tokio::time::Instant::now() + idle;
        let mut reader = BodyReader {
            pipeline: EventPipeline::new(self.provider)
                .with_secret(self.client.secret())
                .skimming(),
            events: Vec::new(),
            seen_event: false,
            terminal: false,
            tracker: self.server_run.as_ref().map(ServerRun::tracker),
            pause: Pause::default(),
            mid_line: false,
        };
        // What the body had ready after a batch of chunks (its end, an error): taken next.
        let mut carried = None;
        let end = loop {
            let next = match carried.take() {
                Some(BodyEnd::Closed) => Ok(Ok(None)),
                Some(BodyEnd::Failed(e)) => Ok(Err(e)),
                None => tokio::time::timeout_at(deadline, response.chunk()).await,
            };
            match next {
                Err(_) => {
                    if let Some(next) = self.resume(&mut reader, "stalled", tx).await {
                        response = next;
                        deadline = tokio::time::Instant::now() + idle;
                        continue;
                    }
                    break StreamEnd::Stalled { idle_secs };
                }
                Ok(Ok(Some(chunk))) => {
                    if keep_alive.carries_data(&chunk) {
                        deadline = tokio::time::Instant::now() + idle;
                    }
                    self.take_in(&mut reader, &chunk);
                    let mut fresh = false;
                    carried = self.take_in_ready(&mut reader, &mut response, |chunk| {
                        fresh |= keep_alive.carries_data(chunk);
                    });
                    if fresh {
                        deadline = tokio::time::Instant::now() + idle;
                    }
                    if !reader.flush(tx).await {
                        return Outcome::Gone;
                    }
                    if reader.terminal {
                        // Nothing follows COMPLETE or ERROR: do not wait for the server to close.
                        break StreamEnd::Closed;
                    }
                }
                Ok(Ok(None)) if reader.pause.paused => {
                    match self.continue_paused(&mut reader).await {
                        Ok(next) => {
                            response = next;
                            deadline = tokio::time::Instant::now() + idle;
                        }
                        Err(end) => break end,
                    }
                }
                Ok(Ok(None)) => {
                    if let Some(next) = self.resume(&mut reader, "the stream closed", tx).await {
                        response = next;
                        deadline = tokio::time::Instant::now() + idle;
                        continue;
                    }
                    reader.finish();
                    if !reader.flush(tx).await {
                        return Outcome::Gone;
                    }
                    break StreamEnd::Cut {
                        reason: "the stream ended before COMPLETE".into(),
                    };
                }
                Ok(Err(e)) => {
                    if let Some(next) = self.resume(&mut reader, &error_chain(&e), tx).await {
                        response = next;
                        deadline = tokio::time::Instant::now() + idle;
                        continue;
                    }
                    reader.finish_cut();
                    // The line a person reads is ours; the log keeps what the connection said.
                    let reason = cut_reason(&e);
                    crate::log::log(&format!(
                        "{} stream cut: {}",
                        self.provider.label(),
                        self.client.redact(&error_chain(&e.without_url()))
                    ));
                    if !reader.flush(tx).await {
                        return Outcome::Gone;
                    }
                    break StreamEnd::Cut { reason };
                }
            }
        };
        outcome_of(&reader, end)
    }

    /// The chunks the body already holds, taken in with the one just read, so they go to the
    /// reader as one update (one wake-up of the app or `ask`, not one per chunk); never waits, so a
    /// lone chunk goes at once. Stops at the stream's last event (nothing after it is read, as
    /// before) and at [`BATCH_BYTES`]; what ended the body meanwhile is handed back for the loop.
    fn take_in_ready(
        &self,
        reader: &mut BodyReader,
        response: &mut reqwest::Response,
        mut seen: impl FnMut(&[u8]),
    ) -> Option<BodyEnd> {
        let mut taken = 0;
        let mut checked = 0;
        while taken < BATCH_BYTES && !ends_stream(&reader.events[checked..]) {
            checked = reader.events.len();
            match response.chunk().now_or_never()? {
                Ok(Some(chunk)) => {
                    seen(&chunk);
                    taken += chunk.len();
                    self.take_in(reader, &chunk);
                }
                Ok(None) => return Some(BodyEnd::Closed),
                Err(e) => return Some(BodyEnd::Failed(e)),
            }
        }
        None
    }

    /// The provider paused the turn and closed the stream: ask it to go on (the turn's content so
    /// far sent back), and read its answer into the same turn — the line the paused stream left
    /// open ended first, in the pipeline and the sink. How the turn ends when it cannot go on.
    async fn continue_paused(
        &self,
        reader: &mut BodyReader,
    ) -> Result<reqwest::Response, StreamEnd> {
        reader.pause.paused = false;
        reader.pause.count += 1;
        let Some(continuation) = &self.continuation else {
            return Err(StreamEnd::Cut {
                reason: "the server paused the turn".into(),
            });
        };
        if reader.pause.count > MAX_CONTINUATIONS {
            return Err(StreamEnd::Cut {
                reason: format!(
                    "the server paused the turn {MAX_CONTINUATIONS} times; it was not continued again"
                ),
            });
        }
        let request = continuation(&reader.pause.transcript);
        if reader.mid_line {
            self.take_in(reader, b"\n\n");
        }
        match self.connect(&request.body_bytes()).await {
            Ok(response) => Ok(response),
            Err(Outcome::Final(end) | Outcome::Retryable { end, .. }) => Err(end),
            Err(Outcome::Gone) => Err(StreamEnd::Cancelled),
        }
    }

    /// A chunk of the body: to the raw sink, the run tracker and the dialect.
    fn take_in(&self, reader: &mut BodyReader, chunk: &[u8]) {
        if let Some(&last) = chunk.last() {
            reader.mid_line = !matches!(last, b'\n' | b'\r');
        }
        if let Some(sink) = &self.sink
            && let Ok(mut sink) = sink.lock()
        {
            // A full disk must not stop the stream; the session file is best effort.
            let _ = sink.write_all(chunk).and_then(|()| sink.flush());
        }
        if let Some(tracker) = &mut reader.tracker {
            tracker.feed(chunk);
        }
        // An overlong line is counted as malformed by the pipeline; the stream goes on.
        let _ = reader.pipeline.feed(chunk, &mut reader.events);
    }

    /// The connection ended (`reason`) before the run did: for a run on the server, its stream
    /// again after what arrived (the line it broke off ended first, in the pipeline and the sink).
    async fn resume(
        &self,
        reader: &mut BodyReader,
        reason: &str,
        tx: &UpdateSender,
    ) -> Option<reqwest::Response> {
        if reader.terminal {
            return None;
        }
        let tracker = reader.tracker.as_mut()?;
        let next = resume::reconnect(tracker, self.options, reason, tx).await?;
        let separator = tracker.separator();
        self.take_in(reader, separator);
        Some(next)
    }

    fn redact_end(&self, end: StreamEnd) -> StreamEnd {
        let redact = |text: String| self.client.redact(&text);
        match end {
            StreamEnd::Cut { reason } => StreamEnd::Cut {
                reason: redact(reason),
            },
            StreamEnd::Http { status, message } => StreamEnd::Http {
                status,
                message: redact(message),
            },
            StreamEnd::Connect { message } => StreamEnd::Connect {
                message: redact(message),
            },
            other => other,
        }
    }
}

/// How a body that ended with `end` ends the call.
fn outcome_of(reader: &BodyReader, end: StreamEnd) -> Outcome {
    if reader.terminal {
        // COMPLETE or ERROR arrived: however the connection ends after that, the stream is over.
        Outcome::Final(StreamEnd::Closed)
    } else if reader.seen_event || !matches!(end, StreamEnd::Stalled { .. }) {
        // The research began once the server said 200: a stream that ends or breaks is not sent
        // again. Only a stall before the first event counts as a timeout worth another try.
        Outcome::Final(end)
    } else {
        Outcome::Retryable {
            reason: StreamEnd::describe(&end),
            retry_after: None,
            end,
        }
    }
}

/// How the body ended while ready chunks were taken in ([`Call::take_in_ready`]).
enum BodyEnd {
    Closed,
    Failed(reqwest::Error),
}

/// The most bytes read into one update beyond its first chunk.
const BATCH_BYTES: usize = 256 * 1024;

/// `events` hold the stream's last event: nothing is read after it.
fn ends_stream(events: &[AgentEvent]) -> bool {
    events.iter().any(|event| {
        matches!(
            event,
            AgentEvent::Complete { .. } | AgentEvent::Error { .. }
        )
    })
}

struct BodyReader {
    pipeline: EventPipeline,
    events: Vec<AgentEvent>,
    seen_event: bool,
    /// A COMPLETE or ERROR arrived.
    terminal: bool,
    /// Follows a run on the server, to resume its stream ([`resume`]).
    tracker: Option<RunTracker>,
    pause: Pause,
    /// The body so far broke off inside a line.
    mid_line: bool,
}

/// What continuing a paused turn needs.
#[derive(Default)]
struct Pause {
    /// The provider paused the turn ([`AgentEvent::Paused`]) and nothing followed yet.
    paused: bool,
    /// Continuations so far.
    count: u32,
    /// The turn's content so far ([`AgentEvent::Transcript`]).
    transcript: Vec<serde_json::Value>,
}

impl BodyReader {
    fn finish(&mut self) {
        let _ = self.pipeline.finish(&mut self.events);
    }

    /// The connection failed mid-stream (the dialect must not take the end as completion).
    fn finish_cut(&mut self) {
        let _ = self.pipeline.finish_cut(&mut self.events);
    }

    /// Send the pending events, if any. `false` when the receiver is gone.
    async fn flush(&mut self, tx: &UpdateSender) -> bool {
        if self.events.is_empty() {
            return true;
        }
        self.seen_event = true;
        for event in &self.events {
            match event {
                AgentEvent::Complete { .. } | AgentEvent::Error { .. } => self.terminal = true,
                AgentEvent::Paused => self.pause.paused = true,
                AgentEvent::Transcript(blocks) => self.pause.transcript.extend_from_slice(blocks),
                AgentEvent::Received => {}
                _ => self.pause.paused = false,
            }
        }
        tx.send(StreamUpdate::Events(std::mem::take(&mut self.events)))
            .await
            .is_ok()
    }
}
