//! The interactive app's commands: `research-tui [--provider P] [--demo] [--resume CKPT]
//! [--chat-id ID] …`, `research-tui open <ID>`, `research-tui watch [--follow]` and
//! `research-tui replay <FILE>`. Everything that can
//! fail (an unknown session, a provider that does not match the saved session) fails here, before
//! the terminal is touched.

use std::process::ExitCode;
use std::time::Duration;

use crate::agent::client::ApiKey;
use crate::agent::live;
use crate::local::store::{SavedSession, SessionStore};
use crate::wire::provider::{Provider, ProviderOptions};

use crate::tui::TuiOptions;
use crate::tui::state::Continuation;

/// The built-in themes' names, which `--theme` takes (the config file's `theme` may name another:
/// that one is said and replaced by dark, a mistyped flag is a usage error as `--format`'s is).
fn theme_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(crate::styled::theme::BUILTIN.map(|(name, _)| name))
}

/// The help's heading for the options every command takes (the theme, `--debug`, the answer
/// limit), apart from each command's own.
const GLOBAL: &str = "Global options";

/// Options of the interactive app (no subcommand).
#[derive(Debug, clap::Args)]
pub struct TuiArgs {
    /// Use the built-in demo agent (the default when the provider's API key is not set).
    #[arg(long)]
    pub demo: bool,
    /// Color theme: dark, light or high-contrast (default: the config file's, else dark).
    #[arg(long, global = true, value_parser = theme_names(), help_heading = GLOBAL)]
    pub theme: Option<String>,
    /// When the app fails, also print the whole report: each context, the cause, where in the
    /// code; when `ask` does, a cut stream's whole error chain (always written to the log file).
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub debug: bool,
    /// Which agent: Bigdata.com (default; BIGDATA_API_KEY or the config file), xAI (XAI_API_KEY),
    /// Zeta Alpha (ZETA_ALPHA_API_KEY), OpenAI (OPENAI_API_KEY; deep research runs in the
    /// background, resumes after a drop, and Ctrl-C cancels it on the server), Perplexity
    /// (PERPLEXITY_API_KEY), Google Gemini (GEMINI_API_KEY; the Deep Research agent, which
    /// resumes and cancels likewise, or with --model a model grounded with Google Search) or
    /// Anthropic (ANTHROPIC_API_KEY; Claude with web search).
    #[arg(
        long = "provider",
        value_name = "PROVIDER",
        value_parser = crate::cmd::ProviderName,
        value_delimiter = ','
    )]
    pub providers: Vec<Provider>,
    /// The agent's base URL (LIVE mode; Bigdata.com default: BIGDATA_AGENTS_URL, the config file, or
    /// https://agents.bigdata.com).
    #[arg(long)]
    pub base_url: Option<String>,
    /// A first question to ask (the demo asks its own otherwise).
    #[arg(long)]
    pub question: Option<String>,
    /// Continue (or branch) from this checkpoint: a saved session that knows it is opened.
    #[arg(long, value_name = "CKPT", value_parser = crate::cmd::an_id)]
    pub resume: Option<String>,
    /// Continue this conversation: a saved session that knows it is opened (with --resume: from
    /// that checkpoint of it).
    #[arg(long, value_name = "ID", value_parser = crate::cmd::an_id)]
    pub chat_id: Option<String>,
    /// Seconds without data before a stream counts as stalled.
    #[arg(long, value_name = "SECS", default_value_t = 90, value_parser = crate::cmd::seconds_at_least_one)]
    pub idle_timeout: u64,
    /// The model: `base` or `pro` for Bigdata.com; xAI (default grok-4), OpenAI (default
    /// o4-mini-deep-research), Perplexity (default sonar-pro), Gemini (default the Deep Research
    /// agent; a model name such as
    /// gemini-2.5-flash is grounded with Google Search), Anthropic (default claude-sonnet-4-5).
    #[arg(long)]
    pub model: Option<String>,
    /// Anthropic: extended thinking with this budget of tokens (at least 1024); the thinking
    /// shows in Activity, never in the answer.
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u32).range(1024..))]
    pub thinking: Option<u32>,
    /// Zeta Alpha: the tenant.
    #[arg(long)]
    pub tenant: Option<String>,
    /// Zeta Alpha: the agent identifier.
    #[arg(long)]
    pub agent: Option<String>,
    /// Ask the Bigdata.com agent for charts (python code execution with chart generation); also
    /// `charts = true` in the config file.
    #[arg(long)]
    pub charts: bool,
    /// Demo playback speed (for tests).
    #[arg(long, hide = true, default_value_t = 1.0)]
    pub demo_speed: f64,
    /// Make the demo agent misbehave on every request: cut, stall or status=N (for tests).
    #[arg(long, hide = true, value_name = "cut|stall|status=N")]
    pub demo_fault: Option<crate::demo::Fault>,
    /// Quit a moment after the first answer ends (for tests).
    #[arg(long, hide = true)]
    pub exit_when_done: bool,
    #[command(flatten)]
    pub otlp: crate::otel::OtlpArgs,
    /// Cut an answer that grows past this many MiB, saying so (every command that streams).
    #[arg(
        long,
        global = true,
        help_heading = GLOBAL,
        value_name = "MIB",
        env = "RESEARCH_TUI_MAX_ANSWER_MIB",
        default_value_t = 64,
        value_parser = clap::value_parser!(u64).range(1..=1 << 20)
    )]
    pub max_answer_mib: u64,
}

