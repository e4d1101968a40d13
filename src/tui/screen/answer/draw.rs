//! Drawing the answer pane from a laid-out [`AnswerFrame`]: the rows in view, the selected source's
//! spans highlighted and the span `n`/`N` jumped to marked, and a scroll position hint. Reads its
//! state and the app, writes nothing.

use std::ops::Range;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::super::sources::SourcesPane;
use super::super::{pane_block, plain_lines, title};
use super::AnswerPane;
use super::layout::{AnswerBody, AnswerFrame, Part};
use crate::styled::text::{Decorations, merge_ranges, to_line};
use crate::tui::state::keymap::Context;
use crate::tui::state::{App, Focus};

pub fn draw(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    (pane, sources): (&AnswerPane, &SourcesPane),
    prepared: &AnswerFrame,
) {
    let focused = app.shows_focus(Focus::Answer);
    let theme = &app.theme;
    let output_turn = prepared
        .structured_in_view
        .unwrap_or_else(|| app.current_index());
    let folded_output = app
        .turns
        .get(output_turn)
        .is_some_and(|t| t.session.structured_output.is_some())
        && !pane.structured_open.contains(&output_turn);
    let search = app
        .search
        .as_ref()
        .filter(|s| !s.query.is_empty())
        .map(|s| {
            format!(
                "/{} {}",
                crate::styled::text::truncate(&crate::styled::text::clean(&s.query), 20),
                s.count()
            )
        });
    let extra = match (prepared.more_below, focused && folded_output) {
        _ if search.is_some() => search,
        _ if focused && prepared.chart_in_view.is_some() => Some(
            app.keys
                .fill(&[Context::Panes], "{enter}: the chart full screen"),
        ),
        // G goes to the end (and follows it) only where the answer has the keys: in the prompt
        // it is a letter, in another pane that pane's end.
        (true, _) if focused => Some(
            app.keys
                .fill(&[Context::Panes], "↓ more · {bottom} follows"),
        ),
        (true, _) => Some("↓ more".to_owned()),
        (false, true) => Some(
            app.keys
                .fill(&[Context::Panes], "{enter} unfolds the structured output"),
        ),
        (false, false) => None,
    };
    let block = pane_block(title("Answer", extra, focused, theme), focused, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(body) = &prepared.body else {
        return;
    };
    let height = inner.height as usize;
    let lines = visible_lines(app, (pane, sources), body, height);
    frame.render_widget(Paragraph::new(lines).style(theme.text()), inner);
    if body.total > height {
        // A one-cell scroll position hint on the right border, focused or not: a reader who
        // scrolled up and moved to another pane still sees where in the answer they are.
        let mark = if focused {
            theme.accent().add_modifier(Modifier::BOLD)
        } else {
            theme.title(false)
        };
        let pos = (body.top * (height.saturating_sub(1)))
            .checked_div(pane.scroll.max_top())
            .unwrap_or(0);
        let x = area.x + area.width.saturating_sub(1);
        let y = inner.y + pos.min(height - 1) as u16;
        if let Some(cell) = frame.buffer_mut().cell_mut((x, y)) {
            cell.set_symbol("┃").set_style(mark);
        }
    }
}

/// The rows in view, the selected source's spans highlighted in the turn the panes show.
fn visible_lines<'a>(
    app: &'a App,
    (pane, sources): (&'a AnswerPane, &SourcesPane),
    body: &'a AnswerBody,
    height: usize,
) -> Vec<Line<'a>> {
    let current = app.current_index();
    let (highlights, focus_range) = selected_spans(app, pane, sources);
    let search = app.search.as_ref();
    // The selected source's spans light up in the turn shown; the search's hits in every turn.
    let deco = |turn: usize| {
        let (search, search_current) = search.map_or((&[][..], None), |s| s.answer_hits(turn));
        let shown = turn == current;
        Decorations {
            highlights: if shown { &highlights } else { &[] },
            focus: focus_range.as_ref().filter(|_| shown),
            selected: sources.selected_number(app).filter(|_| shown),
            search,
            search_current,
        }
    };
    let top = body.top;
    let mut lines: Vec<Line<'_>> = Vec::with_capacity(height);
    let mut offset = 0;
    for (turn_index, part, h) in &body.parts {
        let (start, end) = (offset, offset + h);
        offset = end;
        if end <= top || start >= top + height {
            continue;
        }
        let skip = top.saturating_sub(start);
        let take = (top + height).min(end) - (start + skip);
        match part {
            Part::Rows(rows) => {
                let shown = &rows[skip..skip + take];
                match search.filter(|s| !s.question_hits(*turn_index).0.is_empty()) {
                    Some(search) => lines.extend(question_lit(shown, search, *turn_index, app)),
                    None => lines.extend(plain_lines(shown)),
                }
            }
            Part::Structured(rows) => lines.extend(plain_lines(&rows[skip..skip + take])),
            Part::Chart(_, rows) => lines.extend(plain_lines(&rows[skip..skip + take])),
            Part::Answer(i, rows) => {
                let d = &deco(*turn_index);
                let Some(view) = pane.views.get(&app.turns[*i].id) else {
                    continue;
                };
                for row in view.rows(rows.start + skip, take) {
                    lines.push(to_line(row, d, &app.theme));
                }
            }
        }
    }
    lines
}

