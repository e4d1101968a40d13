//! The provider table: one static row per provider holding what the rest of the app knows about
//! it — its names, where it lives and how it takes its key, its endpoints and request builder, how
//! its conversations continue, how its streams are recognised and decoded, and what its demo asks.
//! [`Provider`] is the key and [`Provider::spec`] its row, so nothing outside `wire::provider`
//! needs to `match` on a provider. Adding one is a folder next to `bigdata/`, `xai/`, `zeta/`,
//! `openai/` and `perplexity/` (dialect, request types) plus a variant and a row here.

use serde_json::{Map, Value};

use super::asked::{self, Asked};
use super::request::{Ask, Endpoint, ProviderOptions, WireRequest};
use super::{
    Dialect, Provider, anthropic, bigdata, gemini, openai, perplexity, responses, xai, zeta,
};
use crate::wire::sse::SseEvent;

/// Everything about one provider. See [`SPECS`].
pub struct ProviderSpec {
    pub provider: Provider,
    /// The flag spelling (`--provider xai`), also what saved sessions record.
    pub name: &'static str,
    /// For people: `Bigdata.com`, `xAI`, `Zeta Alpha`.
    pub label: &'static str,
    /// Its `gen_ai.provider.name` in OpenTelemetry traces: the GenAI conventions' well-known value
    /// where there is one (`openai`, `anthropic`, `gcp.gemini`, `perplexity`, `x_ai`), else our
    /// own lower-case name.
    pub otel_name: &'static str,
    /// The production API base.
    pub base_url: &'static str,
    /// The environment variable that holds the API key.
    pub api_key_env: &'static str,
    /// The key and base URL may also come from the app's own config file (else only from
    /// [`ProviderSpec::api_key_env`] and the production base).
    pub shared_config: bool,
    /// How the key travels.
    pub auth: AuthHeader,
    /// Its streaming endpoints; the first answers questions (see [`ProviderSpec::endpoint`]).
    pub endpoints: &'static [&'static Endpoint],
    /// A question (and what ties it to earlier turns) and the conversation's options → the request.
    pub build_request: fn(&Ask, &ProviderOptions) -> WireRequest,
    /// The inverse: what a request to one of its endpoints asked (its query, its body), for the
    /// recording proxy; `None` when the body is not such a request.
    pub read_request: fn(&str, &[u8]) -> Option<Asked>,
    /// What continues a conversation.
    pub follow_up: FollowUp,
    pub demo: Demo,
    /// How a stream of this provider is recognised ([`Provider::detect`]).
    pub detect: Detect,
    /// A JSON payload of this provider that carries answer text.
    pub carries_answer: fn(&Map<String, Value>) -> bool,
    /// A fresh dialect for one stream.
    pub dialect: fn() -> Box<dyn Dialect>,
    /// Its sources may have URLs relative to the API base (they open against it).
    pub relative_links: bool,
    /// Runs that outlive their connection: resumed after a drop, cancelled on the server.
    pub runs: Option<Runs>,
}

