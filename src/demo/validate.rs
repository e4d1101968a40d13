//! Request-body validation with FastAPI-shaped 422 errors:
//! `{"detail":[{"type":…,"loc":["body","message"],"msg":…,"input":…}]}`.

use serde_json::{Map, Value, json};

/// One validation failure, as FastAPI reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub kind: &'static str,
    pub loc: Vec<Value>,
    pub msg: String,
    pub input: Value,
}

impl Problem {
    fn field(kind: &'static str, path: &[&str], msg: impl Into<String>, input: Value) -> Self {
        let mut loc = vec![Value::from("body")];
        loc.extend(path.iter().map(|p| Value::from(*p)));
        Self {
            kind,
            loc,
            msg: msg.into(),
            input,
        }
    }

    fn to_json(&self) -> Value {
        json!({"type": self.kind, "loc": self.loc, "msg": self.msg, "input": self.input})
    }
}

/// The body of a 422 answer.
pub fn detail(problems: &[Problem]) -> Value {
    json!({"detail": problems.iter().map(Problem::to_json).collect::<Vec<_>>()})
}

#[derive(Debug, Clone, PartialEq)]
pub struct ResearchBody {
    pub message: String,
    pub research_effort: String,
    pub chat_id: Option<String>,
    pub from_checkpoint_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WorkflowBody {
    pub execution_id: Option<String>,
}

pub const TIME_RANGES: [&str; 7] = [
    "last_24_hours",
    "last_7_days",
    "last_30_days",
    "last_60_days",
    "last_90_days",
    "last_180_days",
    "last_365_days",
];

pub fn research(body: &[u8]) -> Result<ResearchBody, Vec<Problem>> {
    let object = object(body)?;
    let mut problems = Vec::new();
    let message = required_string(&object, "message", &mut problems);
    if let Some(message) = &message
        && message.is_empty()
    {
        problems.push(Problem::field(
            "string_too_short",
            &["message"],
            "String should have at least 1 character",
            Value::from(""),
        ));
    }
    let research_effort = match object.get("research_effort") {
        None => {
            problems.push(missing("research_effort"));
            None
        }
        Some(value) => one_of(
            value,
            "research_effort",
            &["lite", "standard"],
            &mut problems,
        ),
    };
    let chat_id = optional_string(&object, "chat_id", &mut problems);
    let from_checkpoint_id = optional_string(&object, "from_checkpoint_id", &mut problems);
    optional_one_of(&object, "model_name", &["base", "pro"], &mut problems);
    optional_one_of(
        &object,
        "persistence_mode",
        &["enabled", "disabled"],
        &mut problems,
    );
    optional_string(&object, "expected_output", &mut problems);
    optional_object(&object, "structured_output_schema", &mut problems);
    optional_object(&object, "tools_configs", &mut problems);
    match (message, research_effort) {
        (Some(message), Some(research_effort)) if problems.is_empty() => Ok(ResearchBody {
            message,
            research_effort,
            chat_id,
            from_checkpoint_id,
        }),
        _ => Err(problems),
    }
}

pub fn workflow(body: &[u8]) -> Result<WorkflowBody, Vec<Problem>> {
    let object = object(body)?;
    let mut problems = Vec::new();
    match object.get("template") {
        None | Some(Value::Null) => problems.push(missing("template")),
        Some(Value::String(id)) if id.is_empty() => problems.push(Problem::field(
            "string_too_short",
            &["template"],
            "String should have at least 1 character",
            Value::from(""),
        )),
        Some(Value::String(_)) => {}
        Some(Value::Object(inline)) => {
            for key in ["name", "prompt"] {
                match inline.get(key) {
                    Some(Value::String(_)) => {}
                    None => problems.push(Problem::field(
                        "missing",
                        &["template", key],
                        "Field required",
                        Value::Object(inline.clone()),
                    )),
                    Some(other) => problems.push(Problem::field(
                        "string_type",
                        &["template", key],
                        "Input should be a valid string",
                        other.clone(),
                    )),
                }
            }
        }
        Some(other) => problems.push(Problem::field(
            "string_type",
            &["template"],
            "Input should be a valid string or a template object",
            other.clone(),
        )),
    }
    optional_object(&object, "input", &mut problems);
    let execution_id = optional_string(&object, "execution_id", &mut problems);
    optional_one_of(&object, "model_name", &["base", "pro"], &mut problems);
    optional_one_of(&object, "time_range", &TIME_RANGES, &mut problems);
    if problems.is_empty() {
        Ok(WorkflowBody { execution_id })
    } else {
        Err(problems)
    }
}

/// The parts of an xAI `POST /v1/responses` body the demo uses.
#[derive(Debug, Clone, PartialEq)]
pub struct XaiBody {
    pub previous_response_id: Option<String>,
}

/// `input` (a non-empty string or list of messages) is required; `model` and
/// `previous_response_id` must be strings when present.
pub fn xai(body: &[u8]) -> Result<XaiBody, Vec<Problem>> {
    let object = object(body)?;
    let mut problems = Vec::new();
    match object.get("input") {
        None | Some(Value::Null) => problems.push(missing("input")),
        Some(Value::String(s)) if !s.is_empty() => {}
        Some(Value::Array(items)) if !items.is_empty() => {}
        Some(other) => problems.push(Problem::field(
            "input_type",
            &["input"],
            "Input should be a non-empty string or list of messages",
            other.clone(),
        )),
    }
    optional_string(&object, "model", &mut problems);
    let previous_response_id = optional_string(&object, "previous_response_id", &mut problems);
    if problems.is_empty() {
        Ok(XaiBody {
            previous_response_id,
        })
    } else {
        Err(problems)
    }
}

/// The parts of a Zeta Alpha `POST /v0/service/chat/stream` body the demo uses.
#[derive(Debug, Clone, PartialEq)]
pub struct ZetaBody {
    pub session_id: Option<String>,
    /// The last message's content (the question).
    pub question: String,
}

/// `conversation` must be a non-empty list of `{sender, content}` ending with the user's message.
pub fn zeta(body: &[u8]) -> Result<ZetaBody, Vec<Problem>> {
    let object = object(body)?;
    let mut problems = Vec::new();
    optional_string(&object, "agent_identifier", &mut problems);
    let session_id = optional_string(&object, "session_id", &mut problems);
    let question = match object.get("conversation") {
        None | Some(Value::Null) => {
            problems.push(missing("conversation"));
            None
        }
        Some(Value::Array(messages)) if !messages.is_empty() => {
            let last = &messages[messages.len() - 1];
            match (
                last.get("sender").and_then(Value::as_str),
                last.get("content").and_then(Value::as_str),
            ) {
                (Some("user"), Some(content)) => Some(content.to_owned()),
                _ => {
                    problems.push(Problem::field(
                        "value_error",
                        &["conversation"],
                        "The last message should be the user's, with a string content",
                        last.clone(),
                    ));
                    None
                }
            }
        }
        Some(other) => {
            problems.push(Problem::field(
                "list_type",
                &["conversation"],
                "Input should be a non-empty list of messages",
                other.clone(),
            ));
            None
        }
    };
    match question {
        Some(question) if problems.is_empty() => Ok(ZetaBody {
            session_id,
            question,
        }),
        _ => Err(problems),
    }
}

fn object(body: &[u8]) -> Result<Map<String, Value>, Vec<Problem>> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(vec![Problem {
            kind: "model_attributes_type",
            loc: vec![Value::from("body")],
            msg: "Input should be a valid dictionary or object to extract fields from".into(),
            input: other,
        }]),
        Err(e) => Err(vec![Problem {
            kind: "json_invalid",
            loc: vec![Value::from("body"), Value::from(e.column())],
            msg: "JSON decode error".into(),
            input: json!({}),
        }]),
    }
}

