//! The key table's tests: no two bindings take one key in any state, the help names every key, and
//! docs/keys.md's key table is the table, and every key the README names is bound as it says.

use super::*;
use crate::tui::state::{AppConfig, Mode, Picker, Popup, SidebarItem};

/// An app in every state that changes what keys do: each popup or none, each focus, both layouts.
fn every_state() -> Vec<(App, bool)> {
    let mut filtering = Picker::default();
    filtering.start_filter();
    let popups = [
        None,
        Some(Popup::Help { scroll: 0 }),
        Some(Popup::Source {
            item: SidebarItem::Source(0),
            scroll: 0,
            span: None,
        }),
        Some(Popup::Ids { scroll: 0 }),
        Some(Popup::Sessions {
            picker: Box::default(),
        }),
        Some(Popup::Sessions {
            picker: Box::new(filtering),
        }),
    ];
    let mut apps = Vec::new();
    for popup in &popups {
        for focus in Focus::CYCLE {
            for (narrow, comparison) in [(false, false), (true, false), (false, true), (true, true)]
            {
                let mut app = App::new(AppConfig {
                    mode: Mode::Demo,
                    theme: Default::default(),
                    can_ask: true,
                });
                app.popup = popup.clone();
                app.focus = focus;
                app.comparison = comparison;
                apps.push((app, narrow));
            }
        }
    }
    apps
}

/// Every ASCII character and the special keys the table knows, with every mix of Ctrl, Alt, Shift.
fn every_key() -> Vec<KeyEvent> {
    let mut codes: Vec<KeyCode> = (b' '..=b'~').map(|b| KeyCode::Char(b as char)).collect();
    codes.extend([
        Enter,
        Esc,
        Tab,
        BackTab,
        Up,
        Down,
        Left,
        Right,
        PageUp,
        PageDown,
        Home,
        End,
        F(1),
    ]);
    let mut keys = Vec::new();
    for code in codes {
        for m in 0u8..8 {
            let mut mods = KeyModifiers::NONE;
            for (bit, flag) in [
                (1, KeyModifiers::CONTROL),
                (2, KeyModifiers::ALT),
                (4, KeyModifiers::SHIFT),
            ] {
                if m & bit != 0 {
                    mods |= flag;
                }
            }
            keys.push(KeyEvent::new(code, mods));
        }
    }
    keys
}

#[test]
fn at_most_one_binding_takes_a_key_in_any_state() {
    for (app, narrow) in every_state() {
        for key in every_key() {
            let taking: Vec<&Binding> = bindings()
                .filter(|b| b.context.holds(&app, narrow) && b.keys.iter().any(|k| k.matches(&key)))
                .collect();
            assert!(
                taking.len() <= 1,
                "{key:?} with {:?}, focus {:?}: {taking:?}",
                app.popup,
                app.focus
            );
        }
    }
}

/// How the help writes a key.
fn name(key: &Key) -> String {
    match key.code {
        KeyCode::Char(' ') => "Space".to_owned(),
        KeyCode::Char(c) if key.mods == Mods::Ctrl => {
            format!("Ctrl-{}", c.to_ascii_uppercase())
        }
        KeyCode::Char(c) if key.mods == Mods::Alt => {
            format!("Alt-{}", c.to_ascii_uppercase())
        }
        KeyCode::Char(c) => c.to_string(),
        Enter if key.mods == Mods::AltOrShift => "Alt-Enter".to_owned(),
        BackTab => "Shift-Tab".to_owned(),
        F(n) => format!("F{n}"),
        Up => "↑".to_owned(),
        Down => "↓".to_owned(),
        Left => "←".to_owned(),
        Right => "→".to_owned(),
        PageUp => "PgUp".to_owned(),
        PageDown => "PgDn".to_owned(),
        other => other.to_string(),
    }
}

#[test]
fn the_help_names_every_key_but_a_few_alternates() {
    let mut unnamed = Vec::new();
    for entry in KEYMAP {
        let named: Vec<&str> = entry.keys.split(' ').collect();
        for binding in entry.bindings {
            for key in binding.keys {
                if !named.contains(&name(key).as_str()) {
                    unnamed.push(format!("{} ({:?})", name(key), binding.context));
                }
            }
        }
    }
    assert_eq!(
        unnamed,
        [
            "→ (NarrowPanes)",
            "l (NarrowPanes)",
            "← (NarrowPanes)",
            "h (NarrowPanes)",
            "/ (Panes)",
            "Space (Popup)",
            "Ctrl-U (Panes)",
            "Space (Panes)",
            "Ctrl-D (Panes)",
            "Home (Popup)",
            "End (Popup)",
            "Home (Panes)",
            "End (Panes)",
            "= (Panes)",
            "q (Popup)",
        ]
    );
}

/// A key label for Markdown: character keys in backticks (`/` separates alternatives).
fn markdown_keys(keys: &str) -> String {
    keys.split(' ')
        .map(|token| {
            let mut chars = token.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_ascii_graphic() && c != '/' => format!("`{c}`"),
                _ => token.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// docs/keys.md's key table rows, from the key table.
fn keys_doc_rows() -> String {
    KEYMAP
        .iter()
        .map(|entry| {
            let what = entry.readme.unwrap_or(entry.help);
            format!("| {} | {what} |\n", markdown_keys(entry.keys))
        })
        .collect()
}

/// The rows of the first table after `heading` in a Markdown document.
fn table_rows_after<'a>(doc: &'a str, heading: &str) -> Vec<&'a str> {
    let section = &doc[doc
        .find(heading)
        .unwrap_or_else(|| panic!("the document has {heading:?}"))..];
    let table = &section[section.find("\n| Key |").expect("a key table") + 1..];
    table
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .collect()
}

#[test]
fn the_key_table_in_docs_keys_md_is_the_keymap() {
    let doc = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/keys.md"));
    let rows: String = table_rows_after(doc, "\n## Every key\n")
        .iter()
        .map(|line| format!("{line}\n"))
        .collect();
    assert!(
        rows == keys_doc_rows(),
        "docs/keys.md's key table (## Every key) differs from the key table; its rows should be:\n{}",
        keys_doc_rows()
    );
}

#[test]
fn every_key_the_readme_names_is_bound_as_it_says() {
    let readme = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"));
    let rows = table_rows_after(readme, "\n## The ten keys that matter\n");
    assert_eq!(rows.len(), 10, "the README names ten keys: {rows:#?}");
    let bound: Vec<String> = KEYMAP.iter().map(|e| markdown_keys(e.keys)).collect();
    for row in rows {
        let keys = row
            .trim_start_matches('|')
            .split(" |")
            .next()
            .unwrap_or("")
            .trim();
        assert!(
            bound.iter().any(|b| b == keys),
            "the README's key row {row:?} names {keys:?}, which is no row of the key table; \
             the key table's keys are: {bound:?}"
        );
    }
}
