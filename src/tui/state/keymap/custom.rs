//! The key map in force: the table ([`KEYMAP`]) with the `[keys]` table of `config.toml` applied.
//!
//! Every binding has an action name (`open_source`, `down`, `quit`, …: [`action_name`]); an entry
//! `open_source = "O"` (or a list, `down = ["j", "ctrl-n"]`, or `[]` for no key) replaces the keys
//! of every binding with that name, in every place it works. Where text is typed (the prompt, the
//! sessions filter, and so for keys that work everywhere) a plain character cannot be a key: there
//! the entry's characters are left out, and a binding left with none keeps its own keys. The
//! entries are checked before the app starts; the first bad one is one line ([`KeysError`]): an
//! unknown name (with the nearest one), a key that cannot be read, or a key another action already
//! takes in the same place.

use crossterm::event::{KeyCode, KeyModifiers};

use super::{Context, KEYMAP, Key, KeyHelp, Mods, alt, ctrl};
use crate::render::sanitize::is_unsafe;
use crate::tui::state::action::{Action, ComparisonKey};
use crate::tui::state::focus::Focus;

/// A binding of the key map in force.
#[derive(Debug, Clone)]
pub struct Bound {
    pub context: Context,
    pub keys: Vec<Key>,
    pub action: Action,
    /// The action's name in `[keys]`.
    pub name: &'static str,
    /// Its keys come from `[keys]`.
    custom: bool,
}

/// The key map in force: every binding, and each help row's keys as shown.
#[derive(Debug, Clone)]
pub struct Keymap {
    /// Per row of [`KEYMAP`], its bindings (in table order).
    rows: Vec<Vec<Bound>>,
    /// Per row of [`KEYMAP`], its keys as the help shows them.
    labels: Vec<String>,
}

impl Default for Keymap {
    fn default() -> Self {
        let rows = KEYMAP
            .iter()
            .map(|entry| {
                entry
                    .bindings
                    .iter()
                    .map(|b| Bound {
                        context: b.context,
                        keys: b.keys.to_vec(),
                        action: b.action.clone(),
                        name: action_name(b.context, &b.action)
                            .expect("every bound action is named"),
                        custom: false,
                    })
                    .collect()
            })
            .collect();
        let labels = KEYMAP.iter().map(|entry| entry.keys.to_owned()).collect();
        Keymap { rows, labels }
    }
}

/// A bad entry of `[keys]`, said in one line (`[keys] open_sorce: no such action (did you mean
/// open_source?)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeysError(pub String);

impl std::fmt::Display for KeysError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeysError {}

/// One entry of `[keys]`: the action's name and its keys as written (`None`: the value was neither
/// a string nor a list of strings).
pub type Entry = (String, Option<Vec<String>>);

impl Keymap {
    /// The table with `entries` applied, or the first bad entry.
    pub fn with_entries(entries: &[Entry]) -> Result<Keymap, KeysError> {
        let mut keymap = Keymap::default();
        let names = Keymap::names();
        let mut parsed = Vec::new();
        for (name, specs) in entries {
            if !names.contains(&name.as_str()) {
                return Err(unknown(name, &names));
            }
            let Some(specs) = specs else {
                return Err(KeysError(format!(
                    "[keys] {name}: give a key (\"O\", \"ctrl-o\") or a list of keys"
                )));
            };
            let mut keys = Vec::new();
            for spec in specs {
                let key = parse_key(spec).ok_or_else(|| {
                    KeysError(format!(
                        "[keys] {name} = {}: not a key (write keys as \"O\", \"ctrl-o\", \"alt-b\", \"f5\", \"pgup\")",
                        quoted(spec)
                    ))
                })?;
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
            if keys.is_empty()
                && let Some(why) = needs_a_key(name)
            {
                return Err(KeysError(format!(
                    "[keys] {name} = []: it needs a key ({why})"
                )));
            }
            parsed.push((name.as_str(), keys));
        }
        for (name, keys) in &parsed {
            keymap.set(name, keys);
        }
        for (name, specs) in entries {
            keymap.check(name, specs.as_deref().unwrap_or_default())?;
        }
        keymap.relabel(&parsed);
        Ok(keymap)
    }

    /// Every binding, in table order.
    pub fn bindings(&self) -> impl Iterator<Item = &Bound> {
        self.rows.iter().flatten()
    }

    /// The help's rows: the keys in force as shown, and the table's row (what they do).
    pub fn help(&self) -> impl Iterator<Item = (&str, &'static KeyHelp)> {
        self.labels.iter().map(String::as_str).zip(KEYMAP.iter())
    }

    /// The first key in force of the action `name` where it works in the first of `places` that
    /// has one, as the help writes it (`F1`, `?`): for hints that name a key.
    pub fn key_in(&self, name: &str, places: &[Context]) -> Option<String> {
        self.first_key(name, places).map(key_name)
    }

    /// The key [`Keymap::key_in`] names, itself: whether it arms is the key's to say, not its
    /// name's.
    pub(super) fn first_key(&self, name: &str, places: &[Context]) -> Option<&Key> {
        places.iter().find_map(|place| {
            self.bindings()
                .filter(|b| b.name == name && b.context == *place)
                .find_map(|b| b.keys.first())
        })
    }

    /// Every action name, in table order.
    pub fn names() -> Vec<&'static str> {
        let mut names = Vec::new();
        for name in Keymap::default().bindings().map(|b| b.name) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }

