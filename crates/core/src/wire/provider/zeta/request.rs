//! Zeta Alpha's request, `POST /v0/service/chat/stream?tenant=T` ([`ChatRequest`]): one type shared
//! by the client that sends it and the demo server that reads it.

use serde::{Deserialize, Serialize};

use super::DEFAULT_AGENT;
use crate::wire::provider::error_body::Problem;
use crate::wire::provider::fields::Fields;
use crate::wire::provider::request::{Ask, Endpoint, NOT_FOUND, ProviderOptions, WireRequest};

/// The chat stream.
pub static CHAT_STREAM: Endpoint = Endpoint {
    name: "chat",
    path: "/v0/service/chat/stream",
    not_found: NOT_FOUND,
};

/// The body of `POST /v0/service/chat/stream`. `None` fields are left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_identifier: Option<String>,
    /// The whole conversation, oldest first, ending with the question.
    pub conversation: Vec<ChatMessage>,
    /// Continue this session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `user` or `bot`.
    pub sender: String,
    pub content: String,
}

impl ChatMessage {
    fn new(sender: &str, content: &str) -> Self {
        Self {
            sender: sender.into(),
            content: content.into(),
        }
    }
}

impl ChatRequest {
    /// The question: the last message's content.
    pub fn question(&self) -> &str {
        self.conversation.last().map_or("", |m| m.content.as_str())
    }

    /// Read a body as the API does: `conversation` must be a non-empty list of
    /// `{sender, content}` ending with the user's message.
    pub fn parse(body: &[u8]) -> Result<Self, Vec<Problem>> {
        let mut fields = Fields::parse(body)?;
        fields.optional_string("agent_identifier");
        fields.optional_string("session_id");
        fields.required_user_turn(
            "conversation",
            "sender",
            "The last message should be the user's, with a string content",
        );
        fields.finish()
    }
}

/// The conversation so far and the question, in the session when there is one, for the tenant
/// (a query parameter) when one is set.
pub fn build(ask: &Ask, options: &ProviderOptions) -> WireRequest {
    let mut conversation = Vec::with_capacity(ask.history.len() * 2 + 1);
    for (question, answer) in &ask.history {
        conversation.push(ChatMessage::new("user", question));
        conversation.push(ChatMessage::new("bot", answer));
    }
    conversation.push(ChatMessage::new("user", &ask.question));
    let request = ChatRequest {
        agent_identifier: Some(options.agent.as_deref().unwrap_or(DEFAULT_AGENT).to_owned()),
        conversation,
        session_id: ask.chat_id.clone(),
    };
    let wire = WireRequest::new(&CHAT_STREAM, &request);
    match options.tenant.as_deref().filter(|t| !t.is_empty()) {
        Some(tenant) => wire.with_query("tenant", tenant),
        None => wire,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_carry_the_tenant_the_conversation_and_the_session() {
        let options = ProviderOptions {
            tenant: Some("acme labs".into()),
            ..ProviderOptions::default()
        };
        let ask = Ask {
            chat_id: Some("sess-1".into()),
            history: vec![("Q1".into(), "A1".into())],
            ..Ask::new("Q2")
        };
        let request = build(&ask, &options);
        assert_eq!(request.path, "/v0/service/chat/stream?tenant=acme%20labs");
        assert_eq!(
            request.body,
            json!({"agent_identifier": "chat_with_dynamic_retrieval",
                   "conversation": [{"sender": "user", "content": "Q1"}, {"sender": "bot", "content": "A1"},
                                    {"sender": "user", "content": "Q2"}],
                   "session_id": "sess-1"})
        );
        let parsed = ChatRequest::parse(&request.body_bytes()).unwrap();
        assert_eq!(
            (parsed.question(), parsed.session_id.as_deref()),
            ("Q2", Some("sess-1"))
        );
    }

    #[test]
    fn bodies_need_the_users_question_last() {
        let body = ChatRequest::parse(
            br#"{"conversation":[{"sender":"user","content":"Q"}],"session_id":"s"}"#,
        )
        .unwrap();
        assert_eq!(
            (body.question(), body.session_id.as_deref()),
            ("Q", Some("s"))
        );
        assert!(
            ChatRequest::parse(br#"{"conversation":[{"sender":"bot","content":"A"}]}"#).is_err()
        );
        assert!(ChatRequest::parse(br#"{"conversation":[]}"#).is_err());
    }
}
