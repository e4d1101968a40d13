//! The prompt: a multi-line editor for follow-up questions.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

use super::{pane_block, title};
use crate::tui::app::{App, Focus};

pub fn draw(frame: &mut Frame, area: Rect, app: &mut App) {
    let focused = app.focus == Focus::Prompt;
    let theme = app.theme.clone();
    let hint = if focused {
        Some("Enter send · Alt-Enter newline · Esc leave".to_owned())
    } else {
        Some("i to type".to_owned())
    };
    let name = if app.can_ask { "Ask" } else { "Prompt" };
    if area.height >= 3 {
        app.prompt.set_block(pane_block(
            title(name, hint, focused, &theme),
            focused,
            &theme,
        ));
    } else {
        app.prompt.remove_block();
    }
    app.prompt.set_style(theme.text());
    app.prompt.set_cursor_style(if focused {
        Style::new().add_modifier(Modifier::REVERSED)
    } else {
        Style::new()
    });
    frame.render_widget(&app.prompt, area);
}
