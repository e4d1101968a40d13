//! Charts drawn in the terminal: inside the answer after the span they illustrate, and full screen
//! (Enter or a click on one). Bars are rows of a fill pattern per series (colored by the theme, the
//! pattern alone without colors); lines, areas and points are ratatui's `Chart` widget with axes,
//! units and a legend (a marker per series without colors). A chart in several units is one panel
//! per unit. Drawn once per width and kept ([`ChartCache`]): a frame only copies references.

use std::collections::HashMap;
use std::rc::Rc;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, LegendPosition, Widget};
use unicode_width::UnicodeWidthStr;

use super::{clean, piece, truncate, wrap_text};
use crate::model::chart::{ChartView, Domain, Drawing, Mark, format_value, interpret};
use crate::model::event::Chart as ChartEvent;
use crate::render::chart_text::{FILLS, MARKERS, is_bar_panel, panel_lines};
use crate::styled::text::RLine;
use crate::styled::theme::Theme;
use crate::tui::state::Turn;

/// Rows of a plot drawn inside the answer.
pub const INLINE_PLOT_ROWS: usize = 12;

/// Each chart's rows, by turn id and chart index, for the width they were drawn at.
#[derive(Debug, Default)]
pub struct ChartCache {
    drawn: HashMap<(u64, usize), Drawn>,
}

/// A chart's rows and the width they were drawn at.
type Drawn = (usize, Rc<[RLine]>);

impl ChartCache {
    /// Turn `turn`'s chart `index` drawn at `width` (kept until the width changes), ending on
    /// `keys` (what opens it full screen, with the keys in force: they do not change while the app
    /// runs).
    pub fn rows(
        &mut self,
        turn: &Turn,
        index: usize,
        width: usize,
        (theme, keys): (&Theme, &str),
    ) -> Rc<[RLine]> {
        let key = (turn.id, index);
        match self.drawn.get(&key) {
            Some((w, rows)) if *w == width => rows.clone(),
            _ => {
                let Some(chart) = turn.session.charts.get(index) else {
                    return Rc::from(Vec::new());
                };
                let mut rows = vec![RLine::blank()];
                rows.extend(chart_rows(chart, width, INLINE_PLOT_ROWS, theme));
                rows.push(RLine {
                    pieces: vec![piece(truncate(&format!("  {keys}"), width), theme.muted())],
                });
                let rows: Rc<[RLine]> = Rc::from(rows);
                self.drawn.insert(key, (width, rows.clone()));
                rows
            }
        }
    }

    /// Draws made so far (for tests: a frame draws nothing new).
    pub fn len(&self) -> usize {
        self.drawn.len()
    }

    pub fn is_empty(&self) -> bool {
        self.drawn.is_empty()
    }
}

/// `chart` in `width` columns: its heading and caption, then each panel (a plot `plot_height` rows tall),
/// or why it cannot be drawn.
pub fn chart_rows(
    chart: &ChartEvent,
    width: usize,
    plot_height: usize,
    theme: &Theme,
) -> Vec<RLine> {
    chart_rows_in(chart, width, plot_height, false, theme)
}

/// [`chart_rows`], with bar panels made as tall as a plot (`fill`: full screen) — each bar
/// thicker — rather than a row a bar.
fn chart_rows_in(
    chart: &ChartEvent,
    width: usize,
    plot_height: usize,
    fill: bool,
    theme: &Theme,
) -> Vec<RLine> {
    let width = width.max(20);
    let title = chart.title.as_deref().map_or_else(|| "Chart".into(), clean);
    let kind = chart
        .chart_type
        .as_deref()
        .map(clean)
        .filter(|k| !k.is_empty());
    let mut heading = vec![piece("▦ ", theme.accent()), piece(title, theme.heading(3))];
    if let Some(kind) = &kind {
        heading.push(piece(format!(" · {kind}"), theme.muted()));
    }
    let mut rows = crate::styled::text::wrap(&heading, width, &[], &[piece("  ", theme.text())]);
    if let Some(caption) = chart.caption.as_deref().filter(|c| !c.trim().is_empty()) {
        rows.extend(wrap_text(
            &clean(caption),
            theme.muted(),
            width,
            Vec::new(),
            Vec::new(),
        ));
    }
    match interpret(chart) {
        ChartView::Drawn(drawing) => {
            for panel in drawing.panels() {
                rows.push(RLine::blank());
                match is_bar_panel(&panel) {
                    true => {
                        let bars = bar_rows(&panel, width, theme);
                        match fill {
                            true => rows.extend(thicken_bars(&panel, bars, plot_height)),
                            false => rows.extend(bars),
                        }
                    }
                    false => rows.extend(plot_rows(&panel, width, plot_height, theme)),
                }
            }
        }
        ChartView::Undrawable(why) => rows.extend(wrap_text(
            &format!("(not drawn: {})", clean(why)),
            theme.muted(),
            width,
            Vec::new(),
            Vec::new(),
        )),
    }
    rows
}

