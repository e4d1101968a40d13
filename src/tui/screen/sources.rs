//! The sources sidebar: numbered sources (`[n] publisher - date`, then how many spans they support
//! and the headline), then tool-level citations (tool name, audit id), then sources consulted but
//! not cited. A label is wrapped, never cut: the publisher and the date stay whole. The selected
//! entry carries a `▶` and a bar across the pane. Only the entries in view are formatted, so a long
//! list costs no more to draw than a short one.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::cited::{charts_of, cited_text, source_label};
use super::{
    clean, keep_visible, pane_block, pane_inner, piece, plain_lines, select_row, title, truncate,
    wrap_text,
};
use crate::model::citations::Source;
use crate::styled::text::{Piece, RLine, inline_text};
use crate::styled::theme::Theme;
use crate::tui::state::keymap::Context;
use crate::tui::state::{App, Focus, Scroll, SidebarItem, Turn};

/// The sources pane's own state: the selected entry, the scroll position and the rows kept.
#[derive(Debug)]
pub struct SourcesPane {
    /// The selected entry (index into the current turn's sidebar).
    pub selected: Option<usize>,
    pub scroll: Scroll,
    cache: SourcesCache,
}

impl Default for SourcesPane {
    fn default() -> Self {
        SourcesPane {
            selected: None,
            scroll: Scroll {
                follow: false,
                ..Scroll::default()
            },
            cache: SourcesCache::default(),
        }
    }
}

impl SourcesPane {
    /// The selected entry of the turn shown.
    pub fn selected_item(&self, app: &App) -> Option<SidebarItem> {
        app.sidebar_items().get(self.selected?).copied()
    }

    /// The source number the selected entry stands for.
    pub fn selected_number(&self, app: &App) -> Option<usize> {
        match self.selected_item(app)? {
            SidebarItem::Source(i) => {
                let source = app.current()?.attribution.sources.get(i)?;
                (!source.consulted_only).then_some(source.n)
            }
            SidebarItem::Tool(_) => None,
        }
    }

    /// Select entry `index`; whether the selection changed.
    pub fn select(&mut self, index: usize) -> bool {
        let changed = self.selected != Some(index);
        self.selected = Some(index);
        changed
    }

    /// j/k and paging: move the selection by `delta` entries (from none: the first); whether it
    /// changed.
    pub fn move_by(&mut self, app: &App, delta: isize) -> bool {
        let n = app.sidebar_items().len();
        if n == 0 {
            return false;
        }
        let next = match self.selected {
            Some(i) => i.saturating_add_signed(delta).min(n - 1),
            None => 0,
        };
        self.select(next)
    }

    /// g/G: the first or the last entry; whether there was one.
    pub fn to_edge(&mut self, app: &App, bottom: bool) -> bool {
        let n = app.sidebar_items().len();
        if n > 0 {
            self.selected = Some(if bottom { n - 1 } else { 0 });
        }
        n > 0
    }

    /// Trade the rows kept between frames with `other`'s.
    pub fn swap_rows(&mut self, other: &mut SourcesPane) {
        std::mem::swap(&mut self.cache, &mut other.cache);
    }

    /// A new turn (or an earlier one) is shown: nothing selected, from the top.
    pub fn new_turn(&mut self) {
        self.selected = None;
        self.scroll.top = 0;
    }
}

/// Columns before every entry: the selection's `▶`.
pub const GUTTER: usize = 2;

