//! Keys → [`Action`]s.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::{Action, Popup};
use super::app::App;
use super::focus::Focus;

impl App {
    /// Map a key to an action given the current state.
    pub fn handle_key(&self, key: KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        if ctrl && matches!(key.code, KeyCode::Char('c')) {
            return Some(Action::Interrupt);
        }
        if self.popup.is_some() {
            return match key.code {
                KeyCode::Esc | KeyCode::Char('q') => Some(Action::Escape),
                KeyCode::Char('?') => Some(Action::Help),
                KeyCode::Char('j') | KeyCode::Down => Some(Action::Down),
                KeyCode::Char('k') | KeyCode::Up => Some(Action::Up),
                KeyCode::PageDown | KeyCode::Char(' ') => Some(Action::PageDown),
                KeyCode::PageUp => Some(Action::PageUp),
                KeyCode::Char('g') | KeyCode::Home => Some(Action::Top),
                KeyCode::Char('G') | KeyCode::End => Some(Action::Bottom),
                KeyCode::Char('o') => Some(Action::OpenUrl),
                KeyCode::Char('y') => Some(Action::CopyUrl),
                KeyCode::Enter if matches!(self.popup, Some(Popup::Sessions { .. })) => {
                    Some(Action::Enter)
                }
                KeyCode::Enter => Some(Action::Escape),
                _ => None,
            };
        }
        if self.focus == Focus::Prompt {
            return match key.code {
                KeyCode::Enter if alt || key.modifiers.contains(KeyModifiers::SHIFT) => {
                    Some(Action::Newline)
                }
                KeyCode::Char('j') if ctrl => Some(Action::Newline),
                KeyCode::Enter => Some(Action::Submit),
                KeyCode::Esc => Some(Action::Focus(Focus::Answer)),
                KeyCode::Tab => Some(Action::FocusNext),
                KeyCode::BackTab => Some(Action::FocusPrev),
                _ => Some(Action::Edit(key)),
            };
        }
        // Letter commands are plain keys: Ctrl-E or Alt-Q must not export or quit by accident.
        if (ctrl || alt) && matches!(key.code, KeyCode::Char(c) if c != 'd' && c != 'u' || !ctrl) {
            return None;
        }
        Some(match key.code {
            KeyCode::Tab => Action::FocusNext,
            KeyCode::BackTab => Action::FocusPrev,
            KeyCode::Char('q') => Action::Quit,
            KeyCode::Char('c') => Action::Focus(Focus::Sources),
            KeyCode::Char('a') => Action::Focus(Focus::Answer),
            KeyCode::Char('p') => Action::Focus(Focus::Plan),
            KeyCode::Char('t') => Action::Focus(Focus::Activity),
            KeyCode::Char('i') | KeyCode::Char('/') => Action::Focus(Focus::Prompt),
            KeyCode::Char('j') | KeyCode::Down => Action::Down,
            KeyCode::Char('k') | KeyCode::Up => Action::Up,
            KeyCode::PageDown | KeyCode::Char(' ') => Action::PageDown,
            KeyCode::PageUp => Action::PageUp,
            KeyCode::Char('d') if ctrl => Action::PageDown,
            KeyCode::Char('u') if ctrl => Action::PageUp,
            KeyCode::Char('g') | KeyCode::Home => Action::Top,
            KeyCode::Char('G') | KeyCode::End => Action::Bottom,
            KeyCode::Enter => Action::Enter,
            KeyCode::Char('n') => Action::NextSpan,
            KeyCode::Char('N') => Action::PrevSpan,
            KeyCode::Char('o') => Action::OpenUrl,
            KeyCode::Char('y') => Action::CopyUrl,
            KeyCode::Char('e') => Action::Export,
            KeyCode::Char('?') => Action::Help,
            KeyCode::Char('[') => Action::Turn(false),
            KeyCode::Char(']') => Action::Turn(true),
            KeyCode::Char('s') => Action::Sessions,
            KeyCode::Char('r') => Action::Retry,
            KeyCode::Esc => Action::Escape,
            KeyCode::Left | KeyCode::Char('h') if self.narrow => Action::FocusPrev,
            KeyCode::Right | KeyCode::Char('l') if self.narrow => Action::FocusNext,
            _ => return None,
        })
    }
}
