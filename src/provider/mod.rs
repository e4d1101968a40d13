//! Provider dialects: decoded SSE events → neutral [`AgentEvent`]s, and the byte-level pipeline
//! (`bytes → SSE decoder → dialect`) every input source (HTTP, file, stdin) goes through.

pub mod bigdata;
mod bigdata_wire;

use crate::event::AgentEvent;
use crate::sse::{Framing, SseDecoder, SseError, SseEvent, is_complete_json};

/// Turns one SSE event of a provider's stream into neutral events.
pub trait Dialect: Send {
    fn decode(&mut self, event: SseEvent, out: &mut Vec<AgentEvent>);
}

/// Which wire format a stream speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Provider {
    #[default]
    Bigdata,
}

impl Provider {
    pub fn dialect(self) -> Box<dyn Dialect> {
        match self {
            Provider::Bigdata => Box::new(bigdata::BigdataDialect::default()),
        }
    }
}

/// Bytes in, neutral events out.
pub struct EventPipeline {
    sse: SseDecoder,
    dialect: Box<dyn Dialect>,
    scratch: Vec<SseEvent>,
}

impl EventPipeline {
    pub fn new(provider: Provider) -> Self {
        Self {
            sse: SseDecoder::new(Framing::JsonLines),
            dialect: provider.dialect(),
            scratch: Vec::new(),
        }
    }

    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<AgentEvent>) -> Result<(), SseError> {
        let result = self.sse.feed(chunk, &mut self.scratch);
        for event in self.scratch.drain(..) {
            self.dialect.decode(event, out);
        }
        result
    }

    /// End of stream: processes a last unterminated line, and an unterminated event whose data is a
    /// complete JSON document.
    pub fn finish(&mut self, out: &mut Vec<AgentEvent>) -> Result<(), SseError> {
        let pending = self.sse.finish(&mut self.scratch);
        for event in self.scratch.drain(..) {
            self.dialect.decode(event, out);
        }
        if let Some(event) = pending?
            && is_complete_json(&event.data)
        {
            self.dialect.decode(event, out);
        }
        Ok(())
    }
}
