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
pub(crate) use update::InterruptStep;

use std::ops::{Deref, DerefMut};
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
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
    /// The word being typed after Esc, as far as it acted: see [`Word`].
    word: Word,
}

/// Plain letters pressed in a pane that acted at once, in a row, no further apart than
/// [`WORD_PAUSE`]: when a character shows a word is being typed (one no key takes, one after an
/// armed letter, a space after two letters), they go to the prompt ahead of it, and what they
/// did that the prompt does not undo is undone (a zoom; a popup one opened closes). `compare`
/// after Esc: `c` moved the focus, `o` armed, `m` typed; `Is it` : `I` opened the ids, `s` typed.
#[derive(Debug, Default)]
struct Word {
    letters: String,
    /// When the last key came: letters typed after a pause (a person read, then moved on
    /// deliberately) start a new run.
    last_key: Option<Instant>,
    /// The last letter opened a popup (`I`, `T`, `J`, `s`): a character it does not move by is
    /// the word's next one.
    opened_popup: bool,
    /// The letters toggled the zoom (an odd number of `z`).
    zoomed: bool,
    /// The last letter was `i` right after a word's first letter: it went to the prompt, and a
    /// character typed there next, at a word's pace, is the word's next (`kind`: `k` moved, `i`
    /// went to the prompt, `n` shows a word was being typed).
    to_prompt: bool,
    /// Every letter pressed in a row at a word's pace, whether it acted or not: a tab-stepping
    /// letter after another one is a word's (below 100 columns), and in a replay, where nothing is
    /// typed, a letter that would arm after another one arms nothing (see [`TYPING_OFF`]).
    run: String,
}

impl Word {
    fn clear(&mut self) {
        self.letters.clear();
        self.opened_popup = false;
        self.zoomed = false;
        self.to_prompt = false;
    }

    /// The letters so far look like the start of a word: two or more, not one letter repeated
    /// (`jjj` moves three rows).
    fn is_word(&self) -> bool {
        let mut letters = self.letters.chars();
        let first = letters.next();
        self.letters.chars().count() >= 2 && letters.any(|c| Some(c) != first)
    }
}

/// What a replay says when asked to take a question (it has no agent to send one to).
pub(crate) const NOTHING_TO_ASK: &str =
    "replay: nothing to ask — follow-ups need an agent (run without `replay`)";

/// What a replay says when a word's letter would open, write or take the mouse: it arms nothing.
pub(crate) const TYPING_OFF: &str = "replay: letters are keys here, not typing (nothing armed) — \
     follow-ups need an agent (run without `replay`)";

/// Letters further apart than this are not one word being typed.
const WORD_PAUSE: Duration = Duration::from_secs(1);

