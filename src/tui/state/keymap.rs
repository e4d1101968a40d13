//! The one key table: every key the app answers, where it works ([`Context`]), the [`Action`] it asks
//! for, and the line of help that describes it. Key handling dispatches through [`KEYMAP`], the help
//! overlay lists it, and a test keeps the key table in docs/keys.md the same as it.
//!
//! Bindings never overlap (a test checks): in any state at most one binding takes a given key, so the
//! table's order is only the order of the help. A few bindings have a second key the help does not
//! name, to keep it short (Space, Home/End, Ctrl-D/U, `h` `l` ← → in the narrow layout,
//! Shift-Enter, the search's Enter ↓ Shift-Enter ↑ Esc (its help says them), and `q` or Enter
//! closing a popup); the test lists them too.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::{Action, Armed};
use super::app::App;
use super::focus::Focus;

/// The modifiers a key must be pressed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mods {
    /// Any, or none.
    Any,
    /// Neither Ctrl nor Alt: letter commands are plain keys, so Ctrl-E or Alt-Q never export or quit
    /// by accident (Shift is part of the character: `G`, `N`).
    Plain,
    /// Ctrl held (Alt and Shift do not matter).
    Ctrl,
    /// Alt or Shift held.
    AltOrShift,
    /// Neither Alt nor Shift held.
    NoAltOrShift,
    /// Alt held, Ctrl not (also a `[keys]` entry's `alt-b`).
    Alt,
    /// Shift held, neither Ctrl nor Alt (a `[keys]` entry's `shift-up`).
    Shift,
}

impl Mods {
    pub fn allow(self, mods: KeyModifiers) -> bool {
        let ctrl = mods.contains(KeyModifiers::CONTROL);
        let alt = mods.contains(KeyModifiers::ALT);
        let shift = mods.contains(KeyModifiers::SHIFT);
        match self {
            Mods::Any => true,
            Mods::Plain => !ctrl && !alt,
            Mods::Ctrl => ctrl,
            Mods::AltOrShift => alt || shift,
            Mods::NoAltOrShift => !alt && !shift,
            Mods::Alt => alt && !ctrl,
            Mods::Shift => shift && !ctrl && !alt,
        }
    }
}

/// A key and the modifiers it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub mods: Mods,
}

impl Key {
    pub fn matches(&self, key: &KeyEvent) -> bool {
        key.code == self.code && self.mods.allow(key.modifiers)
    }
}

/// Where a binding works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Always.
    Anywhere,
    /// A popup is open: keys go to it, never to the panes or the prompt behind it (except the
    /// sessions picker's filter while it is typed).
    Popup,
    /// The sessions picker's filter is being typed: keys no binding takes are typed into it.
    PickerFilter,
    /// The prompt has the focus (no popup): keys no binding takes are typed.
    Prompt,
    /// The search's query is being typed (no popup): keys no binding takes are typed into it.
    Search,
    /// A pane has the focus (no popup).
    Panes,
    /// A pane has the focus in the narrow (tabbed) layout.
    NarrowPanes,
    /// The app is one column of a comparison of several agents (no popup).
    Comparison,
}

impl Context {
    /// Does the app's state put keys in this context (`narrow`: the last frame showed one pane at a
    /// time)?
    pub fn holds(self, app: &App, narrow: bool) -> bool {
        let search = app.search_typing();
        let panes = app.popup.is_none() && app.focus != Focus::Prompt && !search;
        match self {
            Context::Anywhere => true,
            Context::Popup => app.popup.is_some() && !app.picker_typing(),
            Context::PickerFilter => app.picker_typing(),
            Context::Search => search,
            Context::Prompt => app.popup.is_none() && app.focus == Focus::Prompt && !search,
            Context::Panes => panes,
            Context::NarrowPanes => panes && narrow,
            Context::Comparison => app.comparison && app.popup.is_none(),
        }
    }
}

/// Keys that ask for one action in one context.
#[derive(Debug)]
pub struct Binding {
    pub context: Context,
    pub keys: &'static [Key],
    pub action: Action,
}

