//! Laying the answer pane out for one frame: every turn's parts (header, answer rows with charts
//! between them, structured output, how it ended) at the pane's width, the scroll resolved — with
//! the pane's requests to bring a turn, a span or a structured output into view carried out.

use std::ops::Range;
use std::rc::Rc;

use ratatui::layout::Rect;
use ratatui::style::Modifier;
use unicode_width::UnicodeWidthStr;

use super::super::chart::ChartCache;
use super::super::{clean, pane_inner, piece, wrap_text};
use super::AnswerPane;
use super::anchor::{scroll_to_anchor, top_anchor};
use super::in_view::{chart_in_view, structured_in_view};
use crate::styled::text::{AnswerView, PieceKind, RLine};
use crate::styled::theme::Theme;
use crate::tui::state::keymap::Context;
use crate::tui::state::{App, ConnState, Spot, Turn};

/// Small, cheap parts around an answer.
#[derive(Debug)]
pub(super) enum Part {
    Rows(Vec<RLine>),
    /// Rows `range` of turn `usize`'s answer (charts go between such slices).
    Answer(usize, Range<usize>),
    /// The turn's structured output (folded, or a table).
    Structured(Vec<RLine>),
    /// The turn's chart `usize`, drawn.
    Chart(usize, Rc<[RLine]>),
}

/// What the rule above a turn says: its number, where it continued from when that is not simply the
/// turn before, and whether it is the turn the panes show.
pub fn turn_label(app: &App, index: usize) -> String {
    let Some(turn) = app.turns.get(index) else {
        return String::new();
    };
    let mut label = format!("turn {}", index + 1);
    if let Some(of) = turn.retry_of {
        label.push_str(&format!(" · retry of turn {}", of + 1));
    }
    match (turn.request.from_turn, &turn.request.checkpoint_id) {
        (Some(from), _) if from + 1 != index => {
            label.push_str(&format!(" · ↳ from turn {}", from + 1));
        }
        (None, Some(checkpoint)) if index == 0 || app.turns[index - 1].is_anchor() => {
            label.push_str(&format!(" · ↳ from {}", clean(checkpoint)));
        }
        _ => {}
    }
    label
}

fn header(app: &App, index: usize, width: usize, theme: &Theme) -> Vec<RLine> {
    let turn = &app.turns[index];
    let mut rows = Vec::new();
    if index > 0 {
        rows.push(RLine::blank());
    }
    if app.turns.len() > 1 {
        let selected = app.viewed_turn == Some(index);
        let (text, style) = if selected {
            (
                format!("━━ ▶ {} · selected ([ ] switch) ", turn_label(app, index)),
                theme.accent().add_modifier(Modifier::BOLD),
            )
        } else {
            (format!("── {} ", turn_label(app, index)), theme.muted())
        };
        let text = super::super::truncate(&text, width);
        let fill = width.saturating_sub(text.width());
        let rule = if selected { "━" } else { "─" };
        rows.push(RLine {
            pieces: vec![piece(format!("{text}{}", rule.repeat(fill)), style)],
        });
    }
    if let Some(question) = turn.shown_question() {
        // Every line of the question as it was typed; one the proxy could not read, a placeholder.
        for (i, line) in question.iter().enumerate() {
            let first = if i == 0 { "▍You: " } else { "▍     " };
            rows.extend(wrap_text(
                line,
                theme.you(),
                width,
                vec![piece(first, theme.you())],
                vec![piece("▍     ", theme.you())],
            ));
        }
        rows.push(RLine::blank());
    }
    rows
}

fn placeholder(turn: &Turn, spinner: &str, theme: &Theme) -> Vec<RLine> {
    let text = match &turn.conn {
        ConnState::Idle => "Ask a question below.".to_owned(),
        ConnState::Connecting { attempt } if *attempt > 1 => {
            format!("{spinner} connecting (attempt {attempt})…")
        }
        ConnState::Connecting { .. } => format!("{spinner} connecting…"),
        ConnState::Retrying {
            attempt,
            wait_ms,
            reason,
        } => format!(
            "{spinner} retrying in {} (attempt {attempt}): {}",
            super::super::status::format_wait(*wait_ms),
            clean(reason)
        ),
        ConnState::Streaming => format!("{spinner} researching…"),
        _ => "(no answer)".to_owned(),
    };
    vec![RLine {
        pieces: vec![piece(text, theme.muted())],
    }]
}

