//! Where traces go: the standard OpenTelemetry variables and `--otlp-endpoint`, read into a
//! [`Config`] (or nothing: export is off unless an endpoint is given). Pure over the variables it is
//! handed, so every rule is unit-tested. A header's value is a credential (Langfuse's
//! `Authorization=Basic …`): it is never in an error or a log line, only its name.

/// The OTLP/HTTP path of traces under a base endpoint.
const TRACES_PATH: &str = "/v1/traces";
/// The one protocol spoken.
const HTTP_PROTOBUF: &str = "http/protobuf";

/// The export's settings, resolved.
#[derive(Clone, PartialEq, Eq)]
pub struct Config {
    /// Where the traces are POSTed (`…/v1/traces`).
    pub endpoint: String,
    /// Extra request headers (name, value).
    pub headers: Vec<(String, String)>,
    /// `service.name` of the resource.
    pub service_name: String,
    /// Question and answer text go along (`--otlp-content`).
    pub content: bool,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Config")
            .field("endpoint", &self.endpoint)
            .field("headers", &names)
            .field("service_name", &self.service_name)
            .field("content", &self.content)
            .finish()
    }
}

impl Config {
    /// The endpoint for people and the log: no user name, password, query or fragment (any of
    /// them may carry a credential).
    pub fn endpoint_label(&self) -> String {
        endpoint_label(&self.endpoint)
    }
}

/// `url` without its credentials, query and fragment.
pub fn endpoint_label(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut url) => {
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.set_query(None);
            url.set_fragment(None);
            url.to_string()
        }
        Err(_) => "(an endpoint that is not a URL)".into(),
    }
}

/// Resolve the export from `--otlp-endpoint` (`flag`), `--otlp-content` and the environment
/// (`var`): `Ok(None)` when no endpoint is set (export off), an error line for a setting that
/// cannot work.
///
/// The flag and `OTEL_EXPORTER_OTLP_ENDPOINT` are base URLs (`/v1/traces` appended, unless the
/// flag already ends with it); `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is used as it is. The flag
/// wins over the variables, the traces variable over the general one.
pub fn resolve(
    flag: Option<&str>,
    content: bool,
    var: impl Fn(&str) -> Option<String>,
) -> Result<Option<Config>, String> {
    let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
    let endpoint = match (
        flag,
        var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
        var("OTEL_EXPORTER_OTLP_ENDPOINT"),
    ) {
        (Some(flag), _, _) if flag.trim_end_matches('/').ends_with(TRACES_PATH) => {
            flag.trim().to_owned()
        }
        (Some(flag), _, _) => with_traces_path(flag),
        (None, Some(traces), _) => traces.trim().to_owned(),
        (None, None, Some(base)) => with_traces_path(&base),
        (None, None, None) => return Ok(None),
    };
    // Named as the person set it: the flag, or the variable in force.
    let setting = if flag.is_some() {
        "--otlp-endpoint"
    } else if var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_some() {
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
    } else {
        "OTEL_EXPORTER_OTLP_ENDPOINT"
    };
    match reqwest::Url::parse(&endpoint) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => {}
        Ok(_) => {
            return Err(format!(
                "{setting} {} is not an http:// or https:// URL (e.g. http://localhost:4318)",
                endpoint_label(&endpoint)
            ));
        }
        // Not quoted: what is not a URL cannot be stripped of credentials.
        Err(_) => {
            return Err(format!(
                "{setting} is not a URL: give the collector's http:// or https:// base URL \
                 (e.g. http://localhost:4318)"
            ));
        }
    }
    let protocol = var("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        .map(|p| ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", p))
        .or_else(|| var("OTEL_EXPORTER_OTLP_PROTOCOL").map(|p| ("OTEL_EXPORTER_OTLP_PROTOCOL", p)));
    if let Some((name, protocol)) = protocol
        && protocol.trim() != HTTP_PROTOBUF
    {
        return Err(format!(
            "{name}={} is not supported: research-tui sends traces as OTLP {HTTP_PROTOBUF} \
             (unset it or set it to {HTTP_PROTOBUF})",
            crate::render::sanitize::sanitize_line(protocol.trim())
        ));
    }
    let headers = match var("OTEL_EXPORTER_OTLP_TRACES_HEADERS")
        .or_else(|| var("OTEL_EXPORTER_OTLP_HEADERS"))
    {
        Some(list) => parse_headers(&list)?,
        None => Vec::new(),
    };
    Ok(Some(Config {
        endpoint,
        headers,
        service_name: var("OTEL_SERVICE_NAME").unwrap_or_else(|| "research-tui".into()),
        content,
    }))
}

