//! What a background stream task tells the app: connection progress, batches of neutral events, and
//! how the stream ended. Every input (HTTP, replay, a followed file) speaks this over a channel held
//! by a [`crate::agent::client::StreamHandle`]; the TUI and `ask` consume it. Nothing here touches
//! the terminal or the network.

use crate::model::event::AgentEvent;
use crate::model::stream_end::StreamEnd;

#[derive(Debug, Clone, PartialEq)]
pub enum StreamUpdate {
    /// Trying to connect (attempt 1, 2, … when retrying before any event arrived).
    Connecting { attempt: u32 },
    /// Retrying after a failure before any event arrived.
    Retrying {
        attempt: u32,
        wait_ms: u64,
        reason: String,
    },
    /// The server answered 200 and the stream is open.
    Connected,
    /// Events decoded from the bytes that arrived together.
    Events(Vec<AgentEvent>),
    /// The events that follow arrived this many ms after the request, by the arrival times their
    /// writer kept (a followed file, [`crate::agent::tail`]); `None`: by the reader's clock again.
    Arrived(Option<u64>),
    /// The stream is over; no more updates follow.
    Ended(StreamEnd),
}

/// Updates a stream task may send ahead of its reader. Then it waits: a server (or a replay) faster
/// than the app is slowed to the app's pace instead of filling memory with what the app has not
/// taken in yet (over HTTP the wait is TCP flow control).
pub const BACKLOG: usize = 64;

/// Where a stream task sends its updates: `send(…).await` waits while [`BACKLOG`] updates are
/// unread, and fails once the reader is gone.
pub type UpdateSender = tokio::sync::mpsc::Sender<StreamUpdate>;