/// How the turn ended, when that is worth a line (error, cut, stall, cancel) and the retry hint.
fn ending_rows(turn: &Turn, width: usize, theme: &Theme, retry: Option<&str>) -> Vec<RLine> {
    let mut rows = Vec::new();
    let ending = match &turn.conn {
        ConnState::Error(message) => Some((
            format!(
                "✖ Error: {}",
                if message.is_empty() {
                    "the agent failed".to_owned()
                } else {
                    clean(message)
                }
            ),
            theme.error(),
        )),
        ConnState::Cut(reason) => Some((format!("✂ Cut: {}", clean(reason)), theme.warning())),
        ConnState::Stalled(0) => Some((
            "⏸ Stalled: no data for the idle timeout".to_owned(),
            theme.warning(),
        )),
        ConnState::Stalled(secs) => {
            Some((format!("⏸ Stalled: no data for {secs} s"), theme.warning()))
        }
        ConnState::Cancelled => Some(("⊘ Cancelled.".to_owned(), theme.warning())),
        _ => None,
    };
    if let Some((text, style)) = ending {
        rows.push(RLine::blank());
        rows.extend(wrap_text(&text, style, width, Vec::new(), Vec::new()));
        if let Some(retry) = retry.filter(|_| turn.retryable()) {
            let kept = if turn.session.answer.as_str().is_empty() {
                ""
            } else {
                "Everything received is kept above. "
            };
            rows.extend(wrap_text(
                &format!("{kept}{retry} asks it again as a new turn."),
                theme.muted(),
                width,
                Vec::new(),
                Vec::new(),
            ));
        }
    }
    rows
}

/// What the answer pane shows this frame.
#[derive(Debug)]
pub struct AnswerFrame {
    /// Scrolled up with more below: the title's hint.
    pub(super) more_below: bool,
    /// The chart Enter on the answer opens (turn, chart): the first one in view.
    pub chart_in_view: Option<(usize, usize)>,
    /// The turn whose structured output `J` shows and Enter unfolds: see [`structured_in_view`].
    pub structured_in_view: Option<usize>,
    /// Nothing when the pane has no room.
    pub(super) body: Option<AnswerBody>,
}

#[derive(Debug)]
pub(super) struct AnswerBody {
    /// `(turn index, part, rows)`, top to bottom.
    pub(super) parts: Vec<(usize, Part, usize)>,
    pub(super) total: usize,
    /// The first row shown.
    pub(super) top: usize,
}

impl AnswerFrame {
    /// What a click on row `y`, column `x` of the pane's inside picks: a citation marker's source
    /// (of the turn the panes show) or a structured output line.
    pub fn spot(&self, app: &App, pane: &AnswerPane, y: usize, x: usize) -> Option<Spot> {
        let body = self.body.as_ref()?;
        let mut row = body.top + y;
        for (turn, part, h) in &body.parts {
            if row >= *h {
                row -= h;
                continue;
            }
            return match part {
                Part::Structured(_) => Some(Spot::Structured(*turn)),
                Part::Chart(chart, _) => Some(Spot::Chart(*turn, *chart)),
                Part::Answer(i, rows) if *i == app.current_index() => {
                    let view = pane.views.get(&app.turns[*i].id)?;
                    let line = view.rows(rows.start + row, 1).next()?;
                    marker_at(line, x).map(Spot::Marker)
                }
                _ => None,
            };
        }
        None
    }
}

/// The source number of the citation marker at column `x` of `line` (`[3,4]`: the number clicked).
fn marker_at(line: &RLine, x: usize) -> Option<usize> {
    let mut column = 0;
    for piece in line.pieces.iter().filter(|p| p.kind != PieceKind::Break) {
        let width = piece.text.width();
        if x < column + width {
            let PieceKind::Marker(numbers) = &piece.kind else {
                return None;
            };
            // Which number of `[3,4]` the column falls on.
            let offset = x - column;
            let commas = piece.text[..piece
                .text
                .char_indices()
                .nth(offset)
                .map_or(piece.text.len(), |(i, _)| i)]
                .matches(',')
                .count();
            return numbers
                .get(commas.min(numbers.len().saturating_sub(1)))
                .copied();
        }
        column += width;
    }
    None
}

