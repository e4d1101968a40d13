//! `research-tui proxy` over real sockets: the real binary on 127.0.0.1 in front of the demo agent
//! (put upstream with `--upstream`) or of hostile servers written here, each test with its own XDG
//! directories. A client gets the same bytes through the proxy as straight from the agent; the saved
//! session holds exactly those bytes and renders like the direct stream; follow-ups land in the same
//! session; errors pass through and are saved as failed turns; the key is never written anywhere.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode};
use research_tui::agent::live::{self, LiveConfig};
use research_tui::local::meta::SessionMeta;
use research_tui::local::store::SessionStore;
use research_tui::local::summary;
use research_tui::model::session::Session;
use research_tui::wire::provider::Ask;
use research_tui::wire::provider::{EventPipeline, Provider};

use crate::support;

/// A distinctive fake key: it must appear in no file and no line the proxy prints.
pub(crate) const KEY: &str = "sk-FAKE-proxy-test-KEY-9f3c1e";

/// The proxy binary, running until dropped, and everything it printed on stderr.
pub(crate) struct ProxyProcess {
    child: Child,
    pub(crate) addr: SocketAddr,
    output: Arc<Mutex<String>>,
    dir: tempfile::TempDir,
}

impl ProxyProcess {
    /// Start `research-tui proxy --port 0` with every provider sent to `upstream`, in fresh XDG
    /// directories (`prepare` may change them first).
    pub(crate) fn start(upstream: SocketAddr, prepare: impl FnOnce(&Path)) -> ProxyProcess {
        ProxyProcess::start_with(upstream, prepare, &[])
    }

    /// [`ProxyProcess::start`] with more arguments (a later `--upstream` wins).
    pub(crate) fn start_with(
        upstream: SocketAddr,
        prepare: impl FnOnce(&Path),
        args: &[&str],
    ) -> ProxyProcess {
        let dir = tempfile::tempdir().unwrap();
        prepare(dir.path());
        let mut command = support::cli(dir.path());
        command.args(["proxy", "--port", "0"]);
        for provider in Provider::ALL {
            command.arg("--upstream");
            command.arg(format!("{}=http://{upstream}", provider.as_str()));
        }
        command.args(args);
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let url = first
            .strip_prefix("research-tui proxy listening on http://")
            .unwrap_or_else(|| panic!("the first line says where it listens: {first:?}"));
        let addr: SocketAddr = url.parse().unwrap();
        assert_ne!(addr.port(), 0, "the real port is printed");
        let output = Arc::new(Mutex::new(format!("{first}\n")));
        let sink = output.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                sink.lock().unwrap().push_str(&(line + "\n"));
            }
        });
        ProxyProcess {
            child,
            addr,
            output,
            dir,
        }
    }

    pub(crate) fn url(&self, provider: Provider, path: &str) -> String {
        format!("http://{}/{}{path}", self.addr, provider.as_str())
    }

    fn sessions_root(&self) -> PathBuf {
        self.dir.path().join("data/research-tui/sessions")
    }

    pub(crate) fn store(&self) -> SessionStore {
        SessionStore::new(self.sessions_root())
    }

    pub(crate) fn output(&self) -> String {
        self.output.lock().unwrap().clone()
    }

    /// Wait (up to 5 s) until the proxy has printed `text`.
    pub(crate) fn wait_for_output(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !self.output().contains(text) {
            assert!(Instant::now() < deadline, "{text:?} in {}", self.output());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The saved sessions once none is streaming and `turns` turns are saved (within 10 s).
    pub(crate) fn settled_sessions(&self, turns: usize) -> Vec<SessionMeta> {
        self.sessions_when(turns, |s| s.status() != "streaming")
    }

    /// The saved sessions once `turns` turns are saved and every one is complete (within 10 s): a
    /// paused Anthropic turn is saved incomplete until its continuation's recording takes it up.
    fn complete_sessions(&self, turns: usize) -> Vec<SessionMeta> {
        self.sessions_when(turns, |s| s.status() == "complete")
    }

    fn sessions_when(
        &self,
        turns: usize,
        settled: impl Fn(&SessionMeta) -> bool,
    ) -> Vec<SessionMeta> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let sessions = self.store().list();
            let saved: usize = sessions.iter().map(|s| s.turns.len()).sum();
            if saved >= turns && sessions.iter().all(&settled) {
                return sessions;
            }
            assert!(
                Instant::now() < deadline,
                "{turns} turns saved: {sessions:#?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Every file under the test's directories (the store, config, cache).
    pub(crate) fn files(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        walk(self.dir.path(), &mut files);
        files
    }

    /// The key is in no file the proxy wrote and in nothing it printed.
    fn assert_key_nowhere(&self) {
        let files = self.files();
        assert!(!files.is_empty());
        for file in files {
            let bytes = std::fs::read(&file).unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains(KEY), "the key is in {}", file.display());
            assert!(
                !text.contains("FAKE-proxy"),
                "a part of the key is in {}",
                file.display()
            );
        }
        assert!(!self.output().contains("FAKE-proxy"), "{}", self.output());
    }
}

impl Drop for ProxyProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) async fn demo_agent() -> SocketAddr {
    support::demo_agent(200.0).await
}