/// One line of the help: the keys as shown, what they do, and the bindings behind them.
#[derive(Debug)]
pub struct KeyHelp {
    /// The keys as the help overlay and docs/keys.md show them.
    pub keys: &'static str,
    /// What they do, in the help overlay (and docs/keys.md unless `readme` says more).
    pub help: &'static str,
    /// docs/keys.md's fuller description, when it says more than fits the overlay.
    pub readme: Option<&'static str>,
    pub bindings: &'static [Binding],
}

const fn plain(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: Mods::Plain,
    }
}

const fn alt(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: Mods::Alt,
    }
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: Mods::Ctrl,
    }
}

/// A key with Ctrl held.
const fn ctrl_key(code: KeyCode) -> Key {
    Key {
        code,
        mods: Mods::Ctrl,
    }
}

/// A key with any modifiers.
const fn any(code: KeyCode) -> Key {
    Key {
        code,
        mods: Mods::Any,
    }
}

/// A character key with any modifiers (popups take those).
const fn any_char(c: char) -> Key {
    any(KeyCode::Char(c))
}

const fn bind(context: Context, keys: &'static [Key], action: Action) -> Binding {
    Binding {
        context,
        keys,
        action,
    }
}

/// Every binding, in table order.
pub fn bindings() -> impl Iterator<Item = &'static Binding> {
    KEYMAP.iter().flat_map(|entry| entry.bindings)
}

/// A character a person types into text (no Ctrl, no Alt).
pub(crate) fn is_typed_char(key: &KeyEvent) -> bool {
    matches!(key.code, KeyCode::Char(c) if !c.is_control())
        && !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

/// Actions that write, open, quit or send: their letter in a pane only arms them (Enter carries
/// them out), so a word typed after Esc never runs one.
fn needs_confirmation(action: &Action) -> bool {
    matches!(
        action,
        Action::OpenUrl | Action::Export | Action::Retry | Action::Mouse | Action::Quit
    )
}

/// The action `key` asks for in the app's current state: the binding of the key map in force
/// (`app.keys`) that takes it, else typing it (in the prompt, or — a character no pane binding
/// takes — into the prompt from a pane). A letter that writes, opens, quits or sends only arms its
/// action in a pane or a popup: then Enter (or, for quit, the same letter again) confirms it,
/// another character is typed (the letter with it), any other key drops it. Key releases ask for
/// nothing.
pub fn action_for(app: &App, narrow: bool, key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let holds = |context: Context| context.holds(app, narrow);
    let panes = holds(Context::Panes);
    if let Some(armed) = &app.armed {
        let enter = key.code == KeyCode::Enter && Mods::NoAltOrShift.allow(key.modifiers);
        let again = *armed.action == Action::Quit && plain(armed.letter).matches(&key);
        if enter || again {
            return Some(Action::Confirm);
        }
        if panes && app.can_ask && is_typed_char(&key) {
            return Some(Action::Type(key));
        }
    }
    let binding = app
        .keys
        .bindings()
        .find(|b| holds(b.context) && b.keys.iter().any(|k| k.matches(&key)));
    match binding {
        Some(binding)
            if matches!(binding.context, Context::Panes | Context::Popup)
                && needs_confirmation(&binding.action)
                && is_typed_char(&key) =>
        {
            let KeyCode::Char(letter) = key.code else {
                return Some(binding.action.clone());
            };
            Some(Action::Arm(Armed {
                letter,
                action: Box::new(binding.action.clone()),
            }))
        }
        Some(binding) => Some(binding.action.clone()),
        None if holds(Context::Prompt)
            || holds(Context::PickerFilter)
            || holds(Context::Search) =>
        {
            Some(Action::Edit(key))
        }
        None if panes && app.can_ask && is_typed_char(&key) => Some(Action::Type(key)),
        None => None,
    }
}

mod custom;
mod hints;
mod table;
pub use custom::{Keymap, KeysError};
pub use hints::letter_name;
pub use table::KEYMAP;

#[cfg(test)]
mod tests;
