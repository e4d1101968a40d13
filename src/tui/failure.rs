//! Why the app could not run, said the way a person reads it: one plain line on stderr
//! (`research-tui: cannot read nope.sse: No such file or directory`) and exit code 1. Where in the
//! code it happened goes to the log file, and to stderr only with `--debug`.

use std::fmt;
use std::panic::Location;

/// A failure of the app: what it was doing, why it failed, and where.
#[derive(Debug)]
pub struct Failure {
    message: String,
    detail: String,
}

impl Failure {
    /// `doing` (`cannot read nope.sse`) failed because of `cause`.
    #[track_caller]
    pub fn new(doing: impl fmt::Display, cause: impl fmt::Display + fmt::Debug) -> Failure {
        let location = Location::caller();
        Failure {
            message: format!("{doing}: {}", plain(&cause.to_string())),
            detail: format!(
                "{doing}: {cause:?} (at {}:{})",
                location.file(),
                location.line()
            ),
        }
    }

    /// The one line for the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The message with the cause's debug form and where it happened, for the log and `--debug`.
    pub fn detail(&self) -> &str {
        &self.detail
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// An error message without the operating system's error number (`… (os error 2)`).
fn plain(message: &str) -> &str {
    match message.rfind(" (os error ") {
        Some(at) if message.ends_with(')') => &message[..at],
        _ => message,
    }
}

/// Attach what the app was doing to an error.
pub trait Doing<T> {
    #[track_caller]
    fn doing(self, doing: impl fmt::Display) -> Result<T, Failure>;
}

impl<T, E: fmt::Display + fmt::Debug> Doing<T> for Result<T, E> {
    #[track_caller]
    fn doing(self, doing: impl fmt::Display) -> Result<T, Failure> {
        match self {
            Ok(value) => Ok(value),
            Err(e) => Err(Failure::new(doing, e)),
        }
    }
}

/// Report a failure (one line; the detail to the log, and to stderr with `debug`); exit code 1.
pub fn report(failure: &Failure, debug: bool) -> std::process::ExitCode {
    crate::log::log(&format!("failed: {}", failure.detail()));
    eprintln!("research-tui: {}", failure.message());
    if debug {
        eprintln!("research-tui: detail: {}", failure.detail());
    }
    std::process::ExitCode::from(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_one_plain_line_and_its_detail_says_where() {
        let error = std::fs::read("/nonexistent/nope.sse").doing("cannot read nope.sse");
        let failure = error.unwrap_err();
        assert_eq!(
            failure.message(),
            "cannot read nope.sse: No such file or directory"
        );
        assert!(!failure.message().contains('\n'));
        assert!(
            failure.detail().contains("NotFound"),
            "{}",
            failure.detail()
        );
        assert!(
            failure.detail().contains("src/tui/failure.rs:"),
            "{}",
            failure.detail()
        );
    }
}
