//! The key table itself: every key in the order of the help, where it works, the action it asks
//! for and its help row (the types and the rules that read it are in the parent module).

use crossterm::event::KeyCode;

use super::{Context, Key, KeyHelp, Mods, alt, any, any_char, bind, ctrl, ctrl_key, plain};
use crate::tui::state::action::{Action, ComparisonKey};
use crate::tui::state::focus::Focus;
use Context::{
    Anywhere, Comparison, NarrowPanes, Panes, PickerFilter, Popup as InPopup, Prompt, Search,
};
use KeyCode::{BackTab, Down, End, Enter, Esc, F, Home, Left, PageDown, PageUp, Right, Tab, Up};

/// Every key, in the order of the help.
pub static KEYMAP: &[KeyHelp] = &[
    KeyHelp {
        keys: "Tab / Shift-Tab",
        help: "cycle focus through the panes and the prompt (narrow: the tabs, Timeline among them; there ← → and h l step through the tabs too)",
        readme: None,
        bindings: &[
            bind(Panes, &[any(Tab)], Action::FocusNext),
            bind(Panes, &[any(BackTab)], Action::FocusPrev),
            bind(Prompt, &[any(Tab)], Action::FocusNext),
            bind(Prompt, &[any(BackTab)], Action::FocusPrev),
            bind(NarrowPanes, &[any(Right), plain('l')], Action::Tab(true)),
            bind(NarrowPanes, &[any(Left), plain('h')], Action::Tab(false)),
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
            bind(Panes, &[plain('i')], Action::Focus(Focus::Prompt)),
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
        help: "Sources: open the detail (j/k pick a span, Enter jumps to it) · Activity: expand the item (a chart: full screen) · Answer: the chart in view full screen, else open the structured output · Timeline: the raw events behind the row",
        readme: Some(
            "Sources: detail popup (headline, publisher, date, URL, search query, extracts, every span it supports; `j`/`k` pick a span, Enter jumps to it in the answer) · Activity: expand the item (a chart's line opens the chart full screen) · Answer: the chart in view full screen (a click on a chart too), else unfold the structured output into a table · Timeline: the raw SSE events behind the selected row",
        ),
        bindings: &[
            bind(Panes, &[any(Enter)], Action::Enter),
            bind(InPopup, &[any(Enter)], Action::Enter),
            bind(PickerFilter, &[any(Enter)], Action::Enter),
        ],
    },
    KeyHelp {
        keys: "← → PgUp PgDn",
        help: "the full-screen chart: the previous / next chart",
        readme: Some(
            "in the full-screen chart: the previous / next chart of the turn (`Chart 2 of 3` in its title)",
        ),
        bindings: &[
            bind(InPopup, &[any(Left)], Action::ChartStep(false)),
            bind(InPopup, &[any(Right)], Action::ChartStep(true)),
        ],
    },
    KeyHelp {
        keys: "J",
        help: "the structured output's raw JSON (y copies it)",
        readme: None,
        bindings: &[bind(Panes, &[plain('J')], Action::RawJson)],
    },
    KeyHelp {
        keys: "/",
        help: "search the answer and the sources' titles: every hit lit, the count shown; Enter / Shift-Enter (or ↓ ↑) next / previous while typing, Esc to browse the hits, Esc again ends",
        readme: Some(
            "search the conversation (every turn's question and answer, and the shown turn's sources' titles) as in `less`: every hit highlighted, the view brought to the current one (a hit in another turn selects that turn), the count over the whole conversation (`3/17`) in the status bar; a query with no capital letter ignores case; while typing Enter / Shift-Enter (or ↓ ↑) go to the next / previous hit, Esc keeps the hits for `n` `N`, and Esc again (or Backspace on an empty query) ends the search; `/` again edits it",
        ),
        bindings: &[
            bind(Panes, &[plain('/')], Action::Search),
            bind(
                Search,
                &[
                    Key {
                        code: Enter,
                        mods: Mods::NoAltOrShift,
                    },
                    any(Down),
                ],
                Action::SearchStep(true),
            ),
            bind(
                Search,
                &[
                    Key {
                        code: Enter,
                        mods: Mods::AltOrShift,
                    },
                    any(Up),
                ],
                Action::SearchStep(false),
            ),
            bind(Search, &[any(Esc)], Action::Escape),
        ],
    },
    KeyHelp {
        keys: "n N",
        help: "next / previous search hit, else span of the selected source",
        readme: Some(
            "next / previous hit of the search (`/`), else next / previous span of the selected source (scrolls to it and highlights it)",
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
        help: "copy what is selected (OSC 52): a source's URL, tool data",
        readme: Some(
            "copy (OSC 52) the selected source's URL, or tool data (its fields and its charts' data); in a popup what it shows: a chart's data as CSV, the selected session's id, a timeline row or event as JSON, a structured output's JSON, the checkpoint",
        ),
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
            bind(Panes, &[plain('+')], Action::Resize(true)),
            bind(Panes, &[plain('-')], Action::Resize(false)),
        ],
    },
    KeyHelp {
        keys: "=",
        help: "every pane back to its default size (remembered); ends a zoom",
        readme: None,
        bindings: &[bind(Panes, &[plain('=')], Action::ResetSizes)],
    },
    KeyHelp {
        keys: "z",
        help: "zoom: the focused pane alone on the screen; again for all of them",
        readme: None,
        bindings: &[bind(Panes, &[plain('z')], Action::Zoom)],
    },
    KeyHelp {
        keys: "[ ]",
        help: "select an earlier / later turn: the answer scrolls to it, plan, activity, sources and the timeline follow; a question asked then branches from its checkpoint",
        readme: Some(
            "select an earlier / later turn: the answer scrolls to it (its rule is marked), the plan, activity, sources and the timeline follow it, and a question asked then branches from its checkpoint (`↳ from turn 2 · ckpt-…` in the prompt's title)",
        ),
        bindings: &[
            bind(Panes, &[plain('[')], Action::Turn(false)),
            bind(Panes, &[plain(']')], Action::Turn(true)),
            bind(InPopup, &[any_char('[')], Action::Turn(false)),
            bind(InPopup, &[any_char(']')], Action::Turn(true)),
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
        keys: "/ (sessions)",
        help: "saved sessions: filter as you type (questions, answers, sources)",
        readme: Some(
            "in the saved sessions: filter as you type, fuzzy over questions, answer text and source titles, best matches first with the matched characters highlighted (a match in an answer or a source shows its line); ↑ ↓ choose, Enter opens, Backspace edits, Esc clears the filter",
        ),
        bindings: &[bind(InPopup, &[any_char('/')], Action::Filter)],
    },
    KeyHelp {
        keys: "T",
        help: "timeline: the turn's phases on a time axis, live, every turn's figures above (j/k select, Enter the raw events behind a row, y copies the row or event as JSON, [ ] another turn; narrow: its tab)",
        readme: Some(
            "timeline of the turn shown, live while it streams: request to first byte, each plan step, thinking phase and tool call (query, results), the answer, charts, the end, as a waterfall with durations and silences over 5 s marked, and with several turns every turn's figures above it (first byte, first text, total, tool calls, longest gap, chars/s; `[` `]` show another turn's waterfall); `j`/`k` select a row (its detail below), Enter lists the raw SSE events behind it (byte offset in the turn file, type, size, arrival time, the selected one's JSON pretty-printed; Esc goes back), `y` copies the row or the event as JSON; below 100 columns it is the Timeline tab",
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
        help: "in a pane, a character no key here takes (or one after o e r m q, a space after two letters) starts typing a question in the prompt, with the letters just before it",
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
        help: "close a popup · leave the prompt to browse the panes · end the search · clear the selection",
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
        help: "drop the queued question, else cancel the running stream, else close the popup, else end the search, else clear the prompt, else quit",
        readme: None,
        bindings: &[bind(Anywhere, &[ctrl('c')], Action::Interrupt)],
    },
    KeyHelp {
        keys: "Ctrl-Z",
        help: "suspend to the shell; fg brings the app back",
        readme: Some(
            "suspend to the shell (the terminal as it was before the app); `fg` brings the app back as it was",
        ),
        bindings: &[bind(Anywhere, &[ctrl('z')], Action::Suspend)],
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