/// One row of the sidebar, before formatting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    Blank,
    Header(&'static str),
    /// Row `k` of entry `index`.
    Item(usize, usize),
    Note(&'static str),
    /// What the focused sidebar's keys do, with the keys in force.
    Keys,
}

/// The focused sidebar's note of its keys (`[keys]` may change them).
const KEYS_NOTE: &str =
    "{enter} details · {next_span}/{previous_span} spans · {open_source} open · {copy} copy";

/// The sidebar's rows, kept between frames: laying them out formats every entry to count its rows,
/// which would make each frame cost as much as the list is long.
#[derive(Debug, Default)]
pub struct SourcesCache {
    /// [`Turn::id`], width and [`Turn::sidebar_version`] the rows were laid out for.
    key: Option<(u64, usize, u64)>,
    rows: Vec<Row>,
}

impl SourcesCache {
    /// `turn`'s sidebar rows at `width` columns, laid out again only when the sidebar or the width
    /// changed.
    fn rows(&mut self, turn: &Turn, width: usize, theme: &Theme) -> &[Row] {
        let key = (turn.id, width, turn.sidebar_version);
        if self.key != Some(key) {
            self.rows = layout(turn, width, theme);
            self.key = Some(key);
        }
        &self.rows
    }
}

/// Rows of `turn`'s sidebar entries at `width` columns (the gutter included).
fn layout(turn: &Turn, width: usize, theme: &Theme) -> Vec<Row> {
    let items = &turn.sidebar;
    let mut rows = Vec::with_capacity(items.len() * 2 + 4);
    let mut section = 0u8;
    for (index, item) in items.iter().enumerate() {
        let wanted = match item {
            SidebarItem::Source(i) if turn.attribution.sources[*i].consulted_only => 2,
            SidebarItem::Source(_) => 0,
            SidebarItem::Tool(_) => 1,
        };
        if wanted > section {
            section = wanted;
            if !rows.is_empty() {
                rows.push(Row::Blank);
            }
            rows.push(Row::Header(if wanted == 1 {
                "Tool data"
            } else {
                "Also consulted"
            }));
        }
        let height = item_rows(turn, *item, width, theme).len();
        rows.extend((0..height).map(|k| Row::Item(index, k)));
    }
    rows
}

/// A source's label rows: `[n] publisher - date` on one row when it fits; else the publisher wrapped
/// and the date on a row of its own. Labels without a date (a title, a host) take at most two rows.
fn label_rows(source: &Source, width: usize, theme: &Theme) -> Vec<RLine> {
    let (tag, tag_style) = if source.consulted_only {
        ("· ".to_owned(), theme.muted())
    } else {
        (
            format!("[{}] ", source.n),
            theme.marker().add_modifier(Modifier::BOLD),
        )
    };
    let indent = vec![piece(" ".repeat(tag.width().min(5)), Style::new())];
    let first = vec![piece(tag.clone(), tag_style)];
    let label = source_label(source);
    let date = source.date.map(|d| d.display());
    let dated = date
        .as_ref()
        .filter(|d| label == format!("{} - {d}", clean(&source.publisher)));
    if tag.width() + label.width() <= width || dated.is_none() {
        let mut rows = wrap_text(&label, theme.text(), width, first, indent.clone());
        if rows.len() > 2 {
            rows.truncate(2);
            // The second row ends with `…`: the rest of a long title is in the detail popup.
            let rest: String = rows[1].pieces[indent.len()..]
                .iter()
                .map(|p| p.text.as_str())
                .collect();
            let room = width.saturating_sub(indent[0].text.width());
            let mut pieces = indent;
            pieces.push(piece(
                truncate(&format!("{}…", rest.trim_end()), room),
                theme.text(),
            ));
            rows[1] = RLine { pieces };
        }
        return rows;
    }
    let date = dated.expect("checked above");
    let mut rows = wrap_text(
        &clean(&source.publisher),
        theme.text(),
        width,
        first,
        indent.clone(),
    );
    let mut date_row = indent;
    date_row.push(piece(date.clone(), theme.muted()));
    rows.push(RLine { pieces: date_row });
    rows
}

/// A source's detail row after its span count: the headline (unless the label already is it, as
/// Zeta Alpha titles are), else for a post on X what the answer cites it for, else its URL or kind.
fn detail(turn: &Turn, source: &Source) -> String {
    let kind = || source.kind.as_deref().map(|k| clean(&k.to_lowercase()));
    match source.headline.as_deref() {
        Some(h) if h.trim() != source.label.trim() => return clean(h),
        Some(_) => return kind().unwrap_or_default(),
        None => {}
    }
    let a = &turn.attribution;
    // A post on X has no title: what it says (as cited) tells it apart.
    let first_cited = source.citations.first().and_then(|&c| a.citations.get(c));
    let x_quote = first_cited
        .filter(|_| source.kind.as_deref() == Some("X"))
        .map(|first| {
            let text = inline_text(&cited_text(a, first, turn.session.answer.as_str()));
            format!("“{}”", clean(&text))
        });
    x_quote
        .or_else(|| source.url.as_deref().map(clean))
        .or_else(kind)
        .unwrap_or_default()
}

/// An entry's rows at `width` columns (without the gutter): its label, then one row of detail.
fn item_rows(turn: &Turn, item: SidebarItem, width: usize, theme: &Theme) -> Vec<RLine> {
    let width = width.saturating_sub(GUTTER).max(1);
    let a = &turn.attribution;
    match item {
        SidebarItem::Source(i) => {
            let source = &a.sources[i];
            let mut rows = label_rows(source, width, theme);
            let pad = if source.consulted_only { 2 } else { 4 };
            let mut pieces = vec![piece(" ".repeat(pad), theme.muted())];
            let mut used = pad;
            if !source.consulted_only {
                let count = match source.citations.len() {
                    // Cited by the answer as a whole: there is no span to count.
                    0 if source.cited_without_position => "no position · ".to_owned(),
                    0 => "pending · ".to_owned(),
                    1 => "1 span · ".to_owned(),
                    k => format!("{k} spans · "),
                };
                used += count.width();
                pieces.push(piece(count, theme.accent()));
            }
            let headline = detail(turn, source);
            pieces.push(piece(
                truncate(&headline, width.saturating_sub(used)),
                theme.muted(),
            ));
            rows.push(RLine { pieces });
            rows
        }
        SidebarItem::Tool(ci) => {
            let citation = &a.citations[ci];
            let tool = clean(citation.tool_name.as_deref().unwrap_or("tool"));
            // The chart it drew tells two calls of one tool apart better than their audit id.
            let chart = charts_of(turn, citation).next();
            let detail = match (chart, &citation.audit_id) {
                (Some(chart), _) => {
                    format!("▦ {}", clean(chart.title.as_deref().unwrap_or("chart")))
                }
                (None, Some(audit)) => clean(audit),
                (None, None) => format!("“{}”", clean(citation.text(turn.session.answer.as_str()))),
            };
            vec![
                RLine {
                    pieces: vec![
                        piece("⚙ ", theme.accent()),
                        piece(truncate(&tool, width.saturating_sub(2)), theme.text()),
                    ],
                },
                RLine {
                    pieces: vec![
                        piece("  ", theme.muted()),
                        piece(truncate(&detail, width.saturating_sub(2)), theme.muted()),
                    ],
                },
            ]
        }
    }
}

/// The sidebar's rows (not yet formatted) and the first one shown, for this frame.
#[derive(Debug)]
pub enum SourcesFrame {
    /// Nothing asked yet.
    NoTurn,
    Rows {
        rows: Vec<Row>,
        top: usize,
    },
}

impl SourcesFrame {
    /// The entry drawn on row `y` of the pane's inside (for a click).
    pub fn item_at(&self, y: usize) -> Option<usize> {
        match self {
            SourcesFrame::Rows { rows, top } => match rows.get(top + y)? {
                Row::Item(index, _) => Some(*index),
                _ => None,
            },
            SourcesFrame::NoTurn => None,
        }
    }
}

/// Lay out the rows and resolve the scroll, keeping the selected entry in view.
pub fn prepare(app: &App, pane: &mut SourcesPane, reveal: bool, area: Rect) -> SourcesFrame {
    let focused = app.shows_focus(Focus::Sources);
    let inner = pane_inner(area);
    let viewport = inner.height as usize;
    let Some(turn) = app.current() else {
        return SourcesFrame::NoTurn;
    };
    let mut rows = pane
        .cache
        .rows(turn, inner.width as usize, &app.theme)
        .to_vec();
    if turn.sidebar.is_empty() {
        rows.push(Row::Note(if turn.conn.in_progress() {
            "Sources appear as the answer cites them."
        } else {
            "No sources cited."
        }));
    } else if focused && rows.len() + 2 <= viewport {
        rows.push(Row::Blank);
        rows.push(Row::Keys);
    }
    let selected_range = pane.selected.and_then(|s| {
        let first = rows
            .iter()
            .position(|r| matches!(r, Row::Item(i, _) if *i == s))?;
        let last = rows
            .iter()
            .rposition(|r| matches!(r, Row::Item(i, _) if *i == s))?;
        Some((first, last))
    });
    let scroll = &mut pane.scroll;
    let mut top = scroll.resolve(rows.len(), viewport);
    if let Some((first, last)) = selected_range.filter(|_| reveal) {
        top = keep_visible(top, first, last, viewport);
        scroll.top = top;
    }
    SourcesFrame::Rows { rows, top }
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App, pane: &SourcesPane, prepared: &SourcesFrame) {
    let focused = app.shows_focus(Focus::Sources);
    let theme = &app.theme;
    let numbered = app
        .current()
        .map_or(0, |t| t.attribution.numbered().count());
    let extra = (numbered > 0).then(|| numbered.to_string());
    let block = pane_block(
        title("Sources", super::of_turn(app, extra), focused, theme),
        focused,
        theme,
    );
    let inner = block.inner(area);
    let width = inner.width as usize;
    let viewport = inner.height as usize;
    let (SourcesFrame::Rows { rows, top }, Some(turn)) = (prepared, app.current()) else {
        frame.render_widget(block, area);
        return;
    };
    let selected = pane.selected;
    // The entries in view, each formatted once.
    let mut formatted: Option<(usize, Vec<RLine>)> = None;
    let mut visible: Vec<RLine> = Vec::with_capacity(viewport);
    let mut bars = Vec::new();
    for row in rows.iter().skip(*top).take(viewport) {
        if matches!(row, Row::Item(i, _) if selected == Some(*i)) {
            bars.push(visible.len());
        }
        visible.push(match *row {
            Row::Blank => RLine::blank(),
            Row::Header(text) => RLine {
                pieces: vec![piece(text, theme.muted().add_modifier(Modifier::BOLD))],
            },
            Row::Note(text) => RLine {
                pieces: vec![piece(truncate(text, width), theme.muted())],
            },
            Row::Keys => {
                let note = app.keys.fill(&[Context::Panes], KEYS_NOTE);
                RLine {
                    pieces: vec![piece(truncate(&note, width), theme.muted())],
                }
            }
            Row::Item(index, k) => {
                if formatted.as_ref().is_none_or(|(i, _)| *i != index) {
                    let item = turn.sidebar[index];
                    formatted = Some((index, item_rows(turn, item, width, theme)));
                }
                let rows = &formatted.as_ref().expect("formatted above").1;
                let mut row = rows.get(k).cloned().unwrap_or_default();
                // A source whose title holds the search's query is lit like the answer's hits.
                if app.search.as_ref().is_some_and(|s| s.is_source_hit(index)) {
                    for p in &mut row.pieces {
                        p.style = p.style.patch(theme.search_hit());
                    }
                }
                gutter_row(row, selected == Some(index), k == 0, width, focused, theme)
            }
        });
    }
    frame.render_widget(Paragraph::new(plain_lines(&visible)).block(block), area);
    super::paint_bars(frame.buffer_mut(), inner, &bars, theme.selection(focused));
}

/// A list row behind its gutter: the selected entry's first row gets a `▶`, and every row of it the
/// selection bar across the pane.
pub fn gutter_row(
    mut row: RLine,
    selected: bool,
    first: bool,
    width: usize,
    focused: bool,
    theme: &Theme,
) -> RLine {
    let mark: Piece = if selected && first {
        piece("▶ ", theme.accent().add_modifier(Modifier::BOLD))
    } else {
        piece("  ", Style::new())
    };
    row.pieces.insert(0, mark);
    if selected {
        select_row(&mut row, width, theme.selection(focused));
    }
    row
}
