//! The saved sessions picker: two rows per session, newest first, the selected one highlighted.

use crate::local::store::SessionMeta;
use crate::tui::screen::{clean, piece, select_row, truncate, wrap_text};
use crate::tui::text::{Piece, RLine};
use crate::tui::theme::Theme;

/// The picker's rows: per session the date, turns, status, provider and last checkpoint, then the
/// first question. Also returns the selected entry's row range.
pub(super) fn session_rows(
    list: &[SessionMeta],
    selected: usize,
    open: Option<&str>,
    width: usize,
    theme: &Theme,
) -> (Vec<RLine>, std::ops::Range<usize>) {
    let mut rows = Vec::new();
    if list.is_empty() {
        rows.extend(wrap_text(
            "No saved sessions yet. Every conversation here (and every `research-tui ask`) is saved as it streams.",
            theme.muted(),
            width,
            Vec::new(),
            Vec::new(),
        ));
        return (rows, 0..0);
    }
    let mut range = 0..0;
    for (i, meta) in list.iter().enumerate() {
        let is_selected = i == selected;
        let start = rows.len();
        let is_open = open == Some(meta.id.as_str());
        for pieces in entry_lines(meta, is_selected, is_open, width, theme) {
            let mut row = RLine { pieces };
            if is_selected {
                select_row(&mut row, width, theme.selection(true));
            }
            rows.push(row);
        }
        if is_selected {
            range = start..rows.len();
        }
    }
    (rows, range)
}

/// One session's two lines.
fn entry_lines(
    meta: &SessionMeta,
    is_selected: bool,
    is_open: bool,
    width: usize,
    theme: &Theme,
) -> [Vec<Piece>; 2] {
    let date = clean(
        &meta
            .updated_at
            .get(..16)
            .unwrap_or(&meta.updated_at)
            .replace('T', " "),
    );
    let turns = match meta.turns.len() {
        1 => "1 turn".to_owned(),
        n => format!("{n} turns"),
    };
    let status = clean(meta.status());
    let status_style = match meta.status() {
        "complete" => theme.success(),
        "error" | "http_error" | "connect_error" => theme.error(),
        "streaming" => theme.accent(),
        _ => theme.warning(),
    };
    let mut line1 = vec![
        piece(if is_selected { "▸ " } else { "  " }, theme.accent()),
        piece(format!("{date}  "), theme.text()),
        piece(format!("{turns:<9} "), theme.muted()),
        piece(format!("{status:<10} "), status_style),
    ];
    if !meta.provider.is_empty() && meta.provider != "bigdata" {
        line1.push(piece(format!("{} ", clean(&meta.provider)), theme.accent()));
    }
    if is_open {
        line1.push(piece("(open) ", theme.accent()));
    }
    if let Some(checkpoint) = meta.last_checkpoint_id() {
        line1.push(piece(clean(checkpoint), theme.muted()));
    }
    let question = match meta.first_question().trim() {
        "" => "(no question)".to_owned(),
        q => clean(q),
    };
    let line2 = vec![
        piece("    ", theme.text()),
        piece(truncate(&question, width.saturating_sub(4)), theme.you()),
    ];
    [truncate_pieces(line1, width), line2]
}

/// Cut a row of pieces to `width` columns.
fn truncate_pieces(pieces: Vec<Piece>, width: usize) -> Vec<Piece> {
    use unicode_width::UnicodeWidthStr;
    let mut out = Vec::with_capacity(pieces.len());
    let mut used = 0;
    for mut p in pieces {
        let w = p.text.width();
        if used + w <= width {
            used += w;
            out.push(p);
        } else {
            p.text = truncate(&p.text, width - used);
            out.push(p);
            break;
        }
    }
    out
}
