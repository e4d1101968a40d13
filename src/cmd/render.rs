//! `research-tui render`: a recorded stream (a file, or `-` for standard input read as it arrives)
//! rendered as Markdown, JSON or text on stdout.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::model::session::Session;
use crate::render::{Format, render_sized};
use crate::wire::input::read_session;
use crate::wire::provider::Provider;

/// Render `file` in `format`; parse errors are reported on stderr, the rendering still printed.
/// Input without a single event (an HTML page, an empty file) is an error, and so is input whose
/// events no provider's format reads: nothing is printed.
pub fn run_cli(file: &str, format: Format, provider: Option<Provider>) -> ExitCode {
    let result = if file == "-" {
        read_session(std::io::stdin().lock(), provider)
    } else {
        match std::fs::File::open(PathBuf::from(file)) {
            Ok(f) => read_session(f, provider),
            Err(e) => {
                eprintln!(
                    "research-tui: cannot open {}: {e}",
                    crate::render::sanitize::sanitize_line(file)
                );
                return ExitCode::from(1);
            }
        }
    };
    match result {
        Ok((session, errors)) => {
            for error in errors {
                eprintln!("research-tui: {error}");
            }
            if session.stats.events == 0 {
                let source = if file == "-" { "standard input" } else { file };
                eprintln!(
                    "research-tui: no events found in {}: expected a Server-Sent Events stream (data: lines) from a research agent",
                    crate::render::sanitize::sanitize_line(source)
                );
                return ExitCode::from(1);
            }
            if let Some(line) = unknown_format(&session, file, provider) {
                eprintln!("{line}");
                return ExitCode::from(1);
            }
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            if let Err(e) =
                stdout.write_all(render_sized(&session, format, output_width()).as_bytes())
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

/// The one line saying that `source`'s events are in no format this version reads, naming the
/// formats tried (`provider`'s, or every provider's when it was to be detected) and what was
/// counted; `None` when anything was understood.
pub(crate) fn unknown_format(
    session: &Session,
    source: &str,
    provider: Option<Provider>,
) -> Option<String> {
    if !session.understood_nothing() {
        return None;
    }
    let source = if source == "-" {
        "standard input"
    } else {
        source
    };
    let tried: Vec<&str> = match provider {
        Some(provider) => vec![provider.label()],
        None => Provider::ALL.iter().map(|p| p.label()).collect(),
    };
    let stats = session.stats;
    let events = match stats.events {
        1 => "1 event".to_owned(),
        n => format!("{n} events"),
    };
    Some(format!(
        "research-tui: {} is in no format research-tui reads ({events}, {} unknown, {} malformed; tried {})",
        crate::render::sanitize::sanitize_line(source),
        stats.unknown,
        stats.malformed,
        tried.join(", ")
    ))
}

/// Columns the text charts and tables fit: the terminal's on a terminal, else 80.
pub(crate) fn output_width() -> usize {
    use std::io::IsTerminal;
    match std::io::stdout().is_terminal() {
        true => crossterm::terminal::size().map_or(80, |(w, _)| usize::from(w).max(20)),
        false => crate::render::text::DEFAULT_WIDTH,
    }
}
