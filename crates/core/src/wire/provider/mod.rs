//! Providers: each one's dialect (decoded SSE events → neutral [`AgentEvent`]s), its request types
//! (one type per wire message, shared by the client that sends it and the demo server that reads
//! it), and the table that holds everything else the app knows about it ([`spec`]).
//!
//! Seven providers: Bigdata.com ([`bigdata`]), xAI Responses ([`xai`]), Zeta Alpha chat
//! ([`zeta`]), OpenAI Responses with deep research ([`openai`], which speaks xAI's dialect),
//! Perplexity Sonar chat completions ([`perplexity`]), Google Gemini's Deep Research agent and
//! grounded models ([`gemini`]) and Anthropic Messages ([`anthropic`]). When the provider is not
//! known in advance, [`AutoDialect`] holds events back until one of them identifies the provider
//! ([`Provider::detect`]), then hands everything to that dialect.

pub mod anthropic;
pub mod asked;
pub mod bigdata;
pub mod error_body;
mod fields;
pub mod gemini;
pub mod openai;
pub mod perplexity;
mod pipeline;
pub mod request;
pub mod responses;
pub mod spec;
pub mod xai;
pub mod zeta;

use std::fmt;

use serde_json::Value;

use crate::model::event::AgentEvent;
use crate::wire::sse::SseEvent;
pub use pipeline::{
    AutoDialect, DETECT_LIMIT, EventPipeline, EventSink, SkimmedAnswer, TracedEvent,
};
pub use request::{Ask, ProviderOptions, WireRequest};
use spec::{SPECS, Shape};

/// Turns one SSE event of a provider's stream into neutral events.
pub trait Dialect: Send {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>);

    /// The input ended: `clean` when it ended normally (end of file, the server closed the stream),
    /// not when the connection failed. Dialects that hold something back emit it here.
    fn finish(&mut self, clean: bool, out: &mut Vec<AgentEvent>) {
        let _ = (clean, out);
    }

    /// The provider this dialect speaks (`None` while an [`AutoDialect`] has not decided yet).
    fn provider(&self) -> Option<Provider>;
    /// A cheaper reading of one payload (an event's whole `data`, dispatched at once, as the
    /// line's bytes: not checked to be UTF-8) for a pipeline that skims
    /// ([`EventPipeline::skimming`]): the one event the full decode would make of it, or `None` to
    /// decode it the full way (always for bytes that are not UTF-8). Never a different answer
    /// than [`Dialect::decode`] would give; most dialects have no skim.
    fn skim(&mut self, data: &[u8]) -> Option<AgentEvent> {
        self.skim_answer(data).map(SkimmedAnswer::into_event)
    }

    /// [`Dialect::skim`] for an answer chunk, its text and id borrowed from `data` where they
    /// hold no escape: a reader that only counts the answer ([`EventSink::answer`]) builds no
    /// string for it.
    fn skim_answer<'a>(&mut self, data: &'a [u8]) -> Option<SkimmedAnswer<'a>> {
        let _ = data;
        None
    }

    /// [`Dialect::skim_answer`] of the payload `rest` begins with, where the line's end is not
    /// looked for first: the answer and the payload's length, when the skim read it up to a line
    /// feed (the line's end) and read no line feed or carriage return on the way — so the line is
    /// exactly that payload, and skimming it gives the same answer. It spares the pipeline a search
    /// for the line's end over every answer chunk before the skim reads it again.
    fn skim_answer_line<'a>(&mut self, rest: &'a [u8]) -> Option<(SkimmedAnswer<'a>, usize)> {
        let _ = rest;
        None
    }

    /// Whether [`Dialect::skim`] ever reads a payload: a skimming pipeline reads line by line only
    /// for a dialect that does (for the others that would cost a feed per line and gain nothing).
    fn can_skim(&self) -> bool {
        false
    }
}

