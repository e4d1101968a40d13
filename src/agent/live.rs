//! Starting a live (or demo) stream with any provider: the request each API expects, sent through
//! [`AgentClient`] (retries, timeouts, key redaction) and read by that provider's dialect.
//!
//! | provider | request | key header | continues with |
//! |---|---|---|---|
//! | Bigdata.com | `POST /v1/research-agent` | `X-API-KEY` | `chat_id`, `from_checkpoint_id` |
//! | xAI | `POST /v1/responses` (`stream`, web and X search) | `Authorization: Bearer` | `previous_response_id` = the last response id |
//! | Zeta Alpha | `POST /v0/service/chat/stream?tenant=T` | `X-Auth` | `session_id` (= `chat_id`) and the conversation so far |
//!
//! The built-in demo server answers all three paths, so [`LiveConfig::demo`] works for each.

use std::net::SocketAddr;

use serde_json::{Value, json};

use crate::agent::client::{
    AgentClient, ApiKey, KeyHeader, RawSink, ResearchRequest, StreamOptions,
};
use crate::agent::stream::StreamHandle;
use crate::wire::provider::{Provider, xai, zeta};

/// Bigdata.com's production agent.
pub const BIGDATA_BASE_URL: &str = "https://agents.bigdata.com";

/// Where and how to reach one provider.
#[derive(Debug, Clone)]
pub struct LiveConfig {
    pub provider: Provider,
    /// The API base: production ([`default_base_url`]) or the demo server's `http://127.0.0.1:PORT`.
    pub base_url: String,
    pub api_key: Option<ApiKey>,
    /// xAI: the model (default [`xai::DEFAULT_MODEL`]). Ignored by the others.
    pub model: Option<String>,
    /// Zeta Alpha: the tenant (the `tenant` query parameter).
    pub tenant: Option<String>,
    /// Zeta Alpha: the agent identifier (default [`zeta::DEFAULT_AGENT`]).
    pub agent: Option<String>,
    pub options: StreamOptions,
}

impl LiveConfig {
    /// Production settings for `provider` with `api_key`.
    pub fn new(provider: Provider, api_key: Option<ApiKey>) -> Self {
        Self {
            provider,
            base_url: default_base_url(provider).to_owned(),
            api_key,
            model: None,
            tenant: None,
            agent: None,
            options: StreamOptions::default(),
        }
    }

    /// The built-in demo server at `addr` (no key).
    pub fn demo(provider: Provider, addr: SocketAddr) -> Self {
        Self {
            base_url: format!("http://{addr}"),
            tenant: (provider == Provider::Zeta).then(|| "demo".to_owned()),
            ..Self::new(provider, None)
        }
    }

    pub fn client(&self) -> AgentClient {
        let header = match self.provider {
            Provider::Bigdata => KeyHeader::XApiKey,
            Provider::Xai => KeyHeader::Bearer,
            Provider::Zeta => KeyHeader::XAuth,
        };
        AgentClient::new(&self.base_url, self.api_key.clone()).with_key_header(header)
    }
}

/// Provider-specific request options a user sets once per conversation (kept in its saved session).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProviderOptions {
    /// xAI: the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Zeta Alpha: the tenant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// Zeta Alpha: the agent identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

impl LiveConfig {
    /// Apply options the user gave; unset ones keep this config's values (the demo's tenant, say).
    pub fn with_options(mut self, options: &ProviderOptions) -> Self {
        self.model = options.model.clone().or(self.model);
        self.tenant = options.tenant.clone().or(self.tenant);
        self.agent = options.agent.clone().or(self.agent);
        self
    }

    pub fn provider_options(&self) -> ProviderOptions {
        ProviderOptions {
            model: self.model.clone(),
            tenant: self.tenant.clone(),
            agent: self.agent.clone(),
        }
    }
}

/// A question and what ties it to earlier turns of the same conversation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ask {
    pub question: String,
    /// The conversation: Bigdata.com `chat_id`, Zeta Alpha `session_id`, xAI the last response id.
    pub chat_id: Option<String>,
    /// Bigdata.com `from_checkpoint_id`; xAI `previous_response_id` (the last turn's checkpoint).
    pub checkpoint_id: Option<String>,
    /// Earlier turns as `(question, answer)`, oldest first: Zeta Alpha takes the conversation in
    /// every request. The others ignore it.
    pub history: Vec<(String, String)>,
}

impl Ask {
    pub fn new(question: impl Into<String>) -> Self {
        Self {
            question: question.into(),
            ..Self::default()
        }
    }
}

/// Start the stream for `ask`. Needs a tokio runtime.
pub fn start(config: &LiveConfig, ask: &Ask) -> StreamHandle {
    start_recorded(config, ask, None)
}