/// The global options on a command that prints no answer (`completions`, `man`, `serve`,
/// `sessions`): taken there as everywhere (an invocation that gave them keeps working; they
/// change nothing), but hidden from its help and its manual section (the completion scripts still
/// offer them after it, as they did). clap copies a global option into every subcommand that has
/// no argument of its id, so declaring them here keeps the copies out.
#[derive(Debug, Clone, clap::Args)]
pub struct GlobalsUnused {
    /// Color theme: dark, light or high-contrast (default: the config file's, else dark)
    #[arg(long, hide = true, value_parser = theme_names())]
    pub theme: Option<String>,
    /// When the app fails, also print the whole report: each context, the cause, where in the
    /// code; when `ask` does, a cut stream's whole error chain (always written to the log file).
    #[arg(long, hide = true)]
    pub debug: bool,
    /// Cut an answer that grows past this many MiB, saying so (every command that streams).
    #[arg(long, hide = true, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub max_answer_mib: Option<u64>,
}

/// `research-tui open <ID>`.
#[derive(Debug, clap::Args)]
pub struct OpenArgs {
    /// The session id (see `research-tui sessions`).
    #[arg(value_parser = crate::cmd::an_id)]
    pub id: String,
    /// Seconds without data before a follow-up's stream counts as stalled.
    #[arg(long, value_name = "SECS", default_value_t = 90, value_parser = crate::cmd::seconds_at_least_one)]
    pub idle_timeout: u64,
    /// Demo playback speed for follow-ups of a demo session (for tests).
    #[arg(long, hide = true, default_value_t = 1.0)]
    pub demo_speed: f64,
    /// Play the session turn by turn at the pace it arrived, scaled: a factor (2 = twice as fast)
    /// or `max`; without it, every turn is shown at once.
    #[arg(long, value_name = "FACTOR|max", allow_negative_numbers = true)]
    pub speed: Option<crate::agent::replay::Speed>,
    /// Quit a moment after the last turn has played (for tests).
    #[arg(long, hide = true)]
    pub exit_when_done: bool,
    #[command(flatten)]
    pub otlp: crate::otel::OtlpArgs,
}

