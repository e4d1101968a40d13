//! The exporter: a background task on the runtime that reads each ended turn from the store, turns
//! it into spans and sends them with the SDK's OTLP/HTTP exporter, through our own HTTP client.
//!
//! It never slows or breaks a session: a turn is handed over with [`Exporter::turn`], which never
//! waits (past [`QUEUE`] turns waiting, the newest is dropped and counted); turns waiting together
//! go in one request; each request has [`REQUEST_TIMEOUT`]; a failure is one line in the
//! diagnostic log with the counts, never one per span.
//!
//! At exit [`Exporter::finish_at_exit`] waits for what is left. When the exporter starts it opens
//! the connection with an empty export (which OTLP allows), while the agent is still answering: the
//! turn's export at the end then costs one round trip, and the answer (or its absence) says
//! whether the collector is there. One that answered gets up to [`ANSWERED_EXIT_BUDGET`]; one that
//! has not answered, [`EXIT_BUDGET`]; one that refused, nothing: a dead collector costs a command
//! no more.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry::InstrumentationScope;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SpanExporter as _;
use tokio::sync::{Notify, mpsc};

use super::config::Config;
use super::spans;
use crate::wire::redact::Secret;

/// Turns waiting to be sent, at most; more are dropped (and counted).
pub const QUEUE: usize = 256;
/// Turns sent in one request, at most (with `--otlp-content` a turn carries its whole answer).
const BATCH: usize = 8;
/// One request's limit (a live session's exporter; `sessions --export-otlp` too).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long `ask`, the app and the proxy wait at exit for traces still being sent to a collector
/// that has not answered the opening request: it had the whole turn to answer an empty request, so
/// a longer wait would rarely save the trace and would slow every exit while it is down.
pub const EXIT_BUDGET: Duration = Duration::from_millis(25);
/// How long they wait for a collector that answered the opening request: it is alive, so the last
/// turn's trace is worth a moment more (one far away, or slow to answer).
pub const ANSWERED_EXIT_BUDGET: Duration = Duration::from_secs(2);

/// The opening request: not answered yet.
const WARM_PENDING: u8 = 0;
/// The collector answered it (any HTTP status: it is there and answers).
const WARM_ANSWERED: u8 = 1;
/// No answer: refused, unreachable, TLS failed.
const WARM_FAILED: u8 = 2;

/// A saved turn to send: its session's folder and its place in it, and the key its request
/// carried (the proxy's clients bring their own), masked besides the exporter's.
#[derive(Debug, Clone)]
pub struct TurnRef {
    pub dir: PathBuf,
    pub index: usize,
    pub key: Secret,
}

/// What was sent, and what was not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub traces: usize,
    pub spans: usize,
    /// Traces the collector did not take (an error, a timeout), or dropped from a full queue, or
    /// still waiting at exit.
    pub failed: usize,
    /// The last failure, for one line (no header value, no key: the SDK's own words).
    pub error: Option<String>,
}

/// What the handles and the task share.
struct Shared {
    tally: Mutex<Tally>,
    /// Turns handed over and not yet sent or failed.
    pending: AtomicUsize,
    /// Told each time the task is done with a batch.
    progress: Notify,
    /// How the opening request went ([`WARM_PENDING`], …).
    warm: AtomicU8,
    endpoint: String,
}

impl Shared {
    fn tally(&self, change: impl FnOnce(&mut Tally)) {
        if let Ok(mut tally) = self.tally.lock() {
            change(&mut tally);
        }
    }
}

/// A handle of the export task (clones share it: the proxy hands one to each recorder).
#[derive(Clone)]
pub struct Exporter {
    tx: mpsc::Sender<TurnRef>,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Exporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Exporter({})", self.shared.endpoint)
    }
}

impl Exporter {
    /// Start exporting to `config`'s collector, `secret` masked in every span. Needs the runtime.
    pub fn start(config: &Config, secret: Secret) -> Result<Exporter, String> {
        Exporter::start_with(config, secret, false)
    }

    /// [`Exporter::start`] for a backfill: once the collector has failed, the turns still waiting
    /// are counted as not sent instead of each waiting for its own failure.
    pub fn start_backfill(config: &Config, secret: Secret) -> Result<Exporter, String> {
        Exporter::start_with(config, secret, true)
    }

