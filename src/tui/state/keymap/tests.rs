//! The key table's tests: no two bindings take one key in any state, the help names every key, and
//! docs/keys.md's key table is the table, and every key the README names is bound as it says.

use super::*;
use crate::tui::state::{AppConfig, Mode, Picker, Popup, SidebarItem};
use KeyCode::{BackTab, Down, End, Enter, Esc, F, Home, Left, PageDown, PageUp, Right, Tab, Up};

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
        for mods in custom::every_mix() {
            keys.push(KeyEvent::new(code, mods));
        }
    }
    keys
}

/// No two bindings of `keys` take one key in any state (`same_action`: unless they ask for the
/// same action, as `focus_next` and `next_tab` given one key may: the key does one thing).
fn assert_no_overlap(keys: &Keymap, same_action: bool) {
    for (app, narrow) in every_state() {
        for key in every_key() {
            let mut taking: Vec<&custom::Bound> = keys
                .bindings()
                .filter(|b| b.context.holds(&app, narrow) && b.keys.iter().any(|k| k.matches(&key)))
                .collect();
            if same_action {
                let mut seen: Vec<&Action> = Vec::new();
                taking.retain(|b| {
                    let new = !seen.contains(&&b.action);
                    seen.push(&b.action);
                    new
                });
            }
            assert!(
                taking.len() <= 1,
                "{key:?} with {:?}, focus {:?}: {taking:?}",
                app.popup,
                app.focus
            );
        }
    }
}

#[test]
fn at_most_one_binding_takes_a_key_in_any_state() {
    assert_no_overlap(&Keymap::default(), false);
}

/// The key map with these `[keys]` entries.
fn remapped(entries: &[(&str, &[&str])]) -> Result<Keymap, KeysError> {
    let entries: Vec<custom::Entry> = entries
        .iter()
        .map(|(name, keys)| {
            let keys = keys.iter().map(|k| k.to_string()).collect();
            (name.to_string(), Some(keys))
        })
        .collect();
    Keymap::with_entries(&entries)
}

/// An app browsing the panes (the prompt left) with `keys` in force.
fn browsing(keys: Keymap) -> App {
    let mut app = App::new(AppConfig {
        mode: Mode::Demo,
        theme: Default::default(),
        can_ask: true,
    });
    app.focus = Focus::Sources;
    app.keys = keys;
    app
}

fn press(app: &App, code: KeyCode, mods: KeyModifiers) -> Option<Action> {
    action_for(app, false, KeyEvent::new(code, mods))
}

#[test]
fn an_entry_gives_an_action_its_keys_in_every_place_it_works_and_the_old_key_types() {
    let keys = remapped(&[("open_source", &["O"]), ("help", &["ctrl-h", "f2"])]).unwrap();
    let mut app = browsing(keys);
    let shift = KeyModifiers::SHIFT;
    let armed = press(&app, KeyCode::Char('O'), shift);
    assert!(
        matches!(&armed, Some(Action::Arm(a)) if *a.action == Action::OpenUrl && a.letter == 'O'),
        "{armed:?}"
    );
    let o = press(&app, KeyCode::Char('o'), KeyModifiers::NONE);
    assert!(matches!(o, Some(Action::Type(_))), "{o:?}");
    let ctrl_h = press(&app, KeyCode::Char('h'), KeyModifiers::CONTROL);
    assert_eq!(ctrl_h, Some(Action::Help));
    assert_eq!(
        press(&app, KeyCode::F(2), KeyModifiers::NONE),
        Some(Action::Help)
    );
    assert_eq!(press(&app, KeyCode::F(1), KeyModifiers::NONE), None);
    // In the source popup too (where, as in a pane, the letter only arms opening).
    app.popup = Some(Popup::Source {
        item: SidebarItem::Source(0),
        scroll: 0,
        span: None,
    });
    let armed = press(&app, KeyCode::Char('O'), shift);
    assert!(
        matches!(&armed, Some(Action::Arm(a)) if *a.action == Action::OpenUrl && a.letter == 'O'),
        "{armed:?}"
    );
    assert_eq!(press(&app, KeyCode::Char('o'), KeyModifiers::NONE), None);
}

