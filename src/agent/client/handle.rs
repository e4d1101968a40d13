//! The app's end of a background stream task ([`StreamHandle`]): its updates, stopping it, and the
//! run on the server it follows (when a client's stream outlives its connection). Every input
//! starts one — the client, a replay, a followed file.

use super::resume::ServerRun;
use crate::agent::stream::{BACKLOG, StreamUpdate, UpdateSender};

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
