//! The activity log: thinking (folded to one line; Enter expands), tool calls with an argument
//! summary, audit results, tool errors and retries; sub-agent rows are indented with their role.
//! The newest item (or the selected one) is wrapped rather than cut, so what the agent is doing now
//! reads whole; the selected item carries a `▶` and, while the pane has the focus, a bar.

use std::collections::HashSet;

mod items;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

use super::sources::{GUTTER, gutter_row};
use super::{keep_visible, pane_block, pane_inner, plain_lines, title};
use crate::model::session::Activity;
use crate::styled::text::RLine;
use crate::styled::theme::Theme;
use crate::tui::state::{App, Focus, Scroll, Turn};
pub use items::summarize_args;
use items::{Fold, item_rows};

/// The activity pane's own state: the selected item, the items expanded, the scroll position and the
/// rows kept.
#[derive(Debug, Default)]
pub struct ActivityPane {
    /// The selected item (index into the current turn's activity); `None` follows the newest.
    pub selected: Option<usize>,
    /// Items unfolded with Enter.
    pub expanded: HashSet<usize>,
    pub scroll: Scroll,
    cache: ActivityCache,
}

impl ActivityPane {
    /// j/k and paging: move the selection by `delta` items; moving down onto the newest follows new
    /// activity again.
    pub fn move_by(&mut self, app: &App, delta: isize) {
        let n = activity_len(app);
        if n == 0 {
            return;
        }
        let current = self.selected.unwrap_or(n - 1);
        let next = current.saturating_add_signed(delta).min(n - 1);
        self.selected = if next == n - 1 && delta > 0 {
            None
        } else {
            Some(next)
        };
    }

    /// g (the first item) or G (follow the newest).
    pub fn to_edge(&mut self, app: &App, bottom: bool) {
        let n = activity_len(app);
        self.selected = if bottom { None } else { (n > 0).then_some(0) };
        self.scroll.follow = bottom;
        if !bottom {
            self.scroll.top = 0;
        }
    }

    /// The item Enter acts on (the selected one, else the newest), when there is one.
    pub fn target(&self, app: &App) -> Option<usize> {
        let n = activity_len(app);
        (n > 0).then(|| self.selected.unwrap_or(n - 1))
    }

    /// Unfold item `i`, or fold it again.
    pub fn toggle(&mut self, i: usize) {
        if !self.expanded.remove(&i) {
            self.expanded.insert(i);
        }
        self.selected = Some(i);
    }

    /// Trade the rows kept between frames with `other`'s.
    pub fn swap_rows(&mut self, other: &mut ActivityPane) {
        std::mem::swap(&mut self.cache, &mut other.cache);
    }

    /// A new turn (or an earlier one) is shown: follow its newest item, nothing unfolded.
    pub fn new_turn(&mut self) {
        self.selected = None;
        self.expanded.clear();
        self.scroll = Scroll::default();
    }
}

/// Items in the activity of the turn shown.
fn activity_len(app: &App) -> usize {
    app.current().map_or(0, |t| t.session.activity.len())
}

/// Rows of each activity item, kept between frames: an item is re-rendered only when the turn, the
/// width, its fold or (for thinking, which grows) its text length changed.
#[derive(Debug, Default)]
pub struct ActivityCache {
    /// The [`Turn::id`] of the turn the rows belong to.
    turn: Option<u64>,
    width: usize,
    items: Vec<((Fold, usize), Vec<RLine>)>,
}

impl ActivityCache {
    /// Bring the rows up to date with `turn`'s activity at `width`: `expanded` items unfolded, item
    /// `wrapped` wrapped.
    fn sync(
        &mut self,
        turn: &Turn,
        expanded: &HashSet<usize>,
        wrapped: usize,
        width: usize,
        theme: &Theme,
    ) {
        if self.turn != Some(turn.id) || self.width != width {
            *self = ActivityCache {
                turn: Some(turn.id),
                width,
                items: Vec::new(),
            };
        }
        let activity = &turn.session.activity;
        self.items.truncate(activity.len());
        for (i, item) in activity.iter().enumerate() {
            let fold = if expanded.contains(&i) {
                Fold::Expanded
            } else if i == wrapped {
                Fold::Wrapped
            } else {
                Fold::Folded
            };
            let key = item_key(item, fold);
            if self.items.get(i).is_some_and(|(k, _)| *k == key) {
                continue;
            }
            let rows = item_rows(&turn.session, item, fold, width, theme);
            if i < self.items.len() {
                self.items[i] = (key, rows);
            } else {
                self.items.push((key, rows));
            }
        }
    }
}

fn item_key(item: &Activity, fold: Fold) -> (Fold, usize) {
    match item {
        Activity::Thinking { text, .. } => (fold, text.len()),
        _ => (fold, 0),
    }
}

