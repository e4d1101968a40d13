//! One turn, driven the same way by `ask` and the TUI: start its stream with the raw bytes teed to
//! every sink (the saved turn's file, `--record FILE`), apply each update to the caller's session,
//! and save what changed — progress as events arrive, how the turn ended — through a
//! [`TurnRecorder`]. Cancelling stops the stream and saves the turn as cancelled; a run that lives
//! on the server is handed back to be cancelled there ([`TurnDriver::take_cancelled_run`]).
//!
//! The recorder is a trait so this layer does not depend on where turns are saved (the session
//! store implements it); save errors go back to the caller, which reports them its own way.

use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::agent::client::RawSink;
use crate::agent::client::StreamHandle;
use crate::agent::client::resume::ServerRun;
use crate::agent::stream::StreamUpdate;
use crate::model::event::AgentEvent;
use crate::model::session::Session;
use crate::model::stream_end::StreamEnd;

/// Where a turn is saved while it streams.
pub trait TurnRecorder {
    /// Events arrived: save what must not wait for the end (a run killed mid-stream stays findable).
    fn progress(&mut self, session: &Session) -> io::Result<()>;
    /// The stream ended, or was cancelled: save how.
    fn end(&mut self, session: &Session, end: &StreamEnd) -> io::Result<()>;
}

/// What a turn's updates are applied to: the neutral session, or an app's turn built around one.
pub trait TurnTarget {
    fn apply_update(&mut self, update: StreamUpdate);
    /// The session as it stands, for the recorder (`None`: nothing to save from).
    fn session(&self) -> Option<&Session>;
}

impl TurnTarget for Session {
    /// Only events change the session; connection progress and the end are the caller's to show.
    fn apply_update(&mut self, update: StreamUpdate) {
        if let StreamUpdate::Events(events) = update {
            for event in events {
                self.apply(event);
            }
        }
    }

    fn session(&self) -> Option<&Session> {
        Some(self)
    }
}

/// The longest answer a turn takes unless told otherwise: 64 MiB (real answers are a few KB).
pub const DEFAULT_MAX_ANSWER_BYTES: usize = 64 << 20;

static MAX_ANSWER_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_ANSWER_BYTES);

/// The answer limit every turn of this process starts with (`--max-answer-mib`): an answer that
/// grows past it is cut there, with a message saying so, instead of filling memory.
pub fn set_max_answer_bytes(bytes: usize) {
    MAX_ANSWER_BYTES.store(bytes.max(1), Ordering::Relaxed);
}

/// The answer limit of this process (`--max-answer-mib`).
pub fn max_answer_bytes() -> usize {
    MAX_ANSWER_BYTES.load(Ordering::Relaxed)
}

/// Why an answer was cut at `bytes`, as every command says it.
pub fn answer_limit_reason(bytes: usize) -> String {
    format!(
        "the answer passed {}, the limit set by --max-answer-mib",
        describe_limit(bytes)
    )
}