/// A turn's header rows with the search's query lit where the question (the `▍You:` rows) holds
/// it; the current hit's colour when the current hit is in this question. (A match a wrap splits
/// over two rows is found by the search, and shown by the scroll, but not lit.)
fn question_lit<'a>(
    rows: &'a [crate::styled::text::RLine],
    search: &crate::tui::state::Search,
    turn: usize,
    app: &App,
) -> Vec<Line<'a>> {
    let lit = if search.question_hits(turn).1.is_some() {
        app.theme.search_current()
    } else {
        app.theme.search_hit()
    };
    let mut lines = plain_lines(rows);
    for (line, row) in lines.iter_mut().zip(rows) {
        if !row.pieces.first().is_some_and(|p| p.text.starts_with('▍')) {
            continue;
        }
        let mut spans = Vec::new();
        for (i, span) in line.spans.drain(..).enumerate() {
            let mut found = Vec::new();
            if i > 0 {
                crate::tui::state::search::find_all(&span.content, &search.query, 0, &mut found);
            }
            let mut at = 0;
            for range in found {
                let text = |r: Range<usize>| span.content[r].to_owned();
                spans.push(ratatui::text::Span::styled(
                    text(at..range.start),
                    span.style,
                ));
                spans.push(ratatui::text::Span::styled(
                    text(range.clone()),
                    span.style.patch(lit),
                ));
                at = range.end;
            }
            if at == 0 {
                spans.push(span);
            } else {
                let rest = span.content[at..].to_owned();
                spans.push(ratatui::text::Span::styled(rest, span.style));
            }
        }
        line.spans = spans;
    }
    lines
}

/// The raw byte ranges the selected source supports (merged), and the span `n`/`N` jumped to.
fn selected_spans(
    app: &App,
    pane: &AnswerPane,
    sources: &SourcesPane,
) -> (Vec<Range<usize>>, Option<Range<usize>>) {
    let current = app.current_index();
    let highlights = match sources.selected_item(app) {
        Some(item) => {
            let turn = &app.turns[current];
            merge_ranges(
                app.item_citations(item)
                    .into_iter()
                    .filter_map(|i| turn.attribution.citations.get(i))
                    .map(|c| c.bytes.clone())
                    .collect(),
            )
        }
        None => Vec::new(),
    };
    let focus_range = pane
        .focus_span
        .and_then(|i| app.turns.get(current)?.attribution.citations.get(i))
        .map(|c| c.bytes.clone());
    (highlights, focus_range)
}
