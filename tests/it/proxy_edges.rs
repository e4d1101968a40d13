//! The proxy's edges, through the real binary and real servers on 127.0.0.1: a one-character key
//! leaves the recording byte-equal to what the client got; every credential a request carried is
//! masked in what is saved; a key in the query and a password in `--upstream` are never printed
//! or saved; a rebinding `Host` and a web page's `Origin` get 403 and no session; a body that
//! trickles in is closed.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::{HeaderMap, Uri};
use research_tui::agent::live::{self, LiveConfig};
use research_tui::wire::provider::Ask;
use research_tui::wire::provider::Provider;

use crate::proxy::{KEY, ProxyProcess, demo_agent, http};

/// A research request for `provider` through `proxy`, with the key `auth` in its header.
async fn ask_with_key(
    proxy: &ProxyProcess,
    provider: Provider,
    demo: SocketAddr,
    auth: &str,
) -> (u16, Vec<u8>) {
    let ask = Ask::new(live::demo_question(provider));
    let request = live::request(&LiveConfig::demo(provider, demo), &ask);
    let spec = provider.spec().auth;
    let response = http()
        .post(proxy.url(provider, &request.path))
        .header(spec.name(), spec.value(auth))
        .header("content-type", "application/json")
        .body(request.body_bytes())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.bytes().await.unwrap().to_vec())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_one_character_key_keeps_the_recording_byte_equal_to_what_the_client_got() {
    let demo = demo_agent().await;
    let proxy = ProxyProcess::start(demo, |_| {});
    for (n, (provider, key)) in [(Provider::OpenAI, "a"), (Provider::Bigdata, "data")]
        .into_iter()
        .enumerate()
    {
        let (status, body) = ask_with_key(&proxy, provider, demo, key).await;
        assert_eq!(status, 200);
        let sessions = proxy.settled_sessions(n + 1);
        let meta = sessions
            .iter()
            .find(|m| m.provider == provider.as_str())
            .unwrap();
        let saved = proxy.store().load(&meta.id).unwrap();
        let raw = std::fs::read(saved.dir().join(&meta.turns[0].stream_file)).unwrap();
        assert!(
            raw == body,
            "{provider:?} with the key {key:?}: the turn file differs"
        );
        assert_eq!(meta.status(), "complete", "{meta:#?}");
    }
}

