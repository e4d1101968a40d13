//! `research-tui ask`: one question (or a follow-up, or a resumed checkpoint) from a script.
//!
//! Streams the answer to stdout as it arrives (`text`), or prints the core's Markdown/JSON at the
//! end. Progress goes to stderr when stderr is a terminal. Every run is saved as a session on disk.
//! Exit codes: 0 complete · 2 usage · 3 HTTP error before the stream · 4 ERROR event · 5 the stream
//! was cut or stalled before COMPLETE · 1 anything else (a complete answer that could not be saved
//! too).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

mod compare;
mod follow;
mod interrupt;
mod plan;
mod printer;
mod progress;
mod stdin;

pub use follow::exit_code;
use follow::{Saving, follow_turn, print_result};
use interrupt::Interrupt;
use plan::{Plan, build_request};
pub(crate) use plan::{bigdata_model, settings_of_others};
use printer::TextPrinter;
use progress::ProgressLine;

use crate::agent::client::{
    AgentClient, ApiKey, RawSink, StreamOptions, check_base_url, check_base_url_flag, is_loopback,
};
use crate::agent::live;
use crate::agent::stream::StreamUpdate;
use crate::agent::turn::TurnDriver;
use crate::local::store::{SavedSession, SavedTurn, SessionStore};
use crate::model::citations::Attribution;
use crate::model::event::AgentEvent;
use crate::model::session::Session;
use crate::model::stream_end::StreamEnd;
use crate::render::Format;
use crate::render::sanitize::sanitize_line;
use crate::wire::provider::bigdata::request::{
    Effort, MODEL_NAMES, ResearchRequest, TIME_RANGES, WORKFLOW, WorkflowRequest,
};
use crate::wire::provider::{Ask, Provider, ProviderOptions};

pub const EXIT_COMPLETE: u8 = 0;
pub const EXIT_OTHER: u8 = 1;
pub const EXIT_USAGE: u8 = 2;
pub const EXIT_HTTP: u8 = 3;
pub const EXIT_AGENT_ERROR: u8 = 4;
pub const EXIT_INCOMPLETE: u8 = 5;

