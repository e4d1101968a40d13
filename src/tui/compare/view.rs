//! The comparison's screen: a tab row of the agents (narrow), a header row per agent shown, the
//! columns (each agent's app, drawn into its rectangle), the merged Sources view marking which
//! agents cite (●) or consulted (○) each source, and a line of the comparison's keys. The columns'
//! own panes are prepared here as the app prepares them; nothing else is written.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::CompareScreen;
use crate::model::compare::{AgentFigures, Comparison};
use crate::styled::theme::Theme;
use crate::tui::screen::{self, clean, truncate};
use crate::tui::state::keymap::Context;

/// From this many columns, two or three agents side by side; below, one at a time in tabs.
pub const WIDE_FROM: u16 = 120;
/// At most this many agents side by side.
const SIDE_BY_SIDE: usize = 3;

pub fn draw(frame: &mut Frame, screen: &mut CompareScreen) {
    let area = frame.area();
    let comparison = screen.comparison();
    let theme = screen.columns[screen.focus].ui.theme.clone();
    frame.render_widget(Block::new().style(theme.base()), area);
    let wide = area.width >= WIDE_FROM;
    let shown = shown_columns(screen.columns.len(), screen.focus, wide);
    let sources_height = (comparison.sources.len() as u16).clamp(1, (area.height / 5).max(3)) + 2;
    let [tabs, headers, body, sources, hint] = Layout::vertical([
        Constraint::Length(if wide { 0 } else { 1 }),
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(sources_height),
        Constraint::Length(1),
    ])
    .areas(area);
    if !wide {
        draw_tabs(frame, tabs, screen, &comparison, &theme);
    }
    let rects = Layout::horizontal(vec![Constraint::Fill(1); shown.len()]).split(body);
    let header_rects = Layout::horizontal(vec![Constraint::Fill(1); shown.len()]).split(headers);
    for (slot, &agent) in shown.iter().enumerate() {
        let focused = agent == screen.focus;
        if let Some(figures) = comparison.agents.get(agent) {
            let line = header(figures, focused, &theme, header_rects[slot].width);
            frame.render_widget(Paragraph::new(line), header_rects[slot]);
        }
        let column = &mut screen.columns[agent];
        column.ui.prepare(rects[slot]);
        column.ui.facts = screen::draw(frame, &column.ui.app, &column.ui.panes);
    }
    draw_sources(frame, sources, screen, &comparison, &theme);
    let to = if screen.to_all {
        "every agent"
    } else {
        "the focused agent"
    };
    // The keys in force (every column has the same key map).
    let fill = |template: &str| {
        screen.columns.first().map_or_else(String::new, |column| {
            column.ui.app.keys.fill(&[Context::Comparison], template)
        })
    };
    let moves = fill(
        "{next_agent}/{previous_agent} agent · {next_merged_source}/{previous_merged_source} merged source",
    );
    let send_to = fill("{send_to} ");
    // What Ctrl-C does, said once here when side by side: a column's own bar is then too narrow
    // for it beside its facts (one column in tabs says it itself). The key goes to the focused
    // column: it cancels that agent's stream while it runs, else the others' still running, else
    // quits.
    let quits = screen
        .columns
        .get(screen.focus)
        .filter(|_| wide)
        .and_then(|column| {
            let app = &column.ui.app;
            app.keys.interrupt_does(app.interrupt_hint_cancels())
        })
        .map_or_else(String::new, |says| format!("{says} · "));
    let keys = format!(
        " {moves}{}{send_to}follow-ups go to: {to} · {quits}comparison {}",
        if moves.is_empty() { "" } else { " · " },
        clean(&screen.comparison_id)
    );
    frame.render_widget(
        Paragraph::new(truncate(&keys, hint.width as usize)).style(theme.muted()),
        hint,
    );
}

/// The agents drawn: all (up to three) side by side on a wide screen, else the focused one; with
/// more than three, the three around the focused one.
fn shown_columns(count: usize, focus: usize, wide: bool) -> Vec<usize> {
    if !wide {
        return vec![focus];
    }
    let width = count.min(SIDE_BY_SIDE);
    let first = focus.saturating_sub(width - 1).min(count - width);
    (first..first + width).collect()
}

fn status_word(figures: &AgentFigures) -> &'static str {
    if figures.streaming {
        "streaming"
    } else {
        figures.status.as_str()
    }
}

fn seconds(ms: Option<u64>) -> String {
    ms.map_or("–".to_owned(), |ms| {
        format!("{:.1} s", ms as f64 / 1000.0)
    })
}

