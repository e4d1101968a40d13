//! The HTTP client for every provider's streaming endpoint (and the built-in demo agent, which
//! answers all of them): `POST` a [`WireRequest`] built from the provider table, read the SSE body
//! through that provider's dialect.
//!
//! [`AgentClient::stream`] (and the Bigdata.com shorthands [`AgentClient::research`] and
//! [`AgentClient::workflow`]) start a background task and hand back a [`StreamHandle`]; the task
//! reports [`StreamUpdate`]s: `Connecting`, maybe `Retrying`, `Connected`, `Events` batches as bytes
//! arrive, and one final `Ended`.
//!
//! Runs that outlive their connection are followed and reconnected by [`resume`], part of this
//! client because it streams through it.
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

use crate::agent::http_checks::{KeepAlive, WrongBody, not_an_event_stream};
pub use crate::agent::http_checks::{check_base_url, check_base_url_flag};
use crate::agent::stream::{StreamUpdate, UpdateSender};
use crate::model::event::AgentEvent;
use crate::model::stream_end::StreamEnd;
use crate::render::sanitize::sanitize_line;
// The Bigdata.com request types this client's shorthands take.
pub use crate::wire::provider::bigdata::request::{Effort, ResearchRequest, WorkflowRequest};
use crate::wire::provider::error_body::ErrorBody;
use crate::wire::provider::request::Endpoint;
pub use crate::wire::provider::spec::AuthHeader;
use crate::wire::provider::{EventPipeline, Provider, WireRequest};
use crate::wire::redact::Secret;

mod call;
mod errors;
mod handle;
pub mod resume;

pub use handle::StreamHandle;
use resume::{RunTracker, ServerRun};

use call::Call;
/// An error and its causes on one line (the proxy says why an upstream could not be reached).
pub(crate) use errors::error_chain;

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
    /// No data for this long counts as a stall: keep-alive comments and blank lines are not data,
    /// so a stream that sends only those stalls too.
    pub idle_timeout: Duration,
    /// The response headers must be complete within this long (or the idle timeout, if shorter),
    /// however slowly they trickle in.
    pub headers_timeout: Duration,
    /// Tries in all, including the first (at least 1).
    pub max_attempts: u32,
    /// The first backoff; doubled after each failure, capped at [`MAX_BACKOFF`], plus jitter.
    pub retry_base: Duration,
}

impl Default for StreamOptions {
    fn default() -> Self {
        Self {
            idle_timeout: Duration::from_secs(90),
            headers_timeout: Duration::from_secs(30),
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
        let mut builder = crate::agent::http::client_builder_for(&base_url)
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
        self.stream_continued(request, provider, options, sink, None)
    }

    /// Like [`AgentClient::stream`]; when the provider pauses the turn
    /// ([`AgentEvent::Paused`]), `continuation` makes the request that continues it from what the
    /// turn said so far, and its stream carries on the same turn (the same pipeline, the same sink).
    pub fn stream_continued(
        &self,
        request: WireRequest,
        provider: Provider,
        options: StreamOptions,
        sink: Option<RawSink>,
        continuation: Option<Continuation>,
    ) -> StreamHandle {
        let server_run = ServerRun::for_request(self, provider, &request);
        let call = Call {
            client: self.clone(),
            endpoint: request.endpoint,
            url: format!("{}{}", self.base_url, request.path),
            body: request.body_bytes(),
            headers: request.headers,
            options,
            sink,
            provider,
            server_run: server_run.clone(),
            continuation,
        };
        StreamHandle::spawn(move |tx| call.run(tx)).with_server_run(server_run)
    }

    /// `method {base}{path}` with the key in the provider's header, marked sensitive (the resume
    /// and cancel requests of a server-side run; the streaming request too).
    pub(crate) fn authorized(
        &self,
        method: reqwest::Method,
        path: &str,
    ) -> Result<reqwest::RequestBuilder, String> {
        let request = self
            .http
            .request(method, format!("{}{path}", self.base_url))
            .header(ACCEPT, "text/event-stream");
        let Some(key) = &self.api_key else {
            return Ok(request);
        };
        let header = self.key_header;
        let mut value = HeaderValue::from_str(&header.value(key.expose())).map_err(|_| {
            "the API key contains characters not allowed in an HTTP header".to_owned()
        })?;
        value.set_sensitive(true);
        Ok(request.header(header.name(), value))
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
    pub(crate) fn redact(&self, text: &str) -> String {
        self.secret().redact_message(&sanitize_line(text))
    }

    /// The key as the redactor knows it (empty without a key).
    fn secret(&self) -> Secret {
        self.api_key
            .as_ref()
            .map_or_else(Secret::default, |key| Secret::new(key.expose()))
    }
}

/// Makes the request that continues a paused turn from the turn's transcript so far
/// ([`AgentEvent::Transcript`]).
pub type Continuation = std::sync::Arc<dyn Fn(&[serde_json::Value]) -> WireRequest + Send + Sync>;

/// Receives every byte of a response body the moment it arrives, flushed at once, so a crash or a
/// kill loses nothing that was received (session files, `--record`).
pub type RawSink = std::sync::Arc<std::sync::Mutex<dyn RawWrite>>;

/// A raw sink: the bytes, and when the request they answer was sent (a saved turn keeps arrival
/// times beside its bytes, [`crate::wire::arrivals`]; other sinks take only the bytes).
pub trait RawWrite: std::io::Write + Send {
    /// The request was sent at `at` (the first call counts: a retry's wait is part of the turn).
    fn request_sent(&mut self, at: std::time::Instant) {
        let _ = at;
    }

    /// The bytes written next arrived at `at` (earlier than they are written: the proxy's
    /// recorder takes them off a queue); without it, they arrived when written.
    fn chunk_arrived(&mut self, at: std::time::Instant) {
        let _ = at;
    }
}

impl RawWrite for std::fs::File {}
impl RawWrite for Vec<u8> {}

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
pub(crate) fn backoff(base: Duration, failed: u32) -> Duration {
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

#[cfg(test)]
mod tests {
    use super::errors::http_message;
    use super::*;
    use crate::wire::provider::bigdata::request::RESEARCH;
    use crate::wire::provider::responses::RESPONSES;

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
