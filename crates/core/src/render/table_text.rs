//! A structured output's [`Table`] as an aligned text table (`--format text`) and as a Markdown
//! table (`--format markdown`, export). Cells are sanitised; Markdown cells escape `|`.

use unicode_width::UnicodeWidthStr;

use crate::model::structured::{Columns, Table};
use crate::render::cells::{pad, wrap};
use crate::render::sanitize::sanitize_line;

/// Narrowest a column is squeezed to.
const MIN_COLUMN: usize = 6;

/// The table in lines of at most `width` columns (a key/value table wraps long values).
pub fn aligned(table: &Table, width: usize) -> Vec<String> {
    match table {
        Table::Columns(columns) => columns_aligned(columns, width),
        Table::Fields { fields, tables } => {
            let key_w = fields
                .iter()
                .map(|(k, _)| clean(k).width())
                .max()
                .unwrap_or(0)
                .min(width / 2);
            let value_w = width.saturating_sub(key_w + 2).max(MIN_COLUMN);
            let mut lines = Vec::new();
            for (key, value) in fields {
                let key = pad(&clean(key), key_w, false);
                for (i, part) in wrap(&clean(value), value_w).into_iter().enumerate() {
                    let head = if i == 0 { key.as_str() } else { "" };
                    lines.push(format!("{head:key_w$}  {part}").trim_end().to_owned());
                }
            }
            for (name, columns) in tables {
                lines.push(String::new());
                lines.push(clean(name));
                lines.extend(columns_aligned(columns, width));
            }
            lines
        }
        Table::Value(text) => wrap(&clean(text), width),
    }
}

fn columns_aligned(columns: &Columns, width: usize) -> Vec<String> {
    let headers: Vec<String> = columns.headers.iter().map(|h| clean(h)).collect();
    let rows: Vec<Vec<String>> = columns
        .rows
        .iter()
        .map(|row| row.iter().map(|c| clean(c)).collect())
        .collect();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.width()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.width());
        }
    }
    let gaps = 3 * widths.len().saturating_sub(1);
    if widths.iter().sum::<usize>() + gaps > width && headers.len() > 2 {
        return records(&headers, &rows, width);
    }
    while widths.iter().sum::<usize>() + gaps > width {
        let Some(widest) = widths.iter_mut().filter(|w| **w > MIN_COLUMN).max() else {
            break;
        };
        *widest -= 1;
    }
    let line = |cells: &[String], numeric: bool| {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, w))| {
                pad(
                    cell,
                    *w,
                    numeric && columns.numeric.get(i).copied().unwrap_or(false),
                )
            })
            .collect();
        parts.join(" │ ").trim_end().to_owned()
    };
    let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
    let mut lines = vec![line(&headers, false), rule.join("─┼─")];
    lines.extend(rows.iter().map(|row| line(row, true)));
    lines
}

/// Rows too wide for `width` as one block per row: its first cell as a heading, then the other
/// columns as `header  value` lines.
fn records(headers: &[String], rows: &[Vec<String>], width: usize) -> Vec<String> {
    let key_w = headers
        .iter()
        .skip(1)
        .map(|h| h.width())
        .max()
        .unwrap_or(0)
        .min(width / 2);
    let value_w = width.saturating_sub(key_w + 4).max(MIN_COLUMN);
    let mut lines = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            lines.push(String::new());
        }
        lines.push(
            pad(row.first().map_or("", String::as_str), width, false)
                .trim_end()
                .to_owned(),
        );
        for (header, cell) in headers.iter().zip(row).skip(1) {
            let value = pad(cell, value_w, false);
            lines.push(
                format!("  {}  {value}", pad(header, key_w, false))
                    .trim_end()
                    .to_owned(),
            );
        }
    }
    lines
}

/// The table as Markdown: a pipe table for columns, `| Field | Value |` for an object.
pub fn markdown(table: &Table) -> String {
    match table {
        Table::Columns(columns) => columns_markdown(columns),
        Table::Fields { fields, tables } => {
            let mut out = String::from("| Field | Value |\n|---|---|\n");
            for (key, value) in fields {
                out.push_str(&format!("| {} | {} |\n", cell_md(key), cell_md(value)));
            }
            for (name, columns) in tables {
                out.push_str(&format!("\n**{}**\n\n", cell_md(name)));
                out.push_str(&columns_markdown(columns));
            }
            out
        }
        Table::Value(text) => format!("{}\n", clean(text)),
    }
}

fn columns_markdown(columns: &Columns) -> String {
    let head: Vec<String> = columns.headers.iter().map(|h| cell_md(h)).collect();
    let rule: Vec<&str> = columns
        .numeric
        .iter()
        .map(|n| if *n { "---:" } else { "---" })
        .collect();
    let mut out = format!("| {} |\n|{}|\n", head.join(" | "), rule.join("|"));
    for row in &columns.rows {
        let cells: Vec<String> = row.iter().map(|c| cell_md(c)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

fn clean(text: &str) -> String {
    sanitize_line(text).replace(['\n', '\t'], " ")
}

fn cell_md(text: &str) -> String {
    clean(text).replace('\\', "\\\\").replace('|', "\\|")
}
