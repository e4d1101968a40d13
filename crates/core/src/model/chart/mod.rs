//! What can be drawn of a chart: a neutral drawing (series of values over categories or numbers,
//! with axis titles and units) read from the chart's Vega-Lite spec ([`vega`]) or, failing that,
//! from its `data_points` ([`points`]). Anything outside the subset understood becomes
//! [`ChartView::Undrawable`] with the reason: the displays then show the title, caption and type,
//! never a wrong picture. Nothing here panics on any JSON.

mod data;
mod format;
mod points;
mod vega;

#[cfg(test)]
mod tests;

pub use format::{format_value, label_of};

use crate::model::event::Chart;

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Bar,
    Line,
    Area,
    Point,
}

impl Mark {
    /// A Vega-Lite mark type (or a `chart_type` word) this can draw.
    pub fn parse(name: &str) -> Option<Mark> {
        match name.to_ascii_lowercase().as_str() {
            "bar" | "column" | "histogram" => Some(Mark::Bar),
            "line" | "trail" => Some(Mark::Line),
            "area" => Some(Mark::Area),
            "point" | "circle" | "square" | "scatter" | "tick" => Some(Mark::Point),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mark::Bar => "bar",
            Mark::Line => "line",
            Mark::Area => "area",
            Mark::Point => "scatter",
        }
    }
}

/// An axis: its title and the unit its values are in (`$B`, `%`), when known.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Axis {
    pub title: Option<String>,
    pub unit: Option<String>,
}

/// What the x axis holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Domain {
    /// Discrete labels in display order; a point's x is an index into them.
    Categories(Vec<String>),
    /// Numbers: a point's x is its value.
    Numbers,
}

/// One named series of `(x, y)` points (x: a category index or a number), in x order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// `None` for the only series of a chart without a legend.
    pub name: Option<String>,
    pub mark: Mark,
    /// The value axis this series is read on (layers may each have their own: `$B` and `%`).
    pub axis: Axis,
    pub points: Vec<(f64, f64)>,
}

/// A chart that can be drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawing {
    /// The first series' mark: what kind of chart this is.
    pub mark: Mark,
    /// Bars (or areas) of several series are stacked on each other rather than side by side.
    pub stacked: bool,
    pub x: Axis,
    pub y: Axis,
    pub domain: Domain,
    pub series: Vec<Series>,
}

impl Drawing {
    /// The category labels (empty for a numeric x axis).
    pub fn categories(&self) -> &[String] {
        match &self.domain {
            Domain::Categories(labels) => labels,
            Domain::Numbers => &[],
        }
    }

    /// The smallest and largest value the y axis must show: 0 is always included for bars and
    /// areas (they grow from it), stacked totals for stacked charts.
    pub fn y_bounds(&self) -> (f64, f64) {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        let mut see = |v: f64| {
            lo = lo.min(v);
            hi = hi.max(v);
        };
        if self.stacked {
            for (pos, neg) in self.stack_totals() {
                see(pos);
                see(neg);
            }
        }
        for series in &self.series {
            for &(_, y) in &series.points {
                see(y);
            }
        }
        if matches!(self.mark, Mark::Bar | Mark::Area) {
            see(0.0);
        }
        if !lo.is_finite() {
            return (0.0, 1.0);
        }
        if lo == hi {
            return (lo - 1.0, hi + 1.0);
        }
        (lo, hi)
    }