fn with_traces_path(base: &str) -> String {
    format!("{}{TRACES_PATH}", base.trim().trim_end_matches('/'))
}

/// `name=value,name2=value2`, values percent-decoded (the variables' W3C baggage-like format).
/// A malformed entry is refused by name only: its value may be a credential.
fn parse_headers(list: &str) -> Result<Vec<(String, String)>, String> {
    let mut headers = Vec::new();
    for (i, entry) in list.split(',').enumerate() {
        if entry.trim().is_empty() {
            continue;
        }
        let Some((name, value)) = entry.split_once('=') else {
            return Err(format!(
                "OTEL_EXPORTER_OTLP_HEADERS: entry {} is not name=value",
                i + 1
            ));
        };
        let name = name.trim();
        let value = percent_decode(value.trim());
        let valid_name = reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_ok();
        let valid_value = reqwest::header::HeaderValue::from_str(&value).is_ok();
        if !valid_name || !valid_value {
            let shown = if valid_name {
                crate::render::sanitize::sanitize_line(name).into_owned()
            } else {
                format!("entry {}", i + 1)
            };
            return Err(format!(
                "OTEL_EXPORTER_OTLP_HEADERS: the header {shown} is not a valid HTTP header"
            ));
        }
        headers.push((name.to_owned(), value));
    }
    Ok(headers)
}

/// `%20` → ` `; anything that is not a valid escape stays as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn nothing_is_exported_without_an_endpoint() {
        assert_eq!(resolve(None, true, env(&[])), Ok(None));
    }

    #[test]
    fn the_base_endpoint_gets_the_traces_path_and_the_traces_endpoint_is_used_as_it_is() {
        let base = resolve(
            None,
            false,
            env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318/")]),
        );
        assert_eq!(base.unwrap().unwrap().endpoint, "http://h:4318/v1/traces");
        let traces = resolve(
            None,
            false,
            env(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318"),
                (
                    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                    "https://x/api/public/otel/v1/traces",
                ),
            ]),
        );
        assert_eq!(
            traces.unwrap().unwrap().endpoint,
            "https://x/api/public/otel/v1/traces"
        );
        let flag = resolve(
            Some("http://f:4318"),
            false,
            env(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://x/v1/traces")]),
        );
        assert_eq!(flag.unwrap().unwrap().endpoint, "http://f:4318/v1/traces");
        let full = resolve(Some("http://f:6006/v1/traces"), false, env(&[]));
        assert_eq!(full.unwrap().unwrap().endpoint, "http://f:6006/v1/traces");
    }

    #[test]
    fn headers_are_percent_decoded_and_a_bad_one_is_refused_without_its_value() {
        let config = resolve(
            Some("http://h"),
            false,
            env(&[(
                "OTEL_EXPORTER_OTLP_HEADERS",
                "Authorization=Basic%20cGs6c2s=,x-tenant = a",
            )]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            config.headers,
            [
                ("Authorization".to_owned(), "Basic cGs6c2s=".to_owned()),
                ("x-tenant".to_owned(), "a".to_owned())
            ]
        );
        assert!(!format!("{config:?}").contains("cGs6"));
        let bad = resolve(
            Some("http://h"),
            false,
            env(&[("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=secret\nvalue")]),
        )
        .unwrap_err();
        assert!(
            bad.contains("Authorization") && !bad.contains("secret"),
            "{bad}"
        );
    }

    #[test]
    fn a_protocol_other_than_http_protobuf_is_refused_in_one_line() {
        let grpc = resolve(
            Some("http://h"),
            false,
            env(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]),
        )
        .unwrap_err();
        assert_eq!(
            grpc,
            "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: research-tui sends traces as \
             OTLP http/protobuf (unset it or set it to http/protobuf)"
        );
        let ok = resolve(
            Some("http://h"),
            false,
            env(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")]),
        );
        assert!(ok.unwrap().is_some());
    }

    #[test]
    fn the_label_of_an_endpoint_hides_its_credentials() {
        assert_eq!(
            endpoint_label("https://user:pw@h:1/v1/traces?token=t"),
            "https://h:1/v1/traces"
        );
    }
}