    /// Give every binding named `name` these keys (where text is typed, without plain characters;
    /// a binding left with none there keeps its own).
    fn set(&mut self, name: &str, keys: &[Key]) {
        for bound in self.rows.iter_mut().flatten().filter(|b| b.name == name) {
            let keys: Vec<Key> = if typing(bound.context) {
                keys.iter().filter(|k| !is_typed(k)).copied().collect()
            } else {
                keys.to_vec()
            };
            if keys.is_empty() && !bound.keys.is_empty() && typing(bound.context) {
                continue;
            }
            bound.keys = keys;
            bound.custom = true;
        }
    }

    /// The first key of `name`'s entry that another action (or the prompt's editing) already takes
    /// where `name` works.
    fn check(&self, name: &str, specs: &[String]) -> Result<(), KeysError> {
        let spec_of = |key: &Key| {
            specs
                .iter()
                .find(|s| parse_key(s).as_ref() == Some(key))
                .map_or_else(|| key_name(key), |s| quoted(s))
        };
        for mine in self.bindings().filter(|b| b.name == name && b.custom) {
            for key in &mine.keys {
                let clash = |other: &Bound| {
                    other.action != mine.action
                        && overlap(mine.context, other.context)
                        && other.keys.iter().any(|k| keys_overlap(k, key))
                };
                if let Some(other) = self.bindings().find(|b| clash(b)) {
                    return Err(KeysError(format!(
                        "[keys] {name} = {}: {} already does {} {}",
                        spec_of(key),
                        key_name(key),
                        other.name,
                        place(other.context)
                    )));
                }
                let editing = READLINE.iter().find(|(k, _)| keys_overlap(k, key));
                if let Some((_, what)) = editing
                    && overlap(mine.context, Context::Prompt)
                {
                    return Err(KeysError(format!(
                        "[keys] {name} = {}: {} already edits the prompt ({what})",
                        spec_of(key),
                        key_name(key)
                    )));
                }
            }
        }
        Ok(())
    }

    /// Each help row's keys with the entries' keys in place of the ones they replaced.
    fn relabel(&mut self, parsed: &[(&str, Vec<Key>)]) {
        for (i, entry) in KEYMAP.iter().enumerate() {
            let row = &self.rows[i];
            let current: Vec<String> = row.iter().flat_map(|b| &b.keys).map(key_name).collect();
            let mut out: Vec<String> = Vec::new();
            let mut placed: Vec<&str> = Vec::new();
            let overridden: Vec<&(&str, Vec<Key>)> = parsed
                .iter()
                .filter(|(name, _)| row.iter().any(|b| b.name == *name))
                .collect();
            for token in entry.keys.split(' ') {
                let replaced = overridden.iter().find(|(name, _)| {
                    entry
                        .bindings
                        .iter()
                        .filter(|b| action_name(b.context, &b.action) == Some(name))
                        .flat_map(|b| b.keys)
                        .any(|k| key_name(k) == token)
                });
                match replaced {
                    None => push(token.to_owned(), &mut out),
                    Some((name, keys)) => {
                        if current.iter().any(|c| c == token) {
                            push(token.to_owned(), &mut out);
                        }
                        if !placed.contains(name) {
                            placed.push(name);
                            keys.iter().for_each(|k| push(key_name(k), &mut out));
                        }
                    }
                }
            }
            for (name, keys) in overridden {
                if !placed.contains(name) {
                    keys.iter().for_each(|k| push(key_name(k), &mut out));
                }
            }
            self.labels[i] = out.join(" ");
        }
    }
}

