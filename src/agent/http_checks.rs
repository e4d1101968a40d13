//! Checks on what the client sends to and reads from an agent's HTTP API: whether a base URL can be
//! one, whether a `200` carries an event stream this client can read, and which bytes of a stream are
//! data rather than keep-alives (for the idle timeout).

use reqwest::header::CONTENT_TYPE;

use crate::render::sanitize::sanitize_line;

/// Why `base_url` cannot be an agent's base URL, if it cannot: it must be an `http` or `https` URL
/// with a host, and no query or fragment (request paths are appended to it).
pub fn check_base_url(base_url: &str) -> Result<(), String> {
    let url = reqwest::Url::parse(base_url.trim()).map_err(|e| not_a_url(base_url.trim(), e))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("the scheme is {}, not http or https", url.scheme()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("it has no host".into());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("it has a query or fragment".into());
    }
    Ok(())
}

/// Why `text` is not a URL, in our words rather than the url crate's ("relative URL without a
/// base"): what is missing or wrong in it.
fn not_a_url(text: &str, error: url::ParseError) -> String {
    use url::ParseError as E;
    match error {
        E::RelativeUrlWithoutBase => {
            // A host and maybe a path (`agents.example.com/v1`): the scheme alone is missing.
            let host = text.split('/').next().unwrap_or_default();
            let guess = format!("https://{text}");
            let like_a_host = !text.contains("//")
                && (host.contains('.') || host.starts_with("localhost"))
                && reqwest::Url::parse(&guess).is_ok_and(|url| url.host_str().is_some());
            if like_a_host && !text.contains(char::is_whitespace) {
                format!("it has no scheme (did you mean {}?)", sanitize_line(&guess))
            } else {
                "it does not start with http:// or https://".into()
            }
        }
        E::EmptyHost => "it has no host".into(),
        E::InvalidPort => "its port is not a number from 0 to 65535".into(),
        E::InvalidIpv4Address | E::InvalidIpv6Address => "its IP address is not valid".into(),
        E::IdnaError | E::InvalidDomainCharacter => {
            "its host has characters no host name can have".into()
        }
        _ => "it is not a URL".into(),
    }
}

/// The usage error for a `--base-url` flag that [`check_base_url`] refuses.
pub fn check_base_url_flag(base_url: &str) -> Result<(), String> {
    check_base_url(base_url).map_err(|why| {
        format!(
            "--base-url takes an http(s) URL such as https://agents.bigdata.com, not {:?}: {why}",
            sanitize_line(base_url)
        )
    })
}

/// Tells a stream's data from its keep-alives: comment lines (`: ping`) and blank lines are not
/// progress, so a stream that sends nothing else stalls after the idle timeout like a silent one.
/// Follows line starts across chunks.
#[derive(Default)]
pub(crate) struct KeepAlive {
    line: LineKind,
}

#[derive(Default, Clone, Copy)]
enum LineKind {
    /// At the start of a line (nothing of it seen yet).
    #[default]
    Start,
    Comment,
    Field,
}

impl KeepAlive {
    /// Whether `chunk` holds any of a line that is not a comment.
    pub(crate) fn carries_data(&mut self, chunk: &[u8]) -> bool {
        let mut data = false;
        for &byte in chunk {
            self.line = match (self.line, byte) {
                (_, b'\n' | b'\r') => LineKind::Start,
                (LineKind::Start, b':') => LineKind::Comment,
                (LineKind::Comment, _) => LineKind::Comment,
                (LineKind::Start | LineKind::Field, _) => {
                    data = true;
                    LineKind::Field
                }
            };
        }
        data
    }
}

/// What a `200` carried instead of an event stream.
pub(crate) struct WrongBody {
    /// `text/html`, `a gzip-compressed body`, …
    pub(crate) described: String,
    /// Text worth quoting (not compressed or binary).
    pub(crate) readable: bool,
}

/// Why a `200` with these headers is not an event stream this client can read, if it is not: a
/// content type other than `text/event-stream` (a missing one is taken on trust), or a compressed
/// body (this client asks for none and decodes none).
pub(crate) fn not_an_event_stream(headers: &reqwest::header::HeaderMap) -> Option<WrongBody> {
    let header = |name| {
        headers.get(name).map(|v| {
            sanitize_line(&String::from_utf8_lossy(v.as_bytes()))
                .trim()
                .to_owned()
        })
    };
    if let Some(encoding) = header(reqwest::header::CONTENT_ENCODING)
        && !encoding.is_empty()
        && !encoding.eq_ignore_ascii_case("identity")
    {
        return Some(WrongBody {
            described: format!("a body compressed with {encoding} (Content-Encoding)"),
            readable: false,
        });
    }
    let content_type = header(CONTENT_TYPE)?;
    let media_type = content_type.split(';').next().unwrap_or("").trim();
    if media_type.eq_ignore_ascii_case("text/event-stream") {
        return None;
    }
    let lower = media_type.to_ascii_lowercase();
    Some(WrongBody {
        readable: lower.starts_with("text/")
            || ["json", "xml", "html"].iter().any(|t| lower.contains(t)),
        described: if media_type.is_empty() {
            "an empty content type".into()
        } else {
            media_type.to_owned()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_blank_lines_are_keep_alives_across_chunks() {
        let mut keep_alive = KeepAlive::default();
        assert!(!keep_alive.carries_data(b": ping\r\n\r\n"));
        assert!(!keep_alive.carries_data(b":"));
        assert!(!keep_alive.carries_data(b" still the comment\n\n"));
        assert!(keep_alive.carries_data(b"data: {}\n\n"));
        assert!(!keep_alive.carries_data(b"\n"));
        assert!(keep_alive.carries_data(b"da"));
        assert!(keep_alive.carries_data(b"ta: x"));
    }

    #[test]
    fn only_an_uncompressed_event_stream_is_read() {
        use reqwest::header::{CONTENT_ENCODING, HeaderMap};
        let headers = |pairs: &[(reqwest::header::HeaderName, &str)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.insert(name.clone(), value.parse().unwrap());
            }
            map
        };
        for fine in [
            headers(&[(CONTENT_TYPE, "text/event-stream")]),
            headers(&[(CONTENT_TYPE, "Text/Event-Stream; charset=utf-8")]),
            headers(&[]),
        ] {
            assert!(not_an_event_stream(&fine).is_none());
        }
        let html = not_an_event_stream(&headers(&[(CONTENT_TYPE, "text/html; charset=utf-8")]));
        assert!(
            html.as_ref()
                .is_some_and(|w| w.readable && w.described == "text/html")
        );
        let gzip = not_an_event_stream(&headers(&[
            (CONTENT_TYPE, "text/event-stream"),
            (CONTENT_ENCODING, "gzip"),
        ]))
        .unwrap();
        assert!(!gzip.readable);
        assert_eq!(
            gzip.described,
            "a body compressed with gzip (Content-Encoding)"
        );
    }

    #[test]
    fn base_urls_are_http_or_https_with_a_host() {
        for fine in [
            "https://agents.bigdata.com",
            "http://127.0.0.1:8787/",
            "https://proxy.example/agents",
        ] {
            assert_eq!(check_base_url(fine), Ok(()), "{fine}");
        }
        for bad in [
            "not a url",
            "ftp://x.com",
            "file:///tmp",
            "http://",
            "https://x?y=1",
            "",
        ] {
            assert!(check_base_url(bad).is_err(), "{bad}");
        }
    }
}