#[test]
fn where_text_is_typed_an_entrys_characters_are_left_out_and_other_keys_apply() {
    let mut app = browsing(remapped(&[("down", &["J"]), ("raw_json", &["R"])]).unwrap());
    assert_eq!(
        press(&app, KeyCode::Char('J'), KeyModifiers::SHIFT),
        Some(Action::Down)
    );
    assert!(matches!(
        press(&app, KeyCode::Char('j'), KeyModifiers::NONE),
        Some(Action::Type(_))
    ));
    app.focus = Focus::Prompt;
    // J is typed in the prompt; Ctrl-↓ still scrolls the answer from there.
    assert!(matches!(
        press(&app, KeyCode::Char('J'), KeyModifiers::SHIFT),
        Some(Action::Edit(_))
    ));
    assert_eq!(press(&app, Down, KeyModifiers::CONTROL), Some(Action::Down));
    let mut app = browsing(remapped(&[("down", &["D", "ctrl-n"])]).unwrap());
    app.focus = Focus::Prompt;
    assert_eq!(
        press(&app, KeyCode::Char('n'), KeyModifiers::CONTROL),
        Some(Action::Down)
    );
    assert!(matches!(
        press(&app, Down, KeyModifiers::CONTROL),
        Some(Action::Edit(_))
    ));
    // F1 works everywhere, the prompt too: a character given to help is a key in the panes and
    // popups, and typed in the prompt.
    let mut app = browsing(remapped(&[("help", &["H", "f2"])]).unwrap());
    assert_eq!(
        press(&app, KeyCode::Char('H'), KeyModifiers::SHIFT),
        Some(Action::Help)
    );
    assert_eq!(
        press(&app, KeyCode::F(2), KeyModifiers::NONE),
        Some(Action::Help)
    );
    app.focus = Focus::Prompt;
    assert!(matches!(
        press(&app, KeyCode::Char('H'), KeyModifiers::SHIFT),
        Some(Action::Edit(_))
    ));
    assert_eq!(
        press(&app, KeyCode::F(2), KeyModifiers::NONE),
        Some(Action::Help)
    );
}

#[test]
fn a_remapped_quit_is_confirmed_by_its_own_letter_again_and_a_ctrl_key_acts_at_once() {
    let mut app = browsing(remapped(&[("quit", &["Q"])]).unwrap());
    let Some(Action::Arm(armed)) = press(&app, KeyCode::Char('Q'), KeyModifiers::SHIFT) else {
        panic!("Q arms quit");
    };
    app.armed = Some(armed);
    assert_eq!(
        press(&app, KeyCode::Char('Q'), KeyModifiers::SHIFT),
        Some(Action::Confirm)
    );
    let app = browsing(remapped(&[("quit", &["ctrl-q"])]).unwrap());
    assert_eq!(
        press(&app, KeyCode::Char('q'), KeyModifiers::CONTROL),
        Some(Action::Quit)
    );
}

#[test]
fn swapped_keys_are_no_clash_and_no_remapping_ever_lets_two_bindings_take_a_key() {
    let keys = remapped(&[
        ("down", &["k"]),
        ("up", &["j"]),
        ("open_source", &["O", "ctrl-o"]),
        ("suspend", &["f9"]),
        ("next_tab", &["alt-l"]),
        ("top", &["home"]),
    ])
    .unwrap();
    assert_no_overlap(&keys, true);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Whatever entries are written, the check at start lets through only key maps in which no two
    /// bindings take one key in any state (the exhaustive check agrees with the quick one).
    #[test]
    fn any_key_map_the_check_accepts_has_no_key_taken_twice(
        picks in proptest::collection::vec((0usize..64, proptest::collection::vec(0usize..24, 0..3)), 1..5)
    ) {
        const KEYS: [&str; 24] = [
            "j", "k", "q", "?", "O", "x", "Z", "ctrl-a", "ctrl-c", "ctrl-n", "ctrl-z", "alt-b",
            "f1", "f2", "enter", "esc", "tab", "shift-tab", "up", "ctrl-up", "pgdn", "space",
            "home", "/",
        ];
        let names = Keymap::names();
        let entries: Vec<(&str, Vec<&str>)> = picks
            .iter()
            .map(|(name, keys)| (names[name % names.len()], keys.iter().map(|k| KEYS[*k]).collect()))
            .collect();
        let refs: Vec<(&str, &[&str])> = entries.iter().map(|(n, k)| (*n, k.as_slice())).collect();
        if let Ok(keys) = remapped(&refs) {
            assert_no_overlap(&keys, true);
        }
    }
}

