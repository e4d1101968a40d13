//! The timeline view's keys, in the `T` popup and in the Timeline tab below 100 columns alike:
//! j/k select a row (or an event), Enter opens the raw events behind the row — read from the turn
//! file on demand, their data read back by offset when selected — Esc goes back, `y` copies the
//! row or the event as JSON, `[` `]` show another turn.

use super::Ui;
use crate::local::summary::without_keys;
use crate::tui::screen::popup::timeline::{row_count, row_json, row_target};
use crate::tui::state::{EventData, EventsView, Focus, Popup, Severity, TimelineView};
use crate::wire::raw_events::{read_event_text, read_row_events};

/// Raw events listed behind one row, at most; the rest are counted.
const KEEP_EVENTS: usize = 500;

/// How much of a turn file Enter scans for a row's events (on the UI thread: a turn file may hold
/// gigabytes); past it the view says the events are those of the file's opening.
const SCAN_BYTES: u64 = 32 << 20;

impl Ui {
    /// The timeline view the keys go to: the open popup's, else the Timeline tab's when it shows.
    pub(super) fn timeline_view(&mut self) -> Option<&mut TimelineView> {
        match &mut self.app.popup {
            Some(Popup::Timeline(view)) => Some(view),
            Some(_) => None,
            None if self.app.focus == Focus::Timeline && self.facts.narrow => {
                Some(&mut self.panes.timeline)
            }
            None => None,
        }
    }

    /// `T`: the timeline of the turn the panes show — a popup, or below 100 columns its tab.
    pub(super) fn open_timeline(&mut self) {
        let turn = self.current_index();
        match self.turns.get(turn).map(|t| t.timeline.is_some()) {
            Some(true) if self.facts.narrow => {
                self.panes.timeline = TimelineView::new(turn);
                self.set_focus(Focus::Timeline);
            }
            Some(true) => self.app.popup = Some(Popup::Timeline(TimelineView::new(turn))),
            Some(false) => self.app.set_message(
                "no timeline: this turn was saved without its arrival times",
                Severity::Info,
            ),
            None => self.app.set_message("no turn yet", Severity::Info),
        }
    }

    /// j/k in the timeline: the next or previous row, or event; `false` when no timeline has the
    /// keys.
    pub(super) fn move_timeline_row(&mut self, delta: isize) -> bool {
        let turn = self.timeline_turn();
        let rows = self
            .turns
            .get(turn)
            .and_then(|t| t.timeline.as_ref())
            .map_or(0, row_count);
        let Some(view) = self.timeline_view() else {
            return false;
        };
        match &mut view.events {
            Some(events) => {
                events.move_by(delta);
                load_selected(events);
            }
            None => {
                view.selected = view
                    .selected
                    .saturating_add_signed(delta)
                    .min(rows.saturating_sub(1));
            }
        }
        true
    }

    /// PgUp PgDn in the timeline: the raw event's data scrolls, else the rows move by ten.
    /// `false` when no timeline has the keys.
    pub(super) fn timeline_page(&mut self, direction: isize) -> bool {
        match self.timeline_view().map(|view| &mut view.events) {
            Some(Some(events)) => {
                events.scroll_data(direction * 10);
                true
            }
            Some(None) => self.move_timeline_row(direction * 10),
            None => false,
        }
    }

    /// The turn the timeline view shows.
    fn timeline_turn(&self) -> usize {
        match &self.app.popup {
            Some(Popup::Timeline(view)) => view.turn,
            _ => self.current_index(),
        }
    }

    /// Enter in the timeline: the raw events behind the selected row, read from the turn file.
    /// `false` when no timeline has the keys.
    pub(super) fn timeline_enter(&mut self) -> bool {
        let turn = self.timeline_turn();
        let Some(selected) = self
            .timeline_view()
            .map(|v| (v.selected, v.events.is_some()))
        else {
            return false;
        };
        if selected.1 {
            return true;
        }
        let provider = self.app.provider;
        let Some(t) = self.turns.get(turn) else {
            return true;
        };
        let (Some(timeline), Some(path)) = (t.timeline.as_ref(), t.raw.clone()) else {
            self.app
                .set_message("this turn's raw stream is not in a file", Severity::Info);
            return true;
        };
        let Some((row, target)) = row_target(timeline, selected.0) else {
            return true;
        };
        let arrivals = crate::agent::replay::read_arrivals(&path);
        let found = std::fs::File::open(&path).and_then(|file| {
            let reader = std::io::BufReader::new(file);
            read_row_events(
                reader,
                provider,
                arrivals.as_ref(),
                (target, KEEP_EVENTS),
                SCAN_BYTES,
            )
        });
        match found {
            Ok(found) => {
                let mut events = EventsView {
                    row,
                    path: path.to_path_buf(),
                    found,
                    selected: 0,
                    data: None,
                    data_top: 0,
                };
                load_selected(&mut events);
                if let Some(view) = self.timeline_view() {
                    view.events = Some(events);
                }
            }
            Err(e) => self.app.set_message(
                format!("cannot read {}: {e}", path.display()),
                Severity::Error,
            ),
        }
        true
    }

    /// Esc in the timeline's raw events: back to the waterfall (`true`); anywhere else `false`.
    pub(super) fn timeline_back(&mut self) -> bool {
        self.timeline_view()
            .is_some_and(|view| view.events.take().is_some())
    }

    /// `y` in the timeline: the selected event's data (its JSON pretty-printed), else the
    /// selected row as JSON; `None` when no timeline has the keys.
    pub(super) fn timeline_copy(&mut self) -> Option<Option<String>> {
        let turn = self.timeline_turn();
        let view = self.timeline_view()?.clone();
        if let Some(events) = &view.events {
            return Some(match &events.data {
                Some(EventData {
                    index,
                    text: Ok(text),
                    ..
                }) if *index == events.selected => Some(text.clone()),
                _ => None,
            });
        }
        let turn = self.turns.get(turn);
        Some(turn.and_then(|t| row_json(t.timeline.as_ref()?, view.selected, &t.session)))
    }

    /// `[` `]` in the timeline popup: the waterfall of the turn before or after.
    pub(super) fn timeline_step_turn(&mut self) {
        let turn = self.current_index();
        if let Some(Popup::Timeline(view)) = &mut self.app.popup {
            *view = TimelineView::new(turn);
        }
        self.panes.timeline = TimelineView::new(turn);
    }
}

/// Read the selected event's data back from the turn file, unless it already is: its JSON
/// pretty-printed (by the wire layer), the API keys configured here masked (the file keeps what
/// the agent echoed), its lines found once.
fn load_selected(events: &mut EventsView) {
    if events
        .data
        .as_ref()
        .is_some_and(|data| data.index == events.selected)
    {
        return;
    }
    let Some(event) = events.found.events.get(events.selected) else {
        events.data = None;
        return;
    };
    let text = std::fs::File::open(&events.path)
        .ok()
        .and_then(|file| read_event_text(file, &event.range))
        .map(|text| without_keys(&text))
        .ok_or_else(|| "the event could not be read back from the turn file".to_owned());
    events.data = Some(EventData::new(events.selected, text));
}
