//! The recorder reads answer chunks with the dialect's skim, not the full decode: what it saves
//! must not tell. Every Bigdata.com recording, served by a plain upstream in chunks of several
//! sizes (lines whole and cut), is recorded through the real proxy; each saved turn's summary is
//! the one the full decode of its file gives, and its meta (status, checkpoint, ids) is what the
//! full decode of the stream says.

use std::net::SocketAddr;
use std::path::PathBuf;

use axum::body::{Body, Bytes};
use axum::http::HeaderMap;
use research_tui::agent::live::{self, LiveConfig};
use research_tui::local::summary;
use research_tui::local::turn_status::TurnStatus;
use research_tui::model::session::Session;
use research_tui::model::stream_end::StreamEnd;
use research_tui::wire::provider::{Ask, EventPipeline, Provider};

use crate::proxy::{KEY, ProxyProcess};

/// Every Bigdata.com recording in the repository.
fn bigdata_recordings() -> Vec<PathBuf> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut files: Vec<PathBuf> = ["assets/recordings/bigdata", "tests/fixtures/real"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(format!("{root}/{dir}")).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            path.extension().is_some_and(|e| e == "sse")
                && (path.starts_with(format!("{root}/assets")) || name.starts_with("bigdata"))
        })
        .collect();
    files.sort();
    files
}

/// An upstream answering every POST with recording `x-recording` of `files`, in chunks of
/// `x-chunk` bytes.
async fn recordings_upstream(files: Vec<PathBuf>) -> SocketAddr {
    let app = axum::Router::new().fallback(move |headers: HeaderMap| {
        let files = files.clone();
        async move {
            let number = |name: &str| -> usize { headers[name].to_str().unwrap().parse().unwrap() };
            let bytes = std::fs::read(&files[number("x-recording")]).unwrap();
            let chunks: Vec<Result<Bytes, std::io::Error>> = bytes
                .chunks(number("x-chunk"))
                .map(|c| Ok(Bytes::copy_from_slice(c)))
                .collect();
            let body = Body::from_stream(futures::stream::iter(chunks));
            ([("content-type", "text/event-stream")], body)
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// The full decode of `bytes`, as `render` reads a file.
fn fully_decoded(bytes: &[u8]) -> Session {
    let mut pipeline = EventPipeline::new(Provider::Bigdata);
    let mut events = Vec::new();
    let _ = pipeline.feed(bytes, &mut events);
    let _ = pipeline.finish(&mut events);
    let mut session = Session::new();
    session.apply_all(events);
    session
}

#[tokio::test(flavor = "multi_thread")]
async fn every_bigdata_recording_is_saved_with_the_summary_and_meta_the_full_decode_gives() {
    let files = bigdata_recordings();
    assert!(files.len() >= 6, "{files:?}");
    let upstream = recordings_upstream(files.clone()).await;
    let proxy = ProxyProcess::start(upstream, |_| {});
    let chunk_sizes = [1 << 20, 4096, 61];
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let mut asked = Vec::new();
    for (n, file) in files.iter().enumerate() {
        for chunk in chunk_sizes {
            let question = format!("recording {n} in chunks of {chunk}");
            let request = live::request(
                &LiveConfig::demo(Provider::Bigdata, upstream),
                &Ask::new(&question),
            );
            let auth = Provider::Bigdata.spec().auth;
            let mut builder = client
                .post(proxy.url(Provider::Bigdata, request.path.as_str()))
                .header(auth.name(), auth.value(KEY))
                .header("content-type", "application/json")
                .header("x-recording", n.to_string())
                .header("x-chunk", chunk.to_string())
                .body(request.body_bytes());
            for (name, value) in &request.headers {
                builder = builder.header(*name, value);
            }
            let body = builder.send().await.unwrap().bytes().await.unwrap();
            assert_eq!(body[..], std::fs::read(file).unwrap()[..], "{question}");
            asked.push((question, file));
        }
    }
    let sessions = proxy.settled_sessions(asked.len());
    let store = proxy.store();
    for (question, file) in &asked {
        let meta = sessions
            .iter()
            .find(|m| m.first_question() == question)
            .unwrap_or_else(|| panic!("{question}: saved"));
        let saved = store.load(&meta.id).unwrap();
        let turn = &meta.turns[0];
        let raw = std::fs::read(saved.dir().join(&turn.stream_file)).unwrap();
        assert_eq!(raw, std::fs::read(file).unwrap(), "{question}");
        let full = fully_decoded(&raw);
        assert_eq!(
            turn.status,
            TurnStatus::of(&full, &StreamEnd::Closed),
            "{question}"
        );
        let checkpoint = full
            .completion
            .as_ref()
            .and_then(|c| c.checkpoint_id.clone());
        assert_eq!(turn.checkpoint_id, checkpoint, "{question}");
        assert_eq!(
            (&meta.chat_id, &meta.execution_id),
            (&full.ids.chat_id, &full.ids.execution_id),
            "{question}"
        );
        // The summary the recorder built from its skimming pass, and the one the file gives.
        let path = saved.dir().join(summary::SUMMARY);
        let recorded: summary::SessionSummary =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        let rebuilt = summary::load(saved.dir()).unwrap();
        assert_eq!(recorded, rebuilt, "{question}");
        assert!(!recorded.turns[0].answer.is_empty(), "{question}");
    }
}
