//! `ask Q --provider a,b[,c]`: one question to several agents at once. Each agent's conversation
//! is saved as its own session, the sessions linked by one comparison id (`meta.comparison`); the
//! answers are followed concurrently and printed together with how their sources overlap
//! (the core's `render::compare`). Exit status: the first failed agent's (each failure named on
//! stderr), 0 when every agent completed.

use std::time::Instant;

use tokio::sync::watch;

use super::*;
use crate::model::compare::{AgentRun, Timings};
use crate::render::compare::{self as render_compare, Answer};

/// One agent's run, followed to its end.
struct Finished {
    provider: Provider,
    session: Session,
    end: StreamEnd,
    timings: Timings,
    session_id: Option<String>,
    saving_failed: bool,
}

/// Flags that name one conversation or one provider's feature: they cannot apply to several agents.
fn single_agent_flag(args: &AskArgs) -> Option<&'static str> {
    [
        (args.workflow.is_some(), "--workflow"),
        (args.chat_id.is_some(), "--chat-id"),
        (args.resume.is_some(), "--resume"),
        (args.execution_id.is_some(), "--execution-id"),
        (!args.inputs.is_empty(), "--input"),
        (args.time_range.is_some(), "--time-range"),
        (args.record.is_some(), "--record"),
        (args.model.is_some(), "--model"),
        (args.charts, "--charts"),
        (args.schema.is_some(), "--schema"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

pub(super) fn run_cli(args: AskArgs) -> ExitCode {
    let mut seen = Vec::new();
    for provider in &args.providers {
        if seen.contains(provider) {
            return usage(format_args!(
                "{} is named twice in --provider: name each agent once",
                provider.as_str()
            ));
        }
        seen.push(*provider);
    }
    if let Some(flag) = single_agent_flag(&args) {
        return usage(format_args!(
            "{flag} goes with one agent, not a comparison of {}",
            provider_list(&args.providers)
        ));
    }
    // Every agent's target first: each missing key is named before anything is sent.
    let mut targets = Vec::new();
    let mut refused = None;
    for &provider in &args.providers {
        let agent = AskArgs {
            provider,
            ..args.clone()
        };
        let target = if args.demo {
            demo_url(&agent).map(|url| url.map(|url| (url, None)))
        } else {
            live_target(&agent).map(Some)
        };
        match target {
            Ok(target) => targets.push((agent, target)),
            Err(exit) => refused = refused.or(Some(exit)),
        }
    }
    if let Some(exit) = refused {
        return exit;
    }
    let runtime = match crate::runtime() {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    runtime.block_on(compare(args, targets))
}

fn provider_list(providers: &[Provider]) -> String {
    providers
        .iter()
        .map(|p| p.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

type Target = Option<(String, Option<ApiKey>)>;

async fn compare(args: AskArgs, targets: Vec<(AskArgs, Target)>) -> ExitCode {
    // One demo agent answers every provider (each on its own path, in its own dialect).
    let demo = if targets.iter().any(|(_, target)| target.is_none()) {
        match agent_base(&args, None).await {
            Ok((url, _, task)) => Some((url, task)),
            Err(exit) => return exit,
        }
    } else {
        None
    };
    let store = SessionStore::default();
    // Each agent's turn as a trace, once all have ended (keys of every provider masked).
    let exporter = match args.otlp.start(None) {
        Ok(exporter) => exporter,
        Err(message) => return usage(message),
    };
    let comparison_id = crate::agent::rng::id("cmp");
    let (cancel, cancelled) = watch::channel(false);
    let mut runs = Vec::new();
    for (agent, target) in targets {
        let (base_url, api_key) = match (target, &demo) {
            (Some(target), _) => target,
            (None, Some((url, _))) => (url.clone(), None),
            (None, None) => unreachable!("a demo agent is started for targets without one"),
        };
        let plan = match build_request(&agent, None) {
            Ok(plan) => plan,
            Err(message) => return usage(message),
        };
        let driver = start_agent(&agent, plan, &store, &comparison_id, base_url, api_key);
        runs.push(follow(agent.provider, driver, cancelled.clone()));
    }
    let mut interrupt = Interrupt::listen();
    let all = futures::future::join_all(runs);
    tokio::pin!(all);
    let finished = tokio::select! {
        finished = &mut all => finished,
        _ = interrupt.pressed() => {
            let _ = cancel.send(true);
            all.await
        }
    };
    if let Some(exporter) = &exporter {
        for id in finished.iter().filter_map(|f| f.session_id.as_ref()) {
            exporter.turn(crate::otel::TurnRef {
                dir: store.root().join(id),
                index: 0,
                key: Default::default(),
            });
        }
    }
    let code = report(&args, &comparison_id, finished);
    crate::otel::finish(exporter.as_ref()).await;
    code
}

/// Save a session for `agent` in the comparison and start its turn.
fn start_agent(
    agent: &AskArgs,
    plan: Plan,
    store: &SessionStore,
    comparison_id: &str,
    base_url: String,
    api_key: Option<ApiKey>,
) -> (TurnDriver<SavedTurn>, bool) {
    let provider = agent.provider;
    let options = ProviderOptions {
        tenant: agent.tenant.clone(),
        agent: agent.agent.clone(),
        thinking: agent.thinking,
        ..ProviderOptions::default()
    };
    let endpoint = provider.spec().endpoint().name;
    let saved = store
        .create(endpoint, provider.as_str(), &base_url)
        .and_then(|mut saved| saved.set_comparison(comparison_id).map(|()| saved));
    let mut sinks = Vec::new();
    let recorder = begin_saved_turn(saved, agent, options.clone()).map(|(turn, sink)| {
        sinks.push(sink);
        turn
    });
    let unsaved = recorder.is_none();
    let driver = start_turn(
        agent,
        plan,
        (base_url.as_str(), api_key),
        &options,
        sinks,
        recorder,
    );
    (driver, unsaved)
}

/// Follow one agent's turn to its end (or to a Ctrl-C), timing its first answer text and its end.
async fn follow(
    provider: Provider,
    (mut driver, unsaved): (TurnDriver<SavedTurn>, bool),
    mut cancelled: watch::Receiver<bool>,
) -> Finished {
    let started = Instant::now();
    let elapsed = |at: Instant| u64::try_from(at.duration_since(started).as_millis()).ok();
    let session_id = driver.recorder().map(|turn| turn.saved.meta.id.clone());
    let mut session = Session::new();
    let mut timings = Timings::default();
    let mut saving = Saving { failed: unsaved };
    loop {
        let update = tokio::select! {
            update = driver.next_update() => update,
            _ = cancelled.wait_for(|c| *c) => {
                if let Err(e) = driver.cancel(&session) {
                    eprintln!("research-tui: {}: could not save the session: {e}", provider.as_str());
                    saving.failed = true;
                }
                if let Some(run) = driver.take_cancelled_run() {
                    match run.cancel().await {
                        Ok(id) => eprintln!("research-tui: {}: cancelled the run {} on the server", provider.as_str(), sanitize_line(&id)),
                        Err(e) => eprintln!("research-tui: {}: warning: the run may go on on the server: {}", provider.as_str(), sanitize_line(&e.to_string())),
                    }
                }
                timings.total_ms = elapsed(Instant::now());
                return Finished { provider, session, end: StreamEnd::Cancelled, timings, session_id, saving_failed: saving.failed };
            }
        };
        if timings.first_text_ms.is_none()
            && let StreamUpdate::Events(events) = &update
            && events
                .iter()
                .any(|e| matches!(e, AgentEvent::AnswerDelta { text, .. } if !text.is_empty()))
        {
            timings.first_text_ms = elapsed(Instant::now());
        }
        if let Err(e) = driver.apply(update, &mut session) {
            eprintln!(
                "research-tui: {}: could not save the session: {e}",
                provider.as_str()
            );
            saving.failed = true;
        }
        if let Some(end) = driver.ended() {
            timings.total_ms = elapsed(Instant::now());
            // On a terminal, each agent's end as it happens: the others may take much longer.
            if std::io::stderr().is_terminal() {
                let status = match exit_code(&session, end) {
                    EXIT_COMPLETE => "answered",
                    _ => "stopped",
                };
                eprintln!(
                    "research-tui: {} {status} after {:.1} s",
                    provider.as_str(),
                    timings.total_ms.unwrap_or(0) as f64 / 1000.0
                );
            }
            return Finished {
                provider,
                end: end.clone(),
                session,
                timings,
                session_id,
                saving_failed: saving.failed,
            };
        }
    }
}

/// Print every answer and the overlap in the chosen format; name each failure; the exit code.
fn report(args: &AskArgs, comparison_id: &str, finished: Vec<Finished>) -> ExitCode {
    let attributions: Vec<Attribution> = finished
        .iter()
        .map(|f| Attribution::resolve(&f.session, true))
        .collect();
    let outcomes: Vec<Option<(&'static str, String)>> = finished
        .iter()
        .map(|f| {
            (f.session.error.is_none() && !matches!(f.end, StreamEnd::Closed)).then(|| {
                let http = matches!(f.end, StreamEnd::Http { .. } | StreamEnd::Connect { .. });
                let status = if http { "error" } else { "incomplete" };
                (status, f.end.describe())
            })
        })
        .collect();
    let answers: Vec<Answer<'_>> = finished
        .iter()
        .enumerate()
        .map(|(i, f)| Answer {
            run: AgentRun {
                provider: f.provider.as_str(),
                session: &f.session,
                attribution: &attributions[i],
                timings: f.timings,
                ended: None,
            },
            outcome: outcomes[i].as_ref().map(|(s, why)| (*s, why.as_str())),
            session_id: f.session_id.as_deref(),
        })
        .collect();
    let question = args.question.as_str();
    let out = match args.format {
        Format::Json => {
            let mut text =
                serde_json::to_string_pretty(&render_compare::to_json(question, &answers))
                    .unwrap_or_default();
            text.push('\n');
            text
        }
        Format::Markdown => render_compare::to_markdown(question, &answers),
        Format::Text => {
            render_compare::to_text(question, &answers, crate::cmd::render::output_width())
        }
    };
    {
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(out.as_bytes());
        let _ = stdout.flush();
    }
    let mut code = EXIT_COMPLETE;
    for f in &finished {
        let agent_code = exit_code(&f.session, &f.end);
        if agent_code != EXIT_COMPLETE {
            eprintln!(
                "research-tui: {} failed: {}",
                f.provider.as_str(),
                follow::failure_line(&f.session, &f.end)
            );
            if code == EXIT_COMPLETE {
                code = agent_code;
            }
        }
    }
    if finished.iter().all(|f| !f.saving_failed) {
        if std::io::stderr().is_terminal() {
            eprintln!("research-tui: saved as comparison {comparison_id}");
        }
    } else if code == EXIT_COMPLETE {
        eprintln!(
            "research-tui: every answer is complete, but not every one was saved (see above)"
        );
        return ExitCode::from(EXIT_OTHER);
    }
    ExitCode::from(code)
}
