//! Gemini's two requests, each one type shared by the client that sends it and the demo server
//! that reads it:
//!
//! - [`InteractionRequest`], `POST /v1beta/interactions`: the Deep Research agent
//!   (`agent: deep-research-…`), run on the server (`background: true`) and streamed
//!   (`stream: true`), thought summaries asked for (`agent_config.thinking_summaries: auto`). A
//!   follow-up sends `previous_interaction_id`: the server keeps the conversation. The run's
//!   stream is resumed with `GET /v1beta/interactions/{id}?stream=true&last_event_id=…` and
//!   cancelled with `POST /v1beta/interactions/{id}/cancel`.
//! - [`GenerateRequest`], `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`: a plain
//!   model grounded with Google Search (`tools: [{google_search: {}}]`). Nothing on the server ties
//!   turns together: a follow-up resends `contents`, alternating `user` and `model` turns.
//!
//! Which one a question becomes is the model's business ([`is_agent`]): no model, or an agent id,
//! is deep research; any other name is a model.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::DEFAULT_AGENT;
use crate::wire::provider::request::{Ask, Endpoint, NOT_FOUND, ProviderOptions, WireRequest};

/// The Interactions API: the Deep Research agent.
pub static INTERACTIONS: Endpoint = Endpoint {
    name: "interactions",
    path: "/v1beta/interactions",
    not_found: "not found (unknown agent or interaction)",
};

/// A model's streamed answer; `*` is the model's name.
pub static GENERATE: Endpoint = Endpoint {
    name: "stream-generate-content",
    path: "/v1beta/models/*:streamGenerateContent",
    not_found: NOT_FOUND,
};

/// The body of `POST /v1beta/interactions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InteractionRequest {
    pub agent: String,
    /// The question (the API also takes a list of turns or content blocks: see [`Self::question`]).
    pub input: Value,
    #[serde(default)]
    pub background: bool,
    #[serde(default)]
    pub stream: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_config: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_interaction_id: Option<String>,
}

impl InteractionRequest {
    /// The question: the input text, or the text of its last turn or content block.
    pub fn question(&self) -> String {
        last_text(&self.input)
    }

    pub fn parse(body: &[u8]) -> Option<Self> {
        serde_json::from_slice::<Self>(body)
            .ok()
            .filter(|request| !request.agent.is_empty())
    }
}

/// The text of an Interactions `input`: a string, a content block `{type: text, text}`, a turn
/// `{role, content}`, or a list of either (the last one asks).
fn last_text(input: &Value) -> String {
    match input {
        Value::String(text) => text.clone(),
        Value::Array(items) => items.last().map(last_text).unwrap_or_default(),
        Value::Object(object) => match (object.get("text"), object.get("content")) {
            (Some(Value::String(text)), _) => text.clone(),
            (_, Some(content)) => last_text(content),
            _ => String::new(),
        },
        _ => String::new(),
    }
}

/// The body of `POST /v1beta/models/{model}:streamGenerateContent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerateRequest {
    /// The whole conversation, oldest first, ending with the question.
    pub contents: Vec<Content>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Value>,
    #[serde(
        default,
        rename = "generationConfig",
        skip_serializing_if = "Option::is_none"
    )]
    pub generation_config: Option<Value>,
}

/// One turn of `contents`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Content {
    /// `user` or `model`.
    #[serde(default)]
    pub role: String,
    pub parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    #[serde(default)]
    pub text: String,
}

impl Content {
    fn new(role: &str, text: &str) -> Self {
        Self {
            role: role.into(),
            parts: vec![Part { text: text.into() }],
        }
    }

    fn text(&self) -> String {
        self.parts.iter().map(|p| p.text.as_str()).collect()
    }
}

impl GenerateRequest {
    /// The question: the text of the last `user` turn.
    pub fn question(&self) -> String {
        self.contents.last().map(Content::text).unwrap_or_default()
    }

    /// The earlier turns as `(question, answer)`.
    pub fn history(&self) -> Vec<(String, String)> {
        let earlier = &self.contents[..self.contents.len().saturating_sub(1)];
        earlier
            .chunks(2)
            .filter(|pair| pair.len() == 2 && pair[0].role == "user" && pair[1].role == "model")
            .map(|pair| (pair[0].text(), pair[1].text()))
            .collect()
    }

    /// Read a body as the API does: `contents` non-empty, ending with the user's turn.
    pub fn parse(body: &[u8]) -> Option<Self> {
        serde_json::from_slice::<Self>(body).ok().filter(|request| {
            request
                .contents
                .last()
                .is_some_and(|c| c.role == "user" || c.role.is_empty())
        })
    }
}

/// Deep research agents (`deep-research-preview-04-2026`, `deep-research-max-preview-04-2026`,
/// `deep-research-pro-preview-12-2025`) run through the Interactions API; everything else is a
/// model.
pub fn is_agent(name: &str) -> bool {
    name.starts_with("deep-research")
}

