//! The HTTP client for the Bigdata.com Research Agent and Workflows endpoints (and the built-in demo
//! agent, which speaks the same protocol).
//!
//! [`AgentClient::research`] and [`AgentClient::workflow`] start a background task and hand back a
//! [`StreamHandle`]; the task reports [`StreamUpdate`]s: `Connecting`, maybe `Retrying`, `Connected`,
//! `Events` batches as bytes arrive, and one final `Ended`.
//!
//! Retry policy (protocols §4): only before any event arrived, for 429 (honouring `Retry-After`), 5xx,
//! connect errors and timeouts, with exponential backoff plus jitter. Once an event has arrived the
//! request is never re-sent: the research is costly and a repeat starts over.
//!
//! The API key travels only in the `X-API-KEY` header, marked sensitive; it is redacted from every
//! message this module produces.

use std::fmt;
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedSender;

use crate::agent::stream::{StreamEnd, StreamHandle, StreamUpdate};
use crate::model::event::AgentEvent;
use crate::render::sanitize::sanitize_line;
use crate::wire::provider::{EventPipeline, Provider};

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

/// `research_effort`: lite (~10–20 s) or standard (~20–60 s, multi-step).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    Lite,
    #[default]
    Standard,
}

/// The body of `POST /v1/research-agent`. `None` fields are left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ResearchRequest {
    pub message: String,
    pub research_effort: Effort,
    /// Continue this conversation (a plain follow-up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
    /// Resume or branch from a `COMPLETE.checkpoint_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_checkpoint_id: Option<String>,
    /// `base` or `pro`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    /// `enabled` or `disabled`; fixed for a conversation's life.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistence_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_output_schema: Option<Value>,
    /// Tone and structure guidance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_output: Option<String>,
    /// e.g. `{"search": {"query_filters": …}}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools_configs: Option<Value>,
}

impl ResearchRequest {
    /// A new conversation at standard effort.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            ..Self::default()
        }
    }
}

/// The body of `POST /v1/workflow/execute`. `None` fields are left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkflowRequest {
    /// A template id (string) or an inline template object `{name, prompt, …}`.
    pub template: Value,
    pub input: Map<String, Value>,
    /// Resume a previous run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    /// `last_24_hours`, `last_7_days`, … `last_365_days`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_range: Option<String>,
}

impl WorkflowRequest {
    pub fn new(template: impl Into<Value>) -> Self {
        Self {
            template: template.into(),
            input: Map::new(),
            execution_id: None,
            model_name: None,
            time_range: None,
        }
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
    key_header: KeyHeader,
}

/// How the API key is sent: Bigdata.com's `X-API-KEY`, xAI's `Authorization: Bearer`, Zeta Alpha's
/// `X-Auth`. Always marked sensitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyHeader {
    #[default]
    XApiKey,
    Bearer,
    XAuth,
}

impl fmt::Debug for AgentClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentClient")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key)
            .finish()
    }
}

/// Which endpoint a stream talks to (the wording of some errors differs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Endpoint {
    Research,
    Workflow,
    /// Another provider's endpoint ([`AgentClient::stream_post`]).
    Other,
}

impl AgentClient {
    pub fn new(base_url: &str, api_key: Option<ApiKey>) -> Self {
        let base_url = base_url.trim().trim_end_matches('/').to_owned();
        let mut builder = reqwest::Client::builder()
            .tls_backend_rustls()
            .connect_timeout(Duration::from_secs(15))
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
            key_header: KeyHeader::XApiKey,
        }
    }

    /// Send the key in `header` instead of `X-API-KEY`.
    pub fn with_key_header(mut self, header: KeyHeader) -> Self {
        self.key_header = header;
        self
    }

    /// `POST {base}{path_and_query}` with a JSON `body`, its stream read as `provider` speaks
    /// (xAI, Zeta Alpha), with the same retries, timeouts and redaction as the Bigdata.com calls.
    pub fn stream_post(
        &self,
        path_and_query: &str,
        body: Vec<u8>,
        provider: Provider,
        options: StreamOptions,
        sink: Option<RawSink>,
    ) -> StreamHandle {
        let call = Call {
            client: self.clone(),
            endpoint: Endpoint::Other,
            url: format!("{}{path_and_query}", self.base_url),
            body,
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
        let body = serde_json::to_vec(&request).unwrap_or_default();
        self.stream(
            Endpoint::Research,
            "/v1/research-agent",
            body,
            options,
            sink,
        )
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
        let body = serde_json::to_vec(&request).unwrap_or_default();
        self.stream(
            Endpoint::Workflow,
            "/v1/workflow/execute",
            body,
            options,
            sink,
        )
    }

    fn stream(
        &self,
        endpoint: Endpoint,
        path: &str,
        body: Vec<u8>,
        options: StreamOptions,
        sink: Option<RawSink>,
    ) -> StreamHandle {
        let call = Call {
            client: self.clone(),
            endpoint,
            url: format!("{}{path}", self.base_url),
            body,
            options,
            sink,
            provider: Provider::Bigdata,
        };
        StreamHandle::spawn(move |tx| call.run(tx))
    }

    /// `text` with every occurrence of the API key replaced by `***`.
    fn redact(&self, text: &str) -> String {
        let clean = sanitize_line(text).into_owned();
        match &self.api_key {
            Some(key) => clean.replace(key.expose(), "***"),
            None => clean,
        }
    }
}

