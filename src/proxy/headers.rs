//! What crosses the proxy and what is kept: hop-by-hop headers dropped both ways, the client's key
//! found (to be masked wherever it could be echoed) and left out of the request the session saves.

use axum::http::{HeaderMap, header};
use serde_json::{Map, Value, json};

use crate::wire::provider::spec::{AuthHeader, ProviderSpec};
use crate::wire::redact::Secret;

/// Headers about one connection, never forwarded (RFC 9110 §7.6.1), plus those the proxy sets
/// itself (`host`, and `content-length` for the request body it sends).
const HOP_BY_HOP: [&str; 9] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// `headers` without hop-by-hop ones (those named in `Connection` too).
pub fn end_to_end(headers: &HeaderMap) -> HeaderMap {
    let named: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|name| name.trim().to_ascii_lowercase())
        .collect();
    let mut kept = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        let name_str = name.as_str();
        if !HOP_BY_HOP.contains(&name_str) && !named.iter().any(|n| n == name_str) {
            kept.append(name.clone(), value.clone());
        }
    }
    kept
}

/// The request headers to send upstream: end to end ones, without `host` and `content-length`
/// (set for the upstream), and without `accept-encoding` for a recorded stream (so it arrives as
/// text the recorder can read: research streams are not compressed anyway).
pub fn upstream_request(headers: &HeaderMap, recorded: bool) -> HeaderMap {
    let mut kept = end_to_end(headers);
    kept.remove(header::HOST);
    kept.remove(header::CONTENT_LENGTH);
    if recorded {
        kept.remove(header::ACCEPT_ENCODING);
    }
    kept
}

/// The client's key, from the header its provider takes it in (`Bearer` stripped).
fn client_key_text(spec: &ProviderSpec, headers: &HeaderMap) -> String {
    let value = headers
        .get(spec.auth.name())
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .trim();
    let key = match spec.auth {
        AuthHeader::Bearer => value
            .get(..7)
            .filter(|scheme| scheme.eq_ignore_ascii_case("bearer "))
            .map_or(value, |_| value[7..].trim()),
        AuthHeader::XApiKey | AuthHeader::XAuth | AuthHeader::XGoogApiKey => value,
    };
    key.to_owned()
}

/// The shortest credential masked in what is saved: a shorter one (`Bearer a`) cannot be told
/// apart from ordinary text, and masking it would change the recording (every `a`); it is still
/// never saved as a header or query parameter.
pub const MIN_MASKED: usize = 8;

/// Every credential the request carried, to be masked wherever it could be echoed: the key in
/// its provider's header, and the value of every header and query parameter whose name says it
/// holds one (`x-api-key`, `X-Auth`, `api_key`, `key`, cookies…), each at least [`MIN_MASKED`]
/// long.
pub fn credentials(spec: &ProviderSpec, headers: &HeaderMap, query: Option<&str>) -> Secret {
    let mut values: Vec<String> = vec![client_key_text(spec, headers)];
    for (name, value) in headers {
        if !names_a_credential(name.as_str()) {
            continue;
        }
        let Ok(value) = value.to_str() else { continue };
        values.push(value.to_owned());
        // `Bearer x`, `Basic x`: the token alone; `a=x; b=y` (cookies): each value.
        values.extend(value.split_whitespace().last().map(str::to_owned));
        values.extend(
            value
                .split(';')
                .filter_map(|c| Some(c.split_once('=')?.1.to_owned())),
        );
    }
    for pair in query.unwrap_or_default().split('&') {
        let Some((name, value)) = pair.split_once('=') else {
            continue;
        };
        if names_a_credential(name) {
            values.push(value.to_owned());
            values.push(percent_decoded(value));
        }
    }
    values
        .iter()
        .map(|v| v.trim())
        .filter(|v| v.len() >= MIN_MASKED)
        .fold(Secret::default(), |secret, value| secret.and(value))
}

/// `%XX` escapes and `+` decoded (a query parameter as the upstream reads it).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A header, query parameter or field that may carry a credential, by its name.
fn names_a_credential(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "auth",
        "key",
        "token",
        "secret",
        "cookie",
        "password",
        "signature",
    ]
    .iter()
    .any(|word| name.contains(word))
}

