//! What a background stream task tells the app: connection progress, batches of neutral events, and
//! how the stream ended. Every input (HTTP, replay) speaks this over a channel; the TUI and `ask`
//! consume it. Nothing here touches the terminal.

use crate::agent::resume::ServerRun;
use crate::model::event::AgentEvent;

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
    /// The stream is over; no more updates follow.
    Ended(StreamEnd),
}

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

/// Updates a stream task may send ahead of its reader. Then it waits: a server (or a replay) faster
/// than the app is slowed to the app's pace instead of filling memory with what the app has not
/// taken in yet (over HTTP the wait is TCP flow control).
pub const BACKLOG: usize = 64;

/// Where a stream task sends its updates: `send(…).await` waits while [`BACKLOG`] updates are
/// unread, and fails once the reader is gone.
pub type UpdateSender = tokio::sync::mpsc::Sender<StreamUpdate>;

/// The receiving end of a background stream task.
#[derive(Debug)]
pub struct StreamHandle {
    pub updates: tokio::sync::mpsc::Receiver<StreamUpdate>,
    task: tokio::task::JoinHandle<()>,
    /// The run on the server this stream follows, when it outlives the connection.
    server_run: Option<ServerRun>,
}

impl StreamHandle {
    /// Start `task`, which reports over the sender it is given.
    pub fn spawn<F, Fut>(task: F) -> Self
    where
        F: FnOnce(UpdateSender) -> Fut,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let (tx, updates) = tokio::sync::mpsc::channel(BACKLOG);
        let task = tokio::spawn(task(tx));
        Self {
            updates,
            task,
            server_run: None,
        }
    }

    /// This stream follows `run` on the server.
    pub fn with_server_run(mut self, run: Option<ServerRun>) -> Self {
        self.server_run = run;
        self
    }

    /// The run on the server this stream follows, if any (stopping the stream does not stop it:
    /// [`ServerRun::cancel`] does).
    pub fn server_run(&self) -> Option<&ServerRun> {
        self.server_run.as_ref()
    }

    /// Stop the task; no further updates arrive. The caller records the end as cancelled.
    pub fn cancel(&mut self) {
        self.task.abort();
        self.updates.close();
    }

    pub fn is_finished(&self) -> bool {
        self.task.is_finished()
    }
}

impl Drop for StreamHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}
