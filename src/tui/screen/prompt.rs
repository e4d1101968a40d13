//! The prompt: a multi-line editor for questions. It grows with its text (up to [`MAX_ROWS`] rows,
//! then scrolls), says whether keys type into it, and puts the terminal's own cursor where the text
//! goes (input methods and screen readers follow that cursor).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;
use ratatui_textarea::{CursorMove, TextArea, WrapMode};
use unicode_width::UnicodeWidthStr;

use super::{clean, pane_block, piece, title};
use crate::styled::theme::Theme;
use crate::tui::state::keymap::Context;
use crate::tui::state::{App, Focus};

/// The prompt's own state: the editor and its text.
#[derive(Debug)]
pub struct PromptPane {
    pub editor: TextArea<'static>,
}

impl PromptPane {
    /// An empty prompt for an app that can (`can_ask`) or cannot ask.
    pub fn new(can_ask: bool, theme: &Theme) -> PromptPane {
        let mut editor = TextArea::default();
        editor.set_wrap_mode(WrapMode::WordOrGlyph);
        editor.set_cursor_line_style(Style::new());
        // An app that can ask says its keys in force from the first frame on (see `prepare`).
        editor.set_placeholder_text(if can_ask {
            ""
        } else {
            "Replay: follow-ups need an agent (run without `replay`)"
        });
        editor.set_placeholder_style(theme.muted());
        PromptPane { editor }
    }

    /// Nothing typed.
    pub fn is_empty(&self) -> bool {
        self.editor.is_empty()
    }

    /// A key for the editor, read as readline reads it: Ctrl-U deletes to the line's start, Ctrl-W
    /// a word back, Ctrl-A / Ctrl-E go to the line's start / end, Alt-B / Alt-F a word back /
    /// forward, Ctrl-_ (also sent for Ctrl-/ and Ctrl-7) undoes; the editor takes the rest.
    pub fn input(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let editor = &mut self.editor;
        match key.code {
            KeyCode::Char('u') if ctrl => {
                editor.delete_line_by_head();
            }
            KeyCode::Char('w') if ctrl => {
                editor.delete_word();
            }
            KeyCode::Char('a') if ctrl => editor.move_cursor(CursorMove::Head),
            KeyCode::Char('e') if ctrl => editor.move_cursor(CursorMove::End),
            KeyCode::Char('b') if alt => editor.move_cursor(CursorMove::WordBack),
            KeyCode::Char('f') if alt => editor.move_cursor(CursorMove::WordForward),
            KeyCode::Char('_' | '/' | '7') if ctrl => {
                editor.undo();
            }
            // Not the editor's own undo and redo (Ctrl-Z, Ctrl-R): Ctrl-Z suspends the app (a key-map
            // binding, taken before the editor sees it); with `suspend` remapped it does nothing here.
            KeyCode::Char('z' | 'r') if ctrl => {}
            _ => {
                editor.input(key);
            }
        }
    }

    /// The question typed, lines joined.
    pub fn text(&self) -> String {
        self.editor.lines().join("\n")
    }
}

/// The prompt grows to this many rows of text, then scrolls.
pub const MAX_ROWS: u16 = 8;

/// Where the next question goes, as the prompt's title says it in at most `room` columns: the turn
/// it branches from (or `--resume`, `--chat-id`) and the id, whole, else the id shortened
/// (`ckpt-…7cce31`: the whole id is in the ids popup), else without the id; `None` when not even
/// that fits (or there is nothing to say).
pub fn branch_text(app: &App, room: usize) -> Option<String> {
    let (what, id) = if let Some(from) = app.branch_from() {
        (
            format!("↳ from turn {}", from + 1),
            app.continuation().checkpoint_id,
        )
    } else if !app.turns.is_empty() {
        return None;
    } else if let Some(checkpoint) = &app.resume.checkpoint_id {
        ("↳ resume".to_owned(), Some(checkpoint.clone()))
    } else if let Some(chat) = &app.resume.chat_id {
        ("↳ chat".to_owned(), Some(chat.clone()))
    } else {
        return None;
    };
    let sep = if what.starts_with("↳ from") {
        " · "
    } else {
        " "
    };
    let mut choices = Vec::new();
    if let Some(id) = &id {
        choices.push(format!("{what}{sep}{}", clean(id)));
        choices.push(format!("{what}{sep}{}", super::status::short_id(id)));
    }
    choices.push(what);
    choices.into_iter().find(|text| text.width() <= room)
}

