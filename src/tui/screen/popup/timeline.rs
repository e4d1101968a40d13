//! The timeline popup (`T`): the turn's phases ([`Timeline`]) as a waterfall on one time axis —
//! a row each, its bar from start to end, its duration — with silences over
//! [`crate::model::timeline::GAP_MS`] marked between them and, while the turn streams, a silence
//! still going on at the bottom (a stall shows before the idle timeout). The selected row's detail
//! follows the rows; `y` copies it as JSON ([`row_json`]). Above it, with several turns, every
//! turn's figures ([`super::timeline_turns`]); Enter on a row puts the raw events behind it in the
//! waterfall's place ([`super::timeline_events`]).

use ratatui::style::Style;

use super::super::{clean, piece, truncate, wrap_text};
use crate::model::session::{Activity, Session};
use crate::model::timeline::{Gap, Phase, PhaseKind, Timeline, seconds};
use crate::styled::text::RLine;
use crate::styled::text::wrap::pack_items;
use crate::styled::theme::Theme;
use crate::tui::state::keymap::Context;
use crate::tui::state::{App, TimelineView, Turn};
use crate::wire::raw_events::RowTarget;

/// One row of the waterfall.
enum Row<'a> {
    Phase(&'a Phase),
    Gap(Gap),
}

impl Row<'_> {
    fn start(&self) -> u64 {
        match self {
            Row::Phase(p) => p.start_ms,
            Row::Gap(g) => g.start_ms,
        }
    }
}

/// The rows in time order: phases, and the gaps between them.
fn rows(timeline: &Timeline) -> Vec<Row<'_>> {
    let mut rows: Vec<Row> = timeline.phases.iter().map(Row::Phase).collect();
    rows.extend(timeline.gaps.iter().copied().map(Row::Gap));
    rows.sort_by_key(Row::start);
    rows
}

/// How many rows can be selected.
pub fn row_count(timeline: &Timeline) -> usize {
    timeline.phases.len() + timeline.gaps.len()
}

/// Row `selected` as pretty JSON (what `y` copies).
pub fn row_json(timeline: &Timeline, selected: usize, session: &Session) -> Option<String> {
    let value = match rows(timeline).get(selected)? {
        Row::Phase(phase) => {
            let mut value = serde_json::to_value(phase).ok()?;
            // The timeline keeps a thought's first words: the copy has it whole.
            if phase.kind == PhaseKind::Thinking
                && let Some(detail) = &phase.detail
                && let Some(whole) = whole_thought(session, detail)
            {
                value["detail"] = serde_json::Value::String(whole);
            }
            value
        }
        Row::Gap(gap) => serde_json::json!({
            "kind": "silence",
            "start_ms": gap.start_ms,
            "end_ms": gap.end_ms,
        }),
    };
    serde_json::to_string_pretty(&value).ok()
}

/// The whole thought a thinking phase's `detail` (its first words, whitespace squeezed, maybe cut
/// with `…`) begins: from where it starts in the session's thinking to that block's end.
fn whole_thought(session: &Session, detail: &str) -> Option<String> {
    let bare = |text: &str| -> String { text.chars().filter(|c| !c.is_whitespace()).collect() };
    let head = bare(detail.trim_end_matches('…'));
    if head.is_empty() {
        return None;
    }
    session.activity.iter().find_map(|item| {
        let Activity::Thinking { text, .. } = item else {
            return None;
        };
        let all = bare(text);
        let nth = all[..all.find(&head)?].chars().count();
        let (start, _) = text
            .char_indices()
            .filter(|(_, c)| !c.is_whitespace())
            .nth(nth)?;
        Some(text[start..].trim_end().to_owned())
    })
}

