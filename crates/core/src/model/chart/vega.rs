//! The Vega-Lite subset drawn: inline data (`data.values`, `datasets`), the `fold` transform,
//! marks bar/line/area/point (a string or an object), `encoding.x`/`y` with their field types,
//! series by `color` (stacked for bars and areas, as Vega-Lite does) or `xOffset` (grouped),
//! `stack` (`null`, `zero`, `normalize`), `sort`, simple aggregates, and `layer`s sharing an x
//! axis (text and rule layers, annotations, are left out). Anything else is refused with a reason.
//!
//! The spec is read from its text, borrowing: layers share their rows, and views, rows read and
//! encodings are bounded before any work is done, so no spec costs more than a small multiple
//! of its size in memory or time; past a bound the chart is "too large to draw".

use std::collections::HashMap;
use std::rc::Rc;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::data::{Cell, Row, Rows, rows_of, transform};
use super::format::{label_of, number_of, unit_in_title};
use super::{Axis, Domain, Drawing, MAX_CATEGORIES, MAX_ROWS, MAX_SERIES, Mark, Series};

mod groups;

use groups::{XKey, group, normalise, order, reduce};

/// Marks a layered chart may carry as annotations: left out rather than refusing the chart.
const ANNOTATIONS: [&str; 2] = ["text", "rule"];
const MAX_DEPTH: usize = 4;
/// Most views (layers with a mark) drawn in one chart.
pub(super) const MAX_VIEWS: usize = 32;
/// Most rows read over all views (each view reads at most [`MAX_ROWS`]).
const MAX_ROWS_READ: usize = 4 * MAX_ROWS;
/// Longest encoding read (parsed whole; real ones are a few hundred bytes).
const MAX_ENCODING_BYTES: usize = 64 * 1024;
/// Longest transform read (a fold names its fields; their names are kept).
const MAX_TRANSFORM_BYTES: usize = 1 << 20;
/// Longest category or series label kept.
const MAX_LABEL_CHARS: usize = 200;

/// One mark with its encoding and rows (a layer, or the whole spec).
struct View<'a> {
    mark: Mark,
    encoding: Rc<Map<String, Value>>,
    rows: Rows<'a>,
}

/// The parts of a spec (or of a layer) read, each borrowed from its text.
#[derive(Deserialize)]
struct Node<'a> {
    #[serde(borrow)]
    data: Option<&'a RawValue>,
    #[serde(borrow)]
    datasets: Option<&'a RawValue>,
    #[serde(borrow)]
    transform: Option<&'a RawValue>,
    #[serde(borrow)]
    encoding: Option<&'a RawValue>,
    #[serde(borrow)]
    layer: Option<&'a RawValue>,
    mark: Option<MarkDef>,
    facet: Option<IgnoredAny>,
    repeat: Option<IgnoredAny>,
    concat: Option<IgnoredAny>,
    hconcat: Option<IgnoredAny>,
    vconcat: Option<IgnoredAny>,
    spec: Option<IgnoredAny>,
}

/// A mark: its name, or an object with a `type`.
#[derive(Deserialize)]
#[serde(untagged)]
enum MarkDef {
    Name(String),
    Def {
        #[serde(rename = "type")]
        kind: Option<String>,
    },
}

pub(super) fn interpret(spec: &RawValue) -> Result<Drawing, String> {
    if !spec.get().starts_with('{') {
        return Err("the spec is not a JSON object".into());
    }
    let top: Node =
        serde_json::from_str(spec.get()).map_err(|e| format!("the spec cannot be read: {e}"))?;
    let composed = [
        ("facet", top.facet.is_some()),
        ("repeat", top.repeat.is_some()),
        ("concat", top.concat.is_some()),
        ("hconcat", top.hconcat.is_some()),
        ("vconcat", top.vconcat.is_some()),
        ("spec", top.spec.is_some()),
    ];
    if let Some((key, _)) = composed.iter().find(|(_, present)| *present) {
        return Err(format!("`{key}` views are not drawn"));
    }
    let mut views = Vec::new();
    let context = Context {
        datasets: top.datasets,
    };
    context.collect(&top, None, &Rc::new(Map::new()), 0, &mut views)?;
    if views.is_empty() {
        return Err("it has no mark that can be drawn".into());
    }
    let read: usize = views.iter().map(|v| v.rows.len()).sum();
    if read > MAX_ROWS_READ {
        return Err(format!(
            "chart too large to draw: {} layers over {read} rows (at most {MAX_ROWS_READ} rows are read)",
            views.len()
        ));
    }
    let plots = views.iter().map(plot).collect::<Result<Vec<_>, _>>()?;
    combine(plots)
}

