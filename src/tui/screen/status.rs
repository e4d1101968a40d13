//! The status bar, terse: DEMO/LIVE/REPLAY, TYPE, BROWSE, POPUP or FILTER (where keys go), the
//! connection state, elapsed time, tokens, the turn shown and a short id; on the right the message
//! and always the help key.

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::{clean, truncate};
use crate::tui::state::keymap::{Context, letter_name};
use crate::tui::state::{Action, App, ConnState, Focus, Mode, Severity, Turn};

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

/// `ckpt-…7cce31`: an id short enough for the status bar (its own prefix says what it is); the
/// whole id is in the ids popup (`I`).
pub fn short_id(id: &str) -> String {
    let id = clean(id);
    let chars: Vec<char> = id.chars().collect();
    if chars.len() <= 14 {
        return id;
    }
    let prefix: String = chars
        .iter()
        .take(6)
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    let tail: String = chars[chars.len() - 6..].iter().collect();
    let sep = chars.get(prefix.len()).filter(|c| matches!(c, '-' | '_'));
    match sep {
        Some(sep) if !prefix.is_empty() => format!("{prefix}{sep}…{tail}"),
        _ => format!("…{tail}"),
    }
}

/// The bar: source badge, mode badge, then as many facts as fit, and on the right the message (or
/// the retry hint) and always the help key.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, prompt_empty: bool) {
    if app.search.is_some() && app.popup.is_none() {
        return draw_search(frame, area, app);
    }
    let theme = &app.theme;
    let width = area.width as usize;
    let mut spans: Vec<Span<'_>> = vec![badge(app), mode_badge(app)];
    // The help key in force where the keys go now (none when `[keys]` leaves it no key): `?` is
    // typed into the prompt or the sessions' filter, where only F1 helps.
    let here = [Context::Prompt, Context::PickerFilter, Context::Popup]
        .into_iter()
        .find(|place| place.holds(app, width < 100))
        .unwrap_or(Context::Panes);
    let places = [here, Context::Anywhere];
    let help = app
        .keys
        .key_in("help", &places)
        .map_or_else(String::new, |key| format!("{key} help "));
    let (mut right, right_style) = right_text(app, prompt_empty, width < 100);
    let used: usize = spans.iter().map(|s| s.content.width()).sum();
    // The help key always shows; the message gets what the state leaves.
    let help_w = help.width().min(width.saturating_sub(used));
    let mut budget = width.saturating_sub(used + help_w);
    let (state, state_style) = state_fact(app);
    // The state yields to a message, but keeps 12 columns.
    let state_room = budget
        .saturating_sub(right.width().min(24))
        .max(12)
        .min(budget);
    let state = truncate(&state, state_room);
    budget = budget.saturating_sub(state.width());
    spans.push(Span::styled(
        state,
        state_style.add_modifier(Modifier::BOLD),
    ));
    // Two columns between the facts and the message, ` · ` between the message and the help key.
    let room = budget.saturating_sub(5);
    if right.width() > room
        && app.message.is_some()
        && let Some((first, _)) = right.split_once(" — ")
        && first.width() <= room
        && room < first.width() + " — ".width() + 8
    {
        // A message with no room for all of it, nor for a few words after its first clause, says
        // that clause whole (`cancelled`), not a word cut short (`cancelle…`, in a comparison's
        // column); with more room it is cut at its end as before.
        right = first.to_owned();
    }
    // The narrow bar's armed hint (a message is set too) is key hints: it loses its last parts
    // whole (`⏎ or q quits`, without `q… types`) rather than a key cut in half.
    let armed_hint = app.armed.is_some() && width < 100;
    while armed_hint && right.width() > room {
        let Some((kept, _)) = right.rsplit_once(" · ") else {
            break;
        };
        right = kept.to_owned();
    }
    let mut right_w = right.width().min(room);
    if right_w < right.width() && (app.message.is_none() || armed_hint) {
        // A key hint shows whole or not at all: `Ctrl-C qui…` tells nothing true.
        right_w = 0;
    }
    let joint = if right_w > 0 { " · " } else { " " };
    budget = budget.saturating_sub(right_w + joint.width());
    for (text, style) in facts(app) {
        let piece = format!(" · {text}");
        if piece.width() + 1 > budget {
            break;
        }
        budget -= piece.width();
        spans.push(Span::styled(piece, style));
    }
    spans.push(Span::raw(" ".repeat(budget)));
    spans.push(Span::styled(truncate(&right, right_w), right_style));
    spans.push(Span::styled(joint, theme.muted()));
    spans.push(Span::styled(truncate(&help, help_w), theme.muted()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The bar while a search is on: the query (with the cursor while it is typed), the hit count
/// (`3/17`) and the keys that move between hits, as many as fit.
fn draw_search(frame: &mut Frame, area: Rect, app: &App) {
    let Some(search) = &app.search else {
        return;
    };
    let theme = &app.theme;
    let width = area.width as usize;
    let mode = if search.typing {
        Span::styled(" SEARCH ", theme.you().add_modifier(Modifier::REVERSED))
    } else {
        Span::styled(" BROWSE ", theme.muted().add_modifier(Modifier::BOLD))
    };
    let mut spans: Vec<Span<'_>> = vec![badge(app), mode];
    let used: usize = spans.iter().map(|s| s.content.width()).sum();
    let count = search.count();
    let count_w = if count.is_empty() {
        0
    } else {
        count.width() + 2
    };
    // The query keeps its end (where the cursor is) when it is longer than the room.
    let room = width.saturating_sub(used + 2 + count_w + 1).max(1);
    let query = clean(&search.query);
    let shown: String = {
        let chars: Vec<char> = query.chars().collect();
        let mut start = 0;
        while start < chars.len() && chars[start..].iter().collect::<String>().width() > room {
            start += 1;
        }
        chars[start..].iter().collect()
    };
    let query_x = area.x + (used + 2) as u16 + shown.width() as u16;
    spans.push(Span::styled(
        " /",
        theme.accent().add_modifier(Modifier::BOLD),
    ));
    spans.push(Span::styled(
        shown,
        theme.text().add_modifier(Modifier::BOLD),
    ));
    if !count.is_empty() {
        let style = if search.is_empty() {
            theme.warning()
        } else {
            theme.accent()
        };
        spans.push(Span::styled(
            format!("  {count}"),
            style.add_modifier(Modifier::BOLD),
        ));
    }
    let hints = if search.typing {
        app.keys.fill(
            &[Context::Search],
            // Enter and Shift-Enter, as the help says them (the key map writes Alt-Enter).
            "Enter/↓ next · Shift-Enter/↑ previous · {escape} browse the hits",
        )
    } else {
        app.keys.fill(
            &[Context::Panes],
            "{next_span} next · {previous_span} previous · {search} edit · {escape} ends the search",
        )
    };
    let hints: Vec<&str> = hints.split(" · ").collect();
    let mut budget = width.saturating_sub(spans.iter().map(|s| s.content.width()).sum());
    // A message (no match, the last chart) says more than the hints, in their place.
    let hints = match &app.message {
        Some((text, _)) => {
            let text = format!("  {}", clean(text));
            spans.push(Span::styled(truncate(&text, budget), theme.accent()));
            &[][..]
        }
        None => &hints[..],
    };
    for (i, hint) in hints.iter().enumerate() {
        let piece = if i == 0 {
            format!("  {hint}")
        } else {
            format!(" · {hint}")
        };
        if piece.width() > budget {
            break;
        }
        budget -= piece.width();
        spans.push(Span::styled(piece, theme.muted()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
    if search.typing {
        frame.set_cursor_position((query_x.min(area.right().saturating_sub(1)), area.y));
    }
}

/// What the connection of the turn the panes show is doing, with its glyph: ` ✔ complete`,
/// ` ⠋ streaming`, ` ! cut` (an earlier turn picked with `[` says how it ended, like its time and
/// tokens beside it; the newest turn's stream, still running, has a fact of its own).
fn state_fact(app: &App) -> (String, Style) {
    let theme = &app.theme;
    let Some(turn) = app.current() else {
        if app.mode == Mode::Watch {
            return (" waiting for a session".to_owned(), theme.muted());
        }
        let mut text = " ready".to_owned();
        if let Some(checkpoint) = &app.resume.checkpoint_id {
            text.push_str(&format!(" · resume {}", short_id(checkpoint)));
        } else if let Some(chat) = &app.resume.chat_id {
            text.push_str(&format!(" · chat {}", short_id(chat)));
        }
        return (text, theme.muted());
    };
    let (glyph, style) = match &turn.conn {
        ConnState::Complete => ("✔".to_owned(), theme.success()),
        ConnState::Error(_) => ("✖".to_owned(), theme.error()),
        ConnState::Cut(_) | ConnState::Stalled(_) | ConnState::Cancelled => {
            ("!".to_owned(), theme.warning())
        }
        ConnState::Idle => ("·".to_owned(), theme.muted()),
        _ => (app.spinner().to_owned(), theme.accent()),
    };
    if app.watching && turn.conn.in_progress() && app.current_index() + 1 == app.turns.len() {
        // Another process streams it: this app only follows.
        return (format!(" {glyph} watching · live"), style);
    }
    (format!(" {glyph} {}", state_text(app, turn)), style)
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
    app.focus == Focus::Prompt && app.popup.is_none()
}

/// Where keys go: typed into the prompt (TYPE) or the sessions picker's filter (FILTER), to an open
/// popup, which takes every key whichever pane or prompt it was opened from (POPUP), or moving
/// around the panes (BROWSE).
fn mode_badge(app: &App) -> Span<'static> {
    let theme = &app.theme;
    let typed = |label| Span::styled(label, theme.you().add_modifier(Modifier::REVERSED));
    let keys = |label| Span::styled(label, theme.muted().add_modifier(Modifier::BOLD));
    if app.picker_typing() {
        typed(" FILTER ")
    } else if app.popup.is_some() {
        keys(" POPUP ")
    } else if typing(app) {
        typed(" TYPE ")
    } else {
        keys(" BROWSE ")
    }
}

/// What the bar says after the state, most important first: what was kept, the elapsed time, the
/// tokens, which turn the panes show, and the short ids of that turn.
fn facts(app: &App) -> Vec<(String, Style)> {
    let theme = &app.theme;
    let (Some(turn), Some(latest)) = (app.current(), app.latest()) else {
        return Vec::new();
    };
    let mut facts: Vec<(String, Style)> = Vec::new();
    if !app.mouse {
        facts.push(("mouse off (m)".to_owned(), theme.warning()));
    }
    let last = app.turns.len();
    if app.current_index() + 1 < last && latest.conn.in_progress() {
        // An earlier turn is shown while the newest one streams: say so, or it looks finished.
        let doing = if app.watching { "live" } else { "streaming" };
        facts.push((format!("turn {last} {doing}"), theme.accent()));
    }
    match &turn.conn {
        ConnState::Cut(_) | ConnState::Stalled(_) if !turn.session.answer.as_str().is_empty() => {
            facts.push(("kept what arrived".to_owned(), theme.warning()));
        }
        _ => {}
    }
    facts.push((format_elapsed(app.elapsed()), theme.text()));
    if let Some(completion) = &turn.session.completion
        && completion.total_tokens() != (0, 0)
    {
        let (input, output) = completion.total_tokens();
        facts.push((
            format!("{}/{} tok", format_tokens(input), format_tokens(output)),
            theme.muted(),
        ));
    }
    if app.turns.len() > 1 {
        facts.push((
            format!("turn {}/{}", app.current_index() + 1, app.turns.len()),
            theme.muted(),
        ));
    }
    let ids = &turn.session.ids;
    let id = turn
        .session
        .checkpoint_id()
        .or(ids.chat_id.as_deref())
        .or(ids.execution_id.as_deref());
    if let Some(id) = id {
        facts.push((short_id(id), theme.muted()));
    }
    facts
}

/// The right-hand text: the message, else the retry hint, else what a letter does now and how to
/// quit (with nothing typed).
fn right_text(app: &App, prompt_empty: bool, short: bool) -> (String, Style) {
    let theme = &app.theme;
    if let (Some(armed), true) = (&app.armed, short) {
        // The whole sentence does not fit a narrow bar: the key, what it does, the way out.
        let other = match app.popup {
            Some(_) => "other keys don't".to_owned(),
            None => format!("{}… types", armed.letter),
        };
        // Quitting is also the letter again, as the wide bar says (`q works too`).
        let does = match *armed.action {
            Action::Quit => format!("⏎ or {} quits", letter_name(armed.letter)),
            ref action => format!("⏎ {}", armed_short(action)),
        };
        return (format!("{does} · {other}"), theme.accent());
    }
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
            let retry = app.keys.fill(&[Context::Panes], "{retry}⏎ retry");
            let text = match typing(app) {
                true => app.keys.fill(&[Context::Prompt], "{leave_prompt} ") + &retry,
                false => retry,
            };
            (text, theme.accent())
        }
        None if app.popup.is_some() => (String::new(), theme.muted()),
        None if typing(app) && !prompt_empty => (String::new(), theme.muted()),
        None if typing(app) || !app.can_ask || short => (quits(app), theme.muted()),
        None => (
            format!("letters are keys, others type · {}", quits(app)),
            theme.muted(),
        ),
    }
}

/// What Enter does after an armed letter, in a word or two (the narrow bar's hint).
fn armed_short(action: &Action) -> &'static str {
    match action {
        Action::OpenUrl => "opens the URL",
        Action::Export => "exports",
        Action::Retry => "retries",
        Action::Mouse => "toggles the mouse",
        Action::Quit => "quits",
        _ => "does it",
    }
}

/// `Ctrl-C quits`, or `Ctrl-C cancels` while a stream runs (in a comparison, any agent's), with
/// the interrupt key in force.
fn quits(app: &App) -> String {
    let cancels = app.interrupt_hint_cancels();
    app.keys
        .interrupt_does(cancels)
        .unwrap_or_else(|| format!("Ctrl-C {}", if cancels { "cancels" } else { "quits" }))
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

    #[test]
    fn short_ids_keep_their_prefix_and_tail() {
        assert_eq!(short_id("ckpt-abf2d9a60c7cce31"), "ckpt-…7cce31");
        assert_eq!(short_id("resp_demo_7f3a91c2e5b84d06"), "resp_…b84d06");
        assert_eq!(short_id("chat-1"), "chat-1");
        assert_eq!(short_id("0123456789abcdefgh"), "…cdefgh");
    }
}
