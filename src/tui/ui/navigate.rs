//! Moving around: selections and scroll positions in the focused pane or the open popup, Enter on the
//! selected item, and jumping between the spans a source supports.

use super::Ui;
use crate::model::session::Activity;
use crate::tui::state::keymap::Context;
use crate::tui::state::{Effect, Focus, Popup, Scroll, Severity};

impl Ui {
    /// Scroll the pane behind `focus` (the prompt's: the answer) by `delta` rows.
    pub(super) fn scroll_by(&mut self, focus: Focus, delta: isize) {
        if matches!(focus, Focus::Answer | Focus::Prompt | Focus::Timeline) {
            // Its arithmetic needs the rows it scrolls into counted (not the rest of a long
            // answer followed at the bottom: they stay above the window).
            self.panes.relayout_stale_answer(&self.app);
            let up = delta.min(0).unsigned_abs();
            self.panes.answer.measure_above(&self.app, up);
        }
        self.scroll_as_left(focus).by(delta);
    }

    /// The pane behind `focus` (the prompt's: the answer) at its top.
    fn scroll_to_top(&mut self, focus: Focus) {
        if matches!(focus, Focus::Answer | Focus::Prompt | Focus::Timeline) {
            // Every row above the bottom counted.
            self.panes.relayout_stale_answer(&self.app);
            self.panes.answer.measure_all(&self.app);
        }
        self.scroll_as_left(focus).to_top();
    }

    /// The pane's scroll position as the last frame left it: the answer's counts no rows for the
    /// blocks left unmeasured while it follows the bottom (enough to go back to the bottom).
    fn scroll_as_left(&mut self, focus: Focus) -> &mut Scroll {
        let panes = &mut self.panes;
        match focus {
            Focus::Plan => &mut panes.plan.scroll,
            Focus::Activity => &mut panes.activity.scroll,
            Focus::Sources => &mut panes.sources.scroll,
            Focus::Answer | Focus::Prompt | Focus::Timeline => &mut panes.answer.scroll,
        }
    }

    pub(super) fn popup_scroll(&mut self) -> Option<&mut usize> {
        match &mut self.app.popup {
            Some(Popup::Help { scroll })
            | Some(Popup::Source { scroll, .. })
            | Some(Popup::Ids { scroll })
            | Some(Popup::Json { scroll, .. }) => Some(scroll),
            Some(Popup::Sessions { .. } | Popup::Chart { .. } | Popup::Timeline(_)) | None => None,
        }
    }

    /// j/k in a source's detail: pick the next or previous span it lists (before the first one, the
    /// popup scrolls); `false` when the popup is not a source's or it lists no span.
    fn move_popup_span(&mut self, delta: isize) -> bool {
        let Some(Popup::Source { item, .. }) = &self.app.popup else {
            return false;
        };
        let count = self.app.item_citations(*item).len();
        let Some(Popup::Source { span, scroll, .. }) = &mut self.app.popup else {
            return false;
        };
        if count == 0 {
            return false;
        }
        *span = match (*span, delta > 0) {
            (None, true) => Some(0),
            (None, false) => {
                *scroll = scroll.saturating_sub(1);
                None
            }
            (Some(0), false) => {
                *scroll = 0;
                None
            }
            (Some(i), _) => Some(i.saturating_add_signed(delta.signum()).min(count - 1)),
        };
        true
    }

    /// Move the sessions picker's selection; `false` when the picker is not open.
    fn move_picker(&mut self, delta: isize, edge: Option<bool>) -> bool {
        let Some(picker) = self.app.picker_mut() else {
            return false;
        };
        picker.move_by(delta, edge);
        true
    }

    pub(super) fn move_by(&mut self, delta: isize) {
        if self.move_picker(delta, None)
            || self.move_popup_span(delta)
            || self.move_timeline_row(delta)
        {
            return;
        }
        if let Some(scroll) = self.popup_scroll() {
            *scroll = scroll.saturating_add_signed(delta);
            return;
        }
        match self.focus {
            Focus::Activity => self.panes.activity.move_by(&self.app, delta),
            Focus::Sources => self.move_source(delta),
            focus => self.scroll_by(focus, delta),
        }
    }

