//! The `research-tui` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use research_tui::input::read_session;
use research_tui::provider::Provider;
use research_tui::render::{Format, render};

#[derive(Debug, Parser)]
#[command(
    name = "research-tui",
    version,
    about = "Watch research-agent sessions: plan, thinking, tool calls, and the answer with exact citations"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Render a recorded stream (a file, or `-` for stdin) as Markdown, JSON or text.
    Render {
        /// The recording, or `-` to read standard input as it arrives.
        file: String,
        #[arg(long, value_enum, default_value_t = Format::Markdown)]
        format: Format,
        #[arg(long, value_enum, default_value_t = Provider::Bigdata)]
        provider: Provider,
    },
    /// Run the built-in demo agent (Bigdata.com wire protocol, recorded sessions) on 127.0.0.1.
    Serve(research_tui::server::ServeArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Render {
            file,
            format,
            provider,
        }) => render_command(&file, format, provider),
        Some(Command::Serve(args)) => research_tui::server::run_cli(args),
        None => render_command(
            "assets/recordings/bigdata/earnings-deep-dive.sse",
            Format::Text,
            Provider::Bigdata,
        ),
    }
}

fn render_command(file: &str, format: Format, provider: Provider) -> ExitCode {
    let result = if file == "-" {
        read_session(std::io::stdin().lock(), provider)
    } else {
        match std::fs::File::open(PathBuf::from(file)) {
            Ok(f) => read_session(f, provider),
            Err(e) => {
                eprintln!("research-tui: cannot open {file}: {e}");
                return ExitCode::from(1);
            }
        }
    };
    match result {
        Ok((session, errors)) => {
            for error in errors {
                eprintln!("research-tui: {error}");
            }
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout.write_all(render(&session, format).as_bytes())
                && e.kind() != std::io::ErrorKind::BrokenPipe
            {
                eprintln!("research-tui: {e}");
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("research-tui: reading {file}: {e}");
            ExitCode::from(1)
        }
    }
}