    fn start_with(config: &Config, secret: Secret, give_up: bool) -> Result<Exporter, String> {
        let client = crate::agent::http::client_builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|e| format!("the OpenTelemetry exporter's HTTP client: {e}"))?;
        let headers = config.headers.iter().cloned().collect();
        let mut exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(client.clone())
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(config.endpoint.clone())
            .with_headers(headers)
            .with_timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|e| format!("the OpenTelemetry exporter: {e}"))?;
        let resource = Resource::builder_empty()
            .with_service_name(config.service_name.clone())
            .with_attribute(opentelemetry::KeyValue::new(
                "service.version",
                env!("CARGO_PKG_VERSION"),
            ))
            .build();
        exporter.set_resource(&resource);
        let (tx, rx) = mpsc::channel(QUEUE);
        let shared = Arc::new(Shared {
            tally: Mutex::new(Tally::default()),
            pending: AtomicUsize::new(0),
            progress: Notify::new(),
            warm: AtomicU8::new(WARM_PENDING),
            endpoint: config.endpoint_label(),
        });
        let sender = Sender {
            exporter,
            content: config.content,
            secret,
            shared: shared.clone(),
            give_up,
        };
        tokio::spawn(sender.run(rx));
        warm_up(client, config, shared.clone());
        Ok(Exporter { tx, shared })
    }

    /// Send this saved turn's trace, soon; never waits. A full queue drops it, counted.
    pub fn turn(&self, turn: TurnRef) {
        self.shared.pending.fetch_add(1, Ordering::SeqCst);
        if self.tx.try_send(turn).is_err() {
            self.shared.pending.fetch_sub(1, Ordering::SeqCst);
            let mut failed = 0;
            self.shared.tally(|tally| {
                tally.failed += 1;
                failed = tally.failed;
            });
            crate::log::log(&format!(
                "OpenTelemetry: {QUEUE} traces already wait for {}; a turn's trace was dropped \
                 ({failed} not sent so far)",
                self.shared.endpoint
            ));
        }
    }

    /// Send this saved turn's trace, waiting while the queue is full (a backfill).
    pub async fn turn_waiting(&self, turn: TurnRef) {
        self.shared.pending.fetch_add(1, Ordering::SeqCst);
        if self.tx.send(turn).await.is_err() {
            self.shared.pending.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// The collector's endpoint, credentials left out.
    pub fn endpoint(&self) -> &str {
        &self.shared.endpoint
    }

    /// At exit: [`Exporter::finish`] within [`ANSWERED_EXIT_BUDGET`] when the collector answered
    /// the opening request, not at all when it could not be reached, else within [`EXIT_BUDGET`]
    /// (a collector that never answers costs the program no more than that).
    pub async fn finish_at_exit(&self) -> Tally {
        let budget = match self.shared.warm.load(Ordering::SeqCst) {
            WARM_ANSWERED => ANSWERED_EXIT_BUDGET,
            // It refused (or could not be reached): no wait will change that.
            WARM_FAILED => Duration::ZERO,
            _ => EXIT_BUDGET,
        };
        self.finish(Some(budget)).await
    }

    /// Wait until every turn handed over is sent (or failed), for at most `budget` (`None`: until
    /// done): what was sent, and what was not. Turns still waiting then are counted as not sent
    /// and logged; the task goes on with them while the program does.
    pub async fn finish(&self, budget: Option<Duration>) -> Tally {
        let deadline = budget.map(|budget| tokio::time::Instant::now() + budget);
        loop {
            let progress = self.shared.progress.notified();
            let pending = self.shared.pending.load(Ordering::SeqCst);
            if pending == 0 {
                break;
            }
            let waited = match deadline {
                Some(deadline) => tokio::time::timeout_at(deadline, progress).await.is_ok(),
                None => {
                    progress.await;
                    true
                }
            };
            if !waited {
                let why = match self.shared.warm.load(Ordering::SeqCst) {
                    WARM_FAILED => "could not be reached",
                    _ => "did not answer in time",
                };
                crate::log::log(&format!(
                    "OpenTelemetry: the collector at {} {why}; {} not sent",
                    self.shared.endpoint,
                    traces(pending)
                ));
                let mut tally = self.tally();
                tally.failed += pending;
                tally
                    .error
                    .get_or_insert_with(|| format!("the collector {why}"));
                return tally;
            }
        }
        self.tally()
    }

    fn tally(&self) -> Tally {
        self.shared
            .tally
            .lock()
            .map(|tally| tally.clone())
            .unwrap_or_default()
    }
}

/// `1 trace`, `3 traces`.
pub fn traces(n: usize) -> String {
    if n == 1 {
        "1 trace".into()
    } else {
        format!("{n} traces")
    }
}

/// Open the connection to the collector now (an empty OTLP request), so the turn's export at the
/// end costs one round trip; whether it answers decides how long the exit waits for it.
fn warm_up(client: reqwest::Client, config: &Config, shared: Arc<Shared>) {
    let mut request = client
        .post(&config.endpoint)
        .header("content-type", "application/x-protobuf")
        .body(Vec::new());
    for (name, value) in &config.headers {
        request = request.header(name, value);
    }
    tokio::spawn(async move {
        let state = match request.send().await {
            Ok(_) => WARM_ANSWERED,
            Err(_) => WARM_FAILED,
        };
        shared.warm.store(state, Ordering::SeqCst);
    });
}

/// The task's side.
struct Sender {
    exporter: opentelemetry_otlp::SpanExporter,
    content: bool,
    secret: Secret,
    shared: Arc<Shared>,
    /// After a failure, send nothing more (a backfill).
    give_up: bool,
}

impl Sender {
    async fn run(self, mut rx: mpsc::Receiver<TurnRef>) {
        let scope = InstrumentationScope::builder("research-tui")
            .with_version(env!("CARGO_PKG_VERSION"))
            .build();
        let mut turns = Vec::with_capacity(BATCH);
        while rx.recv_many(&mut turns, BATCH).await > 0 {
            let handed = turns.len();
            let batch = std::mem::take(&mut turns);
            self.send(batch, &scope).await;
            self.shared.pending.fetch_sub(handed, Ordering::SeqCst);
            self.shared.progress.notify_waiters();
        }
    }

    fn tally_has_failed(&self) -> bool {
        let mut failed = false;
        self.shared.tally(|tally| failed = tally.error.is_some());
        failed
    }

    /// Read `batch` from the store and send it in one request; the outcome in the tally.
    async fn send(&self, batch: Vec<TurnRef>, scope: &InstrumentationScope) {
        let failed_before = self.give_up && self.tally_has_failed();
        if failed_before {
            self.shared.tally(|tally| tally.failed += batch.len());
            return;
        }
        let (content, secret) = (self.content, self.secret.clone());
        let read = tokio::task::spawn_blocking(move || {
            batch
                .iter()
                .filter_map(|turn| {
                    let saved = spans::load(&turn.dir)?;
                    let secret = secret.clone().union(&turn.key);
                    spans::saved_turn(&saved, turn.index, content, &secret)
                })
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_default();
        let traces = read.len();
        let data: Vec<_> = read
            .into_iter()
            .flat_map(|specs| spans::to_span_data(specs, scope))
            .collect();
        if data.is_empty() {
            return;
        }
        let count = data.len();
        match tokio::time::timeout(REQUEST_TIMEOUT, self.exporter.export(data)).await {
            Ok(Ok(())) => self.shared.tally(|tally| {
                tally.traces += traces;
                tally.spans += count;
            }),
            failed => {
                let error = match failed {
                    Ok(Err(e)) => self.secret.redact_message(&e.to_string()),
                    _ => format!("no answer within {} s", REQUEST_TIMEOUT.as_secs()),
                };
                let mut so_far = 0;
                self.shared.tally(|tally| {
                    tally.failed += traces;
                    so_far = tally.failed;
                    tally.error = Some(error.clone());
                });
                crate::log::log(&format!(
                    "OpenTelemetry export to {} failed: {error}; {} ({count} spans) not sent, \
                     {so_far} so far",
                    self.shared.endpoint,
                    self::traces(traces)
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A collector that accepts connections and never reads or answers.
    async fn silent_collector() -> (Config, tokio::task::JoinHandle<()>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                held.push(socket);
            }
        });
        let config = Config {
            endpoint: format!("http://{addr}/v1/traces"),
            headers: Vec::new(),
            service_name: "test".into(),
            content: false,
        };
        (config, task)
    }

    /// A saved session of one turn under `root`: its folder.
    fn saved_turn(root: &std::path::Path) -> PathBuf {
        use crate::agent::turn::TurnRecorder;
        let store = crate::local::store::SessionStore::new(root);
        let mut saved = store
            .create("research", "bigdata", "http://127.0.0.1:9")
            .unwrap();
        let writer = saved.begin_turn("Q?", None).unwrap();
        let (mut turn, _sink) = crate::local::store::SavedTurn::new(saved, writer);
        let dir = turn.saved.dir().to_path_buf();
        let file = &turn.saved.meta.turns[0].stream_file;
        let event = "data: {\"message\":{\"type\":\"ANSWER\",\"content\":\"Hi.\"}}\n\n";
        std::fs::write(dir.join(file), event).unwrap();
        let session = crate::wire::input::read_session(event.as_bytes(), None)
            .unwrap()
            .0;
        turn.end(&session, &crate::model::stream_end::StreamEnd::Closed)
            .unwrap();
        dir
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_flood_of_turns_to_a_silent_collector_never_waits_and_keeps_a_bounded_queue() {
        let (config, _collector) = silent_collector().await;
        let store_dir = tempfile::tempdir().unwrap();
        let dir = saved_turn(store_dir.path());
        let exporter = Exporter::start(&config, Secret::default()).unwrap();
        let started = std::time::Instant::now();
        let flood = 100_000;
        for _ in 0..flood {
            exporter.turn(TurnRef {
                dir: dir.clone(),
                index: 0,
                key: Secret::default(),
            });
        }
        // Handing over never waits for the collector, however many turns come.
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        // Past the queue they are dropped and counted, not kept.
        let waiting = exporter.shared.pending.load(Ordering::SeqCst);
        assert!(waiting <= QUEUE + BATCH, "{waiting} kept");
        let tally = exporter.finish(Some(Duration::from_millis(50))).await;
        assert_eq!(tally.traces, 0);
        assert!(tally.failed >= flood - QUEUE - BATCH, "{tally:?}");
    }
}
