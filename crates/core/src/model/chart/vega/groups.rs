//! Grouping a view's rows into categories and series: each (x, series) pair's values in order of
//! first appearance, reduced by the encoding's aggregate, ordered as `sort` asks, and normalised
//! for `stack: normalize`.

use std::collections::HashMap;

use serde_json::Value;

use super::*;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum XKey {
    Label(String),
    Number(u64),
}

/// The values of each (x, series) pair, in order of first appearance.
#[derive(Default)]
pub(super) struct Groups {
    index: HashMap<(XKey, String), usize>,
    pub(super) cells: Vec<((XKey, String), Vec<f64>)>,
}

impl Groups {
    pub(super) fn keys(&self) -> Vec<String> {
        unique(self.cells.iter().filter_map(|((x, _), _)| match x {
            XKey::Label(label) => Some(label.clone()),
            XKey::Number(_) => None,
        }))
    }

    pub(super) fn series(&self) -> Vec<String> {
        unique(self.cells.iter().map(|((_, s), _)| s.clone()))
    }

    /// The sum of every value at each category (for sorting by value).
    pub(super) fn totals(&self) -> HashMap<&str, f64> {
        let mut totals: HashMap<&str, f64> = HashMap::new();
        for ((x, _), values) in &self.cells {
            if let XKey::Label(label) = x {
                *totals.entry(label).or_default() += values.iter().sum::<f64>();
            }
        }
        totals
    }
}

pub(super) fn unique(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    items.filter(|item| seen.insert(item.clone())).collect()
}

pub(super) fn group(
    view: &View,
    key: &Channel,
    value: &Channel,
    numeric: bool,
    series: Option<&str>,
) -> Result<Groups, String> {
    let mut groups = Groups::default();
    view.rows.for_each(|row: &Row| {
        let Some(raw) = key.field.and_then(|name| row.field(name)) else {
            return;
        };
        let x = match numeric {
            true => match number(raw) {
                Some(n) => XKey::Number(n.to_bits()),
                None => return,
            },
            false => XKey::Label(label(raw)),
        };
        let y = match value.field {
            None => 1.0,
            Some(name) => match row.field(name).and_then(number) {
                Some(y) => y,
                None => return,
            },
        };
        let name = series
            .map(|name| row.field(name).map_or_else(|| "null".into(), label))
            .unwrap_or_default();
        let cell = (x, name);
        let slot = *groups.index.entry(cell.clone()).or_insert_with(|| {
            groups.cells.push((cell, Vec::new()));
            groups.cells.len() - 1
        });
        groups.cells[slot].1.push(y);
    });
    if groups.cells.is_empty() {
        return Err("no data value could be read for its encoding".into());
    }
    Ok(groups)
}

/// Several values at one place: the channel's aggregate, else their sum for bars and areas
/// (Vega-Lite stacks them) and the last one otherwise.
pub(super) fn reduce(aggregate: Option<&str>, mark: Mark, values: &[f64]) -> Result<f64, String> {
    let sum: f64 = values.iter().sum();
    let n = values.len() as f64;
    let last = values.last().copied().unwrap_or_default();
    Ok(match aggregate {
        Some("sum") => sum,
        Some("mean" | "average") => sum / n,
        Some("count" | "valid") => n,
        Some("min") => values.iter().copied().fold(f64::INFINITY, f64::min),
        Some("max") => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Some("median") => {
            let mut sorted = values.to_vec();
            sorted.sort_by(f64::total_cmp);
            let mid = sorted.len() / 2;
            match sorted.len() % 2 {
                0 => (sorted[mid - 1] + sorted[mid]) / 2.0,
                _ => sorted[mid],
            }
        }
        Some(other) => return Err(format!("the aggregate `{other}` is not drawn")),
        None if matches!(mark, Mark::Bar | Mark::Area) => sum,
        None => last,
    })
}

/// Labels in display order per Vega-Lite's `sort`: `null` keeps the data's order, a list puts
/// its labels first, `"descending"` reverses, a value sort (`"-y"`, `{"op": …}`) orders by each
/// label's total, and the default is ascending (numerically when every label is a number).
pub(super) fn order(labels: Vec<String>, sort: Option<&Value>, groups: &Groups) -> Vec<String> {
    let mut labels = labels;
    let ascending = |labels: &mut Vec<String>| {
        let numbers: Option<Vec<f64>> = labels.iter().map(|l| l.trim().parse().ok()).collect();
        match numbers {
            Some(_) => labels.sort_by(|a, b| {
                let n = |s: &String| s.trim().parse::<f64>().unwrap_or_default();
                n(a).total_cmp(&n(b))
            }),
            None => labels.sort(),
        }
    };
    match sort {
        Some(Value::Null) => {}
        Some(Value::Array(wanted)) => {
            let mut rank: HashMap<String, usize> = HashMap::new();
            for (i, w) in wanted.iter().enumerate() {
                rank.entry(label_of(w)).or_insert(i);
            }
            labels.sort_by_key(|l| rank.get(l).copied().unwrap_or(usize::MAX));
        }
        Some(Value::String(s)) if s == "descending" => {
            ascending(&mut labels);
            labels.reverse();
        }
        Some(Value::String(s)) if s == "ascending" => ascending(&mut labels),
        Some(Value::String(s)) => by_total(&mut labels, groups, s.starts_with('-')),
        Some(Value::Object(by)) => {
            let descending = by.get("order").and_then(Value::as_str) == Some("descending");
            by_total(&mut labels, groups, descending);
        }
        Some(_) => {}
        None => ascending(&mut labels),
    }
    labels
}

pub(super) fn by_total(labels: &mut [String], groups: &Groups, descending: bool) {
    let totals = groups.totals();
    let total = |label: &String| totals.get(label.as_str()).copied().unwrap_or_default();
    labels.sort_by(|a, b| total(a).total_cmp(&total(b)));
    if descending {
        labels.reverse();
    }
}

/// Each category's values as shares of its total (percent).
pub(super) fn normalise(series: &mut [NamedPoints], categories: usize) {
    let mut totals = vec![0.0; categories];
    for (_, points) in series.iter() {
        for &(x, y) in points {
            if let Some(total) = totals.get_mut(x as usize) {
                *total += y.abs();
            }
        }
    }
    for (_, points) in series.iter_mut() {
        for (x, y) in points.iter_mut() {
            let total = totals.get(*x as usize).copied().unwrap_or_default();
            *y = if total > 0.0 { *y / total * 100.0 } else { 0.0 };
        }
    }
}
