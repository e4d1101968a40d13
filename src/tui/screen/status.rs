//! The status bar: DEMO/LIVE, connection state, elapsed time, chat and checkpoint ids, tokens, hints.

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::{clean, truncate};
use crate::tui::state::{App, ConnState, Mode, Severity, Turn};

pub fn format_elapsed(elapsed: Duration) -> String {
    let secs = elapsed.as_secs();
    if secs >= 3600 {
        format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
    } else {
        format!("{}:{:02}", secs / 60, secs % 60)
    }
}

pub fn format_tokens(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else if n >= 1_000 {
        format!("{:.1}k", n as f64 / 1e3)
    } else {
        n.to_string()
    }
}

/// `2 s`, `1.5 s`: how long until the next try.
pub fn format_wait(wait_ms: u64) -> String {
    if wait_ms.is_multiple_of(1000) {
        format!("{} s", wait_ms / 1000)
    } else {
        format!("{:.1} s", wait_ms as f64 / 1000.0)
    }
}

/// What the connection is doing, in words, for the status bar: `retrying in 2 s (try 2/3): HTTP 503 …`
/// counts down to the next try (snapshots, with a fixed clock, show the whole wait).
pub fn state_text(app: &App, turn: &Turn) -> String {
    match &turn.conn {
        ConnState::Retrying {
            attempt,
            wait_ms,
            reason,
        } => format!(
            "retrying in {} (try {attempt}/{}): {}",
            match turn.retry_at.filter(|_| app.fixed_elapsed.is_none()) {
                Some(at) => {
                    let left = at.saturating_duration_since(std::time::Instant::now());
                    format!("{} s", left.as_millis().div_ceil(1000))
                }
                None => format_wait(*wait_ms),
            },
            app.max_attempts.max(*attempt),
            clean(reason)
        ),
        ConnState::Connecting { attempt } if *attempt > 1 => format!(
            "connecting (try {attempt}/{})",
            app.max_attempts.max(*attempt)
        ),
        other => other.label().to_owned(),
    }
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let theme = &app.theme;
    let width = area.width as usize;
    let mut spans: Vec<Span<'_>> = vec![badge(app), mode_badge(app)];
    let badge_w = spans.iter().map(|s| s.content.width()).sum::<usize>();
    let Some(turn) = app.latest() else {
        let mut text = " ready · type a question".to_owned();
        if let Some(checkpoint) = &app.resume.checkpoint_id {
            text.push_str(&format!(" · resume {}", clean(checkpoint)));
        }
        if let Some(chat) = &app.resume.chat_id {
            text.push_str(&format!(" · chat {}", clean(chat)));
        }
        spans.push(Span::styled(
            truncate(&text, width.saturating_sub(8)),
            theme.muted(),
        ));
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
        return;
    };
    let (glyph, state_style) = match &turn.conn {
        ConnState::Complete => ("✔".to_owned(), theme.success()),
        ConnState::Error(_) => ("✖".to_owned(), theme.error()),
        ConnState::Cut(_) | ConnState::Stalled(_) | ConnState::Cancelled => {
            ("!".to_owned(), theme.warning())
        }
        ConnState::Idle => ("·".to_owned(), theme.muted()),
        _ => (app.spinner().to_owned(), theme.accent()),
    };
    let state = format!(" {glyph} {}", state_text(app, turn));
    spans.push(Span::styled(
        truncate(&state, width.saturating_sub(badge_w + 12).max(12)),
        state_style.add_modifier(Modifier::BOLD),
    ));
    let right = right_text(app);
    let used: usize = spans.iter().map(|s| s.content.width()).sum();
    let right_w = right.0.width().min(width.saturating_sub(used + 2));
    // As many of the facts as fit between the state and the right-hand text.
    let mut budget = width.saturating_sub(used + right_w + 2);
    for (text, style) in facts(app, turn) {
        let piece = format!(" · {text}");
        let w = piece.width();
        if w <= budget {
            spans.push(Span::styled(piece, style));
            budget -= w;
        } else if budget > 8 {
            spans.push(Span::styled(truncate(&piece, budget), style));
            budget = 0;
        } else {
            break;
        }
    }
    let used: usize = spans.iter().map(|s| s.content.width()).sum();
    let gap = width.saturating_sub(used + right_w);
    spans.push(Span::raw(" ".repeat(gap)));
    spans.push(Span::styled(truncate(&right.0, right_w), right.1));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// DEMO, LIVE or REPLAY, in reverse.
fn badge(app: &App) -> Span<'static> {
    let theme = &app.theme;
    let style = if theme.no_color {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    } else {
        Style::new()
            .fg(theme.highlight_fg)
            .bg(match app.mode {
                Mode::Live => theme.success,
                _ => theme.accent,
            })
            .add_modifier(Modifier::BOLD)
    };
    Span::styled(format!(" {} ", app.mode.label()), style)
}

