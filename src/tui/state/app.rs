//! The application state ([`App`]): the conversation (its turns, where it is saved, what the next
//! question continues) and the shell around the panes (which pane has the focus, the popup, the status
//! message), and what it is asked about them (the current turn, what the next question continues).
//! No view state — every pane keeps its own selection, scroll and rows (`tui::screen`) — no I/O and
//! no drawing here.

use std::time::Duration;

use super::action::{Armed, Popup, Severity};
use super::focus::Focus;
use super::picker::Picker;
use super::search::Search;
use super::turn::{Continuation, SidebarItem, Turn};
use crate::agent::stream::StreamUpdate;
use crate::local::meta::SessionMeta;
use crate::local::summary::SessionSummary;
use crate::local::watch::SessionList;
use crate::styled::theme::Theme;
use crate::wire::provider::Provider;
use std::sync::Arc;

/// Where the stream comes from (shown in the status bar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Demo,
    Live,
    Replay,
    /// `watch`, before any session opened: no agent yet.
    Watch,
}

impl Mode {
    pub fn label(self) -> &'static str {
        match self {
            Mode::Demo => "DEMO",
            Mode::Live => "LIVE",
            Mode::Replay => "REPLAY",
            Mode::Watch => "WATCH",
        }
    }
}

/// Configuration the app starts with.
#[derive(Debug, Clone)]
pub struct AppConfig {
    pub mode: Mode,
    pub theme: Theme,
    /// Whether follow-up questions can be sent (not for a replay).
    pub can_ask: bool,
}

#[derive(Debug)]
pub struct App {
    pub mode: Mode,
    pub theme: Theme,
    pub can_ask: bool,
    pub turns: Vec<Turn>,
    /// A stream still feeds the newest turn (the conversation owns it): Ctrl-C cancels it rather
    /// than quitting, even once an ERROR event ended the turn's progress.
    pub stream_running: bool,
    /// This app is one agent's column of a comparison: the comparison's keys hold.
    pub comparison: bool,
    /// A column of a comparison whose keys another column has: what its prompt says instead of
    /// offering to type (it is drawn without the focus).
    pub keys_elsewhere: Option<String>,
    /// A column of a comparison while another agent is still answering: Ctrl-C, with nothing of
    /// this column's own to stop, cancels those answers rather than quitting them all.
    pub others_answering: bool,
    pub focus: Focus,
    /// The pane shown in the narrow (tabbed) layout.
    pub tab: Focus,
    pub popup: Option<Popup>,
    /// A letter that writes, opens, quits or sends, pressed in a pane: Enter carries it out, a
    /// character is typed (with the letter) into the prompt, any other key drops it.
    pub armed: Option<Armed>,
    /// A question asked while the answer streams: sent when the stream ends (Ctrl-C drops it).
    pub queued: Option<String>,
    /// The search `/` started in the panes (the answer's hits highlighted, `n`/`N` between them).
    pub search: Option<Search>,
    pub message: Option<(String, Severity)>,
    pub quit: bool,
    /// Spinner frame.
    pub tick: u64,
    /// Fixed elapsed time (snapshot tests).
    pub fixed_elapsed: Option<Duration>,
    /// How wide the columns of the wide layout are (remembered between runs).
    pub pane_sizes: crate::local::config::PaneSizes,
    /// The focused pane alone on the screen (`z`), laid out like the narrow layout.
    pub zoom: bool,
    /// The app has the mouse (`m` leaves it to the terminal, to select text).
    pub mouse: bool,
    /// The turn picked with `[`/`]` (`None`: the latest): the panes show it, a question branches
    /// from it.
    pub viewed_turn: Option<usize>,
    /// Who answers (how source URLs open); `None` when a replay's provider is unknown.
    pub provider: Option<Provider>,
    /// The API base relative source URLs (Zeta Alpha) open against.
    pub api_base: Option<String>,
    /// Tries per request (the status bar's `try 2/3`).
    pub max_attempts: u32,
    /// Where the first question continues from (`--resume`, `--chat-id`) while there is no turn.
    pub resume: Continuation,
    /// The first question (the demo's, `--question`'s), asked once the first frame is on screen:
    /// that frame says it is being asked.
    pub first_question: Option<String>,
    /// The saved session this conversation is written to.
    pub session_id: Option<String>,
    /// The newest turn streams in another process and this app follows it (`watching · live`):
    /// stopping here stops nothing there.
    pub watching: bool,
    /// The key map in force: the table with the config file's `[keys]`.
    pub keys: super::keymap::Keymap,
}