/// Like [`start`], also writing every body byte to `sink` as it arrives.
pub fn start_recorded(config: &LiveConfig, ask: &Ask, sink: Option<RawSink>) -> StreamHandle {
    let client = config.client();
    if config.provider == Provider::Bigdata {
        let request = ResearchRequest {
            chat_id: ask.chat_id.clone(),
            from_checkpoint_id: ask.checkpoint_id.clone(),
            ..ResearchRequest::new(ask.question.clone())
        };
        return client.research_recorded(request, config.options, sink);
    }
    let (path, body) = request(config, ask);
    let body = serde_json::to_vec(&body).unwrap_or_default();
    client.stream_post(&path, body, config.provider, config.options, sink)
}

/// The path (with query) and JSON body of the request for `ask`.
pub fn request(config: &LiveConfig, ask: &Ask) -> (String, Value) {
    match config.provider {
        Provider::Bigdata => {
            let request = ResearchRequest {
                chat_id: ask.chat_id.clone(),
                from_checkpoint_id: ask.checkpoint_id.clone(),
                ..ResearchRequest::new(ask.question.clone())
            };
            (
                "/v1/research-agent".into(),
                serde_json::to_value(request).unwrap_or(Value::Null),
            )
        }
        Provider::Xai => {
            let mut body = json!({
                "model": config.model.as_deref().unwrap_or(xai::DEFAULT_MODEL),
                "input": [{"role": "user", "content": ask.question}],
                "stream": true,
                "tools": [{"type": "web_search"}, {"type": "x_search"}],
            });
            if let Some(previous) = ask.checkpoint_id.as_ref().or(ask.chat_id.as_ref()) {
                body["previous_response_id"] = Value::from(previous.as_str());
            }
            ("/v1/responses".into(), body)
        }
        Provider::Zeta => {
            let mut conversation = Vec::new();
            for (question, answer) in &ask.history {
                conversation.push(json!({"sender": "user", "content": question}));
                conversation.push(json!({"sender": "bot", "content": answer}));
            }
            conversation.push(json!({"sender": "user", "content": ask.question}));
            let mut body = json!({
                "agent_identifier": config.agent.as_deref().unwrap_or(zeta::DEFAULT_AGENT),
                "conversation": conversation,
            });
            if let Some(session) = &ask.chat_id {
                body["session_id"] = Value::from(session.as_str());
            }
            let path = match config.tenant.as_deref().filter(|t| !t.is_empty()) {
                Some(tenant) => format!("/v0/service/chat/stream?tenant={}", encode(tenant)),
                None => "/v0/service/chat/stream".into(),
            };
            (path, body)
        }
    }
}

/// The production API base of `provider`.
pub fn default_base_url(provider: Provider) -> &'static str {
    match provider {
        Provider::Bigdata => BIGDATA_BASE_URL,
        Provider::Xai => xai::DEFAULT_BASE_URL,
        Provider::Zeta => zeta::DEFAULT_BASE_URL,
    }
}

/// The environment variable that holds `provider`'s API key.
pub fn api_key_env(provider: Provider) -> &'static str {
    match provider {
        Provider::Bigdata => "BIGDATA_API_KEY",
        Provider::Xai => "XAI_API_KEY",
        Provider::Zeta => "ZETA_ALPHA_API_KEY",
    }
}

/// The question the demo asks first (the demo server answers it with its recording).
pub fn demo_question(provider: Provider) -> &'static str {
    match provider {
        Provider::Bigdata => {
            "Break down NVIDIA's latest quarter: data-center growth, margins, and guidance"
        }
        Provider::Xai => {
            "Which solid-state battery makers are closest to mass production, and what are people on X saying about it?"
        }
        Provider::Zeta => {
            "What do recent papers say about retrieval-augmented generation for long documents?"
        }
    }
}

/// Percent-encode a query parameter value.
fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xai_requests_stream_with_web_and_x_search_and_chain_the_previous_response() {
        let config = LiveConfig::new(Provider::Xai, None);
        let ask = Ask {
            checkpoint_id: Some("resp_1".into()),
            ..Ask::new("Why?")
        };
        let (path, body) = request(&config, &ask);
        assert_eq!(path, "/v1/responses");
        assert_eq!(
            body,
            json!({"model": "grok-4", "input": [{"role": "user", "content": "Why?"}], "stream": true,
                   "tools": [{"type": "web_search"}, {"type": "x_search"}],
                   "previous_response_id": "resp_1"})
        );
        assert_eq!(config.base_url, "https://api.x.ai");
    }

    #[test]
    fn zeta_requests_carry_the_tenant_the_conversation_and_the_session() {
        let config = LiveConfig {
            tenant: Some("acme labs".into()),
            ..LiveConfig::new(Provider::Zeta, None)
        };
        let ask = Ask {
            chat_id: Some("sess-1".into()),
            history: vec![("Q1".into(), "A1".into())],
            ..Ask::new("Q2")
        };
        let (path, body) = request(&config, &ask);
        assert_eq!(path, "/v0/service/chat/stream?tenant=acme%20labs");
        assert_eq!(
            body,
            json!({"agent_identifier": "chat_with_dynamic_retrieval",
                   "conversation": [{"sender": "user", "content": "Q1"}, {"sender": "bot", "content": "A1"},
                                    {"sender": "user", "content": "Q2"}],
                   "session_id": "sess-1"})
        );
    }
}
