//! The built-in demo agent: a real local HTTP server that speaks the Bigdata.com wire protocol
//! (`POST /v1/research-agent`, `POST /v1/workflow/execute`) and answers by streaming recorded sessions
//! with their original pacing, so the app and its tests run against real sockets without an API key.
//! It also speaks xAI's Responses API (`POST /v1/responses` with a Grok model or none: a
//! `previous_response_id` gets the follow-up, every response a fresh `resp-…` id), OpenAI's
//! (`POST /v1/responses` with any other model, plus the background run's resume and cancel routes:
//! [`runs`]), Zeta Alpha's chat stream (`POST /v0/service/chat/stream`: a `session_id` gets the
//! follow-up in that session, otherwise a fresh `sess-…`), Perplexity's chat completions
//! (`POST /chat/completions`: earlier turns in `messages` get the follow-up), Google Gemini's
//! Interactions API and `streamGenerateContent` ([`gemini`]) and Anthropic's Messages API
//! (`POST /v1/messages`: a new question's turn pauses with `pause_turn`, a request ending with the
//! paused assistant content gets its continuation, earlier turns the follow-up).
//!
//! Each response gets fresh identifiers: a new conversation gets `chat-<16 hex>`, a follow-up keeps
//! the request's `chat_id`, every COMPLETE carries a fresh `ckpt-<16 hex>` that the server remembers
//! (a `from_checkpoint_id` it never issued is a 404), and workflow runs get fresh `execution_id` (unless
//! resumed) and `request_id`. A conversation keeps the `persistence_mode` it started with (default
//! `disabled`): a follow-up asking for the other one gets 400 `persistence_mode mismatch`, as the API
//! answers. A question naming only a chat that still streams another turn gets 400
//! ([`bigdata::CHAT_BUSY`]);
//! the same question as a turn never answered is that turn's retry. Faults ([`Fault`]) make it cut, stall or fail on purpose.
//!
//! `GET /_demo/requests` lists the last request bodies received (for tests). API keys are never stored:
//! only whether one was sent. A connection that has not sent a whole request head within
//! [`ServerConfig::header_read_timeout`] (half-open, idle between requests, or trickling its headers)
//! is closed.

mod bigdata;
mod book;
mod gemini;
mod note;
mod playback;
mod recordings;
mod runs;

use book::Book;
use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use crate::agent::rng;
use crate::wire::provider::anthropic::request::{MESSAGES, MessagesRequest};
use crate::wire::provider::bigdata::request::{RESEARCH, WORKFLOW};
use crate::wire::provider::error_body::{ErrorBody, Problem};
use crate::wire::provider::perplexity::request::{CHAT_COMPLETIONS, ChatCompletionRequest};
use crate::wire::provider::responses::{RESPONSES, ResponsesRequest};
use crate::wire::provider::zeta::request::{CHAT_STREAM, ChatRequest};
use playback::{Rewrite, stream_response};
pub use recordings::COMPARISON_QUESTION;
use recordings::Recordings;

/// How the demo server behaves.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Playback speed: 2.0 plays twice as fast as recorded. Values that are not positive mean 1.0.
    pub speed: f64,
    /// Load `*.sse` recordings from this directory instead of the built-in ones (same file names).
    pub recordings_dir: Option<PathBuf>,
    /// Misbehave on every request (a request's `X-Demo-Fault` header overrides it).
    pub fault: Option<Fault>,
    /// Take a `ckpt-…` checkpoint this server never issued as a follow-up instead of a 404: for a
    /// fresh in-process server continuing a session saved by an earlier one (`research-tui open`).
    pub accept_foreign_checkpoints: bool,
    /// How long a connection may take to send a request's head (also while idle between requests).
    pub header_read_timeout: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            speed: 1.0,
            recordings_dir: None,
            fault: None,
            accept_foreign_checkpoints: false,
            header_read_timeout: crate::server::HEADER_READ_TIMEOUT,
        }
    }
}

/// A deliberate failure, for tests and demos.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Close the connection abruptly after about half of the ANSWER frames.
    CutMidAnswer,
    /// Send frames up to mid-answer, then nothing, keeping the connection open.
    Stall,
    /// Answer with this HTTP status and a FastAPI-like `{"detail": …}` body (429 adds `Retry-After: 1`).
    Status(u16),
}