/// The rows, in [`Provider`] order (`SPECS[p as usize]` is `p`'s row).
pub static SPECS: [ProviderSpec; 7] = [
    ProviderSpec {
        provider: Provider::Bigdata,
        name: "bigdata",
        label: "Bigdata.com",
        otel_name: "bigdata",
        base_url: bigdata::DEFAULT_BASE_URL,
        api_key_env: "BIGDATA_API_KEY",
        shared_config: true,
        auth: AuthHeader::XApiKey,
        endpoints: &[&bigdata::request::RESEARCH, &bigdata::request::WORKFLOW],
        build_request: bigdata::request::build,
        read_request: asked::bigdata,
        follow_up: FollowUp::ChatOrCheckpoint,
        demo: Demo {
            question: "Break down NVIDIA's latest quarter: data-center growth, margins, and guidance",
            tenant: None,
        },
        detect: Detect {
            event: |_| false,
            payload: bigdata::payload_shape,
        },
        carries_answer: bigdata::carries_answer,
        dialect: || Box::new(bigdata::BigdataDialect::default()),
        relative_links: false,
        runs: None,
    },
    ProviderSpec {
        provider: Provider::Xai,
        name: "xai",
        label: "xAI",
        otel_name: "x_ai",
        base_url: xai::DEFAULT_BASE_URL,
        api_key_env: "XAI_API_KEY",
        shared_config: false,
        auth: AuthHeader::Bearer,
        endpoints: &[&responses::RESPONSES],
        build_request: xai::request::build,
        read_request: asked::responses,
        follow_up: FollowUp::PreviousResponse,
        demo: Demo {
            question: "Which solid-state battery makers are closest to mass production, and what are people on X saying about it?",
            tenant: None,
        },
        // `response.*` is also OpenAI's: the model a response names tells them apart.
        detect: Detect {
            event: openai::detect::xai_names_event,
            payload: openai::detect::xai_payload_shape,
        },
        carries_answer: xai::carries_answer,
        dialect: || Box::new(xai::XaiDialect::default()),
        relative_links: false,
        runs: None,
    },
    ProviderSpec {
        provider: Provider::Zeta,
        name: "zeta",
        label: "Zeta Alpha",
        otel_name: "zeta_alpha",
        base_url: zeta::DEFAULT_BASE_URL,
        api_key_env: "ZETA_ALPHA_API_KEY",
        shared_config: false,
        auth: AuthHeader::XAuth,
        endpoints: &[&zeta::request::CHAT_STREAM],
        build_request: zeta::request::build,
        read_request: asked::zeta,
        follow_up: FollowUp::SessionWithHistory,
        demo: Demo {
            question: "What do recent papers say about retrieval-augmented generation for long documents?",
            // The demo recordings' document URLs name this tenant.
            tenant: Some("demo"),
        },
        detect: Detect {
            event: zeta::names_event,
            payload: zeta::payload_shape,
        },
        carries_answer: zeta::carries_answer,
        dialect: || Box::new(zeta::ZetaDialect::default()),
        relative_links: true,
        runs: None,
    },
    ProviderSpec {
        provider: Provider::OpenAI,
        name: "openai",
        label: "OpenAI",
        otel_name: "openai",
        base_url: openai::DEFAULT_BASE_URL,
        api_key_env: "OPENAI_API_KEY",
        shared_config: false,
        auth: AuthHeader::Bearer,
        endpoints: &[&responses::RESPONSES],
        build_request: openai::request::build,
        read_request: asked::responses,
        follow_up: FollowUp::PreviousResponse,
        demo: Demo {
            question: "How close is grid-scale sodium-ion storage to displacing lithium iron phosphate?",
            tenant: None,
        },
        detect: Detect {
            event: openai::detect::openai_names_event,
            payload: openai::detect::openai_payload_shape,
        },
        carries_answer: xai::carries_answer,
        dialect: || Box::new(openai::OpenAiDialect::default()),
        relative_links: false,
        runs: Some(Runs {
            detached: openai::request::runs_in_background,
            marks: openai::run_marks,
            resume_path: openai::request::resume_path,
            cancel_path: openai::request::cancel_path,
        }),
    },
    ProviderSpec {
        provider: Provider::Perplexity,
        name: "perplexity",
        label: "Perplexity",
        otel_name: "perplexity",
        base_url: perplexity::DEFAULT_BASE_URL,
        api_key_env: "PERPLEXITY_API_KEY",
        shared_config: false,
        auth: AuthHeader::Bearer,
        endpoints: &[&perplexity::request::CHAT_COMPLETIONS],
        build_request: perplexity::request::build,
        read_request: asked::perplexity,
        follow_up: FollowUp::History,
        demo: Demo {
            question: "What changed in the EU AI Act's obligations for general-purpose AI models in 2025?",
            tenant: None,
        },
        detect: Detect {
            event: |_| false,
            payload: perplexity::payload_shape,
        },
        carries_answer: perplexity::carries_answer,
        dialect: || Box::new(perplexity::PerplexityDialect::default()),
        relative_links: false,
        runs: None,
    },
    ProviderSpec {
        provider: Provider::Gemini,
        name: "gemini",
        label: "Google Gemini",
        otel_name: "gcp.gemini",
        base_url: gemini::DEFAULT_BASE_URL,
        api_key_env: "GEMINI_API_KEY",
        shared_config: false,
        auth: AuthHeader::XGoogApiKey,
        endpoints: &[&gemini::request::INTERACTIONS, &gemini::request::GENERATE],
        build_request: gemini::request::build,
        read_request: asked::gemini,
        // Deep research continues with `previous_interaction_id` (the checkpoint); a plain model
        // is sent the conversation so far.
        follow_up: FollowUp::History,
        demo: Demo {
            question: "How far has perovskite–silicon tandem solar come toward mass production?",
            tenant: None,
        },
        detect: Detect {
            event: gemini::names_event,
            payload: gemini::payload_shape,
        },
        carries_answer: gemini::carries_answer,
        dialect: || Box::new(gemini::GeminiDialect::default()),
        relative_links: false,
        runs: Some(Runs {
            detached: gemini::request::runs_in_background,
            marks: gemini::run_marks,
            resume_path: gemini::request::resume_path,
            cancel_path: gemini::request::cancel_path,
        }),
    },
    ProviderSpec {
        provider: Provider::Anthropic,
        name: "anthropic",
        label: "Anthropic",
        otel_name: "anthropic",
        base_url: anthropic::DEFAULT_BASE_URL,
        api_key_env: "ANTHROPIC_API_KEY",
        shared_config: false,
        auth: AuthHeader::XApiKey,
        endpoints: &[&anthropic::request::MESSAGES],
        build_request: anthropic::request::build,
        read_request: asked::anthropic,
        follow_up: FollowUp::History,
        demo: Demo {
            question: "Which cities have rolled out congestion pricing since London, and what happened to traffic?",
            tenant: None,
        },
        detect: Detect {
            event: anthropic::names_event,
            payload: anthropic::payload_shape,
        },
        carries_answer: anthropic::carries_answer,
        dialect: || Box::new(anthropic::AnthropicDialect::default()),
        relative_links: false,
        runs: None,
    },
];

