//! A turn's structured output under its answer: folded to one line (`▸ Structured output: company
//! NVIDIA Corp · ticker NVDA · …`) so the answer stays in view when it ends, and unfolded by Enter on
//! the answer into a table: a list of objects as rows and columns (one block per row when too
//! wide), an object as key/value rows (nested objects as `guidance.period`, lists of values
//! joined, deeper nesting folded). `J` shows the raw JSON, which `y` copies.
//! Kept between frames: the output does not change once it has arrived.

use ratatui::style::Modifier;
use serde_json::Value;
use unicode_width::UnicodeWidthStr;

use super::{clean, piece, truncate};
use crate::model::structured::{Table, table_of};
use crate::render::table_text::aligned;
use crate::styled::text::RLine;
use crate::styled::theme::Theme;
use crate::tui::state::Turn;

/// The structured output's rows of each turn, kept between frames.
#[derive(Debug, Default)]
pub struct StructuredCache {
    /// By turn index.
    turns: Vec<Option<StructuredRows>>,
}

/// One turn's structured output rows, and what they were made for.
#[derive(Debug, Clone)]
struct StructuredRows {
    /// The [`Turn::id`].
    turn: u64,
    width: usize,
    /// Whether the output had arrived, and was unfolded.
    arrived: bool,
    open: bool,
    rows: Vec<RLine>,
}

impl StructuredCache {
    /// Turn `index`'s structured output rows at `width`, folded or (`open`) as a table whose
    /// heading names `keys` (`Enter folds · J raw JSON`, from the key map).
    pub fn rows(
        &mut self,
        index: usize,
        turn: &Turn,
        (open, keys): (bool, &str),
        width: usize,
        theme: &Theme,
    ) -> Vec<RLine> {
        let arrived = turn.session.structured_output.is_some();
        if self.turns.len() <= index {
            self.turns.resize(index + 1, None);
        }
        match &self.turns[index] {
            Some(cached)
                if cached.turn == turn.id
                    && cached.width == width
                    && cached.arrived == arrived
                    && cached.open == open =>
            {
                cached.rows.clone()
            }
            _ => {
                // (The key map does not change while the app runs: the keys need no cache key.)
                let rows = structured_rows(turn, (open, keys), width, theme);
                self.turns[index] = Some(StructuredRows {
                    turn: turn.id,
                    width,
                    arrived,
                    open,
                    rows: rows.clone(),
                });
                rows
            }
        }
    }
}

/// The output's fields as `(path, value)`: nested objects as dotted paths, lists of plain values
/// joined with `; `, lists of objects numbered (`peers[1].name`).
pub fn fields(value: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    flatten("", value, &mut out);
    out
}

fn flatten(path: &str, value: &Value, out: &mut Vec<(String, String)>) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                flatten(&join(key), value, out);
            }
        }
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => {
            let joined: Vec<String> = items.iter().map(scalar).collect();
            out.push((path.to_owned(), joined.join("; ")));
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                flatten(&format!("{path}[{}]", i + 1), item, out);
            }
        }
        other => out.push((path.to_owned(), scalar(other))),
    }
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "—".to_owned(),
        other => other.to_string(),
    }
}

fn structured_rows(
    turn: &Turn,
    (open, keys): (bool, &str),
    width: usize,
    theme: &Theme,
) -> Vec<RLine> {
    let Some(structured) = &turn.session.structured_output else {
        return Vec::new();
    };
    let table = table_of(&structured.content);
    let (count, summary) = match &table {
        Table::Columns(columns) => (
            format!(
                "{} rows × {} columns",
                columns.rows.len(),
                columns.headers.len()
            ),
            columns
                .rows
                .iter()
                .filter_map(|row| row.first().map(|c| clean(c)))
                .collect::<Vec<_>>(),
        ),
        _ => {
            let fields = fields(&structured.content);
            let count = match fields.len() {
                1 => "1 field".to_owned(),
                n => format!("{n} fields"),
            };
            let summary = fields
                .iter()
                .map(|(k, v)| format!("{} {}", clean(k), clean(v)))
                .collect();
            (count, summary)
        }
    };
    let mut rows = vec![RLine::blank()];
    let heading = theme.heading(3);
    if !open {
        let head = "▸ Structured output: ".to_owned();
        let rest = truncate(&summary.join(" · "), width.saturating_sub(head.width()));
        rows.push(RLine {
            pieces: vec![piece(head, heading), piece(rest, theme.muted())],
        });
        return rows;
    }
    rows.push(RLine {
        pieces: vec![
            piece(format!("▾ Structured output · {count}"), heading),
            piece(format!(" ({keys})"), theme.muted()),
        ],
    });
    let header_style = theme.muted().add_modifier(Modifier::BOLD);
    let lines = aligned(&table, width);
    // A column table's header and rule (a list of objects too wide for columns has neither).
    let has_header = lines.get(1).is_some_and(|l| l.starts_with('─'));
    for (i, line) in lines.into_iter().enumerate() {
        let style = if has_header && i < 2 {
            header_style
        } else {
            theme.text()
        };
        rows.push(RLine {
            pieces: vec![piece(line, style)],
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_flatten_nested_objects_and_join_lists() {
        let value = json!({
            "ticker": "NVDA",
            "guidance": {"period": "Q2 FY2027", "revenue_usd_bn": 80.0},
            "key_risks": ["CoWoS supply", "export licensing"],
            "peers": [{"name": "AMD"}, {"name": "Intel"}],
            "note": null
        });
        assert_eq!(
            fields(&value),
            [
                ("ticker".to_owned(), "NVDA".to_owned()),
                ("guidance.period".to_owned(), "Q2 FY2027".to_owned()),
                ("guidance.revenue_usd_bn".to_owned(), "80.0".to_owned()),
                (
                    "key_risks".to_owned(),
                    "CoWoS supply; export licensing".to_owned()
                ),
                ("peers[1].name".to_owned(), "AMD".to_owned()),
                ("peers[2].name".to_owned(), "Intel".to_owned()),
                ("note".to_owned(), "—".to_owned()),
            ]
        );
    }
}
