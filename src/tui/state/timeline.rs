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
    /// The selected event's data as read back, or why it could not be: read once per selection.
    pub data: Option<EventData>,
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
        let lines = self.data.as_ref().map_or(0, EventData::line_count);
        self.data_top = self
            .data_top
            .saturating_add_signed(delta)
            .min(lines.saturating_sub(1));
    }
}

/// An event's data as read back for the view: the text (pretty-printed, keys masked) and where
/// each of its lines starts, found once when the event is selected, so a draw or a scroll takes
/// the lines it shows without walking the whole text (up to the decoder's 16 MiB).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventData {
    /// Which event of the list it is.
    pub index: usize,
    /// Its text, or why it could not be read.
    pub text: Result<String, String>,
    line_starts: Vec<usize>,
}

impl EventData {
    pub fn new(index: usize, text: Result<String, String>) -> EventData {
        let line_starts = match &text {
            Ok(text) if !text.is_empty() => std::iter::once(0)
                .chain(
                    memchr::memchr_iter(b'\n', text.as_bytes())
                        .map(|i| i + 1)
                        .filter(|&start| start < text.len()),
                )
                .collect(),
            _ => Vec::new(),
        };
        EventData {
            index,
            text,
            line_starts,
        }
    }

    /// How many lines the text has (as [`str::lines`] counts them).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Lines `range` of the text (as [`str::lines`] gives them: without their endings).
    pub fn lines(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = &str> {
        let text = self.text.as_deref().unwrap_or_default();
        let end = range.end.min(self.line_starts.len());
        (range.start.min(end)..end).map(move |i| {
            let stop = self.line_starts.get(i + 1).copied().unwrap_or(text.len());
            let line = &text[self.line_starts[i]..stop];
            match line.strip_suffix('\n') {
                Some(line) => line.strip_suffix('\r').unwrap_or(line),
                None => line,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::EventData;

    #[test]
    fn an_event_s_lines_are_those_str_lines_gives() {
        for text in [
            "",
            "one",
            "one\n",
            "a\nb\r\nc",
            "a\n\nb\n\n",
            "\n",
            "x\r",
            "é\r\n\r\nz",
        ] {
            let data = EventData::new(0, Ok(text.to_owned()));
            let want: Vec<&str> = text.lines().collect();
            assert_eq!(data.line_count(), want.len(), "{text:?}");
            assert_eq!(
                data.lines(0..usize::MAX).collect::<Vec<_>>(),
                want,
                "{text:?}"
            );
            assert_eq!(
                data.lines(1..2).collect::<Vec<_>>(),
                want.get(1..2).unwrap_or_default(),
                "{text:?}"
            );
        }
    }
}
