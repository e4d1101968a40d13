//! Overlays: the help listing every key (from the key table), a source's detail ([`source`]) and the
//! saved sessions picker ([`sessions`]).

pub mod sessions;
pub mod source;

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};

use super::{piece, plain_lines, wrap_text};
use crate::tui::state::keymap::KEYMAP;
use crate::tui::state::{App, Popup};
use crate::tui::text::RLine;
use crate::tui::theme::Theme;
pub use source::extract_rows;

/// The open popup this frame.
#[derive(Debug)]
pub struct PopupFrame {
    rect: Rect,
    title: String,
    footer: &'static str,
    rows: Vec<RLine>,
    /// The first row shown, and the last it can be.
    scroll: usize,
    max_scroll: usize,
    /// The sessions picker, which keeps its selection in view itself (no scroll position hint).
    picker: bool,
}

/// A centred rectangle `percent_x` × `percent_y` of `area`, at least `min_w` × `min_h`.
fn centered(area: Rect, percent_x: u16, percent_y: u16, min_w: u16, min_h: u16) -> Rect {
    let w = (area.width * percent_x / 100).max(min_w).min(area.width);
    let h = (area.height * percent_y / 100).max(min_h).min(area.height);
    let [row] = Layout::vertical([Constraint::Length(h)])
        .flex(Flex::Center)
        .areas(area);
    let [rect] = Layout::horizontal([Constraint::Length(w)])
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

/// Lay out the open popup over `area` and clamp its scroll position to its rows.
pub fn prepare(app: &mut App, area: Rect) -> Option<PopupFrame> {
    let popup = app.popup.as_ref()?;
    let picker = matches!(popup, Popup::Sessions { .. });
    let (title, footer, rows, rect) = content(app, popup, area);
    let max_scroll = rows
        .len()
        .saturating_sub(content_area(rect).height as usize);
    let scroll = match &mut app.popup {
        Some(Popup::Help { scroll }) | Some(Popup::Source { scroll, .. }) => {
            *scroll = (*scroll).min(max_scroll);
            *scroll
        }
        Some(Popup::Sessions { .. }) | None => 0,
    };
    Some(PopupFrame {
        rect,
        title,
        footer,
        rows,
        scroll,
        max_scroll,
        picker,
    })
}

/// The popup's title, footer, rows and rectangle.
fn content(app: &App, popup: &Popup, area: Rect) -> (String, &'static str, Vec<RLine>, Rect) {
    let theme = &app.theme;
    let narrow = area.width < super::NARROW_BELOW;
    match popup {
        Popup::Help { .. } => {
            let pct = if narrow { 96 } else { 70 };
            let rect = centered(area, pct, 80, 60.min(area.width), 20.min(area.height));
            let width = rect.width.saturating_sub(4) as usize;
            (
                "Keys".to_owned(),
                "Esc close",
                help_rows(width, theme),
                rect,
            )
        }
        Popup::Sessions { list, selected } => {
            let pct = if narrow { 96 } else { 80 };
            let outer_w = (area.width * pct / 100).max(60.min(area.width));
            let width = outer_w.saturating_sub(4) as usize;
            let (rows, selected_rows) =
                sessions::session_rows(list, *selected, app.session_id.as_deref(), width, theme);
            // As tall as the list, within 80% of the screen.
            let max_h = (area.height * 80 / 100).max(8.min(area.height));
            let height = (rows.len() as u16 + 2).clamp(8.min(max_h), max_h);
            let rect = Rect {
                x: area.x + (area.width - outer_w) / 2,
                y: area.y + (area.height - height) / 2,
                width: outer_w,
                height,
            };
            let content_h = rect.height.saturating_sub(2) as usize;
            // Keep the selected entry in view.
            let top = selected_rows
                .end
                .saturating_sub(content_h)
                .min(selected_rows.start);
            (
                format!("Saved sessions ({})", list.len()),
                "Enter open · j/k move · Esc close",
                rows[top.min(rows.len())..].to_vec(),
                rect,
            )
        }
        Popup::Source { item, .. } => {
            let pct = if narrow { 96 } else { 80 };
            let rect = centered(area, pct, 90, 60.min(area.width), 16.min(area.height));
            let width = rect.width.saturating_sub(4) as usize;
            let (title, rows) = source::source_rows(app, *item, width, theme);
            (
                title,
                "Esc close · j/k scroll · o open · y copy",
                rows,
                rect,
            )
        }
    }
}

pub fn draw(frame: &mut Frame, app: &App, prepared: Option<&PopupFrame>) {
    let Some(popup) = prepared else {
        return;
    };
    let theme = &app.theme;
    let rect = popup.rect;
    let block = popup_block(&popup.title, popup.footer, theme);
    frame.render_widget(Clear, rect);
    frame.render_widget(block, rect);
    let rows = &popup.rows;
    let visible = &rows[popup.scroll.min(rows.len())..];
    frame.render_widget(Paragraph::new(plain_lines(visible)), content_area(rect));
    if popup.max_scroll > 0 && !popup.picker {
        let hint = format!(" {}/{} ", popup.scroll + 1, popup.max_scroll + 1);
        let x = rect.x + 2;
        let y = rect.y + rect.height.saturating_sub(1);
        frame.render_widget(
            Paragraph::new(Span::styled(hint.clone(), theme.muted())),
            Rect::new(
                x,
                y,
                (hint.len() as u16).min(rect.width.saturating_sub(4)),
                1,
            ),
        );
    }
}

fn help_rows(width: usize, theme: &Theme) -> Vec<RLine> {
    let key_w = KEYMAP
        .iter()
        .map(|entry| entry.keys.chars().count())
        .max()
        .unwrap_or(0)
        + 2;
    let mut rows = Vec::new();
    for entry in KEYMAP {
        let first = vec![piece(
            format!("{:<key_w$}", entry.keys),
            theme.accent().add_modifier(Modifier::BOLD),
        )];
        let cont = vec![piece(" ".repeat(key_w), Style::new())];
        rows.extend(wrap_text(entry.help, theme.text(), width, first, cont));
    }
    rows.push(RLine::blank());
    rows.push(RLine {
        pieces: vec![piece(
            "Citation markers [n] follow the span they cite; select a source (c, j/k) to highlight its spans.",
            theme.muted(),
        )],
    });
    rows
}
