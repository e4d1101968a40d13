//! A small append-only diagnostic log file (by default `$XDG_CACHE_HOME/research-tui/research-tui.log`,
//! see [`crate::local::config::log_file`]). It sits below `agent` and `local`, which both write to it,
//! and depends on neither.
//!
//! The TUI owns the terminal, so diagnostics never go to the screen; they go here, one sanitised line
//! each with a UTC timestamp. Nothing secret is ever passed in (the API key lives in a redacting type
//! and messages from the client are already redacted), and the file stays small: it is started afresh
//! once it passes [`MAX_BYTES`]. The last [`KEPT`] lines of this process are also kept in memory
//! ([`this_run`]), for a command that prints them with `--debug`.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use crate::render::sanitize::sanitize_line;

/// The log is truncated when it grows past this, so it can never fill a disk.
pub const MAX_BYTES: u64 = 4 * 1024 * 1024;

static LOG: Mutex<Option<File>> = Mutex::new(None);

/// How many of this process's lines [`this_run`] keeps (the newest).
pub const KEPT: usize = 32;

static RECENT: Mutex<VecDeque<String>> = Mutex::new(VecDeque::new());

/// Open (or create) the log file; later [`log`] calls append to it. Failing to open it is not an
/// error for the app: logging is then off.
pub fn init(path: &Path) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let too_big = std::fs::metadata(path).is_ok_and(|m| m.len() > MAX_BYTES);
    let file = OpenOptions::new()
        .create(true)
        .append(!too_big)
        .write(true)
        .truncate(too_big)
        .open(path)?;
    if let Ok(mut slot) = LOG.lock() {
        *slot = Some(file);
    }
    Ok(())
}

/// Append one line (sanitised, newlines folded) if the log is open, and keep it for [`this_run`].
pub fn log(message: &str) {
    let line = sanitize_line(message);
    if let Ok(mut recent) = RECENT.lock() {
        if recent.len() == KEPT {
            recent.pop_front();
        }
        recent.push_back(line.clone().into_owned());
    }
    let Ok(mut slot) = LOG.lock() else { return };
    if let Some(file) = slot.as_mut() {
        // UTC to whole seconds, as the saved sessions write their times.
        let stamp = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ");
        let _ = writeln!(file, "{stamp} {line}");
    }
}

/// The lines this process logged (the newest [`KEPT`]), sanitised, without their timestamps.
pub fn this_run() -> Vec<String> {
    RECENT
        .lock()
        .map(|recent| recent.iter().cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_appended_sanitised_with_a_timestamp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/research-tui.log");
        init(&path).unwrap();
        log("connected\x1b[2J to http://127.0.0.1:1\nsecond line");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 1);
        assert!(
            text.contains("Z connected\u{FFFD}[2J to http://127.0.0.1:1 second line"),
            "{text}"
        );
    }
}
