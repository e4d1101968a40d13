//! xAI's request: a Responses API body ([`ResponsesRequest`], shared with OpenAI) asking for web and
//! X search.

use serde_json::Value;

use super::DEFAULT_MODEL;
use crate::wire::provider::request::{Ask, ProviderOptions, WireRequest};
use crate::wire::provider::responses::{Input, InputMessage, RESPONSES, ResponsesRequest, Tool};

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
        background: false,
        reasoning: None,
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
