//! Bigdata.com's requests, one type per body shared by the client that sends it and the demo
//! server that reads it: `POST /v1/research-agent` ([`ResearchRequest`]) and
//! `POST /v1/workflow/execute` ([`WorkflowRequest`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::provider::error_body::Problem;
use crate::wire::provider::fields::Fields;
use crate::wire::provider::request::{
    Ask, Endpoint, ProviderOptions, WireRequest, null_as_default,
};

/// The Research Agent: questions and follow-ups.
pub static RESEARCH: Endpoint = Endpoint {
    name: "research-agent",
    path: "/v1/research-agent",
    not_found: "unknown or expired chat or checkpoint",
};

/// Workflows: a template run over inputs.
pub static WORKFLOW: Endpoint = Endpoint {
    name: "workflow",
    path: "/v1/workflow/execute",
    not_found: "unknown workflow template or execution",
};

/// `model_name` values.
pub const MODEL_NAMES: [&str; 2] = ["base", "pro"];
/// `persistence_mode` values.
pub const PERSISTENCE_MODES: [&str; 2] = ["enabled", "disabled"];
/// Workflow `time_range` values.
pub const TIME_RANGES: [&str; 7] = [
    "last_24_hours",
    "last_7_days",
    "last_30_days",
    "last_60_days",
    "last_90_days",
    "last_180_days",
    "last_365_days",
];

/// `research_effort`: lite (~10–20 s) or standard (~20–60 s, multi-step).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    Lite,
    #[default]
    Standard,
}

impl Effort {
    pub const NAMES: [&'static str; 2] = ["lite", "standard"];
}

/// The body of `POST /v1/research-agent`. `None` fields are left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResearchRequest {
    pub message: String,
    pub research_effort: Effort,
    /// Continue this conversation (a plain follow-up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
    /// Resume or branch from a `COMPLETE.checkpoint_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_checkpoint_id: Option<String>,
    /// One of [`MODEL_NAMES`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    /// One of [`PERSISTENCE_MODES`]; fixed for a conversation's life.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistence_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output_schema: Option<Value>,
    /// Tone and structure guidance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_output: Option<String>,
    /// e.g. `{"search": {"query_filters": …}}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_configs: Option<Value>,
}

impl ResearchRequest {
    /// A new conversation at standard effort.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            ..Self::default()
        }
    }

    pub fn to_wire(&self) -> WireRequest {
        WireRequest::new(&RESEARCH, self)
    }

    /// Ask for charts: `tools_configs.python_code_execution = {"enabled": true,
    /// "chart_generation_enabled": true}`, other tool configs kept.
    pub fn request_charts(&mut self) {
        let mut configs = match self.tools_configs.take() {
            Some(Value::Object(configs)) => configs,
            _ => Map::new(),
        };
        configs.insert(
            PYTHON_CODE_EXECUTION.into(),
            serde_json::json!({"enabled": true, "chart_generation_enabled": true}),
        );
        self.tools_configs = Some(Value::Object(configs));
    }

    /// Whether the request asks for charts.
    pub fn wants_charts(&self) -> bool {
        let flag = |key: &str| {
            self.tools_configs
                .as_ref()
                .and_then(|c| c.get(PYTHON_CODE_EXECUTION)?.get(key)?.as_bool())
                == Some(true)
        };
        flag("enabled") && flag("chart_generation_enabled")
    }

    /// Read a body as the API does: every problem with it, or the request.
    pub fn parse(body: &[u8]) -> Result<Self, Vec<Problem>> {
        let mut fields = Fields::parse(body)?;
        fields.required_text("message");
        fields.required_one_of("research_effort", &Effort::NAMES);
        fields.optional_string("chat_id");
        fields.optional_string("from_checkpoint_id");
        fields.optional_one_of("model_name", &MODEL_NAMES);
        fields.optional_one_of("persistence_mode", &PERSISTENCE_MODES);
        fields.optional_string("expected_output");
        fields.optional_object("structured_output_schema");
        fields.optional_object("tools_configs");
        check_code_execution(&mut fields);
        fields.finish()
    }
}