/// Which wire format a stream speaks; the key of the provider table ([`Provider::spec`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Provider {
    /// Bigdata.com Research Agent and Workflows.
    #[default]
    Bigdata,
    /// xAI Responses API (`/v1/responses`) with web and X search.
    Xai,
    /// Zeta Alpha chat stream (`/v0/service/chat/stream`).
    Zeta,
    /// OpenAI Responses API (`/v1/responses`) with web search, deep research in the background.
    #[cfg_attr(feature = "clap", value(name = "openai"))]
    OpenAI,
    /// Perplexity Sonar chat completions (`/chat/completions`).
    Perplexity,
    /// Google Gemini: the Deep Research agent (Interactions API), or a model with Google Search.
    Gemini,
    /// Anthropic Messages API (`/v1/messages`) with web search and web fetch.
    Anthropic,
}

impl Provider {
    pub const ALL: [Provider; 7] = [
        Provider::Bigdata,
        Provider::Xai,
        Provider::Zeta,
        Provider::OpenAI,
        Provider::Perplexity,
        Provider::Gemini,
        Provider::Anthropic,
    ];

    pub fn dialect(self) -> Box<dyn Dialect> {
        (self.spec().dialect)()
    }

    /// The flag spelling: `bigdata`, `xai`, `zeta`, `openai`, `perplexity`, `anthropic`.
    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    /// For people: `Bigdata.com`, `xAI`, `Zeta Alpha`, `OpenAI`, `Perplexity`, `Anthropic`.
    pub fn label(self) -> &'static str {
        self.spec().label
    }

    /// The provider one SSE event identifies, if it does: first by its event name (xAI's and
    /// OpenAI's `response.*`, told apart by the model the response names; Zeta Alpha's
    /// `new_message`, …), then by the shape of its JSON object, a provider's own shape before one
    /// another's payload could also have (Bigdata.com's `message` or `delta` object). See each
    /// provider's `names_event` and `payload_shape`, and [`openai::detect`].
    pub fn detect(event: &SseEvent) -> Option<Provider> {
        if let Some(spec) = SPECS.iter().find(|spec| (spec.detect.event)(event)) {
            return Some(spec.provider);
        }
        let data = event.data.trim();
        if !data.starts_with('{') {
            return None;
        }
        let Value::Object(object) = serde_json::from_str(data).ok()? else {
            return None;
        };
        let shapes: Vec<(Provider, Shape)> = SPECS
            .iter()
            .map(|spec| (spec.provider, (spec.detect.payload)(&object)))
            .collect();
        [Shape::Own, Shape::Loose].into_iter().find_map(|wanted| {
            shapes
                .iter()
                .find(|(_, shape)| *shape == wanted)
                .map(|(provider, _)| *provider)
        })
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a source's `url` opens in a browser: absolute URLs as they are; nothing for a `custom://`
/// document (it lives in the caller's own data); a relative URL against `api_base` (else the
/// production base) when `provider` writes relative links ([`spec::ProviderSpec::relative_links`]),
/// and when the provider is unknown (a replay nothing identified) as the provider that does.
pub fn open_url(provider: Option<Provider>, url: &str, api_base: Option<&str>) -> Option<String> {
    let url = url.trim();
    if url.is_empty() || url.starts_with("custom://") {
        return None;
    }
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return Some(url.to_owned());
    }
    if !url.starts_with('/') {
        return None;
    }
    let spec = match provider {
        Some(provider) => provider.spec(),
        None => SPECS.iter().find(|spec| spec.relative_links)?,
    };
    if !spec.relative_links {
        return None;
    }
    let base = api_base.unwrap_or(spec.base_url).trim_end_matches('/');
    Some(format!("{base}{url}"))
}

/// Does this JSON payload, of any provider, carry answer text? (Where the demo server's cut and
/// stall faults strike.)
pub fn carries_answer(payload: &Value) -> bool {
    payload
        .as_object()
        .is_some_and(|object| SPECS.iter().any(|spec| (spec.carries_answer)(object)))
}

