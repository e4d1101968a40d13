//! Provider dialects: decoded SSE events → neutral [`AgentEvent`]s, and the byte-level pipeline
//! (`bytes → SSE decoder → dialect`) every input source (HTTP, file, stdin) goes through.
//!
//! Three dialects: Bigdata.com ([`bigdata`]), xAI Responses ([`xai`]) and Zeta Alpha chat ([`zeta`]).
//! When the provider is not known in advance, [`AutoDialect`] holds events back until one of them
//! identifies the provider ([`Provider::detect`]), then hands everything to that dialect.

pub mod bigdata;
pub mod xai;
pub mod zeta;

use std::fmt;

use crate::model::event::AgentEvent;
use crate::wire::sse::{Framing, SseDecoder, SseError, SseEvent, is_complete_json};

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
}

/// Which wire format a stream speaks.
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
}

impl Provider {
    pub const ALL: [Provider; 3] = [Provider::Bigdata, Provider::Xai, Provider::Zeta];

    pub fn dialect(self) -> Box<dyn Dialect> {
        match self {
            Provider::Bigdata => Box::new(bigdata::BigdataDialect::default()),
            Provider::Xai => Box::new(xai::XaiDialect::default()),
            Provider::Zeta => Box::new(zeta::ZetaDialect::default()),
        }
    }

    /// The flag spelling: `bigdata`, `xai`, `zeta`.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Bigdata => "bigdata",
            Provider::Xai => "xai",
            Provider::Zeta => "zeta",
        }
    }

    /// For people: `Bigdata.com`, `xAI`, `Zeta Alpha`.
    pub fn label(self) -> &'static str {
        match self {
            Provider::Bigdata => "Bigdata.com",
            Provider::Xai => "xAI",
            Provider::Zeta => "Zeta Alpha",
        }
    }

    /// The provider one SSE event identifies, if it does:
    /// - xAI: `event: response.*`, or a JSON `type` starting with `response.`, or a JSON object with
    ///   a `sequence_number` (an early `error`);
    /// - Zeta Alpha: `event: new_message` or `stream_status`, `event: error` with plain-text data, or
    ///   a JSON object with `sender`, `evidences` or `content_parts`;
    /// - Bigdata.com: a JSON object with a `message` or `delta` object.
    pub fn detect(event: &SseEvent) -> Option<Provider> {
        let data = event.data.trim();
        match event.event.as_str() {
            name if name.starts_with("response.") => return Some(Provider::Xai),
            "new_message" | "stream_status" => return Some(Provider::Zeta),
            "error" if !data.is_empty() && !data.starts_with('{') => {
                return Some(Provider::Zeta);
            }
            _ => {}
        }
        if !data.starts_with('{') {
            return None;
        }
        let serde_json::Value::Object(object) = serde_json::from_str(data).ok()? else {
            return None;
        };
        if object
            .get("type")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|t| t.starts_with("response."))
            || object.contains_key("sequence_number")
        {
            return Some(Provider::Xai);
        }
        if ["sender", "evidences", "content_parts"]
            .iter()
            .any(|key| object.contains_key(*key))
        {
            return Some(Provider::Zeta);
        }
        if ["message", "delta"]
            .iter()
            .any(|key| object.get(*key).is_some_and(serde_json::Value::is_object))
        {
            return Some(Provider::Bigdata);
        }
        None
    }

    /// Where a source's `url` opens in a browser: absolute URLs as they are, Zeta Alpha's relative
    /// `document_hit_url`s against `api_base` (default `https://api.zeta-alpha.com`), and nothing
    /// for a `custom://` document (it lives in the caller's own data).
    pub fn open_url(self, url: &str, api_base: Option<&str>) -> Option<String> {
        let url = url.trim();
        if url.is_empty() || url.starts_with("custom://") {
            return None;
        }
        let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            return Some(url.to_owned());
        }
        if self == Provider::Zeta && url.starts_with('/') {
            let base = api_base
                .unwrap_or(zeta::DEFAULT_BASE_URL)
                .trim_end_matches('/');
            return Some(format!("{base}{url}"));
        }
        None
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How many undecided events [`AutoDialect`] holds before it falls back to Bigdata.com.
pub const DETECT_LIMIT: usize = 64;

/// A dialect that finds out which provider a stream speaks from its first identifying event. Until
/// then events are held back (at most [`DETECT_LIMIT`]); a stream nothing identifies is read as
/// Bigdata.com, the original dialect.
#[derive(Default)]
pub struct AutoDialect {
    inner: Option<Box<dyn Dialect>>,
    held: Vec<SseEvent>,
}

impl AutoDialect {
    fn choose(&mut self, provider: Provider, out: &mut Vec<AgentEvent>) -> &mut Box<dyn Dialect> {
        let mut dialect = provider.dialect();
        for event in self.held.drain(..) {
            dialect.decode(event, out);
        }
        self.inner.insert(dialect)
    }
}

impl Dialect for AutoDialect {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>) {
        if let Some(inner) = &mut self.inner {
            inner.decode(event, out);
            return;
        }
        match Provider::detect(&event) {
            Some(provider) => {
                self.choose(provider, out).decode(event, out);
            }
            None if self.held.len() + 1 >= DETECT_LIMIT => {
                self.choose(Provider::Bigdata, out).decode(event, out);
            }
            None => self.held.push(event),
        }
    }

    fn finish(&mut self, clean: bool, out: &mut Vec<AgentEvent>) {
        if self.inner.is_none() && !self.held.is_empty() {
            self.choose(Provider::Bigdata, out);
        }
        if let Some(inner) = &mut self.inner {
            inner.finish(clean, out);
        }
    }

    fn provider(&self) -> Option<Provider> {
        self.inner.as_ref().and_then(|inner| inner.provider())
    }
}