/// The body of `POST /v1/workflow/execute`. `None` fields are left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkflowRequest {
    /// A template id (string) or an inline template object `{name, prompt, …}`.
    pub template: Value,
    #[serde(default, deserialize_with = "null_as_default")]
    pub input: Map<String, Value>,
    /// Resume a previous run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_id: Option<String>,
    /// One of [`MODEL_NAMES`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    /// One of [`TIME_RANGES`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_range: Option<String>,
}

impl WorkflowRequest {
    pub fn new(template: impl Into<Value>) -> Self {
        Self {
            template: template.into(),
            input: Map::new(),
            execution_id: None,
            model_name: None,
            time_range: None,
        }
    }

    pub fn to_wire(&self) -> WireRequest {
        WireRequest::new(&WORKFLOW, self)
    }

    /// Read a body as the API does: every problem with it, or the request.
    pub fn parse(body: &[u8]) -> Result<Self, Vec<Problem>> {
        let mut fields = Fields::parse(body)?;
        check_template(&mut fields);
        fields.optional_object("input");
        fields.optional_string("execution_id");
        fields.optional_one_of("model_name", &MODEL_NAMES);
        fields.optional_one_of("time_range", &TIME_RANGES);
        fields.finish()
    }
}

/// A template id, or an inline template with a string `name` and `prompt`.
fn check_template(fields: &mut Fields) {
    let problems = match fields.get("template") {
        None | Some(Value::Null) => {
            fields.missing("template");
            return;
        }
        Some(Value::String(id)) if id.is_empty() => vec![Problem::field(
            "string_too_short",
            &["template"],
            "String should have at least 1 character",
            Value::from(""),
        )],
        Some(Value::String(_)) => Vec::new(),
        Some(Value::Object(inline)) => ["name", "prompt"]
            .into_iter()
            .filter_map(|key| match inline.get(key) {
                Some(Value::String(_)) => None,
                None => Some(Problem::field(
                    "missing",
                    &["template", key],
                    "Field required",
                    Value::Object(inline.clone()),
                )),
                Some(other) => Some(Problem::field(
                    "string_type",
                    &["template", key],
                    "Input should be a valid string",
                    other.clone(),
                )),
            })
            .collect(),
        Some(other) => vec![Problem::field(
            "string_type",
            &["template"],
            "Input should be a valid string or a template object",
            other.clone(),
        )],
    };
    for problem in problems {
        fields.report(problem);
    }
}

/// The tool config key for code execution (and charts).
const PYTHON_CODE_EXECUTION: &str = "python_code_execution";

/// `tools_configs.python_code_execution`, when given, is an object of booleans `enabled` and
/// `chart_generation_enabled`.
fn check_code_execution(fields: &mut Fields) {
    let Some(config) = fields
        .get("tools_configs")
        .and_then(|c| c.get(PYTHON_CODE_EXECUTION))
        .cloned()
    else {
        return;
    };
    let loc = ["tools_configs", PYTHON_CODE_EXECUTION];
    let Value::Object(config) = config else {
        let problem = Problem::field(
            "dict_type",
            &loc,
            "Input should be a valid dictionary",
            config,
        );
        return fields.report(problem);
    };
    for key in ["enabled", "chart_generation_enabled"] {
        match config.get(key) {
            None | Some(Value::Bool(_)) => {}
            Some(other) => fields.report(Problem::field(
                "bool_type",
                &[loc[0], loc[1], key],
                "Input should be a valid boolean",
                other.clone(),
            )),
        }
    }
}