#[test]
fn the_help_shows_the_keys_in_force_in_place_of_the_ones_they_replaced() {
    let keys = remapped(&[
        ("open_source", &["O"]),
        ("down", &["D", "f8"]),
        ("page_down", &["f", "pgdn"]),
        ("focus_next", &["ctrl-n"]),
        ("escape", &["x"]),
        ("help", &["f2"]),
    ])
    .unwrap();
    let label = |row: &str| {
        let (label, _) = keys.help().find(|(_, e)| e.keys == row).unwrap();
        label.to_owned()
    };
    assert_eq!(label("o"), "O");
    assert_eq!(label("j k ↑ ↓"), "D F8 k ↑");
    assert_eq!(label("PgUp PgDn"), "PgUp PgDn f");
    assert_eq!(label("Tab / Shift-Tab"), "Ctrl-N / Shift-Tab");
    // The prompt's Esc (leave_prompt) is still Esc.
    assert_eq!(label("Esc"), "Esc x");
    assert_eq!(label("? F1"), "F2");
    assert_eq!(label("c a p t i"), "c a p t i");
    let defaults = Keymap::default();
    assert!(defaults.help().all(|(label, entry)| label == entry.keys));
}

/// The one line a bad entry gives.
fn error(entries: &[(&str, &[&str])]) -> String {
    remapped(entries).unwrap_err().to_string()
}

#[test]
fn each_kind_of_bad_entry_is_one_line_that_says_what_is_wrong() {
    assert_eq!(
        error(&[("open_sorce", &["O"])]),
        "[keys] open_sorce: no such action (did you mean open_source?)"
    );
    assert_eq!(
        error(&[("open-source", &["O"])]),
        "[keys] open-source: no such action (did you mean open_source?)"
    );
    assert_eq!(
        error(&[("copy_url", &["Y"])]),
        "[keys] copy_url: no such action (did you mean copy?)"
    );
    assert_eq!(
        error(&[("frobnicate", &["O"])]),
        "[keys] frobnicate: no such action (docs/keys.md lists them)"
    );
    assert_eq!(
        error(&[("quit", &["ctrl-"])]),
        "[keys] quit = \"ctrl-\": not a key (write keys as \"O\", \"ctrl-o\", \"alt-b\", \"f5\", \"pgup\")"
    );
    assert_eq!(
        error(&[("quit", &["hyper-q"])]),
        "[keys] quit = \"hyper-q\": not a key (write keys as \"O\", \"ctrl-o\", \"alt-b\", \"f5\", \"pgup\")"
    );
    assert_eq!(
        error(&[("open_source", &["j"])]),
        "[keys] open_source = \"j\": j already does down in a popup"
    );
    assert_eq!(
        error(&[("help", &["ctrl-c"])]),
        "[keys] help = \"ctrl-c\": Ctrl-C already does interrupt everywhere"
    );
    assert_eq!(
        error(&[("suspend", &["ctrl-a"])]),
        "[keys] suspend = \"ctrl-a\": Ctrl-A already edits the prompt (line start)"
    );
    // No key at all is fine for most actions, not for the ways out.
    assert!(remapped(&[("mouse", &[])]).is_ok());
    assert_eq!(
        error(&[("escape", &[])]),
        "[keys] escape = []: it needs a key (it is the only way to close a popup or leave a search)"
    );
    assert_eq!(
        error(&[("interrupt", &[])]),
        "[keys] interrupt = []: it needs a key (it is the only way to cancel a running answer)"
    );
    let not_keys = Keymap::with_entries(&[("quit".to_owned(), None)]).unwrap_err();
    assert_eq!(
        not_keys.to_string(),
        "[keys] quit: give a key (\"O\", \"ctrl-o\") or a list of keys"
    );
    // A bidi override or an invisible is no key.
    assert!(error(&[("quit", &["\u{202E}"])]).contains("not a key"));
    assert!(error(&[("quit", &["\u{200B}"])]).contains("not a key"));
    // Control characters in the file never reach the terminal.
    let line = error(&[("quit", &["\u{1b}[31m"])]);
    assert!(!line.contains('\u{1b}'), "{line}");
}

