//! A CHART's `data_points`, when its spec cannot be drawn: rows of objects (a label field and
//! one series per numeric field, or a `series` field naming each row's series), `[x, y]` pairs,
//! or an object of label → number. The mark comes from the `chart_type`.

use serde_json::{Map, Value};

use super::format::{label_of, number_of};
use super::{Axis, Domain, Drawing, MAX_CATEGORIES, MAX_ROWS, MAX_SERIES, Mark, Series};

/// Field names that label a point, in order of preference.
const LABELS: [&str; 10] = [
    "label", "x", "category", "name", "period", "date", "quarter", "year", "segment", "company",
];
/// Field names that name a point's series.
const SERIES: [&str; 4] = ["series", "group", "metric", "key"];

pub(super) fn interpret(points: &Value, hint: Option<(Mark, bool)>) -> Result<Drawing, String> {
    let rows: Vec<Map<String, Value>> = match points {
        Value::Array(items) => items.iter().take(MAX_ROWS).map(row_of).collect(),
        Value::Object(map) => map
            .iter()
            .take(MAX_ROWS)
            .map(|(k, v)| {
                Map::from_iter([("label".into(), k.as_str().into()), ("y".into(), v.clone())])
            })
            .collect(),
        _ => return Err("its data points are not a list".into()),
    };
    let (mark, stacked) = hint.unwrap_or((Mark::Bar, false));
    let label = label_key(&rows);
    let series_key = SERIES.iter().copied().find(|key| {
        label != Some(*key)
            && rows
                .iter()
                .any(|r| r.get(*key).is_some_and(Value::is_string))
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

/// An item as a row: an object as it is, `[x, y]` as `{x, y}`.
fn row_of(item: &Value) -> Map<String, Value> {
    match item {
        Value::Object(row) => row.clone(),
        Value::Array(pair) if pair.len() >= 2 => {
            Map::from_iter([("x".into(), pair[0].clone()), ("y".into(), pair[1].clone())])
        }
        other => Map::from_iter([("y".into(), other.clone())]),
    }
}

/// The field that labels the points: a preferred name holding text, else the first field
/// holding text.
fn label_key(rows: &[Map<String, Value>]) -> Option<&str> {
    let texty = |key: &str| {
        rows.iter()
            .any(|r| r.get(key).is_some_and(|v| v.is_string()))
    };
    let first = rows.first()?;
    LABELS
        .iter()
        .copied()
        .find(|key| first.contains_key(*key) && texty(key))
        .or_else(|| {
            first
                .keys()
                .map(String::as_str)
                .find(|key| texty(key) && !SERIES.contains(key))
        })
}

fn numeric_keys(
    rows: &[Map<String, Value>],
    label: Option<&str>,
    series: Option<&str>,
) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for row in rows {
        for (key, value) in row {
            let own = Some(key.as_str()) == label || Some(key.as_str()) == series;
            if !own && number_of(value).is_some() && !keys.contains(key) {
                keys.push(key.clone());
            }
        }
    }
    keys
}

fn by_label(
    rows: &[Map<String, Value>],
    label: &str,
    series_key: Option<&str>,
    numeric: &[String],
    mark: Mark,
) -> Drawing {
    let mut categories: Vec<String> = Vec::new();
    let mut series: Vec<Series> = Vec::new();
    let several = numeric.len() > 1 || series_key.is_some();
    for row in rows {
        let Some(at) = row.get(label).map(label_of) else {
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
            let Some(y) = row.get(key).and_then(number_of) else {
                continue;
            };
            let name = match series_key.and_then(|s| row.get(s)) {
                Some(name) if numeric.len() == 1 => label_of(name),
                Some(name) => format!("{} {key}", label_of(name)),
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

fn by_number(rows: &[Map<String, Value>], numeric: &[String], mark: Mark) -> Drawing {
    let x_key = numeric.first().cloned().unwrap_or_default();
    let mut series: Vec<Series> = Vec::new();
    let several = numeric.len() > 2;
    for row in rows {
        let Some(x) = row.get(&x_key).and_then(number_of) else {
            continue;
        };
        for key in &numeric[1..] {
            if let Some(y) = row.get(key).and_then(number_of) {
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
    match series.iter_mut().find(|s| s.name == name) {
        Some(s) => s.points.push(point),
        None => series.push(Series {
            name,
            mark,
            axis: Axis::default(),
            points: vec![point],
        }),
    }
}
