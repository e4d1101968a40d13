//! The HTTP client for every provider's streaming endpoint (and the built-in demo agent, which
//! answers all of them): `POST` a [`WireRequest`] built from the provider table, read the SSE body
//! through that provider's dialect.
//!
//! [`AgentClient::stream`] (and the Bigdata.com shorthands [`AgentClient::research`] and
//! [`AgentClient::workflow`]) start a background task and hand back a [`StreamHandle`]; the task
//! reports [`StreamUpdate`]s: `Connecting`, maybe `Retrying`, `Connected`, `Events` batches as bytes
//! arrive, and one final `Ended`.
//!
//! Retry policy: only before any event arrived, for 429 (honouring `Retry-After`), 5xx, connect
//! errors and timeouts, with exponential backoff plus jitter. Once an event has arrived the request
//! is never re-sent: the research is costly and a repeat starts over.
//!
//! The API key travels only in its provider's header ([`AuthHeader`]: `X-API-KEY`,
//! `Authorization: Bearer` or `X-Auth`), marked sensitive; it is redacted from every message this
//! module produces.

use std::fmt;
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue, RETRY_AFTER};

use crate::agent::stream::{StreamEnd, StreamHandle, StreamUpdate, UpdateSender};
use crate::model::event::AgentEvent;
use crate::render::sanitize::sanitize_line;
// The Bigdata.com request types this client's shorthands take.
pub use crate::wire::provider::bigdata::request::{Effort, ResearchRequest, WorkflowRequest};
use crate::wire::provider::error_body::ErrorBody;
use crate::wire::provider::request::Endpoint;
pub use crate::wire::provider::spec::AuthHeader;
use crate::wire::provider::{EventPipeline, Provider, WireRequest};
use crate::wire::redact::Secret;

/// A secret API key. `Debug` and `Display` print `ApiKey(***)`.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself, for the one place that needs it (the request header).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl From<String> for ApiKey {
    fn from(key: String) -> Self {
        Self(key)
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// Timeouts and retries for one stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamOptions {
    /// No bytes for this long (waiting for the response, or between chunks) counts as a stall.
    pub idle_timeout: Duration,
    /// Tries in all, including the first (at least 1).
    pub max_attempts: u32,
    /// The first backoff; doubled after each failure, capped at [`MAX_BACKOFF`], plus jitter.
    pub retry_base: Duration,
}

impl Default for StreamOptions {
    fn default() -> Self {
        Self {
            idle_timeout: Duration::from_secs(90),
            max_attempts: 3,
            retry_base: Duration::from_secs(1),
        }
    }
}

/// The longest wait between tries, also the cap on `Retry-After`.
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Limit on an error body read for its `detail`.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// Talks to one base URL (e.g. `https://agents.bigdata.com` or `http://127.0.0.1:8787`).
#[derive(Clone)]
pub struct AgentClient {
    http: reqwest::Client,
    base_url: String,
    api_key: Option<ApiKey>,
    key_header: AuthHeader,
}

impl fmt::Debug for AgentClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentClient")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key)
            .finish()
    }
}

impl AgentClient {
    pub fn new(base_url: &str, api_key: Option<ApiKey>) -> Self {
        let base_url = base_url.trim().trim_end_matches('/').to_owned();
        let mut builder = reqwest::Client::builder()
            .tls_backend_rustls()
            .connect_timeout(Duration::from_secs(15))
            // An agent API does not redirect: following one would send the key to another origin.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("research-tui/", env!("CARGO_PKG_VERSION")));
        if is_loopback(&base_url) {
            // The demo agent on this machine: never route it through an HTTP(S)_PROXY.
            builder = builder.no_proxy();
        }
        let http = builder.build().unwrap_or_default();
        Self {
            http,
            base_url,
            api_key: api_key.filter(|key| !key.0.is_empty()),
            key_header: AuthHeader::default(),
        }
    }

