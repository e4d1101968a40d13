//! The mouse: a click focuses the pane under it and picks what it points at (a source, an activity
//! item, a citation marker's source, a tab, the structured output line), a click on the picked
//! entry opens it; the wheel scrolls the pane under the pointer without moving the focus. `m` leaves
//! the mouse to the terminal so text can be selected natively.

use super::Ui;
use crate::tui::state::keymap::Context;
use crate::tui::state::{Effect, Focus, Popup, Severity, SidebarItem, Spot};

impl Ui {
    /// A left click on `spot`.
    pub(super) fn click(&mut self, spot: Spot) -> Option<Effect> {
        if self.popup.is_some() {
            // Outside the popup closes it; inside does nothing (its keys are listed at its foot).
            if spot != Spot::Popup {
                self.app.popup = None;
            }
            return None;
        }
        match spot {
            Spot::Pane(focus) | Spot::Tab(focus) => self.set_focus(focus),
            Spot::Prompt => self.set_focus(Focus::Prompt),
            Spot::Source(index) => {
                let again =
                    self.focus == Focus::Sources && self.panes.sources.selected == Some(index);
                self.set_focus(Focus::Sources);
                if again {
                    return self.enter();
                }
                self.select_source(index);
            }
            Spot::Activity(index) => {
                let again =
                    self.focus == Focus::Activity && self.panes.activity.selected == Some(index);
                self.set_focus(Focus::Activity);
                self.panes.activity.selected = Some(index);
                if again {
                    return self.enter();
                }
            }
            Spot::Marker(n) => {
                self.set_focus(Focus::Answer);
                let index = self.sidebar_items().iter().position(|item| {
                    matches!(item, SidebarItem::Source(i)
                        if self.current().is_some_and(|t| t.attribution.sources[*i].n == n))
                });
                if let Some(index) = index {
                    self.select_source(index);
                    let keys = self.app.keys.fill(
                        &[Context::Panes],
                        "{next_span}/{previous_span} its spans · {focus_sources} to browse it",
                    );
                    self.app
                        .set_message(format!("source [{n}] selected · {keys}"), Severity::Info);
                }
            }
            Spot::Structured(turn) => {
                self.set_focus(Focus::Answer);
                if turn == self.current_index() {
                    self.toggle_structured();
                }
            }
            Spot::Chart(turn, chart) => {
                self.set_focus(Focus::Answer);
                self.app.popup = Some(Popup::Chart { turn, chart });
            }
            Spot::Popup | Spot::Nothing => {}
        }
        None
    }

    fn select_source(&mut self, index: usize) {
        if self.panes.sources.select(index) {
            self.panes.answer.focus_span = None;
        }
    }

    /// The wheel over `spot`: scroll that pane (or the open popup) by `rows`.
    pub(super) fn wheel(&mut self, spot: Spot, rows: isize) {
        if self.popup.is_some() {
            if let Some(scroll) = self.popup_scroll() {
                *scroll = scroll.saturating_add_signed(rows);
            }
            return;
        }
        let pane = match spot {
            Spot::Pane(focus) | Spot::Tab(focus) => focus,
            Spot::Source(_) => Focus::Sources,
            Spot::Activity(_) => Focus::Activity,
            Spot::Marker(_) | Spot::Structured(_) | Spot::Chart(..) => Focus::Answer,
            Spot::Prompt | Spot::Popup | Spot::Nothing => return,
        };
        self.panes.reveal_selection = false;
        self.scroll_by(pane, rows);
    }

    /// `m`: capture the mouse, or leave it to the terminal (to select text natively).
    pub(super) fn toggle_mouse(&mut self) -> Effect {
        self.app.mouse = !self.app.mouse;
        let text = if self.mouse {
            "mouse on: click and scroll the panes".to_owned()
        } else {
            let back = self
                .app
                .keys
                .then_enter("mouse", &[Context::Panes])
                .map_or_else(String::new, |keys| format!(" · {keys} takes it back"));
            format!("mouse off: select text with it{back}")
        };
        self.app.set_message(text, Severity::Info);
        Effect::MouseCapture(self.mouse)
    }
}
