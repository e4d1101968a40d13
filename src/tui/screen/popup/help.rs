//! The help overlay's rows, from the key table: the keys grouped by where they act — the focused
//! pane's group first (as lazygit and k9s do), then the keys that work in every pane, then the
//! other groups.

use ratatui::style::{Modifier, Style};

use super::super::{piece, wrap_text};
use crate::styled::text::RLine;
use crate::styled::theme::Theme;
use crate::tui::state::keymap::{KeyHelp, Keymap};
use crate::tui::state::{Action, Focus};

/// The widest keys the key column is made for.
const KEY_COLUMN: usize = 16;

/// Where a key acts, for the help's groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Answer,
    Sources,
    Prompt,
    Popups,
    Comparison,
    Everywhere,
}

impl Group {
    fn heading(self) -> &'static str {
        match self {
            Group::Answer => "Answer",
            Group::Sources => "Sources",
            Group::Prompt => "Prompt (typing)",
            Group::Popups => "Popups",
            Group::Comparison => "Comparing agents (--provider a,b,c)",
            Group::Everywhere => "Every pane",
        }
    }

    /// The group of the focused pane (Plan and Activity have no keys of their own).
    fn of_focus(focus: Focus) -> Group {
        match focus {
            Focus::Answer => Group::Answer,
            Focus::Sources => Group::Sources,
            Focus::Prompt => Group::Prompt,
            Focus::Plan | Focus::Activity => Group::Everywhere,
            Focus::Timeline => Group::Popups,
        }
    }
}

/// A key table entry's group, from the action its first binding asks for (entries with no binding
/// are the prompt's editing keys).
fn group_of(entry: &KeyHelp) -> Group {
    let Some(binding) = entry.bindings.first() else {
        return Group::Prompt;
    };
    match binding.action {
        Action::Search | Action::RawJson => Group::Answer,
        Action::NextSpan | Action::OpenUrl | Action::CopyUrl => Group::Sources,
        Action::Submit | Action::Newline => Group::Prompt,
        Action::ChartStep(_) | Action::Filter => Group::Popups,
        Action::Comparison(_) => Group::Comparison,
        _ => Group::Everywhere,
    }
}

/// The help's rows for `width` columns, the group of `focus` first, each with the keys in force.
pub fn help_rows(keys: &Keymap, focus: Focus, width: usize, theme: &Theme) -> Vec<RLine> {
    // The key column fits the usual keys; longer ones get a row of their own.
    let key_w = keys
        .help()
        .map(|(label, _)| label.chars().count())
        .filter(|&n| n <= KEY_COLUMN)
        .max()
        .unwrap_or(0)
        .min(width / 3)
        + 2;
    let first = Group::of_focus(focus);
    let mut order = vec![first, Group::Everywhere];
    for group in [
        Group::Answer,
        Group::Sources,
        Group::Prompt,
        Group::Popups,
        Group::Comparison,
    ] {
        if !order.contains(&group) {
            order.push(group);
        }
    }
    order.dedup();
    let mut rows = Vec::new();
    for group in order {
        if !rows.is_empty() {
            rows.push(RLine::blank());
        }
        let here = if group == first && group != Group::Everywhere {
            " (focused)"
        } else {
            ""
        };
        rows.push(RLine {
            pieces: vec![piece(
                format!("{}{here}", group.heading()),
                theme.heading(3).add_modifier(Modifier::BOLD),
            )],
        });
        for (label, entry) in keys.help().filter(|(_, e)| group_of(e) == group) {
            let padded = format!("{label:<key_w$}");
            let (first_row, help) = if padded.chars().count() > key_w {
                // Keys longer than the column get a row of their own.
                rows.push(RLine {
                    pieces: vec![piece(label.to_owned(), key_style(theme))],
                });
                (vec![piece(" ".repeat(key_w), Style::new())], entry.help)
            } else {
                (vec![piece(padded, key_style(theme))], entry.help)
            };
            let cont = vec![piece(" ".repeat(key_w), Style::new())];
            rows.extend(wrap_text(help, theme.text(), width, first_row, cont));
        }
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

fn key_style(theme: &Theme) -> Style {
    theme.accent().add_modifier(Modifier::BOLD)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headings(focus: Focus) -> Vec<String> {
        let theme = Theme::default();
        help_rows(&Keymap::default(), focus, 70, &theme)
            .iter()
            .map(RLine::text)
            .filter(|t| {
                [
                    "Answer",
                    "Sources",
                    "Prompt",
                    "Popups",
                    "Comparing",
                    "Every pane",
                ]
                .iter()
                .any(|h| t.starts_with(h))
            })
            .collect()
    }

    #[test]
    fn the_focused_panes_keys_come_first_then_every_panes() {
        assert_eq!(
            headings(Focus::Sources),
            [
                "Sources (focused)",
                "Every pane",
                "Answer",
                "Prompt (typing)",
                "Popups",
                "Comparing agents (--provider a,b,c)"
            ]
        );
        assert_eq!(headings(Focus::Answer)[0], "Answer (focused)");
        assert_eq!(headings(Focus::Plan)[0], "Every pane");
    }

    #[test]
    fn every_key_of_the_table_is_in_the_help() {
        let theme = Theme::default();
        let text: String = help_rows(&Keymap::default(), Focus::Answer, 200, &theme)
            .iter()
            .map(|r| r.text() + "\n")
            .collect();
        for entry in crate::tui::state::keymap::KEYMAP {
            assert!(text.contains(entry.keys), "{} is missing", entry.keys);
        }
    }
}
