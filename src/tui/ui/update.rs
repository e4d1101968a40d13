//! Carrying out an [`Action`]: [`Ui::update`] changes the app and the panes and returns the
//! [`Effect`] the event loop must carry out, if any.

use crossterm::event::KeyEvent;

use super::Ui;
use crate::model::stream_end::StreamEnd;
use crate::render::sanitize::is_unsafe;
use crate::styled::text::clean;
use crate::tui::state::app::{Mode, STILL_ANSWERING};
use crate::tui::state::keymap::{Context, letter_name};
use crate::tui::state::{Action, Armed, Effect, Focus, Popup, Severity, SidebarItem};

/// What Ctrl-C does in the app's state, in the order it takes them ([`Ui::interrupt_step`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InterruptStep {
    DropQueued,
    Cancel,
    ClosePopup,
    EndSearch,
    ClearPrompt,
    Quit,
}

impl Ui {
    /// Apply an action; returns a side effect for the loop, if any.
    pub fn update(&mut self, action: Action) -> Option<Effect> {
        let effect = self.apply(action);
        self.refresh_search();
        effect
    }

    fn apply(&mut self, action: Action) -> Option<Effect> {
        let armed = self.before(&action);
        match action {
            Action::Quit => {
                self.quit = true;
                return Some(Effect::Quit);
            }
            Action::Arm(armed) => self.arm(armed),
            Action::Confirm => return armed.and_then(|armed| self.update(*armed.action)),
            Action::Interrupt => return self.interrupt(),
            Action::Suspend => return Some(Effect::Suspend),
            Action::FocusNext => self.set_focus(self.focus_step(true, self.can_ask)),
            Action::FocusPrev => self.set_focus(self.focus_step(false, self.can_ask)),
            // Narrow, `h` `l` and ← → step through the tabs only.
            Action::Tab(forward) => self.set_focus(self.focus_step(forward, false)),
            Action::Resize(grow) => {
                let narrow = self.facts.narrow;
                self.panes.answer.keep_anchor();
                return self.app.resize_focused(grow, narrow);
            }
            Action::Zoom => {
                self.panes.answer.keep_anchor();
                self.toggle_zoom()
            }
            Action::ResetSizes => {
                let narrow = self.facts.narrow;
                self.panes.answer.keep_anchor();
                return self.app.reset_sizes(narrow);
            }
            Action::Search => self.start_search(),
            Action::SearchStep(forward) => self.search_step(forward),
            Action::ChartStep(forward) => self.chart_step(forward),
            Action::Comparison(key) => return Some(Effect::Comparison(key)),
            Action::Focus(focus) => self.set_focus(focus),
            Action::Help => self.toggle_help(),
            Action::Escape => self.escape(),
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.page(-1),
            Action::PageDown => self.page(1),
            Action::Top => self.jump_to_edge(false),
            Action::Bottom => self.jump_to_edge(true),
            Action::Enter => return self.enter(),
            Action::RawJson => self.raw_json(),
            Action::NextSpan | Action::PrevSpan if self.search.is_some() => {
                self.search_step(action == Action::NextSpan)
            }
            Action::NextSpan => self.jump_span(true),
            Action::PrevSpan => self.jump_span(false),
            Action::OpenUrl | Action::CopyUrl => return self.source_url(action == Action::OpenUrl),
            Action::Export => return Some(Effect::Export),
            // In a popup, only the timeline's turn changes.
            Action::Turn(_) if self.popup.is_some() && self.timeline_view().is_none() => {}
            Action::Turn(forward) => {
                self.view_turn(forward);
                self.timeline_step_turn();
            }
            Action::Sessions => return self.sessions(),
            Action::Filter => {
                if let Some(picker) = self.picker_mut() {
                    picker.start_filter();
                }
            }
            Action::Ids => self.popup = Some(Popup::Ids { scroll: 0 }),
            Action::Timeline => self.open_timeline(),
            Action::Click(spot) => return self.click(spot),
            Action::Wheel(spot, rows) => self.wheel(spot, rows),
            Action::Mouse => return Some(self.toggle_mouse()),
            Action::Retry => return self.retry(),
            Action::Submit => return self.submit(),
            Action::Newline => self.panes.prompt.editor.insert_newline(),
            Action::Edit(key) if self.search_typing() => self.search_edit(key),
            Action::Edit(key) => self.edit(key),
            Action::Type(key) => self.type_key(key, armed.map(|armed| armed.letter)),
            // A paste into the picker's filter is typed into it (on one line).
            Action::Paste(text) if self.picker_typing() => {
                if let Some(picker) = self.picker_mut() {
                    picker.paste_filter(&text);
                }
            }
            // A paste behind a popup, or where nothing can be asked, goes nowhere.
            Action::Paste(_) if self.popup.is_some() || !self.can_ask => {}
            Action::Paste(text) => self.paste(&text),
        }
        None
    }

