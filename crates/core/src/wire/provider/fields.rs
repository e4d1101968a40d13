//! Reading a request body as a FastAPI server does: every field checked, every failure reported as
//! a [`Problem`] (not just the first), and only a body without problems becomes the typed request.
//! The providers' request types use these to parse what a client sent (the demo server does).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::error_body::Problem;

/// The body's fields, and the problems found so far.
pub(crate) struct Fields {
    object: Map<String, Value>,
    problems: Vec<Problem>,
}

impl Fields {
    /// The body as a JSON object, or the one problem that it is not.
    pub fn parse(body: &[u8]) -> Result<Self, Vec<Problem>> {
        let object = match serde_json::from_slice::<Value>(body) {
            Ok(Value::Object(object)) => object,
            Ok(other) => {
                return Err(vec![Problem {
                    kind: "model_attributes_type".into(),
                    loc: vec![Value::from("body")],
                    msg: "Input should be a valid dictionary or object to extract fields from"
                        .into(),
                    input: other,
                }]);
            }
            Err(e) => {
                return Err(vec![Problem {
                    kind: "json_invalid".into(),
                    loc: vec![Value::from("body"), Value::from(e.column())],
                    msg: "JSON decode error".into(),
                    input: json!({}),
                }]);
            }
        };
        Ok(Self {
            object,
            problems: Vec::new(),
        })
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.object.get(key)
    }

    pub fn report(&mut self, problem: Problem) {
        self.problems.push(problem);
    }

    pub fn missing(&mut self, key: &str) {
        self.report(Problem::field(
            "missing",
            &[key],
            "Field required",
            Value::Null,
        ));
    }

    /// A string at least one character long.
    pub fn required_text(&mut self, key: &str) {
        match self.object.get(key) {
            None => self.missing(key),
            Some(Value::String(s)) if s.is_empty() => self.report(Problem::field(
                "string_too_short",
                &[key],
                "String should have at least 1 character",
                Value::from(""),
            )),
            Some(Value::String(_)) => {}
            Some(other) => {
                let problem = not_a_string(key, other);
                self.report(problem);
            }
        }
    }

    pub fn optional_string(&mut self, key: &str) {
        match self.object.get(key) {
            None | Some(Value::Null | Value::String(_)) => {}
            Some(other) => {
                let problem = not_a_string(key, other);
                self.report(problem);
            }
        }
    }

    /// Required, and one of `allowed`.
    pub fn required_one_of(&mut self, key: &str, allowed: &[&str]) {
        match self.object.get(key) {
            None => self.missing(key),
            Some(value) => {
                if let Some(problem) = not_one_of(value, key, allowed) {
                    self.report(problem);
                }
            }
        }
    }

    /// One of `allowed` when present and not `null`.
    pub fn optional_one_of(&mut self, key: &str, allowed: &[&str]) {
        if let Some(value) = self.object.get(key).filter(|v| !v.is_null())
            && let Some(problem) = not_one_of(value, key, allowed)
        {
            self.report(problem);
        }
    }

    pub fn optional_object(&mut self, key: &str) {
        match self.object.get(key) {
            None | Some(Value::Null | Value::Object(_)) => {}
            Some(other) => {
                let problem = Problem::field(
                    "dict_type",
                    &[key],
                    "Input should be a valid dictionary",
                    other.clone(),
                );
                self.report(problem);
            }
        }
    }

    /// `key` must be a non-empty list of messages whose last one is the user's: its `author`
    /// field is `user` and its `content` a string (else `last_problem` is reported).
    pub fn required_user_turn(&mut self, key: &str, author: &str, last_problem: &str) {
        let problem = match self.get(key) {
            None | Some(Value::Null) => {
                self.missing(key);
                return;
            }
            Some(Value::Array(messages)) if !messages.is_empty() => {
                let last = &messages[messages.len() - 1];
                match (
                    last.get(author).and_then(Value::as_str),
                    last.get("content").and_then(Value::as_str),
                ) {
                    (Some("user"), Some(_)) => return,
                    _ => Problem::field("value_error", &[key], last_problem, last.clone()),
                }
            }
            Some(other) => Problem::field(
                "list_type",
                &[key],
                "Input should be a non-empty list of messages",
                other.clone(),
            ),
        };
        self.report(problem);
    }

    /// The typed request, when no check failed. A shape the checks do not cover (a message that
    /// is not `{role, content}`, say) is one more problem.
    pub fn finish<T: DeserializeOwned>(self) -> Result<T, Vec<Problem>> {
        if !self.problems.is_empty() {
            return Err(self.problems);
        }
        serde_json::from_value(Value::Object(self.object)).map_err(|e| {
            vec![Problem {
                kind: "value_error".into(),
                loc: vec![Value::from("body")],
                msg: e.to_string(),
                input: Value::Null,
            }]
        })
    }
}

fn not_a_string(key: &str, value: &Value) -> Problem {
    Problem::field(
        "string_type",
        &[key],
        "Input should be a valid string",
        value.clone(),
    )
}

/// `Input should be 'lite' or 'standard'` unless `value` is one of `allowed`.
fn not_one_of(value: &Value, key: &str, allowed: &[&str]) -> Option<Problem> {
    if value.as_str().is_some_and(|s| allowed.contains(&s)) {
        return None;
    }
    let quoted: Vec<String> = allowed.iter().map(|a| format!("'{a}'")).collect();
    let msg = match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => {
            format!("Input should be {} or {last}", rest.join(", "))
        }
        _ => format!("Input should be {}", quoted.join("")),
    };
    Some(Problem::field("enum", &[key], msg, value.clone()))
}