/// Keys type into the prompt.
fn typing(app: &App) -> bool {
    app.focus == crate::tui::state::Focus::Prompt && app.popup.is_none()
}

/// Whether keys type into the prompt (TYPE) or move around the panes (BROWSE).
fn mode_badge(app: &App) -> Span<'static> {
    let theme = &app.theme;
    if typing(app) {
        Span::styled(" TYPE ", theme.you().add_modifier(Modifier::REVERSED))
    } else {
        Span::styled(" BROWSE ", theme.muted().add_modifier(Modifier::BOLD))
    }
}

/// What the bar says after the state, most important first: what was kept, the elapsed time, and
/// the tokens, turn and ids of the turn the panes show (a branch point picked with `[`/`]`).
fn facts(app: &App, latest: &Turn) -> Vec<(String, Style)> {
    let theme = &app.theme;
    let mut facts: Vec<(String, Style)> = Vec::new();
    match &latest.conn {
        ConnState::Cut(_) | ConnState::Stalled(_) if !latest.session.answer.as_str().is_empty() => {
            facts.push(("kept what arrived".to_owned(), theme.warning()));
        }
        _ => {}
    }
    facts.push((format_elapsed(app.elapsed()), theme.text()));
    let turn = app.current().unwrap_or(latest);
    if let Some(completion) = &turn.session.completion
        && completion.total_tokens() != (0, 0)
    {
        let (input, output) = completion.total_tokens();
        facts.push((
            format!(
                "tokens {} in / {} out",
                format_tokens(input),
                format_tokens(output)
            ),
            theme.muted(),
        ));
    }
    if app.turns.len() > 1 {
        facts.push((
            format!("turn {}/{}", app.current_index() + 1, app.turns.len()),
            theme.muted(),
        ));
    }
    if let Some(checkpoint) = turn.session.checkpoint_id() {
        facts.push((format!("ckpt {}", clean(checkpoint)), theme.muted()));
    }
    let ids = &turn.session.ids;
    if let Some(chat) = &ids.chat_id {
        facts.push((format!("chat {}", clean(chat)), theme.muted()));
    } else if let Some(execution) = &ids.execution_id {
        facts.push((format!("exec {}", clean(execution)), theme.muted()));
    }
    facts
}

/// The right-hand text: the message, else a key hint.
fn right_text(app: &App) -> (String, Style) {
    let theme = &app.theme;
    match &app.message {
        Some((text, severity)) => {
            let style = match severity {
                Severity::Info => theme.accent(),
                Severity::Warning => theme.warning(),
                Severity::Error => theme.error(),
            };
            (clean(text), style)
        }
        None if app.can_ask && app.current().is_some_and(|t| t.retryable()) => {
            let text = if typing(app) {
                "Esc r retry · F1 help"
            } else {
                "r retry · ? help"
            };
            (text.to_owned(), theme.accent())
        }
        None if typing(app) => ("F1 help · Ctrl-C quit".to_owned(), theme.muted()),
        None => ("? help · q quit".to_owned(), theme.muted()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(format_elapsed(Duration::from_secs(75)), "1:15");
        assert_eq!(format_elapsed(Duration::from_secs(3725)), "1:02:05");
        assert_eq!(format_tokens(83115), "83.1k");
        assert_eq!(format_tokens(512), "512");
    }
}
