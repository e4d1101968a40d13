//! Overlays: the help listing every key (from the key table, [`help`]), a source's detail ([`source`]), the ids
//! of the conversation ([`ids`]) and the saved sessions picker ([`sessions`]).

mod help;
pub mod ids;
pub mod sessions;
pub mod source;
pub mod timeline;
mod timeline_events;
pub mod timeline_turns;

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};

use unicode_width::UnicodeWidthStr;

use super::{piece, plain_lines};
use crate::styled::text::RLine;
use crate::styled::theme::Theme;
use crate::tui::state::keymap::Context;
use crate::tui::state::{App, Picker, Popup, SidebarItem};
pub use source::extract_rows;

/// The open popup this frame.
#[derive(Debug)]
pub struct PopupFrame {
    rect: Rect,
    title: String,
    footer: String,
    /// What the footer says when the keys do not fit: how to close it.
    close: String,
    rows: Vec<RLine>,
    /// The first row shown (`None`: the popup does not scroll), and the last it can be.
    scroll: Option<usize>,
    max_scroll: usize,
}

impl PopupFrame {
    /// The popup covers this cell (a click there is the popup's).
    pub fn contains(&self, x: u16, y: u16) -> bool {
        self.rect.contains(ratatui::layout::Position::new(x, y))
    }

    /// The first row shown, for a popup that scrolls.
    pub fn scroll(&self) -> Option<usize> {
        self.scroll
    }
}

/// A popup's footer with the keys in force in popups (`[keys]` may have changed them).
fn keys(app: &App, template: &str) -> String {
    app.keys
        .fill(&[Context::Popup, Context::Anywhere], template)
}

/// A centred rectangle `percent_x` × `percent_y` of `area`, at least `min_w` × `min_h`.
fn centered(area: Rect, percent_x: u16, percent_y: u16, min_w: u16, min_h: u16) -> Rect {
    let w = (area.width * percent_x / 100).max(min_w).min(area.width);
    let h = (area.height * percent_y / 100).max(min_h).min(area.height);
    sized(area, w, h)
}

