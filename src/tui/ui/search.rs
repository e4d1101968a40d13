//! Carrying out the search's keys (`/`, typing the query, Enter / Shift-Enter, `n` / `N`, Esc) on
//! the app's [`Search`] and bringing the current hit into view: a hit in a turn's answer or question
//! selects that turn (when another is shown) and scrolls the answer to it (the pane finds its row
//! through the rows it keeps), a hit in a source's title selects that source.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::Ui;
use crate::tui::state::{Focus, Hit, Search, Severity};

impl Ui {
    /// `/` in the panes: a new search, or the one on with its query to edit.
    pub(super) fn start_search(&mut self) {
        match &mut self.app.search {
            Some(search) => search.typing = true,
            None => self.app.search = Some(Search::start()),
        }
    }

    /// A key typed into the search's query: the answer is searched again and the first hit shown.
    /// Backspace on an empty query ends the search.
    pub(super) fn search_edit(&mut self, key: KeyEvent) {
        let Some(search) = &self.app.search else {
            return;
        };
        let mut query = search.query.clone();
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Backspace if query.is_empty() => {
                self.app.search = None;
                return;
            }
            KeyCode::Backspace => {
                query.pop();
            }
            KeyCode::Char('u') if ctrl => query.clear(),
            KeyCode::Char('w') if ctrl => {
                let kept = query.trim_end().rfind(' ').map_or(0, |i| i + 1);
                query.truncate(kept);
            }
            KeyCode::Char(c)
                if !c.is_control() && !key.modifiers.intersects(KeyModifiers::ALT) && !ctrl =>
            {
                query.push(c)
            }
            _ => return,
        }
        self.with_search(|search, app| search.set_query(app, query));
        self.show_hit();
    }

    /// Enter / Shift-Enter while typing, `n` / `N` after: the next or previous hit, shown.
    pub(super) fn search_step(&mut self, forward: bool) {
        self.with_search(|search, app| {
            search.refresh(app);
            search.step(forward);
        });
        match &self.app.search {
            Some(search) if search.is_empty() && !search.query.is_empty() => {
                let text = format!(
                    "no match for {:?}",
                    crate::styled::text::clean(&search.query)
                );
                self.app.set_message(text, Severity::Info);
            }
            _ => self.show_hit(),
        }
    }

    /// Esc: while the query is typed, browse the hits (`n` / `N`); else end the search.
    pub(super) fn search_escape(&mut self) {
        let Some(search) = &mut self.app.search else {
            return;
        };
        if search.typing && !search.query.is_empty() {
            search.typing = false;
        } else {
            self.app.search = None;
        }
    }

    /// The search's hits brought up to date with the turn shown (another one picked, text arrived).
    pub(super) fn refresh_search(&mut self) {
        self.with_search(|search, app| search.refresh(app));
    }

    fn with_search(&mut self, change: impl FnOnce(&mut Search, &crate::tui::state::App)) {
        if let Some(mut search) = self.app.search.take() {
            change(&mut search, &self.app);
            self.app.search = Some(search);
        }
    }

    /// The answer gets the focus, and turn `turn` is the one the panes show (its sources, plan and
    /// activity), as `[` `]` would pick it.
    fn show_turn_of_hit(&mut self, turn: usize) {
        if self.focus != Focus::Answer {
            self.set_focus(Focus::Answer);
        }
        if turn != self.current_index() {
            self.show_turn(turn);
            // The sidebar is the new turn's: its title hits are found anew, the current hit kept.
            self.refresh_search();
        }
        self.panes.answer.focus_span = None;
    }

    /// Bring the current hit into view: the answer scrolled to it, or its source selected.
    fn show_hit(&mut self) {
        let Some(hit) = self.app.search.as_ref().and_then(|s| s.hit(s.current?)) else {
            return;
        };
        match hit {
            Hit::Answer(turn, range) => {
                self.show_turn_of_hit(turn);
                self.panes.answer.scroll_to_byte = Some(range.start);
            }
            Hit::Question(turn, _) => {
                self.show_turn_of_hit(turn);
                self.panes.answer.scroll_to_turn = Some(turn);
            }
            Hit::Source(index) => {
                if self.focus != Focus::Sources {
                    self.set_focus(Focus::Sources);
                }
                self.panes.sources.select(index);
                self.panes.answer.focus_span = None;
                self.panes.reveal_selection = true;
            }
        }
    }
}