/// `research-tui watch [--follow]`.
#[derive(Debug, clap::Args)]
pub struct WatchArgs {
    /// Also switch to each new session as it starts (a terminal kept open beside a notebook).
    #[arg(long)]
    pub follow: bool,
    /// Seconds without data before a follow-up's stream counts as stalled.
    #[arg(long, value_name = "SECS", default_value_t = 90, value_parser = crate::cmd::seconds_at_least_one)]
    pub idle_timeout: u64,
    /// Demo playback speed for follow-ups of a demo session (for tests).
    #[arg(long, hide = true, default_value_t = 1.0)]
    pub demo_speed: f64,
}

fn fail(code: u8, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("research-tui: {message}");
    ExitCode::from(code)
}

/// `research-tui --provider a,b[,c] [--question Q]`: one question to several agents, side by side.
fn compare(args: TuiArgs) -> ExitCode {
    let mut seen = Vec::new();
    for provider in &args.providers {
        if seen.contains(provider) {
            return fail(
                2,
                format_args!(
                    "{} is named twice in --provider: name each agent once",
                    provider.as_str()
                ),
            );
        }
        seen.push(*provider);
    }
    let single = [
        (args.resume.is_some(), "--resume"),
        (args.chat_id.is_some(), "--chat-id"),
        (args.base_url.is_some(), "--base-url"),
        (args.model.is_some(), "--model"),
    ];
    if let Some((_, flag)) = single.iter().find(|(given, _)| *given) {
        return fail(
            2,
            format_args!("{flag} goes with one agent, not a comparison"),
        );
    }
    crate::tui::run_compare_blocking(
        TuiOptions {
            demo: args.demo,
            demo_speed: args.demo_speed,
            demo_fault: args.demo_fault,
            theme: args.theme,
            question: args.question,
            idle_timeout: Duration::from_secs(args.idle_timeout.max(1)),
            debug: args.debug,
            store: Some(SessionStore::default()),
            ..TuiOptions::default()
        },
        crate::tui::compare::Start::Ask(args.providers),
    )
}

/// The app with no subcommand.
pub fn run(args: TuiArgs) -> ExitCode {
    // Several agents: the comparison, each agent in its own column.
    if args.providers.len() > 1 {
        return compare(args);
    }
    let requested = args.providers.first().copied();
    let otlp = match args.otlp.config() {
        Ok(otlp) => otlp,
        Err(message) => return fail(2, message),
    };
    let store = SessionStore::default();
    let checkpoint_id = match args.resume.as_deref().filter(|c| !c.trim().is_empty()) {
        Some(typed) => match store.checkpoint_id(typed) {
            Ok(id) => Some(id),
            Err(why) => return fail(2, why),
        },
        None => None,
    };
    let resume = Continuation {
        chat_id: args.chat_id.clone().filter(|c| !c.trim().is_empty()),
        checkpoint_id,
        from_turn: None,
    };
    let known = if resume == Continuation::default() {
        None
    } else {
        store.find(resume.checkpoint_id.as_deref(), resume.chat_id.as_deref())
    };
    if let Some(saved) = &known {
        let saved_provider = saved_provider(saved);
        if let Some(provider) = requested
            && provider != saved_provider
        {
            return fail(
                2,
                format_args!(
                    "session {} was saved with --provider {}, not {}",
                    saved.meta.id,
                    saved_provider.as_str(),
                    provider.as_str()
                ),
            );
        }
    }
    let provider = known
        .as_ref()
        .map(saved_provider)
        .or(requested)
        .unwrap_or_default();
    if let Some(url) = &args.base_url
        && let Err(message) = crate::agent::client::check_base_url_flag(url)
    {
        return fail(2, message);
    }
    // As `ask` checks them; a person at the app is told at once (a line said before the app
    // starts would be drawn over), so another agent's setting is refused, not just said.
    if provider == Provider::Bigdata
        && let Err(message) = crate::cmd::ask::bigdata_model(args.model.as_deref())
    {
        return fail(2, message);
    }
    let tenant = args.tenant.is_some();
    if let Some(note) =
        crate::cmd::ask::settings_of_others(provider, tenant, args.thinking.is_some()).first()
    {
        return fail(
            2,
            format_args!("{note} (drop it, or choose that --provider)"),
        );
    }
    let (base_url, api_key, keyless) = match agent_target(provider, &args) {
        Ok(target) => target,
        Err(exit) => return exit,
    };
    crate::tui::run_blocking(TuiOptions {
        // A saved session is opened on the agent that answered it, unless `--demo` says otherwise
        // (with `--base-url` too: its follow-ups never go to the live provider with a key). The
        // agent a new conversation asks is `keyless`'s when that is set (see `start_agent`).
        demo: args.demo || (known.is_none() && api_key.is_none() && !keyless),
        keyless,
        demo_speed: args.demo_speed,
        demo_fault: args.demo_fault,
        provider,
        base_url,
        api_key,
        exit_when_done: args.exit_when_done,
        theme: args.theme,
        question: args.question,
        idle_timeout: Duration::from_secs(args.idle_timeout.max(1)),
        resume,
        open: known,
        open_speed: None,
        store: Some(store),
        replay: None,
        provider_options: ProviderOptions {
            model: args.model,
            // `--demo --base-url`: the running demo agent is asked as the built-in one is.
            tenant: args.tenant.or_else(|| {
                (args.demo && keyless)
                    .then(|| provider.spec().demo.tenant.map(str::to_owned))
                    .flatten()
            }),
            agent: args.agent,
            charts: args.charts || charts_in_config(),
            thinking: args.thinking,
        },
        debug: args.debug,
        watch: None,
        keys: Default::default(),
        otlp,
    })
}

