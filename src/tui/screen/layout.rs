//! Where everything goes. Wide (≥ [`NARROW_BELOW`] columns): Plan and Activity on the left, the Answer
//! in the middle — its text no wider than a comfortable line — and Sources on the right with the rest
//! ([`column_widths`]); the Plan only once there is one. Narrow, or zoomed (`z`): one pane at a time
//! under a row of tabs. The prompt (as tall as its text) and the status bar are always at the bottom.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::plan;
use super::prompt::{self, PromptPane};
use crate::tui::state::keymap::Context;
use crate::tui::state::sizes::column_widths;
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
    /// The turn's waterfall, in the answer's room while no answer text has come.
    Timeline,
}

impl Pane {
    /// The focus that goes with the pane.
    pub fn focus(self) -> Focus {
        match self {
            Pane::Plan => Focus::Plan,
            Pane::Activity => Focus::Activity,
            Pane::Answer => Focus::Answer,
            Pane::Sources => Focus::Sources,
            // Shown beside Activity, and not a stop of its own.
            Pane::Timeline => Focus::Activity,
        }
    }
}

/// The screen's areas for one frame.
#[derive(Debug, Clone, Default)]
pub struct Areas {
    pub full: Rect,
    /// One pane at a time (narrow, or zoomed).
    pub narrow: bool,
    /// The one-pane layout's tab row.
    pub tabs: Option<Rect>,
    /// The panes shown, in drawing order.
    pub panes: Vec<(Pane, Rect)>,
    pub prompt: Rect,
    pub status: Rect,
}