/// `chart` filling `width` × `height` (full screen): its plots share the height left by the
/// heading, caption and the rows around each panel.
pub fn full_screen_rows(
    chart: &ChartEvent,
    width: usize,
    height: usize,
    theme: &Theme,
) -> Vec<RLine> {
    const SMALLEST: usize = 6;
    let panels = match interpret(chart) {
        ChartView::Drawn(drawing) => drawing.panels().len().max(1),
        ChartView::Undrawable(_) => 1,
    };
    let smallest = chart_rows(chart, width, SMALLEST, theme);
    let fixed = smallest.len().saturating_sub(panels * SMALLEST);
    let mut plot = (height.saturating_sub(fixed) / panels).max(SMALLEST);
    // A bar panel's rows are not a plot's: shrink until the whole chart fits (a try or two).
    while plot > SMALLEST {
        let rows = chart_rows_in(chart, width, plot, true, theme);
        if rows.len() <= height {
            return rows;
        }
        plot = plot
            .saturating_sub((rows.len() - height).div_ceil(panels))
            .max(SMALLEST);
    }
    smallest
}

/// A bar panel's rows filling `height` rows: each bar repeated to be thicker (its label and value
/// on its middle row), a blank row between bars once they are three rows thick.
fn thicken_bars(panel: &Drawing, rows: Vec<RLine>, height: usize) -> Vec<RLine> {
    /// Thicker bars read no better.
    const MOST: usize = 8;
    let head = usize::from(panel.y.title.is_some());
    let tail = usize::from(panel.has_legend());
    let bars = rows.len().saturating_sub(head + tail);
    if bars == 0 {
        return rows;
    }
    let per = (height.saturating_sub(head + tail) / bars).clamp(1, MOST + 1);
    let (thick, gap) = if per >= 4 { (per - 1, 1) } else { (per, 0) };
    if thick <= 1 {
        return rows;
    }
    let mut out = Vec::with_capacity(height);
    out.extend(rows[..head].iter().cloned());
    for (i, row) in rows[head..head + bars].iter().enumerate() {
        if i > 0 && gap > 0 {
            out.push(RLine::blank());
        }
        // The copies keep only the bar: the label and the value are on the middle row.
        let bare = RLine {
            pieces: row
                .pieces
                .iter()
                .map(|p| {
                    let text: String = p
                        .text
                        .chars()
                        .map(|c| if FILLS.contains(&c) { c } else { ' ' })
                        .collect();
                    piece(text, p.style)
                })
                .collect(),
        };
        for k in 0..thick {
            out.push(if k == thick / 2 {
                row.clone()
            } else {
                bare.clone()
            });
        }
    }
    out.extend(rows[head + bars..].iter().cloned());
    out
}

/// The text renderer's bar rows, each series' fill pattern in its color.
fn bar_rows(panel: &Drawing, width: usize, theme: &Theme) -> Vec<RLine> {
    let lines = panel_lines(panel, width);
    let title = panel.y.title.is_some();
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let text_style = if i == 0 && title {
                theme.muted()
            } else {
                theme.text()
            };
            let mut pieces: Vec<(String, Style)> = Vec::new();
            for c in line.chars() {
                let style = match FILLS.iter().position(|f| *f == c) {
                    Some(s) => theme.series(s),
                    None => text_style,
                };
                match pieces.last_mut() {
                    Some((text, last)) if *last == style => text.push(c),
                    _ => pieces.push((c.to_string(), style)),
                }
            }
            RLine {
                pieces: pieces.into_iter().map(|(t, s)| piece(t, s)).collect(),
            }
        })
        .collect()
}

