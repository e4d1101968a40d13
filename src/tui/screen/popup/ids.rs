//! The ids popup (`I`): every identifier of the conversation and of the turn the panes show, whole —
//! the status bar shows them short. `y` copies the checkpoint id (what `--resume` takes).

use super::super::{clean, piece, wrap_text};
use crate::styled::text::RLine;
use crate::styled::theme::Theme;
use crate::tui::state::App;

/// The popup's rows at `width` columns.
pub(super) fn id_rows(app: &App, width: usize, theme: &Theme) -> Vec<RLine> {
    let mut fields: Vec<(&str, String)> = Vec::new();
    if let Some(provider) = app.provider {
        fields.push(("Provider", provider.label().to_owned()));
    }
    fields.push(("Mode", app.mode.label().to_owned()));
    if let Some(base) = &app.api_base {
        fields.push(("Agent", base.clone()));
    }
    if let Some(session) = &app.session_id {
        fields.push(("Session", session.clone()));
    }
    if let Some(turn) = app.current() {
        if app.turns.len() > 1 {
            fields.push((
                "Turn",
                format!("{} of {}", app.current_index() + 1, app.turns.len()),
            ));
        }
        let ids = &turn.session.ids;
        if let Some(chat) = turn.chat_id() {
            fields.push(("Chat", chat.to_owned()));
        }
        if let Some(checkpoint) = turn.checkpoint_id() {
            fields.push(("Checkpoint", checkpoint.to_owned()));
        }
        if let Some(from) = &turn.request.checkpoint_id {
            fields.push(("Continued", from.clone()));
        }
        if let Some(execution) = &ids.execution_id {
            fields.push(("Execution", execution.clone()));
        }
        if let Some(request) = &ids.request_id {
            fields.push(("Request", request.clone()));
        }
    } else if let Some(checkpoint) = &app.resume.checkpoint_id {
        fields.push(("Resume", checkpoint.clone()));
    }
    let mut rows = Vec::new();
    for (name, value) in fields {
        rows.extend(wrap_text(
            &clean(&value),
            theme.text(),
            width,
            vec![piece(format!("{name:<12}"), theme.muted())],
            vec![piece(" ".repeat(12), theme.muted())],
        ));
    }
    if app.current().and_then(|t| t.checkpoint_id()).is_some() {
        rows.push(RLine::blank());
        rows.extend(wrap_text(
            "y copies the checkpoint id: `research-tui --resume <id>` continues from it.",
            theme.muted(),
            width,
            Vec::new(),
            Vec::new(),
        ));
    }
    rows
}