/// One streamed request and its retries.
struct Call {
    client: AgentClient,
    endpoint: Endpoint,
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
    async fn run(self, tx: UnboundedSender<StreamUpdate>) {
        let max_attempts = self.options.max_attempts.max(1);
        let mut attempt = 1;
        loop {
            if tx.send(StreamUpdate::Connecting { attempt }).is_err() {
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
                    if tx.send(retrying).is_err() {
                        return;
                    }
                    tokio::time::sleep(wait).await;
                    continue;
                }
            };
            let _ = tx.send(StreamUpdate::Ended(self.redact_end(end)));
            return;
        }
    }

    async fn attempt(&self, tx: &UnboundedSender<StreamUpdate>) -> Outcome {
        let idle = self.options.idle_timeout;
        let idle_secs = idle.as_secs();
        let mut request = self
            .client
            .http
            .post(&self.url)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "text/event-stream")
            .body(self.body.clone());
        if let Some(key) = &self.client.api_key {
            let (name, value) = match self.client.key_header {
                KeyHeader::XApiKey => ("X-API-KEY", key.expose().to_owned()),
                KeyHeader::XAuth => ("X-Auth", key.expose().to_owned()),
                KeyHeader::Bearer => ("Authorization", format!("Bearer {}", key.expose())),
            };
            match HeaderValue::from_str(&value) {
                Ok(mut value) => {
                    value.set_sensitive(true);
                    request = request.header(name, value);
                }
                Err(_) => {
                    return Outcome::Final(StreamEnd::Connect {
                        message: "the API key contains characters not allowed in an HTTP header"
                            .into(),
                    });
                }
            }
        }
        let mut response = match tokio::time::timeout(idle, request.send()).await {
            Err(_) => {
                return Outcome::Retryable {
                    reason: format!("no response within {} s", idle.as_secs_f64()),
                    retry_after: None,
                    end: StreamEnd::Stalled { idle_secs },
                };
            }
            Ok(Err(e)) if e.is_builder() => {
                return Outcome::Final(StreamEnd::Connect {
                    message: error_chain(&e),
                });
            }
            Ok(Err(e)) => {
                let message = error_chain(&e);
                return Outcome::Retryable {
                    reason: message.clone(),
                    retry_after: None,
                    end: StreamEnd::Connect { message },
                };
            }
            Ok(Ok(response)) => response,
        };

        let status = response.status().as_u16();
        if status != 200 {
            let retry_after = response
                .headers()
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let body = read_error_body(&mut response, idle).await;
            let message = http_message(self.endpoint, status, &body);
            let end = StreamEnd::Http {
                status,
                message: message.clone(),
            };
            return if status == 429 || (500..=599).contains(&status) {
                Outcome::Retryable {
                    reason: format!("HTTP {status}: {message}"),
                    retry_after,
                    end,
                }
            } else {
                Outcome::Final(end)
            };
        }

        if tx.send(StreamUpdate::Connected).is_err() {
            return Outcome::Gone;
        }
        let mut reader = BodyReader {
            pipeline: EventPipeline::new(self.provider),
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
                    if !reader.flush(tx) {
                        return Outcome::Gone;
                    }
                    if reader.terminal {
                        // Nothing follows COMPLETE or ERROR: do not wait for the server to close.
                        break StreamEnd::Closed;
                    }
                }
                Ok(Ok(None)) => {
                    reader.finish();
                    if !reader.flush(tx) {
                        return Outcome::Gone;
                    }
                    break StreamEnd::Cut {
                        reason: "the stream ended before COMPLETE".into(),
                    };
                }
                Ok(Err(e)) => {
                    reader.finish_cut();
                    if !reader.flush(tx) {
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
    fn flush(&mut self, tx: &UnboundedSender<StreamUpdate>) -> bool {
        if self.events.is_empty() {
            return true;
        }
        self.seen_event = true;
        self.terminal |= self
            .events
            .iter()
            .any(|e| matches!(e, AgentEvent::Complete { .. } | AgentEvent::Error { .. }));
        tx.send(StreamUpdate::Events(std::mem::take(&mut self.events)))
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

/// One human sentence for an error status, with the server's `detail` when it gave one.
fn http_message(endpoint: Endpoint, status: u16, body: &[u8]) -> String {
    let lead = match (status, endpoint) {
        (400, _) => "the request was rejected",
        (401, _) => "the API key was rejected",
        (403, _) => "not entitled to this model, template or feature",
        (404, Endpoint::Research) => "unknown or expired chat or checkpoint",
        (404, Endpoint::Workflow) => "unknown workflow template or execution",
        (404, Endpoint::Other) => "not found (unknown endpoint, conversation or response)",
        (409, _) => "persistence mode mismatch",
        (422, _) => "the request failed validation",
        (429, _) => "rate limited",
        (500..=599, _) => "the server failed",
        _ => "unexpected response",
    };
    match detail(body) {
        Some(detail) if !detail.is_empty() && !lead.eq_ignore_ascii_case(&detail) => {
            format!("{lead}: {detail}")
        }
        _ => lead.to_owned(),
    }
}

/// The `detail` of a FastAPI-style error body (`loc: msg` pairs for 422), or its plain text.
fn detail(body: &[u8]) -> Option<String> {
    const MAX_CHARS: usize = 300;
    let text = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(object)) => match object.get("detail")? {
            Value::String(detail) => detail.clone(),
            Value::Array(items) => items
                .iter()
                .map(|item| {
                    let loc = item
                        .get("loc")
                        .and_then(Value::as_array)
                        .map(|loc| {
                            loc.iter()
                                .map(|part| match part {
                                    Value::String(s) => s.clone(),
                                    other => other.to_string(),
                                })
                                .collect::<Vec<_>>()
                                .join(".")
                        })
                        .unwrap_or_default();
                    let msg = item.get("msg").and_then(Value::as_str).unwrap_or("invalid");
                    if loc.is_empty() {
                        msg.to_owned()
                    } else {
                        format!("{loc}: {msg}")
                    }
                })
                .collect::<Vec<_>>()
                .join("; "),
            other => other.to_string(),
        },
        Ok(_) => return None,
        Err(_) => String::from_utf8_lossy(body).trim().to_owned(),
    };
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

    #[test]
    fn requests_leave_out_what_is_not_set() {
        let mut request = ResearchRequest::new("NVDA?");
        request.research_effort = Effort::Lite;
        request.chat_id = Some("chat-1".into());
        let json = serde_json::to_value(&request).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"message": "NVDA?", "research_effort": "lite", "chat_id": "chat-1"})
        );
        let workflow = serde_json::to_value(WorkflowRequest::new("earnings-brief")).unwrap();
        assert_eq!(
            workflow,
            serde_json::json!({"template": "earnings-brief", "input": {}})
        );
    }

    #[test]
    fn error_sentences_carry_the_detail() {
        let body = br#"{"detail":[{"loc":["body","message"],"msg":"Field required"}]}"#;
        assert_eq!(
            http_message(Endpoint::Research, 422, body),
            "the request failed validation: body.message: Field required"
        );
        assert_eq!(
            http_message(
                Endpoint::Research,
                404,
                br#"{"detail":"Checkpoint not found"}"#
            ),
            "unknown or expired chat or checkpoint: Checkpoint not found"
        );
        assert_eq!(
            http_message(Endpoint::Research, 401, b""),
            "the API key was rejected"
        );
        assert_eq!(
            http_message(Endpoint::Research, 502, b"<html>\x1b[31m bad gateway"),
            "the server failed: <html>\u{FFFD}[31m bad gateway"
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
