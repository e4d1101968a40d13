//! Telling xAI's and OpenAI's Responses streams apart. Both send the same event names
//! (`response.*`) and payload shapes, so the name alone cannot decide. The reliable field is the
//! model every response object names (`response.model` on `response.created`, `response.queued`,
//! `response.in_progress`, `response.completed`, …): xAI's models are all `grok-*`, OpenAI's never
//! are (`gpt-*`, `o3`, `o4-mini-deep-research-2025-06-26`, …). A `response.*` event that names no
//! model (a delta, or a response object without `model`) is read as xAI's, as before OpenAI was a
//! provider; real streams open with `response.created`, which names it.

use serde_json::{Map, Value};

use crate::wire::provider::spec::Shape;
use crate::wire::provider::xai;
use crate::wire::sse::SseEvent;

/// xAI's model names: `grok-4`, `grok-4-fast-reasoning`, …
pub fn is_xai_model(model: &str) -> bool {
    model.trim().to_ascii_lowercase().starts_with("grok")
}

/// The payload's response names a model that is not xAI's.
fn names_openai_model(object: &Map<String, Value>) -> bool {
    object
        .get("response")
        .and_then(|response| response.get("model"))
        .and_then(Value::as_str)
        .is_some_and(|model| !model.trim().is_empty() && !is_xai_model(model))
}

fn object_of(event: &SseEvent) -> Option<Map<String, Value>> {
    let data = event.data.trim();
    if !data.starts_with('{') {
        return None;
    }
    match serde_json::from_str(data).ok()? {
        Value::Object(object) => Some(object),
        _ => None,
    }
}

fn openai_event(event: &SseEvent) -> bool {
    object_of(event).is_some_and(|object| names_openai_model(&object))
}

/// `event: response.*`, unless its response names an OpenAI model.
pub fn xai_names_event(event: &SseEvent) -> bool {
    xai::names_event(event) && !openai_event(event)
}

/// `event: response.*` whose response names an OpenAI model.
pub fn openai_names_event(event: &SseEvent) -> bool {
    xai::names_event(event) && openai_event(event)
}

/// A Responses payload ([`xai::payload_shape`]) that names no OpenAI model.
pub fn xai_payload_shape(object: &Map<String, Value>) -> Shape {
    if names_openai_model(object) {
        Shape::Foreign
    } else {
        xai::payload_shape(object)
    }
}

/// A Responses payload that names an OpenAI model.
pub fn openai_payload_shape(object: &Map<String, Value>) -> Shape {
    if names_openai_model(object) && xai::payload_shape(object) == Shape::Own {
        Shape::Own
    } else {
        Shape::Foreign
    }
}
