//! OpenAI's request, `POST /v1/responses` (a [`ResponsesRequest`], shared with xAI), and the paths of
//! a background run: `GET /v1/responses/{id}?stream=true&starting_after=N` resumes its stream,
//! `POST /v1/responses/{id}/cancel` cancels it.
//!
//! - Deep research models (`o3-deep-research`, `o4-mini-deep-research`) run with
//!   `background: true` (minutes to an hour: the run survives a dropped connection) and need a data
//!   source: they are given `web_search_preview`, the tool type their API error names ("Deep
//!   research models require at least one of 'web_search_preview' or 'mcp' tools"). Other models get
//!   the generally available `web_search` tool.
//! - Reasoning models (o-series, gpt-5, deep research) ask for `reasoning.summary: auto`, so their
//!   reasoning summaries stream as thinking.
//! - A follow-up sends `previous_response_id`: the server keeps the conversation.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

use super::DEFAULT_MODEL;
use crate::wire::provider::request::{Ask, ProviderOptions, WireRequest};
use crate::wire::provider::responses::{
    Input, InputMessage, RESPONSES, Reasoning, ResponsesRequest, Tool,
};

/// `o3-deep-research`, `o4-mini-deep-research-2025-06-26`, …
pub fn is_deep_research(model: &str) -> bool {
    model.contains("deep-research")
}

/// Models that reason, and so can summarise their reasoning: the o-series, gpt-5, deep research.
fn reasons(model: &str) -> bool {
    let mut chars = model.chars();
    let o_series = chars.next() == Some('o') && chars.next().is_some_and(|c| c.is_ascii_digit());
    o_series || model.starts_with("gpt-5") || is_deep_research(model)
}

/// A streamed question with web search; deep research runs in the background. A follow-up chains
/// the previous response (the checkpoint, else the conversation id).
pub fn build(ask: &Ask, options: &ProviderOptions) -> WireRequest {
    let model = options.model.as_deref().unwrap_or(DEFAULT_MODEL).to_owned();
    let deep = is_deep_research(&model);
    let search = if deep {
        "web_search_preview"
    } else {
        "web_search"
    };
    let request = ResponsesRequest {
        input: Input::Messages(vec![InputMessage {
            role: "user".into(),
            content: Value::from(ask.question.as_str()),
        }]),
        stream: true,
        background: deep,
        tools: vec![Tool {
            kind: search.into(),
        }],
        reasoning: reasons(&model).then(|| Reasoning {
            summary: "auto".into(),
        }),
        previous_response_id: ask.checkpoint_id.clone().or_else(|| ask.chat_id.clone()),
        model: Some(model),
    };
    WireRequest::new(&RESPONSES, &request)
}

/// The request body asked for a background run.
pub fn runs_in_background(body: &Value) -> bool {
    body.get("background").and_then(Value::as_bool) == Some(true)
}

/// `GET` this to stream run `id` again from the event after sequence number `after`.
pub fn resume_path(id: &str, after: &str) -> String {
    format!(
        "{}/{}?stream=true&starting_after={after}",
        RESPONSES.path,
        escaped(id)
    )
}

/// `POST` this to cancel run `id`.
pub fn cancel_path(id: &str) -> String {
    format!("{}/{}/cancel", RESPONSES.path, escaped(id))
}

/// A run id as one path segment (ids are `resp_…`; anything else is escaped, a `/` too).
fn escaped(id: &str) -> String {
    const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~');
    utf8_percent_encode(id, SEGMENT).to_string()
}