    pub(super) fn page(&mut self, direction: isize) {
        if self.move_picker(direction * 5, None) || self.timeline_page(direction) {
            return;
        }
        if let Some(Popup::Chart { .. }) = self.app.popup {
            return self.chart_step(direction > 0);
        }
        if let Some(scroll) = self.popup_scroll() {
            *scroll = scroll.saturating_add_signed(direction * 10);
            return;
        }
        let focus = self.focus;
        let viewport = self.scroll_as_left(focus).viewport.max(2) as isize;
        match focus {
            Focus::Activity => self
                .panes
                .activity
                .move_by(&self.app, direction * (viewport - 1)),
            Focus::Sources => self.move_source(direction * (viewport / 2).max(1)),
            _ => self.scroll_by(focus, direction * (viewport - 1)),
        }
    }

    pub(super) fn jump_to_edge(&mut self, bottom: bool) {
        let edge = if bottom {
            isize::MAX / 2
        } else {
            isize::MIN / 2
        };
        if self.move_picker(0, Some(bottom)) || self.move_timeline_row(edge) {
            return;
        }
        if let Some(scroll) = self.popup_scroll() {
            *scroll = if bottom { usize::MAX / 2 } else { 0 };
            return;
        }
        match self.focus {
            Focus::Activity => self.panes.activity.to_edge(&self.app, bottom),
            Focus::Sources => {
                if self.panes.sources.to_edge(&self.app, bottom) {
                    self.panes.answer.focus_span = None;
                }
            }
            focus if bottom => self.scroll_as_left(focus).to_bottom(),
            focus => self.scroll_to_top(focus),
        }
    }

    /// ← → (PgUp PgDn) in the full-screen chart: the turn's previous or next chart.
    pub(super) fn chart_step(&mut self, forward: bool) {
        let Some(Popup::Chart { turn, chart }) = self.app.popup else {
            return;
        };
        let count = self
            .app
            .turns
            .get(turn)
            .map_or(0, |t| t.session.charts.len());
        let next = if forward {
            chart + 1
        } else {
            chart.wrapping_sub(1)
        };
        if next < count {
            self.app.popup = Some(Popup::Chart { turn, chart: next });
        } else {
            let edge = if forward { "last" } else { "first" };
            self.app.set_message(
                format!("this is the {edge} chart of the turn"),
                Severity::Info,
            );
        }
    }

    fn move_source(&mut self, delta: isize) {
        if self.panes.sources.move_by(&self.app, delta) {
            self.panes.answer.focus_span = None;
        }
    }

    pub(super) fn enter(&mut self) -> Option<Effect> {
        if self.timeline_enter() {
            return None;
        }
        match &self.app.popup {
            Some(Popup::Sessions { .. }) => return self.open_picked_session(),
            Some(Popup::Source { item, span, .. }) => {
                let target = span.and_then(|k| self.app.item_citations(*item).get(k).copied());
                self.app.popup = None;
                if let Some(citation) = target {
                    self.jump_to_citation(citation);
                }
                return None;
            }
            Some(
                Popup::Help { .. }
                | Popup::Ids { .. }
                | Popup::Chart { .. }
                | Popup::Json { .. }
                | Popup::Timeline(_),
            ) => {
                self.app.popup = None;
                return None;
            }
            None => {}
        }
        match self.focus {
            Focus::Sources => {
                if let Some(item) = self.selected_item() {
                    self.app.popup = Some(Popup::Source {
                        item,
                        scroll: 0,
                        span: None,
                    });
                }
            }
            Focus::Activity => self.enter_activity(),
            Focus::Answer => match self.facts.chart_in_view {
                Some((turn, chart)) => self.app.popup = Some(Popup::Chart { turn, chart }),
                None => self.toggle_structured(),
            },
            _ => {}
        }
        None
    }