/// What a question gets while the watched turn still streams in another process.
pub const STILL_WATCHING: &str = "another process still answers: wait for its end";

/// What a key that needs the answer to end first gets while it streams (the message goes when it
/// ends).
pub const STILL_ANSWERING: &str = "still answering";

pub const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

impl App {
    pub fn new(config: AppConfig) -> App {
        App {
            mode: config.mode,
            theme: config.theme,
            can_ask: config.can_ask,
            turns: Vec::new(),
            stream_running: false,
            comparison: false,
            keys_elsewhere: None,
            others_answering: false,
            // The prompt is home: whoever starts typing types a question (a replay has none).
            focus: if config.can_ask {
                Focus::Prompt
            } else {
                Focus::Answer
            },
            tab: Focus::Answer,
            popup: None,
            armed: None,
            queued: None,
            search: None,
            message: None,
            quit: false,
            tick: 0,
            fixed_elapsed: None,
            pane_sizes: Default::default(),
            zoom: false,
            mouse: true,
            viewed_turn: None,
            provider: None,
            api_base: None,
            max_attempts: 3,
            resume: Continuation::default(),
            first_question: None,
            session_id: None,
            watching: false,
            keys: super::keymap::Keymap::default(),
        }
    }

    /// Start a new turn for `question` (the conversation starts its stream).
    pub fn begin_turn(&mut self, question: Option<String>) {
        self.begin_turn_with(question, Continuation::default());
    }

    /// Start a new turn for `question`, sent with `request`'s continuation.
    pub fn begin_turn_with(&mut self, question: Option<String>, request: Continuation) {
        let mut turn = Turn::new(question);
        turn.request = request;
        self.add_turn(turn);
    }

    /// Add `turn` as the newest (a new question, or a turn of a watched session that another
    /// process wrote): the panes show it.
    pub fn add_turn(&mut self, turn: Turn) {
        self.turns.push(turn);
        self.viewed_turn = None;
    }

    /// Replace the conversation with `turns` (a saved session opened): all shown at once, the prompt
    /// focused for a follow-up from the last checkpoint.
    pub fn load_turns(&mut self, turns: Vec<Turn>, session_id: Option<String>) {
        self.stream_running = false;
        self.watching = false;
        self.turns = turns;
        self.session_id = session_id;
        self.resume = Continuation::default();
        self.viewed_turn = None;
        self.popup = None;
        self.focus = Focus::Prompt;
        self.tab = Focus::Answer;
    }

    /// What the next question continues: the selected earlier turn (a branch from its checkpoint),
    /// else the newest turn that completed (or has a checkpoint), else `--resume`/`--chat-id`.
    pub fn continuation(&self) -> Continuation {
        let last = self.turns.len().checked_sub(1);
        let chat_id = || {
            self.turns
                .iter()
                .rev()
                .find_map(|t| t.chat_id())
                .map(str::to_owned)
                .or_else(|| self.resume.chat_id.clone())
        };
        let anchor = match self.viewed_turn.filter(|i| Some(*i) != last) {
            // A branch: the selected turn, or where it started itself when it never finished.
            Some(i) => match self.turns.get(i) {
                Some(turn) if turn.is_anchor() => Some(i),
                Some(turn) => {
                    return Continuation {
                        chat_id: turn.chat_id().map(str::to_owned).or_else(chat_id),
                        ..turn.request.clone()
                    };
                }
                None => None,
            },
            None => self.turns.iter().rposition(Turn::is_anchor),
        };
        match anchor {
            Some(i) => {
                let turn = &self.turns[i];
                Continuation {
                    chat_id: turn.chat_id().map(str::to_owned).or_else(chat_id),
                    checkpoint_id: turn.checkpoint_id().map(str::to_owned),
                    from_turn: Some(i),
                }
            }
            // Nothing finished yet: continue what the conversation itself started from.
            None => match self.turns.last() {
                Some(turn) => Continuation {
                    chat_id: chat_id(),
                    ..turn.request.clone()
                },
                None => self.resume.clone(),
            },
        }
    }