    /// The x range of a numeric axis (or of the category indices).
    pub fn x_bounds(&self) -> (f64, f64) {
        if let Domain::Categories(labels) = &self.domain {
            return (0.0, labels.len().saturating_sub(1).max(1) as f64);
        }
        let xs = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0));
        let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
        match (lo.is_finite(), lo == hi) {
            (false, _) => (0.0, 1.0),
            (true, true) => (lo - 1.0, hi + 1.0),
            (true, false) => (lo, hi),
        }
    }

    /// Per category: the sum of the positive values and of the negative ones (stacked bars).
    pub fn stack_totals(&self) -> Vec<(f64, f64)> {
        let mut totals = vec![(0.0, 0.0); self.categories().len()];
        for series in &self.series {
            for &(x, y) in &series.points {
                if let Some(total) = totals.get_mut(x as usize) {
                    if y >= 0.0 {
                        total.0 += y;
                    } else {
                        total.1 += y;
                    }
                }
            }
        }
        totals
    }

    /// Series `s`'s value at category `c`, if it has one.
    pub fn value_at(&self, s: usize, c: usize) -> Option<f64> {
        let series = self.series.get(s)?;
        series
            .points
            .iter()
            .find(|(x, _)| *x as usize == c)
            .map(|p| p.1)
    }

    /// A legend is needed: several series, or one with a name.
    pub fn has_legend(&self) -> bool {
        self.series.len() > 1
    }

    /// The chart as panels sharing its x axis, one per value axis: series in different units
    /// (revenue in `$B` and margin in `%`) are never drawn on one scale. Usually one panel.
    pub fn panels(&self) -> Vec<Drawing> {
        let mut panels: Vec<Drawing> = Vec::new();
        for series in &self.series {
            match panels.iter_mut().find(|p| p.y.unit == series.axis.unit) {
                Some(panel) => {
                    panel.series.push(series.clone());
                    if panel.y.title != series.axis.title {
                        panel.y.title = panel.y.title.take().filter(|_| panel.series.len() < 2);
                    }
                }
                None => panels.push(Drawing {
                    mark: series.mark,
                    stacked: false,
                    x: self.x.clone(),
                    y: series.axis.clone(),
                    domain: self.domain.clone(),
                    series: vec![series.clone()],
                }),
            }
        }
        if panels.len() <= 1 {
            return vec![self.clone()];
        }
        for panel in &mut panels {
            panel.stacked = self.stacked && panel.mark == self.mark && panel.series.len() > 1;
        }
        panels
    }
}

/// What the displays do with a chart.
#[derive(Debug, Clone, PartialEq)]
pub enum ChartView {
    Drawn(Drawing),
    /// Not drawable: why (shown under the title, caption and type).
    Undrawable(String),
}

/// Most series and categories drawn; a chart with more is cut to these (the spec is kept whole).
pub const MAX_SERIES: usize = 12;
pub const MAX_CATEGORIES: usize = 400;
/// Most data rows read from a spec or `data_points`.
pub const MAX_ROWS: usize = 20_000;

/// Read `chart`: its Vega-Lite spec first, then its `data_points`. Worked out once per chart
/// (clones share it): a display may ask on every frame.
pub fn interpret(chart: &Chart) -> &ChartView {
    chart.view.0.get_or_init(|| interpret_now(chart))
}

fn interpret_now(chart: &Chart) -> ChartView {
    let spec_problem = match chart.spec.as_ref().map(|spec| vega::interpret(spec.raw())) {
        Some(Ok(drawing)) => return ChartView::Drawn(drawing),
        Some(Err(why)) => Some(why),
        None => None,
    };
    let hint = chart.chart_type.as_deref().and_then(chart_type_mark);
    let points_problem = match chart
        .data_points
        .as_ref()
        .map(|p| points::interpret(p.raw(), hint))
    {
        Some(Ok(drawing)) => return ChartView::Drawn(drawing),
        Some(Err(why)) => Some(why),
        None => None,
    };
    ChartView::Undrawable(
        spec_problem
            .or(points_problem)
            .unwrap_or_else(|| "no spec and no data points".into()),
    )
}

/// A `chart_type` such as `grouped_bar`, `stacked-bar`, `line_chart`, `scatter`: its mark and
/// whether it stacks.
fn chart_type_mark(chart_type: &str) -> Option<(Mark, bool)> {
    let lower = chart_type.to_ascii_lowercase();
    let stacked = lower.contains("stack");
    lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find_map(Mark::parse)
        .map(|mark| (mark, stacked))
}