/// Rows the prompt's text takes at `width` columns (each line word-wrapped as the editor wraps it).
pub fn text_rows(pane: &PromptPane, width: u16) -> u16 {
    let width = width.max(1) as usize;
    let rows: usize = pane
        .editor
        .lines()
        .iter()
        .map(|line| {
            crate::styled::text::wrap(&[piece(line.as_str(), Style::new())], width, &[], &[])
                .len()
                .max(1)
        })
        .sum();
    rows.min(u16::MAX as usize) as u16
}

/// `watch` before any session started: there is nothing a question could follow up.
fn waiting_to_watch(app: &App) -> bool {
    app.mode == crate::tui::state::Mode::Watch && app.turns.is_empty()
}

/// Below this width the prompt's hints are the short ones.
const SHORT_BELOW: u16 = 70;

/// The prompt's title hint: what keys do now (`short` for a narrow prompt), with the keys in force.
fn hint(app: &App, focused: bool, short: bool) -> String {
    if let Some(note) = &app.keys_elsewhere {
        return note.clone();
    }
    let prompt = |template: &str| {
        app.keys
            .fill(&[Context::Prompt, Context::Anywhere], template)
    };
    let panes = |template: &str| {
        app.keys
            .fill(&[Context::Panes, Context::Anywhere], template)
    };
    if app.search_typing() {
        let template = match short {
            true => "searching · {escape}",
            false => "searching: letters go to the search below · {escape} browse the hits",
        };
        return app.keys.fill(&[Context::Search], template);
    }
    // `watch` before any session started: nothing to follow up yet.
    if waiting_to_watch(app) {
        return match (focused, short) {
            (true, true) => prompt("no session yet · {leave_prompt} browse"),
            (true, false) => prompt(
                "typing · nothing to follow up until a session starts · {leave_prompt} browse",
            ),
            (false, _) => panes("nothing to follow up until a session starts"),
        };
    }
    if short || app.queued.is_some() {
        return match (focused, app.can_ask) {
            (true, true) => prompt("typing · {leave_prompt} browse"),
            (false, true) => panes("{focus_prompt} types"),
            (_, false) => "replay".to_owned(),
        };
    }
    match (focused, app.can_ask) {
        // A replay sends nothing: its prompt never says Enter sends.
        (_, false) => "replay: nothing to ask".to_owned(),
        (true, true) if app.stream_running || app.in_progress() => {
            prompt("typing · {send} queues it for when the answer ends · {leave_prompt} browse")
        }
        (true, true) => prompt("typing · {send} send · {new_line} newline · {leave_prompt} browse"),
        (false, true) => {
            panes("browsing: letters are keys ({help}) · {focus_prompt} types a question")
        }
    }
}

/// What the empty prompt says, with the keys in force (`short` for a narrow prompt).
fn placeholder(app: &App, focused: bool, short: bool) -> String {
    let prompt = |template: &str| {
        let keys = app
            .keys
            .fill(&[Context::Prompt, Context::Anywhere], template);
        match keys.is_empty() {
            true => "Type a question".to_owned(),
            false => format!("Type a question — {}", keys.replace(" · ", ", ")),
        }
    };
    let panes = |template: &str, or: &str| {
        let keys = app
            .keys
            .fill(&[Context::Panes, Context::Anywhere], template);
        match keys.is_empty() {
            true => or.to_owned(),
            false => keys,
        }
    };
    let letter = "a letter no key takes types a question";
    match (focused, short) {
        _ if app.search_typing() => "(the search has the keys)".to_owned(),
        _ if app.keys_elsewhere.is_some() => String::new(),
        _ if waiting_to_watch(app) => "Nothing to follow up until a session starts".to_owned(),
        (true, true) => "Type a question…".to_owned(),
        (true, false) if app.stream_running || app.in_progress() => {
            prompt("{send} queues it for when the answer ends")
        }
        (true, false) => prompt("{send} sends it · {new_line} adds a line"),
        (false, true) => panes("{focus_prompt}: type a question", letter),
        (false, false) => panes(
            "{focus_prompt} (or a letter no key takes) types a question",
            letter,
        ),
    }
}