    /// Earlier turns on the way to `from_turn`, oldest first, as `(question, answer)`: the history
    /// Zeta Alpha takes with every request (a branch leaves out the turns of other branches).
    pub fn history(&self, from_turn: Option<usize>) -> Vec<(String, String)> {
        self.chain(from_turn)
            .map(|turn| {
                (
                    turn.question.clone().unwrap_or_default(),
                    turn.session.answer.as_str().to_owned(),
                )
            })
            .collect()
    }

    /// What the provider needs back of each turn of [`App::history`] (Anthropic's content
    /// blocks), in the same order.
    pub fn transcripts(&self, from_turn: Option<usize>) -> Vec<Vec<serde_json::Value>> {
        self.chain(from_turn)
            .map(|turn| turn.session.transcript.clone())
            .collect()
    }

    /// The turns on the way to `from_turn`, oldest first.
    fn chain(&self, from_turn: Option<usize>) -> impl Iterator<Item = &Turn> {
        let mut chain = Vec::new();
        let mut next = from_turn;
        while let Some(i) = next {
            let Some(turn) = self.turns.get(i) else { break };
            if chain.len() > self.turns.len() {
                break;
            }
            chain.push(turn);
            next = turn.request.from_turn.filter(|p| *p < i);
        }
        chain.into_iter().rev()
    }

    /// The next question branches from an earlier turn (not the newest one): its index.
    pub fn branch_from(&self) -> Option<usize> {
        let last = self.turns.len().checked_sub(1)?;
        self.viewed_turn
            .filter(|i| *i != last)
            .and_then(|_| self.continuation().from_turn)
    }

    /// Show the saved sessions picker over `list` (newest first), this conversation's session
    /// selected. Their answers and sources come with [`App::update_sessions`].
    pub fn show_sessions(&mut self, list: Vec<SessionMeta>) {
        let entries = list
            .into_iter()
            .map(|meta| Arc::new(SessionSummary::of_meta(meta)))
            .collect();
        let picker = Picker::new(entries, self.session_id.as_deref());
        self.popup = Some(Popup::Sessions {
            picker: Box::new(picker),
        });
    }

    /// The sessions picker, when it is open.
    pub fn picker(&self) -> Option<&Picker> {
        match &self.popup {
            Some(Popup::Sessions { picker }) => Some(picker),
            _ => None,
        }
    }

    pub fn picker_mut(&mut self) -> Option<&mut Picker> {
        match &mut self.popup {
            Some(Popup::Sessions { picker }) => Some(picker),
            _ => None,
        }
    }

    /// The saved sessions as they are now (the picker's watch read them): the open picker shows
    /// them, its selection and filter kept.
    pub fn update_sessions(&mut self, list: SessionList) {
        if let Some(picker) = self.picker_mut() {
            picker.set_entries(list);
        }
    }

    /// The search's query is being typed: it has the keys.
    pub fn search_typing(&self) -> bool {
        self.popup.is_none() && self.search.as_ref().is_some_and(|s| s.typing)
    }

    /// The sessions picker's filter has the keys.
    pub fn picker_typing(&self) -> bool {
        self.picker().is_some_and(Picker::typing)
    }

    /// Is `pane` drawn as focused: it has the focus, and this app has the keys (in a comparison,
    /// only the focused column's pane looks focused).
    pub fn shows_focus(&self, pane: Focus) -> bool {
        self.focus == pane && self.keys_elsewhere.is_none()
    }

    /// Index of the turn the panes show (plan, activity, sources, highlights): the latest unless the
    /// user picked an earlier one with `[`.
    pub fn current_index(&self) -> usize {
        let last = self.turns.len().saturating_sub(1);
        self.viewed_turn.map_or(last, |i| i.min(last))
    }

    /// The turn the panes show.
    pub fn current(&self) -> Option<&Turn> {
        self.turns.get(self.current_index())
    }

    /// The newest turn (the one a stream feeds).
    pub fn latest(&self) -> Option<&Turn> {
        self.turns.last()
    }

