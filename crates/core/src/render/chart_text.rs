//! Charts as compact Unicode text for `--format text`: bars as horizontal rows (a fill pattern
//! per series, so it reads without colour), lines, areas and points as a small grid plot, each
//! sized to a width. A chart in several units is drawn as one panel per unit.

use unicode_width::UnicodeWidthStr;

use crate::model::chart::{ChartView, Domain, Drawing, Mark, format_value, interpret};
use crate::model::event::Chart;
use crate::render::cells::{pad, wrap};
use crate::render::sanitize::sanitize_line;

/// Bar fills by series: distinct without colour.
pub const FILLS: [char; 6] = ['█', '▓', '▒', '░', '▚', '▞'];
/// Point markers by series.
pub const MARKERS: [char; 8] = ['●', '○', '■', '□', '▲', '△', '◆', '◇'];
/// Narrowest width a chart is drawn at.
const MIN_WIDTH: usize = 24;
/// Rows of a grid plot.
const PLOT_ROWS: usize = 8;

/// The chart's heading (`▦ title (type)`), caption and picture, each line without a newline.
pub fn chart_lines(chart: &Chart, width: usize) -> Vec<String> {
    let width = width.max(MIN_WIDTH);
    let mut lines = vec![heading(chart)];
    if let Some(caption) = chart.caption.as_deref().filter(|c| !c.trim().is_empty()) {
        lines.extend(wrap(&sanitize_line(caption), width));
    }
    match interpret(chart) {
        ChartView::Drawn(drawing) => {
            for panel in drawing.panels() {
                lines.push(String::new());
                lines.extend(panel_lines(&panel, width));
            }
        }
        ChartView::Undrawable(why) => lines.push(format!("(not drawn: {})", sanitize_line(why))),
    }
    lines
}

/// `▦ Title (chart type)`.
pub fn heading(chart: &Chart) -> String {
    let title = chart.title.as_deref().unwrap_or("Chart");
    match chart.chart_type.as_deref().filter(|t| !t.is_empty()) {
        Some(kind) => format!("▦ {} ({})", sanitize_line(title), sanitize_line(kind)),
        None => format!("▦ {}", sanitize_line(title)),
    }
}

/// One panel (one value axis) drawn in `width` columns: its y title, the picture, the legend.
pub fn panel_lines(drawing: &Drawing, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(title) = &drawing.y.title {
        lines.push(sanitize_line(title).into_owned());
    }
    let bars = is_bar_panel(drawing);
    lines.extend(match bars {
        true => bar_lines(drawing, width),
        false => plot_lines(drawing, width),
    });
    if drawing.has_legend() {
        lines.push(legend(drawing, bars));
    }
    lines
}

/// Drawn as rows of bars (categories with bars), not as a plot.
pub fn is_bar_panel(drawing: &Drawing) -> bool {
    drawing.mark == Mark::Bar && matches!(drawing.domain, Domain::Categories(_))
}

fn legend(drawing: &Drawing, bars: bool) -> String {
    let entries: Vec<String> = drawing
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let glyph = if bars {
                FILLS[i % FILLS.len()]
            } else {
                MARKERS[i % MARKERS.len()]
            };
            format!("{glyph} {}", sanitize_line(s.name.as_deref().unwrap_or("")))
        })
        .collect();
    entries.join("   ")
}

/// One row per category (stacked: its series one after the other) or per category and series
/// (grouped), the value after the bar.
fn bar_lines(drawing: &Drawing, width: usize) -> Vec<String> {
    let unit = drawing.y.unit.as_deref();
    let labels: Vec<String> = drawing
        .categories()
        .iter()
        .map(|c| sanitize_line(c).into_owned())
        .collect();
    let label_w = labels
        .iter()
        .map(|l| l.width())
        .max()
        .unwrap_or(0)
        .min(width / 3);
    let (lo, hi) = drawing.y_bounds();
    let span = hi.max(0.0) - lo.min(0.0);
    let values: Vec<String> = match drawing.stacked {
        true => drawing
            .stack_totals()
            .iter()
            .map(|t| format_value(t.0 + t.1, unit))
            .collect(),
        false => (0..drawing.series.len())
            .flat_map(|s| (0..labels.len()).map(move |c| (s, c)))
            .filter_map(|(s, c)| drawing.value_at(s, c).map(|v| format_value(v, unit)))
            .collect(),
    };
    let value_w = values.iter().map(|v| v.width()).max().unwrap_or(0);
    let bar_w = width.saturating_sub(label_w + value_w + 2).max(4);
    let cells = |v: f64| ((v.abs() / span.max(f64::MIN_POSITIVE)) * bar_w as f64).round() as usize;
    let mut lines = Vec::new();
    for (c, label) in labels.iter().enumerate() {
        if drawing.stacked {
            let mut bar = String::new();
            for (s, _) in drawing.series.iter().enumerate() {
                let n = drawing.value_at(s, c).map_or(0, cells);
                bar.extend(std::iter::repeat_n(FILLS[s % FILLS.len()], n));
            }
            let total = drawing.stack_totals().get(c).map_or(0.0, |t| t.0 + t.1);
            lines.push(bar_row(
                &pad(label, label_w, false),
                &bar,
                bar_w,
                &format_value(total, unit),
            ));
            continue;
        }
        for (s, _) in drawing.series.iter().enumerate() {
            let Some(v) = drawing.value_at(s, c) else {
                continue;
            };
            let bar: String =
                std::iter::repeat_n(FILLS[s % FILLS.len()], cells(v).max(1)).collect();
            let shown = if s == 0 || drawing.series.len() == 1 {
                label.as_str()
            } else {
                ""
            };
            lines.push(bar_row(
                &pad(shown, label_w, false),
                &bar,
                bar_w,
                &format_value(v, unit),
            ));
        }
    }
    lines
}