impl FromStr for Fault {
    type Err = String;

    /// `cut`, `stall` or `status=N` (N from 400 to 599).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        match s {
            "cut" => Ok(Fault::CutMidAnswer),
            "stall" => Ok(Fault::Stall),
            _ => {
                let code = s
                    .strip_prefix("status=")
                    .ok_or_else(|| format!("unknown fault `{s}`: use cut, stall or status=N"))?;
                match code.trim().parse::<u16>() {
                    Ok(code) if (400..=599).contains(&code) => Ok(Fault::Status(code)),
                    _ => Err(format!("`{code}` is not an HTTP error status (400 to 599)")),
                }
            }
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::CutMidAnswer => f.write_str("cut"),
            Fault::Stall => f.write_str("stall"),
            Fault::Status(code) => write!(f, "status={code}"),
        }
    }
}

/// The header that picks a fault for one request: `cut`, `stall` or `status=N`.
pub const FAULT_HEADER: &str = "x-demo-fault";

/// Bind `127.0.0.1:port` (0 picks a free port) and serve in the background. Returns the bound address
/// and the server task (abort it to stop accepting connections).
pub async fn spawn(
    config: ServerConfig,
    port: u16,
) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
    let recordings = match &config.recordings_dir {
        Some(dir) => Recordings::load(dir)?,
        None => Recordings::builtin(),
    };
    let speed = if config.speed > 0.0 {
        config.speed
    } else {
        1.0
    };
    let state = Arc::new(AppState {
        recordings,
        speed,
        fault: config.fault,
        accept_foreign_checkpoints: config.accept_foreign_checkpoints,
        book: Mutex::new(Book::default()),
    });
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
    let addr = listener.local_addr()?;
    let app = router(state);
    let task = tokio::spawn(crate::server::serve(
        listener,
        app,
        config.header_read_timeout,
    ));
    Ok((addr, task))
}

struct AppState {
    recordings: Recordings,
    speed: f64,
    fault: Option<Fault>,
    accept_foreign_checkpoints: bool,
    book: Mutex<Book>,
}

impl AppState {
    fn book(&self) -> MutexGuard<'_, Book> {
        self.book
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn scaled(&self, delay_ms: u64) -> Duration {
        Duration::try_from_secs_f64(delay_ms as f64 / 1000.0 / self.speed)
            .unwrap_or(Duration::from_secs(3600))
    }
}

fn router(state: Arc<AppState>) -> Router {
    let mut router = Router::new();
    for (path, route) in gemini::routes() {
        router = router.route(&path, route);
    }
    router
        .route(RESEARCH.path, logged(bigdata::research_response))
        .route(WORKFLOW.path, logged(bigdata::workflow_response))
        .route(RESPONSES.path, logged(responses_response))
        .route(&runs::run_path(""), get(runs::retrieve))
        .route(&runs::run_path("/cancel"), post(runs::cancel))
        .route(CHAT_STREAM.path, logged(zeta_response))
        .route(CHAT_COMPLETIONS.path, logged(perplexity_response))
        .route(MESSAGES.path, logged(anthropic_response))
        .route("/_demo/requests", get(recent_requests))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "Not Found") })
        .with_state(state)
}

async fn recent_requests(State(state): State<Arc<AppState>>) -> Response {
    let requests: Vec<Value> = state.book().requests.iter().cloned().collect();
    axum::Json(requests).into_response()
}

/// How the demo answers one POST route.
type Respond = fn(&Arc<AppState>, &HeaderMap, &[u8]) -> Response;

/// A POST route answered by `respond`, with the request and its response in the request log.
fn logged(respond: Respond) -> axum::routing::MethodRouter<Arc<AppState>> {
    post(
        move |State(state): State<Arc<AppState>>, uri: Uri, headers: HeaderMap, body: Bytes| async move {
            let response = respond(&state, &headers, &body);
            let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
            log_request(&state, "POST", path, &headers, &body, &response);
            response
        },
    )
}

/// xAI's and OpenAI's shared path: the model the body names picks the provider.
fn responses_response(state: &Arc<AppState>, headers: &HeaderMap, body: &[u8]) -> Response {
    if runs::is_openai(body) {
        runs::create(state, headers, body)
    } else {
        xai_response(state, headers, body)
    }
}