/// An OpenAI-shaped upstream that echoes every header and the query it got in its answer.
async fn echoing_upstream() -> SocketAddr {
    use axum::routing::post;
    let app = axum::Router::new().route(
        "/v1/responses",
        post(|uri: Uri, headers: HeaderMap| async move {
            let mut echo = format!("query {} ", uri.query().unwrap_or_default());
            for (name, value) in &headers {
                echo.push_str(&format!("{name}: {} ", String::from_utf8_lossy(value.as_bytes())));
            }
            let delta = serde_json::json!({"type": "response.output_text.delta", "delta": echo});
            let done = serde_json::json!({"type": "response.completed", "response": {"status": "completed"}});
            let body = format!("data: {delta}\n\ndata: {done}\n\n");
            ([("content-type", "text/event-stream")], Bytes::from(body))
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

#[tokio::test(flavor = "multi_thread")]
async fn every_credential_the_request_carried_is_masked_in_the_saved_turn() {
    let upstream = echoing_upstream().await;
    let proxy = ProxyProcess::start(upstream, |_| {});
    let body = r#"{"model":"o3","input":"Q","stream":true}"#;
    let response = http()
        .post(proxy.url(
            Provider::OpenAI,
            "/v1/responses?api_key=QUERY-SECRET-1&key=QUERY-SECRET-2",
        ))
        .header("authorization", format!("Bearer {KEY}"))
        .header("x-api-key", "HEADER-SECRET-3")
        .header("X-Auth", "HEADER-SECRET-4")
        .body(body)
        .send()
        .await
        .unwrap();
    let got = response.text().await.unwrap();
    assert!(
        got.contains("HEADER-SECRET-3"),
        "the client gets the upstream's bytes: {got}"
    );
    proxy.settled_sessions(1);
    for file in proxy.files() {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap_or_default()).into_owned();
        assert!(
            !text.contains("SECRET"),
            "a credential is in {}:\n{text}",
            file.display()
        );
        assert!(!text.contains(KEY), "the key is in {}", file.display());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_key_in_the_query_or_a_password_in_the_upstream_is_never_printed_or_saved() {
    // Nothing listens on this port: every request is a 502.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let proxy = ProxyProcess::start_with(
        closed,
        |_| {},
        &[
            "--upstream",
            &format!("openai=http://me:UPSTREAM-PASSWORD@{closed}"),
        ],
    );
    let response = http()
        .post(proxy.url(Provider::OpenAI, "/v1/responses?api_key=QUERY-SECRET"))
        .body(r#"{"model":"o3","input":"Q","stream":true}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 502);
    let body = response.text().await.unwrap();
    assert!(body.contains("cannot reach OpenAI"), "{body}");
    proxy.wait_for_output("cannot reach OpenAI");
    let printed = proxy.output();
    for secret in ["QUERY-SECRET", "UPSTREAM-PASSWORD"] {
        assert!(!body.contains(secret), "{body}");
        assert!(!printed.contains(secret), "{printed}");
    }
    for file in proxy.files() {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap_or_default()).into_owned();
        assert!(
            !text.contains("SECRET") && !text.contains("PASSWORD"),
            "{}",
            file.display()
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rebinding_host_or_a_web_pages_origin_gets_403_and_no_session() {
    let demo = demo_agent().await;
    let proxy =
        ProxyProcess::start_with(demo, |_| {}, &["--allow-origin", "http://localhost:3000"]);
    let ask = Ask::new(live::demo_question(Provider::OpenAI));
    let request = live::request(&LiveConfig::demo(Provider::OpenAI, demo), &ask);
    let url = proxy.url(Provider::OpenAI, &request.path);
    let hostile: [(&str, &str, &str); 3] = [
        ("host", "attacker.example", "DNS rebinding"),
        (
            "origin",
            "https://attacker.example",
            "requests from web pages are refused",
        ),
        ("origin", "null", "requests from web pages are refused"),
    ];
    for (name, value, says) in hostile {
        let response = http()
            .post(&url)
            .header(name, value)
            .header("authorization", format!("Bearer {KEY}"))
            .header("content-type", "text/plain")
            .body(request.body_bytes())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{name}: {value}");
        let text = response.text().await.unwrap();
        assert!(text.contains(says), "{text}");
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(proxy.store().list().is_empty(), "no session is saved");
    // An allowed origin, and plain `localhost`, are served.
    let allowed = http()
        .post(&url)
        .header("origin", "http://localhost:3000")
        .header("authorization", format!("Bearer {KEY}"))
        .body(request.body_bytes())
        .send()
        .await
        .unwrap();
    assert_eq!(allowed.status(), 200);
    let local = url.replace("127.0.0.1", "localhost");
    let served = http()
        .post(&local)
        .header("authorization", format!("Bearer {KEY}"))
        .body(request.body_bytes())
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
}

#[test]
fn a_request_body_trickling_in_at_one_byte_a_second_is_closed_within_ten_seconds() {
    let proxy = ProxyProcess::start("127.0.0.1:9".parse().unwrap(), |_| {});
    let mut socket = TcpStream::connect(proxy.addr).unwrap();
    socket
        .write_all(b"POST /openai/v1/responses HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 1000\r\n\r\n")
        .unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let start = Instant::now();
    let mut answer = Vec::new();
    while start.elapsed() < Duration::from_secs(20) {
        if socket.write_all(b"x").is_err() {
            break;
        }
        let mut buf = [0u8; 4096];
        match socket.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
        if !answer.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(950));
    }
    let took = start.elapsed();
    assert!(
        took < Duration::from_secs(13),
        "the trickling body was held {took:?}"
    );
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

/// A Bigdata.com answer of `chunks` events of 1 KB each.
fn long_answer(chunks: usize) -> String {
    let piece = "word ".repeat(200);
    let mut out = String::new();
    for _ in 0..chunks {
        let event =
            serde_json::json!({"chat_id": "c", "message": {"type": "ANSWER", "content": piece}});
        out.push_str(&format!("data: {event}\n\n"));
    }
    out + "data: {\"chat_id\":\"c\",\"message\":{\"type\":\"COMPLETE\"}}\n\n"
}

#[tokio::test(flavor = "multi_thread")]
async fn proxy_and_render_honour_max_answer_mib() {
    use axum::routing::post;
    let stream = long_answer(3000);
    let sent = stream.clone();
    let app = axum::Router::new().route(
        "/v1/research-agent",
        post(move || {
            let body = sent.clone();
            async move { ([("content-type", "text/event-stream")], body) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let proxy = ProxyProcess::start_with(upstream, |_| {}, &["--max-answer-mib", "1"]);
    let got = http()
        .post(proxy.url(Provider::Bigdata, "/v1/research-agent"))
        .header("x-api-key", KEY)
        .body(r#"{"message":"Q","research_effort":"lite"}"#)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(got.len(), stream.len(), "the client gets the whole answer");
    let sessions = proxy.settled_sessions(1);
    let turn = &sessions[0].turns[0];
    assert!(
        turn.reason
            .as_deref()
            .unwrap_or_default()
            .contains("the limit set by --max-answer-mib"),
        "{turn:?}"
    );
    let saved = proxy.store().load(&sessions[0].id).unwrap();
    let file = std::fs::metadata(saved.dir().join(&turn.stream_file))
        .unwrap()
        .len();
    // The answer's first MiB, its envelopes and the chunk that passed it: not the 3 MB sent.
    assert!(
        file < 2 << 20,
        "the turn file holds {file} of {} bytes",
        stream.len()
    );

    let recording = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(recording.path(), &stream).unwrap();
    let output = crate::support::cli(crate::support::scratch())
        .args(["render", "--max-answer-mib", "1"])
        .arg(recording.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the answer passed 1 MiB, the limit set by --max-answer-mib"),
        "{stderr}"
    );
    let printed = output.stdout.len();
    assert!(
        (1 << 20) < printed && printed < (1 << 20) + 300_000,
        "{printed} bytes"
    );
}
