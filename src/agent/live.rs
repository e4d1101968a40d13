//! Starting a live (or demo) stream with any provider: the request its row of the provider table
//! builds ([`Provider::spec`]), sent through [`AgentClient`] (retries, timeouts, key redaction)
//! with the key in that provider's header, and read by its dialect.
//!
//! | provider | request | key header | continues with |
//! |---|---|---|---|
//! | Bigdata.com | `POST /v1/research-agent` | `X-API-KEY` | `chat_id`, `from_checkpoint_id` |
//! | xAI | `POST /v1/responses` (`stream`, web and X search) | `Authorization: Bearer` | `previous_response_id` = the last response id |
//! | Zeta Alpha | `POST /v0/service/chat/stream?tenant=T` | `X-Auth` | `session_id` (= `chat_id`) and the conversation so far |
//!
//! The built-in demo server answers all three paths, so [`LiveConfig::demo`] works for each.

use std::net::SocketAddr;

use std::sync::Arc;

use crate::agent::client::StreamHandle;
use crate::agent::client::{AgentClient, ApiKey, Continuation, RawSink, StreamOptions};
use crate::wire::provider::{Ask, ProviderOptions};
use crate::wire::provider::{Provider, WireRequest};

/// Where and how to reach one provider.
#[derive(Debug, Clone)]
pub struct LiveConfig {
    pub provider: Provider,
    /// The API base: production ([`default_base_url`]) or the demo server's `http://127.0.0.1:PORT`.
    pub base_url: String,
    pub api_key: Option<ApiKey>,
    /// xAI: the model (default [`crate::wire::provider::xai::DEFAULT_MODEL`]). Ignored by the others.
    pub model: Option<String>,
    /// Zeta Alpha: the tenant (the `tenant` query parameter).
    pub tenant: Option<String>,
    /// Zeta Alpha: the agent identifier (default [`crate::wire::provider::zeta::DEFAULT_AGENT`]).
    pub agent: Option<String>,
    /// Bigdata.com: ask for charts. Ignored by the others.
    pub charts: bool,
    /// Anthropic: extended thinking with this budget of tokens. Ignored by the others.
    pub thinking: Option<u32>,
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
            charts: false,
            thinking: None,
            options: StreamOptions::default(),
        }
    }

    /// The built-in demo server at `addr` (no key).
    pub fn demo(provider: Provider, addr: SocketAddr) -> Self {
        Self {
            base_url: format!("http://{addr}"),
            tenant: provider.spec().demo.tenant.map(str::to_owned),
            ..Self::new(provider, None)
        }
    }

    pub fn client(&self) -> AgentClient {
        AgentClient::new(&self.base_url, self.api_key.clone())
            .with_key_header(self.provider.spec().auth)
    }

    /// Apply options the user gave; unset ones keep this config's values (the demo's tenant, say).
    pub fn with_options(mut self, options: &ProviderOptions) -> Self {
        self.model = options.model.clone().or(self.model);
        self.tenant = options.tenant.clone().or(self.tenant);
        self.agent = options.agent.clone().or(self.agent);
        self.charts |= options.charts;
        self.thinking = options.thinking.or(self.thinking);
        self
    }

    pub fn provider_options(&self) -> ProviderOptions {
        ProviderOptions {
            model: self.model.clone(),
            tenant: self.tenant.clone(),
            agent: self.agent.clone(),
            charts: self.charts,
            thinking: self.thinking,
        }
    }
}

/// Start the stream for `ask`. Needs a tokio runtime.
pub fn start(config: &LiveConfig, ask: &Ask) -> StreamHandle {
    start_recorded(config, ask, None)
}

/// Like [`start`], also writing every body byte to `sink` as it arrives.
pub fn start_recorded(config: &LiveConfig, ask: &Ask, sink: Option<RawSink>) -> StreamHandle {
    // A paused turn (Anthropic's `pause_turn`) is continued with the same question and options
    // and what the turn said so far.
    let spec = config.provider.spec();
    let options = config.provider_options();
    let asked = ask.clone();
    let continuation: Continuation = Arc::new(move |paused| {
        let ask = Ask {
            paused: paused.to_vec(),
            ..asked.clone()
        };
        spec.request(&ask, &options)
    });
    config.client().stream_continued(
        request(config, ask),
        config.provider,
        config.options,
        sink,
        Some(continuation),
    )
}

/// The request for `ask`: endpoint, path with query, JSON body.
pub fn request(config: &LiveConfig, ask: &Ask) -> WireRequest {
    config
        .provider
        .spec()
        .request(ask, &config.provider_options())
}

/// The production API base of `provider`.
pub fn default_base_url(provider: Provider) -> &'static str {
    provider.spec().base_url
}

/// The environment variable that holds `provider`'s API key.
pub fn api_key_env(provider: Provider) -> &'static str {
    provider.spec().api_key_env
}

/// The question the demo asks first (the demo server answers it with its recording).
pub fn demo_question(provider: Provider) -> &'static str {
    provider.spec().demo.question
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_config_sends_its_options_and_reaches_production_by_default() {
        let config = LiveConfig::new(Provider::Xai, None);
        assert_eq!(config.base_url, "https://api.x.ai");
        let config = LiveConfig {
            tenant: Some("acme labs".into()),
            agent: Some("research_agent".into()),
            ..LiveConfig::new(Provider::Zeta, None)
        };
        let request = request(&config, &Ask::new("Q"));
        assert_eq!(request.path, "/v0/service/chat/stream?tenant=acme%20labs");
        assert_eq!(request.body["agent_identifier"], json!("research_agent"));
    }

    #[test]
    fn a_bigdata_question_goes_to_the_research_agent_at_standard_effort() {
        let config = LiveConfig::new(Provider::Bigdata, None);
        let ask = Ask {
            chat_id: Some("chat-1".into()),
            ..Ask::new("And AMD?")
        };
        let request = request(&config, &ask);
        assert_eq!(request.endpoint.name, "research-agent");
        assert_eq!(
            request.body,
            json!({"message": "And AMD?", "research_effort": "standard", "chat_id": "chat-1"})
        );
    }

    #[test]
    fn the_zeta_demo_names_its_tenant() {
        let addr: SocketAddr = "127.0.0.1:9".parse().unwrap();
        assert_eq!(
            LiveConfig::demo(Provider::Zeta, addr).tenant.as_deref(),
            Some("demo")
        );
        assert_eq!(LiveConfig::demo(Provider::Xai, addr).tenant, None);
    }
}
