//! The saved sessions picker: the filter being typed (after `/`), then two rows per session — live
//! ones first, marked `● live` with provider and elapsed time — the selected one highlighted, and
//! the characters the filter matched marked; a match in an answer or a source adds that line.

use std::time::SystemTime;

use ratatui::style::{Modifier, Style};
use unicode_width::UnicodeWidthStr;

use crate::local::search::Field;
use crate::local::summary::SessionSummary;
use crate::local::timestamp::unix_seconds;
use crate::local::watch::is_live;
use crate::styled::text::oneline::truncate_pieces;
use crate::styled::text::{Piece, RLine};
use crate::styled::theme::Theme;
use crate::tui::screen::{clean, piece, select_row, truncate, wrap_text};
use crate::tui::state::picker::{Picker, Shown};

/// The picker's rows: the filter row (while one is typed), then each session's rows. Also
/// returns how many rows the filter takes (they stay in place) and the selected entry's rows.
pub(super) fn session_rows(
    picker: &Picker,
    open: Option<&str>,
    width: usize,
    theme: &Theme,
) -> (Vec<RLine>, usize, std::ops::Range<usize>) {
    let mut rows = Vec::new();
    if let Some(filter) = &picker.filter {
        rows.push(RLine {
            pieces: vec![
                piece("/ ", theme.accent().add_modifier(Modifier::BOLD)),
                piece(
                    truncate(&clean(filter), width.saturating_sub(3)),
                    theme.text(),
                ),
                piece(" ", theme.selection(true).add_modifier(Modifier::REVERSED)),
            ],
        });
    }
    let header = rows.len();
    if picker.shown.is_empty() {
        let empty = match &picker.filter {
            Some(filter) if !picker.entries.is_empty() => {
                format!("No saved session matches \"{}\".", clean(filter))
            }
            _ => "No saved sessions yet. Every conversation here (and every `research-tui ask`) is saved as it streams.".to_owned(),
        };
        rows.extend(wrap_text(
            &empty,
            theme.muted(),
            width,
            Vec::new(),
            Vec::new(),
        ));
        return (rows, header, header..header);
    }
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut range = header..header;
    for (i, shown) in picker.shown.iter().enumerate() {
        let Some(entry) = picker.entries.get(shown.index) else {
            continue;
        };
        let is_selected = i == picker.selected;
        let start = rows.len();
        let entry = Entry {
            summary: entry,
            shown,
            is_selected,
            is_open: open == Some(entry.meta.id.as_str()),
            now,
        };
        for pieces in entry.lines(width, theme) {
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
    (rows, header, range)
}

/// One session as the picker shows it.
struct Entry<'a> {
    summary: &'a SessionSummary,
    shown: &'a Shown,
    is_selected: bool,
    is_open: bool,
    /// Seconds since 1970, for a live session's elapsed time.
    now: u64,
}

impl Entry<'_> {
    /// The session's rows: what it is, its first question, and the line the filter matched when
    /// that is not the first question.
    fn lines(&self, width: usize, theme: &Theme) -> Vec<Vec<Piece>> {
        let meta = &self.summary.meta;
        let question = meta.first_question().trim();
        let hit = self
            .shown
            .hit
            .as_ref()
            .filter(|hit| !hit.indices.is_empty());
        let on_question = hit.filter(|hit| hit.field == Field::Question && hit.text == question);
        let second = match (question, on_question) {
            ("", _) => vec![piece("(no question)", theme.you())],
            (_, Some(hit)) => highlighted(
                &hit.text,
                &hit.indices,
                theme.you(),
                width.saturating_sub(4),
            ),
            (q, None) => vec![piece(
                truncate(&clean(q), width.saturating_sub(4)),
                theme.you(),
            )],
        };
        let mut lines = vec![
            truncate_pieces(self.first_line(theme), width),
            [vec![piece("    ", theme.text())], second].concat(),
        ];
        if let Some(hit) = hit.filter(|_| on_question.is_none()) {
            let label = format!("    {}: ", hit.field.as_str());
            let room = width.saturating_sub(label.width());
            let text = highlighted(&hit.text, &hit.indices, theme.muted(), room);
            lines.push([vec![piece(label, theme.muted())], text].concat());
        }
        lines
    }

    /// Date (or `● live` and elapsed time), turns, status, provider, last checkpoint.
    fn first_line(&self, theme: &Theme) -> Vec<Piece> {
        let meta = &self.summary.meta;
        let live = is_live(self.summary);
        let turns = match meta.turns.len() {
            1 => "1 turn".to_owned(),
            n => format!("{n} turns"),
        };
        let mut line = vec![piece(
            if self.is_selected { "▸ " } else { "  " },
            theme.accent(),
        )];
        if live {
            line.push(piece(
                "● live ",
                theme.accent().add_modifier(Modifier::BOLD),
            ));
            line.push(piece(format!("{:<11}", self.elapsed()), theme.text()));
        } else {
            let date = meta.updated_at.get(..16).unwrap_or(&meta.updated_at);
            line.push(piece(
                format!("{}  ", clean(&date.replace('T', " "))),
                theme.text(),
            ));
        }
        line.push(piece(format!("{turns:<9} "), theme.muted()));
        if !live {
            let status_style = match meta.status() {
                "complete" => theme.success(),
                "error" | "http_error" | "connect_error" => theme.error(),
                _ => theme.warning(),
            };
            line.push(piece(
                format!("{:<10} ", clean(meta.status())),
                status_style,
            ));
        }
        if live || (!meta.provider.is_empty() && meta.provider != "bigdata") {
            line.push(piece(format!("{} ", clean(&meta.provider)), theme.accent()));
        }
        if self.is_open {
            line.push(piece("(open) ", theme.accent()));
        }
        if let Some(checkpoint) = meta.last_checkpoint_id() {
            line.push(piece(clean(checkpoint), theme.muted()));
        }
        line
    }

    /// How long the live turn has been streaming: `0:42`, `1:02:03`.
    fn elapsed(&self) -> String {
        let started = self
            .summary
            .meta
            .turns
            .last()
            .and_then(|t| unix_seconds(&t.started_at))
            .unwrap_or(self.now);
        let secs = self.now.saturating_sub(started);
        match secs / 3600 {
            0 => format!("{}:{:02}", secs / 60, secs % 60),
            h => format!("{h}:{:02}:{:02}", secs / 60 % 60, secs % 60),
        }
    }
}