#[derive(Debug, Clone, clap::Args)]
pub struct AskArgs {
    /// The question, or `-` to read it from standard input (for a workflow: an optional note; the
    /// template drives the run).
    pub question: String,
    /// Output: `text` streams the answer as it arrives; `markdown`/`json` print at the end.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Research effort.
    #[arg(long, value_enum, default_value_t = Effort::Standard)]
    pub effort: Effort,
    /// Model: `base` or `pro` for Bigdata.com; a model name for xAI (default grok-4), OpenAI
    /// (default o4-mini-deep-research), Perplexity (default sonar-pro) or Anthropic (default
    /// claude-sonnet-4-5); for Gemini a model grounded with Google Search (e.g. gemini-2.5-flash)
    /// instead of the Deep Research agent.
    #[arg(long)]
    pub model: Option<String>,
    /// Anthropic: extended thinking with this budget of tokens (at least 1024); the thinking
    /// shows in Activity, never in the answer.
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u32).range(1024..))]
    pub thinking: Option<u32>,
    /// Which agent: Bigdata.com (default), xAI (XAI_API_KEY), Zeta Alpha (ZETA_ALPHA_API_KEY),
    /// OpenAI (OPENAI_API_KEY), Perplexity (PERPLEXITY_API_KEY), Google Gemini (GEMINI_API_KEY) or
    /// Anthropic (ANTHROPIC_API_KEY). Several, comma-separated (`bigdata,openai,perplexity`), ask
    /// them all at once and compare their answers and sources.
    #[arg(
        long = "provider",
        value_name = "PROVIDER",
        value_parser = crate::cmd::ProviderName,
        value_delimiter = ',',
        default_value = "bigdata"
    )]
    pub providers: Vec<Provider>,
    /// The one agent this run asks (the first of `--provider`; each agent of a comparison in turn).
    #[arg(skip = Provider::Bigdata)]
    pub provider: Provider,
    /// Zeta Alpha: the tenant.
    #[arg(long)]
    pub tenant: Option<String>,
    /// Zeta Alpha: the agent identifier.
    #[arg(long)]
    pub agent: Option<String>,
    /// Keep the conversation beyond an hour (persistence_mode enabled).
    #[arg(long)]
    pub persist: bool,
    /// A JSON Schema file: the agent also returns STRUCTURED_OUTPUT.
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,
    /// Guidance on tone and structure of the answer.
    #[arg(long, value_name = "TEXT")]
    pub expected_output: Option<String>,
    /// Ask the Bigdata.com agent for charts (python code execution with chart generation).
    #[arg(long)]
    pub charts: bool,
    /// Run a workflow: a template id, or a path to a JSON file holding an inline template.
    #[arg(long, value_name = "TEMPLATE", value_parser = crate::cmd::a_workflow)]
    pub workflow: Option<String>,
    /// A workflow input, `key=value` (repeatable).
    #[arg(long = "input", value_name = "KEY=VALUE")]
    pub inputs: Vec<String>,
    /// Workflow time range.
    #[arg(long, value_name = "RANGE", value_parser = clap::builder::PossibleValuesParser::new(TIME_RANGES))]
    pub time_range: Option<String>,
    /// Resume a workflow run.
    #[arg(long, value_name = "ID", value_parser = crate::cmd::an_id)]
    pub execution_id: Option<String>,
    /// Continue this conversation (with --resume: from that checkpoint of it).
    #[arg(long, value_name = "ID", value_parser = crate::cmd::an_id)]
    pub chat_id: Option<String>,
    /// Resume (or branch) from this checkpoint id (with --chat-id: of that conversation).
    #[arg(long, value_name = "CKPT", value_parser = crate::cmd::an_id)]
    pub resume: Option<String>,
    /// Also write the raw stream to FILE (and when each part of it arrived to FILE.times).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Seconds without data before the stream counts as stalled.
    #[arg(long, value_name = "SECS", default_value_t = 90, value_parser = crate::cmd::seconds_at_least_one)]
    pub idle_timeout: u64,
    /// The agent's base URL (also BIGDATA_AGENTS_URL).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Ask the built-in demo agent instead (no key, no network).
    #[arg(long)]
    pub demo: bool,
    /// Demo playback speed (for tests).
    #[arg(long, hide = true, default_value_t = 1.0)]
    pub demo_speed: f64,
    #[command(flatten)]
    pub otlp: crate::otel::OtlpArgs,
}