/// Shared by the dialects' unit tests: decode events into a session and list what it cites.
#[cfg(test)]
pub(crate) mod testing {
    use super::Dialect;
    use crate::model::citations::Attribution;
    use crate::model::session::Session;
    use crate::wire::sse::SseEvent;

    /// Decode `events` with `dialect`, end the stream (`clean`: not cut), apply all to a session.
    pub fn run(dialect: &mut dyn Dialect, events: Vec<SseEvent>, clean: bool) -> Session {
        let mut out = Vec::new();
        for event in events {
            dialect.decode(event, &mut out);
        }
        dialect.finish(clean, &mut out);
        let mut session = Session::new();
        session.apply_all(out);
        session
    }

    /// Each valid citation's text and source number, in arrival order.
    pub fn cited(session: &Session) -> Vec<(String, Option<usize>)> {
        Attribution::resolve(session, true)
            .citations
            .iter()
            .map(|c| (c.text(session.answer.as_str()).to_owned(), c.source))
            .collect()
    }
}

/// `reuters.com` for `https://www.reuters.com/x`: a web source's publisher, as every provider's
/// sources name it.
pub(crate) fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = host.split(':').next()?.trim_start_matches("www.");
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// The string at `key`, when it is one and not empty (ids, names: an empty one says nothing).
/// The conversation id a stream names first (a Perplexity completion's, a Gemini response's):
/// kept in `seen` and sent on once as the chat id; a later one changes nothing.
pub(crate) fn first_chat_id(
    seen: &mut Option<String>,
    object: &serde_json::Map<String, Value>,
    key: &str,
    out: &mut Vec<AgentEvent>,
) {
    if seen.is_some() {
        return;
    }
    if let Some(id) = string(object, key) {
        *seen = Some(id.clone());
        out.push(AgentEvent::Conversation(
            crate::model::event::ConversationIds {
                chat_id: Some(id),
                ..Default::default()
            },
        ));
    }
}

pub(crate) fn string(object: &serde_json::Map<String, Value>, key: &str) -> Option<String> {
    object
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// A tool call's arguments as the neutral event carries them: an agent that sends them as a JSON
/// string (`"{\"query\": \"…\"}"`, as OpenAI-style function calls do) has them read into
/// the object they spell; a string that is not one is kept as it came.
pub(crate) fn tool_arguments(arguments: Value) -> Value {
    match &arguments {
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(parsed @ Value::Object(_)) => parsed,
            _ => arguments,
        },
        _ => arguments,
    }
}

