//! What a failed response says, as one human line: the status's meaning, the server's `detail`
//! (sanitised, cut to length after the key is redacted), a refused redirect's target, an error's
//! causes.

use super::*;

/// Read at most [`ERROR_BODY_LIMIT`] bytes of an error response, giving up after `idle` of silence.
pub(super) async fn read_error_body(response: &mut reqwest::Response, idle: Duration) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < ERROR_BODY_LIMIT {
        match tokio::time::timeout(idle, response.chunk()).await {
            Ok(Ok(Some(chunk))) => body.extend_from_slice(&chunk),
            _ => break,
        }
    }
    body.truncate(ERROR_BODY_LIMIT);
    body
}

/// A redirect, refused: where it pointed, and why it is not followed.
pub(super) fn redirect_message(response: &reqwest::Response, url: &str) -> String {
    let target = response
        .headers()
        .get(reqwest::header::LOCATION)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .unwrap_or_default();
    let target = reqwest::Url::parse(url)
        .and_then(|base| base.join(target.trim()))
        .map_or(target, String::from);
    format!(
        "the server redirected to {}; API calls never follow a redirect, so the key is not sent elsewhere",
        sanitize_line(&target)
    )
}

/// One human sentence for an error status, with the server's `detail` when it gave one.
pub(super) fn http_message(endpoint: &Endpoint, status: u16, body: &[u8]) -> String {
    let lead = match status {
        400 => "the request was rejected",
        401 => "the API key was rejected",
        403 => "not entitled to this model, template or feature",
        404 => endpoint.not_found,
        409 => "persistence mode mismatch",
        422 => "the request failed validation",
        429 => "rate limited",
        500..=599 => "the server failed",
        _ => "unexpected response",
    };
    match detail(body) {
        Some(detail) if !detail.is_empty() && !lead.eq_ignore_ascii_case(&detail) => {
            format!("{lead}: {detail}")
        }
        _ => lead.to_owned(),
    }
}

/// What the error body says ([`ErrorBody::summary`]), on one sanitised line of at most 300
/// characters.
pub(super) fn detail(body: &[u8]) -> Option<String> {
    const MAX_CHARS: usize = 300;
    let text = ErrorBody::summary(body)?;
    let text = sanitize_line(text.trim()).into_owned();
    Some(if text.chars().count() > MAX_CHARS {
        text.chars().take(MAX_CHARS).chain(['…']).collect()
    } else {
        text
    })
}

/// An error and its causes, `outer: inner: …`, without repeats.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = vec![error.to_string()];
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}

/// Why a stream that was flowing stopped, in our words: a body the connection stopped delivering
/// (closed mid-chunk, reset) is the agent's stream cut, not hyper's "unexpected EOF during chunk
/// size line"; any other error, its chain.
pub(crate) fn cut_reason(error: &reqwest::Error) -> String {
    if error.is_body() || error.is_decode() {
        "the agent's stream stopped mid-transfer (the connection closed)".to_owned()
    } else {
        error_chain(error)
    }
}