/// Bytes in, neutral events out.
pub struct EventPipeline {
    sse: SseDecoder,
    dialect: Box<dyn Dialect>,
    scratch: Vec<SseEvent>,
}

impl EventPipeline {
    /// A pipeline for `provider`; `None` detects it from the first events ([`AutoDialect`]).
    pub fn new(provider: impl Into<Option<Provider>>) -> Self {
        let dialect = match provider.into() {
            Some(provider) => provider.dialect(),
            None => Box::new(AutoDialect::default()),
        };
        Self {
            sse: SseDecoder::new(Framing::JsonLines),
            dialect,
            scratch: Vec::new(),
        }
    }

    /// A pipeline that detects the provider from the first events.
    pub fn auto() -> Self {
        Self::new(None::<Provider>)
    }

    /// The provider, once known.
    pub fn provider(&self) -> Option<Provider> {
        self.dialect.provider()
    }

    /// Decode a chunk. An overlong line is also counted in the session as a malformed payload, so
    /// every consumer (render, ask, the TUI, replay) reports the same stats.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<AgentEvent>) -> Result<(), SseError> {
        let result = self.sse.feed(chunk, &mut self.scratch);
        for event in self.scratch.drain(..) {
            self.dialect.decode(event, out);
        }
        note_error(&result, out);
        result
    }

    /// End of stream: processes a last unterminated line, and an unterminated event whose data is a
    /// complete JSON document, then lets the dialect emit what it held back.
    pub fn finish(&mut self, out: &mut Vec<AgentEvent>) -> Result<(), SseError> {
        self.end(true, out)
    }

    /// The connection failed: like [`EventPipeline::finish`], but the dialect knows the stream was
    /// cut (a Zeta Alpha stream is then not complete).
    pub fn finish_cut(&mut self, out: &mut Vec<AgentEvent>) -> Result<(), SseError> {
        self.end(false, out)
    }

    fn end(&mut self, clean: bool, out: &mut Vec<AgentEvent>) -> Result<(), SseError> {
        let pending = self.sse.finish(&mut self.scratch);
        for event in self.scratch.drain(..) {
            self.dialect.decode(event, out);
        }
        if let Some(event) = pending.pending
            && is_complete_json(&event.data)
        {
            self.dialect.decode(event, out);
        }
        self.dialect.finish(clean, out);
        let result = pending.error.map_or(Ok(()), Err);
        note_error(&result, out);
        result
    }
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

fn note_error(result: &Result<(), SseError>, out: &mut Vec<AgentEvent>) {
    if let Err(e) = result {
        out.push(AgentEvent::Malformed {
            reason: e.to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_urls_open_whatever_the_case_of_their_scheme() {
        assert_eq!(
            Provider::Bigdata
                .open_url("HTTPS://Example.com/a", None)
                .as_deref(),
            Some("HTTPS://Example.com/a")
        );
        assert_eq!(Provider::Zeta.open_url("custom://doc-1", None), None);
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
        ];
        for (event, expected) in cases {
            assert_eq!(Provider::detect(&event), expected, "{event:?}");
        }
    }

    #[test]
    fn the_auto_pipeline_holds_events_until_the_provider_is_known() {
        let mut pipeline = EventPipeline::auto();
        let mut out = Vec::new();
        pipeline
            .feed(b": comment\n\ndata: [DONE]\n\n", &mut out)
            .unwrap();
        assert!(out.is_empty());
        assert_eq!(pipeline.provider(), None);
        pipeline
            .feed(
                b"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hi\"}\n\n",
                &mut out,
            )
            .unwrap();
        assert_eq!(pipeline.provider(), Some(Provider::Xai));
        assert!(
            out.iter()
                .any(|e| matches!(e, AgentEvent::AnswerDelta { text, .. } if text == "Hi"))
        );
    }

    #[test]
    fn an_unidentified_stream_falls_back_to_bigdata_at_the_end() {
        let mut pipeline = EventPipeline::auto();
        let mut out = Vec::new();
        pipeline.feed(b"data: {\"x\":1}\n\n", &mut out).unwrap();
        pipeline.finish(&mut out).unwrap();
        assert_eq!(pipeline.provider(), Some(Provider::Bigdata));
        assert!(matches!(out[..], [AgentEvent::Malformed { .. }]));
    }

    #[test]
    fn relative_zeta_urls_open_against_the_api_host_and_custom_documents_do_not_open() {
        let zeta = Provider::Zeta;
        assert_eq!(
            zeta.open_url("/documents/chunk/list?id=1", None).as_deref(),
            Some("https://api.zeta-alpha.com/documents/chunk/list?id=1")
        );
        assert_eq!(
            zeta.open_url("/d", Some("http://127.0.0.1:9/")).as_deref(),
            Some("http://127.0.0.1:9/d")
        );
        assert_eq!(zeta.open_url("custom://doc-7", None), None);
        assert_eq!(
            Provider::Xai.open_url("https://x.ai/news", None).as_deref(),
            Some("https://x.ai/news")
        );
        assert_eq!(Provider::Xai.open_url("/relative", None), None);
    }
}
