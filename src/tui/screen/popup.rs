//! Overlays: the help listing every key (from the key table), and a source's detail (label, headline, publisher, date, URL,
//! the audit's search query, the chunks or extract text, and every span it supports).

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};

use super::{clean, piece, plain_lines, truncate, wrap_text};
use crate::local::store::SessionMeta;
use crate::tui::app::{App, Popup, SidebarItem};
use crate::tui::state::keymap::KEYMAP;
use crate::tui::text::{Piece, RLine, wrap};
use crate::tui::theme::Theme;
use crate::wire::provider::Provider;

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

fn popup_block<'a>(title: String, footer: &'a str, theme: &Theme) -> Block<'a> {
    Block::bordered()
        .border_type(BorderType::Double)
        .border_style(theme.border(true))
        .title(Span::styled(format!(" {title} "), theme.title(true)))
        .title_bottom(
            Line::from(Span::styled(format!(" {footer} "), theme.muted())).right_aligned(),
        )
        .style(theme.base())
}

pub fn draw(frame: &mut Frame, area: Rect, app: &mut App) {
    let Some(popup) = app.popup.clone() else {
        return;
    };
    let theme = app.theme.clone();
    let (title, footer, rows, rect) = match &popup {
        Popup::Help { .. } => {
            let pct = if area.width < super::NARROW_BELOW {
                96
            } else {
                70
            };
            let rect = centered(area, pct, 80, 60.min(area.width), 20.min(area.height));
            let width = rect.width.saturating_sub(4) as usize;
            (
                "Keys".to_owned(),
                "Esc close",
                help_rows(width, &theme),
                rect,
            )
        }
        Popup::Sessions { list, selected } => {
            let pct = if area.width < super::NARROW_BELOW {
                96
            } else {
                80
            };
            let outer_w = (area.width * pct / 100).max(60.min(area.width));
            let width = outer_w.saturating_sub(4) as usize;
            let (rows, selected_rows) =
                session_rows(list, *selected, app.session_id.as_deref(), width, &theme);
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
            let pct = if area.width < super::NARROW_BELOW {
                96
            } else {
                80
            };
            let rect = centered(area, pct, 90, 60.min(area.width), 16.min(area.height));
            let width = rect.width.saturating_sub(4) as usize;
            let (title, rows) = source_rows(app, *item, width, &theme);
            (
                title,
                "Esc close · j/k scroll · o open · y copy",
                rows,
                rect,
            )
        }
    };
    let block = popup_block(title, footer, &theme);
    let inner = block.inner(rect);
    let content = Rect {
        x: inner.x + 1,
        width: inner.width.saturating_sub(2),
        ..inner
    };
    let max_scroll = rows.len().saturating_sub(content.height as usize);
    let scroll = match &mut app.popup {
        Some(Popup::Help { scroll }) | Some(Popup::Source { scroll, .. }) => {
            *scroll = (*scroll).min(max_scroll);
            *scroll
        }
        Some(Popup::Sessions { .. }) | None => 0,
    };
    frame.render_widget(Clear, rect);
    frame.render_widget(block, rect);
    let visible = &rows[scroll.min(rows.len())..];
    frame.render_widget(Paragraph::new(plain_lines(visible)), content);
    if max_scroll > 0 && !matches!(popup, Popup::Sessions { .. }) {
        let hint = format!(" {}/{} ", scroll + 1, max_scroll + 1);
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

fn field(rows: &mut Vec<RLine>, name: &str, value: &str, width: usize, theme: &Theme) {
    let label = format!("{name:<11}");
    let first: Vec<Piece> = vec![piece(label, theme.muted())];
    let cont: Vec<Piece> = vec![piece(" ".repeat(11), theme.muted())];
    rows.extend(wrap_text(&clean(value), theme.text(), width, first, cont));
}

fn section(rows: &mut Vec<RLine>, name: &str, theme: &Theme) {
    rows.push(RLine::blank());
    rows.push(RLine {
        pieces: vec![piece(name, theme.heading(3))],
    });
}

fn source_rows(app: &App, item: SidebarItem, width: usize, theme: &Theme) -> (String, Vec<RLine>) {
    let mut rows = Vec::new();
    let Some(turn) = app.current() else {
        return ("Source".into(), rows);
    };
    let a = &turn.attribution;
    let answer = turn.session.answer.as_str();
    let citations = app.item_citations(item);
    let title;
    match item {
        SidebarItem::Source(i) => {
            let Some(source) = a.sources.get(i) else {
                return ("Source".into(), rows);
            };
            title = if source.consulted_only {
                clean(&source.label)
            } else {
                format!("[{}] {}", source.n, clean(&source.label))
            };
            if let Some(headline) = &source.headline {
                rows.extend(wrap_text(
                    &clean(headline),
                    theme.heading(2),
                    width,
                    Vec::new(),
                    Vec::new(),
                ));
                rows.push(RLine::blank());
            }
            // Zeta Alpha's publisher is the title: not repeated.
            if source.headline.as_deref().map(str::trim) != Some(source.publisher.trim()) {
                field(&mut rows, "Publisher", &source.publisher, width, theme);
            }
            if let Some(date) = source.date {
                field(&mut rows, "Date", &date.iso(), width, theme);
            }
            if let Some(url) = &source.url {
                field(&mut rows, "URL", url, width, theme);
            }
            if let Some(kind) = &source.kind {
                field(&mut rows, "Kind", kind, width, theme);
            }
            let mut queries: Vec<&str> = Vec::new();
            for &ci in &citations {
                if let Some(q) = a.citations.get(ci).and_then(|c| c.query.as_deref())
                    && !queries.contains(&q)
                {
                    queries.push(q);
                }
            }
            for q in &queries {
                field(&mut rows, "Query", &format!("\"{q}\""), width, theme);
            }
            if !source.doc.chunks.is_empty() {
                section(&mut rows, "Extracts", theme);
                for chunk in &source.doc.chunks {
                    let mut tag = String::from("• ");
                    if let Some(n) = chunk.cnum {
                        tag = format!("#{n} ");
                    }
                    let mut first = vec![piece(tag, theme.accent())];
                    if let Some(r) = chunk.relevance {
                        first.push(piece(format!("({r:.2}) "), theme.muted()));
                    }
                    rows.extend(wrap_text(
                        &clean(&chunk.text),
                        theme.text(),
                        width,
                        first,
                        vec![piece("   ", Style::new())],
                    ));
                }
            }
            if let Some(text) = &source.doc.text {
                section(&mut rows, "Extract", theme);
                let zeta = app.provider == Some(Provider::Zeta);
                rows.extend(extract_rows(
                    text,
                    source.headline.as_deref(),
                    zeta,
                    width,
                    theme,
                ));
            }
            if source.consulted_only {
                section(&mut rows, "Consulted, not cited in the answer", theme);
            }
        }
        SidebarItem::Tool(ci) => {
            let Some(citation) = a.citations.get(ci) else {
                return ("Tool data".into(), rows);
            };
            title = format!(
                "Tool data: {}",
                clean(citation.tool_name.as_deref().unwrap_or("tool"))
            );
            field(
                &mut rows,
                "Tool",
                citation.tool_name.as_deref().unwrap_or("tool"),
                width,
                theme,
            );
            if let Some(audit) = &citation.audit_id {
                field(&mut rows, "Audit id", audit, width, theme);
                if let Some(t) = turn.session.audit(audit).and_then(|t| t.title.as_ref()) {
                    field(&mut rows, "Title", t, width, theme);
                }
            }
            if let Some(q) = &citation.query {
                field(&mut rows, "Query", &format!("\"{q}\""), width, theme);
            }
        }
    }
    if !citations.is_empty() {
        section(
            &mut rows,
            &format!(
                "Supports {} span{}",
                citations.len(),
                if citations.len() == 1 { "" } else { "s" }
            ),
            theme,
        );
        for (k, &ci) in citations.iter().enumerate() {
            let Some(c) = a.citations.get(ci) else {
                continue;
            };
            let first = vec![piece(format!("{:>2}. ", k + 1), theme.marker())];
            let cont = vec![piece("    ", Style::new())];
            rows.extend(wrap_text(
                &format!("“{}”", clean(&cited_text(a, c, answer))),
                theme.text().add_modifier(Modifier::ITALIC),
                width,
                first,
                cont,
            ));
        }
    }
    (title, rows)
}

/// What a citation supports, for people: its span, or — when the span is the provider's own marker
/// (xAI's inline link, a Zeta Alpha anchor) — the sentence before the marker, other markers left out.
fn cited_text(
    a: &crate::model::citations::Attribution,
    c: &crate::model::citations::Citation,
    answer: &str,
) -> String {
    if !c.marker {
        return c.text(answer).to_owned();
    }
    let end = c.bytes.start.min(answer.len());
    // Markers right before this one (`[1][2]`) belong to the same sentence: step over them.
    let mut cut = end;
    loop {
        let before = a
            .citations
            .iter()
            .filter(|o| o.marker && o.bytes.end == cut && o.bytes.start < cut)
            .map(|o| o.bytes.start)
            .min();
        match before {
            Some(start) => cut = start,
            None => break,
        }
    }
    // The sentence the marker ends: back to the previous sentence end or the previous marker.
    let previous_marker = a
        .citations
        .iter()
        .filter(|o| o.marker && o.bytes.end <= cut)
        .map(|o| o.bytes.end)
        .max()
        .unwrap_or(0);
    let head = answer[..cut].trim_end();
    let ends_sentence = |i: usize, ch: char| {
        if ch == '\n' {
            return true;
        }
        if !matches!(ch, '.' | '!' | '?') {
            return false;
        }
        let rest = head[i + 1..].trim_start_matches(['*', '_']);
        rest.starts_with(char::is_whitespace)
    };
    let start = head
        .char_indices()
        .rev()
        .skip(1)
        .take_while(|&(i, _)| i >= previous_marker)
        .find(|&(i, ch)| ends_sentence(i, ch))
        .map_or(previous_marker, |(i, ch)| i + ch.len_utf8())
        .max(previous_marker)
        .min(head.len());
    let text = head[start..]
        .replace("**", "")
        .replace("__", "")
        .replace('`', "");
    let mut text = text.trim();
    // A list bullet or heading mark at the start is Markdown, not what was said.
    loop {
        let stripped = text
            .strip_prefix("- ")
            .or_else(|| text.strip_prefix("* "))
            .or_else(|| text.strip_prefix("+ "))
            .or_else(|| text.strip_prefix('#'))
            .or_else(|| {
                let digits =
                    text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                (digits > 0)
                    .then(|| text[digits..].strip_prefix(". "))
                    .flatten()
            });
        match stripped {
            Some(rest) => text = rest.trim_start(),
            None => break,
        }
    }
    if text.is_empty() {
        c.text(answer).to_owned()
    } else {
        text.to_owned()
    }
}

/// An extract's rows. Zeta Alpha's `text_extract` starts with the document's title (left out when it
/// repeats the headline) and marks its key sentence with `<b>…</b>`, shown bold.
pub fn extract_rows(
    text: &str,
    headline: Option<&str>,
    bold_markup: bool,
    width: usize,
    theme: &Theme,
) -> Vec<RLine> {
    let runs = if bold_markup {
        crate::wire::provider::zeta::bold_runs(text)
    } else {
        vec![(text, false)]
    };
    let bold = theme.text().add_modifier(Modifier::BOLD);
    // Lines of (text, bold) runs.
    let mut lines: Vec<Vec<(String, bool)>> = vec![Vec::new()];
    for (run, is_bold) in runs {
        for (k, part) in run.split('\n').enumerate() {
            if k > 0 {
                lines.push(Vec::new());
            }
            if !part.is_empty() {
                lines
                    .last_mut()
                    .expect("one line at least")
                    .push((clean(part), is_bold));
            }
        }
    }
    let first_is_headline = headline.is_some_and(|headline| {
        let first: String = lines[0].iter().map(|(t, _)| t.as_str()).collect();
        !first.trim().is_empty() && first.trim() == clean(headline).trim()
    });
    if first_is_headline && lines.len() > 1 {
        lines.remove(0);
    }
    let mut rows = Vec::new();
    for line in lines {
        if line.iter().all(|(t, _)| t.trim().is_empty()) {
            rows.push(RLine::blank());
            continue;
        }
        let pieces: Vec<Piece> = line
            .into_iter()
            .map(|(t, is_bold)| piece(t, if is_bold { bold } else { theme.text() }))
            .collect();
        rows.extend(wrap(&pieces, width, &[], &[]));
    }
    rows
}

/// The sessions picker: two rows per session (date, turns, status, provider, last checkpoint; the
/// first question), the selected one highlighted. Also returns the selected entry's row range.
fn session_rows(
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
        if open == Some(meta.id.as_str()) {
            line1.push(piece("(open) ", theme.accent()));
        }
        if let Some(checkpoint) = meta.last_checkpoint_id() {
            line1.push(piece(clean(checkpoint), theme.muted()));
        }
        let line1 = truncate_pieces(line1, width);
        let question = match meta.first_question().trim() {
            "" => "(no question)".to_owned(),
            q => clean(q),
        };
        let line2 = vec![
            piece("    ", theme.text()),
            piece(truncate(&question, width.saturating_sub(4)), theme.you()),
        ];
        for pieces in [line1, line2] {
            let mut row = RLine { pieces };
            if is_selected {
                let style = theme.selection(true);
                let pad = width.saturating_sub(row.width());
                row.pieces.push(piece(" ".repeat(pad), Style::new()));
                for p in &mut row.pieces {
                    p.style = p.style.patch(style);
                }
            }
            rows.push(row);
        }
        if is_selected {
            range = start..rows.len();
        }
    }
    (rows, range)
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
