//! The raw events behind a row of the timeline, like a browser's network panel: each one's byte
//! offset in the turn file, its `event:` type, its size and when it arrived, the selected one's data
//! below, pretty-printed when it is JSON. Everything from the file is sanitised before it is shown.

use super::super::{clean, piece, truncate};
use crate::model::timeline::seconds;
use crate::styled::text::RLine;
use crate::styled::theme::Theme;
use crate::tui::state::EventsView;

/// The rows of `view` at `width` columns, at most `height`: what they stand behind, the events
/// (a window around the selected one), then the selected one's data.
pub(super) fn event_rows(
    view: &EventsView,
    (width, height): (usize, usize),
    theme: &Theme,
) -> Vec<RLine> {
    let one = |text: String, style| RLine {
        pieces: vec![piece(truncate(&clean(&text), width), style)],
    };
    let file = view
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let count = view.found.events.len() + view.found.more;
    let s = if count == 1 { "" } else { "s" };
    let mut out = vec![
        one(
            format!(
                "Raw events behind {} · {count} event{s} in {file}",
                view.row
            ),
            theme.title(true),
        ),
        RLine::blank(),
    ];
    if view.found.events.is_empty() {
        out.push(one("no raw event behind this row".into(), theme.muted()));
        return out;
    }
    out.push(one(
        format!(
            "  {:>10}  {:<24} {:>10}  {:>9}",
            "offset", "type", "size", "arrived"
        ),
        theme.muted(),
    ));
    let listed: Vec<RLine> = view
        .found
        .events
        .iter()
        .enumerate()
        .map(|(i, event)| {
            let kind = match event.event_type.as_str() {
                "" => "message",
                other => other,
            };
            let text = format!(
                "{} {:>10}  {:<24} {:>10}  {:>9}",
                if i == view.selected { "▶" } else { " " },
                event.range.start,
                truncate(&clean(kind), 24),
                size(event.data_bytes),
                event.ms.map_or_else(|| "—".to_owned(), seconds),
            );
            let style = if i == view.selected {
                theme.text().patch(theme.selection(true))
            } else {
                theme.text()
            };
            one(text, style)
        })
        .collect();
    // The list takes up to half the room; the data the rest.
    let room = (height.saturating_sub(out.len()) / 2).clamp(3, 12);
    let start = view
        .selected
        .saturating_sub(room / 2)
        .min(listed.len().saturating_sub(room));
    out.extend(listed.into_iter().skip(start).take(room));
    if view.found.more > 0 {
        out.push(one(
            format!(
                "… and {} more (the first {} listed)",
                view.found.more,
                view.found.events.len()
            ),
            theme.muted(),
        ));
    }
    out.push(RLine::blank());
    let data_room = height.saturating_sub(out.len()).max(1);
    match &view.data {
        Some((i, Ok(text))) if *i == view.selected => {
            let lines: Vec<&str> = text.lines().collect();
            if lines.len() <= data_room {
                out.extend(
                    lines
                        .iter()
                        .map(|line| one((*line).to_owned(), theme.code())),
                );
                return out;
            }
            // Longer than the room: a window of it, and where it is.
            let room = data_room.saturating_sub(1).max(1);
            let top = view.data_top.min(lines.len().saturating_sub(room));
            let end = (top + room).min(lines.len());
            out.extend(
                lines[top..end]
                    .iter()
                    .map(|line| one((*line).to_owned(), theme.code())),
            );
            out.push(one(
                format!(
                    "lines {}–{end} of {} · PgUp PgDn scroll · y copies it whole",
                    top + 1,
                    lines.len()
                ),
                theme.muted(),
            ));
        }
        Some((i, Err(why))) if *i == view.selected => out.push(one(why.clone(), theme.warning())),
        _ => {}
    }
    out
}

/// `312 B`, `4.2 KiB`, `1.3 MiB`.
fn size(bytes: usize) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1 << 20 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / (1 << 20) as f64),
    }
}
