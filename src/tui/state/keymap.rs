//! The one key table: every key the app answers, where it works ([`Context`]), the [`Action`] it asks
//! for, and the line of help that describes it. Key handling dispatches through [`KEYMAP`], the help
//! overlay lists it, and a test keeps the key table in docs/keys.md the same as it.
//!
//! Bindings never overlap (a test checks): in any state at most one binding takes a given key, so the
//! table's order is only the order of the help. A few bindings have a second key the help does not
//! name, to keep it short (`/`, Space, Home/End, Ctrl-D/U, `h` `l` ← → in the narrow layout,
//! Shift-Enter, and `q` or Enter closing a popup); the test lists them too.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::{Action, Armed, ComparisonKey};
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
    /// Alt held, Ctrl not.
    Alt,
}

impl Mods {
    fn allow(self, mods: KeyModifiers) -> bool {
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
        let panes = app.popup.is_none() && app.focus != Focus::Prompt;
        match self {
            Context::Anywhere => true,
            Context::Popup => app.popup.is_some() && !app.picker_typing(),
            Context::PickerFilter => app.picker_typing(),
            Context::Prompt => app.popup.is_none() && app.focus == Focus::Prompt,
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

use Context::{Anywhere, Comparison, NarrowPanes, Panes, PickerFilter, Popup as InPopup, Prompt};
use KeyCode::{BackTab, Down, End, Enter, Esc, F, Home, Left, PageDown, PageUp, Right, Tab, Up};

/// Every key, in the order of the help.
pub static KEYMAP: &[KeyHelp] = &[
    KeyHelp {
        keys: "Tab / Shift-Tab",
        help: "cycle focus through the panes and the prompt (narrow: the tabs)",
        readme: None,
        bindings: &[
            bind(Panes, &[any(Tab)], Action::FocusNext),
            bind(Panes, &[any(BackTab)], Action::FocusPrev),
            bind(Prompt, &[any(Tab)], Action::FocusNext),
            bind(Prompt, &[any(BackTab)], Action::FocusPrev),
            bind(NarrowPanes, &[any(Right), plain('l')], Action::FocusNext),
            bind(NarrowPanes, &[any(Left), plain('h')], Action::FocusPrev),
        ],
    },
    KeyHelp {
        keys: "c a p t i",
        help: "focus Sources, Answer, Plan, Activity, Prompt",
        readme: None,
        bindings: &[
            bind(Panes, &[plain('c')], Action::Focus(Focus::Sources)),
            bind(Panes, &[plain('a')], Action::Focus(Focus::Answer)),
            bind(Panes, &[plain('p')], Action::Focus(Focus::Plan)),
            bind(Panes, &[plain('t')], Action::Focus(Focus::Activity)),
            bind(
                Panes,
                &[plain('i'), plain('/')],
                Action::Focus(Focus::Prompt),
            ),
        ],
    },
    KeyHelp {
        keys: "j k ↑ ↓",
        help: "move the selection or scroll (in the prompt Ctrl-↑ ↓ scroll the answer)",
        readme: None,
        bindings: &[
            bind(Prompt, &[ctrl_key(Up)], Action::Up),
            bind(Prompt, &[ctrl_key(Down)], Action::Down),
            bind(InPopup, &[any_char('j'), any(Down)], Action::Down),
            bind(InPopup, &[any_char('k'), any(Up)], Action::Up),
            bind(Panes, &[plain('j'), any(Down)], Action::Down),
            bind(Panes, &[plain('k'), any(Up)], Action::Up),
            bind(PickerFilter, &[any(Down)], Action::Down),
            bind(PickerFilter, &[any(Up)], Action::Up),
        ],
    },
    KeyHelp {
        keys: "PgUp PgDn",
        help: "page up / down (in the prompt: the answer)",
        readme: None,
        bindings: &[
            bind(Prompt, &[any(PageUp)], Action::PageUp),
            bind(Prompt, &[any(PageDown)], Action::PageDown),
            bind(InPopup, &[any(PageUp)], Action::PageUp),
            bind(PickerFilter, &[any(PageUp)], Action::PageUp),
            bind(PickerFilter, &[any(PageDown)], Action::PageDown),
            bind(InPopup, &[any(PageDown), any_char(' ')], Action::PageDown),
            bind(Panes, &[any(PageUp), ctrl('u')], Action::PageUp),
            bind(
                Panes,
                &[any(PageDown), plain(' '), ctrl('d')],
                Action::PageDown,
            ),
        ],
    },
    KeyHelp {
        keys: "g G",
        help: "top / bottom (G follows the answer again)",
        readme: Some("top / bottom; `G` follows the streaming answer again"),
        bindings: &[
            bind(InPopup, &[any_char('g'), any(Home)], Action::Top),
            bind(InPopup, &[any_char('G'), any(End)], Action::Bottom),
            bind(Panes, &[plain('g'), any(Home)], Action::Top),
            bind(Panes, &[plain('G'), any(End)], Action::Bottom),
        ],
    },
    KeyHelp {
        keys: "Enter",
        help: "Sources: open the detail (j/k pick a span, Enter jumps to it) · Activity: expand the item (a chart: full screen) · Answer: the chart in view full screen, else open the structured output",
        readme: Some(
            "Sources: detail popup (headline, publisher, date, URL, search query, extracts, every span it supports; `j`/`k` pick a span, Enter jumps to it in the answer) · Activity: expand the item (a chart's line opens the chart full screen) · Answer: the chart in view full screen (a click on a chart too), else unfold the structured output into a table",
        ),
        bindings: &[
            bind(Panes, &[any(Enter)], Action::Enter),
            bind(InPopup, &[any(Enter)], Action::Enter),
            bind(PickerFilter, &[any(Enter)], Action::Enter),
        ],
    },
    KeyHelp {
        keys: "J",
        help: "the structured output's raw JSON (y copies it)",
        readme: None,
        bindings: &[bind(Panes, &[plain('J')], Action::RawJson)],
    },
    KeyHelp {
        keys: "n N",
        help: "next / previous span of the selected source",
        readme: Some(
            "next / previous span of the selected source (scrolls to it and highlights it)",
        ),
        bindings: &[
            bind(Panes, &[plain('n')], Action::NextSpan),
            bind(Panes, &[plain('N')], Action::PrevSpan),
        ],
    },
    KeyHelp {
        keys: "o",
        help: "open the selected source's URL in the browser (then Enter)",
        readme: Some(
            "then Enter: open the selected source's URL with `$BROWSER`, else the usual opener (`xdg-open`, `gio open`, `sensible-browser`, `open` on macOS); when nothing can open it the URL is shown and copied",
        ),
        bindings: &[
            bind(InPopup, &[any_char('o')], Action::OpenUrl),
            bind(Panes, &[plain('o')], Action::OpenUrl),
        ],
    },
    KeyHelp {
        keys: "y",
        help: "copy the selected source's URL (OSC 52)",
        readme: None,
        bindings: &[
            bind(InPopup, &[any_char('y')], Action::CopyUrl),
            bind(Panes, &[plain('y')], Action::CopyUrl),
        ],
    },
    KeyHelp {
        keys: "e",
        help: "export the conversation to Markdown (then Enter)",
        readme: Some(
            "then Enter: export the conversation to `research-tui-export-<timestamp>.md` in the current directory",
        ),
        bindings: &[bind(Panes, &[plain('e')], Action::Export)],
    },
    KeyHelp {
        keys: "+ -",
        help: "widen / narrow the focused pane (remembered for the next run)",
        readme: Some(
            "widen / narrow the focused pane; the sizes are remembered in `layout.toml` next to the config file",
        ),
        bindings: &[
            bind(Panes, &[plain('+'), plain('=')], Action::Resize(true)),
            bind(Panes, &[plain('-')], Action::Resize(false)),
        ],
    },
    KeyHelp {
        keys: "z",
        help: "zoom: the focused pane alone on the screen; again for all of them",
        readme: None,
        bindings: &[bind(Panes, &[plain('z')], Action::Zoom)],
    },
    KeyHelp {
        keys: "[ ]",
        help: "select an earlier / later turn: the answer scrolls to it, plan, activity and sources follow; a question asked then branches from its checkpoint",
        readme: Some(
            "select an earlier / later turn: the answer scrolls to it (its rule is marked), the plan, activity and sources follow it, and a question asked then branches from its checkpoint (`↳ from turn 2 · ckpt-…` in the prompt's title)",
        ),
        bindings: &[
            bind(Panes, &[plain('[')], Action::Turn(false)),
            bind(Panes, &[plain(']')], Action::Turn(true)),
        ],
    },
    KeyHelp {
        keys: "r",
        help: "retry a cut, stalled or failed turn: the same question and ids, as a new turn (then Enter)",
        readme: None,
        bindings: &[bind(Panes, &[plain('r')], Action::Retry)],
    },
    KeyHelp {
        keys: "s",
        help: "saved sessions: j/k choose, Enter opens one in place of this conversation",
        readme: Some(
            "saved sessions: the ones being written now (by `ask`, another research-tui) first, marked `● live` with provider and elapsed time, then newest first (date, turns, status, last checkpoint, first question); the list updates as sessions start and end; `j`/`k` choose, Enter opens one in place of this conversation",
        ),
        bindings: &[bind(Panes, &[plain('s')], Action::Sessions)],
    },
    KeyHelp {
        keys: "/",
        help: "saved sessions: filter as you type (questions, answers, sources)",
        readme: Some(
            "in the saved sessions: filter as you type, fuzzy over questions, answer text and source titles, best matches first with the matched characters highlighted (a match in an answer or a source shows its line); ↑ ↓ choose, Enter opens, Backspace edits, Esc clears the filter",
        ),
        bindings: &[bind(InPopup, &[any_char('/')], Action::Filter)],
    },
    KeyHelp {
        keys: "T",
        help: "timeline: the turn's phases on a time axis, live (j/k select, y copies the row as JSON)",
        readme: Some(
            "timeline of the turn shown, live while it streams: request to first byte, each plan step, thinking phase and tool call (query, results), the answer, charts, the end, as a waterfall with durations and silences over 5 s marked; `j`/`k` select a row (its detail below), `y` copies it as JSON",
        ),
        bindings: &[bind(Panes, &[plain('T')], Action::Timeline)],
    },
    KeyHelp {
        keys: "I",
        help: "ids: session, chat, checkpoint and the rest, whole (y copies the checkpoint)",
        readme: None,
        bindings: &[bind(Panes, &[plain('I')], Action::Ids)],
    },
    KeyHelp {
        keys: "m",
        help: "mouse: on (click panes, sources, markers; wheel scrolls) or off, to select text (then Enter)",
        readme: Some(
            "then Enter: mouse on (default: a click focuses a pane and picks a source, an activity item or a citation marker's source; the wheel scrolls the pane under the pointer) or off, to select text with the terminal",
        ),
        bindings: &[bind(Panes, &[plain('m')], Action::Mouse)],
    },
    KeyHelp {
        keys: "Enter (prompt)",
        help: "send a follow-up question; while an answer streams, queue it (sent when it ends)",
        readme: None,
        bindings: &[bind(
            Prompt,
            &[Key {
                code: Enter,
                mods: Mods::NoAltOrShift,
            }],
            Action::Submit,
        )],
    },
    KeyHelp {
        keys: "any letter",
        help: "in a pane, a character no key here takes (or one after o e r m q) starts typing a question in the prompt",
        readme: None,
        bindings: &[],
    },
    KeyHelp {
        keys: "Ctrl-A Ctrl-E Ctrl-U Ctrl-W Alt-B Alt-F Ctrl-_",
        help: "prompt editing as in readline: line start / end, delete to the line's start / a word, word back / forward, undo",
        readme: None,
        bindings: &[],
    },
    KeyHelp {
        keys: "Alt-Enter Ctrl-J",
        help: "new line in the prompt",
        readme: None,
        bindings: &[bind(
            Prompt,
            &[
                Key {
                    code: Enter,
                    mods: Mods::AltOrShift,
                },
                ctrl('j'),
            ],
            Action::Newline,
        )],
    },
    KeyHelp {
        keys: "Alt-N Alt-P",
        help: "comparison: the next / previous agent's column gets the keys (narrow: its tab)",
        readme: None,
        bindings: &[
            bind(
                Comparison,
                &[alt('n')],
                Action::Comparison(ComparisonKey::Agent(true)),
            ),
            bind(
                Comparison,
                &[alt('p')],
                Action::Comparison(ComparisonKey::Agent(false)),
            ),
        ],
    },
    KeyHelp {
        keys: "Alt-J Alt-K",
        help: "comparison: next / previous merged source; its spans light up in every column",
        readme: None,
        bindings: &[
            bind(
                Comparison,
                &[alt('j')],
                Action::Comparison(ComparisonKey::Source(true)),
            ),
            bind(
                Comparison,
                &[alt('k')],
                Action::Comparison(ComparisonKey::Source(false)),
            ),
        ],
    },
    KeyHelp {
        keys: "Alt-A",
        help: "comparison: follow-ups go to every agent, or to the focused one only",
        readme: None,
        bindings: &[bind(
            Comparison,
            &[alt('a')],
            Action::Comparison(ComparisonKey::SendTo),
        )],
    },
    KeyHelp {
        keys: "Esc",
        help: "close a popup · leave the prompt to browse the panes · clear the selection",
        readme: None,
        bindings: &[
            bind(InPopup, &[any(Esc), any_char('q')], Action::Escape),
            bind(PickerFilter, &[any(Esc)], Action::Escape),
            bind(Prompt, &[any(Esc)], Action::Focus(Focus::Answer)),
            bind(Panes, &[any(Esc)], Action::Escape),
        ],
    },
    KeyHelp {
        keys: "Ctrl-C",
        help: "drop the queued question, else cancel the running stream, else clear the prompt, else quit",
        readme: None,
        bindings: &[bind(Anywhere, &[ctrl('c')], Action::Interrupt)],
    },
    KeyHelp {
        keys: "q",
        help: "quit, in a pane: q q, or q then Enter",
        readme: None,
        bindings: &[bind(Panes, &[plain('q')], Action::Quit)],
    },
    KeyHelp {
        keys: "? F1",
        help: "this help (F1 also while typing)",
        readme: Some("the help: every key (F1 also while typing)"),
        bindings: &[
            bind(InPopup, &[any_char('?')], Action::Help),
            bind(Panes, &[plain('?')], Action::Help),
            bind(Anywhere, &[any(F(1))], Action::Help),
        ],
    },
];

/// Every binding, in table order.
pub fn bindings() -> impl Iterator<Item = &'static Binding> {
    KEYMAP.iter().flat_map(|entry| entry.bindings)
}

/// A character a person types into text (no Ctrl, no Alt).
fn is_typed_char(key: &KeyEvent) -> bool {
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

/// The action `key` asks for in the app's current state: the binding that takes it, else typing it
/// (in the prompt, or — a character no pane binding takes — into the prompt from a pane). A letter
/// that writes, opens, quits or sends only arms its action in a pane: then Enter (or, for `q`, a
/// second `q`) confirms it, another character is typed (the letter with it), any other key drops
/// it. Key releases ask for nothing.
pub fn action_for(app: &App, narrow: bool, key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let holds = |context: Context| context.holds(app, narrow);
    let panes = holds(Context::Panes);
    if let Some(armed) = &app.armed {
        let enter = key.code == KeyCode::Enter && Mods::NoAltOrShift.allow(key.modifiers);
        let again = armed.letter == 'q' && plain('q').matches(&key);
        if enter || again {
            return Some(Action::Confirm);
        }
        if panes && is_typed_char(&key) {
            return Some(Action::Type(key));
        }
    }
    let binding = bindings().find(|b| holds(b.context) && b.keys.iter().any(|k| k.matches(&key)));
    match binding {
        Some(binding)
            if binding.context == Context::Panes && needs_confirmation(&binding.action) =>
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
        None if holds(Context::Prompt) || holds(Context::PickerFilter) => Some(Action::Edit(key)),
        None if panes && app.can_ask && is_typed_char(&key) => Some(Action::Type(key)),
        None => None,
    }
}

#[cfg(test)]
mod tests;