/// `research-tui open <ID> [--speed F]`: the saved session rebuilt at once (or played at its
/// recorded pace), ready for a follow-up.
pub fn open(args: OpenArgs, theme: Option<String>, debug: bool) -> ExitCode {
    let store = SessionStore::default();
    let id = match store.session_id(&args.id) {
        Ok(id) => id,
        Err(why) => return fail(1, why),
    };
    let saved = match store.load(&id) {
        Ok(saved) => saved,
        Err(e) => {
            return fail(1, format_args!("cannot open session {:?}: {e}", args.id));
        }
    };
    // One agent of a comparison: the comparison reopens as a whole.
    if let Some(comparison) = saved.meta.comparison.clone() {
        let mut ids: Vec<String> = store
            .list()
            .into_iter()
            .filter(|meta| meta.comparison.as_deref() == Some(comparison.as_str()))
            .map(|meta| meta.id)
            .collect();
        ids.sort();
        let sessions: Vec<SavedSession> = ids.iter().filter_map(|id| store.load(id).ok()).collect();
        return crate::tui::run_compare_blocking(
            TuiOptions {
                demo_speed: args.demo_speed,
                theme,
                idle_timeout: Duration::from_secs(args.idle_timeout.max(1)),
                store: Some(store),
                debug,
                ..TuiOptions::default()
            },
            crate::tui::compare::Start::Open(sessions),
        );
    }
    let otlp = match args.otlp.config() {
        Ok(otlp) => otlp,
        Err(message) => return fail(2, message),
    };
    crate::tui::run_blocking(TuiOptions {
        provider: saved_provider(&saved),
        otlp,
        demo_speed: args.demo_speed,
        theme,
        idle_timeout: Duration::from_secs(args.idle_timeout.max(1)),
        open: Some(saved),
        open_speed: args.speed,
        exit_when_done: args.exit_when_done,
        store: Some(store),
        debug,
        ..TuiOptions::default()
    })
}

