//! A structured output as a table people can read: a list of objects becomes rows and columns,
//! an object key/value rows (nested objects as dotted keys, lists of plain values joined, a list
//! of objects its own table below), anything else one value. Values nested deeper than a table
//! shows are folded to a short summary (`{3 fields}`, `[4 items]`); the raw JSON stays the
//! reference.

use serde_json::{Map, Value};

/// Columns of a table that lists objects.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Columns {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Which columns hold only numbers (displays align them right).
    pub numeric: Vec<bool>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Table {
    /// A list of objects.
    Columns(Columns),
    /// An object: `(key, value)` rows, then its lists of objects as their own tables.
    Fields {
        fields: Vec<(String, String)>,
        tables: Vec<(String, Columns)>,
    },
    /// A plain value (or a list of plain values) as text.
    Value(String),
}

/// Most rows a table holds; the raw JSON has the rest.
pub const MAX_ROWS: usize = 500;

pub fn table_of(value: &Value) -> Table {
    match value {
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
            Table::Columns(columns_of(items))
        }
        Value::Object(map) => {
            let mut fields = Vec::new();
            let mut tables = Vec::new();
            flatten("", map, &mut fields, &mut tables);
            Table::Fields { fields, tables }
        }
        other => Table::Value(cell(other)),
    }
}

fn columns_of(items: &[Value]) -> Columns {
    let mut headers: Vec<String> = Vec::new();
    for item in items {
        for key in item.as_object().into_iter().flat_map(Map::keys) {
            if !headers.contains(key) {
                headers.push(key.clone());
            }
        }
    }
    let rows: Vec<Vec<String>> = items
        .iter()
        .take(MAX_ROWS)
        .map(|item| {
            headers
                .iter()
                .map(|h| item.get(h).map_or_else(String::new, cell))
                .collect()
        })
        .collect();
    let numeric = headers
        .iter()
        .map(|h| {
            let mut present = items
                .iter()
                .filter_map(|i| i.get(h))
                .filter(|v| !v.is_null());
            let first = present.next();
            first.is_some_and(Value::is_number) && present.all(Value::is_number)
        })
        .collect();
    Columns {
        headers,
        rows,
        numeric,
    }
}

fn flatten(
    path: &str,
    map: &Map<String, Value>,
    fields: &mut Vec<(String, String)>,
    tables: &mut Vec<(String, Columns)>,
) {
    for (key, value) in map {
        let key = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        match value {
            Value::Object(inner) if !inner.is_empty() && fields.len() < MAX_ROWS => {
                flatten(&key, inner, fields, tables)
            }
            Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
                fields.push((key.clone(), plural(items.len(), "row", "rows") + " (below)"));
                tables.push((key, columns_of(items)));
            }
            other => fields.push((key, cell(other))),
        }
    }
}

/// One value as a cell: text as it is, numbers as written, `—` for null, a list of plain values
/// joined with `; `, anything nested folded.
pub fn cell(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "—".into(),
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => {
            items.iter().map(cell).collect::<Vec<_>>().join("; ")
        }
        Value::Array(items) => format!("[{}]", plural(items.len(), "item", "items")),
        Value::Object(map) => format!("{{{}}}", plural(map.len(), "field", "fields")),
        other => other.to_string(),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_of_objects_becomes_rows_under_the_union_of_their_keys() {
        let table = table_of(&json!([
            {"ticker": "ASML", "growth_pct": 12.5},
            {"ticker": "AMAT", "growth_pct": 7, "note": "fiscal year ends Oct"},
            {"ticker": "LRCX", "growth_pct": null, "segments": {"wfe": 1}}
        ]));
        let Table::Columns(columns) = table else {
            panic!("expected columns, got {table:?}");
        };
        assert_eq!(
            columns.headers,
            ["ticker", "growth_pct", "note", "segments"]
        );
        assert_eq!(columns.rows[0], ["ASML", "12.5", "", ""]);
        assert_eq!(columns.rows[2], ["LRCX", "—", "", "{1 field}"]);
        assert_eq!(columns.numeric, [false, true, false, false]);
    }

    #[test]
    fn an_object_becomes_key_value_rows_with_its_lists_of_objects_as_tables() {
        let table = table_of(&json!({
            "ticker": "NVDA",
            "guidance": {"period": "Q2 FY2027", "revenue_usd_bn": 80.0},
            "key_risks": ["CoWoS supply", "export licensing"],
            "peers": [{"name": "AMD"}, {"name": "Intel"}],
            "matrix": [[1, 2], [3]],
        }));
        let Table::Fields { fields, tables } = table else {
            panic!("expected fields, got {table:?}");
        };
        let fields: Vec<(&str, &str)> = fields
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            fields,
            [
                ("ticker", "NVDA"),
                ("guidance.period", "Q2 FY2027"),
                ("guidance.revenue_usd_bn", "80.0"),
                ("key_risks", "CoWoS supply; export licensing"),
                ("peers", "2 rows (below)"),
                ("matrix", "[2 items]"),
            ]
        );
        assert_eq!(tables[0].0, "peers");
        assert_eq!(tables[0].1.rows, [["AMD"], ["Intel"]]);
    }

    #[test]
    fn a_plain_value_is_one_cell() {
        assert_eq!(table_of(&json!("done")), Table::Value("done".into()));
        assert_eq!(table_of(&json!([1, 2])), Table::Value("1; 2".into()));
        assert_eq!(table_of(&json!([])), Table::Value("".into()));
    }
}