fn usage(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("research-tui: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// `research-tui ask`; `debug` (`--debug`) also prints, after the line saying why a turn did not
/// complete, what this run wrote to the diagnostic log (a cut stream's whole error chain).
pub fn run_cli(mut args: AskArgs, debug: bool) -> ExitCode {
    if args.question == "-" {
        match stdin::question() {
            Ok(question) if question.is_empty() && args.workflow.is_none() => {
                return usage(
                    "standard input held no question (`ask -` reads the question from it: \
                     echo 'What changed?' | research-tui ask -)",
                );
            }
            Ok(question) => args.question = question,
            Err(message) => return usage(message),
        }
    }
    if args.question.trim().is_empty() && args.workflow.is_none() {
        return usage("the question is empty");
    }
    // Diagnostics (a cut stream's error chain) go to the log file, as the app's do (opened once
    // the question is known good: a usage error writes nothing).
    let _ = crate::log::init(&crate::local::config::log_file());
    if args.providers.len() > 1 {
        let code = compare::run_cli(args);
        if debug && code != ExitCode::SUCCESS {
            print_this_runs_log();
        }
        return code;
    }
    args.provider = args.providers.first().copied().unwrap_or(Provider::Bigdata);
    if let Err(message) = args.otlp.config() {
        return usage(message);
    }
    let store = SessionStore::default();
    // A unique prefix of a saved checkpoint is that checkpoint, sent whole.
    if let Some(typed) = args.resume.take() {
        match store.checkpoint_id(&typed) {
            Ok(id) => args.resume = Some(id),
            Err(why) => return usage(why),
        }
    }
    let target = if args.demo {
        match demo_url(&args) {
            Ok(url) => url.map(|url| (url, None)),
            Err(exit) => return exit,
        }
    } else {
        match live_target(&args) {
            Ok(target) => Some(target),
            Err(exit) => return exit,
        }
    };
    let known = store.find(args.resume.as_deref(), args.chat_id.as_deref());
    // As the app says it: an id no saved session knows is still sent (another machine's, a
    // session deleted), but not in silence.
    if known.is_none()
        && let Some(unknown) = crate::local::ids::unknown_continuation(
            args.resume.as_deref(),
            args.chat_id.as_deref(),
            "the question is sent with it",
        )
    {
        eprintln!("research-tui: {unknown}");
    }
    let plan = match build_request(&args, known.as_ref()) {
        Ok(plan) => plan,
        Err(message) => return usage(message),
    };
    let runtime = match crate::runtime() {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    runtime.block_on(ask(args, target, store, known, plan, debug))
}

/// The base URL and key for a live request, or the exit to take. An agent on this machine (a
/// `research-tui serve`, a local gateway) may be asked without a key; every other needs one.
fn live_target(args: &AskArgs) -> Result<(String, Option<ApiKey>), ExitCode> {
    if let Some(url) = &args.base_url
        && let Err(message) = check_base_url_flag(url)
    {
        return Err(usage(message));
    }
    let target = crate::local::config::live_target(args.provider, args.base_url.as_deref())
        .map_err(|e| {
            eprintln!("research-tui: {e}");
            ExitCode::from(EXIT_OTHER)
        })?;
    if let Err(why) = check_base_url(&target.base_url) {
        eprintln!(
            "research-tui: the configured base URL {:?} cannot be used: {why} (BIGDATA_AGENTS_URL, or base_url in the config file)",
            sanitize_line(&target.base_url)
        );
        return Err(ExitCode::from(EXIT_OTHER));
    }
    match target.api_key {
        Some(key) => Ok((target.base_url, Some(key))),
        None if is_loopback(&target.base_url) => Ok((target.base_url, None)),
        None => Err(usage(format_args!(
            "no API key: {}, or try --demo",
            target.key_hint
        ))),
    }
}

/// `--demo --base-url URL`: the demo agent already running at URL (`research-tui serve`), asked
/// without a key; `None` when `--demo` starts its own.
fn demo_url(args: &AskArgs) -> Result<Option<String>, ExitCode> {
    let Some(url) = &args.base_url else {
        return Ok(None);
    };
    check_base_url_flag(url).map_err(usage)?;
    Ok(Some(url.trim().trim_end_matches('/').to_owned()))
}

/// Ask the question: start the turn (saved as a session, teed to `--record FILE`), follow it to its
/// end, then print the result.
async fn ask(
    args: AskArgs,
    target: Option<(String, Option<ApiKey>)>,
    store: SessionStore,
    known: Option<SavedSession>,
    plan: Plan,
    debug: bool,
) -> ExitCode {
    let (base_url, api_key, _server) = match agent_base(&args, target).await {
        Ok(base) => base,
        Err(exit) => return exit,
    };

    // Started now, so its connection opens while the agent answers (see `otel::export`).
    let exporter = match args.otlp.start(api_key.as_ref().map(|key| key.expose())) {
        Ok(exporter) => exporter,
        Err(message) => return usage(message),
    };
    let endpoint = match plan {
        Plan::Workflow(_) => WORKFLOW.name,
        Plan::Research(_) | Plan::Other(_) => args.provider.spec().endpoint().name,
    };
    // The record file first: failing to create it must not leave a dangling turn behind.
    let mut sinks = match record_sink(&args) {
        Ok(sinks) => sinks,
        Err(exit) => return exit,
    };
    let provider_options = provider_options(&args, known.as_ref());
    let saved = match known {
        Some(saved) => Ok(saved),
        None => store.create(endpoint, args.provider.as_str(), &base_url),
    };
    let recorder = begin_saved_turn(saved, &args, provider_options.clone()).map(|(turn, sink)| {
        sinks.push(sink);
        turn
    });
    let mut saving = Saving {
        failed: recorder.is_none(),
    };

    // Listening for Ctrl-C before the request leaves (see `Interrupt`).
    let mut interrupt = Interrupt::listen();
    let target = (base_url.as_str(), api_key);
    let driver = start_turn(&args, plan, target, &provider_options, sinks, recorder);

    let progress = std::io::stderr().is_terminal();
    let saved_as = driver
        .recorder()
        .map(|turn| turn.saved.meta.id.clone())
        .filter(|_| progress);
    // Where the turn is saved, arrival times beside it: its timeline once it ends.
    let saved_stream = driver.recorder().and_then(|turn| {
        let meta = turn.saved.meta.turns.get(turn.index)?;
        turn.saved.stream_path(meta)
    });
    let saved_turn = driver.recorder().map(|turn| crate::otel::TurnRef {
        dir: turn.saved.dir().to_path_buf(),
        index: turn.index,
        key: Default::default(),
    });
    let mut printer = TextPrinter::for_stdout();
    let (session, end) = follow_turn(
        driver,
        args.format,
        progress,
        &mut printer,
        &mut saving,
        &mut interrupt,
    )
    .await;
    let timeline = saved_stream
        .and_then(|path| crate::agent::replay::saved_timeline(&path, Some(args.provider)));
    // Sent while the result prints; what is left is waited for at the end, briefly.
    if let (Some(exporter), Some(turn)) = (&exporter, saved_turn) {
        exporter.turn(turn);
    }
    let code = print_result(args.format, &mut printer, session, &end, timeline.as_ref());
    if debug && code != EXIT_COMPLETE {
        print_this_runs_log();
    }
    crate::otel::finish(exporter.as_ref()).await;
    // Named on a terminal once the answer is printed, not between its last lines.
    if let Some(id) = saved_as.filter(|_| !saving.failed) {
        eprintln!("research-tui: saved as session {id}");
    }
    if saving.failed && code == EXIT_COMPLETE {
        eprintln!("research-tui: the answer is complete, but it was not saved (see above)");
        return ExitCode::from(EXIT_OTHER);
    }
    ExitCode::from(code)
}

/// The provider's options for this turn: what the user says now wins; a continued session
/// supplies what they left out.
fn provider_options(args: &AskArgs, known: Option<&SavedSession>) -> ProviderOptions {
    let saved_options = known.map(|s| s.meta.options.clone()).unwrap_or_default();
    ProviderOptions {
        model: args
            .model
            .clone()
            .filter(|_| args.provider != Provider::Bigdata)
            .or(saved_options.model),
        tenant: args.tenant.clone().or(saved_options.tenant),
        agent: args.agent.clone().or(saved_options.agent),
        charts: args.charts || saved_options.charts,
        thinking: args.thinking.or(saved_options.thinking),
    }
}

/// Send the question `plan` holds to `base_url` with `api_key`, the stream saved by `recorder` and
/// copied to `sinks`.
fn start_turn(
    args: &AskArgs,
    plan: Plan,
    (base_url, api_key): (&str, Option<ApiKey>),
    provider_options: &ProviderOptions,
    sinks: Vec<RawSink>,
    recorder: Option<SavedTurn>,
) -> TurnDriver<SavedTurn> {
    let options = StreamOptions {
        idle_timeout: Duration::from_secs(args.idle_timeout.max(1)),
        ..StreamOptions::default()
    };
    TurnDriver::start(sinks, recorder, |sink| match plan {
        Plan::Research(request) => {
            AgentClient::new(base_url, api_key).research_recorded(request, options, sink)
        }
        Plan::Workflow(request) => {
            AgentClient::new(base_url, api_key).workflow_recorded(request, options, sink)
        }
        Plan::Other(ask) => {
            let config = live::LiveConfig {
                base_url: base_url.to_owned(),
                tenant: args.demo.then(|| "demo".to_owned()),
                options,
                ..live::LiveConfig::new(args.provider, api_key)
            }
            .with_options(provider_options);
            live::start_recorded(&config, &ask, sink)
        }
    })
}

/// The agent's base URL and key, and the built-in demo agent's task when `--demo` started one here.
type AgentBase = (String, Option<ApiKey>, Option<tokio::task::JoinHandle<()>>);

/// Where to send the question: the built-in demo agent (started now), or the live target.
async fn agent_base(
    args: &AskArgs,
    target: Option<(String, Option<ApiKey>)>,
) -> Result<AgentBase, ExitCode> {
    if let Some((base_url, key)) = target {
        return Ok((base_url, key, None));
    }
    let server_config = crate::demo::ServerConfig {
        speed: args.demo_speed,
        // A fresh demo agent never issued the checkpoint a resumed conversation names.
        accept_foreign_checkpoints: args.resume.is_some() || args.chat_id.is_some(),
        ..Default::default()
    };
    match crate::demo::spawn(server_config, 0).await {
        Ok((addr, task)) => Ok((format!("http://{addr}"), None, Some(task))),
        Err(e) => {
            eprintln!("research-tui: cannot start the demo agent: {e}");
            Err(ExitCode::from(EXIT_OTHER))
        }
    }
}

/// `--record FILE` as the first raw sink (none without it), or the exit when it cannot be created.
fn record_sink(args: &AskArgs) -> Result<Vec<RawSink>, ExitCode> {
    let Some(path) = &args.record else {
        return Ok(Vec::new());
    };
    let file = match std::fs::File::create(path) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("research-tui: {}", crate::report::cannot_write(path, &e));
            return Err(ExitCode::from(EXIT_OTHER));
        }
    };
    let times = record_times(path, &file);
    Ok(vec![Arc::new(Mutex::new(
        crate::local::session_files::TurnFile::recording(file, times),
    )) as RawSink])
}

/// `FILE.times` beside a `--record FILE`, as a saved turn's are (`replay FILE` plays it at its
/// pace): only beside a regular file (`/dev/stdout` or a pipe has no "beside"), and only if it can
/// be written; without it the recording goes on, timeless, saying so.
fn record_times(path: &std::path::Path, file: &std::fs::File) -> Option<std::fs::File> {
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut times = path.as_os_str().to_owned();
    times.push(crate::wire::arrivals::SUFFIX);
    let times = PathBuf::from(times);
    std::fs::File::create(&times)
        .inspect_err(|e| {
            eprintln!(
                "research-tui: recording without arrival times: cannot write {}: {e}",
                sanitize_line(&times.display().to_string())
            );
        })
        .ok()
}

/// A new turn in `saved` for this question, and the sink its raw bytes go to; an error on stderr and
/// `None` when the run cannot be saved (it goes on, and fails at the end).
fn begin_saved_turn(
    saved: std::io::Result<SavedSession>,
    args: &AskArgs,
    provider_options: ProviderOptions,
) -> Option<(SavedTurn, RawSink)> {
    let begun = saved.and_then(|mut saved| {
        // Begun first: when a stopped writer holds the session, the turn goes to a branch of it.
        let writer = saved.begin_turn(&args.question, args.resume.as_deref())?;
        if let Some(diverted) = saved.take_diverted() {
            eprintln!("research-tui: {}", sanitize_line(&diverted));
        }
        // The turn is begun: a failure to keep the options must not leave it unwritten.
        if let Err(e) = saved.set_options(provider_options) {
            eprintln!("research-tui: the session's options could not be saved: {e}");
        }
        Ok(SavedTurn::new(saved, writer))
    });
    begun
        .inspect_err(|e| eprintln!("research-tui: error: this run cannot be saved: {e}"))
        .ok()
}

/// `--debug`'s addition once a turn did not complete: what this run wrote to the diagnostic log.
fn print_this_runs_log() {
    for line in crate::log::this_run() {
        eprintln!("research-tui: debug: {line}");
    }
}
