//! The app and its panes together ([`Ui`]): what the event loop drives and tests press keys on.
//!
//! The app changes here, in update, and never in a frame. A key becomes an [`Action`] through the
//! key table ([`Ui::handle_key`]); [`Ui::update`] carries it out on the [`App`] (the conversation and
//! the shell: focus, popup, message) and on the focused pane's own state (`update`, `navigate`,
//! `mouse`), and hands side effects back as [`Effect`](crate::tui::state::Effect)s. A frame then
//! prepares the panes ([`Ui::prepare`]: their rows and scroll positions, carrying out the scroll
//! requests their keys left — the panes' own state only) and draws from `&App` and `&Panes`
//! ([`screen::draw`], writing nothing), handing back [`FrameFacts`] (the layout class, the chart in
//! view, the popup's scroll) that the next update reads.

mod mouse;
mod navigate;
mod search;
#[cfg(test)]
mod tests;
mod timeline;
mod update;

use std::ops::{Deref, DerefMut};
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;

use super::screen::{self, FrameFacts, Panes};
use super::state::Turn;
use super::state::keymap::{Context, action_for};
use super::state::{Action, App, AppConfig, Continuation, Focus, Popup, Severity, SidebarItem};

/// The app, its panes' own state, and what the last frame showed.
#[derive(Debug)]
pub struct Ui {
    pub app: App,
    pub panes: Panes,
    /// From the last frame drawn, for the next update.
    pub facts: FrameFacts,
    /// Plain letters pressed in a pane that acted at once, in a row: when a letter after an armed
    /// one shows a word is being typed (`compare` after Esc: `c` moved the focus, `o` armed, `m`
    /// typed), they go to the prompt ahead of it.
    letters: String,
    /// When the last key came: letters typed after a pause (a person read, then moved on
    /// deliberately) start a new run.
    last_key: Option<Instant>,
}

/// Letters further apart than this are not one word being typed.
const WORD_PAUSE: Duration = Duration::from_secs(1);

/// What reads or changes the conversation (the turns, the focus, the popup) reads the app through
/// the `Ui` as through the app itself.
impl Deref for Ui {
    type Target = App;

    fn deref(&self) -> &App {
        &self.app
    }
}

impl DerefMut for Ui {
    fn deref_mut(&mut self) -> &mut App {
        &mut self.app
    }
}

impl Ui {
    pub fn new(config: AppConfig) -> Ui {
        let panes = Panes::new(config.can_ask, &config.theme);
        Ui {
            app: App::new(config),
            panes,
            facts: FrameFacts::default(),
            letters: String::new(),
            last_key: None,
        }
    }

    /// Map a key to an action given the current state (see the key table), remembering the
    /// letters that acted at once in a pane (see [`Ui::take_letters`]).
    pub fn handle_key(&mut self, key: KeyEvent) -> Option<Action> {
        let action = action_for(&self.app, self.facts.narrow, key);
        let now = Instant::now();
        if self.last_key.is_some_and(|at| now - at > WORD_PAUSE) {
            self.letters.clear();
        }
        self.last_key = Some(now);
        let letter = match key.code {
            KeyCode::Char(c)
                if c.is_alphabetic()
                    && !key
                        .modifiers
                        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                Some(c)
            }
            _ => None,
        };
        let in_panes = Context::Panes.holds(&self.app, self.facts.narrow);
        match (&action, letter) {
            // Typing takes them (see `type_key`); an armed letter waits with them.
            (Some(Action::Type(_) | Action::Arm(_)), _) => {}
            (Some(_), Some(c))
                if in_panes && self.app.armed.is_none() && self.letters.len() < 16 =>
            {
                self.letters.push(c)
            }
            _ => self.letters.clear(),
        }
        action
    }

    /// The letters that acted at once just before a word turned out to be typed.
    fn take_letters(&mut self) -> String {
        std::mem::take(&mut self.letters)
    }

    /// Get the panes ready for a frame of `area` (their rows, their scroll positions).
    pub fn prepare(&mut self, area: ratatui::layout::Rect) {
        screen::prepare(&self.app, &mut self.panes, area);
    }

    /// Prepare and draw one frame (inside `Terminal::draw`); what it showed is kept for the next
    /// update.
    pub fn draw(&mut self, frame: &mut Frame) {
        self.prepare(frame.area());
        self.draw_prepared(frame);
    }

    /// Draw the frame [`Ui::prepare`] got ready for this area, nothing having changed since.
    pub fn draw_prepared(&mut self, frame: &mut Frame) {
        self.facts = screen::draw(frame, &self.app, &self.panes);
    }

    /// Start a new turn for `question` (the conversation starts its stream).
    pub fn begin_turn(&mut self, question: Option<String>) {
        self.begin_turn_with(question, Continuation::default());
    }

    /// Start a new turn for `question`, sent with `request`'s continuation.
    pub fn begin_turn_with(&mut self, question: Option<String>, request: Continuation) {
        let mut turn = Turn::new(question);
        turn.request = request;
        self.add_turn(turn);
    }

    /// Add `turn` as the newest (a new question, or a turn of a watched session that another
    /// process wrote): the panes show it.
    pub fn add_turn(&mut self, turn: Turn) {
        self.app.add_turn(turn);
        self.new_turn_shown();
    }

    /// Replace the conversation with `turns` (a saved session opened): all shown at once, the
    /// prompt focused for a follow-up from the last checkpoint.
    pub fn load_turns(&mut self, turns: Vec<Turn>, session_id: Option<String>) {
        self.app.load_turns(turns, session_id);
        self.new_turn_shown();
        self.panes.answer.replaced();
        self.reset_prompt();
    }

    /// An empty prompt again.
    pub fn reset_prompt(&mut self) {
        self.panes.prompt = screen::prompt::PromptPane::new(self.app.can_ask, &self.app.theme);
    }

    /// Another turn is shown in the panes: nothing selected there, their tops shown.
    fn new_turn_shown(&mut self) {
        self.panes.activity.new_turn();
        self.panes.sources.new_turn();
        self.panes.plan.scroll.top = 0;
        self.panes.answer.new_turn();
    }

    /// Focus `focus` (the Plan only when there is one); Sources selects its first entry.
    pub(crate) fn set_focus(&mut self, focus: Focus) {
        if focus == Focus::Plan && !self.shows_plan() {
            self.app
                .set_message("no plan: this conversation has none", Severity::Info);
            return;
        }
        self.app.focus = focus;
        if focus != Focus::Prompt {
            self.app.tab = focus;
        }
        if focus == Focus::Sources && self.panes.sources.selected.is_none() {
            self.panes.sources.move_by(&self.app, 0);
        }
    }

    /// The selected entry of the Sources pane.
    pub fn selected_item(&self) -> Option<SidebarItem> {
        self.panes.sources.selected_item(&self.app)
    }

    /// The item `o`/`y` act on: the open popup's, else the selected one.
    fn url_target(&self) -> Option<SidebarItem> {
        match &self.app.popup {
            Some(Popup::Source { item, .. }) => Some(*item),
            _ => self.selected_item(),
        }
    }
}
