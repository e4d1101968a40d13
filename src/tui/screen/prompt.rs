//! The prompt: a multi-line editor for follow-up questions.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

use ratatui::text::Span;

use super::{clean, pane_block, title};
use crate::tui::state::{App, Focus};

/// Where the next question goes when that is not simply on from the newest turn: `↳ from turn 2 ·
/// ckpt-…` (a branch), or `↳ resume ckpt-…` before the first question of a resumed conversation.
pub fn branch_text(app: &App) -> Option<String> {
    if let Some(from) = app.branch_from() {
        let next = app.continuation();
        let mut text = format!("↳ from turn {}", from + 1);
        if let Some(checkpoint) = &next.checkpoint_id {
            text.push_str(&format!(" · {}", clean(checkpoint)));
        }
        return Some(text);
    }
    if app.turns.is_empty() {
        if let Some(checkpoint) = &app.resume.checkpoint_id {
            return Some(format!("↳ resume {}", clean(checkpoint)));
        }
        if let Some(chat) = &app.resume.chat_id {
            return Some(format!("↳ chat {}", clean(chat)));
        }
    }
    None
}

/// Dress the editor for this frame: its title (with where the next question goes) and border when it
/// has the room, its style and cursor. The editor is the app's state, so this happens before drawing.
pub fn prepare(app: &mut App, area: Rect) {
    let focused = app.focus == Focus::Prompt;
    let theme = app.theme.clone();
    let hint = if focused {
        Some("Enter send · Alt-Enter newline · Esc leave".to_owned())
    } else {
        Some("i to type".to_owned())
    };
    let name = if app.can_ask { "Ask" } else { "Prompt" };
    if area.height >= 3 {
        let mut line = title(name, hint, focused, &theme);
        if let Some(branch) = branch_text(app) {
            line.spans.push(Span::styled(
                format!("{branch} "),
                theme.accent().add_modifier(Modifier::BOLD),
            ));
        }
        app.prompt.set_block(pane_block(line, focused, &theme));
    } else {
        app.prompt.remove_block();
    }
    app.prompt.set_style(theme.text());
    app.prompt.set_cursor_style(if focused {
        Style::new().add_modifier(Modifier::REVERSED)
    } else {
        Style::new()
    });
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    frame.render_widget(&app.prompt, area);
}