/// Row `selected` in words (`⚙ web_search`, `silence 2.0 s → 9.0 s`) and which raw events it
/// stands for.
pub fn row_target(timeline: &Timeline, selected: usize) -> Option<(String, RowTarget)> {
    Some(match rows(timeline).get(selected)? {
        Row::Phase(phase) => {
            let index = timeline
                .phases
                .iter()
                .position(|p| std::ptr::eq(p, *phase))?;
            let label = match phase.kind {
                PhaseKind::Tool => format!("⚙ {}", phase.label),
                PhaseKind::PlanStep => format!("▸ {}", phase.label),
                _ => phase.label.clone(),
            };
            (label, RowTarget::Phase(index))
        }
        Row::Gap(gap) => (
            format!(
                "the silence {} → {}",
                seconds(gap.start_ms),
                seconds(gap.end_ms)
            ),
            RowTarget::Between {
                start_ms: gap.start_ms,
                end_ms: gap.end_ms,
            },
        ),
    })
}

/// Milliseconds since turn `turn` started, as the timeline counts them: its end once it ended,
/// the app's fixed clock in tests.
fn now_ms(app: &App, turn: &Turn, timeline: &Timeline) -> u64 {
    let latest = timeline
        .phases
        .iter()
        .filter_map(|p| p.end_ms)
        .chain(timeline.last_ms)
        .max()
        .unwrap_or(0);
    if !turn.conn.in_progress() {
        return latest;
    }
    let now = match app.fixed_elapsed {
        Some(fixed) => u64::try_from(fixed.as_millis()).unwrap_or(u64::MAX),
        None => turn.ms_now(),
    };
    now.max(latest)
}

/// The view's rows at `width` columns, at most `height` of them: every turn's figures (with
/// several), then the figures, the axis, a window of the waterfall around the selected row and
/// the selected row's detail (always in view) — or the raw events behind that row.
pub fn timeline_rows(
    app: &App,
    view: &TimelineView,
    (width, height): (usize, usize),
    theme: &Theme,
) -> Vec<RLine> {
    let mut out = super::timeline_turns::turn_rows(app, view.turn, width, height / 4, theme);
    let room = (width, height.saturating_sub(out.len()));
    match &view.events {
        Some(events) => out.extend(super::timeline_events::event_rows(events, room, theme)),
        None => out.extend(rows_of(app, view.turn, Some(view.selected), room, theme)),
    }
    out
}

/// The waterfall of the turn the panes show, for the pane that stands in for the answer while
/// none has arrived: the figures, the axis and the newest rows that fit `height`.
pub fn pane_rows(app: &App, size: (usize, usize)) -> Vec<RLine> {
    rows_of(app, app.current_index(), None, size, &app.theme)
}

fn rows_of(
    app: &App,
    turn: usize,
    selected: Option<usize>,
    (width, height): (usize, usize),
    theme: &Theme,
) -> Vec<RLine> {
    let Some((turn, timeline)) = app
        .turns
        .get(turn)
        .and_then(|t| Some((t, t.timeline.as_ref()?)))
    else {
        return Vec::new();
    };
    let now = now_ms(app, turn, timeline);
    let live = turn.conn.in_progress();
    let geometry = Geometry::new(width, now);
    let rows = rows(timeline);
    let mut lines: Vec<RLine> = Vec::with_capacity(rows.len() + 1);
    for (i, row) in rows.iter().enumerate() {
        let mut line = geometry.row(row, now, theme);
        if Some(i) == selected {
            let style = theme.selection(true);
            for piece in &mut line.pieces {
                piece.style = piece.style.patch(style);
            }
        }
        lines.push(line);
    }
    if let Some(since) = timeline.silent_since(now).filter(|_| live) {
        let silence = Row::Gap(Gap {
            start_ms: since,
            end_ms: now,
        });
        let mut line = geometry.row(&silence, now, theme);
        line.pieces[0] = piece(pad("silent so far", geometry.label), theme.warning());
        lines.push(line);
    }
    let mut out = summary(timeline, now, live, width, theme);
    out.push(geometry.axis(theme));
    let detail = selected
        .and_then(|selected| rows.get(selected))
        .map(|row| detail(row, now, width, theme))
        .unwrap_or_default();
    let room = height
        .saturating_sub(out.len() + detail.len() + usize::from(!detail.is_empty()))
        .max(3);
    // Without a selection: the newest rows.
    let anchor = selected.unwrap_or(lines.len());
    out.extend(window(lines, anchor, room));
    if !detail.is_empty() {
        out.push(RLine::blank());
        out.extend(detail);
    }
    out
}