    /// Send the key in `header` instead of `X-API-KEY`.
    pub fn with_key_header(mut self, header: AuthHeader) -> Self {
        self.key_header = header;
        self
    }

    /// `POST {base}{request.path}` with the request's JSON body, its stream read as `provider`
    /// speaks. Needs a tokio runtime.
    pub fn stream(
        &self,
        request: WireRequest,
        provider: Provider,
        options: StreamOptions,
        sink: Option<RawSink>,
    ) -> StreamHandle {
        let call = Call {
            client: self.clone(),
            endpoint: request.endpoint,
            url: format!("{}{}", self.base_url, request.path),
            body: request.body_bytes(),
            options,
            sink,
            provider,
        };
        StreamHandle::spawn(move |tx| call.run(tx))
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// `POST /v1/research-agent`, streamed. Needs a tokio runtime.
    pub fn research(&self, request: ResearchRequest, options: StreamOptions) -> StreamHandle {
        self.research_recorded(request, options, None)
    }

    /// Like [`AgentClient::research`], also writing every body byte to `sink` as it arrives.
    pub fn research_recorded(
        &self,
        request: ResearchRequest,
        options: StreamOptions,
        sink: Option<RawSink>,
    ) -> StreamHandle {
        self.stream(request.to_wire(), Provider::Bigdata, options, sink)
    }

    /// `POST /v1/workflow/execute`, streamed. Needs a tokio runtime.
    pub fn workflow(&self, request: WorkflowRequest, options: StreamOptions) -> StreamHandle {
        self.workflow_recorded(request, options, None)
    }

    /// Like [`AgentClient::workflow`], also writing every body byte to `sink` as it arrives.
    pub fn workflow_recorded(
        &self,
        request: WorkflowRequest,
        options: StreamOptions,
        sink: Option<RawSink>,
    ) -> StreamHandle {
        self.stream(request.to_wire(), Provider::Bigdata, options, sink)
    }

    /// `text` on one sanitised line, with the API key (or any 8+ character start of it) as `***`.
    fn redact(&self, text: &str) -> String {
        self.secret().redact_message(&sanitize_line(text))
    }

    /// The key as the redactor knows it (empty without a key).
    fn secret(&self) -> Secret {
        self.api_key
            .as_ref()
            .map_or_else(Secret::default, |key| Secret::new(key.expose()))
    }
}

/// One streamed request and its retries.
struct Call {
    client: AgentClient,
    endpoint: &'static Endpoint,
    url: String,
    body: Vec<u8>,
    options: StreamOptions,
    sink: Option<RawSink>,
    provider: Provider,
}

/// Receives every byte of a response body the moment it arrives, flushed at once, so a crash or a
/// kill loses nothing that was received (session files, `--record`).
pub type RawSink = std::sync::Arc<std::sync::Mutex<dyn std::io::Write + Send>>;

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
    async fn run(self, tx: UpdateSender) {
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
        let response = match self.connect().await {
            Ok(response) => response,
            Err(outcome) => return outcome,
        };
        if tx.send(StreamUpdate::Connected).await.is_err() {
            return Outcome::Gone;
        }
        self.read_body(response, tx).await
    }