/// `research-tui watch [--follow]`: the newest session being written on this machine, followed as
/// it streams (waiting for one when none is); with `--follow`, each new one as it starts.
pub fn watch(args: WatchArgs, theme: Option<String>, debug: bool) -> ExitCode {
    crate::tui::run_blocking(TuiOptions {
        demo_speed: args.demo_speed,
        theme,
        idle_timeout: Duration::from_secs(args.idle_timeout.max(1)),
        store: Some(SessionStore::default()),
        debug,
        watch: Some(args.follow),
        ..TuiOptions::default()
    })
}

fn saved_provider(saved: &SavedSession) -> Provider {
    <Provider as clap::ValueEnum>::from_str(&saved.meta.provider, true).unwrap_or_default()
}

/// The base URL and key for LIVE mode (no key: the demo). Bigdata.com reads the shared config
/// (environment or private config file); xAI and Zeta Alpha their environment variables.
/// `charts = true` in the config file (a file that cannot be read says nothing here: the theme
/// reports it).
fn charts_in_config() -> bool {
    let path = crate::local::config::config_file();
    crate::local::config::read_file_config(&path).is_ok_and(|c| c.charts)
}

/// Where the app's questions go, as `ask` sends them: the base URL, the key, and whether the agent
/// there is asked without one (`keyless`). `--demo` alone is the built-in demo agent; `--demo
/// --base-url URL` the demo agent already running at URL (`research-tui serve`). Without a key an
/// agent on this machine is asked as it is (a `serve`, a local gateway); `--base-url` naming any
/// other is refused, as `ask` refuses it, rather than answered by the built-in demo in its place.
/// With no key and no `--base-url` the built-in demo answers (the documented default).
fn agent_target(
    provider: Provider,
    args: &TuiArgs,
) -> Result<(String, Option<ApiKey>, bool), ExitCode> {
    if args.demo {
        return Ok(match &args.base_url {
            Some(url) => (url.trim().trim_end_matches('/').to_owned(), None, true),
            None => (live::default_base_url(provider).to_owned(), None, false),
        });
    }
    let target = crate::local::config::live_target(provider, args.base_url.as_deref())
        .map_err(|e| fail(1, e))?;
    if target.api_key.is_some() {
        return Ok((target.base_url, target.api_key, false));
    }
    if crate::agent::client::is_loopback(&target.base_url) {
        return Ok((target.base_url, None, true));
    }
    match &args.base_url {
        Some(_) => Err(fail(
            2,
            format_args!(
                "no API key for --base-url {}: {} (only an agent on this machine is asked without one; --demo --base-url asks a demo agent running there)",
                crate::render::sanitize::sanitize_line(&target.base_url),
                target.key_hint
            ),
        )),
        None => Ok((target.base_url, None, false)),
    }
}

/// `research-tui replay <FILE>`: play a recording in the app with its pacing (nothing is saved).
pub fn replay(
    replay: crate::tui::ReplayOptions,
    exit_when_done: bool,
    theme: Option<String>,
    debug: bool,
) -> ExitCode {
    // A file without events research-tui reads (an empty file, a README) fails here as `render`
    // does, before the screen is taken over (a missing one is reported by the app's start-up).
    let name = replay.path.to_string_lossy().into_owned();
    if replay.path.is_dir() {
        eprintln!("{}", super::render::a_directory(&name));
        return ExitCode::from(1);
    }
    // Activity is never taken back: once the recording gave some, the whole of it is readable
    // too, so the check stops there rather than decoding it all before the player does.
    let settled = |s: &crate::model::session::Session| s.stats.events > 0 && !s.activity.is_empty();
    if let Ok(file) = std::fs::File::open(&replay.path)
        && let Ok(session) = crate::wire::input::read_session_until(file, replay.provider, settled)
        && let Some(line) = super::render::unreadable(&session, &name, replay.provider)
    {
        eprintln!("{line}");
        return ExitCode::from(1);
    }
    crate::tui::run_blocking(TuiOptions {
        replay: Some(replay),
        exit_when_done,
        theme,
        debug,
        store: None,
        ..Default::default()
    })
}
