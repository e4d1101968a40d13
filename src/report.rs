//! The error and panic layer: color-eyre. Errors travel as [`eyre::Report`]s with `wrap_err`
//! contexts (`cannot read nope.sse` ← `No such file or directory`) and the place they were made
//! (color-eyre's `track-caller`). A person sees one plain line and the exit code
//! ([`exit`]: `research-tui: cannot read nope.sse: No such file or directory`, exit 1); the log file
//! and `--debug` get the whole report — each context, the cause, the location. A panic prints
//! color-eyre's panic report, which says where to report it, after the app has given the terminal
//! back (`tui` wraps the hook installed here so the terminal is restored first).

use std::process::ExitCode;

use crate::render::sanitize::{sanitize, sanitize_line};
use color_eyre::config::{HookBuilder, Theme};

pub use color_eyre::eyre;

/// What a panic report adds to color-eyre's message and location.
const PANIC_SECTION: &str = "This is a bug in research-tui. Please report it on the project's issue \
tracker with this message and the log file (research-tui.log in $XDG_CACHE_HOME/research-tui, \
usually ~/.cache/research-tui).";

/// Install color-eyre's report handler and its panic hook (the report also goes to the log file).
/// Reports are plain text (no colors: they go to the log file too) and skip color-eyre's hints
/// about environment variables. A second call changes nothing.
pub fn install() {
    let (panic_hook, eyre_hook) = hooks().into_hooks();
    if eyre_hook.install().is_err() {
        return;
    }
    std::panic::set_hook(Box::new(move |info| {
        let report = panic_hook.panic_report(info).to_string();
        crate::log::log(&format!("panicked: {report}"));
        say(&report);
    }));
}

/// How reports look: plain, without the environment hints, a panic saying where to report it.
fn hooks() -> HookBuilder {
    HookBuilder::default()
        .theme(Theme::new())
        .display_env_section(false)
        .panic_section(PANIC_SECTION)
}

/// The one line a person reads: every context, then the cause, joined with `: `, without the
/// operating system's error number (`… (os error 2)`) and without a cause that only repeats the
/// link before it.
pub fn line(report: &eyre::Report) -> String {
    let mut links: Vec<String> = Vec::new();
    for link in report.chain() {
        let text = without_os_error(link.to_string());
        if !links.last().is_some_and(|last| last.contains(&text)) {
            links.push(text);
        }
    }
    links.join(": ")
}

/// `cannot read PATH: CAUSE`, the words every command uses for a file it was given and cannot
/// read (`render`, `replay`, `ask --schema`, `ask --workflow`), the cause without its error number.
pub fn cannot_read(what: &str, error: &std::io::Error) -> String {
    format!(
        "cannot read {what}: {}",
        without_os_error(error.to_string())
    )
}

/// `cannot write PATH: CAUSE`, in the words of [`cannot_read`] (`ask --record`).
pub fn cannot_write(path: &std::path::Path, error: &std::io::Error) -> String {
    format!(
        "cannot write {}: {}",
        sanitize_line(&path.display().to_string()),
        without_os_error(error.to_string())
    )
}

fn without_os_error(text: String) -> String {
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_owned(),
        _ => text,
    }
}

/// Report a failure: the one line on stderr (and the whole report after it with `debug`), the
/// whole report in the log file; exit code 1.
pub fn exit(report: &eyre::Report, debug: bool) -> ExitCode {
    let line = line(report);
    crate::log::log(&format!("failed: {line}"));
    crate::log::log(&format!("report: {report:?}"));
    // The chain holds paths from the command line and servers' words: one plain line, no escapes.
    say(&format!("research-tui: {}", sanitize_line(&line)));
    if debug {
        say(&sanitize(&format!("{report:?}")));
    }
    ExitCode::from(1)
}

/// A line on stderr; nothing when stderr is gone (a closed terminal), where `eprintln!` would
/// panic.
fn say(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{text}");
}

#[cfg(test)]
mod tests {
    use super::eyre::WrapErr;
    use super::*;

    #[test]
    fn a_report_is_one_plain_line_and_its_debug_form_says_where() {
        // The report handler only (the panic hook would change every test's panic output).
        let _ = hooks().into_hooks().1.install();
        let error = std::fs::read("/nonexistent/nope.sse").wrap_err("cannot read nope.sse");
        let report = error.unwrap_err();
        assert_eq!(
            line(&report),
            "cannot read nope.sse: No such file or directory"
        );
        let full = format!("{report:?}");
        assert!(full.contains("0: cannot read nope.sse"), "{full}");
        assert!(full.contains("1: No such file or directory"), "{full}");
        assert!(full.contains("src/report.rs:"), "{full}");
    }

    #[test]
    fn contexts_are_kept_in_order_and_a_cause_that_repeats_its_context_is_said_once() {
        let report = Err::<(), _>(eyre::eyre!("refused: 403"))
            .wrap_err("refused: 403")
            .wrap_err("cannot start")
            .unwrap_err();
        assert_eq!(line(&report), "cannot start: refused: 403");
    }
}