/// The request as the session saves it: method, path and query, headers and body, with every
/// credential left out — headers and query parameters whose names say they carry one, any value
/// that holds the key, and the key wherever else it appears (masked).
pub fn saved_request(
    method: &str,
    path: &str,
    query: Option<&str>,
    headers: &HeaderMap,
    body: &[u8],
    key: &Secret,
) -> Value {
    let mut kept = Map::new();
    for (name, value) in &end_to_end(headers) {
        let Ok(value) = value.to_str() else { continue };
        if names_a_credential(name.as_str()) || key.redact(value) != value {
            continue;
        }
        let skip = [header::HOST, header::CONTENT_LENGTH];
        if !skip.contains(name) {
            kept.insert(name.to_string(), Value::from(value));
        }
    }
    let query: Vec<&str> = query
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty())
        .filter(|pair| !names_a_credential(pair.split('=').next().unwrap_or_default()))
        .filter(|pair| key.redact(pair) == *pair)
        .collect();
    let path = if query.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{}", query.join("&"))
    };
    let text = String::from_utf8_lossy(body);
    let text = key.redact(&text);
    let body = serde_json::from_str(&text).unwrap_or_else(|_| Value::from(text.into_owned()));
    json!({"method": method, "path": path, "headers": kept, "body": body})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::provider::Provider;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn connection_headers_and_those_it_names_stay_behind() {
        let kept = end_to_end(&headers(&[
            ("connection", "keep-alive, x-hop"),
            ("x-hop", "1"),
            ("te", "trailers"),
            ("accept", "text/event-stream"),
        ]));
        let names: Vec<_> = kept.keys().map(|k| k.as_str()).collect();
        assert_eq!(names, ["accept"]);
    }

    #[test]
    fn the_saved_request_keeps_no_credential() {
        let sent = headers(&[
            ("authorization", "Bearer sk-live-SECRET-123456"),
            ("x-custom-token", "t"),
            ("x-echo", "sk-live-SECRET-123456"),
            ("user-agent", "OpenAI/Python 1.0"),
        ]);
        let key = credentials(Provider::OpenAI.spec(), &sent, None);
        let saved = saved_request(
            "POST",
            "/v1/responses",
            Some("api_key=x&tenant=acme&k=sk-live-SECRET-123456"),
            &sent,
            br#"{"input":"sk-live-SECRET-123456 hi"}"#,
            &key,
        );
        let text = saved.to_string();
        assert!(!text.contains("SECRET"), "{text}");
        assert_eq!(saved["path"], "/v1/responses?tenant=acme");
        assert_eq!(saved["headers"], json!({"user-agent": "OpenAI/Python 1.0"}));
    }

    #[test]
    fn every_credential_of_eight_or_more_characters_is_masked_and_no_shorter_one() {
        let sent = headers(&[
            ("authorization", "Bearer a"),
            ("x-api-key", "xak-0123456789"),
            ("X-Auth", "xauth-0123456789"),
            ("cookie", "session=cookie-0123456789; theme=dark"),
        ]);
        let key = credentials(
            Provider::OpenAI.spec(),
            &sent,
            Some("api_key=qk-0123456789&key=k%2D0123456789&q=visible-text-long"),
        );
        let echoed = "a xak-0123456789 xauth-0123456789 cookie-0123456789 qk-0123456789 k-0123456789 visible-text-long dark";
        assert_eq!(
            key.redact(echoed),
            "a ************** **************** ***************** ************* ************ visible-text-long dark"
        );
    }

    #[test]
    fn a_gemini_key_is_found_in_its_header_or_in_the_query_and_never_saved() {
        let spec = Provider::Gemini.spec();
        let sent = headers(&[("x-goog-api-key", "AIzaHEADER-SECRET")]);
        let key = credentials(spec, &sent, None);
        assert!(!key.redact("AIzaHEADER-SECRET").contains("SECRET"));
        let none = headers(&[]);
        let key = credentials(spec, &none, Some("alt=sse&key=AIza%2BQUERY-SECRET"));
        let saved = saved_request(
            "POST",
            "/v1beta/models/m:streamGenerateContent",
            Some("alt=sse&key=AIza%2BQUERY-SECRET"),
            &none,
            br#"{"contents":[{"parts":[{"text":"AIza+QUERY-SECRET"}]}]}"#,
            &key,
        );
        let text = saved.to_string();
        assert!(!text.contains("SECRET"), "{text}");
        assert_eq!(
            saved["path"],
            "/v1beta/models/m:streamGenerateContent?alt=sse"
        );
    }
}
