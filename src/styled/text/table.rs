//! Tables in an answer: cells collected while parsing, then laid out to the width with columns shrunk
//! (widest first) until they fit, aligned as the separator row says, with a rule under the header.

use pulldown_cmark::Alignment;

use super::line::{Piece, RLine};
use super::wrap::wrap;
use crate::styled::theme::Theme;

/// A table being parsed: its rows of cells (each cell a run of pieces).
pub(super) struct TableState {
    pub aligns: Vec<Alignment>,
    pub rows: Vec<Vec<Vec<Piece>>>,
    pub header_rows: usize,
    pub in_head: bool,
}

impl TableState {
    pub fn new(aligns: Vec<Alignment>) -> TableState {
        TableState {
            aligns,
            rows: Vec::new(),
            header_rows: 0,
            in_head: false,
        }
    }
}

/// The table's rows, `width` columns wide at most.
pub(super) fn layout_table(table: TableState, width: usize, theme: &Theme) -> Vec<RLine> {
    let ncols = table.rows.iter().map(Vec::len).max().unwrap_or(0);
    if ncols == 0 {
        return Vec::new();
    }
    let widths = column_widths(&table, ncols, width);
    let muted = theme.muted();
    let mut out = Vec::new();
    for (r, row) in table.rows.iter().enumerate() {
        let cells: Vec<Vec<RLine>> = (0..ncols)
            .map(|c| match row.get(c) {
                Some(cell) if !cell.is_empty() => wrap(cell, widths[c], &[], &[]),
                _ => vec![RLine::blank()],
            })
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        for i in 0..height {
            let mut line = RLine::default();
            for (c, cell) in cells.iter().enumerate() {
                if c > 0 {
                    line.pieces.push(Piece::deco(" │ ", muted));
                }
                let content = cell.get(i).cloned().unwrap_or_default();
                let pad = widths[c].saturating_sub(content.width());
                let (left, right) = match table.aligns.get(c) {
                    Some(Alignment::Right) => (pad, 0),
                    Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                    _ => (0, pad),
                };
                if left > 0 {
                    line.pieces.push(Piece::deco(" ".repeat(left), muted));
                }
                line.pieces.extend(content.pieces);
                if right > 0 && c + 1 < ncols {
                    line.pieces.push(Piece::deco(" ".repeat(right), muted));
                }
            }
            out.push(line);
        }
        if r + 1 == table.header_rows {
            let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            out.push(RLine {
                pieces: vec![Piece::deco(rule.join("─┼─"), muted)],
            });
        }
    }
    out
}

/// Each column as wide as its widest cell, the widest shrunk one by one until the row fits `width`.
fn column_widths(table: &TableState, ncols: usize, width: usize) -> Vec<usize> {
    let sep_w = 3;
    let mut widths = vec![1usize; ncols];
    for row in &table.rows {
        for (c, cell) in row.iter().enumerate() {
            let w: usize = cell.iter().map(Piece::width).sum();
            widths[c] = widths[c].max(w);
        }
    }
    let budget = width.saturating_sub(sep_w * (ncols - 1)).max(ncols);
    while widths.iter().sum::<usize>() > budget {
        let (i, &max) = widths
            .iter()
            .enumerate()
            .max_by_key(|(_, w)| **w)
            .expect("ncols > 0");
        if max <= 1 {
            break;
        }
        widths[i] -= 1;
    }
    widths
}
