//! A Vega-Lite view's data rows: inline `values`, a named entry of `datasets`, and the `fold`
//! transform (wide rows to long ones). Other transforms and URL data are refused with the reason.

use serde_json::{Map, Value};

use super::MAX_ROWS;

pub(super) type Row = Map<String, Value>;

/// The rows `data` holds (`{"values": [...]}` or `{"name": n}` with `datasets` from the top of
/// the spec). A value that is not an object becomes `{"data": value}`, as in Vega-Lite.
pub(super) fn rows_of(data: &Value, datasets: Option<&Value>) -> Result<Vec<Row>, String> {
    let values = if let Some(values) = data.get("values") {
        values
    } else if let Some(name) = data.get("name").and_then(Value::as_str) {
        datasets
            .and_then(|sets| sets.get(name))
            .ok_or_else(|| format!("the dataset `{name}` is not in the spec"))?
    } else if data.get("url").is_some() {
        return Err("its data is loaded from a URL".into());
    } else {
        return Err("it has no inline data".into());
    };
    let Value::Array(values) = values else {
        return Err("its data values are not a list".into());
    };
    Ok(values
        .iter()
        .take(MAX_ROWS)
        .map(|value| match value {
            Value::Object(row) => row.clone(),
            other => Map::from_iter([("data".to_owned(), other.clone())]),
        })
        .collect())
}

/// Apply `transforms` (a `transform` array) to `rows`.
pub(super) fn transform(rows: Vec<Row>, transforms: Option<&Value>) -> Result<Vec<Row>, String> {
    let Some(transforms) = transforms else {
        return Ok(rows);
    };
    let Value::Array(transforms) = transforms else {
        return Err("its transform is not a list".into());
    };
    transforms
        .iter()
        .try_fold(rows, |rows, step| match step.get("fold") {
            Some(fields) => fold(rows, fields, step.get("as")),
            None => Err(format!("the transform {} is not drawn", step_name(step))),
        })
}

fn step_name(step: &Value) -> String {
    step.as_object()
        .and_then(|step| step.keys().next())
        .map_or_else(|| "(empty)".to_owned(), |key| format!("`{key}`"))
}

/// `{"fold": ["a", "b"], "as": ["key", "value"]}`: each row becomes one row per folded field,
/// with the field's name under `key` and its value under `value`.
fn fold(rows: Vec<Row>, fields: &Value, names: Option<&Value>) -> Result<Vec<Row>, String> {
    let fields: Vec<&str> = match fields {
        Value::Array(fields) => fields.iter().filter_map(Value::as_str).collect(),
        _ => return Err("its fold names no fields".into()),
    };
    let names: Vec<&str> = names
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let key = names.first().copied().unwrap_or("key");
    let value = names.get(1).copied().unwrap_or("value");
    let mut out = Vec::new();
    for row in rows {
        for field in &fields {
            if out.len() >= MAX_ROWS {
                return Ok(out);
            }
            let mut folded = row.clone();
            folded.insert(key.to_owned(), Value::String((*field).to_owned()));
            folded.insert(
                value.to_owned(),
                row.get(*field).cloned().unwrap_or(Value::Null),
            );
            out.push(folded);
        }
    }
    Ok(out)
}

/// A field of `row`: the name as written, else a dotted path into nested objects.
pub(super) fn field<'a>(row: &'a Row, name: &str) -> Option<&'a Value> {
    if let Some(value) = row.get(name) {
        return Some(value);
    }
    let mut parts = name.split('.');
    let mut value = row.get(parts.next()?)?;
    for part in parts {
        value = value.get(part)?;
    }
    Some(value)
}