#[test]
fn keys_are_read_as_written_in_any_case_with_one_modifier() {
    let read = |spec: &str| custom::parse_key(spec).map(|k| custom::key_name(&k));
    assert_eq!(read("O").as_deref(), Some("O"));
    assert_eq!(read("ctrl-o").as_deref(), Some("Ctrl-O"));
    assert_eq!(read("ctrl+o").as_deref(), Some("Ctrl-O"));
    assert_eq!(read("+").as_deref(), Some("+"));
    assert_eq!(read("alt++").as_deref(), Some("Alt-+"));
    assert_eq!(read("Ctrl-O").as_deref(), Some("Ctrl-O"));
    assert_eq!(read("C-o").as_deref(), Some("Ctrl-O"));
    assert_eq!(read("alt-b").as_deref(), Some("Alt-B"));
    assert_eq!(read("f5").as_deref(), Some("F5"));
    assert_eq!(read("F12").as_deref(), Some("F12"));
    assert_eq!(read("pgup").as_deref(), Some("PgUp"));
    assert_eq!(read("PageDown").as_deref(), Some("PgDn"));
    assert_eq!(read("shift-tab").as_deref(), Some("Shift-Tab"));
    assert_eq!(read("shift-o").as_deref(), Some("O"));
    assert_eq!(read("ctrl-up").as_deref(), Some("Ctrl-↑"));
    assert_eq!(read("space").as_deref(), Some("Space"));
    assert_eq!(read("-").as_deref(), Some("-"));
    assert_eq!(read("ctrl--").as_deref(), Some("Ctrl--"));
    for bad in ["", "ctrl-", "f13", "f0", "oo", "ctrl-alt-x", "hyper-q", " "] {
        assert_eq!(read(bad), None, "{bad:?}");
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
            "Space (Popup)",
            "Ctrl-U (Panes)",
            "Space (Panes)",
            "Ctrl-D (Panes)",
            "Home (Popup)",
            "End (Popup)",
            "Home (Panes)",
            "End (Panes)",
            "Enter (Search)",
            "↓ (Search)",
            "Alt-Enter (Search)",
            "↑ (Search)",
            "Esc (Search)",
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
    let table = &section[section.find("\n|").expect("a table") + 1..];
    table
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .collect()
}

/// docs/keys.md's table of action names, from the key map.
fn names_doc_rows() -> String {
    let keys = Keymap::default();
    Keymap::names()
        .iter()
        .map(|name| {
            let mut shown: Vec<String> = Vec::new();
            for key in keys
                .bindings()
                .filter(|b| b.name == *name)
                .flat_map(|b| &b.keys)
            {
                let key = markdown_keys(&custom::key_name(key));
                if !shown.contains(&key) {
                    shown.push(key);
                }
            }
            format!("| `{name}` | {} |\n", shown.join(" "))
        })
        .collect()
}

#[test]
fn the_action_names_in_docs_keys_md_are_the_keymaps() {
    let doc = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/keys.md"));
    let rows: String = table_rows_after(doc, "\n## Changing keys\n")
        .iter()
        .map(|line| format!("{line}\n"))
        .collect();
    assert!(
        rows == names_doc_rows(),
        "docs/keys.md's table of action names (## Changing keys) differs from the key map; its rows should be:\n{}",
        names_doc_rows()
    );
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
