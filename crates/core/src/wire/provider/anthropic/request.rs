//! Anthropic's request, `POST /v1/messages` ([`MessagesRequest`]): one type shared by the client
//! that sends it and the demo server that reads it. Nothing on the server ties turns together: a
//! follow-up resends the whole conversation, each assistant turn as the content blocks it streamed
//! (server tool calls and their results, text with its citations — the API needs them back), and a
//! turn the server paused (`pause_turn`) is continued by sending its content so far as the last,
//! assistant, message.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::DEFAULT_MODEL;
use crate::wire::provider::error_body::Problem;
use crate::wire::provider::fields::Fields;
use crate::wire::provider::request::{
    Ask, Endpoint, NOT_FOUND, ProviderOptions, WireRequest, null_as_default,
};

/// The Messages API.
pub static MESSAGES: Endpoint = Endpoint {
    name: "messages",
    path: "/v1/messages",
    not_found: NOT_FOUND,
};

/// The `anthropic-version` every request names.
pub const API_VERSION: &str = "2023-06-01";
/// The `anthropic-beta` that enables the web fetch tool.
pub const WEB_FETCH_BETA: &str = "web-fetch-2025-09-10";
/// The web search server tool's type.
pub const WEB_SEARCH_TOOL: &str = "web_search_20250305";
/// The web fetch server tool's type.
pub const WEB_FETCH_TOOL: &str = "web_fetch_20250910";
/// Room for the answer beside the thinking budget.
const ANSWER_TOKENS: u32 = 16_000;
/// The smallest thinking budget the API takes.
pub const MIN_THINKING_BUDGET: u32 = 1024;

/// Models the web fetch tool is documented for (docs.claude.com, "Web fetch tool"): the Claude 4
/// family, Sonnet 3.7 and Haiku 3.5. Others get web search only.
const WEB_FETCH_MODELS: &[&str] = &[
    "claude-sonnet-4",
    "claude-opus-4",
    "claude-haiku-4",
    "claude-3-7-sonnet",
    "claude-3-5-haiku",
];

/// The body of `POST /v1/messages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessagesRequest {
    pub model: String,
    pub max_tokens: u32,
    /// The whole conversation, oldest first, alternating `user` and `assistant`.
    pub messages: Vec<Message>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub stream: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Value>,
    /// `{"type": "enabled", "budget_tokens": N}`: extended thinking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Value>,
}

/// One message: its content is a string or a list of content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: Value,
}

impl Message {
    fn new(role: &str, content: Value) -> Self {
        Self {
            role: role.into(),
            content,
        }
    }

    /// The text of its `text` content (a string, or its text blocks joined).
    pub fn text(&self) -> String {
        match &self.content {
            Value::String(text) => text.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect(),
            _ => String::new(),
        }
    }
}

impl MessagesRequest {
    /// The question: the last `user` message's text.
    pub fn question(&self) -> String {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == "user")
            .map(Message::text)
            .unwrap_or_default()
    }

    /// The last message is the assistant's: this continues a paused turn.
    pub fn continues_paused_turn(&self) -> bool {
        self.messages.last().is_some_and(|m| m.role == "assistant")
    }

    /// Earlier turns: `(question, answer text)` before the question being asked.
    pub fn earlier_turns(&self) -> Vec<(String, String)> {
        let last_user = self.messages.iter().rposition(|m| m.role == "user");
        let earlier = &self.messages[..last_user.unwrap_or(0)];
        earlier
            .chunks(2)
            .filter_map(|pair| match pair {
                [q, a] if q.role == "user" && a.role == "assistant" => Some((q.text(), a.text())),
                _ => None,
            })
            .collect()
    }

    /// Read a body as the API does: `model` and `max_tokens` are required, `messages` a non-empty
    /// list of `{role, content}`.
    pub fn parse(body: &[u8]) -> Result<Self, Vec<Problem>> {
        let mut fields = Fields::parse(body)?;
        fields.required_text("model");
        if !fields.get("max_tokens").is_some_and(Value::is_u64) {
            fields.missing("max_tokens");
        }
        if fields
            .get("messages")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty)
        {
            fields.missing("messages");
        }
        fields.finish()
    }
}

/// Whether `model` takes the web fetch tool.
pub fn fetches(model: &str) -> bool {
    WEB_FETCH_MODELS
        .iter()
        .any(|prefix| model.starts_with(prefix))
}

