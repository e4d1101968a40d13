//! A Vega-Lite view's data rows: inline `values`, a named entry of `datasets`, and the `fold`
//! transform (wide rows to long ones). Other transforms and URL data are refused with the reason.
//!
//! Rows are never copied: they stay slices of the spec's text, shared by every layer that
//! inherits them, and a fold is applied as each row is read (its key and value laid over the
//! row), so a spec costs the same however its layers and folds multiply its rows.

use std::collections::HashMap;
use std::rc::Rc;

use serde::Deserialize;
use serde::de::{IgnoredAny, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::MAX_ROWS;

/// One data value: a slice of the spec, or a folded field's name.
#[derive(Debug, Clone, Copy)]
pub(super) enum Cell<'r> {
    Raw(&'r RawValue),
    Name(&'r str),
}

impl Cell<'_> {
    /// The value as a `Value` (labels, numbers: small).
    pub(super) fn value(self) -> Value {
        match self {
            Cell::Raw(raw) => serde_json::from_str(raw.get()).unwrap_or(Value::Null),
            Cell::Name(name) => Value::String(name.to_owned()),
        }
    }

    pub(super) fn is_number(self) -> bool {
        matches!(self, Cell::Raw(raw) if raw.get().starts_with(|c: char| c == '-' || c.is_ascii_digit()))
    }

    pub(super) fn is_string(self) -> bool {
        match self {
            Cell::Raw(raw) => raw.get().starts_with('"'),
            Cell::Name(_) => true,
        }
    }
}

/// A row's fields as slices of the spec (a value that is not an object is `{"data": value}`,
/// as in Vega-Lite), with the folds' key and value laid over them.
pub(super) struct Row<'s, 'r> {
    fields: &'s HashMap<String, &'r RawValue>,
    over: &'s [(&'r str, Cell<'r>)],
}

impl<'r> Row<'_, 'r> {
    /// A field: the name as written, else a dotted path into nested objects.
    pub(super) fn field(&self, name: &str) -> Option<Cell<'r>> {
        if let Some((_, cell)) = self.over.iter().rev().find(|(k, _)| *k == name) {
            return Some(*cell);
        }
        if let Some(raw) = lookup(self.fields, name) {
            return Some(Cell::Raw(raw));
        }
        let mut parts = name.split('.');
        let mut raw = lookup(self.fields, parts.next()?)?;
        for part in parts {
            raw = member(raw, part)?;
        }
        Some(Cell::Raw(raw))
    }
}

fn lookup<'r>(fields: &HashMap<String, &'r RawValue>, name: &str) -> Option<&'r RawValue> {
    fields.get(name).copied()
}

fn member<'r>(raw: &'r RawValue, name: &str) -> Option<&'r RawValue> {
    let map: HashMap<String, &RawValue> = serde_json::from_str(raw.get()).ok()?;
    map.get(name).copied()
}

/// One `fold` transform.
struct Fold {
    fields: Vec<String>,
    key: String,
    value: String,
}

/// A view's rows: the spec's data, shared, and the folds applied on reading.
#[derive(Clone)]
pub(super) struct Rows<'a> {
    base: Rc<[&'a RawValue]>,
    folds: Rc<[Rc<Fold>]>,
}

impl<'a> Rows<'a> {
    /// How many rows reading yields (at most [`MAX_ROWS`]).
    pub(super) fn len(&self) -> usize {
        let mut n = self.base.len();
        for fold in self.folds.iter() {
            n = n.saturating_mul(fold.fields.len());
        }
        n.min(MAX_ROWS)
    }

    /// Call `each` on every row, at most [`MAX_ROWS`] of them.
    pub(super) fn for_each(&self, mut each: impl FnMut(&Row)) {
        let mut left = MAX_ROWS;
        for raw in self.base.iter() {
            let fields: HashMap<String, &RawValue> = fields_of(raw).into_iter().collect();
            let mut over = Vec::new();
            if !self.expand(&fields, &mut over, 0, &mut left, &mut each) {
                return;
            }
        }
    }

    /// The rows `fields` becomes through folds `at..`; false once [`MAX_ROWS`] were read.
    fn expand<'r>(
        &'r self,
        fields: &HashMap<String, &'r RawValue>,
        over: &mut Vec<(&'r str, Cell<'r>)>,
        at: usize,
        left: &mut usize,
        each: &mut impl FnMut(&Row),
    ) -> bool {
        let Some(fold) = self.folds.get(at) else {
            if *left == 0 {
                return false;
            }
            *left -= 1;
            each(&Row { fields, over });
            return true;
        };
        for name in &fold.fields {
            let value = Row { fields, over }
                .field(name)
                .unwrap_or(Cell::Raw(null()));
            over.push((&fold.key, Cell::Name(name)));
            over.push((&fold.value, value));
            let more = self.expand(fields, over, at + 1, left, each);
            over.truncate(over.len() - 2);
            if !more {
                return false;
            }
        }
        true
    }
}