/// At most `room` of `lines`, the `selected` one in the middle when they do not all fit (past the
/// end: the last ones).
fn window(lines: Vec<RLine>, selected: usize, room: usize) -> impl Iterator<Item = RLine> {
    let start = if selected >= lines.len() {
        lines.len().saturating_sub(room)
    } else {
        selected
            .saturating_sub(room / 2)
            .min(lines.len().saturating_sub(room))
    };
    lines.into_iter().skip(start).take(room)
}

/// The figures of the turn, on a line or two.
fn summary(timeline: &Timeline, now: u64, live: bool, width: usize, theme: &Theme) -> Vec<RLine> {
    let line = timeline.summary_line();
    let mut text = line.trim_start_matches("timing: ").to_owned();
    if live {
        let figures = text.replace(" · total ", " · last event at ");
        text = format!("live · {} so far", seconds(now));
        if !figures.is_empty() {
            text = format!("{text} · {figures}");
        }
    }
    let mut out: Vec<RLine> = pack_items(&text, width, "")
        .iter()
        .flat_map(|line| wrap_text(line, theme.text(), width, Vec::new(), Vec::new()))
        .collect();
    out.push(RLine::blank());
    out
}

/// Where the label, the bar and the duration go.
struct Geometry {
    label: usize,
    bar: usize,
    scale: u64,
}

const DURATION: usize = 9;

impl Geometry {
    fn new(width: usize, now: u64) -> Geometry {
        let label = (width * 3 / 10).clamp(10, 32);
        let bar = width.saturating_sub(label + DURATION + 2).max(4);
        Geometry {
            label,
            bar,
            scale: now.max(1),
        }
    }

    /// The column of `ms` on the bar.
    fn col(&self, ms: u64) -> usize {
        let last = (self.bar - 1) as u128;
        (u128::from(ms.min(self.scale)) * last / u128::from(self.scale)) as usize
    }

    /// `0 s` under the bar's start and the whole span under its end.
    fn axis(&self, theme: &Theme) -> RLine {
        let end = seconds(self.scale);
        let room = self.bar.saturating_sub(end.chars().count() + 3);
        RLine {
            pieces: vec![
                piece(pad("", self.label + 1), theme.muted()),
                piece(format!("0 s{}{end}", " ".repeat(room)), theme.muted()),
            ],
        }
    }

    fn row(&self, row: &Row, now: u64, theme: &Theme) -> RLine {
        let (label, start, end, fill, style) = match row {
            Row::Phase(p) => {
                let fill = match (p.end_ms, p.start_ms == p.end_ms.unwrap_or(now)) {
                    (_, true) => '◆',
                    (None, false) => '▓',
                    (Some(_), false) => '█',
                };
                let label = match p.kind {
                    PhaseKind::Tool => format!("⚙ {}", p.label),
                    PhaseKind::PlanStep => format!("▸ {}", p.label),
                    _ => p.label.clone(),
                };
                (
                    label,
                    p.start_ms,
                    p.end_ms.unwrap_or(now),
                    fill,
                    kind_style(p, theme),
                )
            }
            Row::Gap(g) => (
                "⋯ silence".to_owned(),
                g.start_ms,
                g.end_ms,
                '░',
                theme.warning(),
            ),
        };
        let (from, to) = (self.col(start), self.col(end).max(self.col(start)));
        let bar = format!(
            "{}{}{}",
            " ".repeat(from),
            fill.to_string().repeat(to - from + 1),
            " ".repeat(self.bar - 1 - to)
        );
        let duration = if start == end {
            format!("@{}", seconds(start))
        } else {
            seconds(end - start)
        };
        RLine {
            pieces: vec![
                piece(pad(&clean(&label), self.label), theme.text()),
                piece(" ", theme.text()),
                piece(bar, style),
                piece(format!(" {duration:>DURATION$}"), theme.muted()),
            ],
        }
    }
}