    /// Enter in the activity: a chart's line opens the chart, another item unfolds (or folds).
    fn enter_activity(&mut self) {
        let Some(i) = self.panes.activity.target(&self.app) else {
            return;
        };
        if let Some(Activity::Chart { index }) =
            self.current().and_then(|t| t.session.activity.get(i))
        {
            let (turn, chart) = (self.current_index(), *index);
            self.panes.activity.selected = Some(i);
            self.app.popup = Some(Popup::Chart { turn, chart });
            return;
        }
        self.panes.activity.toggle(i);
    }

    /// The turn whose structured output `J` and Enter act on: the one on screen in the answer
    /// (last frame), else the turn the panes show.
    fn structured_turn(&self) -> usize {
        self.facts
            .structured_in_view
            .filter(|&turn| turn < self.turns.len())
            .unwrap_or_else(|| self.current_index())
    }

    /// `J`: the raw JSON of the structured output on screen (else the shown turn's).
    pub(super) fn raw_json(&mut self) {
        let turn = self.structured_turn();
        match self
            .turns
            .get(turn)
            .map(|t| t.session.structured_output.is_some())
        {
            Some(true) => self.app.popup = Some(Popup::Json { turn, scroll: 0 }),
            _ => self
                .app
                .set_message("no structured output in this turn", Severity::Info),
        }
    }

    /// Enter on the answer: the structured output on screen (else the shown turn's), unfolded or
    /// folded.
    pub(super) fn toggle_structured(&mut self) {
        let index = self.structured_turn();
        self.panes.answer.toggle_structured(&self.app, index);
    }

    /// Enter in the sessions picker: open the picked session (not while a stream runs).
    fn open_picked_session(&mut self) -> Option<Effect> {
        if let Some(picker) = self.picker() {
            let id = picker.selected_id().map(str::to_owned);
            if self.stream_running || self.in_progress() {
                self.app.popup = None;
                self.app.set_message(
                    "a stream is running — Ctrl-C to cancel it first, then s",
                    Severity::Warning,
                );
                return None;
            }
            self.app.popup = None;
            return id.map(Effect::OpenSession);
        }
        None
    }

    /// Scroll the answer to citation `citation` of the turn shown and mark it; on one pane at a
    /// time the answer takes the screen (returns whether it did, from Sources).
    fn jump_to_citation(&mut self, citation: usize) -> bool {
        self.panes.answer.jump_to_citation(&self.app, citation);
        if self.facts.narrow && self.focus != Focus::Answer {
            let from_sources = self.focus == Focus::Sources;
            self.set_focus(Focus::Answer);
            return from_sources;
        }
        false
    }

    pub(super) fn jump_span(&mut self, forward: bool) {
        let Some(item) = self.selected_item() else {
            self.app
                .set_message("select a source first (c, then j/k)", Severity::Warning);
            return;
        };
        let spans = self.app.item_citations(item);
        if spans.is_empty() {
            self.app
                .set_message("no spans in the answer for this source", Severity::Info);
            return;
        }
        let position = self
            .panes
            .answer
            .focus_span
            .and_then(|current| spans.iter().position(|&c| c == current));
        let k = match (position, forward) {
            (None, true) => 0,
            (None, false) => spans.len() - 1,
            (Some(p), true) => (p + 1) % spans.len(),
            (Some(p), false) => (p + spans.len() - 1) % spans.len(),
        };
        let back = match self.jump_to_citation(spans[k]) {
            true => self
                .app
                .keys
                .fill(&[Context::Panes], " · {focus_sources} back to Sources"),
            false => String::new(),
        };
        self.app.set_message(
            format!(
                "span {}/{} of the selected source{back}",
                k + 1,
                spans.len()
            ),
            Severity::Info,
        );
    }
}