    /// A stream is running for the newest turn.
    pub fn in_progress(&self) -> bool {
        self.latest().is_some_and(|t| t.conn.in_progress())
    }

    /// The interrupt key (Ctrl-C) cancels a stream now rather than quitting: what its hint says.
    pub fn interrupt_cancels(&self) -> bool {
        self.stream_running || self.in_progress()
    }

    /// The interrupt key's hint says it cancels: this app's stream, or in a comparison the other
    /// agents' still answering.
    pub fn interrupt_hint_cancels(&self) -> bool {
        self.interrupt_cancels() || self.others_answering
    }

    /// Apply a stream update to the newest turn. When the stream ends the app waits for a question:
    /// the prompt takes the focus back.
    pub fn apply_update(&mut self, update: StreamUpdate) {
        let ended = matches!(update, StreamUpdate::Ended(_));
        if let Some(turn) = self.turns.last_mut() {
            match (update, self.fixed_elapsed) {
                // A fixed clock (tests): every event arrives at that time, so drawings repeat.
                (StreamUpdate::Events(events), Some(fixed)) => {
                    let ms = u64::try_from(fixed.as_millis()).unwrap_or(u64::MAX);
                    turn.apply_events_at(events, ms);
                }
                (update, _) => turn.apply_update(update),
            }
        }
        // The search keeps up with the text as it arrives (only the new text is searched).
        if let Some(mut search) = self.search.take() {
            search.refresh(self);
            self.search = Some(search);
        }
        if ended {
            self.stream_running = false;
            self.watching = false;
            self.armed = None;
            // What said to wait for this answer is no longer true.
            if self.message.as_ref().is_some_and(|(text, _)| {
                text.starts_with(STILL_ANSWERING) || text == STILL_WATCHING
            }) {
                self.message = None;
            }
            // The focus stays where it is: the prompt when the person typed ahead or waited, a
            // pane when they left the prompt to browse while it streamed (their next `j` moves,
            // it is not typed; a question typed there still reaches the prompt).
        }
    }

    /// The turn the panes show streams and no answer text has come yet (deep research searches
    /// for minutes): Activity and the timeline take the answer's room until it does.
    pub fn awaiting_answer(&self) -> bool {
        self.current().is_some_and(|turn| {
            turn.conn.in_progress() && turn.session.answer.is_empty() && turn.timeline.is_some()
        })
    }

    /// How long the turn the panes show took (or has taken so far).
    pub fn elapsed(&self) -> Duration {
        self.fixed_elapsed
            .unwrap_or_else(|| self.current().map_or(Duration::ZERO, Turn::elapsed))
    }

    pub fn spinner(&self) -> &'static str {
        SPINNER[(self.tick % SPINNER.len() as u64) as usize]
    }

    pub fn set_message(&mut self, text: impl Into<String>, severity: Severity) {
        self.message = Some((text.into(), severity));
    }

    /// The sidebar entries of the current turn, in display order.
    pub fn sidebar_items(&self) -> &[SidebarItem] {
        self.current().map_or(&[], |t| t.sidebar.as_slice())
    }

    /// Citation indices (current turn) supported by a sidebar item, in answer order.
    pub fn item_citations(&self, item: SidebarItem) -> Vec<usize> {
        let Some(turn) = self.current() else {
            return Vec::new();
        };
        let mut list = match item {
            SidebarItem::Source(i) => turn
                .attribution
                .sources
                .get(i)
                .map(|s| s.citations.clone())
                .unwrap_or_default(),
            SidebarItem::Tool(i) => vec![i],
        };
        list.sort_by_key(|&i| {
            turn.attribution
                .citations
                .get(i)
                .map_or((0, 0), |c| (c.start, c.end))
        });
        list
    }

    pub fn item_url(&self, item: SidebarItem) -> Option<String> {
        match item {
            SidebarItem::Source(i) => self.current()?.attribution.sources.get(i)?.url.clone(),
            SidebarItem::Tool(_) => None,
        }
    }

    /// Something is animating (a spinner or the elapsed clock).
    pub fn needs_tick(&self) -> bool {
        // A live session in the picker shows its elapsed time.
        self.in_progress() || self.picker().is_some_and(Picker::has_live)
    }
}