    /// What every action does first; the letter that was waiting for its confirmation, if any (only
    /// Enter, or typing, uses it).
    fn before(&mut self, action: &Action) -> Option<Armed> {
        // Where the last frame showed the open popup scrolled to (within its rows) is where its
        // keys scroll from.
        if let (Some(top), Some(popup)) = (self.facts.popup_scroll.take(), &mut self.app.popup) {
            popup.set_scroll(top);
        }
        // Any key clears a transient message.
        if !matches!(action, Action::Edit(_) | Action::Paste(_)) {
            self.app.message = None;
        }
        // Keys move selections into view again; the wheel scrolls away from them.
        if !matches!(action, Action::Wheel(..)) {
            self.panes.reveal_selection = true;
        }
        self.app.armed.take()
    }

    /// A key for the prompt's editor, or the sessions picker's filter while it is typed.
    fn edit(&mut self, key: KeyEvent) {
        match self.app.picker_mut() {
            Some(picker) => picker.edit_filter(key),
            None => {
                self.panes.prompt.input(key);
            }
        }
    }

    /// A character typed in a pane (or in a popup a word's letter opened): it goes to the prompt,
    /// with the letters that acted just before it and the letter that waited for its confirmation.
    fn type_key(&mut self, key: KeyEvent, armed: Option<char>) {
        let letters = self.take_letters();
        self.set_focus(Focus::Prompt);
        self.panes.prompt.editor.insert_str(letters);
        if let Some(letter) = armed {
            self.panes.prompt.editor.insert_char(letter);
        }
        self.panes.prompt.input(key);
    }

    /// A letter that writes, opens, quits or sends: it waits for Enter, and the status bar says
    /// what Enter will do.
    fn arm(&mut self, armed: Armed) {
        // Quitting also takes the armed letter again: named as pressed, whatever `[keys]` made it.
        let again = letter_name(armed.letter);
        let what = match *armed.action {
            Action::OpenUrl => "open the selected source's URL".to_owned(),
            Action::Export => "export the conversation to Markdown".to_owned(),
            Action::Retry => "retry the turn".to_owned(),
            Action::Mouse if self.mouse => "leave the mouse to the terminal".to_owned(),
            Action::Mouse => "take the mouse back".to_owned(),
            Action::Quit if self.stream_running || self.in_progress() => {
                format!("quit (what arrived is kept; {again} works too)")
            }
            Action::Quit => format!("quit ({again} works too)"),
            _ => "do it".to_owned(),
        };
        // In a popup nothing is typed: another key only drops the letter.
        // In a popup or a replay nothing is typed: another key only drops the letter.
        let other = match self.popup {
            Some(_) => "another key does not".to_owned(),
            None if !self.can_ask => "another key does not".to_owned(),
            None => format!("a letter types `{}…`", armed.letter),
        };
        self.app
            .set_message(format!("Enter: {what} · {other}"), Severity::Info);
        self.app.armed = Some(armed);
    }

    /// What Ctrl-C does now: drop the queued question, else cancel the running stream, else close
    /// the popup, else end the search, else clear the prompt, else quit.
    pub(crate) fn interrupt_step(&self) -> InterruptStep {
        if self.app.queued.is_some() {
            InterruptStep::DropQueued
        } else if self.interrupt_cancels() {
            InterruptStep::Cancel
        } else if self.popup.is_some() {
            InterruptStep::ClosePopup
        } else if self.search.is_some() {
            InterruptStep::EndSearch
        } else if self.focus == Focus::Prompt && !self.panes.prompt.is_empty() {
            InterruptStep::ClearPrompt
        } else {
            InterruptStep::Quit
        }
    }