/// The activity pane this frame.
#[derive(Debug)]
pub enum ActivityFrame {
    /// Nothing asked yet.
    NoTurn,
    /// The turn has no activity yet.
    Empty,
    /// The cached rows: where each item starts (and, last, where they end), the selected item and
    /// the first row shown.
    Rows {
        starts: Vec<usize>,
        selected: usize,
        top: usize,
    },
}

impl ActivityFrame {
    /// The item drawn on row `y` of the pane's inside (for a click).
    pub fn item_at(&self, y: usize) -> Option<usize> {
        let ActivityFrame::Rows { starts, top, .. } = self else {
            return None;
        };
        let row = top + y;
        let end = *starts.last()?;
        (row < end).then(|| starts.partition_point(|&s| s <= row) - 1)
    }
}

/// Bring the cached rows up to date and resolve the scroll: it follows the newest item unless one is
/// selected, which then stays in view.
pub fn prepare(app: &App, pane: &mut ActivityPane, reveal: bool, area: Rect) -> ActivityFrame {
    let inner = pane_inner(area);
    let viewport = inner.height as usize;
    let Some(turn) = app.current() else {
        return ActivityFrame::NoTurn;
    };
    let n = turn.session.activity.len();
    if n == 0 {
        return ActivityFrame::Empty;
    }
    // Where each item starts; the selected item's rows.
    let selected = pane.selected.unwrap_or(n - 1);
    let width = (inner.width as usize).saturating_sub(GUTTER).max(1);
    let cache = &mut pane.cache;
    cache.sync(turn, &pane.expanded, selected, width, &app.theme);
    let mut starts = Vec::with_capacity(n + 1);
    let mut total = 0;
    for (_, rows) in &cache.items {
        starts.push(total);
        total += rows.len();
    }
    starts.push(total);
    let selected_range = (starts[selected], starts[selected + 1].saturating_sub(1));
    // Following the newest item unless one is picked; the wheel scrolls freely until the next key.
    let picked = pane.selected.is_some();
    let scroll = &mut pane.scroll;
    if reveal {
        scroll.follow = !picked;
    }
    let mut top = scroll.resolve(total, viewport);
    if reveal && picked {
        top = keep_visible(top, selected_range.0, selected_range.1, viewport);
        scroll.top = top;
    }
    ActivityFrame::Rows {
        starts,
        selected,
        top,
    }
}

pub fn draw(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    pane: &ActivityPane,
    prepared: &ActivityFrame,
) {
    let focused = app.shows_focus(Focus::Activity);
    let theme = &app.theme;
    let count = app
        .current()
        .map(|t| t.session.activity.len())
        .filter(|n| *n > 0)
        .map(|n| n.to_string());
    // Events a resumed stream sent again are dropped: said here, where activity is counted.
    let repeated = app.current().map_or(0, |t| t.session.stats.repeated);
    let count = match (count, repeated) {
        (count, 0) => count,
        (None, n) => Some(repeated_note(n)),
        (Some(count), n) => Some(format!("{count} · {}", repeated_note(n))),
    };
    let block = pane_block(
        title("Activity", super::of_turn(app, count), focused, theme),
        focused,
        theme,
    );
    let (starts, selected, top) = match prepared {
        ActivityFrame::NoTurn => {
            frame.render_widget(block, area);
            return;
        }
        ActivityFrame::Empty => {
            let text = if app.current().is_some_and(|t| t.conn.in_progress()) {
                format!("{} working…", app.spinner())
            } else {
                "No activity.".into()
            };
            frame.render_widget(Paragraph::new(text).style(theme.muted()).block(block), area);
            return;
        }
        ActivityFrame::Rows {
            starts,
            selected,
            top,
        } => (starts, *selected, *top),
    };
    let inner = block.inner(area);
    let width = inner.width as usize;
    let viewport = inner.height as usize;
    // Only the rows in view.
    let first = starts.partition_point(|&s| s <= top).saturating_sub(1);
    let mut visible: Vec<RLine> = Vec::with_capacity(viewport);
    let mut row = starts[first];
    // The selection is marked once someone picked an item, or while the pane has the focus.
    let marked = focused || pane.selected.is_some();
    let mut bars = Vec::new();
    'items: for (i, (_, rows)) in pane.cache.items.iter().enumerate().skip(first) {
        for (k, r) in rows.iter().enumerate() {
            if row >= top + viewport {
                break 'items;
            }
            if row >= top {
                let selected = marked && i == selected;
                if selected {
                    bars.push(visible.len());
                }
                visible.push(gutter_row(
                    r.clone(),
                    selected,
                    k == 0,
                    width,
                    focused,
                    theme,
                ));
            }
            row += 1;
        }
    }
    frame.render_widget(Paragraph::new(plain_lines(&visible)).block(block), area);
    super::paint_bars(frame.buffer_mut(), inner, &bars, theme.selection(focused));
}

/// How many repeated events a resumed stream's dedupe dropped, as the Activity title says it
/// (short: the pane is narrow).
fn repeated_note(n: usize) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{n} repeat{s} dropped")
}
