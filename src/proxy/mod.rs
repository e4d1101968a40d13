//! The recording proxy behind `research-tui proxy`: programs point a provider's base URL at
//! `http://127.0.0.1:PORT/<provider>` (the provider's name in the table, [`ProviderSpec::name`]),
//! keep their own key, and every research stream they start is saved as a session, exactly like
//! the app's own.
//!
//! - Where requests go is the provider table's base URL (or `--upstream NAME=URL`): a fixed set of
//!   hosts, never an open proxy. An unknown prefix is a 404 that says which ones exist.
//! - A request goes on with its method, path, query, headers (hop-by-hop ones dropped, the client's
//!   own key kept) and body; redirects are not followed (the client sees the 3xx, as sent).
//! - The response comes back as it arrives: status, headers, then each body chunk the moment the
//!   upstream sends it, never buffered. A research request's chunks are also teed to the recorder
//!   ([`recorder`]), which is never on that path.
//!
//! Built on axum (already the demo agent's server) and reqwest (the app's client, with its
//! redirect policy and streaming body), so no new HTTP stack comes in.

mod edges;
mod headers;
mod reader;
mod recorder;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::agent::client::{error_chain, is_loopback};
use crate::local::store::SessionStore;
use crate::render::sanitize::sanitize_line;
use crate::wire::provider::asked::Asked;
use crate::wire::provider::request::Endpoint;
use crate::wire::provider::spec::ProviderSpec;
use crate::wire::provider::{Ask, Provider};
use recorder::{InFlight, Teed, TurnToRecord};

/// The largest request body forwarded (research requests are a few kilobytes).
const MAX_REQUEST_BYTES: usize = 32 * 1024 * 1024;

/// Where each provider's requests go, and where sessions are saved.
#[derive(Debug, Clone)]
pub struct ProxyConfig {
    /// Base URLs in [`Provider`] order: the table's, unless overridden.
    upstreams: Vec<String>,
    pub store: SessionStore,
    /// How long a client may take to send a request's head before its connection is closed.
    pub header_read_timeout: Duration,
    /// Web origins whose requests are served (`--allow-origin`); any other `Origin` is refused.
    pub allowed_origins: Vec<String>,
    /// Where each saved turn is sent as a trace (`--otlp-endpoint`).
    pub exporter: Option<crate::otel::Exporter>,
}

impl ProxyConfig {
    /// Every provider to its production API (from the provider table), saving into `store`.
    pub fn new(store: SessionStore) -> Self {
        let upstreams = Provider::ALL
            .iter()
            .map(|p| p.spec().base_url.to_owned())
            .collect();
        Self {
            upstreams,
            store,
            header_read_timeout: crate::server::HEADER_READ_TIMEOUT,
            allowed_origins: Vec::new(),
            exporter: None,
        }
    }

    /// Send `provider`'s requests to `base_url` instead.
    pub fn with_upstream(mut self, provider: Provider, base_url: &str) -> Self {
        self.upstreams[provider as usize] = base_url.trim().trim_end_matches('/').to_owned();
        self
    }

    pub fn upstream(&self, provider: Provider) -> &str {
        &self.upstreams[provider as usize]
    }
}

/// The running proxy's shared state.
struct Proxy {
    config: ProxyConfig,
    /// One client per provider: loopback upstreams never go through an `HTTP(S)_PROXY`.
    clients: Vec<reqwest::Client>,
    in_flight: InFlight,
    /// The address listened on: a `Host` naming it is this machine.
    bound: std::net::IpAddr,
    bodies: edges::BodyBudget,
}

/// Have the allocator keep the memory of large freed buffers for the next ones, rather than give it
/// back to the kernel at once and fault it in again page by page. While a turn is recorded, the
/// HTTP client's read buffers live until the recorder has written them, so each read takes a new
/// buffer of up to a few hundred KiB: by default glibc maps each on its own (unmapped when freed)
/// or trims the heap under it, and a 30 MB flood cost ~4,000 page faults, a tenth of the proxy's
/// CPU. Kept, they are reused: at most [`KEPT_FREE_BYTES`] free at the top of each heap (about the
/// recorder's queue), allocations up to [`HEAP_ALLOCATION_BYTES`] from the heap. The price: peak
/// memory a few MB higher (65 against 59 MB on a 101 MB flood), and what a flood used is not
/// returned to the system after it (bounded by the queue's 32 MiB).
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets the allocator's tuning parameters; any values are valid.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, HEAP_ALLOCATION_BYTES);
        libc::mallopt(libc::M_TRIM_THRESHOLD, KEPT_FREE_BYTES);
    }
}