/// The answer limit as the user gave it.
fn describe_limit(bytes: usize) -> String {
    if bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// A running turn: its stream (until it ends or is cancelled) and the recorder it saves into.
pub struct TurnDriver<R> {
    stream: Option<StreamHandle>,
    recorder: Option<R>,
    /// The server-side run of a stream cancelled here, not yet cancelled on the server.
    cancelled_run: Option<ServerRun>,
    /// Answers longer than this are cut.
    max_answer: usize,
    /// How the turn ended, once it did.
    ended: Option<StreamEnd>,
}

impl<R: TurnRecorder> TurnDriver<R> {
    /// Start a turn: `start` opens the stream, writing its raw bytes to the sink it is given — all of
    /// `sinks`, in order — and `recorder` (if any) saves its progress and end.
    pub fn start(
        sinks: Vec<RawSink>,
        recorder: Option<R>,
        start: impl FnOnce(Option<RawSink>) -> StreamHandle,
    ) -> Self {
        Self {
            stream: Some(start(tee(sinks))),
            recorder,
            cancelled_run: None,
            max_answer: MAX_ANSWER_BYTES.load(Ordering::Relaxed),
            ended: None,
        }
    }

    /// Cut the answer at `bytes` rather than the process's limit.
    pub fn with_max_answer(mut self, bytes: usize) -> Self {
        self.max_answer = bytes.max(1);
        self
    }

    /// How the turn ended (the stream's end, an answer cut at the limit, a cancel), once it did.
    pub fn ended(&self) -> Option<&StreamEnd> {
        self.ended.as_ref()
    }

    /// The stream is still running: it has not ended and was not cancelled.
    pub fn is_running(&self) -> bool {
        self.stream.is_some()
    }

    pub fn recorder(&self) -> Option<&R> {
        self.recorder.as_ref()
    }

    /// The recorder back, once the turn is over (or abandoned: dropping the driver stops its stream).
    pub fn into_recorder(self) -> Option<R> {
        self.recorder
    }

    /// The next update. A stream task that stopped without saying how counts as cut; after the end
    /// this never returns (so it can sit in a `select!` beside other sources).
    pub async fn next_update(&mut self) -> StreamUpdate {
        match &mut self.stream {
            Some(stream) => stream.updates.recv().await.unwrap_or_else(|| {
                StreamUpdate::Ended(StreamEnd::Cut {
                    reason: "the stream task stopped".into(),
                })
            }),
            None => std::future::pending().await,
        }
    }

    /// An update that already arrived, without waiting.
    pub fn try_next_update(&mut self) -> Option<StreamUpdate> {
        self.stream.as_mut()?.updates.try_recv().ok()
    }

    /// Apply `update` to `target`, then save: events save progress, the end saves how the turn ended
    /// (and the stream is over). An answer that grows past the limit ends the turn right there: the
    /// stream is stopped and the turn is cut, saying why. The error is a failure to save; the update
    /// was applied anyway.
    pub fn apply(&mut self, update: StreamUpdate, target: &mut impl TurnTarget) -> io::Result<()> {
        let running = self.is_running();
        let (update, passed) = match target.session() {
            Some(session) if running => self.cut_at_limit(update, session),
            _ => (update, false),
        };
        let mut end = match &update {
            StreamUpdate::Ended(end) => Some(end.clone()),
            _ => None,
        };
        let events = matches!(update, StreamUpdate::Events(_));
        target.apply_update(update);
        if running
            && events
            && (passed
                || target
                    .session()
                    .is_some_and(|session| session.answer.len() > self.max_answer))
        {
            if let Some(stream) = &mut self.stream {
                stream.cancel();
            }
            let cut = StreamEnd::Cut {
                reason: answer_limit_reason(self.max_answer),
            };
            target.apply_update(StreamUpdate::Ended(cut.clone()));
            end = Some(cut);
        }
        if end.is_some() {
            self.stream = None;
            if running {
                self.ended.clone_from(&end);
            }
        }
        // An update applied after the end (or a cancel) saves nothing: the turn is already saved.
        let (true, Some(recorder), Some(session)) = (running, &mut self.recorder, target.session())
        else {
            return Ok(());
        };
        match &end {
            Some(end) => recorder.end(session, end),
            None if events => recorder.progress(session),
            None => Ok(()),
        }
    }

    /// `update` without the events after the answer chunk that passes the answer limit: the answer
    /// is cut at that chunk, not at the end of a batch that can hold a quarter MiB more (the turn
    /// ends there, so nothing after it counts). [`TurnDriver::apply`] applies it; a caller that
    /// shows the update's chunks itself (`ask`) takes them from it too.
    pub fn within_limit(&self, update: StreamUpdate, session: &Session) -> StreamUpdate {
        self.cut_at_limit(update, session).0
    }

    /// [`TurnDriver::within_limit`], and whether a chunk passes the limit (events after it left
    /// out: the turn must end there, whatever the reducer makes of the chunks).
    fn cut_at_limit(&self, update: StreamUpdate, session: &Session) -> (StreamUpdate, bool) {
        let StreamUpdate::Events(mut events) = update else {
            return (update, false);
        };
        let mut answer = session.answer.len();
        let passing = events.iter().position(|event| {
            if let AgentEvent::AnswerDelta { text, .. } = event {
                answer += text.len();
            }
            answer > self.max_answer
        });
        if let Some(at) = passing {
            events.truncate(at + 1);
        }
        (StreamUpdate::Events(events), passing.is_some())
    }

    /// Stop the stream and save the turn as cancelled (the caller shows it cancelled); nothing when
    /// the turn is already over.
    pub fn cancel(&mut self, target: &impl TurnTarget) -> io::Result<()> {
        let Some(mut stream) = self.stream.take() else {
            return Ok(());
        };
        stream.cancel();
        self.cancelled_run = stream.server_run().cloned();
        self.ended = Some(StreamEnd::Cancelled);
        match (&mut self.recorder, target.session()) {
            (Some(recorder), Some(session)) => recorder.end(session, &StreamEnd::Cancelled),
            _ => Ok(()),
        }
    }
}

impl<R> TurnDriver<R> {
    /// After [`TurnDriver::cancel`]: the run that goes on on the server, for the caller to cancel
    /// there ([`ServerRun::cancel`]); `None` when the stream had none or the turn had ended.
    pub fn take_cancelled_run(&mut self) -> Option<ServerRun> {
        self.cancelled_run.take()
    }
}

/// One sink writing to all of `sinks`, in order (`None` when there are none).
fn tee(mut sinks: Vec<RawSink>) -> Option<RawSink> {
    match sinks.len() {
        0 => None,
        1 => sinks.pop(),
        _ => Some(Arc::new(Mutex::new(Tee(sinks)))),
    }
}

/// Writes to several sinks: the saved turn's file and `--record FILE`.
struct Tee(Vec<RawSink>);

impl Tee {
    fn each(&self, mut write: impl FnMut(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
        for sink in &self.0 {
            let mut sink = sink
                .lock()
                .map_err(|_| io::Error::other("a raw sink's lock is poisoned"))?;
            write(&mut *sink)?;
        }
        Ok(())
    }
}

impl crate::agent::client::RawWrite for Tee {
    fn request_sent(&mut self, at: std::time::Instant) {
        for sink in &self.0 {
            if let Ok(mut sink) = sink.lock() {
                sink.request_sent(at);
            }
        }
    }
}

impl Write for Tee {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.each(|sink| sink.write_all(buf))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.each(|sink| sink.flush())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::AgentEvent;

    /// Remembers what it was asked to save.
    #[derive(Default)]
    struct Log(Vec<String>);

    impl TurnRecorder for Log {
        fn progress(&mut self, session: &Session) -> io::Result<()> {
            self.0.push(format!("progress {}", session.answer.as_str()));
            Ok(())
        }
        fn end(&mut self, session: &Session, end: &StreamEnd) -> io::Result<()> {
            self.0.push(format!(
                "end {} {}",
                session.answer.as_str(),
                end.describe()
            ));
            Ok(())
        }
    }

    fn delta(text: &str) -> StreamUpdate {
        StreamUpdate::Events(vec![AgentEvent::AnswerDelta {
            message_id: None,
            text: text.into(),
        }])
    }

    /// A stream that sends `updates`, writing `raw` to its sink first.
    fn scripted(
        updates: Vec<StreamUpdate>,
        raw: &'static [u8],
    ) -> impl FnOnce(Option<RawSink>) -> StreamHandle {
        move |sink| {
            if let Some(sink) = sink {
                sink.lock().unwrap().write_all(raw).unwrap();
            }
            StreamHandle::spawn(move |tx| async move {
                for update in updates {
                    let _ = tx.send(update).await;
                }
            })
        }
    }

    #[tokio::test]
    async fn a_turn_tees_its_bytes_applies_its_events_and_saves_progress_then_the_end() {
        let first: Arc<Mutex<Vec<u8>>> = Arc::default();
        let second: Arc<Mutex<Vec<u8>>> = Arc::default();
        let updates = vec![
            StreamUpdate::Connected,
            delta("Hi"),
            StreamUpdate::Ended(StreamEnd::Closed),
        ];
        let mut driver = TurnDriver::start(
            vec![first.clone(), second.clone()],
            Some(Log::default()),
            scripted(updates, b"data: x\n\n"),
        );
        let mut session = Session::new();
        while driver.is_running() {
            let update = driver.next_update().await;
            driver.apply(update, &mut session).unwrap();
        }
        assert_eq!(session.answer.as_str(), "Hi");
        assert_eq!(*first.lock().unwrap(), b"data: x\n\n");
        assert_eq!(*second.lock().unwrap(), b"data: x\n\n");
        // Cancelling an ended turn saves nothing more.
        driver.cancel(&session).unwrap();
        assert_eq!(
            driver.into_recorder().unwrap().0,
            ["progress Hi", "end Hi stream closed"]
        );
    }

    #[tokio::test]
    async fn a_stopped_task_ends_the_turn_as_cut_and_a_cancel_saves_it_as_cancelled() {
        let mut driver = TurnDriver::start(Vec::new(), Some(Log::default()), scripted(vec![], b""));
        assert_eq!(
            driver.next_update().await,
            StreamUpdate::Ended(StreamEnd::Cut {
                reason: "the stream task stopped".into()
            })
        );

        let mut driver = TurnDriver::start(
            Vec::new(),
            Some(Log::default()),
            scripted(vec![delta("Hal")], b""),
        );
        let mut session = Session::new();
        let update = driver.next_update().await;
        driver.apply(update, &mut session).unwrap();
        driver.cancel(&session).unwrap();
        assert!(!driver.is_running());
        assert_eq!(driver.try_next_update(), None);
        assert_eq!(
            driver.into_recorder().unwrap().0,
            ["progress Hal", "end Hal cancelled"]
        );
    }

    #[tokio::test]
    async fn an_answer_past_the_limit_in_one_batch_is_cut_at_the_chunk_that_passes_it() {
        let chunks = (0..10).map(|_| AgentEvent::AnswerDelta {
            message_id: None,
            text: "0123456789".into(),
        });
        let batch = StreamUpdate::Events(chunks.collect());
        let mut driver =
            TurnDriver::start(Vec::new(), Some(Log::default()), scripted(vec![batch], b""))
                .with_max_answer(25);
        let mut session = Session::new();
        let update = driver.next_update().await;
        let shown = driver.within_limit(update.clone(), &session);
        assert!(matches!(&shown, StreamUpdate::Events(events) if events.len() == 3));
        driver.apply(update, &mut session).unwrap();
        assert_eq!(session.answer.as_str(), "012345678901234567890123456789");
        assert!(matches!(driver.ended(), Some(StreamEnd::Cut { .. })));
    }

    #[tokio::test]
    async fn an_answer_past_the_limit_is_cut_there_and_saved_as_cut() {
        let updates = (0..10).map(|_| delta("0123456789")).collect();
        let mut driver =
            TurnDriver::start(Vec::new(), Some(Log::default()), scripted(updates, b""))
                .with_max_answer(25);
        let mut session = Session::new();
        while driver.is_running() {
            let update = driver.next_update().await;
            driver.apply(update, &mut session).unwrap();
        }
        assert_eq!(session.answer.as_str(), "012345678901234567890123456789");
        let reason = "the answer passed 25 bytes, the limit set by --max-answer-mib";
        assert_eq!(
            driver.ended(),
            Some(&StreamEnd::Cut {
                reason: reason.into()
            })
        );
        let log = driver.into_recorder().unwrap().0;
        assert_eq!(
            log.last().unwrap(),
            &format!(
                "end 012345678901234567890123456789 connection cut before completion: {reason}"
            )
        );
    }
}