struct Context<'a> {
    datasets: Option<&'a RawValue>,
}

impl<'a> Context<'a> {
    /// The views of `node` (itself, or its layers), each with the data and encoding it inherits.
    fn collect(
        &self,
        node: &Node<'a>,
        inherited: Option<&Rows<'a>>,
        encoding: &Rc<Map<String, Value>>,
        depth: usize,
        out: &mut Vec<View<'a>>,
    ) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err("its layers nest too deeply".into());
        }
        let rows = match node.data.filter(|d| d.get() != "null") {
            Some(data) => Some(rows_of(data, self.datasets)?),
            None => inherited.cloned(),
        };
        let rows = match rows {
            Some(rows) => Some(transform(
                rows,
                bounded(node.transform, "transform", MAX_TRANSFORM_BYTES)?,
            )?),
            None => None,
        };
        let encoding = match bounded(node.encoding, "encoding", MAX_ENCODING_BYTES)? {
            Some(own) => {
                let own: Map<String, Value> =
                    serde_json::from_str(own.get()).map_err(|_| "its encoding is not an object")?;
                let mut merged = (**encoding).clone();
                merged.extend(own);
                Rc::new(merged)
            }
            None => Rc::clone(encoding),
        };
        if let Some(layers) = node.layer {
            let layers: Vec<&RawValue> =
                serde_json::from_str(layers.get()).map_err(|_| "its layer is not a list")?;
            if layers.len() > MAX_VIEWS {
                return Err(format!(
                    "chart too large to draw: {} layers (at most {MAX_VIEWS} are drawn)",
                    layers.len()
                ));
            }
            if out.len() + layers.len() > MAX_VIEWS {
                return Err(format!(
                    "chart too large to draw: more than {MAX_VIEWS} layers in all"
                ));
            }
            for layer in layers {
                let layer: Node = serde_json::from_str(layer.get())
                    .map_err(|_| "one of its layers is not an object")?;
                self.collect(&layer, rows.as_ref(), &encoding, depth + 1, out)?;
            }
            return Ok(());
        }
        let name = match &node.mark {
            Some(MarkDef::Name(name)) => name.as_str(),
            Some(MarkDef::Def { kind }) => kind.as_deref().unwrap_or(""),
            None => return Err("it has no mark".into()),
        };
        let Some(mark) = Mark::parse(name) else {
            if depth > 0 && ANNOTATIONS.contains(&name) {
                return Ok(());
            }
            return Err(format!("the mark `{name}` is not drawn"));
        };
        let rows = rows.ok_or("it has no inline data")?;
        out.push(View {
            mark,
            encoding,
            rows,
        });
        Ok(())
    }
}

/// `part` when it is short enough to parse whole.
fn bounded<'a>(
    part: Option<&'a RawValue>,
    what: &str,
    most: usize,
) -> Result<Option<&'a RawValue>, String> {
    match part {
        Some(raw) if raw.get().len() > most => Err(format!(
            "chart too large to draw: its {what} is {} bytes",
            raw.get().len()
        )),
        other => Ok(other),
    }
}

/// A data value as a label, cut to [`MAX_LABEL_CHARS`].
fn label(cell: Cell) -> String {
    let mut label = label_of(&cell.value());
    if let Some((at, _)) = label.char_indices().nth(MAX_LABEL_CHARS) {
        label.truncate(at);
        label.push('…');
    }
    label
}

fn number(cell: Cell) -> Option<f64> {
    number_of(&cell.value())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Quantitative,
    Temporal,
    Ordinal,
    Nominal,
}

