//! The mouse: a click focuses the pane under it and picks what it points at (a source, an activity
//! item, a citation marker's source, a tab, the structured output line), a click on the picked
//! entry opens it; the wheel scrolls the pane under the pointer without moving the focus. `m` leaves
//! the mouse to the terminal so text can be selected natively.

use super::action::{Effect, Popup, Severity, Spot};
use super::app::App;
use super::focus::Focus;
use super::turn::SidebarItem;

impl App {
    /// A left click on `spot`.
    pub(super) fn click(&mut self, spot: Spot) -> Option<Effect> {
        if self.popup.is_some() {
            // Outside the popup closes it; inside does nothing (its keys are listed at its foot).
            if spot != Spot::Popup {
                self.popup = None;
            }
            return None;
        }
        match spot {
            Spot::Pane(focus) | Spot::Tab(focus) => self.set_focus(focus),
            Spot::Prompt => self.set_focus(Focus::Prompt),
            Spot::Source(index) => {
                let again = self.focus == Focus::Sources && self.source_selected == Some(index);
                self.set_focus(Focus::Sources);
                if again {
                    return self.enter();
                }
                self.select_source(index);
            }
            Spot::Activity(index) => {
                let again = self.focus == Focus::Activity && self.activity_selected == Some(index);
                self.set_focus(Focus::Activity);
                self.activity_selected = Some(index);
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
                    self.set_message(
                        format!("source [{n}] selected · n/N its spans · c to browse it"),
                        Severity::Info,
                    );
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
                self.popup = Some(Popup::Chart { turn, chart });
            }
            Spot::Popup | Spot::Nothing => {}
        }
        None
    }

    fn select_source(&mut self, index: usize) {
        if self.source_selected != Some(index) {
            self.focus_span = None;
        }
        self.source_selected = Some(index);
    }

    /// The wheel over `spot`: scroll that pane (or the open popup) by `rows`.
    pub(super) fn wheel(&mut self, spot: Spot, rows: isize) {
        if self.popup.is_some() {
            if let Some(
                Popup::Help { scroll }
                | Popup::Source { scroll, .. }
                | Popup::Ids { scroll }
                | Popup::Json { scroll, .. },
            ) = &mut self.popup
            {
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
        self.reveal_selection = false;
        let scroll = match pane {
            Focus::Plan => &mut self.plan_scroll,
            Focus::Activity => &mut self.activity_scroll,
            Focus::Sources => &mut self.sources_scroll,
            Focus::Answer | Focus::Prompt => &mut self.answer_scroll,
        };
        scroll.by(rows);
    }

    /// `m`: capture the mouse, or leave it to the terminal (to select text natively).
    pub(super) fn toggle_mouse(&mut self) -> Effect {
        self.mouse = !self.mouse;
        let text = if self.mouse {
            "mouse on: click and scroll the panes"
        } else {
            "mouse off: select text with it · m turns it on again"
        };
        self.set_message(text, Severity::Info);
        Effect::MouseCapture(self.mouse)
    }
}