/// Bring every turn's rendering up to date for the pane's width, lay out the parts and resolve the
/// scroll, carrying out `[`/`]`'s and `n`/`N`'s requests to bring a turn or a span into view.
pub fn prepare(app: &App, pane: &mut AnswerPane, area: Rect) -> AnswerFrame {
    pane.area = Some(area);
    let inner = pane_inner(area);
    let width = inner.width.max(1) as usize;
    // Another width (the terminal resized, a zoom, a resize key) wraps every row anew: the line at
    // the top stays at the top.
    let rewrapped = pane.width.replace(width).is_some_and(|w| w != width);
    if rewrapped {
        pane.keep_anchor();
    }
    let height = inner.height as usize;
    if height == 0 {
        return AnswerFrame {
            more_below: false,
            chart_in_view: None,
            structured_in_view: None,
            body: None,
        };
    }
    // Rows of turns no longer in the conversation (another one replaced it) go.
    if pane.views.len() > app.turns.len() {
        pane.views
            .retain(|id, _| app.turns.iter().any(|turn| turn.id == *id));
    }
    // Scrolled up, the text at the top is put back where it was when the rows above it may have
    // moved: citations landed (their markers wrap blocks anew), the text was resent, or it was
    // replaced since blocks of it were left unmeasured (their rows can no longer be counted).
    let versions = marker_and_text_versions(app);
    let moved = pane
        .laid_out_at
        .is_some_and(|(top, seen)| top == pane.scroll.top && seen != versions);
    if !pane.scroll.follow && pane.scroll_to_anchor.is_none() && (moved || pane.stale_deferred(app))
    {
        pane.scroll_to_anchor = pane.top_anchor;
    }
    let requested = pane.scroll_to_turn.is_some()
        || pane.scroll_to_structured.is_some()
        || pane.scroll_to_byte.is_some()
        || pane.scroll_to_anchor.is_some();
    // Following the bottom with nothing to bring into view: blocks far above the window are left
    // unmeasured (the rows are numbered as if they were empty; every reader in this frame agrees).
    // A jump may go anywhere, so every row must be where it is: they are measured first. Scrolled
    // up, they are measured from the bottom up as far as the window and its hint need (`settle`).
    let following = pane.scroll.follow && !requested;
    // (Rewrapped, every block is measured anew: the scroll position first counts all the rows it
    // was above — unless the line being read is put back by its text, which needs no count.)
    let by_anchor_only = pane.scroll_to_anchor.is_some()
        && pane.scroll_to_turn.is_none()
        && pane.scroll_to_structured.is_none()
        && pane.scroll_to_byte.is_none();
    if (requested || (rewrapped && !following)) && !by_anchor_only {
        pane.measure_all(app);
    }
    let mut parts = layout(app, pane, width, following.then_some(height + 1));
    let mut total: usize = parts.iter().map(|(_, _, h)| h).sum();
    scroll_to_requests(app, pane, &parts, total, height);
    let mut top = pane.scroll.resolve(total, height);
    if !following && pane.settle(app, &parts, height) {
        parts = layout(app, pane, width, None);
        total = parts.iter().map(|(_, _, h)| h).sum();
        top = pane.scroll.resolve(total, height);
    }
    show_window(app, pane, &parts, top, height);
    pane.laid_out_at = Some((top, versions));
    pane.top_anchor = match pane.held_anchor {
        Some((anchor, held)) if held == top => Some(anchor),
        _ => {
            pane.held_anchor = None;
            top_anchor(app, pane, &parts, top, height)
        }
    };
    AnswerFrame {
        more_below: !pane.scroll.follow && top + height < total,
        chart_in_view: chart_in_view(&parts, top, height),
        structured_in_view: structured_in_view(&parts, top, height, app.current_index()),
        body: Some(AnswerBody { parts, total, top }),
    }
}