/// xAI: a new question gets the research recording, a `previous_response_id` the follow-up.
fn xai_response(state: &Arc<AppState>, headers: &HeaderMap, body: &[u8]) -> Response {
    let (fault, request) = match admit(state, headers, body, ResponsesRequest::parse) {
        Ok(admitted) => admitted,
        Err(refusal) => return refusal.into_response(),
    };
    let recording = if request.previous_response_id.is_some() {
        recordings::XAI_FOLLOW_UP
    } else if recordings::about_comparison(&request.question()) {
        recordings::XAI_COMPARISON
    } else {
        recordings::XAI_RESEARCH
    };
    let note = note::for_question(recording, &request.question());
    let rewrite = Rewrite::Responses {
        response_id: rng::id("resp"),
        previous_response_id: request.previous_response_id,
    };
    stream_response(state, state.recordings.get(recording), rewrite, fault, note)
}

/// Perplexity: a new conversation gets the reasoning recording, one with earlier turns the
/// follow-up; every completion a fresh id.
fn perplexity_response(state: &Arc<AppState>, headers: &HeaderMap, body: &[u8]) -> Response {
    let (fault, request) = match admit(state, headers, body, ChatCompletionRequest::parse) {
        Ok(admitted) => admitted,
        Err(refusal) => return refusal.into_response(),
    };
    let recording = if request.is_follow_up() {
        recordings::PERPLEXITY_FOLLOW_UP
    } else if recordings::about_comparison(request.question()) {
        recordings::PERPLEXITY_COMPARISON
    } else {
        recordings::PERPLEXITY_RESEARCH
    };
    let note = note::for_question(recording, request.question());
    let rewrite = Rewrite::Perplexity {
        completion_id: rng::id("cmpl"),
    };
    stream_response(state, state.recordings.get(recording), rewrite, fault, note)
}

/// Anthropic: the version header is required (as the API requires it); a new question gets the
/// recording whose turn pauses, a request that sends the paused content back its continuation, a
/// conversation with earlier turns the follow-up; every message a fresh id.
fn anthropic_response(state: &Arc<AppState>, headers: &HeaderMap, body: &[u8]) -> Response {
    if !headers.contains_key("anthropic-version") {
        return error(
            StatusCode::BAD_REQUEST,
            "anthropic-version: header is required",
        );
    }
    let (fault, request) = match admit(state, headers, body, MessagesRequest::parse) {
        Ok(admitted) => admitted,
        Err(refusal) => return refusal.into_response(),
    };
    let recording = if request.continues_paused_turn() {
        recordings::ANTHROPIC_CONTINUED
    } else if request.messages.iter().any(|m| m.role == "assistant") {
        recordings::ANTHROPIC_FOLLOW_UP
    } else if recordings::about_comparison(&request.question()) {
        recordings::ANTHROPIC_COMPARISON
    } else {
        recordings::ANTHROPIC_RESEARCH
    };
    // The continuation of a paused turn has no note: its turn's first part had it.
    let note = note::for_question(recording, &request.question());
    let rewrite = Rewrite::Anthropic {
        message_id: rng::id("msg"),
    };
    stream_response(state, state.recordings.get(recording), rewrite, fault, note)
}

/// Zeta Alpha: a new conversation gets the research recording and a fresh session, a `session_id`
/// the follow-up in that session.
fn zeta_response(state: &Arc<AppState>, headers: &HeaderMap, body: &[u8]) -> Response {
    let (fault, request) = match admit(state, headers, body, ChatRequest::parse) {
        Ok(admitted) => admitted,
        Err(refusal) => return refusal.into_response(),
    };
    let new = if recordings::about_comparison(request.question()) {
        recordings::ZETA_COMPARISON
    } else {
        recordings::ZETA_RESEARCH
    };
    let recording = if request.session_id.is_some() {
        recordings::ZETA_FOLLOW_UP
    } else {
        new
    };
    let note = note::for_question(recording, request.question());
    let session_id = request.session_id.unwrap_or_else(|| rng::id("sess"));
    stream_response(
        state,
        state.recordings.get(recording),
        Rewrite::Zeta { session_id },
        fault,
        note,
    )
}