fn missing(key: &str) -> Problem {
    Problem::field("missing", &[key], "Field required", Value::Null)
}

fn required_string(
    object: &Map<String, Value>,
    key: &str,
    problems: &mut Vec<Problem>,
) -> Option<String> {
    match object.get(key) {
        None => {
            problems.push(missing(key));
            None
        }
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            problems.push(not_a_string(key, other));
            None
        }
    }
}

fn optional_string(
    object: &Map<String, Value>,
    key: &str,
    problems: &mut Vec<Problem>,
) -> Option<String> {
    match object.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            problems.push(not_a_string(key, other));
            None
        }
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

fn one_of(
    value: &Value,
    key: &str,
    allowed: &[&str],
    problems: &mut Vec<Problem>,
) -> Option<String> {
    if let Some(s) = value.as_str()
        && allowed.contains(&s)
    {
        return Some(s.to_owned());
    }
    let quoted: Vec<String> = allowed.iter().map(|a| format!("'{a}'")).collect();
    let msg = match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => {
            format!("Input should be {} or {last}", rest.join(", "))
        }
        _ => format!("Input should be {}", quoted.join("")),
    };
    problems.push(Problem::field("enum", &[key], msg, value.clone()));
    None
}

fn optional_one_of(
    object: &Map<String, Value>,
    key: &str,
    allowed: &[&str],
    problems: &mut Vec<Problem>,
) {
    if let Some(value) = object.get(key)
        && !value.is_null()
    {
        one_of(value, key, allowed, problems);
    }
}

