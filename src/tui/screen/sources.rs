//! The sources sidebar: numbered sources (`[n] label`, headline, how many spans they support), then
//! tool-level citations (tool name, audit id), then sources consulted but not cited.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::Paragraph;

use super::{clean, keep_visible, pane_block, piece, plain_lines, title, truncate};
use crate::tui::answer_view::RLine;
use crate::tui::app::{App, Focus, SidebarItem};

pub fn draw(frame: &mut Frame, area: Rect, app: &mut App) {
    let focused = app.focus == Focus::Sources;
    let theme = app.theme.clone();
    let items = app.sidebar_items();
    let numbered = app
        .current()
        .map_or(0, |t| t.attribution.numbered().count());
    let extra = (numbered > 0).then(|| numbered.to_string());
    let block = pane_block(title("Sources", extra, focused, &theme), focused, &theme);
    let inner = block.inner(area);
    let width = inner.width as usize;
    let mut rows: Vec<RLine> = Vec::new();
    let mut selected_range = None;
    if let Some(turn) = app.current() {
        let a = &turn.attribution;
        let answer = turn.session.answer.as_str();
        let mut section = 0u8;
        for (index, item) in items.iter().enumerate() {
            let start = rows.len();
            let mut item_rows = Vec::new();
            match *item {
                SidebarItem::Source(i) => {
                    let source = &a.sources[i];
                    if source.consulted_only && section < 2 {
                        section = 2;
                        if !rows.is_empty() {
                            rows.push(RLine::blank());
                        }
                        rows.push(RLine {
                            pieces: vec![piece(
                                "Also consulted",
                                theme.muted().add_modifier(Modifier::BOLD),
                            )],
                        });
                    }
                    let (tag, tag_style) = if source.consulted_only {
                        ("· ".to_owned(), theme.muted())
                    } else {
                        (
                            format!("[{}] ", source.n),
                            theme.marker().add_modifier(Modifier::BOLD),
                        )
                    };
                    let tag_w = unicode_width::UnicodeWidthStr::width(tag.as_str());
                    let label = truncate(&clean(&source.label), width.saturating_sub(tag_w));
                    item_rows.push(RLine {
                        pieces: vec![piece(tag, tag_style), piece(label, theme.text())],
                    });
                    let pad = " ".repeat(tag_w.min(4));
                    let mut second = Vec::new();
                    if !source.consulted_only {
                        let k = source.citations.len();
                        let count = match k {
                            0 => "pending · ".to_owned(),
                            1 => "1 span · ".to_owned(),
                            k => format!("{k} spans · "),
                        };
                        second.push(piece(count, theme.accent()));
                    }
                    let used: usize = 4 + second
                        .iter()
                        .map(|p| unicode_width::UnicodeWidthStr::width(p.text.as_str()))
                        .sum::<usize>();
                    let headline = source
                        .headline
                        .as_deref()
                        .or(source.url.as_deref())
                        .map(clean)
                        .unwrap_or_default();
                    second.push(piece(
                        truncate(&headline, width.saturating_sub(used)),
                        theme.muted(),
                    ));
                    second.insert(0, piece(pad, theme.muted()));
                    item_rows.push(RLine { pieces: second });
                }
                SidebarItem::Tool(ci) => {
                    if section < 1 {
                        section = 1;
                        if !rows.is_empty() {
                            rows.push(RLine::blank());
                        }
                        rows.push(RLine {
                            pieces: vec![piece(
                                "Tool data",
                                theme.muted().add_modifier(Modifier::BOLD),
                            )],
                        });
                    }
                    let citation = &a.citations[ci];
                    let tool = clean(citation.tool_name.as_deref().unwrap_or("tool"));
                    item_rows.push(RLine {
                        pieces: vec![
                            piece("⚙ ", theme.accent()),
                            piece(truncate(&tool, width.saturating_sub(2)), theme.text()),
                        ],
                    });
                    let detail = match &citation.audit_id {
                        Some(audit) => clean(audit),
                        None => format!("“{}”", clean(citation.text(answer))),
                    };
                    item_rows.push(RLine {
                        pieces: vec![
                            piece("  ", theme.muted()),
                            piece(truncate(&detail, width.saturating_sub(2)), theme.muted()),
                        ],
                    });
                }
            }
            if app.source_selected == Some(index) {
                let style = if focused {
                    theme.selection(true)
                } else {
                    theme.selection(false)
                };
                for row in &mut item_rows {
                    let pad = width.saturating_sub(row.width());
                    row.pieces.push(piece(" ".repeat(pad), Style::new()));
                    for p in &mut row.pieces {
                        p.style = p.style.patch(style);
                    }
                }
            }
            let first = rows.len();
            rows.extend(item_rows);
            if app.source_selected == Some(index) {
                selected_range = Some((first.min(start + 2), rows.len() - 1));
            }
        }
        if items.is_empty() {
            let text = if turn.conn.in_progress() {
                "Sources appear as the answer cites them."
            } else {
                "No sources cited."
            };
            rows.push(RLine {
                pieces: vec![piece(text, theme.muted())],
            });
        }
        if !items.is_empty() && focused && rows.len() + 2 <= inner.height as usize {
            rows.push(RLine::blank());
            rows.push(RLine {
                pieces: vec![piece(
                    truncate("Enter details · n/N spans · o open · y copy", width),
                    theme.muted(),
                )],
            });
        }
    }
    let viewport = inner.height as usize;
    let scroll = &mut app.sources_scroll;
    let mut top = scroll.resolve(rows.len(), viewport);
    if let Some((first, last)) = selected_range {
        top = keep_visible(top, first, last, viewport);
        scroll.top = top;
    }
    frame.render_widget(
        Paragraph::new(plain_lines(&rows))
            .block(block)
            .scroll((top.min(u16::MAX as usize) as u16, 0)),
        area,
    );
}
