//! The demo agent's Google Gemini API, in Google's wire shapes:
//!
//! - `POST /v1beta/interactions` (the Deep Research agent): a new interaction plays the deep
//!   research recording (step events), one with `previous_interaction_id` the follow-up (the older
//!   content events); each gets a fresh `v1_…` id, remembered.
//! - `GET /v1beta/interactions/{id}?stream=true&last_event_id=E` streams the interaction again
//!   from the event after `E`; without `stream=true` it is the interaction object.
//!   `POST /v1beta/interactions/{id}/cancel` cancels it. As with OpenAI's runs, the server-wide
//!   fault strikes only the request that creates an interaction (a resumed stream misbehaves only
//!   when its own `X-Demo-Fault` header says so), so a cut run can be resumed where it broke.
//! - `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`: a plain model's grounded answer.
//!
//! Errors are Google's body, `{"error": {"code", "message", "status"}}`.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use serde_json::{Value, json};

use super::playback::{Rewrite, stream_response};
use super::recordings::{self, Part, Recording};
use super::{AppState, Fault, fault_for, log_request};
use crate::agent::rng;
use crate::wire::provider::gemini::request::{GenerateRequest, INTERACTIONS, InteractionRequest};

/// An interaction the server created.
#[derive(Debug, Clone)]
pub(super) struct Interaction {
    recording: &'static str,
    /// What was asked (the note a resumed stream goes on with).
    question: String,
    previous_interaction_id: Option<String>,
    background: bool,
    cancelled: bool,
}

/// The routes, under the API base.
pub(super) fn routes() -> [(String, MethodRouter<Arc<AppState>>); 4] {
    [
        (INTERACTIONS.path.to_owned(), post(create)),
        (format!("{}/{{id}}", INTERACTIONS.path), get(retrieve)),
        (format!("{}/{{id}}/cancel", INTERACTIONS.path), post(cancel)),
        ("/v1beta/models/{action}".to_owned(), post(generate)),
    ]
}

/// `POST /v1beta/interactions`: a new interaction, played from its start.
async fn create(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let response = match admit(&state, &headers, &body, InteractionRequest::parse) {
        Err((status, why)) => google_error(status, &why),
        Ok((fault, request)) => {
            let recording = match request.previous_interaction_id {
                Some(_) => recordings::GEMINI_FOLLOW_UP,
                None if recordings::about_comparison(&request.question()) => {
                    recordings::GEMINI_COMPARISON
                }
                None => recordings::GEMINI_RESEARCH,
            };
            let id = interaction_id();
            let question = request.question();
            let note = super::note::for_question(recording, &question);
            let interaction = Interaction {
                recording,
                question,
                previous_interaction_id: request.previous_interaction_id,
                background: request.background,
                cancelled: false,
            };
            state
                .book()
                .interactions
                .insert(id.clone(), interaction.clone());
            let frames = state.recordings.get(recording);
            stream_response(&state, frames, rewrite(&id, &interaction), fault, note)
        }
    };
    log(&state, "POST", &uri, &headers, &body, &response);
    response
}

/// `POST /v1beta/models/{model}:streamGenerateContent`: the grounded answer.
async fn generate(
    State(state): State<Arc<AppState>>,
    Path(action): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let response = if action
        .strip_suffix(":streamGenerateContent")
        .is_none_or(str::is_empty)
    {
        google_error(
            StatusCode::NOT_FOUND,
            &format!("Method not found: {action}"),
        )
    } else {
        match admit(&state, &headers, &body, GenerateRequest::parse) {
            Err((status, why)) => google_error(status, &why),
            Ok((fault, request)) => {
                let note =
                    super::note::for_question(recordings::GEMINI_GROUNDED, &request.question());
                let frames = state.recordings.get(recordings::GEMINI_GROUNDED);
                let rewrite = Rewrite::Generate {
                    response_id: rng::id("resp"),
                };
                stream_response(&state, frames, rewrite, fault, note)
            }
        }
    };
    log(&state, "POST", &uri, &headers, &body, &response);
    response
}

/// `GET /v1beta/interactions/{id}`: with `stream=true`, its events after `last_event_id`;
/// otherwise the interaction object.
async fn retrieve(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let response = retrieve_response(&state, &id, &uri, &headers);
    log(&state, "GET", &uri, &headers, b"", &response);
    response
}