fn optional_object(object: &Map<String, Value>, key: &str, problems: &mut Vec<Problem>) {
    match object.get(key) {
        None | Some(Value::Null | Value::Object(_)) => {}
        Some(other) => problems.push(Problem::field(
            "dict_type",
            &[key],
            "Input should be a valid dictionary",
            other.clone(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_message_and_a_bad_effort_are_both_reported() {
        let problems = research(br#"{"message":"","research_effort":"deep"}"#).unwrap_err();
        let locs: Vec<&Value> = problems.iter().flat_map(|p| &p.loc).collect();
        assert!(locs.contains(&&Value::from("message")));
        assert!(locs.contains(&&Value::from("research_effort")));
        assert_eq!(problems[1].msg, "Input should be 'lite' or 'standard'");
    }

    #[test]
    fn a_minimal_research_body_is_accepted() {
        let body =
            research(br#"{"message":"hi","research_effort":"lite","chat_id":null}"#).unwrap();
        assert_eq!(body.message, "hi");
        assert_eq!(body.chat_id, None);
    }

    #[test]
    fn invalid_json_is_a_json_decode_error() {
        let problems = research(b"{nope").unwrap_err();
        assert_eq!(problems[0].msg, "JSON decode error");
    }

    #[test]
    fn xai_and_zeta_bodies_need_their_question() {
        assert_eq!(
            xai(br#"{"model":"grok-4","input":[{"role":"user","content":"hi"}],"previous_response_id":"r1"}"#)
                .unwrap()
                .previous_response_id
                .as_deref(),
            Some("r1")
        );
        assert_eq!(xai(br#"{"input":""}"#).unwrap_err()[0].loc[1], "input");
        let body = zeta(br#"{"conversation":[{"sender":"user","content":"Q"}],"session_id":"s"}"#)
            .unwrap();
        assert_eq!(
            (body.question.as_str(), body.session_id.as_deref()),
            ("Q", Some("s"))
        );
        assert!(zeta(br#"{"conversation":[{"sender":"bot","content":"A"}]}"#).is_err());
        assert!(zeta(br#"{"conversation":[]}"#).is_err());
    }

    #[test]
    fn workflow_templates_may_be_ids_or_inline_objects() {
        assert!(
            workflow(br#"{"template":"earnings-brief","input":{"company_id":"D8442A"}}"#).is_ok()
        );
        assert!(workflow(br#"{"template":{"name":"n","prompt":"p"}}"#).is_ok());
        let problems =
            workflow(br#"{"template":{"name":"n"},"time_range":"forever"}"#).unwrap_err();
        assert_eq!(problems.len(), 2);
    }
}
