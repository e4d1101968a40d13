//! What the proxy refuses before anything is forwarded or saved:
//!
//! - a `Host` that is not loopback (or the `--bind` address): a web page that rebinds its own
//!   name to 127.0.0.1 sends its requests with its own name as `Host` (DNS rebinding);
//! - a request carrying an `Origin` header, unless that origin is allowed (`--allow-origin`): a
//!   browser adds it to every cross-origin request, even a "simple" `text/plain` POST that needs
//!   no preflight; programs calling an API send none;
//! - a request body that trickles in far slower than any real client sends (it would hold a
//!   connection and its memory for ever), and more request bodies in flight than
//!   [`MAX_BODIES_IN_FLIGHT`] bytes at once.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use futures::StreamExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::refusal;

/// The time every request body gets, whatever its size.
pub const BODY_GRACE: Duration = Duration::from_secs(10);
/// Past [`BODY_GRACE`], the slowest rate a body may arrive at (bytes per second): a real client
/// sends a research request (kilobytes) in milliseconds.
const MIN_BODY_RATE: u64 = 64 * 1024;
/// The most request-body bytes held at once, over every connection.
pub const MAX_BODIES_IN_FLIGHT: usize = 64 * 1024 * 1024;

/// A request's `Host` names this machine (a loopback name or address, or `bound`), or it is
/// absent (HTTP/1.0).
pub fn host_is_local(headers: &HeaderMap, bound: IpAddr) -> bool {
    let Some(host) = headers.get(header::HOST) else {
        return true;
    };
    let Ok(host) = host.to_str() else {
        return false;
    };
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, port)| {
            if port.bytes().all(|b| b.is_ascii_digit()) {
                name
            } else {
                host
            }
        }),
    };
    if name.eq_ignore_ascii_case("localhost") {
        return true;
    }
    name.parse::<IpAddr>()
        .is_ok_and(|ip| ip.is_loopback() || ip == bound)
}

/// The refusal for a request from another machine's name or from a web page, if it is one.
pub fn refused(headers: &HeaderMap, bound: IpAddr, allowed_origins: &[String]) -> Option<Response> {
    if !host_is_local(headers, bound) {
        let host = headers
            .get(header::HOST)
            .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
            .unwrap_or_default();
        let why = format!(
            "the Host {:?} is not this machine: only loopback names and addresses are served (a web page can point its own name at 127.0.0.1 — DNS rebinding)",
            crate::render::sanitize::sanitize_line(&host)
        );
        return Some(refusal(StatusCode::FORBIDDEN, &why));
    }
    let origin = headers.get(header::ORIGIN)?;
    let origin = String::from_utf8_lossy(origin.as_bytes());
    if allowed_origins.iter().any(|allowed| *allowed == *origin) {
        return None;
    }
    let why = format!(
        "requests from web pages are refused (this one came from {:?}): a page could spend your key and fill your sessions; allow an origin with --allow-origin",
        crate::render::sanitize::sanitize_line(&origin)
    );
    Some(refusal(StatusCode::FORBIDDEN, &why))
}

/// The bytes of request bodies in flight.
#[derive(Debug, Clone)]
pub struct BodyBudget(Arc<Semaphore>);

impl Default for BodyBudget {
    fn default() -> Self {
        BodyBudget(Arc::new(Semaphore::new(MAX_BODIES_IN_FLIGHT)))
    }
}

/// A request body read whole, holding its share of the budget until dropped.
pub struct ReadBody {
    pub bytes: Bytes,
    _held: Vec<OwnedSemaphorePermit>,
}

/// Read `body` (at most `limit` bytes) within [`BODY_GRACE`] plus its size at [`MIN_BODY_RATE`],
/// and within the budget of bodies in flight; the refusal otherwise.
pub async fn read_body(
    body: Body,
    limit: usize,
    budget: &BodyBudget,
) -> Result<ReadBody, Response> {
    let start = Instant::now();
    let mut stream = body.into_data_stream();
    let mut bytes = Vec::new();
    let mut held = Vec::new();
    loop {
        let allowed = BODY_GRACE + Duration::from_secs(bytes.len() as u64 / MIN_BODY_RATE);
        let next = match tokio::time::timeout_at(start + allowed, stream.next()).await {
            Ok(next) => next,
            Err(_) => {
                let why = format!(
                    "the request body took longer than {}s to arrive ({} bytes so far): closed",
                    allowed.as_secs(),
                    bytes.len()
                );
                return Err(refusal(StatusCode::REQUEST_TIMEOUT, &why));
            }
        };
        let chunk = match next {
            None => break,
            Some(Ok(chunk)) => chunk,
            Some(Err(e)) => {
                let why = format!("cannot read the request body: {e}");
                return Err(refusal(StatusCode::BAD_REQUEST, &why));
            }
        };
        if bytes.len() + chunk.len() > limit {
            let why = format!("the request body is larger than {} MiB", limit >> 20);
            return Err(refusal(StatusCode::PAYLOAD_TOO_LARGE, &why));
        }
        let permits = u32::try_from(chunk.len()).unwrap_or(u32::MAX);
        match Arc::clone(&budget.0).try_acquire_many_owned(permits) {
            Ok(permit) => held.push(permit),
            Err(_) => {
                let why = "too many request bodies are arriving at once: try again in a moment";
                return Err(refusal(StatusCode::SERVICE_UNAVAILABLE, why));
            }
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(ReadBody {
        bytes: Bytes::from(bytes),
        _held: held,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, value.parse().unwrap());
        headers
    }

    #[test]
    fn only_loopback_hosts_and_the_bound_address_are_this_machine() {
        let bound: IpAddr = "127.0.0.1".parse().unwrap();
        for local in [
            "127.0.0.1:8788",
            "localhost:8788",
            "LOCALHOST",
            "[::1]:8788",
            "127.0.0.2",
        ] {
            assert!(host_is_local(&host(local), bound), "{local}");
        }
        for remote in [
            "attacker.example",
            "attacker.example:8788",
            "192.168.1.5:8788",
            "localhost.attacker.example",
        ] {
            assert!(!host_is_local(&host(remote), bound), "{remote}");
        }
        let lan: IpAddr = "192.168.1.5".parse().unwrap();
        assert!(host_is_local(&host("192.168.1.5:8788"), lan));
        assert!(host_is_local(&HeaderMap::new(), bound));
    }
}