/// A question to the Deep Research agent, or to a plain model with Google Search grounding.
pub fn build(ask: &Ask, options: &ProviderOptions) -> WireRequest {
    let name = options.model.as_deref().unwrap_or(DEFAULT_AGENT);
    if is_agent(name) {
        return WireRequest::new(&INTERACTIONS, &interaction(ask, name));
    }
    let mut contents: Vec<Content> = ask
        .history
        .iter()
        .flat_map(|(question, answer)| {
            [
                Content::new("user", question),
                Content::new("model", answer),
            ]
        })
        .collect();
    contents.push(Content::new("user", &ask.question));
    let request = GenerateRequest {
        contents,
        tools: vec![serde_json::json!({"google_search": {}})],
        // Thinking models summarise their thoughts when asked: shown as thinking, never as answer.
        generation_config: thinks(name)
            .then(|| serde_json::json!({"thinkingConfig": {"includeThoughts": true}})),
    };
    let mut wire = WireRequest::new(&GENERATE, &request);
    wire.path = format!("/v1beta/models/{}:streamGenerateContent", escaped(name));
    wire.with_query("alt", "sse")
}

fn interaction(ask: &Ask, agent: &str) -> InteractionRequest {
    InteractionRequest {
        agent: agent.to_owned(),
        input: Value::from(ask.question.as_str()),
        background: true,
        stream: true,
        agent_config: Some(serde_json::json!({
            "type": "deep-research",
            "thinking_summaries": "auto",
        })),
        previous_interaction_id: ask.checkpoint_id.clone().or_else(|| ask.chat_id.clone()),
    }
}

/// Gemini 2.5 and later think, and can say what they thought.
fn thinks(model: &str) -> bool {
    let version = model.strip_prefix("gemini-").unwrap_or_default();
    let major: u32 = version
        .split(['.', '-'])
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    major >= 3 || version.starts_with("2.5")
}

/// The request body asked for a run on the server.
pub fn runs_in_background(body: &Value) -> bool {
    body.get("background").and_then(Value::as_bool) == Some(true)
}

/// `GET` this to stream interaction `id` again from the event after `last_event_id`.
pub fn resume_path(id: &str, last_event_id: &str) -> String {
    let after: String = utf8_percent_encode(last_event_id, UNRESERVED).collect();
    format!(
        "{}/{}?stream=true&last_event_id={after}",
        INTERACTIONS.path,
        escaped(id)
    )
}

/// `POST` this to cancel interaction `id`.
pub fn cancel_path(id: &str) -> String {
    format!("{}/{}/cancel", INTERACTIONS.path, escaped(id))
}

const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// An id or model name as one path segment.
fn escaped(segment: &str) -> String {
    utf8_percent_encode(segment, UNRESERVED).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_model_asks_the_deep_research_agent_in_the_background() {
        let ask = Ask {
            chat_id: Some("v1_abc".into()),
            ..Ask::new("What is new in fusion?")
        };
        let request = build(&ask, &ProviderOptions::default());
        assert_eq!(request.path, "/v1beta/interactions");
        assert_eq!(request.body["agent"], DEFAULT_AGENT);
        assert_eq!(request.body["background"], true);
        assert_eq!(request.body["stream"], true);
        assert_eq!(request.body["input"], "What is new in fusion?");
        assert_eq!(request.body["previous_interaction_id"], "v1_abc");
        assert!(runs_in_background(&request.body));
        let parsed = InteractionRequest::parse(&request.body_bytes()).unwrap();
        assert_eq!(parsed.question(), "What is new in fusion?");
    }

    #[test]
    fn a_model_is_asked_with_google_search_and_the_conversation_so_far() {
        let ask = Ask {
            history: vec![("Who won?".into(), "Spain.".into())],
            ..Ask::new("By how much?")
        };
        let options = ProviderOptions {
            model: Some("gemini-2.5-flash".into()),
            ..ProviderOptions::default()
        };
        let request = build(&ask, &options);
        assert_eq!(
            request.path,
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            request.body["tools"][0],
            serde_json::json!({"google_search": {}})
        );
        assert_eq!(
            request.body["generationConfig"]["thinkingConfig"]["includeThoughts"],
            true
        );
        let parsed = GenerateRequest::parse(&request.body_bytes()).unwrap();
        assert_eq!(parsed.question(), "By how much?");
        assert_eq!(parsed.history(), ask.history);
        let path = request.path.split('?').next().unwrap();
        assert_eq!(
            GENERATE.model_in_path(path).as_deref(),
            Some("gemini-2.5-flash")
        );
        assert!(!runs_in_background(&request.body));
    }

    #[test]
    fn resume_and_cancel_name_the_interaction_and_the_last_event() {
        assert_eq!(
            resume_path("v1_x", "evt/1+2"),
            "/v1beta/interactions/v1_x?stream=true&last_event_id=evt%2F1%2B2"
        );
        assert_eq!(cancel_path("v1_x"), "/v1beta/interactions/v1_x/cancel");
    }
}