/// The turns' marker and text versions, summed (each only grows, so the sum changes when any does).
fn marker_and_text_versions(app: &App) -> u64 {
    app.turns.iter().fold(0u64, |sum, turn| {
        sum.wrapping_add(turn.markers_version)
            .wrapping_add(turn.generation)
    })
}

/// Every turn's parts (header, answer or placeholder, trailer), their renderings synced to `width`
/// (following the bottom `follow` rows when given: see `AnswerView::follow_bottom`).
pub(super) fn layout(
    app: &App,
    pane: &mut AnswerPane,
    width: usize,
    follow: Option<usize>,
) -> Vec<(usize, Part, usize)> {
    let theme = &app.theme;
    let mut parts: Vec<(usize, Part, usize)> = Vec::new();
    let output_keys = app
        .keys
        .fill(&[Context::Panes], "{enter} folds · {raw_json} raw JSON");
    // A replay asks nothing again; with no key for `retry`, no key does it.
    let retry = app
        .can_ask
        .then(|| app.keys.then_enter("retry", &[Context::Panes]))
        .flatten();
    let chart_keys = match app.keys.fill(&[Context::Panes], "{enter} or a click") {
        keys if keys.is_empty() => "a click: full screen".to_owned(),
        keys => format!("{keys}: full screen"),
    };
    for (index, turn) in app.turns.iter().enumerate() {
        let head = header(app, index, width, theme);
        if !head.is_empty() {
            let h = head.len();
            parts.push((index, Part::Rows(head), h));
        }
        let view = pane.views.entry(turn.id).or_default();
        view.follow_bottom(follow);
        view.sync(
            turn.session.answer.as_str(),
            &turn.ann,
            turn.markers_version,
            turn.generation,
            width,
            theme,
        );
        if view.height() == 0 {
            let rows = placeholder(turn, app.spinner(), theme);
            let h = rows.len();
            parts.push((index, Part::Rows(rows), h));
        } else {
            answer_and_charts(
                turn,
                view,
                index,
                &mut pane.charts,
                width,
                (theme, &chart_keys),
                &mut parts,
            );
        }
        let open = pane.structured_open.contains(&index);
        let output = pane
            .structured
            .rows(index, turn, (open, &output_keys), width, theme);
        if !output.is_empty() {
            let h = output.len();
            parts.push((index, Part::Structured(output), h));
        }
        let tail = ending_rows(turn, width, theme, retry.as_deref());
        if !tail.is_empty() {
            let h = tail.len();
            parts.push((index, Part::Rows(tail), h));
        }
    }
    if parts.is_empty() {
        let rows = wrap_text(
            &empty_hint(app),
            theme.muted(),
            width,
            Vec::new(),
            Vec::new(),
        );
        let h = rows.len();
        parts.push((0, Part::Rows(rows), h));
    }
    parts
}

/// What the answer pane says before the first question.
fn empty_hint(app: &App) -> String {
    if app.mode == crate::tui::state::Mode::Watch {
        return format!(
            "Waiting for a research session to start… ({} quits). Any `research-tui ask`, app or \
             proxy on this machine shows here as it streams.",
            app.keys.quit_keys()
        );
    }
    if !app.can_ask {
        return "Nothing to show yet.".to_owned();
    }
    if let Some(question) = &app.first_question {
        return format!("Asking: {}", clean(question));
    }
    let resumed = match (&app.resume.checkpoint_id, &app.resume.chat_id) {
        (Some(checkpoint), _) => Some(format!("checkpoint {}", clean(checkpoint))),
        (None, Some(chat)) => Some(format!("chat {}", clean(chat))),
        (None, None) => None,
    };
    match resumed {
        Some(id) => format!(
            "No saved session knows {id}. Your first question will be sent with it, so the agent \
             continues from there; type it below and press Enter."
        ),
        None => "Type a question below and press Enter.".to_owned(),
    }
}