/// A streamed question with the conversation so far, or the continuation of a paused turn.
pub fn build(ask: &Ask, options: &ProviderOptions) -> WireRequest {
    let model = options.model.as_deref().unwrap_or(DEFAULT_MODEL).to_owned();
    let mut messages = Vec::new();
    for (i, (question, answer)) in ask.history.iter().enumerate() {
        messages.push(Message::new("user", json!(question)));
        let blocks = ask.transcripts.get(i).map(|t| resent(t, false));
        let content = match blocks {
            Some(blocks) if !blocks.is_empty() => Value::Array(blocks),
            _ => json!(answer),
        };
        messages.push(Message::new("assistant", content));
    }
    messages.push(Message::new("user", json!(ask.question)));
    let paused = resent(&ask.paused, true);
    if !paused.is_empty() {
        messages.push(Message::new("assistant", Value::Array(paused)));
    }
    let mut tools = vec![json!({"type": WEB_SEARCH_TOOL, "name": "web_search"})];
    let fetch = fetches(&model);
    if fetch {
        tools.push(json!({"type": WEB_FETCH_TOOL, "name": "web_fetch"}));
    }
    let budget = options.thinking.map(|b| b.max(MIN_THINKING_BUDGET));
    let request = MessagesRequest {
        model,
        max_tokens: ANSWER_TOKENS + budget.unwrap_or(0),
        messages,
        stream: true,
        tools,
        thinking: budget.map(|b| json!({"type": "enabled", "budget_tokens": b})),
    };
    let wire = WireRequest::new(&MESSAGES, &request).with_header("anthropic-version", API_VERSION);
    if fetch {
        wire.with_header("anthropic-beta", WEB_FETCH_BETA)
    } else {
        wire
    }
}

/// Content blocks as the API takes them back: empty text blocks are refused, and thinking from an
/// earlier turn may be left out (the API ignores it), while a paused turn keeps its own.
fn resent(blocks: &[Value], keep_thinking: bool) -> Vec<Value> {
    blocks
        .iter()
        .filter(|block| match block.get("type").and_then(Value::as_str) {
            Some("text") => block
                .get("text")
                .and_then(Value::as_str)
                .is_some_and(|t| !t.is_empty()),
            Some("thinking" | "redacted_thinking") => keep_thinking,
            _ => true,
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_asks_for_web_search_and_fetch_with_the_version_header() {
        let request = build(&Ask::new("Why?"), &ProviderOptions::default());
        assert_eq!(request.path, "/v1/messages");
        assert_eq!(
            request.headers,
            [
                ("anthropic-version", API_VERSION.to_owned()),
                ("anthropic-beta", WEB_FETCH_BETA.to_owned())
            ]
        );
        assert_eq!(request.body["stream"], json!(true));
        assert_eq!(request.body["model"], json!(DEFAULT_MODEL));
        assert_eq!(request.body["tools"][0]["type"], json!(WEB_SEARCH_TOOL));
        assert_eq!(request.body["tools"][1]["type"], json!(WEB_FETCH_TOOL));
        assert_eq!(request.body.get("thinking"), None);
        let parsed = MessagesRequest::parse(&request.body_bytes()).unwrap();
        assert_eq!(parsed.question(), "Why?");
        assert!(!parsed.continues_paused_turn());
    }

    #[test]
    fn older_models_search_without_fetching_and_thinking_has_its_own_budget() {
        let options = ProviderOptions {
            model: Some("claude-3-5-sonnet-latest".into()),
            thinking: Some(100),
            ..ProviderOptions::default()
        };
        let request = build(&Ask::new("Why?"), &options);
        assert_eq!(request.body["tools"].as_array().unwrap().len(), 1);
        assert_eq!(request.headers.len(), 1);
        assert_eq!(
            request.body["thinking"],
            json!({"type": "enabled", "budget_tokens": 1024})
        );
        assert_eq!(request.body["max_tokens"], json!(17_024));
    }

    #[test]
    fn a_follow_up_resends_each_turns_blocks_and_a_paused_turn_ends_with_its_content() {
        let blocks = vec![
            json!({"type": "thinking", "thinking": "hm", "signature": "s"}),
            json!({"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "q"}}),
            json!({"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []}),
            json!({"type": "text", "text": ""}),
            json!({"type": "text", "text": "A law.", "citations": [{"type": "web_search_result_location"}]}),
        ];
        let ask = Ask {
            history: vec![
                ("What is it?".into(), "A law.".into()),
                ("And?".into(), "B.".into()),
            ],
            transcripts: vec![blocks.clone()],
            paused: blocks.clone(),
            ..Ask::new("Since when?")
        };
        let request = build(&ask, &ProviderOptions::default());
        let messages = request.body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 6);
        assert_eq!(messages[1]["content"].as_array().unwrap().len(), 3);
        assert_eq!(messages[3]["content"], json!("B."));
        assert_eq!(messages[5]["role"], json!("assistant"));
        assert_eq!(messages[5]["content"].as_array().unwrap().len(), 4);
        let parsed = MessagesRequest::parse(&request.body_bytes()).unwrap();
        assert!(parsed.continues_paused_turn());
        assert_eq!(parsed.question(), "Since when?");
        assert_eq!(
            parsed.earlier_turns(),
            [
                ("What is it?".to_owned(), "A law.".to_owned()),
                ("And?".to_owned(), "B.".to_owned())
            ]
        );
    }

    #[test]
    fn bodies_need_a_model_max_tokens_and_messages() {
        let problems = MessagesRequest::parse(br#"{"stream":true}"#).unwrap_err();
        assert_eq!(problems.len(), 3, "{problems:?}");
    }
}
