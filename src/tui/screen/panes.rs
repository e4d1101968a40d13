//! The panes' state and one frame. [`Panes`] holds each pane's own state (its selection, scroll
//! position and the rows it keeps between frames) next to the [`App`], which holds the conversation
//! and none of it. A frame is two steps: [`prepare`] brings the panes' rows up to date with the app
//! for the terminal's size and resolves their scroll positions (writing only the panes' own state),
//! then [`draw`] draws from `&App` and `&Panes` alone, writing nothing, and hands back
//! [`FrameFacts`] — what the frame showed that the next update needs.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::widgets::Block;

use super::activity::{self, ActivityFrame, ActivityPane};
use super::answer::{self, AnswerFrame, AnswerPane};
use super::layout::{self, Areas, Pane};
use super::plan::{self, PlanFrame, PlanPane};
use super::popup::{self, PopupFrame};
use super::prompt::{self, PromptPane};
use super::sources::{self, SourcesFrame, SourcesPane};
use super::status;
use crate::styled::theme::Theme;
use crate::tui::state::{App, Spot};

/// Each pane's own state, and the frame prepared last.
#[derive(Debug)]
pub struct Panes {
    pub answer: AnswerPane,
    pub sources: SourcesPane,
    pub activity: ActivityPane,
    pub plan: PlanPane,
    pub prompt: PromptPane,
    /// The Timeline tab's view (below 100 columns; wide, the `T` popup holds its own).
    pub timeline: crate::tui::state::TimelineView,
    /// The Sources, Activity and Plan panes scroll to keep their selection in view; the mouse
    /// wheel turns that off until a key moves something again.
    pub reveal_selection: bool,
    frame: Prepared,
}

/// What a frame showed that the next update reads (the frame itself changes nothing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameFacts {
    /// One pane at a time was shown (narrow, or zoomed): ← → switch tabs, `+`/`-` have no columns.
    pub narrow: bool,
    /// The chart Enter on the answer opens (turn, chart): the first one in view.
    pub chart_in_view: Option<(usize, usize)>,
    /// The turn whose structured output `J` shows and Enter unfolds: the one on screen.
    pub structured_in_view: Option<usize>,
    /// Where the open popup was scrolled to, within its rows (a picked span brought into view).
    pub popup_scroll: Option<usize>,
}

/// One frame, laid out and ready to draw.
#[derive(Debug, Default)]
struct Prepared {
    areas: Areas,
    panes: Vec<(Rect, PaneFrame)>,
    popup: Option<PopupFrame>,
}

#[derive(Debug)]
enum PaneFrame {
    Plan(PlanFrame),
    Activity(ActivityFrame),
    Answer(AnswerFrame),
    Sources(SourcesFrame),
    /// The waterfall's rows (drawn only while no answer text has come).
    Timeline(Vec<crate::styled::text::RLine>),
}

impl Panes {
    /// The panes of a new app: nothing selected, the answer following its bottom, an empty prompt.
    pub fn new(can_ask: bool, theme: &Theme) -> Panes {
        Panes {
            answer: AnswerPane::default(),
            sources: SourcesPane::default(),
            activity: ActivityPane::default(),
            plan: PlanPane::default(),
            prompt: PromptPane::new(can_ask, theme),
            timeline: Default::default(),
            reveal_selection: true,
            frame: Prepared::default(),
        }
    }

    /// Trade the rows every pane keeps between frames with `other`'s (tests: a frame drawn with
    /// none kept must be the frame drawn with them).
    pub fn swap_rows(&mut self, other: &mut Panes) {
        self.answer.swap_rows(&mut other.answer);
        self.activity.swap_rows(&mut other.activity);
        self.sources.swap_rows(&mut other.sources);
    }

    /// What the last frame drew at cell (`x`, `y`): for the mouse.
    pub fn spot(&self, app: &App, x: u16, y: u16) -> Spot {
        let prepared = &self.frame;
        let at = Position::new(x, y);
        if prepared.popup.as_ref().is_some_and(|p| p.contains(x, y)) {
            return Spot::Popup;
        }
        let areas = &prepared.areas;
        if let Some(tabs) = areas.tabs
            && tabs.contains(at)
        {
            return layout::tab_at(app, tabs, x).map_or(Spot::Nothing, Spot::Tab);
        }
        if areas.prompt.contains(at) {
            return Spot::Prompt;
        }
        for ((pane, rect), (_, frame)) in areas.panes.iter().zip(&prepared.panes) {
            if !rect.contains(at) {
                continue;
            }
            let inner = super::pane_inner(*rect);
            let row = y.checked_sub(inner.y).filter(|r| *r < inner.height);
            let picked = row.and_then(|row| {
                let row = row as usize;
                match frame {
                    PaneFrame::Sources(sources) => sources.item_at(row).map(Spot::Source),
                    PaneFrame::Activity(activity) => activity.item_at(row).map(Spot::Activity),
                    PaneFrame::Answer(answer) => {
                        answer.spot(app, &self.answer, row, x.checked_sub(inner.x)? as usize)
                    }
                    PaneFrame::Plan(_) | PaneFrame::Timeline(_) => None,
                }
            });
            return picked.unwrap_or(Spot::Pane(pane.focus()));
        }
        Spot::Nothing
    }