/// The largest allocation served from the heap ([`keep_freed_memory`]).
const HEAP_ALLOCATION_BYTES: i32 = 4 << 20;
/// The most free memory kept at the top of a heap ([`keep_freed_memory`]).
const KEPT_FREE_BYTES: i32 = 32 << 20;

/// Bind `addr` (port 0 picks a free one) and serve in the background: the bound address and the
/// server task.
pub async fn spawn(
    config: ProxyConfig,
    addr: SocketAddr,
) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
    let clients = Provider::ALL
        .iter()
        .map(|&p| client(is_loopback(config.upstream(p))))
        .collect::<Result<_, _>>()
        .map_err(std::io::Error::other)?;
    let header_timeout = config.header_read_timeout;
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let proxy = Arc::new(Proxy {
        config,
        clients,
        in_flight: InFlight::default(),
        bound: bound.ip(),
        bodies: edges::BodyBudget::default(),
    });
    let app = Router::new().fallback(forward).with_state(proxy);
    // Half-open and trickling clients are closed after the header timeout; every chunk goes out
    // the moment it is written (TCP_NODELAY).
    let task = tokio::spawn(crate::server::serve(listener, app, header_timeout));
    Ok((bound, task))
}

/// A client that never follows a redirect (it would take the key to another origin) and sets no
/// overall timeout (deep research runs for many minutes).
fn client(loopback: bool) -> reqwest::Result<reqwest::Client> {
    let mut builder = crate::agent::http::client_builder()
        .connect_timeout(Duration::from_secs(15))
        .redirect(reqwest::redirect::Policy::none());
    if loopback {
        builder = builder.no_proxy();
    }
    builder.build()
}

/// Which provider a path is for, and the provider's own path after the prefix.
fn route(path: &str) -> Option<(Provider, &str)> {
    let rest = path.strip_prefix('/')?;
    let (name, own) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, ""),
    };
    let provider = Provider::ALL.into_iter().find(|p| p.spec().name == name)?;
    Some((provider, own))
}

/// The provider's streaming endpoint a request is for, if it is one (only those are recorded).
fn research_endpoint(provider: Provider, method: &Method, own: &str) -> Option<&'static Endpoint> {
    let endpoints = provider.spec().endpoints.iter();
    (method == Method::POST)
        .then(|| endpoints.copied().find(|e| e.matches(own)))
        .flatten()
}

/// Forward one request to its provider and stream the answer back, teeing a research stream to
/// the recorder.
async fn forward(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Some(refused) =
        edges::refused(&parts.headers, proxy.bound, &proxy.config.allowed_origins)
    {
        return refused;
    }
    let path = parts.uri.path().to_owned();
    let Some((provider, own)) = route(&path) else {
        return unknown_prefix(&path);
    };
    let read = match edges::read_body(body, MAX_REQUEST_BYTES, &proxy.bodies).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let body = read.bytes.clone();
    let query = parts.uri.query();
    let research = research_endpoint(provider, &parts.method, own);
    let sent = std::time::Instant::now();
    let answer = match send(&proxy, provider, &parts, own, &body, research.is_some()).await {
        Ok(answer) => answer,
        Err(refused) => return refused,
    };
    let status = answer.status();
    let is_stream = answer
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let recorded =
        research.filter(|_| is_stream || status.is_client_error() || status.is_server_error());
    let turn = recorded.map(|endpoint| {
        let spec = provider.spec();
        let key = headers::credentials(spec, &parts.headers, query);
        let method = parts.method.as_str();
        TurnToRecord {
            provider,
            endpoint,
            upstream: proxy.config.upstream(provider).to_owned(),
            asked: asked(spec, endpoint, own, query, &body),
            request: headers::saved_request(method, own, query, &parts.headers, &body, &key),
            key,
            status: status.as_u16(),
            sent,
        }
    });
    pass_back(&proxy, answer, turn)
}

/// What a research request asked, read from its body and query, with the model its path names
/// when the body does not (Gemini's `/v1beta/models/{model}:streamGenerateContent`).
fn asked(
    spec: &ProviderSpec,
    endpoint: &Endpoint,
    own: &str,
    query: Option<&str>,
    body: &[u8],
) -> Asked {
    // A body the dialect cannot read is still a research request (the agent answers it, with an
    // error most likely): saved with its question unknown (`null`; shown as a placeholder, never
    // asked again).
    let mut asked = (spec.read_request)(query.unwrap_or(""), body).unwrap_or_else(|| Asked {
        ask: Ask::new(""),
        ..Asked::default()
    });
    if asked.options.model.is_none() {
        asked.options.model = endpoint.model_in_path(own);
    }
    asked
}

