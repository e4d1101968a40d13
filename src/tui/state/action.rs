//! What keys ask for ([`Action`]), what the event loop must carry out ([`Effect`]), the popups
//! ([`Popup`]) and how loud a status message is ([`Severity`]).

use crossterm::event::KeyEvent;

use super::focus::Focus;
use super::picker::Picker;
use super::turn::SidebarItem;

/// What the user asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Quit,
    Interrupt,
    /// Ctrl-Z: give the terminal back to the shell until `fg`.
    Suspend,
    FocusNext,
    FocusPrev,
    /// The narrow layout's next (`true`) or previous tab: the prompt is not one.
    Tab(bool),
    Focus(Focus),
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Enter,
    /// The raw JSON of the structured output (the turn the panes show).
    RawJson,
    NextSpan,
    PrevSpan,
    OpenUrl,
    CopyUrl,
    Export,
    Help,
    Escape,
    Submit,
    /// A key for the prompt's editor.
    Edit(KeyEvent),
    /// A character typed while a pane has the focus and no binding takes it: it goes to the prompt
    /// (focusing it), so a question typed without `i` is typed, not run as commands.
    Type(KeyEvent),
    Newline,
    Paste(String),
    /// Show an earlier (`false`) or later (`true`) turn in the panes.
    Turn(bool),
    /// The saved sessions picker.
    Sessions,
    /// `/` in the sessions picker: type a filter.
    Filter,
    /// The ids popup.
    Ids,
    /// The timeline of the turn the panes show.
    Timeline,
    /// A click of the left mouse button on this spot.
    Click(Spot),
    /// The mouse wheel over this spot: rows to scroll (negative: up).
    Wheel(Spot, isize),
    /// Capture the mouse, or leave it to the terminal (to select text).
    Mouse,
    /// A letter whose action writes, opens, quits or sends (`o` `e` `r` `m` `q`) pressed in a pane:
    /// it waits for Enter (`q` also for a second `q`), so a word typed there never runs it.
    Arm(Armed),
    /// Enter (or the second `q`) after [`Action::Arm`]: carry the armed action out.
    Confirm,
    /// Ask the selected (cut, stalled, failed) turn's question again as a new turn.
    Retry,
    /// Widen (`true`) or narrow the focused pane.
    Resize(bool),
    /// The focused pane alone on the screen, or all of them again.
    Zoom,
    /// The pane sizes back to the defaults (and remembered so).
    ResetSizes,
    /// `/` in the panes: search the answer (or edit the search's query again).
    Search,
    /// The next (`true`) or previous hit of the search.
    SearchStep(bool),
    /// The next (`true`) or previous chart of the full-screen chart viewer.
    ChartStep(bool),
    /// A key of the comparison of several agents (`research-tui --provider a,b,c`).
    Comparison(ComparisonKey),
}

/// What a comparison's own keys ask for; the comparison screen carries it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComparisonKey {
    /// The next (`true`) or previous agent's column gets the keys.
    Agent(bool),
    /// Select the next (`true`) or previous merged source: its spans light up in every column.
    Source(bool),
    /// Follow-ups go to every agent, or to the focused one only.
    SendTo,
}

/// A letter pressed in a pane that waits for its confirmation: the letter (typed into the prompt,
/// with the next character, when that is not Enter) and what Enter does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Armed {
    pub letter: char,
    pub action: Box<Action>,
}

/// A side effect for the event loop to carry out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Quit,
    /// Stop the process (SIGTSTP) with the terminal restored; take it back when continued.
    Suspend,
    /// Ask `question` as a follow-up in a new turn.
    Ask(String),
    /// Stop the running stream and record its turn as cancelled (the app already shows it so).
    Cancel,
    Open(String),
    /// Copy a URL (refused unless it is a web URL).
    Copy(String),
    /// Copy text that is not a URL (an id, JSON), sanitised.
    CopyText(String),
    Export,
    /// List the saved sessions (then [`App::show_sessions`]).
    ListSessions,
    /// Replace the conversation with this saved session.
    OpenSession(String),
    /// Send turn `n`'s question again, with the same continuation, as a new turn.
    Retry(usize),
    /// Remember these pane sizes for the next run.
    SaveLayout(crate::local::config::PaneSizes),
    /// Capture the mouse (`true`) or leave it to the terminal.
    MouseCapture(bool),
    /// A comparison key: the comparison screen around this app carries it out.
    Comparison(ComparisonKey),
}

/// What is drawn where the mouse points (the last frame knows; see `Panes::spot`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spot {
    /// A pane, away from anything in it that a click picks.
    Pane(Focus),
    /// Entry `n` of the sources sidebar.
    Source(usize),
    /// Item `n` of the activity log.
    Activity(usize),
    /// A citation marker `[n]` in the answer: source number `n`.
    Marker(usize),
    /// Turn `n`'s structured output line.
    Structured(usize),
    /// A chart in the answer: turn, chart index.
    Chart(usize, usize),
    /// A tab of the one-pane layout.
    Tab(Focus),
    Prompt,
    /// Inside the open popup.
    Popup,
    /// The status bar, or nothing.
    Nothing,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Popup {
    Help {
        scroll: usize,
    },
    Source {
        item: SidebarItem,
        scroll: usize,
        /// The listed span j/k picked (Enter jumps to it in the answer).
        span: Option<usize>,
    },
    /// Every id of the conversation and the turn shown, whole.
    Ids {
        scroll: usize,
    },
    /// A chart full screen: turn, chart index.
    Chart {
        turn: usize,
        chart: usize,
    },
    /// A structured output's raw JSON (`y` copies it).
    Json {
        turn: usize,
        scroll: usize,
    },
    /// The timeline of a turn: one row per phase on a time axis, the selected one detailed below
    /// (`y` copies it as JSON), Enter: the raw events behind it.
    Timeline(super::timeline::TimelineView),
    /// Saved sessions: live ones first, then newest first (or filtered, best first).
    Sessions {
        picker: Box<Picker>,
    },
}

impl Popup {
    /// Scroll a popup that scrolls to `top` (the others have no scroll position).
    pub fn set_scroll(&mut self, top: usize) {
        match self {
            Popup::Help { scroll }
            | Popup::Source { scroll, .. }
            | Popup::Ids { scroll }
            | Popup::Json { scroll, .. } => *scroll = top,
            Popup::Sessions { .. } | Popup::Chart { .. } | Popup::Timeline(_) => {}
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Info,
    Warning,
    Error,
}