/// `[`/`]` bring the picked turn's question to the top; `n`/`N` bring the span a third of the way
/// down.
fn scroll_to_requests(
    app: &App,
    pane: &mut AnswerPane,
    parts: &[(usize, Part, usize)],
    total: usize,
    height: usize,
) {
    let current = app.current_index();
    scroll_to_anchor(app, pane, parts, total, height);
    if let Some(target) = pane.scroll_to_turn.take() {
        let mut offset = 0;
        for (turn, _, h) in parts {
            if *turn == target {
                pane.scroll.total = total;
                pane.scroll.viewport = height;
                // Skip the blank row before its rule.
                pane.scroll.top = if target > 0 { offset + 1 } else { offset };
                pane.scroll.follow = false;
                break;
            }
            offset += h;
        }
    }
    if let Some(target) = pane.scroll_to_structured.take() {
        let mut offset = 0;
        for (turn, part, h) in parts {
            if let (true, Part::Structured(_)) = (*turn == target, part) {
                let scroll = &mut pane.scroll;
                let top = scroll.top.min(total.saturating_sub(height));
                // The whole table when it fits, else its start.
                let last = offset + h.min(&height) - 1;
                let wanted = super::super::keep_visible(top, offset, last, height);
                if wanted != top {
                    scroll.total = total;
                    scroll.viewport = height;
                    scroll.top = wanted;
                    scroll.follow = wanted + height >= total;
                }
                break;
            }
            offset += h;
        }
    }
    if let Some(byte) = pane.scroll_to_byte.take() {
        let mut offset = 0;
        for (turn, part, h) in parts {
            if let (true, Part::Answer(_, rows)) = (*turn == current, part) {
                let shown = &app.turns[current];
                let Some(view) = pane.views.get_mut(&shown.id) else {
                    break;
                };
                if let Some(row) = view
                    .locate(shown.session.answer.as_str(), byte, &app.theme)
                    .filter(|row| rows.contains(row))
                    .map(|row| row - rows.start)
                {
                    pane.scroll.total = total;
                    pane.scroll.viewport = height;
                    pane.scroll.top = (offset + row).saturating_sub(height / 3);
                    pane.scroll.follow = false;
                    break;
                }
            }
            offset += h;
        }
    }
}

/// Have each answer in rows `top..top + height` wrap the blocks it shows there (the view keeps rows
/// only around what was last shown).
fn show_window(
    app: &App,
    pane: &mut AnswerPane,
    parts: &[(usize, Part, usize)],
    top: usize,
    height: usize,
) {
    let mut offset = 0;
    for (_, part, h) in parts {
        let (start, end) = (offset, offset + h);
        offset = end;
        if let Part::Answer(i, rows) = part
            && end > top
            && start < top + height
        {
            let skip = top.saturating_sub(start);
            let turn = &app.turns[*i];
            let count = height.min(h - skip);
            if let Some(view) = pane.views.get_mut(&turn.id) {
                view.show(
                    turn.session.answer.as_str(),
                    rows.start + skip,
                    count,
                    &app.theme,
                );
            }
        }
    }
}

/// The turn's answer as slices of its rows with each chart after the block its span ends in (at
/// the end when it has no span, or that block is still streaming).
fn answer_and_charts(
    turn: &Turn,
    view: &AnswerView,
    index: usize,
    charts: &mut ChartCache,
    width: usize,
    (theme, chart_keys): (&Theme, &str),
    parts: &mut Vec<(usize, Part, usize)>,
) {
    let height = view.height();
    let mut anchors: Vec<(usize, usize)> = turn
        .session
        .charts
        .iter()
        .enumerate()
        .map(|(i, chart)| {
            let row = chart
                .end
                .and_then(|end| turn.session.answer.byte_of(end.saturating_sub(1) as usize))
                .and_then(|byte| view.block_end_row(byte))
                .unwrap_or(height)
                .min(height);
            (row, i)
        })
        .collect();
    anchors.sort();
    let mut from = 0;
    for (row, chart) in anchors {
        if row > from {
            parts.push((index, Part::Answer(index, from..row), row - from));
            from = row;
        }
        let rows = charts.rows(turn, chart, width, (theme, chart_keys));
        let h = rows.len();
        parts.push((index, Part::Chart(chart, rows), h));
    }
    if from < height {
        parts.push((index, Part::Answer(index, from..height), height - from));
    }
}
