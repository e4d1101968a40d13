//! Where everything goes: wide (≥ [`NARROW_BELOW`] columns) shows Plan and Activity on the left, the
//! Answer in the middle and Sources on the right; narrow shows one pane at a time under a row of tabs.
//! The prompt and the status bar are always at the bottom.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{plan, prompt};
use crate::tui::state::{App, Focus};

/// Below this width the layout is one pane at a time with tabs.
pub const NARROW_BELOW: u16 = 100;

/// A pane that can be on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Plan,
    Activity,
    Answer,
    Sources,
}

/// The screen's areas for one frame.
#[derive(Debug, Clone, Default)]
pub struct Areas {
    pub full: Rect,
    pub narrow: bool,
    /// The narrow layout's tab row.
    pub tabs: Option<Rect>,
    /// The panes shown, in drawing order.
    pub panes: Vec<(Pane, Rect)>,
    pub prompt: Rect,
    pub status: Rect,
}

/// Lay out a screen of `area`. The plan gets the rows it needs on the left (within half of it).
pub fn areas(app: &App, area: Rect) -> Areas {
    let narrow = area.width < NARROW_BELOW;
    let prompt_h = prompt_height(app, area);
    let [main, prompt, status] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(prompt_h),
        Constraint::Length(1),
    ])
    .areas(area);
    let (tabs, panes) = if narrow {
        let [tabs, pane] =
            Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(main);
        let shown = match app.tab {
            Focus::Plan => Pane::Plan,
            Focus::Activity => Pane::Activity,
            Focus::Sources => Pane::Sources,
            Focus::Answer | Focus::Prompt => Pane::Answer,
        };
        (Some(tabs), vec![(shown, pane)])
    } else {
        let sources_w = if area.width >= 140 { 34 } else { 30 };
        let [left, center, right] = Layout::horizontal([
            Constraint::Percentage(28),
            Constraint::Fill(1),
            Constraint::Length(sources_w),
        ])
        .areas(main);
        let plan_h = plan::desired_height(app, left.width)
            .clamp(5, (left.height / 2).max(5))
            .min(left.height);
        let [plan_area, activity_area] =
            Layout::vertical([Constraint::Length(plan_h), Constraint::Fill(1)]).areas(left);
        let panes = vec![
            (Pane::Plan, plan_area),
            (Pane::Activity, activity_area),
            (Pane::Answer, center),
            (Pane::Sources, right),
        ];
        (None, panes)
    };
    Areas {
        full: area,
        narrow,
        tabs,
        panes,
        prompt,
        status,
    }
}

/// The prompt's height: a framed box as tall as its text (within [`prompt::MAX_ROWS`], leaving the
/// panes some room), or one bare row on a very short screen.
fn prompt_height(app: &App, area: Rect) -> u16 {
    if area.height < 12 {
        return 1;
    }
    let most = prompt::MAX_ROWS.min(area.height.saturating_sub(11)).max(1);
    // Border and a column of padding each side.
    let rows = prompt::text_rows(app, area.width.saturating_sub(4));
    rows.clamp(1, most) + 2
}

/// The narrow layout's tabs, with their counts.
pub fn draw_tabs(frame: &mut Frame, area: Rect, app: &App) {
    let theme = &app.theme;
    let counts = |focus: Focus| -> String {
        let Some(turn) = app.current() else {
            return String::new();
        };
        match focus {
            Focus::Plan => turn
                .session
                .plan
                .as_ref()
                .map(|p| {
                    let done = p.steps.iter().filter(|s| s.status.is_settled()).count();
                    format!(" {done}/{}", p.steps.len())
                })
                .unwrap_or_default(),
            Focus::Activity => format!(" {}", turn.session.activity.len()),
            Focus::Sources => format!(" {}", turn.attribution.numbered().count()),
            _ => String::new(),
        }
    };
    let mut spans = Vec::new();
    for (i, focus) in [Focus::Answer, Focus::Plan, Focus::Activity, Focus::Sources]
        .into_iter()
        .enumerate()
    {
        if i > 0 {
            spans.push(Span::styled(" │ ", theme.muted()));
        }
        let label = format!("{}{}", focus.title(), counts(focus));
        let style = if app.tab == focus {
            theme
                .title(app.focus != Focus::Prompt)
                .patch(theme.selection(true))
        } else {
            theme.muted()
        };
        spans.push(Span::styled(format!(" {label} "), style));
    }
    spans.push(Span::styled("  Tab/←→ switch", theme.muted()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
