//! The API key stays home: `ask` against hostile servers on 127.0.0.x that redirect to another host,
//! cut an error body inside the key, or echo the key back in the stream. The key must never reach
//! another origin and never appear in stdout, stderr, the log or any saved file.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Arc, Mutex};

use research_tui::wire::provider::Provider;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support;
use tokio::net::TcpListener;

const KEY: &str = "sk-test-SECRET-4242-abcdefgh";

/// What a hostile server received: each request's head and body, as text.
type Seen = Arc<Mutex<Vec<String>>>;

/// Serves every connection on `ip` with `response` (a whole HTTP response) and keeps what it was sent.
async fn hostile(ip: &str, response: String) -> (String, Seen) {
    let listener = TcpListener::bind((ip, 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen: Seen = Arc::default();
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let log = log.clone();
            let response = response.clone();
            tokio::spawn(async move {
                let request = read_request(&mut socket).await;
                log.lock().unwrap().push(request);
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    (format!("http://{addr}"), seen)
}

/// One request: the head, then as many body bytes as `content-length` says.
async fn read_request(socket: &mut tokio::net::TcpStream) -> String {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = socket.read(&mut buf).await {
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if let Some(head_end) = text.find("\r\n\r\n") {
            let length = text[..head_end]
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if bytes.len() >= head_end + 4 + length {
                break;
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn http(status: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut out = format!("HTTP/1.1 {status}\r\ncontent-length: {}\r\n", body.len());
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("connection: close\r\n\r\n");
    out.push_str(body);
    out
}

struct Run {
    output: Output,
    dir: tempfile::TempDir,
}

/// `research-tui ask` as a user runs it, with `provider`'s key in its environment variable.
fn ask(provider: &str, base_url: &str, extra: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let key_var = Provider::ALL
        .into_iter()
        .find(|p| p.as_str() == provider)
        .expect("a provider of the table")
        .spec()
        .api_key_env;
    let output = support::cli(dir.path())
        .args(["ask", "What changed?", "--provider", provider])
        .args(["--base-url", base_url, "--idle-timeout", "5"])
        .args(extra)
        .env(key_var, KEY)
        .output()
        .unwrap();
    Run { output, dir }
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// No part of the key of 8 or more characters in `text`.
fn assert_no_key_in(what: &str, text: &str) {
    for start in 0..KEY.len() - 8 {
        let piece = &KEY[start..start + 8];
        assert!(!text.contains(piece), "{what} holds {piece:?}:\n{text}");
    }
}

impl Run {
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// The key is nowhere a person or a script can read it: stdout, stderr, every file written
    /// (the raw turn files keep the bytes as received, so they are checked by the caller).
    fn assert_no_key_outside_raw_turns(&self) {
        assert_no_key_in("stdout", &String::from_utf8_lossy(&self.output.stdout));
        assert_no_key_in("stderr", &self.stderr());
        for path in files(self.dir.path()) {
            if path.extension().is_some_and(|e| e == "sse") {
                continue;
            }
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            assert_no_key_in(&path.display().to_string(), &text);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_host_never_carries_the_key_for_any_provider() {
    for provider in ["bigdata", "xai", "zeta", "openai", "perplexity"] {
        let answer = "data: {\"chat_id\":\"c\",\"message\":{\"type\":\"COMPLETE\"}}\n\n";
        let ok = http("200 OK", &[("content-type", "text/event-stream")], answer);
        let (elsewhere, seen_elsewhere) = hostile("127.0.0.2", ok).await;
        let target = format!("{elsewhere}/x");
        let redirect = http("307 Temporary Redirect", &[("location", &target)], "");
        let (home, seen_home) = hostile("127.0.0.1", redirect).await;

        let run = tokio::task::block_in_place(|| ask(provider, &home, &[]));

        assert_eq!(seen_home.lock().unwrap().len(), 1, "{provider}");
        assert!(seen_home.lock().unwrap()[0].contains(KEY), "{provider}");
        for request in seen_elsewhere.lock().unwrap().iter() {
            assert!(
                !request.contains(KEY),
                "{provider}: the key went to {target}"
            );
        }
        assert_eq!(
            run.output.status.code(),
            Some(3),
            "{provider}: {}",
            run.stderr()
        );
        let err = run.stderr();
        assert!(
            err.contains("redirect") && err.contains(&target),
            "{provider}: the error names the redirect and its target: {err}"
        );
        run.assert_no_key_outside_raw_turns();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_body_cut_inside_the_key_shows_no_part_of_it() {
    // The key starts at character 290 of the body: a 300-character cut ends inside it.
    let body = format!("{{\"detail\": \"{}{KEY} is not valid\"}}", "x".repeat(278));
    let (home, _) = hostile("127.0.0.1", http("400 Bad Request", &[], &body)).await;
    let run = tokio::task::block_in_place(|| ask("bigdata", &home, &[]));
    assert_eq!(run.output.status.code(), Some(3), "{}", run.stderr());
    assert!(run.stderr().contains("HTTP 400"), "{}", run.stderr());
    run.assert_no_key_outside_raw_turns();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_that_echoes_the_key_shows_it_nowhere() {
    let events = format!(
        "data: {{\"chat_id\":\"c\",\"message\":{{\"type\":\"ANSWER\",\"content\":\"Your key {KEY} works.\"}}}}\n\n\
         data: {{\"chat_id\":\"c\",\"message\":{{\"type\":\"ERROR\",\"content\":\"tool failed for key {KEY}\"}}}}\n\n"
    );
    let stream = http("200 OK", &[("content-type", "text/event-stream")], &events);
    let (home, _) = hostile("127.0.0.1", stream).await;
    for format in ["text", "markdown", "json"] {
        let run = tokio::task::block_in_place(|| ask("bigdata", &home, &["--format", format]));
        assert_eq!(
            run.output.status.code(),
            Some(4),
            "{format}: {}",
            run.stderr()
        );
        let out = String::from_utf8_lossy(&run.output.stdout).into_owned();
        assert!(
            out.contains("works"),
            "{format}: the rest of the text stays: {out}"
        );
        run.assert_no_key_outside_raw_turns();
    }
}
