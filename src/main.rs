//! The `research-tui` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use research_tui::render::Format;
use research_tui::wire::provider::Provider;

#[derive(Debug, Parser)]
#[command(
    name = "research-tui",
    // The package version and, when built from a git checkout, the commit (build.rs).
    version = env!("RESEARCH_TUI_VERSION"),
    about = "Watch research-agent sessions: plan, thinking, tool calls, and the answer with exact citations"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    tui: research_tui::cmd::app::TuiArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Render a recorded stream (a file, or `-` for stdin) as Markdown, JSON or text.
    Render {
        /// The recording, or `-` to read standard input as it arrives.
        file: String,
        /// markdown: the answer with [^n] footnotes; json: one object (answer, sources,
        /// citations, charts, status); text: for reading, charts drawn in Unicode.
        #[arg(long, value_enum, default_value_t = Format::Markdown)]
        format: Format,
        /// The wire format (default: detected from the first events).
        #[arg(long, value_enum)]
        provider: Option<Provider>,
    },
    /// Replay a recorded stream in the interactive app, with its original pacing.
    Replay {
        /// The recording (SSE, optionally with `: delay=MS` comments), or a saved turn's file
        /// (played at the pace it arrived, from the arrival times kept beside it).
        file: PathBuf,
        /// Playback speed: a factor (2 = twice as fast) or `max` (no pauses).
        // A negative factor is a value (refused as one), not a flag.
        #[arg(long, default_value = "1", allow_negative_numbers = true)]
        speed: research_tui::agent::replay::Speed,
        /// Quit a moment after the stream ends.
        #[arg(long)]
        exit_when_done: bool,
        /// The wire format (detected from the stream when left out).
        #[arg(long, value_enum)]
        provider: Option<Provider>,
    },
    /// Run the built-in demo agent (every provider's wire protocol, recorded sessions) on 127.0.0.1.
    Serve(research_tui::cmd::serve::ServeArgs),
    /// Record every research session programs on this machine start: a local proxy for the agent APIs.
    Proxy(research_tui::cmd::proxy::ProxyArgs),
    /// Ask a question (or follow up, or resume a checkpoint) and print the answer: for scripts.
    Ask(Box<research_tui::cmd::ask::AskArgs>),
    /// Open a saved session in the interactive app, ready for a follow-up.
    Open(research_tui::cmd::app::OpenArgs),
    /// Watch the newest session being written on this machine (by `ask`, the app, the proxy), live.
    ///
    /// Waits for one when none is; `--follow` switches to each new session as it starts.
    Watch(research_tui::cmd::app::WatchArgs),
    /// List saved sessions, newest first (or those matching --search, best first).
    // Each way to call it on a line of its own: clap's own usage line, printed with an error,
    // named the combination just refused.
    #[command(override_usage = "research-tui sessions [--json] [ID]...\n       \
        research-tui sessions --search <TEXT> [--json]\n       \
        research-tui sessions --delete <ID>...\n       \
        research-tui sessions --export-otlp [ID]...")]
    Sessions {
        /// One JSON object per line instead of a table.
        #[arg(long)]
        json: bool,
        /// Only sessions whose questions, answers or source titles match TEXT (fuzzy), best first.
        #[arg(long, value_name = "TEXT", value_parser = search_text)]
        search: Option<String>,
        /// Send saved sessions (all, or the IDs given) to the OpenTelemetry collector, one trace
        /// per turn (OTEL_EXPORTER_OTLP_ENDPOINT or --otlp-endpoint; docs/opentelemetry.md).
        #[arg(long, conflicts_with_all = ["json", "search"])]
        export_otlp: bool,
        /// Delete the sessions the IDs name (whole ids or unique prefixes): their folders go.
        #[arg(long, requires = "ids", conflicts_with_all = ["json", "search", "export_otlp"])]
        delete: bool,
        /// Only these sessions (whole ids or unique prefixes); with --export-otlp, the ones sent.
        #[arg(value_name = "ID", conflicts_with = "search", value_parser = research_tui::cmd::an_id)]
        ids: Vec<String>,
        #[command(flatten)]
        otlp: research_tui::otel::OtlpArgs,
        #[command(flatten)]
        unused: research_tui::cmd::app::GlobalsUnused,
    },
    /// Print a shell completion script for bash, zsh, fish, elvish or powershell.
    ///
    /// For example: `research-tui completions bash > ~/.local/share/bash-completion/completions/research-tui`.
    Completions {
        /// The shell the script is for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
        #[command(flatten)]
        unused: research_tui::cmd::app::GlobalsUnused,
    },
    /// Print the manual page (roff), every subcommand on one page.
    ///
    /// Read it with `research-tui man | man -l -`, or install it as
    /// `~/.local/share/man/man1/research-tui.1`.
    Man {
        #[command(flatten)]
        unused: research_tui::cmd::app::GlobalsUnused,
    },
}