/// `text` on one line of `width` columns, the characters at `indices` marked; when the first
/// match lies far along, the line starts shortly before it (with `…`).
fn highlighted(text: &str, indices: &[u32], base: Style, width: usize) -> Vec<Piece> {
    let chars: Vec<char> = clean(text).chars().collect();
    let first = indices.first().map_or(0, |&i| i as usize).min(chars.len());
    let lead: usize = chars[..first]
        .iter()
        .map(|c| unicode_width::UnicodeWidthChar::width(*c).unwrap_or(0))
        .sum();
    let start = if lead > width * 2 / 3 {
        first.saturating_sub(width / 4)
    } else {
        0
    };
    let mark = base.add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
    let mut pieces: Vec<Piece> = Vec::new();
    if start > 0 {
        pieces.push(piece("…", base));
    }
    for (i, c) in chars.iter().enumerate().skip(start) {
        let style = if indices.binary_search(&(i as u32)).is_ok() {
            mark
        } else {
            base
        };
        match pieces.last_mut() {
            Some(last) if last.style == style => last.text.push(*c),
            _ => pieces.push(piece(c.to_string(), style)),
        }
    }
    truncate_pieces(pieces, width)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matched_characters_are_marked_and_a_far_match_is_brought_into_view() {
        let base = Style::new();
        let pieces = highlighted("NVIDIA margins", &[7, 8, 9], base, 40);
        let marked: Vec<&str> = pieces
            .iter()
            .filter(|p| p.style.add_modifier.contains(Modifier::UNDERLINED))
            .map(|p| p.text.as_str())
            .collect();
        assert_eq!(marked, ["mar"]);
        let long = format!("{}needle", "x".repeat(200));
        let pieces = highlighted(&long, &[200, 201], base, 40);
        let text: String = pieces.iter().map(|p| p.text.as_str()).collect();
        assert!(text.starts_with('…'), "{text}");
        assert!(text.contains("needle"), "{text}");
    }
}