/// A question to the Research Agent: a new conversation, a follow-up in `chat_id`, or a resumed
/// checkpoint, at standard effort.
pub fn build(ask: &Ask, options: &ProviderOptions) -> WireRequest {
    let mut request = ResearchRequest {
        chat_id: ask.chat_id.clone(),
        from_checkpoint_id: ask.checkpoint_id.clone(),
        ..ResearchRequest::new(ask.question.clone())
    };
    if options.charts {
        request.request_charts();
    }
    request.to_wire()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_leave_out_what_is_not_set() {
        let mut request = ResearchRequest::new("NVDA?");
        request.research_effort = Effort::Lite;
        request.chat_id = Some("chat-1".into());
        let json = serde_json::to_value(&request).unwrap();
        assert_eq!(
            json,
            json!({"message": "NVDA?", "research_effort": "lite", "chat_id": "chat-1"})
        );
        let workflow = serde_json::to_value(WorkflowRequest::new("earnings-brief")).unwrap();
        assert_eq!(workflow, json!({"template": "earnings-brief", "input": {}}));
    }

    #[test]
    fn an_empty_message_and_a_bad_effort_are_both_reported() {
        let problems =
            ResearchRequest::parse(br#"{"message":"","research_effort":"deep"}"#).unwrap_err();
        let locs: Vec<&Value> = problems.iter().flat_map(|p| &p.loc).collect();
        assert!(locs.contains(&&Value::from("message")));
        assert!(locs.contains(&&Value::from("research_effort")));
        assert_eq!(problems[1].msg, "Input should be 'lite' or 'standard'");
    }

    #[test]
    fn a_minimal_research_body_is_accepted() {
        let body =
            ResearchRequest::parse(br#"{"message":"hi","research_effort":"lite","chat_id":null}"#)
                .unwrap();
        assert_eq!(body.message, "hi");
        assert_eq!(body.chat_id, None);
    }

    #[test]
    fn asking_for_charts_keeps_other_tool_configs_and_reads_back() {
        let mut request = ResearchRequest {
            tools_configs: Some(json!({"search": {"query_filters": {}}})),
            ..ResearchRequest::new("Q")
        };
        assert!(!request.wants_charts());
        request.request_charts();
        assert!(request.wants_charts());
        let body = request.to_wire().body_bytes();
        let read = ResearchRequest::parse(&body).unwrap();
        assert_eq!(
            read.tools_configs,
            Some(json!({
                "search": {"query_filters": {}},
                "python_code_execution": {"enabled": true, "chart_generation_enabled": true}
            }))
        );
    }

    #[test]
    fn a_code_execution_config_that_is_not_booleans_is_a_422() {
        let problems = ResearchRequest::parse(
            br#"{"message":"m","research_effort":"lite","tools_configs":{"python_code_execution":{"enabled":"yes"}}}"#,
        )
        .unwrap_err();
        assert_eq!(problems[0].msg, "Input should be a valid boolean");
        assert_eq!(
            problems[0].loc,
            [
                json!("body"),
                json!("tools_configs"),
                json!("python_code_execution"),
                json!("enabled")
            ]
        );
    }

    #[test]
    fn invalid_json_is_a_json_decode_error() {
        let problems = ResearchRequest::parse(b"{nope").unwrap_err();
        assert_eq!(problems[0].msg, "JSON decode error");
    }

    #[test]
    fn what_the_client_sends_the_server_reads_back() {
        let request = ResearchRequest {
            model_name: Some("pro".into()),
            structured_output_schema: Some(json!({"type": "object"})),
            ..ResearchRequest::new("Q")
        };
        assert_eq!(
            ResearchRequest::parse(&request.to_wire().body_bytes()),
            Ok(request)
        );
        let mut workflow = WorkflowRequest::new(json!({"name": "n", "prompt": "p"}));
        workflow.time_range = Some("last_7_days".into());
        assert_eq!(
            WorkflowRequest::parse(&workflow.to_wire().body_bytes()),
            Ok(workflow)
        );
    }

    #[test]
    fn workflow_templates_may_be_ids_or_inline_objects() {
        assert!(
            WorkflowRequest::parse(
                br#"{"template":"earnings-brief","input":{"company_id":"D8442A"}}"#
            )
            .is_ok()
        );
        assert!(WorkflowRequest::parse(br#"{"template":{"name":"n","prompt":"p"}}"#).is_ok());
        assert!(WorkflowRequest::parse(br#"{"template":"t","input":null}"#).is_ok());
        let problems =
            WorkflowRequest::parse(br#"{"template":{"name":"n"},"time_range":"forever"}"#)
                .unwrap_err();
        assert_eq!(problems.len(), 2);
    }
}
