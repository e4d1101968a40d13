//! The plan: its title and steps with status glyphs, and a `done/total` count.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

use super::{clean, pane_block, pane_inner, piece, plain_lines, title, wrap_text};
use crate::model::event::StepStatus;
use crate::styled::text::RLine;
use crate::styled::theme::Theme;
use crate::tui::state::{App, Focus, Scroll};

/// The plan pane's own state: its scroll position.
#[derive(Debug)]
pub struct PlanPane {
    pub scroll: Scroll,
}

impl Default for PlanPane {
    fn default() -> Self {
        PlanPane {
            scroll: Scroll {
                follow: false,
                ..Scroll::default()
            },
        }
    }
}

/// The rows.
fn rows(app: &App, width: usize) -> Vec<RLine> {
    rows_with_current(app, width).0
}

/// The rows, and the row range of the step in progress (the first unsettled one).
fn rows_with_current(app: &App, width: usize) -> (Vec<RLine>, Option<(usize, usize)>) {
    let mut current = None;
    let rows = build(app, width, &mut current);
    (rows, current)
}

fn build(app: &App, width: usize, current: &mut Option<(usize, usize)>) -> Vec<RLine> {
    let theme = &app.theme;
    let Some(turn) = app.current() else {
        return vec![RLine {
            pieces: vec![piece("Nothing asked yet.", theme.muted())],
        }];
    };
    let Some(plan) = &turn.session.plan else {
        let text = if turn.conn.in_progress() {
            format!("{} waiting for a plan…", app.spinner())
        } else {
            "No plan.".to_owned()
        };
        return vec![RLine {
            pieces: vec![piece(text, theme.muted())],
        }];
    };
    let mut out = Vec::new();
    if let Some(t) = &plan.title {
        out.extend(wrap_text(
            &clean(t),
            theme.heading(2),
            width,
            Vec::new(),
            Vec::new(),
        ));
    }
    // A step still running when the turn ended never got its end: it stops spinning, unconfirmed.
    let ended = !turn.conn.in_progress();
    for step in &plan.steps {
        let unconfirmed = ended && step.status == StepStatus::InProgress;
        let (glyph, style) = if unconfirmed {
            ("?".to_owned(), theme.warning())
        } else {
            glyph(&step.status, app.spinner(), theme)
        };
        let mut description = clean(&step.description);
        if unconfirmed {
            description.push_str(" (not confirmed)");
        }
        let text_style = match step.status {
            StepStatus::Completed | StepStatus::Skipped => theme.muted(),
            StepStatus::Failed => theme.error(),
            StepStatus::InProgress if !unconfirmed => {
                theme.text().add_modifier(ratatui::style::Modifier::BOLD)
            }
            _ => theme.text(),
        };
        let first = vec![piece(format!("{glyph} "), style)];
        let pad = " ".repeat(unicode_width::UnicodeWidthStr::width(glyph.as_str()) + 1);
        let cont = vec![piece(pad, style)];
        let start = out.len();
        out.extend(wrap_text(&description, text_style, width, first, cont));
        if current.is_none() && !step.status.is_settled() {
            *current = Some((start, out.len() - 1));
        }
    }
    out
}

/// The glyph and style for a step status.
pub fn glyph(
    status: &StepStatus,
    spinner: &'static str,
    theme: &Theme,
) -> (String, ratatui::style::Style) {
    match status {
        StepStatus::Completed => ("✔".into(), theme.success()),
        StepStatus::InProgress => (spinner.into(), theme.accent()),
        StepStatus::NotStarted => ("○".into(), theme.muted()),
        StepStatus::Skipped => ("⊘".into(), theme.muted()),
        StepStatus::Failed => ("✖".into(), theme.error()),
        StepStatus::Other(raw) => (format!("[{}]", clean(raw)), theme.warning()),
    }
}

/// Rows the pane would like (borders included).
pub fn desired_height(app: &App, width: u16) -> u16 {
    // Wrapped as drawn: inside the border and the padding.
    let inner = pane_inner(Rect::new(0, 0, width, 3)).width.max(1) as usize;
    (rows(app, inner).len() + 2) as u16
}

pub fn count(app: &App) -> Option<String> {
    let plan = app.current()?.session.plan.as_ref()?;
    let done = plan.steps.iter().filter(|s| s.status.is_settled()).count();
    Some(format!("{done}/{}", plan.steps.len()))
}

/// The plan's rows and the first one shown, for this frame.
#[derive(Debug)]
pub struct PlanFrame {
    rows: Vec<RLine>,
    top: usize,
}

/// Lay out the rows and resolve the scroll: unless the user is scrolling the plan, the step in
/// progress stays in view, and a finished plan shows from its top.
pub fn prepare(app: &App, pane: &mut PlanPane, reveal: bool, area: Rect) -> PlanFrame {
    let focused = app.shows_focus(Focus::Plan);
    let inner = pane_inner(area);
    let (rows, current) = rows_with_current(app, inner.width as usize);
    let viewport = inner.height as usize;
    let mut top = pane.scroll.resolve(rows.len(), viewport);
    if !focused && reveal {
        // The step in progress stays in view; a finished plan shows from its title.
        top = match current {
            Some((first, last)) => super::keep_visible(top, first, last, viewport),
            None => 0,
        };
        pane.scroll.top = top;
    }
    PlanFrame { rows, top }
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App, prepared: &PlanFrame) {
    let focused = app.shows_focus(Focus::Plan);
    let block = pane_block(
        title("Plan", super::of_turn(app, count(app)), focused, &app.theme),
        focused,
        &app.theme,
    );
    let lines = plain_lines(&prepared.rows);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((prepared.top.min(u16::MAX as usize) as u16, 0)),
        area,
    );
}
