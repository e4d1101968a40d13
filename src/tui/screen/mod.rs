//! Drawing: one module per pane, all reading [`App`] state. Layout: wide (≥ 100 columns) shows Plan and
//! Activity on the left, the Answer in the middle and Sources on the right; narrow shows one pane at a
//! time under a row of tabs. The prompt and the status bar are always at the bottom.

pub mod activity;
pub mod answer;
pub mod plan;
pub mod popup;
pub mod prompt;
pub mod sources;
pub mod status;

use super::app::{App, Focus};
use super::text::{Piece, PieceKind, RLine};
pub use super::text::{clean, truncate};
use super::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Padding, Paragraph};

/// Below this width the layout is one pane at a time with tabs.
pub const NARROW_BELOW: u16 = 100;

/// Draw the whole screen.
pub fn draw(frame: &mut Frame, app: &mut App) {
    let area = frame.area();
    frame.render_widget(Block::new().style(app.theme.base()), area);
    let narrow = area.width < NARROW_BELOW;
    app.narrow = narrow;
    let prompt_h = if area.height >= 12 { 3 } else { 1 };
    let [main, prompt_area, status_area] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(prompt_h),
        Constraint::Length(1),
    ])
    .areas(area);
    if narrow {
        let [tabs, pane] =
            Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(main);
        draw_tabs(frame, tabs, app);
        match app.tab {
            Focus::Plan => plan::draw(frame, pane, app),
            Focus::Activity => activity::draw(frame, pane, app),
            Focus::Sources => sources::draw(frame, pane, app),
            Focus::Answer | Focus::Prompt => answer::draw(frame, pane, app),
        }
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
        plan::draw(frame, plan_area, app);
        activity::draw(frame, activity_area, app);
        answer::draw(frame, center, app);
        sources::draw(frame, right, app);
    }
    prompt::draw(frame, prompt_area, app);
    status::draw(frame, status_area, app);
    popup::draw(frame, area, app);
}

fn draw_tabs(frame: &mut Frame, area: Rect, app: &App) {
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

/// A bordered pane with a title.
pub fn pane_block<'a>(title: Line<'a>, focused: bool, theme: &Theme) -> Block<'a> {
    Block::bordered()
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Rounded
        })
        .border_style(theme.border(focused))
        .padding(Padding::horizontal(1))
        .title(title)
}

/// Pane title: the name, plus extra text in muted style.
pub fn title<'a>(name: &str, extra: Option<String>, focused: bool, theme: &Theme) -> Line<'a> {
    let mut spans = vec![Span::styled(format!(" {name} "), theme.title(focused))];
    if let Some(extra) = extra {
        spans.push(Span::styled(format!("{extra} "), theme.muted()));
    }
    Line::from(spans)
}

/// A text piece for [`super::text::wrap`].
pub fn piece(text: impl Into<String>, style: Style) -> Piece {
    Piece {
        text: text.into(),
        style,
        src: None,
        exact: false,
        kind: PieceKind::Text,
    }
}

/// Wrap `text` (already clean) with a hanging indent.
pub fn wrap_text(
    text: &str,
    style: Style,
    width: usize,
    first: Vec<Piece>,
    cont: Vec<Piece>,
) -> Vec<RLine> {
    super::text::wrap(&[piece(text, style)], width, &first, &cont)
}

/// Rendered rows to ratatui lines (no highlights).
pub fn plain_lines(rows: &[RLine]) -> Vec<Line<'_>> {
    rows.iter()
        .map(|row| {
            Line::from(
                row.pieces
                    .iter()
                    .filter(|p| p.kind != PieceKind::Break)
                    .map(|p| Span::styled(p.text.as_str(), p.style))
                    .collect::<Vec<_>>(),
            )
        })
        .collect()
}

/// Keep the `selected` row range visible in a scroll of `viewport` rows.
pub fn keep_visible(top: usize, first: usize, last: usize, viewport: usize) -> usize {
    if viewport == 0 {
        return top;
    }
    if first < top {
        first
    } else if last >= top + viewport {
        (last + 1).saturating_sub(viewport).min(first)
    } else {
        top
    }
}