fn bar_row(label: &str, bar: &str, bar_w: usize, value: &str) -> String {
    let bar: String = bar.chars().take(bar_w).collect();
    format!("{label} {bar} {value}").trim_end().to_owned()
}

/// A grid plot: the y range on the left, points mapped to columns, lines joined by dots and
/// areas filled below; the first and last x labels under it.
fn plot_lines(drawing: &Drawing, width: usize) -> Vec<String> {
    let unit = drawing.y.unit.as_deref();
    let (lo, hi) = drawing.y_bounds();
    let top = format_value(hi, unit);
    let bottom = format_value(lo, unit);
    let axis_w = top.width().max(bottom.width());
    let plot_w = width.saturating_sub(axis_w + 2).max(8);
    let (x_lo, x_hi) = drawing.x_bounds();
    let column = |x: f64| (((x - x_lo) / (x_hi - x_lo)) * (plot_w - 1) as f64).round() as usize;
    let row = |y: f64| (((y - lo) / (hi - lo)) * (PLOT_ROWS - 1) as f64).round() as usize;
    let mut grid = vec![vec![' '; plot_w]; PLOT_ROWS];
    for (s, series) in drawing.series.iter().enumerate() {
        let marker = MARKERS[s % MARKERS.len()];
        for pair in series.points.windows(2) {
            let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
            let (c0, c1) = (column(x0), column(x1));
            for c in c0..=c1 {
                let t = if c1 == c0 {
                    0.0
                } else {
                    (c - c0) as f64 / (c1 - c0) as f64
                };
                let r = row(y0 + (y1 - y0) * t).min(PLOT_ROWS - 1);
                match series.mark {
                    Mark::Point => {}
                    Mark::Area => (0..r).for_each(|below| put(&mut grid, below, c, '░')),
                    _ => {}
                }
                if series.mark != Mark::Point {
                    put(&mut grid, r, c, '·');
                }
            }
        }
        for &(x, y) in &series.points {
            let (r, c) = (row(y).min(PLOT_ROWS - 1), column(x).min(plot_w - 1));
            grid[r][c] = marker;
        }
    }
    let mut lines = Vec::new();
    for (r, cells) in grid.iter().enumerate().rev() {
        let label = match r {
            r if r == PLOT_ROWS - 1 => top.as_str(),
            0 => bottom.as_str(),
            _ => "",
        };
        let text: String = cells.iter().collect();
        lines.push(format!("{label:>axis_w$} ┤{}", text.trim_end()));
    }
    lines.push(format!("{} └{}", " ".repeat(axis_w), "─".repeat(plot_w)));
    lines.push(x_labels(drawing, axis_w + 2, plot_w));
    lines
}

/// A cell keeps what is already drawn there unless it is empty or an area's fill.
fn put(grid: &mut [Vec<char>], r: usize, c: usize, glyph: char) {
    if let Some(cell) = grid.get_mut(r).and_then(|row| row.get_mut(c))
        && matches!(*cell, ' ' | '░')
    {
        *cell = glyph;
    }
}

/// The first and last x labels at the plot's ends (and the x title between them when it fits).
fn x_labels(drawing: &Drawing, indent: usize, plot_w: usize) -> String {
    let unit = drawing.x.unit.as_deref();
    let (first, last) = match &drawing.domain {
        Domain::Categories(labels) => (
            labels.first().cloned().unwrap_or_default(),
            labels.last().cloned().unwrap_or_default(),
        ),
        Domain::Numbers => {
            let (lo, hi) = drawing.x_bounds();
            (format_value(lo, unit), format_value(hi, unit))
        }
    };
    let (first, last) = (sanitize_line(&first), sanitize_line(&last));
    let title = drawing
        .x
        .title
        .as_deref()
        .map(sanitize_line)
        .unwrap_or_default();
    let room = plot_w.saturating_sub(first.width() + last.width());
    let middle = if title.width() + 2 <= room {
        let pad = room - title.width();
        format!(
            "{}{title}{}",
            " ".repeat(pad / 2),
            " ".repeat(pad - pad / 2)
        )
    } else {
        " ".repeat(room)
    };
    format!("{}{first}{middle}{last}", " ".repeat(indent))
        .trim_end()
        .to_owned()
}