impl Provider {
    /// This provider's row of the table.
    pub fn spec(self) -> &'static ProviderSpec {
        &SPECS[self as usize]
    }
}

impl ProviderSpec {
    /// The endpoint questions go to; saved sessions record its name.
    pub fn endpoint(&self) -> &'static Endpoint {
        self.endpoints[0]
    }

    /// The request for `ask` with the conversation's `options`.
    pub fn request(&self, ask: &Ask, options: &ProviderOptions) -> WireRequest {
        (self.build_request)(ask, options)
    }
}

/// How the API key is sent. The client marks it sensitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AuthHeader {
    /// `X-API-KEY: key` (Bigdata.com; Anthropic's `x-api-key`, header names being case-blind).
    #[default]
    XApiKey,
    /// `Authorization: Bearer key` (xAI, OpenAI, Perplexity).
    Bearer,
    /// `X-Auth: key` (Zeta Alpha).
    XAuth,
    /// `x-goog-api-key: key` (Google Gemini).
    XGoogApiKey,
}

impl AuthHeader {
    pub fn name(self) -> &'static str {
        match self {
            AuthHeader::XApiKey => "X-API-KEY",
            AuthHeader::Bearer => "Authorization",
            AuthHeader::XAuth => "X-Auth",
            AuthHeader::XGoogApiKey => "x-goog-api-key",
        }
    }

    pub fn value(self, key: &str) -> String {
        match self {
            AuthHeader::Bearer => format!("Bearer {key}"),
            AuthHeader::XApiKey | AuthHeader::XAuth | AuthHeader::XGoogApiKey => key.to_owned(),
        }
    }
}