/// Whether `action`, asked for by a letter in a pane, opens a popup.
fn opens_popup(action: &Action) -> bool {
    matches!(
        action,
        Action::Ids | Action::Timeline | Action::RawJson | Action::Sessions
    )
}

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
            word: Word::default(),
        }
    }

    /// Map a key to an action given the current state (see the key table), remembering the
    /// letters that acted at once in a pane (see [`Word`]).
    pub fn handle_key(&mut self, key: KeyEvent) -> Option<Action> {
        let now = Instant::now();
        if self.word.last_key.is_some_and(|at| now - at > WORD_PAUSE) {
            self.word.clear();
            self.word.run.clear();
        }
        self.word.last_key = Some(now);
        let typed = match key.code {
            KeyCode::Char(c)
                if !key
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                Some(c)
            }
            _ => None,
        };
        let in_panes = Context::Panes.holds(&self.app, self.facts.narrow);
        let mut action = action_for(&self.app, self.facts.narrow, key);
        let after_another = self.note_run(typed);
        if after_another && self.arms_in_a_replay(&action) {
            self.app.armed = None;
            self.app.set_message(TYPING_OFF, Severity::Info);
            return None;
        }
        let in_word_popup = self.word.opened_popup && self.app.popup.is_some();
        let word_goes_on = match typed {
            // The prompt `i` went to takes the next character as the word's next.
            Some(_) if self.word.to_prompt => matches!(action, Some(Action::Edit(_))),
            // A space after a word's letters ends the word: it does not page.
            Some(' ') if in_word_popup => self.word.is_word(),
            Some(' ') => in_panes && self.app.armed.is_none() && self.word.is_word(),
            // In the popup a word's letter opened, a letter the popup takes acts (`I` then `y`
            // copies); any other, or one after a letter it armed, is the word's next.
            Some(c) if in_word_popup => {
                c.is_alphabetic() && (action.is_none() || self.app.armed.is_some())
            }
            // Below 100 columns a letter that steps through the tabs (`h`, `l`) right after
            // another letter is a word's, as it is where nothing takes it (`the`, `also`; `t` `h`
            // then `e` armed the export).
            Some(_) if matches!(action, Some(Action::Tab(_))) => in_panes && after_another,
            _ => false,
        };
        if word_goes_on && self.app.can_ask {
            action = Some(Action::Type(key));
        }
        // A key that asks for nothing still drops an armed letter (as the status bar says).
        if action.is_none() && key.kind != KeyEventKind::Release && self.app.armed.take().is_some()
        {
            self.app.message = None;
        }
        match (&action, typed.filter(|c| c.is_alphabetic())) {
            // Typing takes them (see `type_key`); an armed letter waits with them.
            (Some(Action::Type(_) | Action::Arm(_)), _) => {}
            // `i` right after one letter goes to the prompt and waits with it (`kind`, `time`,
            // `give`); after nothing, or after two letters or more (`a` `g` then `i`: moves a
            // person chains), it only goes to the prompt.
            (Some(Action::Focus(Focus::Prompt)), Some(c))
                if in_panes && self.app.armed.is_none() =>
            {
                if self.word.letters.chars().count() == 1 {
                    self.word.letters.push(c);
                    self.word.opened_popup = false;
                    self.word.to_prompt = true;
                } else {
                    self.word.clear();
                }
            }
            (Some(action), Some(c))
                if in_panes && self.app.armed.is_none() && self.word.letters.len() < 16 =>
            {
                self.word.letters.push(c);
                self.word.opened_popup = opens_popup(action);
                self.word.zoomed ^= *action == Action::Zoom;
            }
            _ => self.word.clear(),
        }
        action
    }

    /// Notes the letters pressed in a row (acted or not); whether `typed` is a letter after
    /// another, different one of the run.
    fn note_run(&mut self, typed: Option<char>) -> bool {
        let Some(letter) = typed.filter(|c| c.is_alphabetic()) else {
            self.word.run.clear();
            return false;
        };
        let after_another = self.word.run.chars().any(|c| c != letter);
        if self.word.run.len() < 16 {
            self.word.run.push(letter);
        }
        after_another
    }

    /// Whether `action`, asked for by a letter after another of a word, would arm a letter in a
    /// replay: it must not (a replay types nothing, so `hello` then Enter opened the selected
    /// source's URL). Quitting is left to arm: it loses nothing in a replay.
    fn arms_in_a_replay(&self, action: &Option<Action>) -> bool {
        !self.app.can_ask
            && matches!(action, Some(Action::Arm(armed)) if *armed.action != Action::Quit)
    }

    /// The letters that acted at once just before a word turned out to be typed, what they did
    /// undone (see [`Word`]).
    fn take_letters(&mut self) -> String {
        if std::mem::take(&mut self.word.opened_popup) {
            self.app.popup = None;
        }
        if std::mem::take(&mut self.word.zoomed) {
            self.panes.answer.keep_anchor();
            self.app.toggle_zoom();
        }
        std::mem::take(&mut self.word.letters)
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
        if focus == Focus::Prompt && !self.app.can_ask {
            self.app.set_message(NOTHING_TO_ASK, Severity::Info);
            return;
        }
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

    /// The next (or previous) focus in the layout's order, the prompt left out unless
    /// `into_prompt` (a replay has nothing to ask).
    fn focus_step(&self, forward: bool, into_prompt: bool) -> Focus {
        let step = |focus: Focus| focus.step(forward, self.facts.narrow, self.shows_plan());
        match step(self.focus) {
            Focus::Prompt if !into_prompt => step(Focus::Prompt),
            next => next,
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