/// Add a key's name to a label, once.
fn push(name: String, out: &mut Vec<String>) {
    if !out.contains(&name) {
        out.push(name);
    }
}

/// The prompt's readline editing keys (`PromptPane::input`): an entry cannot take them there.
const READLINE: [(Key, &str); 9] = [
    (ctrl('a'), "line start"),
    (ctrl('e'), "line end"),
    (ctrl('u'), "delete to the line's start"),
    (ctrl('w'), "delete a word"),
    (ctrl('_'), "undo"),
    (ctrl('/'), "undo"),
    (ctrl('7'), "undo"),
    (alt('b'), "word back"),
    (alt('f'), "word forward"),
];

/// The name of `action` bound in `context` in `[keys]`; `None` for what no key asks for directly
/// (typing, clicks, confirming an armed letter).
pub fn action_name(context: Context, action: &Action) -> Option<&'static str> {
    Some(match action {
        Action::Tab(true) => "next_tab",
        Action::Tab(false) => "previous_tab",
        Action::FocusNext => "focus_next",
        Action::FocusPrev => "focus_previous",
        Action::Focus(Focus::Answer) if context == Context::Prompt => "leave_prompt",
        Action::Focus(Focus::Sources) => "focus_sources",
        Action::Focus(Focus::Answer) => "focus_answer",
        Action::Focus(Focus::Plan) => "focus_plan",
        Action::Focus(Focus::Activity) => "focus_activity",
        Action::Focus(Focus::Prompt) => "focus_prompt",
        Action::Focus(Focus::Timeline) => "focus_timeline",
        Action::Quit => "quit",
        Action::Interrupt => "interrupt",
        Action::Suspend => "suspend",
        Action::Up => "up",
        Action::Down => "down",
        Action::PageUp => "page_up",
        Action::PageDown => "page_down",
        Action::Top => "top",
        Action::Bottom => "bottom",
        Action::Enter => "enter",
        Action::RawJson => "raw_json",
        Action::NextSpan => "next_span",
        Action::PrevSpan => "previous_span",
        Action::OpenUrl => "open_source",
        Action::CopyUrl => "copy",
        Action::Export => "export",
        Action::Help => "help",
        Action::Escape => "escape",
        Action::Submit => "send",
        Action::Newline => "new_line",
        Action::Turn(false) => "previous_turn",
        Action::Turn(true) => "next_turn",
        Action::Sessions => "sessions",
        Action::Filter => "filter",
        Action::Ids => "ids",
        Action::Mouse => "mouse",
        Action::Retry => "retry",
        Action::Comparison(ComparisonKey::Agent(true)) => "next_agent",
        Action::Comparison(ComparisonKey::Agent(false)) => "previous_agent",
        Action::Comparison(ComparisonKey::Source(true)) => "next_merged_source",
        Action::Comparison(ComparisonKey::Source(false)) => "previous_merged_source",
        Action::Comparison(ComparisonKey::SendTo) => "send_to",
        Action::Resize(true) => "widen",
        Action::Resize(false) => "narrow",
        Action::Zoom => "zoom",
        Action::Timeline => "timeline",
        Action::Search => "search",
        Action::SearchStep(true) => "next_hit",
        Action::SearchStep(false) => "previous_hit",
        Action::ChartStep(true) => "next_chart",
        Action::ChartStep(false) => "previous_chart",
        Action::ResetSizes => "reset_sizes",
        Action::Edit(_)
        | Action::Type(_)
        | Action::Paste(_)
        | Action::Click(_)
        | Action::Wheel(..)
        | Action::Arm(_)
        | Action::Confirm => return None,
    })
}