    /// Ctrl-C: the [`Ui::interrupt_step`] in force.
    fn interrupt(&mut self) -> Option<Effect> {
        let said = match self.interrupt_step() {
            InterruptStep::DropQueued => {
                self.app.queued = None;
                self.app.set_message(
                    "queued question dropped — Ctrl-C again cancels the answer",
                    Severity::Info,
                );
                return None;
            }
            InterruptStep::Cancel => {
                self.cancel();
                return Some(Effect::Cancel);
            }
            // A popup closes first, as Esc would close it: what was behind it is still there.
            InterruptStep::ClosePopup => {
                self.popup = None;
                "closed"
            }
            InterruptStep::EndSearch => {
                self.search = None;
                "search ended"
            }
            InterruptStep::ClearPrompt => {
                self.reset_prompt();
                "prompt cleared"
            }
            InterruptStep::Quit => {
                self.quit = true;
                return Some(Effect::Quit);
            }
        };
        let again = self.again();
        self.app
            .set_message(format!("{said} — {again}"), Severity::Info);
        None
    }

    /// What Ctrl-C does next, once this app's own stream is stopped: quit, or in a comparison
    /// where other agents still answer, cancel them.
    fn again(&self) -> &'static str {
        if self.app.others_answering {
            "Ctrl-C again cancels the others"
        } else {
            "Ctrl-C again quits"
        }
    }

    /// `?`: open the help, or close it.
    fn toggle_help(&mut self) {
        self.popup = match self.popup {
            Some(Popup::Help { .. }) => None,
            _ => Some(Popup::Help { scroll: 0 }),
        };
    }

    /// Esc: end (or, while it is typed, browse) the search, else clear the picker's filter, else
    /// close the popup, else drop the focused span, else (in
    /// Sources) the selection.
    fn escape(&mut self) {
        if self.timeline_back() {
            return;
        }
        if self.popup.is_none() && self.search.is_some() {
            return self.search_escape();
        }
        if let Some(picker) = self.picker_mut()
            && picker.typing()
        {
            picker.clear_filter();
            return;
        }
        if self.app.popup.take().is_none()
            && self.panes.answer.focus_span.take().is_none()
            && self.focus == Focus::Sources
        {
            self.panes.sources.selected = None;
        }
    }

    /// `o` (`open`) or `y`: the URL of the source the popup shows, else of the selected one; in the
    /// ids popup `y` copies the checkpoint id.
    fn source_url(&mut self, open: bool) -> Option<Effect> {
        // The help, a chart and the picker show no source (the one selected behind them is not
        // theirs): `y` copies what they show, or says why it cannot.
        match &self.app.popup {
            Some(Popup::Sessions { picker }) => {
                let id = picker.selected_id().map(str::to_owned);
                return match (open, id) {
                    (false, Some(id)) => Some(Effect::CopyText(id)),
                    (false, None) => self.say("no session selected to copy"),
                    (true, _) => self.say("a session has no web page: Enter opens it here"),
                };
            }
            Some(Popup::Chart { turn, chart }) => {
                let chart = self.turns.get(*turn)?.session.charts.get(*chart)?;
                return match (open, crate::render::chart_csv::chart_data(chart)) {
                    (false, Some(data)) => Some(Effect::CopyText(data)),
                    (false, None) => self.say("this chart came with no data to copy"),
                    (true, _) => self.say("a chart has no web page to open"),
                };
            }
            Some(Popup::Help { .. }) => return self.say("the help has nothing to copy or open"),
            _ => {}
        }
        if let Some(copied) = self.timeline_copy() {
            return copied.filter(|_| !open).map(Effect::CopyText);
        }
        if let Some(Popup::Json { turn, .. }) = self.popup {
            let output = self.turns.get(turn)?.session.structured_output.as_ref()?;
            let json = serde_json::to_string_pretty(&output.content).unwrap_or_default();
            return (!open).then_some(Effect::CopyText(json));
        }
        if matches!(self.popup, Some(Popup::Ids { .. })) {
            let checkpoint = self.current().and_then(|t| t.checkpoint_id());
            return match (open, checkpoint) {
                (false, Some(checkpoint)) => Some(Effect::CopyText(checkpoint.to_owned())),
                _ => None,
            };
        }
        let Some(item) = self.url_target() else {
            self.app
                .set_message("select a source first (c, then j/k)", Severity::Warning);
            return None;
        };
        if let SidebarItem::Tool(ci) = item {
            // Tool data has no page: `y` copies the data itself.
            let turn = self.current()?;
            let citation = turn.attribution.citations.get(ci)?;
            return match open {
                false => Some(Effect::CopyText(
                    crate::tui::screen::popup::source::tool_text(turn, citation),
                )),
                true => {
                    let copy = self.app.keys.fill(&[Context::Panes], " ({copy} copies it)");
                    self.say(&format!("tool data has no web page to open{copy}"))
                }
            };
        }
        let Some(url) = self.item_url(item) else {
            self.app
                .set_message("this source has no URL", Severity::Warning);
            return None;
        };
        if url.trim().starts_with("custom://") {
            self.app.set_message(
                format!(
                    "{} is a custom document (your own data): no web page to open",
                    clean(url.trim())
                ),
                Severity::Info,
            );
            return None;
        }
        let resolved = self.open_url_of(&url);
        if !open {
            return Some(Effect::Copy(resolved.unwrap_or(url)));
        }
        match resolved {
            Some(url) => Some(Effect::Open(url)),
            None => {
                self.app.set_message(
                    "this source's URL does not open in a browser",
                    Severity::Warning,
                );
                None
            }
        }
    }

    /// `s`: the saved sessions picker (closes it when open).
    fn sessions(&mut self) -> Option<Effect> {
        if matches!(self.popup, Some(Popup::Sessions { .. })) {
            self.popup = None;
            return None;
        }
        if !self.can_ask {
            self.app.set_message(
                "replay mode: saved sessions open with `research-tui open <ID>`",
                Severity::Info,
            );
            return None;
        }
        Some(Effect::ListSessions)
    }

    /// Pasted text goes into the prompt (focusing it), line breaks kept (terminals send them as CR),
    /// control and unsafe characters left out.
    fn paste(&mut self, text: &str) {
        // A tab (a spreadsheet's cells, indented code) keeps its words apart as the prompt's own
        // four columns; every other control character goes.
        let clean: String = text
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .replace('\t', "    ")
            .chars()
            .filter(|&c| c == '\n' || !(c.is_control() || is_unsafe(c)))
            .collect();
        self.panes.prompt.editor.insert_str(clean);
        if self.focus != Focus::Prompt {
            self.set_focus(Focus::Prompt);
        }
    }

    fn view_turn(&mut self, forward: bool) {
        let n = self.turns.len();
        if n < 2 {
            self.app.set_message("only one turn so far", Severity::Info);
            return;
        }
        let current = self.current_index();
        let next = if forward {
            (current + 1).min(n - 1)
        } else {
            current.saturating_sub(1)
        };
        self.show_turn(next);
        let text = if next + 1 == n {
            "the newest turn again".to_owned()
        } else {
            "the panes show an earlier turn · a question now branches from it".to_owned()
        };
        self.app.set_message(text, Severity::Info);
    }

    /// The panes show turn `next` (the newest: the panes follow it again): the answer scrolled to
    /// its question, the sidebar, plan and activity its own.
    pub(super) fn show_turn(&mut self, next: usize) {
        let n = self.turns.len();
        self.app.viewed_turn = (next + 1 < n).then_some(next);
        self.panes.sources.new_turn();
        self.panes.answer.focus_span = None;
        self.panes.activity.selected = None;
        self.panes.activity.expanded.clear();
        self.panes.plan.scroll.top = 0;
        self.panes.answer.scroll_to_turn = Some(next);
    }

    /// Where a source URL opens: absolute as it is, relative against the API base (for providers
    /// that write relative links), `custom://` nowhere.
    pub fn open_url_of(&self, url: &str) -> Option<String> {
        crate::wire::provider::open_url(self.provider, url, self.api_base.as_deref())
    }

    /// `r`: the selected turn (the newest unless `[`/`]` picked one) again, when it did not finish.
    fn retry(&mut self) -> Option<Effect> {
        let index = self.current_index();
        let Some(turn) = self.turns.get(index) else {
            self.app.set_message("nothing to retry yet", Severity::Info);
            return None;
        };
        if !self.can_ask {
            self.app
                .set_message("replay mode: nothing to retry against", Severity::Warning);
            return None;
        }
        if self.in_progress() {
            self.app.set_message(
                format!("{STILL_ANSWERING} — wait, or Ctrl-C to cancel first"),
                Severity::Warning,
            );
            return None;
        }
        if !turn.conn.can_retry() {
            self.app.set_message(
                format!(
                    "turn {} is {}: ask a follow-up instead",
                    index + 1,
                    turn.conn.label()
                ),
                Severity::Info,
            );
            return None;
        }
        if turn.question.as_deref().is_none_or(|q| q.trim().is_empty()) {
            let why = match turn.unreadable_request {
                true => ": its request could not be read (its question is unknown)",
                false => "",
            };
            self.app.set_message(
                format!("turn {} has no question to ask again{why}", index + 1),
                Severity::Warning,
            );
            return None;
        }
        Some(Effect::Retry(index))
    }

    /// Ctrl-C: the turn ends as cancelled; [`Effect::Cancel`] has the conversation stop its stream.
    fn cancel(&mut self) {
        self.stream_running = false;
        let watched = std::mem::take(&mut self.watching);
        let again = self
            .app
            .keys
            .fill(&[Context::Panes], " ({sessions} opens it again)");
        if let Some(turn) = self.turns.last_mut()
            && turn.conn.in_progress()
        {
            turn.end(if watched {
                StreamEnd::Cut {
                    reason: format!(
                        "no longer followed here; it goes on in its own process{again}"
                    ),
                }
            } else {
                StreamEnd::Cancelled
            });
        }
        if self.can_ask {
            self.focus = Focus::Prompt;
        }
        let again = self.again();
        let message = if watched {
            format!("stopped watching — the session goes on in its own process; {again}")
        } else {
            format!("cancelled — {again}")
        };
        self.app.set_message(message, Severity::Warning);
    }

    fn submit(&mut self) -> Option<Effect> {
        let text = self.panes.prompt.text();
        let question = text.trim();
        if question.is_empty() {
            return None;
        }
        if !self.can_ask {
            self.app
                .set_message(super::NOTHING_TO_ASK, Severity::Warning);
            return None;
        }
        if self.mode == Mode::Watch {
            // `watch` before any session started: the question stays for when one has.
            self.app
                .set_message("no session to follow up yet", Severity::Info);
            return None;
        }
        // The answer streams, here or in the process this app watches: the question waits for
        // its end (the prompt's title promised it), then continues from it like any follow-up.
        if self.in_progress() || self.stream_running {
            return self.queue(question.to_owned());
        }
        let question = question.to_owned();
        self.reset_prompt();
        Some(Effect::Ask(question))
    }
}

impl Ui {
    /// Say `text` (why a key did nothing) in the status bar.
    fn say(&mut self, text: &str) -> Option<Effect> {
        self.app.set_message(text, Severity::Info);
        None
    }

    /// Enter while the answer streams: the question waits and is sent when the stream ends (the
    /// prompt's title shows it; Ctrl-C drops it). One question waits at a time.
    fn queue(&mut self, question: String) -> Option<Effect> {
        if self.app.queued.is_some() {
            self.app.set_message(
                "a question is already queued — Ctrl-C drops it",
                Severity::Warning,
            );
            return None;
        }
        self.app.queued = Some(question);
        self.reset_prompt();
        // Whole at 80 columns; the prompt's title says how to drop it.
        self.app
            .set_message("queued: sent when the answer ends", Severity::Info);
        None
    }

    /// The queued question, once nothing streams any more: taken, to be asked.
    pub fn take_queued(&mut self) -> Option<String> {
        if self.stream_running || self.in_progress() {
            return None;
        }
        let question = self.app.queued.take()?;
        self.app
            .set_message("sent the question that waited", Severity::Info);
        Some(question)
    }
}
