//! Timing research requests for the proxy benchmarks (`proxy`, `proxy_flood`): one provider's
//! research request, as the app sends it, timed to its first byte and to its end, and the medians
//! the tables print.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Instant;

use research_tui::agent::live::{self, LiveConfig};
use research_tui::wire::provider::{Ask, Provider};

/// How one request went: seconds to the first body byte and to the end, and the body's length.
#[derive(Debug, Clone, Copy)]
pub struct Timed {
    pub first_byte: f64,
    pub total: f64,
    pub bytes: usize,
}

/// `provider`'s research request for `question` (built as for the demo agent at `demo`), to
/// `base` followed by the provider's own path, with a key in the provider's header.
pub fn research_request(
    client: &reqwest::Client,
    base: &str,
    provider: Provider,
    demo: SocketAddr,
    question: &str,
) -> reqwest::Request {
    let request = live::request(&LiveConfig::demo(provider, demo), &Ask::new(question));
    let auth = provider.spec().auth;
    client
        .post(format!("{base}{}", request.path))
        .header(auth.name(), auth.value("sk-bench-key"))
        .header("content-type", "application/json")
        .body(request.body_bytes())
        .build()
        .expect("a request")
}

/// Send `request` and read its whole body, timed from the send.
pub async fn timed(client: &reqwest::Client, request: reqwest::Request) -> Timed {
    let start = Instant::now();
    let mut response = client
        .execute(request)
        .await
        .expect("the request is answered");
    assert!(response.status().is_success(), "{}", response.status());
    let (mut first_byte, mut bytes) = (None, 0);
    while let Some(chunk) = response.chunk().await.expect("the stream is whole") {
        first_byte.get_or_insert_with(|| start.elapsed().as_secs_f64());
        bytes += chunk.len();
    }
    Timed {
        first_byte: first_byte.unwrap_or(0.0),
        total: start.elapsed().as_secs_f64(),
        bytes,
    }
}

/// The median of `values` (the upper one of an even count); 0 for none.
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// The `p` quantile of `values` (0 ≤ p ≤ 1), the nearest rank; 0 for none.
pub fn percentile(mut values: Vec<f64>, p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let at = ((values.len() as f64 - 1.0) * p).round() as usize;
    values.get(at).copied().unwrap_or(0.0)
}