    /// The request, its key in the provider's header (marked sensitive).
    fn request(&self) -> Result<reqwest::RequestBuilder, Outcome> {
        let request = self
            .client
            .http
            .post(&self.url)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "text/event-stream")
            .body(self.body.clone());
        let Some(key) = &self.client.api_key else {
            return Ok(request);
        };
        let header = self.client.key_header;
        match HeaderValue::from_str(&header.value(key.expose())) {
            Ok(mut value) => {
                value.set_sensitive(true);
                Ok(request.header(header.name(), value))
            }
            Err(_) => Err(Outcome::Final(StreamEnd::Connect {
                message: "the API key contains characters not allowed in an HTTP header".into(),
            })),
        }
    }

    /// Send the request: a `200` response whose body is the stream, or how this try ended.
    async fn connect(&self) -> Result<reqwest::Response, Outcome> {
        let idle = self.options.idle_timeout;
        let request = self.request()?;
        let response = match tokio::time::timeout(idle, request.send()).await {
            Err(_) => {
                return Err(Outcome::Retryable {
                    reason: format!("no response within {} s", idle.as_secs_f64()),
                    retry_after: None,
                    end: StreamEnd::Stalled {
                        idle_secs: idle.as_secs(),
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
        if response.status().as_u16() == 200 {
            Ok(response)
        } else {
            Err(self.http_error(response).await)
        }
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
        let mut reader = BodyReader {
            pipeline: EventPipeline::new(self.provider).with_secret(self.client.secret()),
            events: Vec::new(),
            seen_event: false,
            terminal: false,
        };
        let end = loop {
            match tokio::time::timeout(idle, response.chunk()).await {
                Err(_) => break StreamEnd::Stalled { idle_secs },
                Ok(Ok(Some(chunk))) => {
                    if let Some(sink) = &self.sink
                        && let Ok(mut sink) = sink.lock()
                    {
                        // A full disk must not stop the stream; the session file is best effort.
                        let _ = sink.write_all(&chunk).and_then(|()| sink.flush());
                    }
                    // An overlong line is counted as malformed by the pipeline; the stream goes on.
                    let _ = reader.pipeline.feed(&chunk, &mut reader.events);
                    if !reader.flush(tx).await {
                        return Outcome::Gone;
                    }
                    if reader.terminal {
                        // Nothing follows COMPLETE or ERROR: do not wait for the server to close.
                        break StreamEnd::Closed;
                    }
                }
                Ok(Ok(None)) => {
                    reader.finish();
                    if !reader.flush(tx).await {
                        return Outcome::Gone;
                    }
                    break StreamEnd::Cut {
                        reason: "the stream ended before COMPLETE".into(),
                    };
                }
                Ok(Err(e)) => {
                    reader.finish_cut();
                    if !reader.flush(tx).await {
                        return Outcome::Gone;
                    }
                    break StreamEnd::Cut {
                        reason: error_chain(&e),
                    };
                }
            }
        };
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

struct BodyReader {
    pipeline: EventPipeline,
    events: Vec<AgentEvent>,
    seen_event: bool,
    /// A COMPLETE or ERROR arrived.
    terminal: bool,
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
        self.terminal |= self
            .events
            .iter()
            .any(|e| matches!(e, AgentEvent::Complete { .. } | AgentEvent::Error { .. }));
        tx.send(StreamUpdate::Events(std::mem::take(&mut self.events)))
            .await
            .is_ok()
    }
}

/// `http://127.0.0.1:…`, `http://localhost:…`, `http://[::1]:…`: an agent on this machine (the demo
/// agent; a saved session recorded against it).
pub fn is_loopback(base_url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(base_url) else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Backoff before try `failed + 1`: `base × 2^(failed−1)`, plus up to a quarter more of jitter,
/// capped at [`MAX_BACKOFF`].
fn backoff(base: Duration, failed: u32) -> Duration {
    let exponent = failed.saturating_sub(1).min(20);
    let delay = base.saturating_mul(1 << exponent).min(MAX_BACKOFF);
    let quarter = u64::try_from(delay.as_millis() / 4).unwrap_or(0);
    let jitter = if quarter == 0 {
        0
    } else {
        crate::agent::rng::next_u64() % (quarter + 1)
    };
    (delay + Duration::from_millis(jitter)).min(MAX_BACKOFF)
}

/// Read at most [`ERROR_BODY_LIMIT`] bytes of an error response, giving up after `idle` of silence.
async fn read_error_body(response: &mut reqwest::Response, idle: Duration) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < ERROR_BODY_LIMIT {
        match tokio::time::timeout(idle, response.chunk()).await {
            Ok(Ok(Some(chunk))) => body.extend_from_slice(&chunk),
            _ => break,
        }
    }
    body.truncate(ERROR_BODY_LIMIT);
    body
}

/// A redirect, refused: where it pointed, and why it is not followed.
fn redirect_message(response: &reqwest::Response, url: &str) -> String {
    let target = response
        .headers()
        .get(reqwest::header::LOCATION)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .unwrap_or_default();
    let target = reqwest::Url::parse(url)
        .and_then(|base| base.join(target.trim()))
        .map_or(target, String::from);
    format!(
        "the server redirected to {}; API calls never follow a redirect, so the key is not sent elsewhere",
        sanitize_line(&target)
    )
}

/// One human sentence for an error status, with the server's `detail` when it gave one.
fn http_message(endpoint: &Endpoint, status: u16, body: &[u8]) -> String {
    let lead = match status {
        400 => "the request was rejected",
        401 => "the API key was rejected",
        403 => "not entitled to this model, template or feature",
        404 => endpoint.not_found,
        409 => "persistence mode mismatch",
        422 => "the request failed validation",
        429 => "rate limited",
        500..=599 => "the server failed",
        _ => "unexpected response",
    };
    match detail(body) {
        Some(detail) if !detail.is_empty() && !lead.eq_ignore_ascii_case(&detail) => {
            format!("{lead}: {detail}")
        }
        _ => lead.to_owned(),
    }
}

/// What the error body says ([`ErrorBody::summary`]), on one sanitised line of at most 300
/// characters.
fn detail(body: &[u8]) -> Option<String> {
    const MAX_CHARS: usize = 300;
    let text = ErrorBody::summary(body)?;
    let text = sanitize_line(text.trim()).into_owned();
    Some(if text.chars().count() > MAX_CHARS {
        text.chars().take(MAX_CHARS).chain(['…']).collect()
    } else {
        text
    })
}

/// An error and its causes, `outer: inner: …`, without repeats.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = vec![error.to_string()];
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::provider::bigdata::request::RESEARCH;
    use crate::wire::provider::xai::request::RESPONSES;

    #[test]
    fn error_sentences_carry_the_detail() {
        let body = br#"{"detail":[{"loc":["body","message"],"msg":"Field required"}]}"#;
        assert_eq!(
            http_message(&RESEARCH, 422, body),
            "the request failed validation: body.message: Field required"
        );
        assert_eq!(
            http_message(&RESEARCH, 404, br#"{"detail":"Checkpoint not found"}"#),
            "unknown or expired chat or checkpoint: Checkpoint not found"
        );
        assert_eq!(
            http_message(&RESEARCH, 401, b""),
            "the API key was rejected"
        );
        assert_eq!(
            http_message(&RESEARCH, 502, b"<html>\x1b[31m bad gateway"),
            "the server failed: <html>\u{FFFD}[31m bad gateway"
        );
        assert_eq!(
            http_message(&RESPONSES, 404, b""),
            "not found (unknown endpoint, conversation or response)"
        );
    }

    #[test]
    fn backoff_doubles_from_the_base_with_bounded_jitter_and_a_cap() {
        let base = Duration::from_millis(1000);
        for (failed, low) in [(1, 1000), (2, 2000), (3, 4000)] {
            let wait = backoff(base, failed).as_millis() as u64;
            assert!((low..=low + low / 4).contains(&wait), "{failed}: {wait}");
        }
        assert_eq!(backoff(base, 30), MAX_BACKOFF);
    }

    #[test]
    fn the_key_is_redacted_from_messages() {
        let client = AgentClient::new("http://x/", Some(ApiKey::new("sk-secret-123")));
        assert_eq!(client.base_url(), "http://x");
        assert_eq!(client.redact("bad key sk-secret-123!"), "bad key ***!");
        assert!(!format!("{client:?}").contains("sk-secret"));
    }

    #[test]
    fn loopback_addresses_are_recognised() {
        for url in [
            "http://127.0.0.1:8787",
            "http://localhost:1/",
            "http://[::1]:9",
        ] {
            assert!(is_loopback(url), "{url}");
        }
        assert!(!is_loopback("https://agents.bigdata.com"));
    }
}