/// Which ids continue a conversation ([`Ask::chat_id`], [`Ask::checkpoint_id`], [`Ask::history`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowUp {
    /// `chat_id` continues it; a checkpoint (`from_checkpoint_id`) resumes or branches it.
    ChatOrCheckpoint,
    /// The last response id (the checkpoint, else the conversation id) is the
    /// `previous_response_id`: the server keeps the conversation.
    PreviousResponse,
    /// The `session_id` names it, and every request carries the whole conversation so far.
    SessionWithHistory,
    /// Nothing on the server: every request carries the whole conversation so far.
    History,
}

impl FollowUp {
    /// Whether requests carry the earlier turns ([`Ask::history`]).
    pub fn sends_history(self) -> bool {
        matches!(self, FollowUp::SessionWithHistory | FollowUp::History)
    }
}

/// A provider whose runs live on the server, independent of the connection that started them
/// (OpenAI's background responses): a dropped stream is picked up where it broke, and a run the
/// user stops is cancelled there too.
pub struct Runs {
    /// The request body asks for such a run (`background: true`).
    pub detached: fn(&Value) -> bool,
    /// What one SSE payload says about the run: its id, its place in the run's stream.
    pub marks: fn(&str) -> RunMarks,
    /// `GET` path that streams the run again after the event at `after` (run id, what the last
    /// event's [`RunCursor`] said, as text).
    pub resume_path: fn(&str, &str) -> String,
    /// `POST` path that cancels the run.
    pub cancel_path: fn(&str) -> String,
}

/// What one payload of a run's stream says about the run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunMarks {
    /// The run's id (`response.id` of `response.created`, …).
    pub run_id: Option<String>,
    /// The event's place in the run's stream.
    pub cursor: Option<RunCursor>,
}

/// Where an event stands in its run's stream, as the resume request names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunCursor {
    /// OpenAI's `sequence_number`: numbers only grow, so a lower one is an event sent again.
    Sequence(u64),
    /// Gemini's `event_id`: an opaque token; the last one seen is where the stream stands.
    EventId(String),
}

impl RunCursor {
    /// `self` or `next`, whichever is further on.
    pub fn furthest(self, next: RunCursor) -> RunCursor {
        match (&self, &next) {
            (RunCursor::Sequence(a), RunCursor::Sequence(b)) if a > b => self,
            _ => next,
        }
    }

    /// As the resume request's query names it.
    pub fn as_text(&self) -> String {
        match self {
            RunCursor::Sequence(n) => n.to_string(),
            RunCursor::EventId(id) => id.clone(),
        }
    }
}

/// What the built-in demo does with this provider.
pub struct Demo {
    /// The question the demo asks first (the demo server answers it with its recording).
    pub question: &'static str,
    /// The tenant demo requests name.
    pub tenant: Option<&'static str>,
}

/// How one SSE event gives its provider away ([`Provider::detect`]).
pub struct Detect {
    /// Its event name (and data) alone say so.
    pub event: fn(&SseEvent) -> bool,
    /// What its JSON object payload says.
    pub payload: fn(&Map<String, Value>) -> Shape,
}

/// How surely a JSON payload is one provider's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Not this provider's.
    Foreign,
    /// This provider's shape, which another's payload could also have: taken when no provider
    /// claims it as [`Shape::Own`].
    Loose,
    /// Only this provider sends it.
    Own,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_provider_keys_its_own_row_under_its_flag_name() {
        for provider in Provider::ALL {
            let spec = provider.spec();
            assert_eq!(spec.provider, provider);
            #[cfg(feature = "clap")]
            assert_eq!(
                <Provider as clap::ValueEnum>::from_str(spec.name, false),
                Ok(provider)
            );
            assert!(!spec.endpoints.is_empty());
            assert!(spec.base_url.starts_with("https://"));
        }
    }

    #[test]
    fn keys_travel_in_each_providers_header() {
        assert_eq!(AuthHeader::Bearer.value("k"), "Bearer k");
        assert_eq!(Provider::Zeta.spec().auth.name(), "X-Auth");
        assert_eq!(Provider::Bigdata.spec().auth.value("k"), "k");
    }
}
