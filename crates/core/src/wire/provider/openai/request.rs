//! OpenAI's request, `POST /v1/responses` ([`ResponsesRequest`]), and the paths of a background
//! run: `GET /v1/responses/{id}?stream=true&starting_after=N` resumes its stream,
//! `POST /v1/responses/{id}/cancel` cancels it. One type shared by the client that sends it and
//! the demo server that reads it.
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
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::DEFAULT_MODEL;
use crate::wire::provider::error_body::Problem;
use crate::wire::provider::fields::Fields;
use crate::wire::provider::request::{
    Ask, Endpoint, NOT_FOUND, ProviderOptions, WireRequest, null_as_default,
};
use crate::wire::provider::xai::request::{Input, InputMessage, Tool, check_common};

/// The Responses API.
pub static RESPONSES: Endpoint = Endpoint {
    name: "responses",
    path: "/v1/responses",
    not_found: NOT_FOUND,
};

/// The body of `POST /v1/responses`. `None` (and `false`) fields are left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponsesRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub input: Input,
    #[serde(default, deserialize_with = "null_as_default")]
    pub stream: bool,
    /// Run detached from this connection: resumable, cancellable.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub background: bool,
    #[serde(default, deserialize_with = "null_as_default")]
    pub tools: Vec<Tool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// Continue from this response (the last turn's id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_response_id: Option<String>,
}

/// `reasoning`: what of the model's reasoning comes back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reasoning {
    /// `auto`, `concise` or `detailed`.
    pub summary: String,
}

impl ResponsesRequest {
    /// Read a body as the API does: `input` (a non-empty string or list of messages) is
    /// required; `model` and `previous_response_id` must be strings, `background` a boolean.
    pub fn parse(body: &[u8]) -> Result<Self, Vec<Problem>> {
        let mut fields = Fields::parse(body)?;
        check_common(&mut fields);
        if let Some(other) = fields
            .get("background")
            .filter(|v| !v.is_boolean() && !v.is_null())
        {
            let problem = Problem::field(
                "bool_type",
                &["background"],
                "Input should be a valid boolean",
                other.clone(),
            );
            fields.report(problem);
        }
        fields.finish()
    }

    /// The question: the text of the last input message (or the input itself).
    pub fn question(&self) -> String {
        match &self.input {
            Input::Text(text) => text.clone(),
            Input::Messages(messages) => messages
                .last()
                .map(|m| match &m.content {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                })
                .unwrap_or_default(),
        }
    }
}

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
pub fn resume_path(id: &str, after: u64) -> String {
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