/// Why the action `name` may not be left without a key, if it may not: without it a popup could
/// not be closed, or a running answer cancelled.
fn needs_a_key(name: &str) -> Option<&'static str> {
    match name {
        "escape" => Some("it is the only way to close a popup or leave a search"),
        "interrupt" => Some("it is the only way to cancel a running answer"),
        _ => None,
    }
}

/// Text can be typed here (the prompt, the sessions filter, a search being typed; everywhere and a
/// comparison's column include the prompt): a plain character is text, not a key.
fn typing(context: Context) -> bool {
    matches!(
        context,
        Context::Prompt
            | Context::PickerFilter
            | Context::Search
            | Context::Anywhere
            | Context::Comparison
    )
}

/// A key that types a character.
fn is_typed(key: &Key) -> bool {
    matches!(key.code, KeyCode::Char(_)) && key.mods == Mods::Plain
}

/// Can the app be in both contexts at once?
fn overlap(a: Context, b: Context) -> bool {
    use Context::{Anywhere, Comparison, NarrowPanes, Panes, PickerFilter, Popup};
    match (a, b) {
        (Anywhere, _) | (_, Anywhere) => true,
        // A comparison's column holds with no popup open: with the prompt or the panes.
        (Comparison, other) | (other, Comparison) => !matches!(other, Popup | PickerFilter),
        (Panes | NarrowPanes, Panes | NarrowPanes) => true,
        _ => a == b,
    }
}

/// Does one key press match both?
fn keys_overlap(a: &Key, b: &Key) -> bool {
    a.code == b.code && every_mix().any(|mods| a.mods.allow(mods) && b.mods.allow(mods))
}

/// Every mix of Ctrl, Alt and Shift (none included).
pub(super) fn every_mix() -> impl Iterator<Item = KeyModifiers> {
    (0u8..8).map(|m| {
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
        mods
    })
}

/// Where a context's bindings work, as the clash message says it.
fn place(context: Context) -> &'static str {
    match context {
        Context::Anywhere => "everywhere",
        Context::Popup => "in a popup",
        Context::PickerFilter => "in the sessions filter",
        Context::Prompt => "in the prompt",
        Context::Panes => "in the panes",
        Context::NarrowPanes => "in the narrow layout's panes",
        Context::Comparison => "in a comparison",
        Context::Search => "while a search is typed",
    }
}

/// A key as written in `[keys]`: a character (`O`, `?`), a named key (`enter`, `esc`, `tab`,
/// `backtab`, `space`, `up` `down` `left` `right`, `pgup` `pgdn`, `home` `end`, `backspace`,
/// `delete`, `insert`, `f1`…`f12`), either with one of `ctrl-`, `alt-`, `shift-` before it
/// (or `ctrl+`, `C-`). Names and modifiers in any case; a character keeps its case (`shift-o` is
/// `O`).
pub fn parse_key(spec: &str) -> Option<Key> {
    let (mods, base) = match spec.split_once(['-', '+']) {
        Some((m, rest)) if !rest.is_empty() && spec.chars().count() > 1 => {
            match m.to_ascii_lowercase().as_str() {
                "ctrl" | "c" => (Mods::Ctrl, rest),
                "alt" | "a" => (Mods::Alt, rest),
                "shift" | "s" => (Mods::Shift, rest),
                _ => return None,
            }
        }
        _ => (Mods::Plain, spec),
    };
    let mut chars = base.chars();
    let code = match (chars.next(), chars.next()) {
        // Bidi marks and invisibles are not keys anyone types, and the help would show them raw.
        (Some(c), None) if !c.is_control() && c != ' ' && !is_unsafe(c) => KeyCode::Char(c),
        _ => named(&base.to_ascii_lowercase())?,
    };
    Some(match (mods, code) {
        (Mods::Ctrl, KeyCode::Char(c)) => ctrl(c.to_ascii_lowercase()),
        (Mods::Shift, KeyCode::Char(c)) => Key {
            code: KeyCode::Char(c.to_uppercase().next().unwrap_or(c)),
            mods: Mods::Plain,
        },
        (Mods::Shift, KeyCode::Tab) => Key {
            code: KeyCode::BackTab,
            mods: Mods::Any,
        },
        (Mods::Plain, KeyCode::Char(_)) => Key { code, mods },
        // A named key alone takes any modifiers, as the table's do.
        (Mods::Plain, code) => Key {
            code,
            mods: Mods::Any,
        },
        (mods, code) => Key { code, mods },
    })
}