/// Points of an area, filled: the line between its points sampled densely, each sample drawn as
/// a bar down to the axis.
fn filled(points: &[(f64, f64)], samples: usize) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for pair in points.windows(2) {
        let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
        for k in 0..samples {
            let t = k as f64 / samples as f64;
            out.push((x0 + (x1 - x0) * t, y0 + (y1 - y0) * t));
        }
    }
    out.extend(points.last().copied());
    out
}

/// Each series' points, stacked on the ones before it when the panel stacks (its y is the running
/// total at that category).
fn stacked_points(panel: &Drawing) -> Vec<Vec<(f64, f64)>> {
    if !panel.stacked {
        return panel.series.iter().map(|s| s.points.clone()).collect();
    }
    let mut totals = vec![0.0; panel.categories().len()];
    panel
        .series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .map(|&(x, y)| match totals.get_mut(x as usize) {
                    Some(total) => {
                        *total += y;
                        (x, *total)
                    }
                    None => (x, y),
                })
                .collect()
        })
        .collect()
}

/// Markers: braille lines and dots in color; without colors one shape per series (the legend
/// names it).
fn marker(series: usize, mark: Mark, no_color: bool) -> (Marker, Option<char>) {
    match (no_color, mark) {
        // Areas are filled: whole cells, a fill pattern per series without colors.
        (true, Mark::Area) => {
            let glyph = FILLS[series % FILLS.len()];
            (Marker::Custom(glyph), Some(glyph))
        }
        (false, Mark::Area) => (Marker::Block, None),
        (true, _) => {
            let glyph = MARKERS[series % MARKERS.len()];
            (Marker::Custom(glyph), Some(glyph))
        }
        (false, Mark::Point) => (Marker::Dot, None),
        (false, _) => (Marker::Braille, None),
    }
}

/// A line, area or scatter panel as ratatui's `Chart`, `height` rows tall.
fn plot_rows(panel: &Drawing, width: usize, height: usize, theme: &Theme) -> Vec<RLine> {
    // Enough samples that a filled area leaves no column empty.
    let samples = (2 * width / panel.categories().len().max(2)).clamp(2, 200);
    let data: Vec<Vec<(f64, f64)>> = stacked_points(panel)
        .iter()
        .zip(&panel.series)
        .map(|(points, s)| match s.mark {
            Mark::Area => filled(points, samples),
            _ => points.clone(),
        })
        .collect();
    let datasets = datasets(panel, &data, theme);
    let (x_lo, x_hi) = panel.x_bounds();
    // Points on a numeric axis keep off its ends.
    let (x_lo, x_hi) = match panel.domain {
        Domain::Numbers => (x_lo - (x_hi - x_lo) * 0.05, x_hi + (x_hi - x_lo) * 0.05),
        Domain::Categories(_) => (x_lo, x_hi),
    };
    let (y_lo, y_hi) = panel.y_bounds();
    let pad = (y_hi - y_lo) * 0.05;
    let (y_lo, y_hi) = match panel.mark {
        Mark::Bar | Mark::Area if y_lo >= 0.0 => (0.0, y_hi + pad),
        _ => (y_lo - pad, y_hi + pad),
    };
    let unit = panel.y.unit.as_deref();
    let y_labels = [y_lo, (y_lo + y_hi) / 2.0, y_hi]
        .map(|v| Span::styled(format_value(v, unit), theme.muted()));
    let x_labels = x_labels(panel, width, theme);
    let axis_title = |title: &Option<String>| {
        title
            .as_deref()
            .map(|t| Line::styled(clean(t), theme.muted()))
            .unwrap_or_default()
    };
    let chart = Chart::new(datasets)
        .style(theme.text())
        .x_axis(
            Axis::default()
                .bounds([x_lo, x_hi])
                .labels(x_labels)
                .title(axis_title(&panel.x.title))
                .style(theme.muted()),
        )
        .y_axis(
            Axis::default()
                .bounds([y_lo, y_hi])
                .labels(y_labels)
                .title(axis_title(&panel.y.title))
                .style(theme.muted()),
        )
        .legend_position(Some(LegendPosition::TopLeft))
        .hidden_legend_constraints((Constraint::Percentage(70), Constraint::Percentage(70)));
    let area = Rect::new(0, 0, width as u16, height.max(6) as u16);
    let mut buffer = Buffer::empty(area);
    chart.render(area, &mut buffer);
    buffer_rows(&buffer)
}

