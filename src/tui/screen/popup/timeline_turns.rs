//! Every turn of the conversation at a glance, above the timeline's waterfall: one row each — time
//! to first byte, to first answer text, total, tool calls, the longest silence, the answer's
//! characters per second — the turn whose waterfall shows marked (`[` `]` choose another).

use super::super::{piece, truncate};
use crate::model::timeline::{PhaseKind, Timeline, seconds};
use crate::styled::text::RLine;
use crate::styled::theme::Theme;
use crate::tui::state::{App, Turn};

/// The columns after the turn's number: heading and width.
const COLUMNS: [(&str, usize); 6] = [
    ("first byte", 11),
    ("first text", 11),
    ("total", 11),
    ("tools", 6),
    ("longest gap", 12),
    ("chars/s", 8),
];

/// A turn's figures, in the order of [`COLUMNS`].
pub fn figures(turn: &Turn) -> [String; 6] {
    let Some(t) = turn.timeline.as_ref() else {
        let none = || "—".to_owned();
        return [none(), none(), "no times".into(), none(), none(), none()];
    };
    let or_dash = |ms: Option<u64>| ms.map_or_else(|| "—".to_owned(), seconds);
    let total = match (turn.conn.in_progress(), t.last_ms) {
        (true, Some(ms)) => format!("{}…", seconds(ms)),
        (true, None) => "…".to_owned(),
        (false, ms) => or_dash(ms),
    };
    [
        or_dash(t.first_byte_ms),
        or_dash(t.first_answer_ms),
        total,
        tools(t).to_string(),
        or_dash(t.longest_gap().map(|g| g.end_ms - g.start_ms)),
        t.answer_throughput()
            .map_or_else(|| "—".to_owned(), |rate| format!("{rate:.0}")),
    ]
}

fn tools(timeline: &Timeline) -> usize {
    timeline
        .phases
        .iter()
        .filter(|p| p.kind == PhaseKind::Tool)
        .count()
}

/// The summary's rows at `width` columns: a heading, then at most `most` turns around the one
/// shown (`shown`), which is marked. Nothing for a conversation of one turn (its figures are the
/// waterfall's own first line).
pub(super) fn turn_rows(
    app: &App,
    shown: usize,
    width: usize,
    most: usize,
    theme: &Theme,
) -> Vec<RLine> {
    if app.turns.len() < 2 || most == 0 {
        return Vec::new();
    }
    let line = |cells: Vec<(String, ratatui::style::Style)>| RLine {
        pieces: vec![piece(
            truncate(
                &cells.iter().map(|(t, _)| t.as_str()).collect::<String>(),
                width,
            ),
            cells[0].1,
        )],
    };
    let mut heading = vec![(format!("{:<7}", "turn"), theme.muted())];
    heading.extend(
        COLUMNS
            .iter()
            .map(|(name, w)| (format!("{name:>w$}"), theme.muted())),
    );
    let mut out = vec![line(heading)];
    let start = shown
        .saturating_sub(most / 2)
        .min(app.turns.len().saturating_sub(most));
    for (i, turn) in app.turns.iter().enumerate().skip(start).take(most) {
        let mark = if i == shown { "▶" } else { " " };
        let style = if i == shown {
            theme.text().patch(theme.selection(true))
        } else {
            theme.text()
        };
        let mut cells = vec![(format!("{mark} {:<5}", i + 1), style)];
        cells.extend(
            figures(turn)
                .into_iter()
                .zip(COLUMNS)
                .map(|(value, (_, w))| (format!("{value:>w$}"), style)),
        );
        out.push(line(cells));
    }
    out.push(RLine::blank());
    out
}
