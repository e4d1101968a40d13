//! The saved sessions picker's state ([`Picker`]): every saved session (their summaries, kept
//! current by a watch of the sessions folder while the picker is open), the rows shown — live
//! sessions first, then newest first; or, while `/` filters, the sessions that match best first —
//! the selection, and the filter being typed.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::local::search::{Hit, Search};
use crate::local::summary::SessionSummary;
use crate::local::watch::{SessionList, SessionsWatch, is_live};

/// One row of the picker: a session (its index in [`Picker::entries`]) and how it matched the
/// filter, if one is typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub index: usize,
    pub hit: Option<Hit>,
}

/// The watch that keeps the picker current; it stops when the picker closes (is dropped).
#[derive(Debug, Clone, Default)]
pub struct WatchGuard {
    _watch: Option<Arc<SessionsWatch>>,
}

/// Two pickers are the same whatever watches them.
impl PartialEq for WatchGuard {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Picker {
    /// Every saved session, newest first.
    pub entries: SessionList,
    /// The rows shown, in order.
    pub shown: Vec<Shown>,
    /// Index into [`Picker::shown`].
    pub selected: usize,
    /// The filter, while `/` has it typed (`Some("")` right after `/`).
    pub filter: Option<String>,
    /// The query the rows were last ranked for (a longer one only narrows them down).
    ranked_for: String,
    watch: WatchGuard,
}

impl Picker {
    /// A picker over `entries` (newest first), the session `open` selected when listed.
    pub fn new(entries: SessionList, open: Option<&str>) -> Picker {
        let mut picker = Picker {
            entries,
            ..Picker::default()
        };
        picker.refresh(open);
        picker
    }

    /// Keep the picker current with this watch until it closes.
    pub fn watch(&mut self, watch: SessionsWatch) {
        self.watch = WatchGuard {
            _watch: Some(Arc::new(watch)),
        };
    }

    /// The session of the selected row.
    pub fn selected_entry(&self) -> Option<&SessionSummary> {
        let shown = self.shown.get(self.selected)?;
        self.entries.get(shown.index).map(|e| &**e)
    }

    pub fn selected_id(&self) -> Option<&str> {
        self.selected_entry().map(|e| e.meta.id.as_str())
    }

    /// The filter has the keys (typing after `/`).
    pub fn typing(&self) -> bool {
        self.filter.is_some()
    }

    /// Any session listed is being written now.
    pub fn has_live(&self) -> bool {
        self.entries.iter().any(|e| is_live(e))
    }

    /// The sessions as they are now (from the watch): the rows follow, the same session selected.
    pub fn set_entries(&mut self, entries: SessionList) {
        let selected = self.selected_id().map(str::to_owned);
        self.entries = entries;
        self.ranked_for.clear();
        self.refresh(selected.as_deref());
    }

    /// `/`: start typing a filter (again, when one is typed).
    pub fn start_filter(&mut self) {
        if self.filter.is_none() {
            self.filter = Some(String::new());
        }
    }

    /// Esc while filtering: the whole list again, the selected session still selected.
    pub fn clear_filter(&mut self) {
        let selected = self.selected_id().map(str::to_owned);
        self.filter = None;
        self.refresh(selected.as_deref());
    }

    /// A key typed into the filter: a character, Backspace (on an empty filter: stop filtering),
    /// Ctrl-U (clear it). The best match is selected after each change.
    pub fn edit_filter(&mut self, key: KeyEvent) {
        let Some(filter) = &mut self.filter else {
            return;
        };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('u') if ctrl => filter.clear(),
            KeyCode::Char(c) if !ctrl && !c.is_control() => filter.push(c),
            KeyCode::Backspace if filter.is_empty() => return self.clear_filter(),
            KeyCode::Backspace => {
                filter.pop();
            }
            _ => return,
        }
        self.refresh(None);
    }

    /// Text pasted while the filter is typed: added to it, control characters left out and line
    /// breaks as spaces.
    pub fn paste_filter(&mut self, text: &str) {
        let Some(filter) = &mut self.filter else {
            return;
        };
        filter.extend(
            text.chars()
                .map(|c| if c.is_whitespace() { ' ' } else { c })
                .filter(|c| !c.is_control()),
        );
        self.refresh(None);
    }

    /// Move the selection by `delta` rows, or to the top or bottom (`edge`).
    pub fn move_by(&mut self, delta: isize, edge: Option<bool>) {
        let last = self.shown.len().saturating_sub(1);
        self.selected = match edge {
            Some(true) => last,
            Some(false) => 0,
            None => self.selected.saturating_add_signed(delta).min(last),
        };
    }

    /// Work out the rows again; select session `keep` when shown, else the first row.
    fn refresh(&mut self, keep: Option<&str>) {
        let query = self.filter.as_deref().unwrap_or("");
        let mut search = Search::new(query);
        self.shown = if search.is_empty() {
            // Live sessions first, each group newest first.
            let (live, rest): (Vec<usize>, Vec<usize>) =
                (0..self.entries.len()).partition(|&i| is_live(&self.entries[i]));
            live.into_iter()
                .chain(rest)
                .map(|index| Shown { index, hit: None })
                .collect()
        } else {
            // Typing on only narrows the matches: then rank those again, not every session.
            let narrowing = !self.ranked_for.is_empty() && query.starts_with(&self.ranked_for);
            let hits = if narrowing {
                let candidates = self.shown.iter().map(|s| (s.index, &self.entries[s.index]));
                search.rank_indexed(candidates, |e| &**e)
            } else {
                search.rank(self.entries.iter(), |e| &**e)
            };
            hits.into_iter()
                .map(|(index, hit)| Shown {
                    index,
                    hit: Some(hit),
                })
                .collect()
        };
        self.ranked_for = query.to_owned();
        self.selected = keep
            .and_then(|id| {
                self.shown
                    .iter()
                    .position(|s| self.entries[s.index].meta.id == id)
            })
            .unwrap_or(0);
    }
}