fn retrieve_response(state: &Arc<AppState>, id: &str, uri: &Uri, headers: &HeaderMap) -> Response {
    let Some(interaction) = state.book().interactions.get(id).cloned() else {
        return not_found(id);
    };
    let query = |key: &str| crate::wire::provider::asked::query_value(uri.query()?, key);
    if query("stream").as_deref() != Some("true") || interaction.cancelled {
        let status = if interaction.cancelled {
            "cancelled"
        } else {
            "completed"
        };
        return axum::Json(interaction_object(id, status)).into_response();
    }
    if !interaction.background {
        return google_error(
            StatusCode::BAD_REQUEST,
            "Only interactions created with background=true can be streamed again.",
        );
    }
    // Only this request's own header may make it misbehave (see the module docs).
    let fault = match super::own_fault(headers) {
        Ok(fault) => fault,
        Err(why) => return google_error(StatusCode::BAD_REQUEST, why),
    };
    let all = state.recordings.get(interaction.recording);
    let frames = match query("last_event_id") {
        None => all.clone(),
        Some(last) => match frames_after(&all, &last) {
            Some(frames) => frames,
            None => {
                let why = format!("Invalid last_event_id '{last}' for interaction '{id}'.");
                return google_error(StatusCode::BAD_REQUEST, &why);
            }
        },
    };
    let sent = &all[..all.len() - frames.len()];
    let note = super::note::for_question(interaction.recording, &interaction.question)
        .map(|note| note.after(sent));
    stream_response(state, frames, rewrite(id, &interaction), fault, note)
}

/// `POST /v1beta/interactions/{id}/cancel`: a background interaction is cancelled.
async fn cancel(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let response = {
        let mut book = state.book();
        match book.interactions.get_mut(&id) {
            None => not_found(&id),
            Some(interaction) if !interaction.background => google_error(
                StatusCode::BAD_REQUEST,
                "Only background interactions can be cancelled.",
            ),
            Some(interaction) => {
                interaction.cancelled = true;
                axum::Json(interaction_object(&id, "cancelled")).into_response()
            }
        }
    };
    log(&state, "POST", &uri, &headers, &body, &response);
    response
}

/// The fault for this request and its body read as `parse` reads it, or the status and message
/// of Google's refusal.
fn admit<T>(
    state: &AppState,
    headers: &HeaderMap,
    body: &[u8],
    parse: fn(&[u8]) -> Option<T>,
) -> Result<(Option<Fault>, T), (StatusCode, String)> {
    let fault = fault_for(state, headers).map_err(|e| (StatusCode::BAD_REQUEST, e))?;
    if let Some(Fault::Status(code)) = fault {
        let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        return Err((
            status,
            status.canonical_reason().unwrap_or("Error").to_owned(),
        ));
    }
    let request = parse(body).ok_or_else(|| {
        let why = "Invalid JSON payload: the request does not match the API's schema.";
        (StatusCode::BAD_REQUEST, why.to_owned())
    })?;
    Ok((fault, request))
}

fn rewrite(id: &str, interaction: &Interaction) -> Rewrite {
    Rewrite::Interaction {
        interaction_id: id.to_owned(),
        previous_interaction_id: interaction.previous_interaction_id.clone(),
    }
}

/// A fresh interaction id, in Google's `v1_…` form (`v1_demo-<16 hex>`, like the demo's other ids).
fn interaction_id() -> String {
    format!("v1_{}", rng::id("demo"))
}

/// The frames after the one whose `event_id` is `last` (`None`: no frame has it).
fn frames_after(frames: &Recording, last: &str) -> Option<Recording> {
    let at = frames.iter().position(|frame| {
        frame.parts.iter().any(|part| match part {
            Part::Json(value) => value.get("event_id").and_then(Value::as_str) == Some(last),
            Part::Raw(_) => false,
        })
    })?;
    Some(frames[at + 1..].to_vec().into())
}

fn interaction_object(id: &str, status: &str) -> Value {
    json!({"id": id, "object": "interaction", "status": status,
           "agent": crate::wire::provider::gemini::DEFAULT_AGENT})
}

fn not_found(id: &str) -> Response {
    google_error(
        StatusCode::NOT_FOUND,
        &format!("Interaction '{id}' was not found."),
    )
}

/// Google's error body: `{"error": {"code", "message", "status"}}`.
fn google_error(status: StatusCode, message: &str) -> Response {
    let name = match status.as_u16() {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        503 => "UNAVAILABLE",
        _ => "INTERNAL",
    };
    let body = json!({"error": {"code": status.as_u16(), "message": message, "status": name}});
    (status, axum::Json(body)).into_response()
}

fn log(
    state: &AppState,
    method: &str,
    uri: &Uri,
    headers: &HeaderMap,
    body: &[u8],
    response: &Response,
) {
    let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
    log_request(state, method, path, headers, body, response);
}