/// Lay out a screen of `area`. The plan gets the rows it needs on the left (within half of it).
pub fn areas(app: &App, prompt: &PromptPane, area: Rect) -> Areas {
    let narrow = area.width < NARROW_BELOW || app.zoom;
    let prompt_h = prompt_height(prompt, area);
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
            Focus::Plan if app.shows_plan() => Pane::Plan,
            Focus::Activity => Pane::Activity,
            Focus::Sources => Pane::Sources,
            Focus::Timeline => Pane::Timeline,
            _ => Pane::Answer,
        };
        (Some(tabs), vec![(shown, pane)])
    } else {
        (None, wide_panes(app, main))
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

/// The wide layout's panes in `main`.
fn wide_panes(app: &App, main: Rect) -> Vec<(Pane, Rect)> {
    let (left_w, answer_w, sources_w) = column_widths(main.width, app.pane_sizes);
    let [left, center, right] = Layout::horizontal([
        Constraint::Length(left_w),
        Constraint::Length(answer_w),
        Constraint::Length(sources_w),
    ])
    .areas(main);
    let mut panes = Vec::with_capacity(5);
    if app.awaiting_answer() {
        awaiting_panes(app, main, (left_w, answer_w), right, &mut panes);
        return panes;
    }
    if app.shows_plan() {
        let plan_h = plan::desired_height(app, left.width)
            .clamp(5, (left.height / 2).max(5))
            .min(left.height);
        let [plan_area, activity_area] =
            Layout::vertical([Constraint::Length(plan_h), Constraint::Fill(1)]).areas(left);
        panes.push((Pane::Plan, plan_area));
        panes.push((Pane::Activity, activity_area));
    } else {
        panes.push((Pane::Activity, left));
    }
    panes.push((Pane::Answer, center));
    panes.push((Pane::Sources, right));
    panes
}

/// The wide layout while the turn shown has no answer text yet: the answer (its question, how the
/// stream is doing, a queued question) and the plan share a short top row, and Activity and the
/// timeline take the rest of the answer's room below them, side by side.
fn awaiting_panes(
    app: &App,
    main: Rect,
    (left_w, answer_w): (u16, u16),
    right: Rect,
    panes: &mut Vec<(Pane, Rect)>,
) {
    let [region] = Layout::horizontal([Constraint::Length(left_w + answer_w)]).areas(main);
    let answer_cols = if app.shows_plan() {
        answer_w
    } else {
        region.width
    };
    // The question whole (the `You: ` gutter, the border and padding aside), then the turn's state.
    let text_cols = usize::from(answer_cols.saturating_sub(4 + 6)).max(1);
    let question = app
        .current()
        .and_then(|t| t.question.as_deref())
        .unwrap_or_default()
        .lines()
        .map(|line| line.width().div_ceil(text_cols).max(1))
        .sum::<usize>();
    let answer_h = u16::try_from(question)
        .unwrap_or(u16::MAX)
        .saturating_add(5);
    let plan_h = if app.shows_plan() {
        plan::desired_height(app, left_w)
    } else {
        0
    };
    let top_h = plan_h
        .max(answer_h)
        .clamp(5, (region.height / 2).max(5))
        .min(region.height);
    let [top, below] =
        Layout::vertical([Constraint::Length(top_h), Constraint::Fill(1)]).areas(region);
    if app.shows_plan() {
        let [plan_area, answer] =
            Layout::horizontal([Constraint::Length(left_w), Constraint::Fill(1)]).areas(top);
        panes.push((Pane::Plan, plan_area));
        panes.push((Pane::Answer, answer));
    } else {
        panes.push((Pane::Answer, top));
    }
    let [activity, timeline] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(below);
    panes.push((Pane::Activity, activity));
    panes.push((Pane::Timeline, timeline));
    panes.push((Pane::Sources, right));
}

/// The prompt's height: a framed box as tall as its text (within [`prompt::MAX_ROWS`], leaving the
/// panes some room), or one bare row on a very short screen.
fn prompt_height(pane: &PromptPane, area: Rect) -> u16 {
    if area.height < 12 {
        return 1;
    }
    let most = prompt::MAX_ROWS.min(area.height.saturating_sub(11)).max(1);
    // Border and a column of padding each side.
    let rows = prompt::text_rows(pane, area.width.saturating_sub(4));
    rows.clamp(1, most) + 2
}

/// The tabs of the one-pane layout: the panes there are (the Plan once there is one).
pub fn tab_panes(app: &App) -> Vec<Focus> {
    [
        Focus::Answer,
        Focus::Plan,
        Focus::Activity,
        Focus::Sources,
        Focus::Timeline,
    ]
    .into_iter()
    .filter(|f| *f != Focus::Plan || app.shows_plan())
    .collect()
}

/// A tab's count: plan steps done, activity items, numbered sources.
fn tab_count(app: &App, focus: Focus) -> String {
    let Some(turn) = app.current() else {
        return String::new();
    };
    match focus {
        Focus::Plan => plan::count(app)
            .map(|c| format!(" {c}"))
            .unwrap_or_default(),
        Focus::Activity => format!(" {}", turn.session.activity.len()),
        Focus::Sources => format!(" {}", turn.attribution.numbered().count()),
        _ => String::new(),
    }
}

/// How much a tab row says.
#[derive(Clone, Copy)]
struct TabStyle {
    hint: bool,
    /// Counts on the tabs not shown.
    other_counts: bool,
    short_names: bool,
    /// Only the shown tab.
    alone: bool,
}

/// The tab row's labels for `width` columns, most detail that fits first: full names and counts with
/// the key hint, then without the hint, then without the other tabs' counts, then short names, then
/// the shown tab alone. The shown tab is always there.
fn tab_labels(app: &App, width: usize) -> (Vec<(Focus, String)>, String) {
    let style = |hint, other_counts, short_names, alone| TabStyle {
        hint,
        other_counts,
        short_names,
        alone,
    };
    let tries = [
        style(true, true, false, false),
        style(false, true, false, false),
        style(false, false, false, false),
        style(false, false, true, false),
        style(false, false, false, true),
    ];
    // The keys in force (`[keys]` may move them) in the mode in force: while the prompt is typed
    // in, ← → move its cursor and only `focus_next` (Tab) takes the keyboard to the tabs; a popup or
    // the search's query takes the keys, and no key there switches tabs.
    let places: Vec<Context> = [Context::NarrowPanes, Context::Panes, Context::Prompt]
        .into_iter()
        .filter(|place| place.holds(app, true))
        .collect();
    let hint = match app.zoom {
        true => app.keys.fill(&places, "{zoom} all panes"),
        false => match app.keys.tab_switch_keys(&places) {
            keys if keys.is_empty() => keys,
            keys => format!("{keys} switch"),
        },
    };
    let hint = match hint {
        keys if keys.is_empty() => keys,
        keys => format!("  {keys}"),
    };
    let mut row = (Vec::new(), String::new());
    for style in tries {
        let labels: Vec<(Focus, String)> = tab_panes(app)
            .into_iter()
            .filter(|f| !style.alone || *f == app.tab)
            .map(|f| (f, tab_label(app, f, style)))
            .collect();
        let hint = if style.hint {
            hint.clone()
        } else {
            String::new()
        };
        let used: usize = labels.iter().map(|(_, l)| l.width() + 2).sum::<usize>()
            + 3 * labels.len().saturating_sub(1)
            + hint.width();
        row = (labels, hint);
        if used <= width {
            break;
        }
    }
    row
}

fn tab_label(app: &App, focus: Focus, style: TabStyle) -> String {
    let name = match (style.short_names && focus != app.tab, focus) {
        (true, Focus::Answer) => "Ans",
        (true, Focus::Activity) => "Act",
        (true, Focus::Sources) => "Src",
        (true, Focus::Timeline) => "Time",
        _ => focus.title(),
    };
    if style.other_counts || focus == app.tab {
        format!("{name}{}", tab_count(app, focus))
    } else {
        name.to_owned()
    }
}

/// The tab drawn at column `x` of the tab row `area`.
pub fn tab_at(app: &App, area: Rect, x: u16) -> Option<Focus> {
    let (labels, _) = tab_labels(app, area.width as usize);
    let mut column = area.x as usize;
    for (i, (focus, label)) in labels.into_iter().enumerate() {
        if i > 0 {
            column += 3;
        }
        let width = label.width() + 2;
        if (column..column + width).contains(&(x as usize)) {
            return Some(focus);
        }
        column += width;
    }
    None
}

/// The one-pane layout's tabs, with their counts; the shown tab always visible.
pub fn draw_tabs(frame: &mut Frame, area: Rect, app: &App) {
    let theme = &app.theme;
    let (labels, hint) = tab_labels(app, area.width as usize);
    let mut spans = Vec::new();
    for (i, (focus, label)) in labels.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" │ ", theme.muted()));
        }
        let style = if app.tab == focus {
            theme
                .title(app.focus != Focus::Prompt)
                .patch(theme.selection(true))
        } else {
            theme.muted()
        };
        spans.push(Span::styled(format!(" {label} "), style));
    }
    spans.push(Span::styled(hint, theme.muted()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
