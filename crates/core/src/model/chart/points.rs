//! A CHART's `data_points`, when its spec cannot be drawn: rows of objects (a label field and
//! one series per numeric field, or a `series` field naming each row's series), `[x, y]` pairs,
//! or an object of label → number. The mark comes from the `chart_type`.

use serde_json::value::RawValue;

use super::data::{Cell, FirstRows, fields_of};
use super::format::{label_of, number_of};
use super::{Axis, Domain, Drawing, MAX_CATEGORIES, MAX_ROWS, MAX_SERIES, Mark, Series};

/// Field names that label a point, in order of preference.
const LABELS: [&str; 10] = [
    "label", "x", "category", "name", "period", "date", "quarter", "year", "segment", "company",
];
/// Field names that name a point's series.
const SERIES: [&str; 4] = ["series", "group", "metric", "key"];
/// Most fields of a point read (a point has a label, a series and a few values).
const MAX_FIELDS: usize = 64;

/// A point's fields, values borrowed from the data points' text.
struct Point<'a>(Vec<(String, Cell<'a>)>);

impl<'a> Point<'a> {
    fn get(&self, key: &str) -> Option<Cell<'a>> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| *v)
    }

    fn text(&self, key: &str) -> Option<String> {
        self.get(key).map(|cell| label_of(&cell.value()))
    }

    fn number(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(|cell| number_of(&cell.value()))
    }

    fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }
}

pub(super) fn interpret(points: &RawValue, hint: Option<(Mark, bool)>) -> Result<Drawing, String> {
    let text = points.get();
    let pairs;
    let rows: Vec<Point> = if text.starts_with('[') {
        let items: FirstRows =
            serde_json::from_str(text).map_err(|_| "its data points are not a list")?;
        items.0.into_iter().map(row_of).collect()
    } else if text.starts_with('{') {
        pairs = fields_of(points);
        pairs
            .iter()
            .take(MAX_ROWS)
            .map(|(k, v)| {
                Point(vec![
                    ("label".into(), Cell::Name(k)),
                    ("y".into(), Cell::Raw(v)),
                ])
            })
            .collect()
    } else {
        return Err("its data points are not a list".into());
    };
    let (mark, stacked) = hint.unwrap_or((Mark::Bar, false));
    let label = label_key(&rows);
    let series_key = SERIES.iter().copied().find(|key| {
        label != Some(*key) && rows.iter().any(|r| r.get(key).is_some_and(Cell::is_string))
    });
    let numeric_keys = numeric_keys(&rows, label, series_key);
    if numeric_keys.is_empty() {
        return Err("its data points hold no numbers".into());
    }
    let mut drawing = match label {
        Some(label) => by_label(&rows, label, series_key, &numeric_keys, mark),
        None => by_number(&rows, &numeric_keys, mark),
    };
    drawing.stacked = stacked && drawing.series.len() > 1;
    drawing.series.truncate(MAX_SERIES);
    if drawing.series.iter().all(|s| s.points.is_empty()) {
        return Err("no data point could be read".into());
    }
    Ok(drawing)
}

/// An item as a point: an object's fields, `[x, y]` as `{x, y}`, anything else as `{y}`.
fn row_of(item: &RawValue) -> Point<'_> {
    let text = item.get();
    if text.starts_with('{') {
        let mut fields = fields_of(item);
        fields.truncate(MAX_FIELDS);
        return Point(fields.into_iter().map(|(k, v)| (k, Cell::Raw(v))).collect());
    }
    if text.starts_with('[')
        && let Ok(items) = serde_json::from_str::<FirstRows>(text)
        && items.0.len() >= 2
    {
        return Point(vec![
            ("x".into(), Cell::Raw(items.0[0])),
            ("y".into(), Cell::Raw(items.0[1])),
        ]);
    }
    Point(vec![("y".into(), Cell::Raw(item))])
}

/// The field that labels the points: a preferred name holding text, else the first field
/// holding text.
fn label_key<'r>(rows: &'r [Point]) -> Option<&'r str> {
    let texty = |key: &str| rows.iter().any(|r| r.get(key).is_some_and(Cell::is_string));
    let first = rows.first()?;
    LABELS
        .iter()
        .copied()
        .find(|key| first.get(key).is_some() && texty(key))
        .or_else(|| first.keys().find(|key| texty(key) && !SERIES.contains(key)))
}

/// The fields holding numbers, in order of first appearance (one more than the series drawn:
/// the first may be the x axis).
fn numeric_keys(rows: &[Point], label: Option<&str>, series: Option<&str>) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for row in rows {
        for (key, value) in &row.0 {
            let own = Some(key.as_str()) == label || Some(key.as_str()) == series;
            if !own
                && keys.len() <= MAX_SERIES
                && !keys.contains(key)
                && number_of(&value.value()).is_some()
            {
                keys.push(key.clone());
            }
        }
    }
    keys
}

fn by_label(
    rows: &[Point],
    label: &str,
    series_key: Option<&str>,
    numeric: &[String],
    mark: Mark,
) -> Drawing {
    let mut categories: Vec<String> = Vec::new();
    let mut series: Vec<Series> = Vec::new();
    let several = numeric.len() > 1 || series_key.is_some();
    for row in rows {
        let Some(at) = row.text(label) else {
            continue;
        };
        let x = match categories.iter().position(|c| *c == at) {
            Some(x) => x,
            None if categories.len() < MAX_CATEGORIES => {
                categories.push(at);
                categories.len() - 1
            }
            None => continue,
        };
        for key in numeric {
            let Some(y) = row.number(key) else {
                continue;
            };
            let name = match series_key.and_then(|s| row.text(s)) {
                Some(name) if numeric.len() == 1 => name,
                Some(name) => format!("{name} {key}"),
                None => key.clone(),
            };
            push_point(&mut series, several.then_some(name), mark, (x as f64, y));
        }
    }
    Drawing {
        mark,
        stacked: false,
        x: Axis {
            title: Some(label.to_owned()),
            unit: None,
        },
        y: Axis {
            title: (numeric.len() == 1).then(|| numeric[0].clone()),
            unit: None,
        },
        domain: Domain::Categories(categories),
        series,
    }
}

fn by_number(rows: &[Point], numeric: &[String], mark: Mark) -> Drawing {
    let x_key = numeric.first().cloned().unwrap_or_default();
    let mut series: Vec<Series> = Vec::new();
    let several = numeric.len() > 2;
    for row in rows {
        let Some(x) = row.number(&x_key) else {
            continue;
        };
        for key in &numeric[1..] {
            if let Some(y) = row.number(key) {
                push_point(&mut series, several.then(|| key.clone()), mark, (x, y));
            }
        }
    }
    for s in &mut series {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    Drawing {
        mark: if mark == Mark::Bar { Mark::Point } else { mark },
        stacked: false,
        x: Axis {
            title: Some(x_key),
            unit: None,
        },
        y: Axis {
            title: numeric.get(1).filter(|_| !several).cloned(),
            unit: None,
        },
        domain: Domain::Numbers,
        series,
    }
}

fn push_point(series: &mut Vec<Series>, name: Option<String>, mark: Mark, point: (f64, f64)) {
    match series.iter().position(|s| s.name == name) {
        Some(at) => series[at].points.push(point),
        None if series.len() >= MAX_SERIES => {}
        None => series.push(Series {
            name,
            mark,
            axis: Axis::default(),
            points: vec![point],
        }),
    }
}