/// Send the request on to the provider's upstream: the answer's head, or the proxy's 502.
async fn send(
    proxy: &Proxy,
    provider: Provider,
    parts: &axum::http::request::Parts,
    own: &str,
    body: &Bytes,
    research: bool,
) -> Result<reqwest::Response, Response> {
    let upstream = proxy.config.upstream(provider);
    let url = match parts.uri.query() {
        Some(query) => format!("{upstream}{own}?{query}"),
        None => format!("{upstream}{own}"),
    };
    let mut request = proxy.clients[provider as usize]
        .request(parts.method.clone(), &url)
        .headers(headers::upstream_request(&parts.headers, research));
    // A request without a body (a GET) goes on without one, not with `content-length: 0`.
    if !body.is_empty() {
        request = request.body(body.clone());
    }
    request.send().await.map_err(|e| {
        let label = provider.spec().label;
        // The client's error names the URL, and its query may hold a key: left out.
        let why = format!(
            "cannot reach {label} at {upstream}: {}",
            error_chain(&e.without_url())
        );
        eprintln!("research-tui proxy: {}", sanitize_line(&why));
        refusal(StatusCode::BAD_GATEWAY, &why)
    })
}

/// The upstream's answer for the client: its status and end-to-end headers, and its body as it
/// arrives, teed to a recorder when it is a research turn.
fn pass_back(
    proxy: &Arc<Proxy>,
    answer: reqwest::Response,
    turn: Option<TurnToRecord>,
) -> Response {
    let mut response = Response::builder().status(answer.status());
    if let Some(headers) = response.headers_mut() {
        *headers = headers::end_to_end(answer.headers());
    }
    let stream = Box::pin(answer.bytes_stream());
    let body = match turn {
        None => Body::from_stream(stream),
        Some(turn) => Body::from_stream(start_recording(proxy, turn, stream)),
    };
    response.body(body).unwrap_or_else(|e| {
        let why = format!("cannot pass the response on: {e}");
        refusal(StatusCode::BAD_GATEWAY, &why)
    })
}

/// Start the recorder for `turn` on a blocking thread; `stream`, teed to it.
fn start_recording<S>(proxy: &Arc<Proxy>, turn: TurnToRecord, stream: S) -> Teed<S>
where
    S: futures::Stream<Item = reqwest::Result<Bytes>> + Unpin,
{
    let (tx, rx) = recorder::tee_channel(recorder::MAX_QUEUED_BYTES);
    let proxy = proxy.clone();
    tokio::task::spawn_blocking(move || {
        let key = turn.key.clone();
        let saved = recorder::record(&proxy.config.store, &proxy.in_flight, turn, rx);
        // Its trace, once it is saved (`--otlp-endpoint`).
        if let (Some(exporter), Some((dir, index))) = (&proxy.config.exporter, saved) {
            exporter.turn(crate::otel::TurnRef { dir, index, key });
        }
    });
    Teed::new(stream, tx)
}

/// A 404 for a path no provider's prefix starts, naming those that exist.
fn unknown_prefix(path: &str) -> Response {
    let prefixes: Vec<String> = Provider::ALL
        .iter()
        .map(|p| format!("/{}", p.spec().name))
        .collect();
    let message = format!(
        "no provider at {:?}: paths start with {}, followed by the provider's own path (e.g. /openai/v1/responses); this proxy forwards to those providers only",
        sanitize_line(path),
        prefixes.join(", ")
    );
    refusal(StatusCode::NOT_FOUND, &message)
}

/// The proxy's own answer (not the provider's): plain text, saying it comes from the proxy.
fn refusal(status: StatusCode, message: &str) -> Response {
    let mut response = format!("research-tui proxy: {message}\n").into_response();
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_names_its_provider_and_keeps_the_providers_own_path() {
        assert_eq!(
            route("/bigdata/v1/research-agent"),
            Some((Provider::Bigdata, "/v1/research-agent"))
        );
        assert_eq!(
            route("/perplexity/chat/completions"),
            Some((Provider::Perplexity, "/chat/completions"))
        );
        assert_eq!(route("/openai"), Some((Provider::OpenAI, "")));
        assert_eq!(route("/evil.example.com/v1"), None);
        assert_eq!(route("/"), None);
    }

    #[test]
    fn only_a_post_to_a_streaming_endpoint_is_recorded() {
        let research = research_endpoint(Provider::OpenAI, &Method::POST, "/v1/responses");
        assert_eq!(research.map(|e| e.name), Some("responses"));
        assert!(research_endpoint(Provider::OpenAI, &Method::GET, "/v1/responses/r1").is_none());
        assert!(
            research_endpoint(Provider::Bigdata, &Method::POST, "/v1/workflow/execute").is_some()
        );
    }
}