/// `bigdata · complete · text 0.4 s · total 9.8 s · 5/6 sources · 41.2k/2.4k tok`: the time to the
/// first answer text, the total, sources cited / consulted, tokens when known (shorter in a narrow
/// column).
/// A figure that cannot come any more (a finished turn saved without its arrival times) is left
/// out rather than shown as `–`, which reads as "not yet".
fn header(figures: &AgentFigures, focused: bool, theme: &Theme, width: u16) -> Line<'static> {
    let timings = &figures.timings;
    let known = |ms: Option<u64>| figures.streaming || ms.is_some();
    let mut times = Vec::new();
    if known(timings.first_text_ms) {
        times.push(format!(" · text {}", seconds(timings.first_text_ms)));
    }
    if known(timings.total_ms) {
        times.push(format!(" · total {}", seconds(timings.total_ms)));
    }
    let mut text = format!(
        " {} · {}{} · {}/{} sources",
        figures.provider,
        status_word(figures),
        times.concat(),
        figures.cited,
        figures.consulted,
    );
    if let Some((input, output)) = figures.tokens {
        // As the status bar writes them: `41.2k/2.4k tok`.
        let tokens = crate::tui::screen::status::format_tokens;
        text.push_str(&format!(" · {}/{} tok", tokens(input), tokens(output)));
    }
    // A narrow column: the same figures, shorter (`4/6 src · 0.8/2.0 s`: first text / total).
    if text.chars().count() > width as usize {
        let short = |ms: Option<u64>| {
            ms.map_or("–".to_owned(), |ms| format!("{:.1}", ms as f64 / 1000.0))
        };
        let times = match (known(timings.first_text_ms), known(timings.total_ms)) {
            (true, true) => format!(
                " · {}/{} s",
                short(timings.first_text_ms),
                short(timings.total_ms)
            ),
            (false, true) => format!(" · total {}", seconds(timings.total_ms)),
            (true, false) => format!(" · text {}", seconds(timings.first_text_ms)),
            (false, false) => String::new(),
        };
        text = format!(
            " {} · {} · {}/{} src{times}",
            figures.provider,
            status_word(figures),
            figures.cited,
            figures.consulted,
        );
    }
    let style = if focused {
        theme.title(true)
    } else {
        theme.muted()
    };
    Line::from(Span::styled(truncate(&text, width as usize), style))
}

fn draw_tabs(
    frame: &mut Frame,
    area: Rect,
    screen: &CompareScreen,
    comparison: &Comparison,
    theme: &Theme,
) {
    let mut spans = Vec::new();
    for (agent, figures) in comparison.agents.iter().enumerate() {
        let style = if agent == screen.focus {
            theme
                .title(true)
                .add_modifier(ratatui::style::Modifier::REVERSED)
        } else {
            theme.muted()
        };
        spans.push(Span::styled(
            format!(" {} · {} ", figures.provider, status_word(figures)),
            style,
        ));
        spans.push(Span::raw(" "));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The merged sources, most agreement first: one mark per agent, the site, the title.
fn draw_sources(
    frame: &mut Frame,
    area: Rect,
    screen: &CompareScreen,
    comparison: &Comparison,
    theme: &Theme,
) {
    let names: Vec<&str> = comparison
        .agents
        .iter()
        .map(|a| a.provider.as_str())
        .collect();
    let title = format!(
        " Sources compared · ● cites ○ consulted · marks: {} ",
        names.join(" ")
    );
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(theme.border(false))
        .title(Span::styled(title, theme.title(false)));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = inner.height as usize;
    let top = screen
        .source
        .map_or(0, |s| s.saturating_sub(rows.saturating_sub(1)));
    let lines: Vec<Line> = comparison
        .sources
        .iter()
        .enumerate()
        .skip(top)
        .take(rows)
        .map(|(i, source)| {
            let marks = source.marks(names.len());
            let site = if source.site.is_empty() {
                "(no link)".to_owned()
            } else {
                clean(&source.site)
            };
            let text = format!(" {marks}  {site:<22} {}", clean(&source.title));
            let style = if screen.source == Some(i) {
                theme.highlight()
            } else if source.cited_by.len() > 1 {
                theme.text()
            } else {
                Style::default().patch(theme.muted())
            };
            Line::from(Span::styled(truncate(&text, inner.width as usize), style))
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::compare::Timings;

    fn figures(streaming: bool, first_text_ms: Option<u64>, total_ms: Option<u64>) -> String {
        let figures = AgentFigures {
            provider: "bigdata".into(),
            status: crate::model::session::Status::Complete,
            streaming,
            consulted: 6,
            cited: 5,
            tokens: None,
            timings: Timings {
                first_text_ms,
                total_ms,
            },
        };
        let theme = Theme::default();
        let text = |width| header(&figures, true, &theme, width).to_string();
        format!("{}\n{}", text(80), text(46))
    }

    #[test]
    fn a_finished_turn_with_no_first_text_time_leaves_it_out_instead_of_a_dash() {
        assert_eq!(
            figures(false, None, Some(12_000)),
            " bigdata · complete · total 12.0 s · 5/6 sources\n bigdata · complete · 5/6 src · total 12.0 s"
        );
        assert_eq!(
            figures(false, Some(400), Some(12_000)),
            " bigdata · complete · text 0.4 s · total 12.0 s · 5/6 sources\n bigdata · complete · 5/6 src · 0.4/12.0 s"
        );
    }

    #[test]
    fn a_streaming_turn_still_says_its_times_are_to_come() {
        assert_eq!(
            figures(true, None, None).lines().next().unwrap(),
            " bigdata · streaming · text – · total – · 5/6 sources"
        );
    }
}
