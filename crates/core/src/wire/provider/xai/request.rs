//! xAI's request, `POST /v1/responses` ([`ResponsesRequest`]): one type shared by the client that
//! sends it and the demo server that reads it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::DEFAULT_MODEL;
use crate::wire::provider::error_body::Problem;
use crate::wire::provider::fields::Fields;
use crate::wire::provider::request::{
    Ask, Endpoint, NOT_FOUND, ProviderOptions, WireRequest, null_as_default,
};

/// The Responses API.
pub static RESPONSES: Endpoint = Endpoint {
    name: "responses",
    path: "/v1/responses",
    not_found: NOT_FOUND,
};

/// The body of `POST /v1/responses`. `None` fields are left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponsesRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub input: Input,
    #[serde(default, deserialize_with = "null_as_default")]
    pub stream: bool,
    #[serde(default, deserialize_with = "null_as_default")]
    pub tools: Vec<Tool>,
    /// Continue from this response (the last turn's id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_response_id: Option<String>,
}

/// `input`: a plain prompt, or messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Input {
    Text(String),
    Messages(Vec<InputMessage>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputMessage {
    pub role: String,
    /// Text, or a list of content parts.
    pub content: Value,
}

/// A server-side tool the model may use: `{"type": "web_search"}`, `{"type": "x_search"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    #[serde(rename = "type")]
    pub kind: String,
}

impl Input {
    /// The question: the text, or the last user message's content (its JSON when not text).
    pub fn question(&self) -> String {
        match self {
            Input::Text(text) => text.clone(),
            Input::Messages(messages) => messages
                .iter()
                .rev()
                .find(|m| m.role == "user")
                .map(|m| match &m.content {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                })
                .unwrap_or_default(),
        }
    }
}

impl ResponsesRequest {
    /// Read a body as the API does: `input` (a non-empty string or list of messages) is
    /// required; `model` and `previous_response_id` must be strings when present.
    pub fn parse(body: &[u8]) -> Result<Self, Vec<Problem>> {
        let mut fields = Fields::parse(body)?;
        check_common(&mut fields);
        fields.finish()
    }
}

/// The checks every Responses API body shares (xAI's and OpenAI's): `input` a non-empty string or
/// list of messages; `model` and `previous_response_id` strings when present.
pub(crate) fn check_common(fields: &mut Fields) {
    match fields.get("input") {
        None | Some(Value::Null) => fields.missing("input"),
        Some(Value::String(s)) if !s.is_empty() => {}
        Some(Value::Array(items)) if !items.is_empty() => {}
        Some(other) => {
            let problem = Problem::field(
                "input_type",
                &["input"],
                "Input should be a non-empty string or list of messages",
                other.clone(),
            );
            fields.report(problem);
        }
    }
    fields.optional_string("model");
    fields.optional_string("previous_response_id");
}

/// A streamed question with web and X search; a follow-up chains the previous response (the
/// checkpoint, else the conversation id).
pub fn build(ask: &Ask, options: &ProviderOptions) -> WireRequest {
    let request = ResponsesRequest {
        model: Some(options.model.as_deref().unwrap_or(DEFAULT_MODEL).to_owned()),
        input: Input::Messages(vec![InputMessage {
            role: "user".into(),
            content: Value::from(ask.question.as_str()),
        }]),
        stream: true,
        tools: ["web_search", "x_search"]
            .map(|kind| Tool { kind: kind.into() })
            .into(),
        previous_response_id: ask.checkpoint_id.clone().or_else(|| ask.chat_id.clone()),
    };
    WireRequest::new(&RESPONSES, &request)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_stream_with_web_and_x_search_and_chain_the_previous_response() {
        let ask = Ask {
            checkpoint_id: Some("resp_1".into()),
            ..Ask::new("Why?")
        };
        let request = build(&ask, &ProviderOptions::default());
        assert_eq!(request.path, "/v1/responses");
        assert_eq!(
            request.body,
            json!({"model": "grok-4", "input": [{"role": "user", "content": "Why?"}], "stream": true,
                   "tools": [{"type": "web_search"}, {"type": "x_search"}],
                   "previous_response_id": "resp_1"})
        );
        let parsed = ResponsesRequest::parse(&request.body_bytes()).unwrap();
        assert_eq!(parsed.previous_response_id.as_deref(), Some("resp_1"));
    }

    #[test]
    fn bodies_need_their_input() {
        assert_eq!(
            ResponsesRequest::parse(br#"{"model":"grok-4","input":[{"role":"user","content":"hi"}],"previous_response_id":"r1"}"#)
                .unwrap()
                .previous_response_id
                .as_deref(),
            Some("r1")
        );
        assert_eq!(
            ResponsesRequest::parse(br#"{"input":"What?"}"#)
                .unwrap()
                .input,
            Input::Text("What?".into())
        );
        let problems = ResponsesRequest::parse(br#"{"input":""}"#).unwrap_err();
        assert_eq!(problems[0].loc[1], "input");
    }
}