/// One encoding channel as far as drawing goes.
struct Channel<'a> {
    field: Option<&'a str>,
    kind: Kind,
    aggregate: Option<&'a str>,
    axis: Axis,
    sort: Option<&'a Value>,
    stack: Option<&'a Value>,
}

fn channel<'v>(view: &'v View, name: &str) -> Result<Channel<'v>, String> {
    let Some(Value::Object(def)) = view.encoding.get(name) else {
        return Err(format!("its encoding has no `{name}`"));
    };
    let field = match def.get("field") {
        Some(Value::String(field)) => Some(field.as_str()),
        None => None,
        Some(_) => return Err(format!("its `{name}` field is not a name")),
    };
    let aggregate = def.get("aggregate").and_then(Value::as_str);
    if field.is_none() && aggregate != Some("count") {
        return Err(format!("its `{name}` has no field"));
    }
    let kind = match def.get("type").and_then(Value::as_str) {
        Some("quantitative") => Kind::Quantitative,
        Some("temporal") => Kind::Temporal,
        Some("ordinal") => Kind::Ordinal,
        Some("nominal") => Kind::Nominal,
        Some(other) => return Err(format!("the field type `{other}` is not drawn")),
        None if aggregate.is_some() => Kind::Quantitative,
        None if def.contains_key("timeUnit") => Kind::Temporal,
        None => inferred_kind(&view.rows, field),
    };
    Ok(Channel {
        field,
        kind,
        aggregate,
        axis: axis_of(def, field, aggregate),
        sort: def.get("sort"),
        stack: def.get("stack"),
    })
}

/// Without a `type`: quantitative when every value present is a number.
fn inferred_kind(rows: &Rows, name: Option<&str>) -> Kind {
    let name = name.unwrap_or_default();
    let mut numbers = true;
    rows.for_each(|row: &Row| {
        numbers &= row.field(name).is_none_or(Cell::is_number);
    });
    match numbers {
        true => Kind::Quantitative,
        false => Kind::Nominal,
    }
}