/// Why a request gets no stream.
enum Refusal {
    /// The `X-Demo-Fault` header does not parse: a 400 with this detail.
    FaultHeader(String),
    /// The fault is this status.
    Status(u16),
    /// The body is invalid: a 422.
    Invalid(Vec<Problem>),
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::FaultHeader(detail) => error(StatusCode::BAD_REQUEST, &detail),
            Refusal::Status(code) => status_fault(code),
            Refusal::Invalid(problems) => unprocessable(problems),
        }
    }
}

/// The fault for this request and its body, read as `parse` reads it; or why it gets no stream.
fn admit<T>(
    state: &AppState,
    headers: &HeaderMap,
    body: &[u8],
    parse: fn(&[u8]) -> Result<T, Vec<Problem>>,
) -> Result<(Option<Fault>, T), Refusal> {
    let fault = fault_for(state, headers).map_err(Refusal::FaultHeader)?;
    if let Some(Fault::Status(code)) = fault {
        return Err(Refusal::Status(code));
    }
    let request = parse(body).map_err(Refusal::Invalid)?;
    Ok((fault, request))
}

/// The fault this request's own `X-Demo-Fault` header asks for, the server's left aside (a resumed
/// run's stream misbehaves only when it asks to). `Err` is the detail of a 400.
fn own_fault(headers: &HeaderMap) -> Result<Option<Fault>, &'static str> {
    match headers
        .get(FAULT_HEADER)
        .map(|v| v.to_str().map(str::parse))
    {
        None => Ok(None),
        Some(Ok(Ok(fault))) => Ok(Some(fault)),
        _ => Err("invalid X-Demo-Fault header"),
    }
}

/// The fault for this request: the `X-Demo-Fault` header's, else the server's. `Err` is the detail of
/// a 400 for a header that does not parse.
fn fault_for(state: &AppState, headers: &HeaderMap) -> Result<Option<Fault>, String> {
    match headers.get(FAULT_HEADER) {
        None => Ok(state.fault),
        Some(value) => value
            .to_str()
            .map_err(|e| e.to_string())
            .and_then(str::parse)
            .map(Some)
            .map_err(|e| format!("invalid X-Demo-Fault header: {e}")),
    }
}

fn log_request(
    state: &AppState,
    method: &str,
    path: &str,
    headers: &HeaderMap,
    body: &[u8],
    response: &Response,
) {
    let body = serde_json::from_slice::<Value>(body)
        .unwrap_or_else(|_| Value::from(String::from_utf8_lossy(body).into_owned()));
    let key_present = ["x-api-key", "x-auth", "authorization", "x-goog-api-key"]
        .iter()
        .any(|name| headers.contains_key(*name));
    let entry = json!({
        "method": method,
        "path": path,
        "status": response.status().as_u16(),
        "api_key_present": key_present,
        "fault": headers.get(FAULT_HEADER).and_then(|v| v.to_str().ok()),
        "body": body,
    });
    state.book().log_request(entry);
}

fn error(status: StatusCode, detail: &str) -> Response {
    (status, axum::Json(ErrorBody::text(detail))).into_response()
}

/// A 422 listing every problem with the request body, as FastAPI does.
fn unprocessable(problems: Vec<Problem>) -> Response {
    (
        StatusCode::UNPROCESSABLE_ENTITY,
        axum::Json(ErrorBody::problems(problems)),
    )
        .into_response()
}

fn status_fault(code: u16) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let detail = match code {
        401 => "Invalid API key",
        403 => "Not entitled to this feature",
        404 => "Chat not found",
        409 => "persistence_mode mismatch",
        429 => "Rate limit exceeded",
        _ => status.canonical_reason().unwrap_or("Error"),
    };
    let mut response = error(status, detail);
    if code == 429 {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_from_their_flag_spelling_and_back() {
        for text in ["cut", "stall", "status=503", "status=429"] {
            let fault: Fault = text.parse().unwrap();
            assert_eq!(fault.to_string(), text);
        }
        assert!("status=200".parse::<Fault>().is_err());
        assert!("explode".parse::<Fault>().is_err());
    }
}
