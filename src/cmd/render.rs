//! `research-tui render`: a recorded stream (a file, or `-` for standard input read as it arrives)
//! rendered as Markdown, JSON or text on stdout.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::model::session::Session;
use crate::render::{Format, write_sized};
use crate::wire::input::read_session_limited;
use crate::wire::provider::Provider;

/// What `render` and `replay` say of a directory given as the recording.
pub(crate) fn a_directory(file: &str) -> String {
    format!(
        "research-tui: {} is a directory: give a recording (an .sse file, such as a saved \
         session's turn-001.sse)",
        crate::render::sanitize::sanitize_line(file)
    )
}

/// Render `file` in `format`; parse errors are reported on stderr, the rendering still printed.
/// Input without a single event (an HTML page, an empty file) is an error, and so is input whose
/// events no provider's format reads: nothing is printed.
pub fn run_cli(file: &str, format: Format, provider: Option<Provider>) -> ExitCode {
    let limit = crate::agent::turn::max_answer_bytes();
    if file != "-" && Path::new(file).is_dir() {
        eprintln!("{}, or - for standard input", a_directory(file));
        return ExitCode::from(1);
    }
    let result = if file == "-" {
        read_session_limited(std::io::stdin().lock(), provider, limit)
    } else {
        match std::fs::File::open(PathBuf::from(file)) {
            Ok(f) => read_session_limited(f, provider, limit),
            Err(e) => {
                let line = crate::report::cannot_read(file, &e);
                eprintln!(
                    "research-tui: {}",
                    crate::render::sanitize::sanitize_line(&line)
                );
                return ExitCode::from(1);
            }
        }
    };
    match result {
        Ok((session, errors, cut)) => {
            for error in errors {
                eprintln!("research-tui: {error}");
            }
            if let Some(line) = unreadable(&session, file, provider) {
                eprintln!("{line}");
                return ExitCode::from(1);
            }
            let reason = cut.then(|| crate::agent::turn::answer_limit_reason(limit));
            // A saved turn's arrival times, kept beside it: its timeline.
            let timeline = (file != "-")
                .then(|| crate::agent::replay::saved_timeline(Path::new(file), provider))
                .flatten();
            let stdout = std::io::BufWriter::new(std::io::stdout().lock());
            let written = match format {
                Format::Json => {
                    let attribution = crate::model::citations::Attribution::resolve(&session, true);
                    let outcome = reason.as_deref().map(|reason| ("incomplete", reason));
                    crate::render::json::write_timed(
                        &session,
                        &attribution,
                        outcome,
                        timeline.as_ref(),
                        stdout,
                    )
                }
                _ => write_with_timing(&session, format, timeline.as_ref(), stdout),
            };
            if let Err(e) = written
                && e.kind() != std::io::ErrorKind::BrokenPipe
            {
                eprintln!("research-tui: {e}");
                return ExitCode::from(1);
            }
            match reason {
                Some(reason) => {
                    eprintln!("research-tui: {reason}: rendered as far as that");
                    ExitCode::from(5)
                }
                None => {
                    // JSON says so in its `status`; Markdown and text would look finished.
                    // Exit 0 still: the file was read and rendered; the turn's own outcome is
                    // data (`ask`, which ran the turn, exits 4 on it).
                    let source = if file == "-" { "standard input" } else { file };
                    let source = crate::render::sanitize::sanitize_line(source);
                    match session.status() {
                        _ if format == Format::Json => {}
                        crate::model::session::Status::Incomplete => eprintln!(
                            "research-tui: {source} ends before the agent finished (no \
                             completion, error or cancellation): rendered as far as it goes"
                        ),
                        crate::model::session::Status::Error => eprintln!(
                            "research-tui: {source}: the agent's turn ended in an error: {}",
                            crate::render::sanitize::sanitize_line(
                                session.error.as_deref().unwrap_or_default()
                            )
                        ),
                        _ => {}
                    }
                    ExitCode::SUCCESS
                }
            }
        }
        Err(e) => {
            eprintln!("research-tui: reading {file}: {e}");
            ExitCode::from(1)
        }
    }
}

/// Markdown or text, then the turn's timing line when its arrival times are known.
fn write_with_timing(
    session: &Session,
    format: Format,
    timeline: Option<&crate::model::timeline::Timeline>,
    mut out: impl std::io::Write,
) -> std::io::Result<()> {
    // On a terminal, text is for people: rendered as `ask` renders it there (headings, tables,
    // wrapping); to a pipe or a file, the plain text scripts read.
    if format == Format::Text && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        out.write_all(crate::cmd::ask_terminal::TerminalAnswer::whole(session).as_bytes())?;
    } else {
        write_sized(session, format, output_width(), &mut out)?;
    }
    if let Some(timeline) = timeline {
        writeln!(out, "\n{}", timeline.summary_line())?;
    }
    out.flush()
}

/// The one line saying why `source` cannot be shown: it holds no event at all, or only events in no
/// format this version reads; `None` when anything was understood.
pub(crate) fn unreadable(
    session: &Session,
    source: &str,
    provider: Option<Provider>,
) -> Option<String> {
    if session.stats.events == 0 {
        let source = if source == "-" {
            "standard input"
        } else {
            source
        };
        return Some(format!(
            "research-tui: no events found in {}: expected a Server-Sent Events stream (data: lines) from a research agent",
            crate::render::sanitize::sanitize_line(source)
        ));
    }
    unknown_format(session, source, provider)
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
    let other = provider
        .filter(|_| source != "standard input")
        .and_then(|named| reads_as(Path::new(source), named))
        .map(|other| {
            format!(
                "; it reads as {}: leave out --provider, or give --provider {}",
                other.label(),
                other.as_str()
            )
        })
        .unwrap_or_default();
    Some(format!(
        "research-tui: {} is in no format research-tui reads ({events}, {} unknown, {} malformed; tried {}){other}",
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

/// The provider whose format the file at `path` reads as (its first MiB understood), when
/// `--provider` named another.
fn reads_as(path: &Path, named: Provider) -> Option<Provider> {
    use std::io::Read;
    let detected = crate::agent::replay::provider_of(path).ok()??;
    let head = std::fs::File::open(path).ok()?.take(1 << 20);
    let (session, _, _) = read_session_limited(head, Some(detected), usize::MAX).ok()?;
    (detected != named && !session.understood_nothing()).then_some(detected)
}