    /// Lay the answer out again in its last area when its scroll position is about to move from a
    /// layout of a text replaced since ([`AnswerPane::stale_at_bottom`]); a frame prepared for
    /// drawing then holds the new layout.
    pub fn relayout_stale_answer(&mut self, app: &App) {
        if !self.answer.stale_at_bottom(app) {
            return;
        }
        let Some(area) = self.answer.last_area() else {
            return;
        };
        let laid_out = answer::prepare(app, &mut self.answer, area);
        if let Some((_, shown)) = self
            .frame
            .panes
            .iter_mut()
            .find(|(_, frame)| matches!(frame, PaneFrame::Answer(_)))
        {
            *shown = PaneFrame::Answer(laid_out);
        }
    }
}

/// Get the next frame of `area` ready: lay it out, bring the panes' rows up to date with `app`,
/// resolve their scroll positions. Only the panes' own state changes.
pub fn prepare(app: &App, panes: &mut Panes, area: Rect) {
    let areas = layout::areas(app, &panes.prompt, area);
    let reveal = panes.reveal_selection;
    let frames = areas
        .panes
        .iter()
        .map(|&(pane, rect)| {
            let prepared = match pane {
                Pane::Plan => PaneFrame::Plan(plan::prepare(app, &mut panes.plan, reveal, rect)),
                Pane::Activity => {
                    PaneFrame::Activity(activity::prepare(app, &mut panes.activity, reveal, rect))
                }
                Pane::Answer => PaneFrame::Answer(answer::prepare(app, &mut panes.answer, rect)),
                Pane::Sources => {
                    PaneFrame::Sources(sources::prepare(app, &mut panes.sources, reveal, rect))
                }
                Pane::Timeline => {
                    let inner = super::pane_inner(rect);
                    let size = (inner.width as usize, inner.height as usize);
                    PaneFrame::Timeline(match areas.narrow {
                        true => tab_rows(app, &panes.timeline, size),
                        false => popup::timeline::pane_rows(app, size),
                    })
                }
            };
            (rect, prepared)
        })
        .collect();
    prompt::prepare(app, &mut panes.prompt, areas.prompt);
    let popup = popup::prepare(app, area);
    panes.frame = Prepared {
        areas,
        panes: frames,
        popup,
    };
}

/// Draw the frame [`prepare`] got ready; what it showed comes back for the next update.
pub fn draw(frame: &mut Frame, app: &App, panes: &Panes) -> FrameFacts {
    let prepared = &panes.frame;
    let areas = &prepared.areas;
    frame.render_widget(Block::new().style(app.theme.base()), areas.full);
    if let Some(tabs) = areas.tabs {
        layout::draw_tabs(frame, tabs, app);
    }
    let (mut chart_in_view, mut structured_in_view) = (None, None);
    for (rect, pane) in &prepared.panes {
        match pane {
            PaneFrame::Plan(plan) => plan::draw(frame, *rect, app, plan),
            PaneFrame::Activity(rows) => activity::draw(frame, *rect, app, &panes.activity, rows),
            PaneFrame::Answer(answer) => {
                chart_in_view = answer.chart_in_view;
                structured_in_view = answer.structured_in_view;
                answer::draw(frame, *rect, app, (&panes.answer, &panes.sources), answer);
            }
            PaneFrame::Sources(sources) => {
                sources::draw(frame, *rect, app, &panes.sources, sources)
            }
            PaneFrame::Timeline(rows) => {
                let theme = &app.theme;
                let tab = areas.narrow;
                let focused = tab && app.shows_focus(crate::tui::state::Focus::Timeline);
                let hint = match tab {
                    true => popup::timeline::footer(app, &panes.timeline, true),
                    false => app.keys.fill(
                        &[crate::tui::state::keymap::Context::Panes],
                        "{timeline} details",
                    ),
                };
                let hint = Some(hint).filter(|h| !h.is_empty());
                let block = super::pane_block(
                    super::title("Timeline", hint, focused, theme),
                    focused,
                    theme,
                );
                let lines = super::plain_lines(rows);
                frame.render_widget(ratatui::widgets::Paragraph::new(lines).block(block), *rect);
            }
        }
    }
    prompt::draw(frame, areas.prompt, app, &panes.prompt);
    status::draw(frame, areas.status, app, panes.prompt.is_empty());
    popup::draw(frame, app, prepared.popup.as_ref());
    FrameFacts {
        narrow: areas.narrow,
        chart_in_view,
        structured_in_view,
        popup_scroll: prepared.popup.as_ref().and_then(PopupFrame::scroll),
    }
}

/// The Timeline tab's rows: the view of the turn the panes show, or why there is none.
fn tab_rows(
    app: &App,
    view: &crate::tui::state::TimelineView,
    size: (usize, usize),
) -> Vec<crate::styled::text::RLine> {
    let turn = app.current_index();
    match app.turns.get(turn).map(|t| t.timeline.is_some()) {
        Some(true) => {
            let view = crate::tui::state::TimelineView {
                turn,
                ..view.clone()
            };
            popup::timeline::timeline_rows(app, &view, size, &app.theme)
        }
        Some(false) => vec![crate::styled::text::RLine {
            pieces: vec![super::piece(
                "no timeline: this turn was saved without its arrival times",
                app.theme.muted(),
            )],
        }],
        None => vec![crate::styled::text::RLine {
            pieces: vec![super::piece("no turn yet", app.theme.muted())],
        }],
    }
}