/// The colour of a phase's bar.
fn kind_style(phase: &Phase, theme: &Theme) -> Style {
    match phase.kind {
        PhaseKind::Request => theme.muted(),
        PhaseKind::PlanStep => theme.accent(),
        PhaseKind::Thinking => theme.series(3),
        PhaseKind::Tool
            if phase
                .detail
                .as_deref()
                .is_some_and(|d| d.starts_with("failed")) =>
        {
            theme.error()
        }
        PhaseKind::Tool => theme.series(1),
        PhaseKind::Answer => theme.success(),
        PhaseKind::Chart | PhaseKind::Structured => theme.series(5),
        PhaseKind::End if phase.label == "complete" => theme.success(),
        PhaseKind::End => theme.error(),
    }
}

/// What the selected row is, in words.
fn detail(row: &Row, now: u64, width: usize, theme: &Theme) -> Vec<RLine> {
    let mut fields: Vec<(&str, String)> = Vec::new();
    match row {
        Row::Phase(p) => {
            fields.push(("Phase", format!("{} · {}", p.kind.as_str(), p.label)));
            let span = match p.end_ms {
                Some(end) if end == p.start_ms => format!("at {}", seconds(end)),
                Some(end) => format!(
                    "{} → {} ({})",
                    seconds(p.start_ms),
                    seconds(end),
                    seconds(end - p.start_ms)
                ),
                None => format!(
                    "{} → still going ({} so far)",
                    seconds(p.start_ms),
                    seconds(now.saturating_sub(p.start_ms))
                ),
            };
            fields.push(("When", span));
            if let Some(detail) = &p.detail {
                let name = if p.kind == PhaseKind::Tool {
                    "Query"
                } else {
                    "Detail"
                };
                fields.push((name, detail.clone()));
            }
            if let Some(results) = p.results {
                fields.push(("Results", results.to_string()));
            }
        }
        Row::Gap(g) => {
            fields.push(("Silence", "nothing arrived".into()));
            let span = format!(
                "{} → {} ({})",
                seconds(g.start_ms),
                seconds(g.end_ms),
                seconds(g.end_ms - g.start_ms)
            );
            fields.push(("When", span));
        }
    }
    let mut out = Vec::new();
    for (name, value) in fields {
        out.extend(wrap_text(
            &clean(&value),
            theme.text(),
            width,
            vec![piece(format!("{name:<9}"), theme.muted())],
            vec![piece(" ".repeat(9), theme.muted())],
        ));
    }
    out
}

/// `text` cut or padded to `width` columns.
fn pad(text: &str, width: usize) -> String {
    let cut = truncate(text, width);
    let w = unicode_width::UnicodeWidthStr::width(cut.as_str());
    format!("{cut}{}", " ".repeat(width.saturating_sub(w)))
}

/// The view's title: which turn of how many.
pub fn title(app: &App, view: &TimelineView) -> String {
    match app.turns.len() {
        0 | 1 => "Timeline".to_owned(),
        n => format!("Timeline · turn {} of {n}", view.turn + 1),
    }
}

/// The keys the view takes now (in the popup, or in the tab, which Esc does not close).
pub fn footer(app: &App, view: &TimelineView, tab: bool) -> String {
    let template = match (&view.events, app.turns.len() > 1, tab) {
        (Some(_), _, _) => "{down}/{up} select · {copy} copy event JSON · {escape} back",
        (None, true, false) => {
            "{down}/{up} select · {enter} raw events · {previous_turn} {next_turn} turn · {copy} copy row · {escape} close"
        }
        (None, false, false) => {
            "{down}/{up} select · {enter} raw events · {copy} copy row · {escape} close"
        }
        (None, true, true) => {
            "{down}/{up} select · {enter} raw events · {previous_turn} {next_turn} turn · {copy} copy row"
        }
        (None, false, true) => "{down}/{up} select · {enter} raw events · {copy} copy row",
    };
    // In the tab the panes' keys hold, in the popup the popup's.
    let place = if tab { Context::Panes } else { Context::Popup };
    app.keys.fill(&[place, Context::Anywhere], template)
}