fn null() -> &'static RawValue {
    serde_json::from_str("null").expect("null is JSON")
}

/// A row's fields, or `{"data": value}` for a value that is not an object.
pub(super) fn fields_of(raw: &RawValue) -> Vec<(String, &RawValue)> {
    match serde_json::from_str::<ObjectFields>(raw.get()) {
        Ok(fields) if raw.get().starts_with('{') => fields.0,
        _ => vec![("data".to_owned(), raw)],
    }
}

/// An object's fields in order, values borrowed.
struct ObjectFields<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for ObjectFields<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = ObjectFields<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    fields.push(entry);
                }
                Ok(ObjectFields(fields))
            }
        }
        d.deserialize_map(Fields)
    }
}

/// The first [`MAX_ROWS`] items of a list, borrowed; the rest are skipped unread.
pub(super) struct FirstRows<'a>(pub(super) Vec<&'a RawValue>);

impl<'de> Deserialize<'de> for FirstRows<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Items;
        impl<'de> Visitor<'de> for Items {
            type Value = FirstRows<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
                let mut rows = Vec::new();
                while rows.len() < MAX_ROWS {
                    match seq.next_element::<&'de RawValue>()? {
                        Some(row) => rows.push(row),
                        None => return Ok(FirstRows(rows)),
                    }
                }
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(FirstRows(rows))
            }
        }
        d.deserialize_seq(Items)
    }
}

/// A `data` object as far as it is read.
#[derive(Deserialize)]
struct Data<'a> {
    #[serde(borrow)]
    values: Option<&'a RawValue>,
    name: Option<String>,
    url: Option<IgnoredAny>,
}

/// The rows `data` holds (`{"values": [...]}` or `{"name": n}` with `datasets` from the top of
/// the spec).
pub(super) fn rows_of<'a>(
    data: &'a RawValue,
    datasets: Option<&'a RawValue>,
) -> Result<Rows<'a>, String> {
    let data: Data = serde_json::from_str(data.get()).map_err(|_| "its data is not an object")?;
    let values = if let Some(values) = data.values {
        values
    } else if let Some(name) = data.name {
        datasets
            .and_then(|sets| member(sets, &name))
            .ok_or_else(|| format!("the dataset `{name}` is not in the spec"))?
    } else if data.url.is_some() {
        return Err("its data is loaded from a URL".into());
    } else {
        return Err("it has no inline data".into());
    };
    let rows: FirstRows =
        serde_json::from_str(values.get()).map_err(|_| "its data values are not a list")?;
    Ok(Rows {
        base: Rc::from(rows.0),
        folds: Rc::from(Vec::new()),
    })
}

/// Apply `transforms` (a `transform` array) to `rows`.
pub(super) fn transform<'a>(
    rows: Rows<'a>,
    transforms: Option<&'a RawValue>,
) -> Result<Rows<'a>, String> {
    let Some(transforms) = transforms else {
        return Ok(rows);
    };
    let Ok(steps) = serde_json::from_str::<Vec<HashMap<String, &RawValue>>>(transforms.get())
    else {
        return Err("its transform is not a list of steps".into());
    };
    let mut folds: Vec<Rc<Fold>> = rows.folds.to_vec();
    for step in &steps {
        match step.get("fold") {
            Some(fields) => folds.push(Rc::new(fold(fields, step.get("as").copied())?)),
            None => {
                let name = step
                    .keys()
                    .next()
                    .map_or("(empty)".to_owned(), |k| format!("`{k}`"));
                return Err(format!("the transform {name} is not drawn"));
            }
        }
    }
    Ok(Rows {
        base: rows.base,
        folds: Rc::from(folds),
    })
}

/// `{"fold": ["a", "b"], "as": ["key", "value"]}`: each row becomes one row per folded field,
/// with the field's name under `key` and its value under `value`.
fn fold(fields: &RawValue, names: Option<&RawValue>) -> Result<Fold, String> {
    let strings = |raw: &RawValue| -> Option<Vec<String>> {
        let items: Vec<&RawValue> = serde_json::from_str(raw.get()).ok()?;
        Some(
            items
                .iter()
                .filter_map(|item| serde_json::from_str::<String>(item.get()).ok())
                .collect(),
        )
    };
    let fields = strings(fields).ok_or("its fold names no fields")?;
    let names = names.and_then(strings).unwrap_or_default();
    let mut names = names.into_iter();
    Ok(Fold {
        fields,
        key: names.next().unwrap_or_else(|| "key".into()),
        value: names.next().unwrap_or_else(|| "value".into()),
    })
}
