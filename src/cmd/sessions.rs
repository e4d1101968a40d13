//! `research-tui sessions`: the saved sessions, newest first, as a table or one JSON object a line.

use std::io::{self, Write};

use crate::local::store::SessionStore;

/// `research-tui sessions`: a table (or JSON lines) of saved sessions, newest first.
pub fn run_cli(json: bool) -> std::process::ExitCode {
    use crate::render::sanitize::sanitize_line;
    let store = SessionStore::default();
    let sessions = store.list();
    let mut out = io::stdout().lock();
    if json {
        for meta in &sessions {
            let _ = writeln!(out, "{}", serde_json::to_string(meta).unwrap_or_default());
        }
        return std::process::ExitCode::SUCCESS;
    }
    if sessions.is_empty() {
        let _ = writeln!(out, "No saved sessions in {}", store.root().display());
        return std::process::ExitCode::SUCCESS;
    }
    let _ = writeln!(
        out,
        "{:<28} {:<17} {:>5}  {:<13} {:<26} QUESTION",
        "ID", "DATE", "TURNS", "STATUS", "LAST CHECKPOINT"
    );
    for meta in &sessions {
        let date = meta
            .updated_at
            .get(..16)
            .unwrap_or(&meta.updated_at)
            .replace('T', " ");
        let question: String = sanitize_line(meta.first_question())
            .chars()
            .take(60)
            .collect();
        let _ = writeln!(
            out,
            "{:<28} {:<17} {:>5}  {:<13} {:<26} {}",
            sanitize_line(&meta.id),
            sanitize_line(&date),
            meta.turns.len(),
            sanitize_line(meta.status()),
            sanitize_line(meta.last_checkpoint_id().unwrap_or("-")),
            question
        );
    }
    std::process::ExitCode::SUCCESS
}
