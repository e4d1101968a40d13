//! Bytes → neutral events: our own SSE decoder, recordings with pacing comments, every provider's
//! dialect (and its request bodies), and reading a whole stream into a session.

pub mod arrivals;
pub mod input;
pub mod provider;
pub mod raw_events;
pub mod recording;
pub mod redact;
pub mod sse;
