//! The demo agent's OpenAI Responses API: `POST /v1/responses` for a model that is not Grok (a
//! deep research question gets the deep research recording, a `previous_response_id` the
//! follow-up), and the background run's routes: `GET /v1/responses/{id}?stream=true&starting_after=N`
//! streams the run again after sequence number N, `POST /v1/responses/{id}/cancel` cancels it. A run
//! is remembered from its creation; the server-wide fault strikes only the request that creates it
//! (a resumed stream misbehaves only when its own `X-Demo-Fault` header says so), so a cut
//! deep research stream can be picked up where it broke.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::playback::{Rewrite, stream_response};
use super::recordings::{self, Part, Recording};
use super::{AppState, admit, log_request};
use crate::agent::rng;
use crate::wire::provider::openai;
use crate::wire::provider::responses::{RESPONSES, ResponsesRequest};

/// A run the server created.
#[derive(Debug, Clone)]
pub(super) struct DemoRun {
    recording: &'static str,
    /// What was asked (the note a resumed stream goes on with).
    question: String,
    previous_response_id: Option<String>,
    background: bool,
    cancelled: bool,
}

/// A `/v1/responses` body for OpenAI: it names a model, and not a Grok one.
pub(super) fn is_openai(body: &[u8]) -> bool {
    serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|body| body.get("model")?.as_str().map(str::to_owned))
        .is_some_and(|model| !model.trim().is_empty() && !openai::detect::is_xai_model(&model))
}

/// `POST /v1/responses` for OpenAI: a new run, played from its start.
pub(super) fn create(state: &Arc<AppState>, headers: &HeaderMap, body: &[u8]) -> Response {
    let (fault, request) = match admit(state, headers, body, ResponsesRequest::parse) {
        Ok(admitted) => admitted,
        Err(refusal) => return refusal.into_response(),
    };
    let recording = if request.previous_response_id.is_some() {
        recordings::OPENAI_FOLLOW_UP
    } else {
        recordings::OPENAI_RESEARCH
    };
    let response_id = rng::id("resp");
    let question = request.question();
    let note = super::note::for_question(recording, &question);
    let run = DemoRun {
        recording,
        question,
        previous_response_id: request.previous_response_id,
        background: request.background,
        cancelled: false,
    };
    state.book().runs.insert(response_id.clone(), run.clone());
    let rewrite = rewrite(&response_id, &run);
    stream_response(state, state.recordings.get(recording), rewrite, fault, note)
}

fn rewrite(response_id: &str, run: &DemoRun) -> Rewrite {
    Rewrite::Responses {
        response_id: response_id.to_owned(),
        previous_response_id: run.previous_response_id.clone(),
    }
}

/// `GET /v1/responses/{id}`: with `stream=true`, the run's events after `starting_after`;
/// otherwise the response object.
pub(super) async fn retrieve(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let response = retrieve_response(&state, &id, &uri, &headers);
    let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
    log_request(&state, "GET", path, &headers, b"", &response);
    response
}

fn retrieve_response(state: &Arc<AppState>, id: &str, uri: &Uri, headers: &HeaderMap) -> Response {
    let Some(run) = state.book().runs.get(id).cloned() else {
        return not_found(id);
    };
    let query = |key: &str| {
        uri.query()?
            .split('&')
            .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
            .map(str::to_owned)
    };
    if query("stream").as_deref() != Some("true") || run.cancelled {
        let status = if run.cancelled {
            "cancelled"
        } else {
            "completed"
        };
        return axum::Json(response_object(id, status)).into_response();
    }
    if !run.background {
        // As OpenAI: only a background response can be streamed again.
        return openai_error(
            StatusCode::BAD_REQUEST,
            "This response cannot be streamed because it was not created with background=true.",
        );
    }
    let after = match query("starting_after").map(|n| n.parse::<u64>()) {
        None => None,
        Some(Ok(n)) => Some(n),
        Some(Err(_)) => {
            return openai_error(
                StatusCode::BAD_REQUEST,
                "Invalid 'starting_after': expected an integer.",
            );
        }
    };
    // Only this request's own header may make it misbehave (see the module docs).
    let fault = match super::own_fault(headers) {
        Ok(fault) => fault,
        Err(why) => return openai_error(StatusCode::BAD_REQUEST, why),
    };
    let all = state.recordings.get(run.recording);
    let frames = match after {
        Some(after) => frames_after(&all, after),
        None => all.clone(),
    };
    let sent = &all[..all.len() - frames.len()];
    let note = super::note::for_question(run.recording, &run.question).map(|n| n.after(sent));
    stream_response(state, frames, rewrite(id, &run), fault, note)
}

/// `POST /v1/responses/{id}/cancel`: a background run is cancelled; anything else is refused.
pub(super) async fn cancel(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let response = {
        let mut book = state.book();
        match book.runs.get_mut(&id) {
            None => not_found(&id),
            Some(run) if !run.background => openai_error(
                StatusCode::BAD_REQUEST,
                "Only responses created with background=true can be cancelled.",
            ),
            Some(run) => {
                run.cancelled = true;
                axum::Json(response_object(&id, "cancelled")).into_response()
            }
        }
    };
    log_request(&state, "POST", uri.path(), &headers, &body, &response);
    response
}

/// The frames of a recording after sequence number `after` (the pause before the first kept).
fn frames_after(frames: &Recording, after: u64) -> Recording {
    frames
        .iter()
        .filter(|frame| {
            frame.parts.iter().all(|part| match part {
                Part::Json(value) => value
                    .get("sequence_number")
                    .and_then(Value::as_u64)
                    .is_none_or(|n| n > after),
                Part::Raw(_) => true,
            })
        })
        .cloned()
        .collect::<Vec<_>>()
        .into()
}

fn response_object(id: &str, status: &str) -> Value {
    json!({"id": id, "object": "response", "status": status, "background": true})
}

fn not_found(id: &str) -> Response {
    openai_error(
        StatusCode::NOT_FOUND,
        &format!("Response with id '{id}' not found."),
    )
}

/// OpenAI's error body: `{"error": {"message", "type", "param", "code"}}`.
fn openai_error(status: StatusCode, message: &str) -> Response {
    let body = json!({"error": {"message": message, "type": "invalid_request_error",
                                "param": null, "code": null}});
    (status, axum::Json(body)).into_response()
}

/// The path the resume and cancel routes answer (under the Responses endpoint).
pub(super) fn run_path(tail: &str) -> String {
    format!("{}/{{id}}{tail}", RESPONSES.path)
}
