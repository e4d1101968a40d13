//! The Responses API's request, `POST /v1/responses` ([`ResponsesRequest`]), which xAI and OpenAI
//! both speak: one type shared by the client that sends it (each provider's `build` fills it in)
//! and the demo server that reads it. OpenAI's background runs and reasoning summaries are optional
//! fields xAI's requests leave out.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::wire::provider::error_body::Problem;
use crate::wire::provider::fields::Fields;
use crate::wire::provider::request::{Endpoint, NOT_FOUND, null_as_default};

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
        check_input(&mut fields);
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

    /// The question: the input itself, or the text of the last user message.
    pub fn question(&self) -> String {
        match &self.input {
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

/// `input` a non-empty string or list of messages; `model` and `previous_response_id` strings when
/// present.
fn check_input(fields: &mut Fields) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_body_type_reads_both_providers_requests() {
        let xai = br#"{"model":"grok-4","input":[{"role":"user","content":"Why?"}],"stream":true,"tools":[{"type":"x_search"}]}"#;
        let parsed = ResponsesRequest::parse(xai).unwrap();
        assert!(!parsed.background);
        assert_eq!(parsed.reasoning, None);
        let openai = br#"{"model":"o3-deep-research","input":"Why?","stream":true,"background":true,"reasoning":{"summary":"auto"}}"#;
        let parsed = ResponsesRequest::parse(openai).unwrap();
        assert!(parsed.background);
        assert_eq!(parsed.question(), "Why?");
        let problems =
            ResponsesRequest::parse(br#"{"input":"Why?","background":"yes"}"#).unwrap_err();
        assert_eq!(problems[0].loc[1], "background");
    }

    #[test]
    fn the_question_is_the_last_thing_the_user_said() {
        let body = br#"{"input":[{"role":"user","content":"First?"},{"role":"user","content":"Then?"},{"role":"assistant","content":"Sure."}]}"#;
        assert_eq!(ResponsesRequest::parse(body).unwrap().question(), "Then?");
    }
}
