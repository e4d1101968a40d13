//! The answer pane: every turn (question header, rendered answer with citation markers, structured
//! output, charts, how it ended), following the bottom while streaming until the user scrolls up.
//!
//! [`AnswerPane`] is its state: the scroll position, each turn's answer as rows (kept here, not in
//! the turn: the screen fills it), which structured outputs are unfolded, the span `n`/`N` marked,
//! and the requests to bring a turn, a span or a structured output into view that the next
//! [`prepare`] carries out (only it knows the rows). `layout` lays a frame out, [`draw`] draws it.

mod anchor;
mod draw;
mod in_view;
mod layout;
mod measure;

use std::collections::{HashMap, HashSet};

pub use draw::draw;
pub use layout::{AnswerFrame, prepare, turn_label};

use super::chart::ChartCache;
use super::structured::StructuredCache;
use crate::styled::text::AnswerView;
use crate::tui::state::{App, Scroll};

/// The answer pane's own state.
#[derive(Debug, Default)]
pub struct AnswerPane {
    pub scroll: Scroll,
    /// Turns whose structured output is unfolded (Enter on the answer), by index.
    pub structured_open: HashSet<usize>,
    /// The span `n`/`N` jumped to: index into the current turn's citations.
    pub focus_span: Option<usize>,
    /// Bring this turn's question to the top when the next frame is prepared (`[`/`]`).
    pub scroll_to_turn: Option<usize>,
    /// Bring this turn's structured output into view when the next frame is prepared.
    pub scroll_to_structured: Option<usize>,
    /// Bring this raw byte of the current turn's answer a third of the way down (`n`/`N`).
    pub scroll_to_byte: Option<usize>,
    /// The width the answer was last laid out for.
    width: Option<usize>,
    /// The area the answer was last laid out in.
    area: Option<ratatui::layout::Rect>,
    /// The first answer text the last frame showed: kept in place across a re-layout.
    top_anchor: Option<Anchor>,
    /// The scroll position and the turns' marker and text versions (summed: each only grows)
    /// the last frame was laid out at: citations that land (or a resend) while the pane stays
    /// there put [`AnswerPane::top_anchor`] back in place.
    laid_out_at: Option<(usize, u64)>,
    /// Put this answer text back where it was when the next frame is prepared (`z`, `+`, `-`, `=`
    /// change the pane's width, so every row moves).
    scroll_to_anchor: Option<Anchor>,
    /// The anchor put back, and the top it gave: kept while the pane stays there, so zooming in
    /// and out again comes back to the same rows.
    held_anchor: Option<(Anchor, usize)>,
    /// Each turn's answer as rows, by [`crate::tui::state::Turn::id`].
    views: HashMap<u64, AnswerView>,
    structured: StructuredCache,
    charts: ChartCache,
}

/// A place in the answer a person reads: raw byte `byte` of turn `turn`'s answer, shown `below` rows
/// under the pane's top.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anchor {
    pub turn: usize,
    pub byte: usize,
    pub below: usize,
}

impl AnswerPane {
    /// The pane's width is about to change (zoom, resize): the line at its top stays at its top,
    /// unless the pane follows the bottom (it goes on doing so).
    pub fn keep_anchor(&mut self) {
        if !self.scroll.follow && self.scroll_to_anchor.is_none() {
            self.scroll_to_anchor = self.top_anchor;
        }
    }

    /// Turn `index`'s structured output unfolded, or folded again; unfolding brings it into view.
    /// Nothing when that turn has none.
    pub fn toggle_structured(&mut self, app: &App, index: usize) {
        if app
            .turns
            .get(index)
            .is_none_or(|t| t.session.structured_output.is_none())
        {
            return;
        }
        if !self.structured_open.remove(&index) {
            self.structured_open.insert(index);
            self.scroll_to_structured = Some(index);
        }
    }

    /// Mark citation `citation` of the turn shown and scroll to it.
    pub fn jump_to_citation(&mut self, app: &App, citation: usize) {
        self.focus_span = Some(citation);
        if let Some(c) = app
            .current()
            .and_then(|t| t.attribution.citations.get(citation))
        {
            self.scroll_to_byte = Some(c.bytes.start);
        }
    }

    /// Measure every answer block left unmeasured while the pane followed the bottom, before a jump
    /// that may go anywhere (`g`, `[`/`]`, `n`/`N`, unfolding, a zoom; a scroll key measures only
    /// what it scrolls to: [`AnswerPane::measure_above`]): the scroll position, counted without
    /// them, moves down by the rows they add, so it stays on the same rows (all of them are above
    /// the window).
    pub fn measure_all(&mut self, app: &App) {
        let mut added = 0;
        for turn in &app.turns {
            if let Some(view) = self.views.get_mut(&turn.id) {
                added += view.measure_deferred(
                    turn.session.answer.as_str(),
                    turn.generation,
                    &app.theme,
                );
            }
        }
        self.scroll.total += added;
        self.scroll.top += added;
    }

    /// A turn's answer was replaced (or cut) since the pane was last laid out with blocks of it
    /// left unmeasured, and no jump waits while it follows the bottom: the rows those blocks held
    /// can no longer be counted ([`AnswerPane::measure_all`] cannot), so the pane must be laid out
    /// again before its scroll position moves — still at the bottom, or (scrolled up) with the
    /// text at its top put back in place (see [`prepare`]). (Zeta resends the whole answer with
    /// every message, xAI once at the end.)
    pub fn stale_at_bottom(&self, app: &App) -> bool {
        let requested = self.scroll_to_turn.is_some()
            || self.scroll_to_structured.is_some()
            || self.scroll_to_byte.is_some()
            || self.scroll_to_anchor.is_some();
        !(self.scroll.follow && requested) && self.stale_deferred(app)
    }

    /// A turn's answer was replaced (or cut) since blocks of it were left unmeasured.
    fn stale_deferred(&self, app: &App) -> bool {
        app.turns.iter().any(|turn| {
            self.views.get(&turn.id).is_some_and(|view| {
                view.has_deferred()
                    && view.is_stale(turn.session.answer.as_str().len(), turn.generation)
            })
        })
    }

    /// Answer blocks laid out (wrapped into rows or measured) since the pane began: a scroll
    /// key's work, for tests and benchmarks.
    pub fn blocks_laid_out(&self) -> usize {
        self.views.values().map(|view| view.renders).sum()
    }

    /// The area the pane was last laid out in.
    pub fn last_area(&self) -> Option<ratatui::layout::Rect> {
        self.area
    }

    /// Trade the rows kept between frames with `other`'s.
    pub fn swap_rows(&mut self, other: &mut AnswerPane) {
        std::mem::swap(&mut self.views, &mut other.views);
        std::mem::swap(&mut self.structured, &mut other.structured);
        std::mem::swap(&mut self.charts, &mut other.charts);
    }

    /// A new turn is shown: follow it as it streams, nothing marked.
    pub fn new_turn(&mut self) {
        self.focus_span = None;
        self.scroll.follow = true;
    }

    /// Another conversation replaced this one: the answer from the top, nothing unfolded or marked.
    /// (The rows kept are by turn id, so they never mix the two up.)
    pub fn replaced(&mut self) {
        self.scroll = Scroll::default();
        self.structured_open.clear();
        self.focus_span = None;
        self.scroll_to_turn = None;
        self.scroll_to_structured = None;
        self.scroll_to_byte = None;
        self.top_anchor = None;
        self.laid_out_at = None;
        self.scroll_to_anchor = None;
        self.held_anchor = None;
    }
}
