//! The raw events behind a row of the timeline, like a browser's network panel: each one's byte
//! offset in the turn file, its `event:` type, its size and when it arrived, the selected one's data
//! below, pretty-printed when it is JSON. Everything from the file is sanitised before it is shown.

use super::super::{clean, piece, truncate};
use crate::model::timeline::seconds;
use crate::styled::text::RLine;
use crate::styled::theme::Theme;
use crate::tui::state::{EventData, EventsView};

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
    // A scan cut short says so: these are the events of the file's opening.
    let part = match view.found.cut_at {
        Some(bytes) => format!("the first {} of ", size(bytes as usize)),
        None => String::new(),
    };
    let mut out = vec![
        one(
            format!(
                "Raw events behind {} · {count} event{s} in {part}{file}",
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
    // The list takes up to half the room; the data the rest. Only the window is laid out.
    let room = (height.saturating_sub(out.len()) / 2).clamp(3, 12);
    let listed = view.found.events.len();
    let start = view
        .selected
        .saturating_sub(room / 2)
        .min(listed.saturating_sub(room));
    out.extend(
        view.found
            .events
            .iter()
            .enumerate()
            .skip(start)
            .take(room)
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
            }),
    );
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
        Some(data) if data.index == view.selected => match &data.text {
            Ok(_) => out.extend(data_rows(data, view.data_top, data_room, &one, theme)),
            Err(why) => out.push(one(why.clone(), theme.warning())),
        },
        _ => {}
    }
    out
}

/// The rows of the selected event's data in `room` rows: all of it, or a window from line `top`
/// and where it is. Only the lines shown are taken from the text.
fn data_rows(
    data: &EventData,
    top: usize,
    room: usize,
    one: &impl Fn(String, ratatui::style::Style) -> RLine,
    theme: &Theme,
) -> Vec<RLine> {
    let count = data.line_count();
    if count <= room {
        return data
            .lines(0..count)
            .map(|line| one(line.to_owned(), theme.code()))
            .collect();
    }
    // Longer than the room: a window of it, and where it is.
    let room = room.saturating_sub(1).max(1);
    let top = top.min(count.saturating_sub(room));
    let end = (top + room).min(count);
    let mut out: Vec<RLine> = data
        .lines(top..end)
        .map(|line| one(line.to_owned(), theme.code()))
        .collect();
    out.push(one(
        format!(
            "lines {}–{end} of {count} · PgUp PgDn scroll · y copies it whole",
            top + 1
        ),
        theme.muted(),
    ));
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