fn named(name: &str) -> Option<KeyCode> {
    Some(match name {
        "enter" | "return" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "space" => KeyCode::Char(' '),
        "minus" => KeyCode::Char('-'),
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "pgup" | "pageup" => KeyCode::PageUp,
        "pgdn" | "pgdown" | "pagedown" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "backspace" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        "insert" | "ins" => KeyCode::Insert,
        f if f.starts_with('f') => match f[1..].parse::<u8>() {
            Ok(n @ 1..=12) => KeyCode::F(n),
            _ => return None,
        },
        _ => return None,
    })
}

/// A key as the help and docs/keys.md write it (`o`, `Ctrl-O`, `Alt-B`, `PgUp`, `↑`, `Space`).
pub fn key_name(key: &Key) -> String {
    let base = match key.code {
        KeyCode::Char(' ') => "Space".to_owned(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::BackTab => "Shift-Tab".to_owned(),
        KeyCode::F(n) => format!("F{n}"),
        KeyCode::Up => "↑".to_owned(),
        KeyCode::Down => "↓".to_owned(),
        KeyCode::Left => "←".to_owned(),
        KeyCode::Right => "→".to_owned(),
        KeyCode::PageUp => "PgUp".to_owned(),
        KeyCode::PageDown => "PgDn".to_owned(),
        KeyCode::Delete => "Del".to_owned(),
        KeyCode::Insert => "Ins".to_owned(),
        other => other.to_string(),
    };
    match (key.mods, key.code) {
        (Mods::Ctrl, KeyCode::Char(c)) => format!("Ctrl-{}", c.to_ascii_uppercase()),
        (Mods::Ctrl, _) => format!("Ctrl-{base}"),
        (Mods::AltOrShift, KeyCode::Enter) => "Alt-Enter".to_owned(),
        // As the table writes Ctrl and Alt letters: `Alt-N` is Alt with n.
        (Mods::Alt, KeyCode::Char(c)) => format!("Alt-{}", c.to_ascii_uppercase()),
        (Mods::Alt, _) => format!("Alt-{base}"),
        (Mods::Shift, _) => format!("Shift-{base}"),
        _ => base,
    }
}

/// A value from the user's file, quoted with anything unprintable escaped, at most 40 characters.
fn quoted(text: &str) -> String {
    let short: String = text.chars().take(40).collect();
    format!("{short:?}")
}

/// `[keys] NAME: no such action`, with the nearest name when one is near.
fn unknown(name: &str, names: &[&'static str]) -> KeysError {
    let typed = name.to_ascii_lowercase().replace('-', "_");
    // A name the typed one starts with (`copy_url`: `copy`) counts as near.
    let nearest = names
        .iter()
        .map(|n| {
            match !typed.is_empty() && (typed.starts_with(n) || n.starts_with(typed.as_str())) {
                true => (1, *n),
                false => (distance(&typed, n), *n),
            }
        })
        .min()
        .filter(|(d, n)| *d <= 2.max(n.len() / 3));
    let shown = if name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        name.to_owned()
    } else {
        quoted(name)
    };
    KeysError(match nearest {
        Some((_, near)) => format!("[keys] {shown}: no such action (did you mean {near}?)"),
        None => format!("[keys] {shown}: no such action (docs/keys.md lists them)"),
    })
}

/// Edit distance (insertions, deletions, substitutions) between two short names.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(here + 1);
            prev = here;
        }
    }
    row[b.len()]
}
