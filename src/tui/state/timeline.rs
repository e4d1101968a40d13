//! What the timeline view shows — the `T` popup, and the Timeline tab below 100 columns: the row
//! selected in the waterfall of the turn the panes show, and, once Enter opened them, the raw
//! events behind that row ([`EventsView`]), like a browser's network panel.

use std::path::PathBuf;

use crate::wire::raw_events::RowEvents;

/// The timeline view's own state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimelineView {
    /// The turn whose waterfall shows.
    pub turn: usize,
    /// The waterfall's selected row.
    pub selected: usize,
    /// The raw events behind the selected row, while they are open.
    pub events: Option<EventsView>,
}

impl TimelineView {
    pub fn new(turn: usize) -> TimelineView {
        TimelineView {
            turn,
            ..TimelineView::default()
        }
    }
}

/// The raw events behind a waterfall row: their places in the turn file, one selected, its data
/// read back from the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventsView {
    /// The row they stand behind, in words.
    pub row: String,
    /// The turn file they are read from.
    pub path: PathBuf,
    pub found: RowEvents,
    pub selected: usize,
    /// The selected event's data as read back (its index, the text), or why it could not be.
    pub data: Option<(usize, Result<String, String>)>,
    /// The first line of the data shown (PgUp PgDn scroll it).
    pub data_top: usize,
}

impl EventsView {
    /// Move the selection by `delta` (within the events).
    pub fn move_by(&mut self, delta: isize) {
        let last = self.found.events.len().saturating_sub(1);
        let selected = self.selected.saturating_add_signed(delta).min(last);
        if selected != self.selected {
            self.data_top = 0;
        }
        self.selected = selected;
    }

    /// Scroll the selected event's data by `delta` lines (kept within it when drawn).
    pub fn scroll_data(&mut self, delta: isize) {
        let lines = match &self.data {
            Some((_, Ok(text))) => text.lines().count(),
            _ => 0,
        };
        self.data_top = self
            .data_top
            .saturating_add_signed(delta)
            .min(lines.saturating_sub(1));
    }
}
