//! What `ask` sends, decided from its flags before any I/O: a Research Agent question or a
//! workflow run (Bigdata.com's own fields), or another provider's question with what ties it to
//! earlier turns; the flags one provider takes and another does not, said.

use super::*;

/// What to send, decided before any I/O.
pub(super) enum Plan {
    Research(ResearchRequest),
    Workflow(WorkflowRequest),
    /// Another provider: the question and what ties it to earlier turns.
    Other(Ask),
}

pub(super) fn build_request(args: &AskArgs, known: Option<&SavedSession>) -> Result<Plan, String> {
    // One provider's own settings are not sent to another, and never dropped in silence (a
    // script may give every provider the same flags, so this is a note, not a refusal).
    for note in settings_of_others(
        args.provider,
        args.tenant.is_some(),
        args.thinking.is_some(),
    ) {
        eprintln!("research-tui: {note}");
    }
    // Workflows, effort, schemas and the rest of these flags are Bigdata.com's own request fields.
    if args.provider == Provider::Bigdata {
        return bigdata_plan(args, known);
    }
    if args.workflow.is_some() {
        return Err("workflows are a Bigdata.com feature (drop --provider)".into());
    }
    if args.charts {
        return Err("--charts asks the Bigdata.com agent for charts (drop --provider)".into());
    }
    // The earlier turns as the saved streams rebuild them: the answers, and what the provider
    // needs back of each (Anthropic's content blocks).
    let (history, transcripts) = known
        .filter(|_| args.provider.spec().follow_up.sends_history())
        .map(|saved| {
            saved
                .replay_turns()
                .into_iter()
                .map(|(turn, session)| {
                    let answer = session.answer.as_str().to_owned();
                    ((turn.question, answer), session.transcript)
                })
                .unzip()
        })
        .unwrap_or_default();
    Ok(Plan::Other(Ask {
        question: args.question.clone(),
        chat_id: args
            .chat_id
            .clone()
            .or_else(|| known.and_then(|s| s.meta.chat_id.clone())),
        checkpoint_id: args
            .resume
            .clone()
            .or_else(|| known.and_then(|s| s.meta.last_checkpoint_id().map(str::to_owned))),
        history,
        transcripts,
        paused: Vec::new(),
    }))
}

/// What is said of `--tenant` (Zeta Alpha's) and `--thinking` (Anthropic's) given for `provider`,
/// which does not take them: they are not sent.
pub(crate) fn settings_of_others(provider: Provider, tenant: bool, thinking: bool) -> Vec<String> {
    let mut notes = Vec::new();
    for (given, flag, owner) in [
        (tenant, "--tenant", Provider::Zeta),
        (thinking, "--thinking", Provider::Anthropic),
    ] {
        if given && provider != owner {
            notes.push(format!(
                "{flag} is {}'s: not sent to {}",
                owner.label(),
                provider.label()
            ));
        }
    }
    notes
}

/// Bigdata.com's `--model`: one of its model names, or a usage error.
pub(crate) fn bigdata_model(model: Option<&str>) -> Result<Option<String>, String> {
    match model {
        None => Ok(None),
        Some(model) if MODEL_NAMES.contains(&model) => Ok(Some(model.to_owned())),
        Some(other) => Err(format!("--model takes base or pro, not {other:?}")),
    }
}

/// A Research Agent question or a workflow run, from the flags.
fn bigdata_plan(args: &AskArgs, known: Option<&SavedSession>) -> Result<Plan, String> {
    let model_name = bigdata_model(args.model.as_deref())?;
    if let Some(template) = &args.workflow {
        if args.charts {
            return Err(
                "--charts goes with a question to the Research Agent, not --workflow".into(),
            );
        }
        let mut request = WorkflowRequest::new(workflow_template(template)?);
        for pair in &args.inputs {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("--input takes key=value, got {pair:?}"))?;
            request
                .input
                .insert(key.trim().to_owned(), Value::String(value.to_owned()));
        }
        request.execution_id = args.execution_id.clone();
        request.model_name = model_name;
        request.time_range = args.time_range.clone();
        return Ok(Plan::Workflow(request));
    }
    if !args.inputs.is_empty() || args.time_range.is_some() || args.execution_id.is_some() {
        return Err("--input, --time-range and --execution-id go with --workflow".into());
    }
    let mut request = ResearchRequest::new(args.question.clone());
    request.research_effort = args.effort;
    request.chat_id = args
        .chat_id
        .clone()
        .or_else(|| known.and_then(|s| s.meta.chat_id.clone()));
    request.from_checkpoint_id = args.resume.clone();
    request.model_name = model_name;
    if args.persist {
        request.persistence_mode = Some("enabled".into());
    }
    if let Some(path) = &args.schema {
        let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => {
                format!("the schema {} is not text (UTF-8 JSON)", path.display())
            }
            _ => crate::report::cannot_read(&format!("the schema {}", path.display()), &e),
        })?;
        request.structured_output_schema = Some(
            serde_json::from_str(&text)
                .map_err(|e| format!("the schema {} is not valid JSON: {e}", path.display()))?,
        );
    }
    request.expected_output = args.expected_output.clone();
    if args.charts || known.is_some_and(|s| s.meta.options.charts) {
        request.request_charts();
    }
    Ok(Plan::Research(request))
}

/// `--workflow`: a template id, or a JSON file holding an inline template.
fn workflow_template(template: &str) -> Result<Value, String> {
    if !template.ends_with(".json") && !std::path::Path::new(template).is_file() {
        return Ok(Value::String(template.to_owned()));
    }
    let text = std::fs::read_to_string(template).map_err(|e| {
        crate::report::cannot_read(&format!("the workflow template {template}"), &e)
    })?;
    serde_json::from_str::<Value>(&text)
        .map_err(|e| format!("the workflow template {template} is not valid JSON: {e}"))
}