/// Dress the editor for this frame: its title (what keys do, where the next question goes) and border
/// when it has the room, its style. The editor is the app's state, so this happens before drawing.
pub fn prepare(app: &App, pane: &mut PromptPane, area: Rect) {
    // A comparison's column whose keys another column has is not typed into.
    let focused = app.focus == Focus::Prompt && app.keys_elsewhere.is_none();
    let theme = &app.theme;
    let name = if app.can_ask { "Ask" } else { "Prompt" };
    let short = area.width < SHORT_BELOW;
    if app.can_ask {
        pane.editor
            .set_placeholder_text(placeholder(app, focused, short));
    }
    if area.height >= 3 {
        let mut line = title(name, Some(hint(app, focused, short)), focused, theme);
        if let Some(queued) = &app.queued {
            let room = (area.width as usize / 3).max(8);
            let drops = app.keys.fill(&[Context::Anywhere], " ({interrupt} drops)");
            line.spans.push(Span::styled(
                format!(
                    "· queued: {}{drops} ",
                    super::truncate(&clean(queued), room)
                ),
                theme.warning().add_modifier(Modifier::BOLD),
            ));
        }
        // What is left of the top border (its corners, a space after the text).
        let used: usize = line.spans.iter().map(|s| s.content.width()).sum();
        let room = (area.width as usize).saturating_sub(used + 3);
        if let Some(branch) = branch_text(app, room) {
            line.spans.push(Span::styled(
                format!("{branch} "),
                theme.accent().add_modifier(Modifier::BOLD),
            ));
        }
        pane.editor.set_block(pane_block(line, focused, theme));
    } else {
        pane.editor.remove_block();
    }
    pane.editor.set_style(theme.text());
    // The terminal's cursor marks where text goes; the editor draws none of its own.
    pane.editor.set_cursor_style(Style::new());
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App, pane: &PromptPane) {
    frame.render_widget(&pane.editor, area);
    draw_more(frame, area, app, pane);
    if app.focus != Focus::Prompt || app.popup.is_some() || app.keys_elsewhere.is_some() {
        return;
    }
    let inner = pane.editor.block().map_or(area, |block| block.inner(area));
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let (row, col) = if pane.editor.is_empty() {
        (0, 0)
    } else {
        let cursor = pane.editor.screen_cursor();
        let (top, _) = pane.editor.scroll_offset();
        (cursor.row.saturating_sub(top as usize), cursor.col)
    };
    let x = inner.x + (col as u16).min(inner.width - 1);
    let y = inner.y + (row as u16).min(inner.height - 1);
    frame.set_cursor_position(Position::new(x, y));
}

/// `↑ 12 more lines · ↓ 3 more`: the rows of a long question scrolled out of the prompt, on its
/// bottom border (its top one holds the title), as the answer's border says `↓ more`. The editor
/// scrolls while it is drawn, so this reads where it stopped, after it.
fn draw_more(frame: &mut Frame, area: Rect, app: &App, pane: &PromptPane) {
    let Some(block) = pane.editor.block() else {
        return;
    };
    let inner = block.inner(area);
    if inner.height == 0 || area.width < 8 {
        return;
    }
    let (top, _) = pane.editor.scroll_offset();
    let below = text_rows(pane, inner.width).saturating_sub(top.saturating_add(inner.height));
    let mut parts = Vec::new();
    if top > 0 {
        let lines = if top == 1 { "line" } else { "lines" };
        parts.push(format!("↑ {top} more {lines}"));
    }
    if below > 0 {
        parts.push(format!("↓ {below} more"));
    }
    if parts.is_empty() {
        return;
    }
    let room = (area.width as usize).saturating_sub(4);
    let text = super::truncate(&format!(" {} ", parts.join(" · ")), room);
    let at = Rect::new(area.x + 2, area.bottom() - 1, text.width() as u16, 1);
    frame.render_widget(
        ratatui::widgets::Paragraph::new(Span::styled(text, app.theme.muted())),
        at,
    );
}