/// A `w` × `h` rectangle in the middle of `area`.
fn sized(area: Rect, w: u16, h: u16) -> Rect {
    let [row] = Layout::vertical([Constraint::Length(h.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [rect] = Layout::horizontal([Constraint::Length(w.min(area.width))])
        .flex(Flex::Center)
        .areas(row);
    rect
}

fn popup_block<'a>(title: &str, footer: &'a str, theme: &Theme) -> Block<'a> {
    Block::bordered()
        .border_type(BorderType::Double)
        .border_style(theme.border(true))
        .title(Span::styled(format!(" {title} "), theme.title(true)))
        .title_bottom(
            Line::from(Span::styled(format!(" {footer} "), theme.muted())).right_aligned(),
        )
        .style(theme.base())
}

/// Where a popup's rows go inside `rect`: within the border, a column of margin each side.
fn content_area(rect: Rect) -> Rect {
    let inner = Block::bordered().inner(rect);
    Rect {
        x: inner.x + 1,
        width: inner.width.saturating_sub(2),
        ..inner
    }
}

/// Lay out the open popup over `area`, its scroll position kept within its rows (a picked span of a
/// source's detail brought into view). The popup's own scroll is not written: the position shown
/// goes back to the next update as a fact ([`PopupFrame::scroll`]).
pub fn prepare(app: &App, area: Rect) -> Option<PopupFrame> {
    let popup = app.popup.as_ref()?;
    let content = content(app, popup, area);
    let viewport = content_area(content.rect).height as usize;
    let max_scroll = content.rows.len().saturating_sub(viewport);
    let scroll = match popup {
        Popup::Source { scroll, .. } => {
            let scroll = match &content.picked {
                Some(span) => super::keep_visible(*scroll, span.start, span.end - 1, viewport),
                None => *scroll,
            };
            Some(scroll.min(max_scroll))
        }
        Popup::Help { scroll } | Popup::Ids { scroll } | Popup::Json { scroll, .. } => {
            Some((*scroll).min(max_scroll))
        }
        // The timeline keeps its selected row in view itself.
        Popup::Sessions { .. } | Popup::Chart { .. } | Popup::Timeline(_) => None,
    };
    Some(PopupFrame {
        rect: content.rect,
        title: content.title,
        footer: content.footer,
        close: keys(app, "{escape} close"),
        rows: content.rows,
        scroll,
        max_scroll,
    })
}

/// A popup's title, footer, rows and rectangle, and (a source's detail) the picked span's rows.
struct Content {
    title: String,
    footer: String,
    rows: Vec<RLine>,
    rect: Rect,
    picked: Option<std::ops::Range<usize>>,
}

/// A popup as tall as its rows (within 90% of `area`), `width` wide.
fn fitted(area: Rect, width: u16, rows: usize) -> Rect {
    let most = (area.height * 9 / 10).max(8.min(area.height));
    let height = (rows as u16).saturating_add(2).clamp(8.min(most), most);
    sized(area, width, height)
}

impl Content {
    /// A popup with no span picked.
    fn plain(title: String, footer: String, rows: Vec<RLine>, rect: Rect) -> Content {
        Content {
            title,
            footer,
            rows,
            rect,
            picked: None,
        }
    }
}

/// The popup's title, footer, rows and rectangle.
fn content(app: &App, popup: &Popup, area: Rect) -> Content {
    let theme = &app.theme;
    let narrow = area.width < super::NARROW_BELOW;
    match popup {
        Popup::Help { .. } => {
            let pct = if narrow { 96 } else { 70 };
            let rect = centered(area, pct, 80, 60.min(area.width), 20.min(area.height));
            let width = rect.width.saturating_sub(4) as usize;
            Content::plain(
                "Keys".to_owned(),
                keys(app, "{down}/{up} scroll · {escape} close"),
                help::help_rows(&app.keys, app.focus, width, theme),
                rect,
            )
        }
        Popup::Ids { .. } => {
            let w = if narrow {
                area.width
            } else {
                80.min(area.width)
            };
            let rows = ids::id_rows(app, w.saturating_sub(4) as usize, theme);
            let rect = fitted(area, w, rows.len());
            Content::plain(
                "Ids".to_owned(),
                keys(app, "{copy} copy checkpoint · {escape} close"),
                rows,
                rect,
            )
        }
        Popup::Sessions { picker } => sessions_content(app, picker, area, narrow),
        Popup::Chart { turn, chart } => chart_content(app, *turn, *chart, area),
        Popup::Json { turn, .. } => {
            let w = if narrow {
                area.width
            } else {
                100.min(area.width)
            };
            let rows = structured_json_rows(app, *turn, w.saturating_sub(4) as usize, theme);
            let rect = fitted(area, w, rows.len());
            let footer = keys(app, "{copy} copy · {down}/{up} scroll · {escape} close");
            Content::plain("Structured output (JSON)".to_owned(), footer, rows, rect)
        }
        Popup::Source { item, span, .. } => source_content(app, *item, *span, area, narrow),
        Popup::Timeline(view) => {
            let w = if narrow {
                area.width
            } else {
                (area.width * 9 / 10).max(100.min(area.width))
            };
            let width = w.saturating_sub(4) as usize;
            let most = (area.height * 9 / 10)
                .max(8.min(area.height))
                .saturating_sub(2);
            let size = (width, most as usize);
            let rows = timeline::timeline_rows(app, view, size, theme);
            let rect = fitted(area, w, rows.len());
            Content {
                title: timeline::title(app, view),
                footer: timeline::footer(app, view, false),
                rows,
                rect,
                picked: None,
            }
        }
    }
}

/// The sessions picker: as tall as its list (within 80% of the screen), the selected entry in view
/// under the filter.
fn sessions_content(app: &App, picker: &Picker, area: Rect, narrow: bool) -> Content {
    let pct = if narrow { 96 } else { 80 };
    let outer_w = (area.width * pct / 100).max(60.min(area.width));
    let width = outer_w.saturating_sub(4) as usize;
    let (mut rows, header, selected_rows) =
        sessions::session_rows(picker, app.session_id.as_deref(), width, &app.theme);
    let max_h = (area.height * 80 / 100).max(8.min(area.height));
    let height = (rows.len() as u16 + 2).clamp(8.min(max_h), max_h);
    let rect = sized(area, outer_w, height);
    let content_h = (rect.height.saturating_sub(2) as usize).saturating_sub(header);
    let top = selected_rows
        .end
        .saturating_sub(header + content_h)
        .min(selected_rows.start.saturating_sub(header));
    rows.drain(header..(header + top).min(rows.len()));
    let (title, footer) = match &picker.filter {
        Some(_) => (
            format!(
                "Saved sessions ({} of {})",
                picker.shown.len(),
                picker.entries.len()
            ),
            app.keys.fill(
                &[Context::PickerFilter, Context::Popup],
                "type to filter · {up}{down} move · {enter} open · {escape} clear",
            ),
        ),
        None => (
            format!("Saved sessions ({})", picker.entries.len()),
            keys(
                app,
                "{enter} open · {down}/{up} move · {filter} filter · {copy} copy id · {escape} close",
            ),
        ),
    };
    Content::plain(title, footer, rows, rect)
}

/// Chart `chart` of turn `turn`, full screen.
fn chart_content(app: &App, turn: usize, chart: usize, area: Rect) -> Content {
    let rect = centered(area, 100, 100, area.width, area.height);
    let inner = content_area(rect);
    let charts = app.turns.get(turn).map(|t| &t.session.charts);
    let (title, rows) = match charts.and_then(|charts| charts.get(chart)) {
        Some(c) => {
            let (w, h) = (inner.width as usize, inner.height as usize);
            let rows = super::chart::full_screen_rows(c, w, h, &app.theme);
            let count = charts.map_or(0, Vec::len);
            (format!("Chart {} of {count}", chart + 1), rows)
        }
        None => ("Chart".to_owned(), Vec::new()),
    };
    let footer = if charts.is_some_and(|c| c.len() > 1) {
        keys(
            app,
            "{previous_chart} {next_chart} previous / next chart · {copy} copy data · {escape} close",
        )
    } else {
        keys(app, "{copy} copy data · {escape} close")
    };
    // The chart covers the status bar: what it says (`y`'s "copied …") leads the footer.
    let footer = match &app.message {
        Some((said, _)) => format!("{said} · {footer}"),
        None => footer,
    };
    Content::plain(title, footer, rows, rect)
}

/// A source's detail: as wide as its widest row (a short source's detail is a small popup).
fn source_content(
    app: &App,
    item: SidebarItem,
    span: Option<usize>,
    area: Rect,
    narrow: bool,
) -> Content {
    let pct = if narrow { 96 } else { 80 };
    let most = (area.width * pct / 100).max(60.min(area.width));
    let laid = source::source_rows(app, item, span, most.saturating_sub(4) as usize, &app.theme);
    let widest = laid
        .rows
        .iter()
        .map(|row| row.text().trim_end().width())
        .max()
        .unwrap_or(0) as u16;
    let title_w = laid.title.width() as u16 + 4;
    let width = (widest + 4).max(title_w).max(60.min(most)).min(most);
    let picked = span.and_then(|k| laid.spans.get(k).cloned());
    // Tool data has no page to open.
    let footer = match item {
        SidebarItem::Source(_) => {
            "{down}/{up} spans · {enter} show · {open_source}⏎ open · {copy} copy · {escape} close"
        }
        SidebarItem::Tool(_) => "{down}/{up} spans · {enter} show · {copy} copy · {escape} close",
    };
    Content {
        rect: fitted(area, width, laid.rows.len()),
        title: laid.title,
        footer: keys(app, footer),
        rows: laid.rows,
        picked,
    }
}

pub fn draw(frame: &mut Frame, app: &App, prepared: Option<&PopupFrame>) {
    let Some(popup) = prepared else {
        return;
    };
    let theme = &app.theme;
    let rect = popup.rect;
    let top = popup.scroll.unwrap_or(0);
    // Which rows are in view (not a page count).
    let shown = content_area(rect).height as usize;
    let hint = format!(
        " lines {}–{} of {} ",
        top + 1,
        (top + shown).min(popup.rows.len()),
        popup.rows.len()
    );
    // Only a popup that scrolls says which rows are in view.
    let scrolls = popup.max_scroll > 0 && popup.scroll.is_some();
    // The keys at the foot beside the position; where both do not fit the keys stay and the
    // position goes (the keys say what can be done), and only how to close it where they do not
    // fit alone.
    let room = rect.width.saturating_sub(4) as usize;
    let beside = |footer: &str| footer.width() + 2 + hint.width() < room;
    let (footer, scrolls) = if !scrolls || beside(&popup.footer) {
        (&popup.footer, scrolls)
    } else if popup.footer.width() + 2 <= room {
        (&popup.footer, false)
    } else {
        (&popup.close, beside(&popup.close))
    };
    let footer = if footer.width() + 2 <= room {
        footer
    } else {
        &popup.close
    };
    let block = popup_block(&popup.title, footer, theme);
    frame.render_widget(Clear, rect);
    frame.render_widget(block, rect);
    let rows = &popup.rows;
    let visible = &rows[top.min(rows.len())..];
    frame.render_widget(Paragraph::new(plain_lines(visible)), content_area(rect));
    if scrolls {
        let x = rect.x + 2;
        let y = rect.y + rect.height.saturating_sub(1);
        frame.render_widget(
            Paragraph::new(Span::styled(hint.clone(), theme.muted())),
            Rect::new(
                x,
                y,
                (hint.width() as u16).min(rect.width.saturating_sub(4)),
                1,
            ),
        );
    }
}

/// A structured output's JSON, pretty-printed, each line cut to `width` (`y` copies it whole).
fn structured_json_rows(app: &App, turn: usize, width: usize, theme: &Theme) -> Vec<RLine> {
    let Some(output) = app
        .turns
        .get(turn)
        .and_then(|t| t.session.structured_output.as_ref())
    else {
        return Vec::new();
    };
    let pretty = serde_json::to_string_pretty(&output.content).unwrap_or_default();
    pretty
        .lines()
        .map(|line| RLine {
            pieces: vec![piece(
                crate::styled::text::truncate(&crate::styled::text::clean(line), width),
                theme.code(),
            )],
        })
        .collect()
}