/// A payload's JSON object. Empty data and `[DONE]` are nothing (`None`, silently); anything that
/// is not a JSON object is reported as [`AgentEvent::Malformed`] (`None`). Shared by the dialects
/// whose every payload is one JSON object.
pub(crate) fn json_object(
    data: &str,
    out: &mut Vec<AgentEvent>,
) -> Option<serde_json::Map<String, Value>> {
    if data.is_empty() || data == "[DONE]" {
        return None;
    }
    let reason = match serde_json::from_str::<Value>(data) {
        Ok(Value::Object(object)) => return Some(object),
        Ok(_) => "payload is not a JSON object".to_owned(),
        Err(e) => format!("not valid JSON: {e}"),
    };
    out.push(AgentEvent::Malformed { reason });
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_urls_open_whatever_the_case_of_their_scheme() {
        assert_eq!(
            open_url(Some(Provider::Bigdata), "HTTPS://Example.com/a", None).as_deref(),
            Some("HTTPS://Example.com/a")
        );
        assert_eq!(open_url(Some(Provider::Zeta), "custom://doc-1", None), None);
    }

    #[test]
    fn tool_arguments_sent_as_a_json_string_are_read_by_the_dialect() {
        let mut pipeline = EventPipeline::new(Provider::Bigdata);
        let mut out = Vec::new();
        let action = r#"data: {"message":{"type":"ACTION","tool_name":"web_search","tool_arguments":"{\"query\": \"NVIDIA\"}"}}"#;
        pipeline
            .feed(format!("{action}\n\n").as_bytes(), &mut out)
            .unwrap();
        let arguments = out.iter().find_map(|e| match e {
            AgentEvent::ToolCall { arguments, .. } => Some(arguments.clone()),
            _ => None,
        });
        assert_eq!(arguments, Some(serde_json::json!({"query": "NVIDIA"})));
        // A string that spells no object stays as it came.
        assert_eq!(tool_arguments(Value::from("NVDA")), Value::from("NVDA"));
    }

    fn event(name: &str, data: &str) -> SseEvent {
        SseEvent {
            event: name.into(),
            data: data.into(),
            id: String::new(),
        }
    }

    #[test]
    fn each_provider_is_recognised_by_its_event_names_or_json_shape() {
        let cases = [
            (event("response.created", "{}"), Some(Provider::Xai)),
            (
                event("", r#"{"type":"response.output_text.delta"}"#),
                Some(Provider::Xai),
            ),
            (event("new_message", "{}"), Some(Provider::Zeta)),
            (event("stream_status", "started"), Some(Provider::Zeta)),
            (
                event("", r#"{"sender":"bot","content":"x"}"#),
                Some(Provider::Zeta),
            ),
            (event("", r#"{"evidences":[]}"#), Some(Provider::Zeta)),
            (
                event("", r#"{"chat_id":"c","message":{"type":"ANSWER"}}"#),
                Some(Provider::Bigdata),
            ),
            (
                event("", r#"{"delta":{"type":"THINKING"}}"#),
                Some(Provider::Bigdata),
            ),
            (event("", r#"{"message":"just text"}"#), None),
            (event("error", "quota exceeded"), Some(Provider::Zeta)),
            (
                event(
                    "error",
                    r#"{"type":"error","sequence_number":0,"message":"bad key"}"#,
                ),
                Some(Provider::Xai),
            ),
            (event("error", r#"{"detail":"x"}"#), None),
            (event("", "[DONE]"), None),
            // A provider's own shape wins over Bigdata.com's looser one.
            (
                event("", r#"{"message":{"type":"ANSWER"},"sender":"bot"}"#),
                Some(Provider::Zeta),
            ),
        ];
        for (event, expected) in cases {
            assert_eq!(Provider::detect(&event), expected, "{event:?}");
        }
    }

    #[test]
    fn relative_zeta_urls_open_against_the_api_host_and_custom_documents_do_not_open() {
        let zeta = Some(Provider::Zeta);
        assert_eq!(
            open_url(zeta, "/documents/chunk/list?id=1", None).as_deref(),
            Some("https://api.zeta-alpha.com/documents/chunk/list?id=1")
        );
        assert_eq!(
            open_url(zeta, "/d", Some("http://127.0.0.1:9/")).as_deref(),
            Some("http://127.0.0.1:9/d")
        );
        assert_eq!(open_url(zeta, "custom://doc-7", None), None);
        let xai = Some(Provider::Xai);
        assert_eq!(
            open_url(xai, "https://x.ai/news", None).as_deref(),
            Some("https://x.ai/news")
        );
        assert_eq!(open_url(xai, "/relative", None), None);
        // Unknown: as the provider that writes relative links.
        assert_eq!(
            open_url(None, "/d", None).as_deref(),
            Some("https://api.zeta-alpha.com/d")
        );
    }

    #[test]
    fn answer_payloads_of_every_provider_are_recognised() {
        use serde_json::json;
        for (payload, answer) in [
            (json!({"message": {"type": "ANSWER", "content": "x"}}), true),
            (json!({"delta": {"type": "ANSWER"}}), true),
            (json!({"message": {"type": "THINKING"}}), false),
            (
                json!({"type": "response.output_text.delta", "delta": "x"}),
                true,
            ),
            (json!({"type": "response.created"}), false),
            (json!({"sender": "bot", "content": "x"}), true),
            (json!({"sender": "bot", "content": ""}), false),
            (json!("text"), false),
        ] {
            assert_eq!(carries_answer(&payload), answer, "{payload}");
        }
    }
}
