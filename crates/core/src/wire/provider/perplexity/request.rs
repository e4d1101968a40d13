//! Perplexity's request, `POST /chat/completions` ([`ChatCompletionRequest`]): one type shared by
//! the client that sends it and the demo server that reads it. Nothing on the server ties turns
//! together: a follow-up resends the whole conversation, alternating `user` and `assistant`
//! messages and ending with the new question.

use serde::{Deserialize, Serialize};

use super::DEFAULT_MODEL;
use crate::wire::provider::error_body::Problem;
use crate::wire::provider::fields::Fields;
use crate::wire::provider::request::{
    Ask, Endpoint, NOT_FOUND, ProviderOptions, WireRequest, null_as_default,
};

/// Chat completions.
pub static CHAT_COMPLETIONS: Endpoint = Endpoint {
    name: "chat-completions",
    path: "/chat/completions",
    not_found: NOT_FOUND,
};

/// The body of `POST /chat/completions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatCompletionRequest {
    pub model: String,
    /// The whole conversation, oldest first, ending with the question.
    pub messages: Vec<Message>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub stream: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    pub content: String,
}

impl Message {
    fn new(role: &str, content: &str) -> Self {
        Self {
            role: role.into(),
            content: content.into(),
        }
    }
}

impl ChatCompletionRequest {
    /// The question: the last message's content.
    pub fn question(&self) -> &str {
        self.messages.last().map_or("", |m| m.content.as_str())
    }

    /// Earlier turns in the request: it continues a conversation.
    pub fn is_follow_up(&self) -> bool {
        self.messages.iter().any(|m| m.role == "assistant")
    }

    /// Read a body as the API does: `model` is required, `messages` a non-empty list of
    /// `{role, content}` ending with the user's message.
    pub fn parse(body: &[u8]) -> Result<Self, Vec<Problem>> {
        let mut fields = Fields::parse(body)?;
        fields.required_text("model");
        fields.required_user_turn("messages", "role", "Last message must have role `user`");
        fields.finish()
    }
}

/// A streamed question with the conversation so far.
pub fn build(ask: &Ask, options: &ProviderOptions) -> WireRequest {
    let mut messages: Vec<Message> = ask
        .history
        .iter()
        .flat_map(|(question, answer)| {
            [
                Message::new("user", question),
                Message::new("assistant", answer),
            ]
        })
        .collect();
    messages.push(Message::new("user", &ask.question));
    let request = ChatCompletionRequest {
        model: options.model.as_deref().unwrap_or(DEFAULT_MODEL).to_owned(),
        messages,
        stream: true,
    };
    WireRequest::new(&CHAT_COMPLETIONS, &request)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_follow_up_resends_the_conversation_and_ends_with_the_question() {
        let ask = Ask {
            history: vec![("What is it?".into(), "A law [1].".into())],
            chat_id: Some("c-1".into()),
            ..Ask::new("Since when?")
        };
        let request = build(&ask, &ProviderOptions::default());
        assert_eq!(request.path, "/chat/completions");
        assert_eq!(
            request.body,
            json!({"model": "sonar-pro", "stream": true, "messages": [
                {"role": "user", "content": "What is it?"},
                {"role": "assistant", "content": "A law [1]."},
                {"role": "user", "content": "Since when?"}]})
        );
        let parsed = ChatCompletionRequest::parse(&request.body_bytes()).unwrap();
        assert!(parsed.is_follow_up());
        assert_eq!(parsed.question(), "Since when?");
    }

    #[test]
    fn bodies_need_a_model_and_a_last_user_message() {
        let problems =
            ChatCompletionRequest::parse(br#"{"messages":[{"role":"assistant","content":"x"}]}"#)
                .unwrap_err();
        let locs: Vec<&serde_json::Value> = problems.iter().map(|p| &p.loc[1]).collect();
        assert!(locs.contains(&&json!("model")), "{problems:?}");
        assert!(locs.contains(&&json!("messages")), "{problems:?}");
    }
}
