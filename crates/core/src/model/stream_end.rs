//! How a stream ended ([`StreamEnd`]): what every input (HTTP, replay, a followed file) reports last,
//! what a saved turn records, and what the app and `ask` say about it. Plain data, no I/O.

#[derive(Debug, Clone, PartialEq)]
pub enum StreamEnd {
    /// The stream closed normally (after COMPLETE or ERROR, or a replay reached its end).
    Closed,
    /// The connection dropped before COMPLETE.
    Cut { reason: String },
    /// No data for the idle timeout.
    Stalled { idle_secs: u64 },
    /// The server answered with an error status before the stream began.
    Http { status: u16, message: String },
    /// Could not connect at all.
    Connect { message: String },
    /// The user cancelled it.
    Cancelled,
}

impl StreamEnd {
    /// One short human sentence for status bars and stderr.
    pub fn describe(&self) -> String {
        match self {
            StreamEnd::Closed => "stream closed".into(),
            StreamEnd::Cut { reason } => format!("connection cut before completion: {reason}"),
            StreamEnd::Stalled { idle_secs } => format!("stalled: no data for {idle_secs} s"),
            StreamEnd::Http { status, message } => format!("HTTP {status}: {message}"),
            StreamEnd::Connect { message } => format!("cannot connect: {message}"),
            StreamEnd::Cancelled => "cancelled".into(),
        }
    }
}