fn axis_of(def: &Map<String, Value>, field: Option<&str>, aggregate: Option<&str>) -> Axis {
    let axis = def.get("axis").filter(|a| a.is_object());
    let written = def
        .get("title")
        .or_else(|| axis.and_then(|a| a.get("title")));
    let title = match written {
        Some(Value::String(title)) => Some(title.clone()),
        Some(Value::Array(lines)) => Some(
            lines
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        Some(_) => None,
        None => match (aggregate, field) {
            (Some("count"), None) => Some("Count of Records".into()),
            (Some(op), Some(field)) => Some(format!("{} of {field}", capitalised(op))),
            (None, field) => field.map(str::to_owned),
            (Some(_), None) => None,
        },
    };
    let format = axis
        .and_then(|a| a.get("format"))
        .or_else(|| def.get("format"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let unit = title.as_deref().and_then(unit_in_title).or_else(|| {
        if format.contains('%') {
            Some("%".into())
        } else {
            format.starts_with('$').then(|| "$".into())
        }
    });
    Axis { title, unit }
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stack {
    None,
    Zero,
    Normalize,
}

/// One view read into series over its own categories (or numbers).
struct Plot {
    mark: Mark,
    stack: Stack,
    x: Axis,
    y: Axis,
    numeric: bool,
    categories: Vec<String>,
    /// `(name, points)`; a view without a series field has one unnamed series.
    series: Vec<NamedPoints>,
}

/// A series' name (when it has one) and its points.
type NamedPoints = (Option<String>, Vec<(f64, f64)>);

fn plot(view: &View) -> Result<Plot, String> {
    let x = channel(view, "x")?;
    let y = channel(view, "y")?;
    use Kind::Quantitative as Q;
    let (key, value, numeric) = match (x.kind, y.kind) {
        (Q, Q) => (x, y, true),
        (_, Q) => (x, y, false),
        (Q, _) => (y, x, false),
        _ => return Err("neither of its axes is quantitative".into()),
    };
    let colour = ["color", "fill", "stroke", "shape", "strokeDash"]
        .iter()
        .find_map(|name| series_channel(view, name));
    let offset = ["xOffset", "yOffset"]
        .iter()
        .find_map(|name| series_channel(view, name));
    let series_field = colour.or(offset);
    let stack = match value.stack {
        Some(Value::Null | Value::Bool(false)) => Stack::None,
        Some(Value::String(s)) if s == "normalize" => Stack::Normalize,
        Some(_) => Stack::Zero,
        None if offset.is_some() => Stack::None,
        None if colour.is_some() && matches!(view.mark, Mark::Bar | Mark::Area) => Stack::Zero,
        None => Stack::None,
    };
    let groups = group(view, &key, &value, numeric, series_field.map(|c| c.0))?;
    let mut categories = if numeric {
        Vec::new()
    } else {
        order(groups.keys(), key.sort, &groups)
    };
    categories.truncate(MAX_CATEGORIES);
    let at: HashMap<&str, usize> = categories
        .iter()
        .enumerate()
        .map(|(i, c)| (c.as_str(), i))
        .collect();
    let mut names = order(groups.series(), series_field.and_then(|c| c.1), &groups);
    names.truncate(MAX_SERIES);
    let mut cells_of: HashMap<&str, Vec<(&XKey, &[f64])>> = HashMap::new();
    for ((x, name), values) in &groups.cells {
        cells_of.entry(name).or_default().push((x, values));
    }
    let mut series = Vec::new();
    for name in &names {
        let mut points = Vec::new();
        for &(x, values) in cells_of.get(name.as_str()).into_iter().flatten() {
            let y = reduce(value.aggregate, view.mark, values)?;
            let x = match x {
                XKey::Number(bits) => f64::from_bits(*bits),
                XKey::Label(label) => match at.get(label.as_str()) {
                    Some(&i) => i as f64,
                    None => continue,
                },
            };
            points.push((x, y));
        }
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        series.push((series_field.map(|_| name.clone()), points));
    }
    let mut y_axis = value.axis;
    if stack == Stack::Normalize {
        normalise(&mut series, categories.len());
        y_axis.unit = Some("%".into());
    }
    Ok(Plot {
        mark: view.mark,
        stack,
        x: key.axis,
        y: y_axis,
        numeric,
        categories,
        series,
    })
}

/// A channel that splits the data into series: its field and its `sort`.
fn series_channel<'v>(view: &'v View, name: &str) -> Option<(&'v str, Option<&'v Value>)> {
    let def = view.encoding.get(name)?.as_object()?;
    Some((def.get("field")?.as_str()?, def.get("sort")))
}

/// The views' plots as one drawing over a shared x axis.
fn combine(plots: Vec<Plot>) -> Result<Drawing, String> {
    let Some(first) = plots.first() else {
        return Err("it has no mark that can be drawn".into());
    };
    if plots.iter().any(|p| p.numeric != first.numeric) {
        return Err("its layers mix axes that cannot share a chart".into());
    }
    let mut categories: Vec<String> = Vec::new();
    for plot in &plots {
        for label in &plot.categories {
            if !categories.contains(label) {
                categories.push(label.clone());
            }
        }
    }
    categories.truncate(MAX_CATEGORIES);
    let layered = plots.len() > 1;
    let mut series = Vec::new();
    for plot in &plots {
        for (name, points) in &plot.series {
            let name = name
                .clone()
                .or_else(|| layered.then(|| plot.y.title.clone()).flatten())
                .or_else(|| layered.then(|| format!("series {}", series.len() + 1)));
            let points = points
                .iter()
                .filter_map(|&(x, y)| match plot.numeric {
                    true => Some((x, y)),
                    false => {
                        let label = plot.categories.get(x as usize)?;
                        let at = categories.iter().position(|c| c == label)?;
                        Some((at as f64, y))
                    }
                })
                .collect();
            series.push(Series {
                name,
                mark: plot.mark,
                axis: plot.y.clone(),
                points,
            });
        }
    }
    series.truncate(MAX_SERIES);
    Ok(Drawing {
        mark: first.mark,
        stacked: first.stack != Stack::None && series.len() > 1,
        x: first.x.clone(),
        y: first.y.clone(),
        domain: match first.numeric {
            true => Domain::Numbers,
            false => Domain::Categories(categories),
        },
        series,
    })
}
