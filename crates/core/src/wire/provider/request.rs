//! What every provider's request is built from — the question, what ties it to earlier turns, the
//! options a user sets once per conversation — and what a provider's builder makes of it: a
//! [`WireRequest`], the endpoint, the path with its query and the JSON body.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// A question and what ties it to earlier turns of the same conversation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ask {
    pub question: String,
    /// The conversation: Bigdata.com `chat_id`, Zeta Alpha `session_id`, xAI the last response id.
    pub chat_id: Option<String>,
    /// Bigdata.com `from_checkpoint_id`; xAI `previous_response_id` (the last turn's checkpoint).
    pub checkpoint_id: Option<String>,
    /// Earlier turns as `(question, answer)`, oldest first, for providers that take the whole
    /// conversation in every request ([`FollowUp::sends_history`](super::spec::FollowUp::sends_history)).
    pub history: Vec<(String, String)>,
    /// For each turn of [`Ask::history`], what the assistant said in its provider's own terms
    /// ([`Session::transcript`](crate::model::session::Session::transcript)), for providers that
    /// must get it back (Anthropic: server tool calls and results, citations); empty where unknown
    /// (the answer text then stands in).
    pub transcripts: Vec<Vec<Value>>,
    /// This turn so far, when the provider paused it (Anthropic's `pause_turn`): the request
    /// continues the turn instead of asking anew.
    pub paused: Vec<Value>,
}

impl Ask {
    pub fn new(question: impl Into<String>) -> Self {
        Self {
            question: question.into(),
            ..Self::default()
        }
    }
}

/// Provider-specific request options a user sets once per conversation (kept in its saved session).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Bigdata.com: ask for charts (python code execution with chart generation).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub charts: bool,
    /// Anthropic: extended thinking with this budget of tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<u32>,
}

/// One streaming endpoint of a provider's API (always `POST`, answered with SSE).
#[derive(Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// The name a saved session records (`research-agent`, `workflow`, `responses`, `chat`).
    pub name: &'static str,
    /// The path under the API base.
    pub path: &'static str,
    /// What a 404 from it means, for people.
    pub not_found: &'static str,
}

impl Endpoint {
    /// Whether a request's path (without its query) is for this endpoint: the same path, or, where
    /// this one holds a `*` (the model a Gemini path names), the same around it.
    pub fn matches(&self, path: &str) -> bool {
        self.path == path || self.model_in_path(path).is_some()
    }

    /// What a request's path holds where this endpoint's has `*`: the model it names
    /// (`/v1beta/models/gemini-2.5-flash:streamGenerateContent` → `gemini-2.5-flash`), decoded.
    pub fn model_in_path(&self, path: &str) -> Option<String> {
        let (head, tail) = self.path.split_once('*')?;
        let model = path.strip_prefix(head)?.strip_suffix(tail)?;
        let model = percent_encoding::percent_decode_str(model)
            .decode_utf8()
            .ok()?;
        (!model.is_empty() && !model.contains('/')).then(|| model.into_owned())
    }
}

/// What a 404 means where the API says nothing more specific.
pub const NOT_FOUND: &str = "not found (unknown endpoint, conversation or response)";

/// A request ready to send: `POST {base}{path}` with the JSON `body`.
#[derive(Debug, Clone, PartialEq)]
pub struct WireRequest {
    pub endpoint: &'static Endpoint,
    /// The endpoint's path with its query, if any.
    pub path: String,
    pub body: Value,
    /// Headers the provider needs besides the key (Anthropic's `anthropic-version`).
    pub headers: Vec<(&'static str, String)>,
}

impl WireRequest {
    /// `body`, one of the providers' request types, for `endpoint`.
    pub fn new(endpoint: &'static Endpoint, body: &impl Serialize) -> Self {
        Self {
            endpoint,
            path: endpoint.path.to_owned(),
            // The request types are plain structs of strings, maps and JSON values: this cannot fail.
            body: serde_json::to_value(body).unwrap_or(Value::Null),
            headers: Vec::new(),
        }
    }

    /// Send `name: value` with the request.
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// Add `key=value` to the query, the value percent-encoded.
    pub fn with_query(mut self, key: &str, value: &str) -> Self {
        let separator = if self.path.contains('?') { '&' } else { '?' };
        self.path.push(separator);
        self.path.push_str(key);
        self.path.push('=');
        self.path.extend(utf8_percent_encode(value, QUERY_VALUE));
        self
    }

    /// The body as sent.
    pub fn body_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(&self.body).unwrap_or_default()
    }
}

/// Everything but RFC 3986's unreserved characters is escaped (a space is `%20`, never `+`).
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// For request fields a server reads leniently: `null` is the default.
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Option::unwrap_or_default)
}

#[cfg(test)]
mod tests {
    use super::*;

    static PLAIN: Endpoint = Endpoint {
        name: "plain",
        path: "/v1/plain",
        not_found: NOT_FOUND,
    };

    #[test]
    fn a_path_with_a_model_in_it_matches_its_endpoint_and_names_the_model() {
        static MODELS: Endpoint = Endpoint {
            name: "models",
            path: "/v1/models/*:stream",
            not_found: NOT_FOUND,
        };
        assert!(MODELS.matches("/v1/models/gemini-2.5-flash:stream"));
        assert_eq!(
            MODELS.model_in_path("/v1/models/a%20b:stream").as_deref(),
            Some("a b")
        );
        assert!(!MODELS.matches("/v1/models/:stream"));
        assert!(!MODELS.matches("/v1/models/a/b:stream"));
        assert!(PLAIN.matches("/v1/plain") && !PLAIN.matches("/v1/plain/x"));
        assert_eq!(PLAIN.model_in_path("/v1/plain"), None);
    }

    #[test]
    fn query_values_escape_all_but_the_unreserved_characters() {
        let request = WireRequest::new(&PLAIN, &serde_json::json!({}))
            .with_query("tenant", "acme labs/ä&x=1-_.~")
            .with_query("b", "2");
        assert_eq!(
            request.path,
            "/v1/plain?tenant=acme%20labs%2F%C3%A4%26x%3D1-_.~&b=2"
        );
        assert_eq!(request.body_bytes(), b"{}");
    }
}