fn main() -> ExitCode {
    // color-eyre's report handler and panic hook (one line for a person, the whole report in the log
    // and with --debug).
    research_tui::report::install();
    // rustls's crypto provider (ring) before anything can build an HTTP client.
    research_tui::agent::http::install_crypto_provider();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    research_tui::agent::turn::set_max_answer_bytes((cli.tui.max_answer_mib << 20) as usize);
    // What `ask` and `render` print to a terminal takes the theme the app would.
    research_tui::cmd::ask_terminal::use_theme(cli.tui.theme.clone());
    // The commands that read the config file stop on a broken one, each the same way.
    let reads_config = matches!(
        cli.command,
        None | Some(
            Command::Ask(_) | Command::Open(_) | Command::Watch(_) | Command::Replay { .. }
        )
    );
    if reads_config && let Err(e) = research_tui::local::config::check_config_file() {
        eprintln!("research-tui: {e}");
        return ExitCode::from(1);
    }
    match cli.command {
        Some(Command::Render {
            file,
            format,
            provider,
        }) => research_tui::cmd::render::run_cli(&file, format, provider),
        Some(Command::Serve(args)) => research_tui::cmd::serve::run_cli(args),
        Some(Command::Proxy(args)) => research_tui::cmd::proxy::run_cli(args),
        Some(Command::Ask(args)) => research_tui::cmd::ask::run_cli(*args, cli.tui.debug),
        Some(Command::Sessions {
            export_otlp: true,
            ids,
            otlp,
            ..
        }) => research_tui::cmd::sessions_export::run(&ids, &otlp),
        Some(Command::Sessions {
            delete: true, ids, ..
        }) => research_tui::cmd::sessions::run_delete(&ids),
        Some(Command::Sessions { json, ids, .. }) if !ids.is_empty() => {
            research_tui::cmd::sessions::run_named(json, &ids)
        }
        Some(Command::Sessions { json, search, .. }) => {
            research_tui::cmd::sessions::run_cli(json, search.as_deref())
        }
        Some(Command::Replay {
            file,
            speed,
            exit_when_done,
            provider,
        }) => research_tui::cmd::app::replay(
            research_tui::tui::ReplayOptions {
                path: file,
                speed,
                provider,
            },
            exit_when_done,
            cli.tui.theme,
            cli.tui.debug,
        ),
        Some(Command::Open(args)) => {
            research_tui::cmd::app::open(args, cli.tui.theme, cli.tui.debug)
        }
        Some(Command::Watch(args)) => {
            research_tui::cmd::app::watch(args, cli.tui.theme, cli.tui.debug)
        }
        Some(Command::Completions { shell, .. }) => {
            research_tui::cmd::manual::completions(Cli::command(), shell)
        }
        Some(Command::Man { .. }) => research_tui::cmd::manual::man(Cli::command()),
        None => research_tui::cmd::app::run(cli.tui),
    }
}

/// clap's usage error, printed as clap prints it, except for a command people guess that does not
/// exist: `compare` (clap would suggest `completions`) says how agents are compared.
fn usage_error(error: clap::Error) -> ExitCode {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if error.kind() == ErrorKind::InvalidSubcommand
        && let Some(ContextValue::String(name)) = error.get(ContextKind::InvalidSubcommand)
        && name == "compare"
    {
        eprintln!(
            "research-tui: there is no compare command: compare agents with --provider a,b[,c] \
             (the app: research-tui --provider bigdata,xai; a script: research-tui ask \"…\" \
             --provider bigdata,xai)"
        );
        return ExitCode::from(2);
    }
    error.exit()
}

/// `--search`'s TEXT: blank text (an unset shell variable, `""`, spaces) matches nothing in
/// particular, so it is a usage error that says how to list every session, not a list of them all
/// dressed as matches.
fn search_text(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err(
            "nothing to search for (without --search, `sessions` lists every session)".into(),
        );
    }
    Ok(text.to_owned())
}