pub(crate) fn http() -> reqwest::Client {
    research_tui::agent::http::client_builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// What a client received: status, headers and every body byte.
struct Received {
    status: u16,
    headers: HeaderMap,
    body: Vec<u8>,
}

/// POST `ask` to `provider` at `base` (the demo agent, or the proxy's prefix), with the key in the
/// provider's header, as the app builds the request.
async fn send(
    base: &str,
    provider: Provider,
    demo: SocketAddr,
    ask: &Ask,
    extra: &[(&str, &str)],
) -> reqwest::Response {
    let request = live::request(&LiveConfig::demo(provider, demo), ask);
    let auth = provider.spec().auth;
    let mut builder = http()
        .post(format!("{base}{}", request.path))
        .header(auth.name(), auth.value(KEY))
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(request.body_bytes());
    for (name, value) in &request.headers {
        builder = builder.header(*name, value);
    }
    for (name, value) in extra {
        builder = builder.header(*name, *value);
    }
    builder.send().await.unwrap()
}

/// [`post`] a question, and while the provider pauses the turn (Anthropic's `pause_turn`), its
/// continuation, as the app's client does: every body, one after the other.
async fn post_turn(base: &str, provider: Provider, demo: SocketAddr, ask: &Ask) -> Received {
    let mut turn = post(base, provider, demo, ask, &[]).await;
    for _ in 0..3 {
        let so_far = decoded(provider, &turn.body);
        if !so_far.paused {
            break;
        }
        let next = Ask {
            paused: so_far.transcript,
            ..ask.clone()
        };
        let more = post(base, provider, demo, &next, &[]).await;
        assert_eq!(more.status, 200);
        turn.body.extend(more.body);
    }
    turn
}

/// [`send`], and everything that came back.
async fn post(
    base: &str,
    provider: Provider,
    demo: SocketAddr,
    ask: &Ask,
    extra: &[(&str, &str)],
) -> Received {
    let response = send(base, provider, demo, ask, extra).await;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.bytes().await.unwrap().to_vec();
    Received {
        status,
        headers,
        body,
    }
}

/// `bytes` with the demo agent's fresh ids (`chat-`, `ckpt-`, `resp-`… and 16 hex digits), which
/// differ on every response, made equal.
fn without_fresh_ids(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    let mut rest: &str = &text;
    while let Some(at) = rest.find('-') {
        let (before, after) = rest.split_at(at);
        out.push_str(before);
        let hex = after.get(1..17).unwrap_or_default();
        let is_id = hex.len() == 16
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if is_id {
            out.push_str("-<id>");
            rest = &after[17..];
        } else {
            out.push('-');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    out
}

fn decoded(provider: Provider, bytes: &[u8]) -> Session {
    let mut pipeline = EventPipeline::new(provider);
    let mut events = Vec::new();
    pipeline.feed(bytes, &mut events).unwrap();
    pipeline.finish(&mut events).unwrap();
    let mut session = Session::new();
    session.apply_all(events);
    session
}

/// `research-tui render FILE --format json` of `bytes`.
fn rendered(provider: Provider, bytes: &[u8]) -> String {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), bytes).unwrap();
    let output = support::cli(support::scratch())
        .args([
            "render",
            "--format",
            "json",
            "--provider",
            provider.as_str(),
        ])
        .arg(file.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    without_fresh_ids(&output.stdout)
}

#[tokio::test(flavor = "multi_thread")]
async fn every_provider_streams_the_same_bytes_through_the_proxy_and_saves_a_session_that_renders_the_same()
 {
    let demo = demo_agent().await;
    let proxy = ProxyProcess::start(demo, |_| {});
    for (n, provider) in Provider::ALL.into_iter().enumerate() {
        let ask = Ask::new(live::demo_question(provider));
        let direct = post_turn(&format!("http://{demo}"), provider, demo, &ask).await;
        let base = proxy.url(provider, "");
        let proxied = post_turn(&base, provider, demo, &ask).await;
        assert_eq!((direct.status, proxied.status), (200, 200), "{provider:?}");
        assert!(!direct.body.is_empty());
        assert_eq!(
            without_fresh_ids(&proxied.body),
            without_fresh_ids(&direct.body),
            "{provider:?}: the proxied stream is the direct one"
        );
        assert_eq!(
            proxied.headers.get("content-type"),
            direct.headers.get("content-type")
        );

        let sessions = proxy.complete_sessions(n + 1);
        let meta = sessions
            .iter()
            .find(|m| m.provider == provider.as_str())
            .unwrap_or_else(|| panic!("a {provider:?} session is saved"));
        assert_eq!(meta.turns.len(), 1);
        assert_eq!(meta.status(), "complete", "{provider:?}: {meta:#?}");
        assert_eq!(meta.first_question(), ask.question);
        let saved = proxy.store().load(&meta.id).unwrap();
        let raw = std::fs::read(saved.dir().join(&meta.turns[0].stream_file)).unwrap();
        assert_eq!(
            raw, proxied.body,
            "{provider:?}: the turn file holds every byte"
        );
        assert_eq!(rendered(provider, &raw), rendered(provider, &direct.body));
        let (_, replayed) = &saved.replay_turns()[0];
        let straight = decoded(provider, &direct.body);
        assert_eq!(replayed.answer.as_str(), straight.answer.as_str());
        assert_eq!(replayed.references.len(), straight.references.len());
        assert_eq!(replayed.stats, straight.stats);
        // The summary the recorder built in its one decoding pass is the one the turn file gives.
        let recorded = std::fs::read(saved.dir().join(summary::SUMMARY)).unwrap();
        let recorded: summary::SessionSummary = serde_json::from_slice(&recorded).unwrap();
        std::fs::remove_file(saved.dir().join(summary::SUMMARY)).unwrap();
        let rebuilt = summary::load(saved.dir()).unwrap();
        assert_eq!(recorded.turns, rebuilt.turns, "{provider:?}");
        assert!(!recorded.turns[0].answer.is_empty(), "{provider:?}");
        let request = meta.turns[0]
            .request
            .as_ref()
            .expect("the request is saved");
        assert_eq!(request["method"], "POST");
    }
    // `sessions --json` lists every provider's, as the app's own (an Anthropic turn the server
    // paused and its continuation are one turn).
    let listed = support::cli(proxy.dir.path())
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    let lines = String::from_utf8(listed.stdout).unwrap();
    assert_eq!(lines.lines().count(), Provider::ALL.len(), "{lines}");
    assert!(lines.lines().all(|l| l.contains("\"status\":\"complete\"")));
    proxy.assert_key_nowhere();
}

/// The follow-up the app would send after the saved session's last turn.
fn follow_up(provider: Provider, meta: &SessionMeta, saved: &SessionStore) -> Ask {
    let (history, transcripts) = if provider.spec().follow_up.sends_history() {
        let session = saved.load(&meta.id).unwrap();
        session
            .replay_turns()
            .into_iter()
            .map(|(turn, s)| ((turn.question, s.answer.as_str().to_owned()), s.transcript))
            .unzip()
    } else {
        (Vec::new(), Vec::new())
    };
    Ask {
        chat_id: meta.chat_id.clone(),
        checkpoint_id: meta.last_checkpoint_id().map(str::to_owned),
        history,
        transcripts,
        ..Ask::new("And what does that mean for next year?")
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_follow_up_through_the_proxy_lands_in_the_same_saved_session() {
    let demo = demo_agent().await;
    let proxy = ProxyProcess::start(demo, |_| {});
    for (n, provider) in Provider::ALL.into_iter().enumerate() {
        let base = proxy.url(provider, "");
        let first = Ask::new(live::demo_question(provider));
        assert_eq!(post_turn(&base, provider, demo, &first).await.status, 200);
        let sessions = proxy.complete_sessions(2 * n + 1);
        let meta = sessions
            .iter()
            .find(|m| m.provider == provider.as_str())
            .unwrap();
        let next = follow_up(provider, meta, &proxy.store());
        let answered = post(&base, provider, demo, &next, &[]).await;
        assert_eq!(answered.status, 200, "{provider:?}");
        let sessions = proxy.complete_sessions(2 * n + 2);
        assert_eq!(sessions.len(), n + 1, "{provider:?}: no new session");
        let meta = sessions
            .iter()
            .find(|m| m.provider == provider.as_str())
            .unwrap();
        let statuses: Vec<_> = meta.turns.iter().map(|t| t.status.as_str()).collect();
        assert_eq!(statuses, ["complete", "complete"], "{provider:?}");
        assert_eq!(meta.turns[1].question, next.question);
    }
    proxy.assert_key_nowhere();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_error_passes_through_unchanged_and_is_saved_as_a_failed_turn() {
    let demo = demo_agent().await;
    let proxy = ProxyProcess::start(demo, |_| {});
    let provider = Provider::Bigdata;
    let ask = Ask::new(live::demo_question(provider));
    let fault = [("x-demo-fault", "status=429")];
    let direct = post(&format!("http://{demo}"), provider, demo, &ask, &fault).await;
    let proxied = post(&proxy.url(provider, ""), provider, demo, &ask, &fault).await;
    assert_eq!(proxied.status, 429);
    assert_eq!(proxied.body, direct.body);
    assert_eq!(
        proxied.headers.get("retry-after"),
        direct.headers.get("retry-after")
    );
    let sessions = proxy.settled_sessions(1);
    let turn = &sessions[0].turns[0];
    assert_eq!(turn.status.as_str(), "http_error");
    assert!(
        turn.reason
            .as_deref()
            .unwrap_or_default()
            .starts_with("HTTP 429"),
        "{turn:?}"
    );

    // A body the agent refuses (422) is passed back as it came, and saved as a failed turn too.
    let refused = http()
        .post(proxy.url(provider, "/v1/research-agent"))
        .header("x-api-key", KEY)
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 422);
    assert!(refused.text().await.unwrap().contains("Field required"));
    let sessions = proxy.settled_sessions(2);
    let unreadable = sessions
        .iter()
        .flat_map(|s| &s.turns)
        .find(|t| t.question.is_empty())
        .expect("the refused request is saved");
    assert_eq!(unreadable.status.as_str(), "http_error");
    proxy.assert_key_nowhere();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_store_that_cannot_be_written_leaves_the_proxied_stream_whole_and_says_so() {
    let demo = demo_agent().await;
    // The sessions folder is a file: nothing can be saved (a read-only store, as root sees one).
    let proxy = ProxyProcess::start(demo, |dir| {
        std::fs::create_dir_all(dir.join("data/research-tui")).unwrap();
        std::fs::write(dir.join("data/research-tui/sessions"), b"not a folder").unwrap();
    });
    let provider = Provider::Xai;
    let ask = Ask::new(live::demo_question(provider));
    let direct = post(&format!("http://{demo}"), provider, demo, &ask, &[]).await;
    let proxied = post(&proxy.url(provider, ""), provider, demo, &ask, &[]).await;
    assert_eq!(proxied.status, 200);
    assert_eq!(
        without_fresh_ids(&proxied.body),
        without_fresh_ids(&direct.body)
    );
    proxy.wait_for_output("not recording this xai request");
    proxy.assert_key_nowhere();
}

/// A hostile upstream: `/v1/responses` redirects to `/steal` (counting visits there), and
/// `/chat/completions` sends one event, then holds the stream open until told to finish.
async fn hostile_upstream(
    visits: Arc<Mutex<u32>>,
    release: tokio::sync::watch::Receiver<bool>,
) -> SocketAddr {
    use axum::routing::{any, post as on_post};
    let app = axum::Router::new()
        .route(
            "/v1/responses",
            on_post(|| async {
                (
                    StatusCode::TEMPORARY_REDIRECT,
                    [("location", "/steal")],
                    "moved",
                )
            }),
        )
        .route(
            "/steal",
            any(move || async move {
                *visits.lock().unwrap() += 1;
                "stolen"
            }),
        )
        .route(
            "/chat/completions",
            on_post(move || {
                let mut release = release.clone();
                async move {
                    let first = futures::stream::once(async {
                        Ok::<_, std::io::Error>(Bytes::from_static(b"data: {\"id\":\"x\"}\n\n"))
                    });
                    let rest = futures::stream::once(async move {
                        let _ = release.wait_for(|done| *done).await;
                        Ok(Bytes::from_static(b"data: [DONE]\n\n"))
                    });
                    let body = Body::from_stream(futures::StreamExt::chain(first, rest));
                    ([("content-type", "text/event-stream")], body)
                }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// A question to the hostile upstream's held Perplexity stream, through the proxy.
async fn ask_the_held_stream(proxy: &ProxyProcess) -> reqwest::Response {
    let body = r#"{"model":"sonar-pro","stream":true,"messages":[{"role":"user","content":"Q"}]}"#;
    http()
        .post(proxy.url(Provider::Perplexity, "/chat/completions"))
        .header("authorization", format!("Bearer {KEY}"))
        .body(body)
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chunk_reaches_the_client_before_the_upstream_finishes_and_redirects_are_not_followed() {
    let visits = Arc::new(Mutex::new(0));
    let (release, held) = tokio::sync::watch::channel(false);
    let upstream = hostile_upstream(visits.clone(), held).await;
    let proxy = ProxyProcess::start(upstream, |_| {});

    let mut response = ask_the_held_stream(&proxy).await;
    let first = tokio::time::timeout(Duration::from_secs(5), response.chunk())
        .await
        .expect("the first chunk arrives while the upstream still holds the stream")
        .unwrap()
        .unwrap();
    assert_eq!(&first[..], b"data: {\"id\":\"x\"}\n\n");
    release.send(true).unwrap();
    let rest = response.bytes().await.unwrap();
    assert_eq!(&rest[..], b"data: [DONE]\n\n");

    let redirected = http()
        .post(proxy.url(Provider::OpenAI, "/v1/responses"))
        .header("authorization", format!("Bearer {KEY}"))
        .body(r#"{"model":"o3","input":"Q","stream":true}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(redirected.status(), 307);
    assert_eq!(redirected.headers()["location"], "/steal");
    assert_eq!(*visits.lock().unwrap(), 0, "the redirect was not followed");
    let sessions = proxy.settled_sessions(1);
    assert!(
        sessions.iter().all(|s| s.provider == "perplexity"),
        "{sessions:#?}"
    );
    proxy.assert_key_nowhere();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_path_no_provider_starts_is_a_404_that_names_the_prefixes() {
    let demo = demo_agent().await;
    let proxy = ProxyProcess::start(demo, |_| {});
    for path in [
        "/evil.example.com/v1/responses",
        "/",
        "/OpenAI/v1/responses",
    ] {
        let response = http()
            .get(format!("http://{}{path}", proxy.addr))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 404, "{path}");
        let text = response.text().await.unwrap();
        assert!(
            text.starts_with("research-tui proxy: no provider at"),
            "{text}"
        );
        assert!(
            text.contains("/bigdata, /xai, /zeta, /openai, /perplexity"),
            "{text}"
        );
    }
    // A request that is not research (a run's status) passes through and is not saved.
    let response = http()
        .get(proxy.url(Provider::OpenAI, "/v1/responses/resp-unknown"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    // A research question sent after it is the barrier: once that one is saved, the status
    // request (answered before the question was sent) would have been saved too.
    let body = r#"{"model":"sonar-pro","stream":true,"messages":[{"role":"user","content":"Q"}]}"#;
    let research = http()
        .post(proxy.url(Provider::Perplexity, "/chat/completions"))
        .header("authorization", format!("Bearer {KEY}"))
        .body(body)
        .send()
        .await
        .unwrap();
    research.bytes().await.unwrap();
    let sessions = proxy.settled_sessions(1);
    assert_eq!(
        sessions
            .iter()
            .map(|s| s.provider.as_str())
            .collect::<Vec<_>>(),
        ["perplexity"],
        "only the research question is saved: {sessions:#?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_leaves_mid_stream_leaves_a_turn_saved_as_cut_with_the_reason() {
    let (_release, held) = tokio::sync::watch::channel(false);
    let upstream = hostile_upstream(Arc::default(), held).await;
    let proxy = ProxyProcess::start(upstream, |_| {});
    let mut response = ask_the_held_stream(&proxy).await;
    assert!(response.chunk().await.unwrap().is_some());
    drop(response);
    let sessions = proxy.settled_sessions(1);
    let turn = &sessions[0].turns[0];
    assert_eq!(turn.status.as_str(), "cut", "{turn:?}");
    let reason = turn.reason.as_deref().unwrap_or_default();
    assert!(
        reason.contains("the client closed the connection before the stream ended"),
        "{turn:?}"
    );
    proxy.wait_for_output("saved perplexity turn 1");
    let saved = proxy.store().load(&sessions[0].id).unwrap();
    let raw = std::fs::read(saved.dir().join(&turn.stream_file)).unwrap();
    assert_eq!(
        raw, b"data: {\"id\":\"x\"}\n\n",
        "what reached the client is saved"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_the_upstream_cuts_is_cut_for_the_client_too_and_saved_as_cut() {
    let demo = demo_agent().await;
    let proxy = ProxyProcess::start(demo, |_| {});
    let provider = Provider::Zeta;
    let ask = Ask::new(live::demo_question(provider));
    let cut = [("x-demo-fault", "cut")];
    let response = send(&proxy.url(provider, ""), provider, demo, &ask, &cut).await;
    assert_eq!(response.status(), 200);
    assert!(
        response.bytes().await.is_err(),
        "the client sees the stream break, not a clean end"
    );
    let sessions = proxy.settled_sessions(1);
    let turn = &sessions[0].turns[0];
    assert_eq!(turn.status.as_str(), "cut", "{turn:?}");
    let reason = turn.reason.as_deref().unwrap_or_default();
    assert!(
        reason.starts_with("connection cut before completion"),
        "{turn:?}"
    );
    proxy.assert_key_nowhere();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_gemini_model_named_in_the_path_and_a_key_in_the_query_are_kept_and_masked() {
    let demo = demo_agent().await;
    let proxy = ProxyProcess::start(demo, |_| {});
    let ask = Ask::new("Is perovskite–silicon tandem solar in mass production yet?");
    let config = LiveConfig {
        model: Some("gemini-2.5-flash".into()),
        ..LiveConfig::demo(Provider::Gemini, demo)
    };
    let request = live::request(&config, &ask);
    let url = format!(
        "{}{}&key={KEY}",
        proxy.url(Provider::Gemini, ""),
        request.path
    );
    let response = http()
        .post(url)
        .header("content-type", "application/json")
        .body(request.body_bytes())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body = response.bytes().await.unwrap();
    assert!(String::from_utf8_lossy(&body).contains("groundingMetadata"));

    let sessions = proxy.settled_sessions(1);
    let meta = &sessions[0];
    assert_eq!(meta.status(), "complete", "{meta:#?}");
    assert_eq!(meta.options.model.as_deref(), Some("gemini-2.5-flash"));
    let saved = meta.turns[0].request.as_ref().unwrap();
    assert_eq!(
        saved["path"],
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    proxy.assert_key_nowhere();
}
