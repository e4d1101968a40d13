//! Error bodies in FastAPI's shape: `{"detail": "text"}`, or for a 422
//! `{"detail": [{"type": …, "loc": ["body", "message"], "msg": …, "input": …}, …]}`. Bigdata.com
//! answers errors so, the demo server sends them on every route, and the client reads any
//! provider's error body through [`ErrorBody::summary`].

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// `None` when the body has no `detail` at all (a present `null` is [`Detail::Other`]).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub detail: Option<Detail>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Detail {
    Text(String),
    /// A 422's validation failures.
    Problems(Vec<Problem>),
    /// Whatever else a server put there.
    Other(Value),
}

/// One validation failure, as FastAPI reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    #[serde(rename = "type")]
    pub kind: String,
    /// Where: `["body", field, …]`.
    pub loc: Vec<Value>,
    pub msg: String,
    /// The value that failed.
    pub input: Value,
}

impl ErrorBody {
    /// `{"detail": text}`.
    pub fn text(detail: impl Into<String>) -> Self {
        Self {
            detail: Some(Detail::Text(detail.into())),
        }
    }

    /// A 422's `{"detail": [problems]}`.
    pub fn problems(problems: Vec<Problem>) -> Self {
        Self {
            detail: Some(Detail::Problems(problems)),
        }
    }

    /// What an error response says: its `detail` (a 422's problems as `loc: msg`, joined by `; `),
    /// or the body itself when it is not JSON. `None` for JSON that is not an object with a
    /// `detail`. Neither trimmed nor sanitised: that is for whoever shows it.
    pub fn summary(body: &[u8]) -> Option<String> {
        match serde_json::from_slice::<Value>(body) {
            Ok(value @ Value::Object(_)) => serde_json::from_value::<ErrorBody>(value)
                .ok()?
                .detail
                .map(|detail| detail.summary()),
            Ok(_) => None,
            Err(_) => Some(String::from_utf8_lossy(body).trim().to_owned()),
        }
    }
}

impl Detail {
    pub fn summary(&self) -> String {
        match self {
            Detail::Text(text) => text.clone(),
            Detail::Problems(problems) => problems
                .iter()
                .map(Problem::summary)
                .collect::<Vec<_>>()
                .join("; "),
            Detail::Other(value) => value.to_string(),
        }
    }
}

impl Problem {
    /// A problem with the body's field at `path` (`loc` is `["body", …path]`).
    pub fn field(kind: &str, path: &[&str], msg: impl Into<String>, input: Value) -> Self {
        let mut loc = vec![Value::from("body")];
        loc.extend(path.iter().map(|p| Value::from(*p)));
        Self {
            kind: kind.to_owned(),
            loc,
            msg: msg.into(),
            input,
        }
    }

    /// `body.message: Field required` (just the message when there is no place).
    pub fn summary(&self) -> String {
        let loc = self
            .loc
            .iter()
            .map(|part| match part {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(".");
        if loc.is_empty() {
            self.msg.clone()
        } else {
            format!("{loc}: {}", self.msg)
        }
    }
}

impl<'de> Deserialize<'de> for Problem {
    /// Leniently, as any server may have written it: a `loc` that is not a list is no place, a
    /// missing `msg` is `invalid`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let text = |key: &str| value.get(key).and_then(Value::as_str);
        Ok(Self {
            kind: text("type").unwrap_or_default().to_owned(),
            loc: value
                .get("loc")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            msg: text("msg").unwrap_or("invalid").to_owned(),
            input: value.get("input").cloned().unwrap_or(Value::Null),
        })
    }
}

/// A `detail` that is there, even as `null`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Detail>, D::Error> {
    Detail::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn problems_serialise_in_fastapi_order_and_read_back() {
        let body = ErrorBody::problems(vec![Problem::field(
            "missing",
            &["message"],
            "Field required",
            Value::Null,
        )]);
        let text = serde_json::to_string(&body).unwrap();
        assert_eq!(
            text,
            r#"{"detail":[{"type":"missing","loc":["body","message"],"msg":"Field required","input":null}]}"#
        );
        assert_eq!(
            ErrorBody::summary(text.as_bytes()).as_deref(),
            Some("body.message: Field required")
        );
    }

    #[test]
    fn summaries_read_any_server_leniently() {
        let summary = |body: &str| ErrorBody::summary(body.as_bytes());
        assert_eq!(
            summary(r#"{"detail":"Checkpoint not found"}"#).as_deref(),
            Some("Checkpoint not found")
        );
        assert_eq!(
            summary(r#"{"detail":[{"loc":["body",0],"msg":"bad"},{"loc":"x"},"odd"]}"#).as_deref(),
            Some("body.0: bad; invalid; invalid")
        );
        assert_eq!(summary(r#"{"detail":null}"#).as_deref(), Some("null"));
        assert_eq!(
            summary(r#"{"detail":{"a":1}}"#).as_deref(),
            Some(r#"{"a":1}"#)
        );
        assert_eq!(summary(r#"{"error":"x"}"#), None);
        assert_eq!(summary("[1]"), None);
        assert_eq!(
            summary(" <html> bad gateway ").as_deref(),
            Some("<html> bad gateway")
        );
        assert_eq!(
            serde_json::to_value(ErrorBody::text("x")).unwrap(),
            json!({"detail": "x"})
        );
    }
}