/// One dataset per series of `panel`, over its points `data`: its marker, its style, and (with a
/// legend) its name.
fn datasets<'a>(panel: &Drawing, data: &'a [Vec<(f64, f64)>], theme: &Theme) -> Vec<Dataset<'a>> {
    let named = panel.has_legend();
    let mut datasets: Vec<Dataset<'a>> = panel
        .series
        .iter()
        .zip(data)
        .enumerate()
        .map(|(i, (series, points))| {
            let (marker, glyph) = marker(i, series.mark, theme.no_color);
            let graph = match series.mark {
                Mark::Point => GraphType::Scatter,
                Mark::Area => GraphType::Bar,
                _ => GraphType::Line,
            };
            let mut dataset = Dataset::default()
                .marker(marker)
                .graph_type(graph)
                .style(theme.series(i))
                .data(points);
            if named {
                let name = clean(series.name.as_deref().unwrap_or(""));
                let name = match glyph {
                    Some(glyph) => format!("{glyph} {name}"),
                    None => name,
                };
                dataset = dataset.name(name);
            }
            dataset
        })
        .collect();
    if panel.stacked {
        // The top of the stack first: each lower series is drawn over the one above it.
        datasets.reverse();
    }
    datasets
}

/// The x axis labels: the first, middle and last category (or value), cut to fit.
fn x_labels<'a>(panel: &Drawing, width: usize, theme: &Theme) -> Vec<Span<'a>> {
    let labels: Vec<String> = match &panel.domain {
        Domain::Categories(names) => {
            let picked: Vec<&String> = match names.len() {
                0..=3 => names.iter().collect(),
                n => vec![&names[0], &names[n / 2], &names[n - 1]],
            };
            picked.into_iter().map(|n| clean(n)).collect()
        }
        Domain::Numbers => {
            let (lo, hi) = panel.x_bounds();
            let unit = panel.x.unit.as_deref();
            vec![
                format_value(lo, unit),
                format_value((lo + hi) / 2.0, unit),
                format_value(hi, unit),
            ]
        }
    };
    let room = (width / labels.len().max(1)).saturating_sub(2).max(4);
    labels
        .into_iter()
        .map(|l| Span::styled(truncate(&l, room), theme.muted()))
        .collect()
}

/// A drawn buffer as rows: runs of cells with one style become one piece (backgrounds are left
/// to the pane).
fn buffer_rows(buffer: &Buffer) -> Vec<RLine> {
    let area = buffer.area;
    let mut rows = Vec::with_capacity(area.height as usize);
    for y in 0..area.height {
        let mut pieces: Vec<(String, Style)> = Vec::new();
        let mut skip = 0;
        for x in 0..area.width {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let cell = &buffer[(x, y)];
            let symbol = cell.symbol();
            skip = symbol.width().saturating_sub(1);
            let mut style = Style::new().add_modifier(cell.modifier);
            if cell.fg != Color::Reset {
                style = style.fg(cell.fg);
            }
            match pieces.last_mut() {
                Some((text, last)) if *last == style => text.push_str(symbol),
                _ => pieces.push((symbol.to_owned(), style)),
            }
        }
        if let Some((text, _)) = pieces.last_mut() {
            let trimmed = text.trim_end().len();
            text.truncate(trimmed);
        }
        rows.push(RLine {
            pieces: pieces.into_iter().map(|(t, s)| piece(t, s)).collect(),
        });
    }
    while rows.last().is_some_and(|r| r.text().trim().is_empty()) {
        rows.pop();
    }
    rows
}
