//! Application state and the key → [`Action`] → update cycle. No I/O here: side effects the loop must
//! carry out (start a stream, open a URL, copy, export) come back as [`Effect`]s.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui_textarea::{TextArea, WrapMode};

use super::text::{Annotations, AnswerView};
use super::theme::Theme;
use crate::agent::stream::{StreamEnd, StreamHandle, StreamUpdate};
use crate::local::store::SessionMeta;
use crate::model::citations::Attribution;
use crate::model::event::AgentEvent;
use crate::model::session::Session;
use crate::wire::provider::Provider;

/// Where the stream comes from (shown in the status bar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Demo,
    Live,
    Replay,
}

impl Mode {
    pub fn label(self) -> &'static str {
        match self {
            Mode::Demo => "DEMO",
            Mode::Live => "LIVE",
            Mode::Replay => "REPLAY",
        }
    }
}

/// The connection state of one turn's stream.
#[derive(Debug, Clone, PartialEq)]
pub enum ConnState {
    /// No stream (LIVE with nothing asked yet).
    Idle,
    Connecting {
        attempt: u32,
    },
    /// Waiting `wait_ms` before try `attempt` (nothing had arrived yet).
    Retrying {
        attempt: u32,
        wait_ms: u64,
        reason: String,
    },
    Streaming,
    Complete,
    Error(String),
    Cut(String),
    Stalled(u64),
    Cancelled,
}

impl ConnState {
    pub fn label(&self) -> &'static str {
        match self {
            ConnState::Idle => "ready",
            ConnState::Connecting { .. } => "connecting",
            ConnState::Retrying { .. } => "retrying",
            ConnState::Streaming => "streaming",
            ConnState::Complete => "complete",
            ConnState::Error(_) => "error",
            ConnState::Cut(_) => "cut",
            ConnState::Stalled(_) => "stalled",
            ConnState::Cancelled => "cancelled",
        }
    }

    pub fn in_progress(&self) -> bool {
        matches!(
            self,
            ConnState::Connecting { .. } | ConnState::Retrying { .. } | ConnState::Streaming
        )
    }

    /// The stream ended before the answer was complete: `r` can ask the same question again.
    pub fn can_retry(&self) -> bool {
        matches!(
            self,
            ConnState::Cut(_) | ConnState::Stalled(_) | ConnState::Error(_) | ConnState::Cancelled
        )
    }
}

/// What a question continues: the conversation (`chat_id`) and the checkpoint it starts from, and the
/// turn that checkpoint belongs to (`None` for a new conversation or an id from outside).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Continuation {
    pub chat_id: Option<String>,
    pub checkpoint_id: Option<String>,
    pub from_turn: Option<usize>,
}

/// One question and its answer.
#[derive(Debug)]
pub struct Turn {
    /// What was asked (unknown for a replayed recording).
    pub question: Option<String>,
    pub session: Session,
    pub attribution: Attribution,
    /// Citation markers and provider-written marker bytes to hide, for the answer view.
    pub ann: Annotations,
    /// Bumped whenever `ann` changes.
    pub markers_version: u64,
    /// Bumped when the answer is replaced rather than appended to.
    pub generation: u64,
    pub view: AnswerView,
    pub conn: ConnState,
    pub started: Instant,
    pub ended: Option<Instant>,
    /// Sidebar entries in display order (rebuilt with the attribution).
    pub sidebar: Vec<SidebarItem>,
    /// What the request that started this turn continued (`r` sends the same again).
    pub request: Continuation,
    /// The turn's index in the saved session, when it is saved.
    pub saved_index: Option<usize>,
    /// When the next try starts (while `Retrying`).
    pub retry_at: Option<Instant>,
    /// This turn asks turn `n`'s question again (`r`).
    pub retry_of: Option<usize>,
    resolved_key: (usize, usize, bool),
    /// The structured output's rows, the width they were wrapped for and whether the output had
    /// arrived (it does not change after that, so a frame does not pretty-print and wrap it again).
    pub structured_rows: Option<(usize, bool, Vec<super::text::RLine>)>,
}

impl Turn {
    pub fn new(question: Option<String>) -> Turn {
        Turn {
            question,
            session: Session::new(),
            attribution: Attribution::default(),
            ann: Annotations::default(),
            markers_version: 0,
            generation: 0,
            view: AnswerView::new(),
            conn: ConnState::Connecting { attempt: 1 },
            started: Instant::now(),
            ended: None,
            sidebar: Vec::new(),
            request: Continuation::default(),
            saved_index: None,
            retry_at: None,
            retry_of: None,
            resolved_key: (0, 0, false),
            structured_rows: None,
        }
    }

    /// A finished turn rebuilt from a saved session: its events, how it ended, how long it took.
    pub fn restored(
        question: String,
        session: Session,
        conn: ConnState,
        elapsed: Duration,
        request: Continuation,
    ) -> Turn {
        let now = Instant::now();
        let mut turn = Turn {
            session,
            conn,
            started: now.checked_sub(elapsed).unwrap_or(now),
            ended: Some(now),
            request,
            ..Turn::new(Some(question))
        };
        turn.refresh_attribution(true);
        turn
    }

    /// `r` can ask this turn again: it did not finish and it has a question.
    pub fn retryable(&self) -> bool {
        self.conn.can_retry()
            && self
                .question
                .as_deref()
                .is_some_and(|q| !q.trim().is_empty())
    }

    /// A follow-up can continue from the end of this turn: it completed, or has a checkpoint.
    pub fn is_anchor(&self) -> bool {
        self.checkpoint_id().is_some() || self.conn == ConnState::Complete
    }

    /// The checkpoint this turn ended at.
    pub fn checkpoint_id(&self) -> Option<&str> {
        self.session.checkpoint_id()
    }

    /// The conversation this turn belongs to: the id the stream announced, else the one it was sent.
    pub fn chat_id(&self) -> Option<&str> {
        self.session
            .ids
            .chat_id
            .as_deref()
            .or(self.request.chat_id.as_deref())
    }

    /// Apply events and refresh the attribution when it may have changed.
    pub fn apply_events(&mut self, events: Vec<AgentEvent>) {
        // Anything but the frequent, reference-neutral events may change citations.
        let mut force = false;
        for event in events {
            force |= !matches!(
                event,
                AgentEvent::AnswerDelta { .. }
                    | AgentEvent::Thinking { .. }
                    | AgentEvent::Plan(_)
                    | AgentEvent::ToolCall { .. }
                    | AgentEvent::Audit { .. }
                    | AgentEvent::Conversation(_)
                    | AgentEvent::Progress { .. }
                    | AgentEvent::Unknown { .. }
                    | AgentEvent::Malformed { .. }
            );
            if matches!(event, AgentEvent::AnswerReplace { .. }) {
                self.generation += 1;
            }
            if matches!(event, AgentEvent::Error { .. }) {
                self.conn = ConnState::Error(String::new());
            }
            self.session.apply(event);
        }
        if let ConnState::Error(message) = &mut self.conn
            && message.is_empty()
        {
            *message = self.session.error.clone().unwrap_or_default();
        }
        if matches!(
            self.conn,
            ConnState::Connecting { .. } | ConnState::Retrying { .. }
        ) {
            self.conn = ConnState::Streaming;
        }
        self.refresh_attribution(force);
    }

    /// Re-resolve citations if references, answer length (with pending references) or finality changed.
    pub fn refresh_attribution(&mut self, force: bool) {
        let finished = self.session.is_finished() || !self.conn.in_progress();
        let refs = self.session.references.len();
        let len = self.session.answer.char_len();
        let (old_refs, old_len, old_finished) = self.resolved_key;
        let stale = force
            || refs != old_refs
            || finished != old_finished
            || (len != old_len && self.attribution.pending_references > 0);
        if !stale {
            return;
        }
        self.resolved_key = (refs, len, finished);
        self.attribution = Attribution::resolve(&self.session, finished);
        self.sidebar = sidebar_of(&self.attribution);
        let ann = Annotations {
            markers: self.attribution.markers(),
            hidden: self.attribution.marker_spans(),
        };
        if ann != self.ann {
            self.ann = ann;
            self.markers_version += 1;
        }
    }

    /// The stream is over.
    pub fn end(&mut self, end: StreamEnd) {
        self.conn = match end {
            StreamEnd::Closed => {
                if let Some(error) = &self.session.error {
                    ConnState::Error(error.clone())
                } else if self.session.completion.is_some() {
                    ConnState::Complete
                } else {
                    ConnState::Cut("the stream closed before completion".into())
                }
            }
            StreamEnd::Cut { reason } => ConnState::Cut(reason),
            StreamEnd::Stalled { idle_secs } => ConnState::Stalled(idle_secs),
            StreamEnd::Http { .. } | StreamEnd::Connect { .. } => ConnState::Error(end.describe()),
            StreamEnd::Cancelled => ConnState::Cancelled,
        };
        if self.ended.is_none() {
            self.ended = Some(Instant::now());
        }
        self.refresh_attribution(true);
    }

    pub fn apply_update(&mut self, update: StreamUpdate) {
        match update {
            StreamUpdate::Connecting { attempt } => self.conn = ConnState::Connecting { attempt },
            StreamUpdate::Retrying {
                attempt,
                wait_ms,
                reason,
            } => {
                self.retry_at = Some(Instant::now() + Duration::from_millis(wait_ms));
                self.conn = ConnState::Retrying {
                    attempt,
                    wait_ms,
                    reason,
                }
            }
            StreamUpdate::Connected => {
                if !self.conn.in_progress() || matches!(self.conn, ConnState::Connecting { .. }) {
                    self.conn = ConnState::Streaming;
                }
            }
            StreamUpdate::Events(events) => self.apply_events(events),
            StreamUpdate::Ended(end) => self.end(end),
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.ended.unwrap_or_else(Instant::now) - self.started
    }
}

/// Panes that can have the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Focus {
    Plan,
    Activity,
    Answer,
    Sources,
    Prompt,
}

impl Focus {
    pub const CYCLE: [Focus; 5] = [
        Focus::Plan,
        Focus::Activity,
        Focus::Answer,
        Focus::Sources,
        Focus::Prompt,
    ];

    /// The narrow layout's order: its tabs, then the prompt.
    pub const NARROW_CYCLE: [Focus; 5] = [
        Focus::Answer,
        Focus::Plan,
        Focus::Activity,
        Focus::Sources,
        Focus::Prompt,
    ];

    fn step(self, forward: bool, narrow: bool) -> Focus {
        let cycle = if narrow {
            &Focus::NARROW_CYCLE
        } else {
            &Focus::CYCLE
        };
        let i = cycle.iter().position(|f| *f == self).unwrap_or(0);
        let n = cycle.len();
        cycle[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }

    pub fn title(self) -> &'static str {
        match self {
            Focus::Plan => "Plan",
            Focus::Activity => "Activity",
            Focus::Answer => "Answer",
            Focus::Sources => "Sources",
            Focus::Prompt => "Prompt",
        }
    }
}

/// One entry of the sources sidebar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SidebarItem {
    /// Index into `attribution.sources` (numbered or consulted-only).
    Source(usize),
    /// Index into `attribution.citations` of a tool-level citation.
    Tool(usize),
}

/// Sidebar order: numbered sources, tool-level citations, then sources consulted but not cited.
pub fn sidebar_of(a: &Attribution) -> Vec<SidebarItem> {
    let mut items: Vec<SidebarItem> = a
        .sources
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.consulted_only)
        .map(|(i, _)| SidebarItem::Source(i))
        .collect();
    items.extend(
        a.citations
            .iter()
            .enumerate()
            .filter(|(_, c)| c.source.is_none())
            .map(|(i, _)| SidebarItem::Tool(i)),
    );
    items.extend(
        a.sources
            .iter()
            .enumerate()
            .filter(|(_, s)| s.consulted_only)
            .map(|(i, _)| SidebarItem::Source(i)),
    );
    items
}

/// What the user asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Quit,
    Interrupt,
    FocusNext,
    FocusPrev,
    Focus(Focus),
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Enter,
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
    Newline,
    Paste(String),
    /// Show an earlier (`false`) or later (`true`) turn in the panes.
    Turn(bool),
    /// The saved sessions picker.
    Sessions,
    /// Ask the selected (cut, stalled, failed) turn's question again as a new turn.
    Retry,
}

/// A side effect for the event loop to carry out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Quit,
    /// Ask `question` as a follow-up in a new turn.
    Ask(String),
    Cancel,
    Open(String),
    Copy(String),
    Export,
    /// List the saved sessions (then [`App::show_sessions`]).
    ListSessions,
    /// Replace the conversation with this saved session.
    OpenSession(String),
    /// Send turn `n`'s question again, with the same continuation, as a new turn.
    Retry(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Popup {
    Help {
        scroll: usize,
    },
    Source {
        item: SidebarItem,
        scroll: usize,
    },
    /// Saved sessions, newest first.
    Sessions {
        list: Vec<SessionMeta>,
        selected: usize,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

/// Scroll position of a pane that can follow its bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scroll {
    /// First row shown (when not following).
    pub top: usize,
    pub follow: bool,
    /// From the last draw: rows in total and rows visible.
    pub total: usize,
    pub viewport: usize,
}

impl Default for Scroll {
    fn default() -> Self {
        Scroll {
            top: 0,
            follow: true,
            total: 0,
            viewport: 0,
        }
    }
}

impl Scroll {
    pub fn max_top(&self) -> usize {
        self.total.saturating_sub(self.viewport)
    }

    /// The first row to draw, given this frame's total and viewport.
    pub fn resolve(&mut self, total: usize, viewport: usize) -> usize {
        self.total = total;
        self.viewport = viewport;
        if self.follow {
            self.top = self.max_top();
        } else {
            self.top = self.top.min(self.max_top());
        }
        self.top
    }

    pub fn by(&mut self, delta: isize) {
        let top = self.top.saturating_add_signed(delta).min(self.max_top());
        self.top = top;
        self.follow = top >= self.max_top();
    }

    pub fn to_top(&mut self) {
        self.top = 0;
        self.follow = false;
    }

    pub fn to_bottom(&mut self) {
        self.top = self.max_top();
        self.follow = true;
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

pub struct App {
    pub mode: Mode,
    pub theme: Theme,
    pub can_ask: bool,
    pub turns: Vec<Turn>,
    pub stream: Option<StreamHandle>,
    pub focus: Focus,
    /// The pane shown in the narrow (tabbed) layout.
    pub tab: Focus,
    pub answer_scroll: Scroll,
    pub plan_scroll: Scroll,
    pub activity_scroll: Scroll,
    pub sources_scroll: Scroll,
    /// Selected activity row (index into the current turn's activity); `None` follows the newest.
    pub activity_selected: Option<usize>,
    pub expanded: HashSet<usize>,
    /// Selected sidebar entry.
    pub source_selected: Option<usize>,
    /// The span `n`/`N` jumped to: index into the current turn's citations.
    pub focus_span: Option<usize>,
    /// Scroll the answer to this raw byte of the current turn on the next draw.
    pub scroll_to_byte: Option<usize>,
    pub popup: Option<Popup>,
    pub prompt: TextArea<'static>,
    pub message: Option<(String, Severity)>,
    pub quit: bool,
    /// Spinner frame.
    pub tick: u64,
    /// Fixed elapsed time (snapshot tests).
    pub fixed_elapsed: Option<Duration>,
    /// The last layout was the narrow one.
    pub narrow: bool,
    /// The turn picked with `[`/`]` (`None`: the latest).
    pub viewed_turn: Option<usize>,
    /// Scroll the answer to this turn's question on the next draw.
    pub scroll_to_turn: Option<usize>,
    /// Rendered activity rows, reused between frames.
    pub activity_cache: super::screen::activity::ActivityCache,
    /// Who answers (how source URLs open); `None` when a replay's provider is unknown.
    pub provider: Option<Provider>,
    /// The API base relative source URLs (Zeta Alpha) open against.
    pub api_base: Option<String>,
    /// Tries per request (the status bar's `try 2/3`).
    pub max_attempts: u32,
    /// Where the first question continues from (`--resume`, `--chat-id`) while there is no turn.
    pub resume: Continuation,
    /// The saved session this conversation is written to.
    pub session_id: Option<String>,
}

pub const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

impl App {
    pub fn new(config: AppConfig) -> App {
        let mut app = App {
            mode: config.mode,
            theme: config.theme,
            can_ask: config.can_ask,
            turns: Vec::new(),
            stream: None,
            focus: Focus::Answer,
            tab: Focus::Answer,
            answer_scroll: Scroll::default(),
            plan_scroll: Scroll {
                follow: false,
                ..Scroll::default()
            },
            activity_scroll: Scroll::default(),
            sources_scroll: Scroll {
                follow: false,
                ..Scroll::default()
            },
            activity_selected: None,
            expanded: HashSet::new(),
            source_selected: None,
            focus_span: None,
            scroll_to_byte: None,
            popup: None,
            prompt: TextArea::default(),
            message: None,
            quit: false,
            tick: 0,
            fixed_elapsed: None,
            narrow: false,
            activity_cache: Default::default(),
            viewed_turn: None,
            scroll_to_turn: None,
            provider: None,
            api_base: None,
            max_attempts: 3,
            resume: Continuation::default(),
            session_id: None,
        };
        app.reset_prompt();
        app
    }

    fn reset_prompt(&mut self) {
        let mut prompt = TextArea::default();
        prompt.set_wrap_mode(WrapMode::WordOrGlyph);
        prompt.set_cursor_line_style(ratatui::style::Style::new());
        prompt.set_placeholder_text(if self.can_ask {
            "Ask a follow-up…  (Enter send · Alt-Enter/Ctrl-J newline)"
        } else {
            "Replay: follow-ups need a server (run without `replay`)"
        });
        prompt.set_placeholder_style(self.theme.muted());
        self.prompt = prompt;
    }

    /// Start a new turn for `question` (the stream is attached separately).
    pub fn begin_turn(&mut self, question: Option<String>) {
        self.begin_turn_with(question, Continuation::default());
    }

    /// Start a new turn for `question`, sent with `request`'s continuation.
    pub fn begin_turn_with(&mut self, question: Option<String>, request: Continuation) {
        let mut turn = Turn::new(question);
        turn.request = request;
        self.turns.push(turn);
        self.viewed_turn = None;
        self.activity_selected = None;
        self.expanded.clear();
        self.source_selected = None;
        self.focus_span = None;
        self.activity_scroll = Scroll::default();
        self.sources_scroll.top = 0;
        self.plan_scroll.top = 0;
        self.answer_scroll.follow = true;
        if self.focus == Focus::Prompt {
            self.focus = Focus::Answer;
            self.tab = Focus::Answer;
        }
    }

    pub fn attach_stream(&mut self, handle: StreamHandle) {
        self.stream = Some(handle);
    }

    /// Replace the conversation with `turns` (a saved session opened): all shown at once, the prompt
    /// focused for a follow-up from the last checkpoint.
    pub fn load_turns(&mut self, turns: Vec<Turn>, session_id: Option<String>) {
        if let Some(mut stream) = self.stream.take() {
            stream.cancel();
        }
        self.turns = turns;
        self.session_id = session_id;
        self.resume = Continuation::default();
        self.viewed_turn = None;
        self.scroll_to_turn = None;
        self.scroll_to_byte = None;
        self.activity_selected = None;
        self.expanded.clear();
        self.source_selected = None;
        self.focus_span = None;
        self.popup = None;
        self.activity_cache = Default::default();
        self.activity_scroll = Scroll::default();
        self.answer_scroll = Scroll::default();
        self.sources_scroll.top = 0;
        self.plan_scroll.top = 0;
        self.focus = Focus::Prompt;
        self.tab = Focus::Answer;
        self.reset_prompt();
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
        let mut chain = Vec::new();
        let mut next = from_turn;
        while let Some(i) = next {
            let Some(turn) = self.turns.get(i) else { break };
            if chain.len() > self.turns.len() {
                break;
            }
            chain.push((
                turn.question.clone().unwrap_or_default(),
                turn.session.answer.as_str().to_owned(),
            ));
            next = turn.request.from_turn.filter(|p| *p < i);
        }
        chain.reverse();
        chain
    }

    /// The next question branches from an earlier turn (not the newest one): its index.
    pub fn branch_from(&self) -> Option<usize> {
        let last = self.turns.len().checked_sub(1)?;
        self.viewed_turn
            .filter(|i| *i != last)
            .and_then(|_| self.continuation().from_turn)
    }

    /// Show the saved sessions picker.
    pub fn show_sessions(&mut self, list: Vec<SessionMeta>) {
        let selected = self
            .session_id
            .as_ref()
            .and_then(|id| list.iter().position(|m| &m.id == id))
            .unwrap_or(0);
        self.popup = Some(Popup::Sessions { list, selected });
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

    /// Apply a stream update to the newest turn.
    pub fn apply_update(&mut self, update: StreamUpdate) {
        let ended = matches!(update, StreamUpdate::Ended(_));
        if let Some(turn) = self.turns.last_mut() {
            turn.apply_update(update);
        }
        if ended {
            self.stream = None;
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.fixed_elapsed
            .unwrap_or_else(|| self.latest().map_or(Duration::ZERO, Turn::elapsed))
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

    pub fn selected_item(&self) -> Option<SidebarItem> {
        let index = self.source_selected?;
        self.sidebar_items().get(index).copied()
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

    /// The source number the selected item stands for.
    pub fn selected_number(&self) -> Option<usize> {
        match self.selected_item()? {
            SidebarItem::Source(i) => {
                let source = self.current()?.attribution.sources.get(i)?;
                (!source.consulted_only).then_some(source.n)
            }
            SidebarItem::Tool(_) => None,
        }
    }

    pub fn item_url(&self, item: SidebarItem) -> Option<String> {
        match item {
            SidebarItem::Source(i) => self.current()?.attribution.sources.get(i)?.url.clone(),
            SidebarItem::Tool(_) => None,
        }
    }

    /// The item `o`/`y` act on: the open popup's, else the selected one.
    fn url_target(&self) -> Option<SidebarItem> {
        match &self.popup {
            Some(Popup::Source { item, .. }) => Some(*item),
            _ => self.selected_item(),
        }
    }

    // -----------------------------------------------------------------------------------------
    // Keys

    /// Map a key to an action given the current state.
    pub fn handle_key(&self, key: KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        if ctrl && matches!(key.code, KeyCode::Char('c')) {
            return Some(Action::Interrupt);
        }
        if self.popup.is_some() {
            return match key.code {
                KeyCode::Esc | KeyCode::Char('q') => Some(Action::Escape),
                KeyCode::Char('?') => Some(Action::Help),
                KeyCode::Char('j') | KeyCode::Down => Some(Action::Down),
                KeyCode::Char('k') | KeyCode::Up => Some(Action::Up),
                KeyCode::PageDown | KeyCode::Char(' ') => Some(Action::PageDown),
                KeyCode::PageUp => Some(Action::PageUp),
                KeyCode::Char('g') | KeyCode::Home => Some(Action::Top),
                KeyCode::Char('G') | KeyCode::End => Some(Action::Bottom),
                KeyCode::Char('o') => Some(Action::OpenUrl),
                KeyCode::Char('y') => Some(Action::CopyUrl),
                KeyCode::Enter if matches!(self.popup, Some(Popup::Sessions { .. })) => {
                    Some(Action::Enter)
                }
                KeyCode::Enter => Some(Action::Escape),
                _ => None,
            };
        }
        if self.focus == Focus::Prompt {
            return match key.code {
                KeyCode::Enter if alt || key.modifiers.contains(KeyModifiers::SHIFT) => {
                    Some(Action::Newline)
                }
                KeyCode::Char('j') if ctrl => Some(Action::Newline),
                KeyCode::Enter => Some(Action::Submit),
                KeyCode::Esc => Some(Action::Focus(Focus::Answer)),
                KeyCode::Tab => Some(Action::FocusNext),
                KeyCode::BackTab => Some(Action::FocusPrev),
                _ => Some(Action::Edit(key)),
            };
        }
        // Letter commands are plain keys: Ctrl-E or Alt-Q must not export or quit by accident.
        if (ctrl || alt) && matches!(key.code, KeyCode::Char(c) if c != 'd' && c != 'u' || !ctrl) {
            return None;
        }
        Some(match key.code {
            KeyCode::Tab => Action::FocusNext,
            KeyCode::BackTab => Action::FocusPrev,
            KeyCode::Char('q') => Action::Quit,
            KeyCode::Char('c') => Action::Focus(Focus::Sources),
            KeyCode::Char('a') => Action::Focus(Focus::Answer),
            KeyCode::Char('p') => Action::Focus(Focus::Plan),
            KeyCode::Char('t') => Action::Focus(Focus::Activity),
            KeyCode::Char('i') | KeyCode::Char('/') => Action::Focus(Focus::Prompt),
            KeyCode::Char('j') | KeyCode::Down => Action::Down,
            KeyCode::Char('k') | KeyCode::Up => Action::Up,
            KeyCode::PageDown | KeyCode::Char(' ') => Action::PageDown,
            KeyCode::PageUp => Action::PageUp,
            KeyCode::Char('d') if ctrl => Action::PageDown,
            KeyCode::Char('u') if ctrl => Action::PageUp,
            KeyCode::Char('g') | KeyCode::Home => Action::Top,
            KeyCode::Char('G') | KeyCode::End => Action::Bottom,
            KeyCode::Enter => Action::Enter,
            KeyCode::Char('n') => Action::NextSpan,
            KeyCode::Char('N') => Action::PrevSpan,
            KeyCode::Char('o') => Action::OpenUrl,
            KeyCode::Char('y') => Action::CopyUrl,
            KeyCode::Char('e') => Action::Export,
            KeyCode::Char('?') => Action::Help,
            KeyCode::Char('[') => Action::Turn(false),
            KeyCode::Char(']') => Action::Turn(true),
            KeyCode::Char('s') => Action::Sessions,
            KeyCode::Char('r') => Action::Retry,
            KeyCode::Esc => Action::Escape,
            KeyCode::Left | KeyCode::Char('h') if self.narrow => Action::FocusPrev,
            KeyCode::Right | KeyCode::Char('l') if self.narrow => Action::FocusNext,
            _ => return None,
        })
    }

    fn set_focus(&mut self, focus: Focus) {
        self.focus = focus;
        if focus != Focus::Prompt {
            self.tab = focus;
        }
        if focus == Focus::Sources && self.source_selected.is_none() {
            let n = self.sidebar_items().len();
            if n > 0 {
                self.source_selected = Some(0);
            }
        }
    }

    /// Apply an action; returns a side effect for the loop, if any.
    pub fn update(&mut self, action: Action) -> Option<Effect> {
        // Any key clears a transient message.
        if !matches!(action, Action::Edit(_) | Action::Paste(_)) {
            self.message = None;
        }
        match action {
            Action::Quit => {
                self.quit = true;
                return Some(Effect::Quit);
            }
            Action::Interrupt => {
                if self.stream.is_some() || self.in_progress() {
                    self.cancel();
                    return Some(Effect::Cancel);
                }
                self.quit = true;
                return Some(Effect::Quit);
            }
            Action::FocusNext => self.set_focus(self.focus.step(true, self.narrow)),
            Action::FocusPrev => self.set_focus(self.focus.step(false, self.narrow)),
            Action::Focus(focus) => self.set_focus(focus),
            Action::Help => {
                self.popup = match self.popup {
                    Some(Popup::Help { .. }) => None,
                    _ => Some(Popup::Help { scroll: 0 }),
                };
            }
            Action::Escape => {
                if self.popup.take().is_none()
                    && self.focus_span.take().is_none()
                    && self.focus == Focus::Sources
                {
                    self.source_selected = None;
                }
            }
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.page(-1),
            Action::PageDown => self.page(1),
            Action::Top => self.jump_to_edge(false),
            Action::Bottom => self.jump_to_edge(true),
            Action::Enter => return self.enter(),
            Action::NextSpan => self.jump_span(true),
            Action::PrevSpan => self.jump_span(false),
            Action::OpenUrl | Action::CopyUrl => {
                if matches!(self.popup, Some(Popup::Sessions { .. })) {
                    return None;
                }
                let Some(item) = self.url_target() else {
                    self.set_message("select a source first (c, then j/k)", Severity::Warning);
                    return None;
                };
                let Some(url) = self.item_url(item) else {
                    self.set_message("this source has no URL", Severity::Warning);
                    return None;
                };
                if url.trim().starts_with("custom://") {
                    self.set_message(
                        format!(
                            "{} is a custom document (your own data): no web page to open",
                            super::text::clean(url.trim())
                        ),
                        Severity::Info,
                    );
                    return None;
                }
                let resolved = self.open_url_of(&url);
                return Some(if action == Action::OpenUrl {
                    match resolved {
                        Some(url) => Effect::Open(url),
                        None => {
                            self.set_message(
                                "this source's URL does not open in a browser",
                                Severity::Warning,
                            );
                            return None;
                        }
                    }
                } else {
                    Effect::Copy(resolved.unwrap_or(url))
                });
            }
            Action::Export => return Some(Effect::Export),
            Action::Turn(forward) => self.view_turn(forward),
            Action::Sessions => {
                if matches!(self.popup, Some(Popup::Sessions { .. })) {
                    self.popup = None;
                    return None;
                }
                if !self.can_ask {
                    self.set_message(
                        "replay mode: saved sessions open with `research-tui open <ID>`",
                        Severity::Info,
                    );
                    return None;
                }
                return Some(Effect::ListSessions);
            }
            Action::Retry => return self.retry(),
            Action::Submit => return self.submit(),
            Action::Newline => self.prompt.insert_newline(),
            Action::Edit(key) => {
                self.prompt.input(key);
            }
            // A paste behind a popup, or where nothing can be asked, goes nowhere.
            Action::Paste(_) if self.popup.is_some() || !self.can_ask => {}
            Action::Paste(text) => {
                let clean: String = text
                    .replace("\r\n", "\n")
                    .chars()
                    .filter(|&c| {
                        c == '\n' || !(c.is_control() || crate::render::sanitize::is_unsafe(c))
                    })
                    .collect();
                self.prompt.insert_str(clean);
                if self.focus != Focus::Prompt {
                    self.set_focus(Focus::Prompt);
                }
            }
        }
        None
    }

    fn view_turn(&mut self, forward: bool) {
        let n = self.turns.len();
        if n < 2 {
            self.set_message("only one turn so far", Severity::Info);
            return;
        }
        let current = self.current_index();
        let next = if forward {
            (current + 1).min(n - 1)
        } else {
            current.saturating_sub(1)
        };
        self.viewed_turn = (next != n - 1).then_some(next);
        self.source_selected = None;
        self.focus_span = None;
        self.activity_selected = None;
        self.expanded.clear();
        self.sources_scroll.top = 0;
        self.plan_scroll.top = 0;
        self.scroll_to_turn = Some(next);
        self.set_message(
            format!("turn {}/{n} in the panes ([ ] switch)", next + 1),
            Severity::Info,
        );
    }

    /// Where a source URL opens: Zeta Alpha's relative URLs against the API base.
    pub fn open_url_of(&self, url: &str) -> Option<String> {
        // A replay whose provider is unknown: only Zeta Alpha writes relative URLs.
        let provider = self.provider.unwrap_or(Provider::Zeta);
        provider.open_url(url, self.api_base.as_deref())
    }

    /// `r`: the selected turn (the newest unless `[`/`]` picked one) again, when it did not finish.
    fn retry(&mut self) -> Option<Effect> {
        let index = self.current_index();
        let Some(turn) = self.turns.get(index) else {
            self.set_message("nothing to retry yet", Severity::Info);
            return None;
        };
        if !self.can_ask {
            self.set_message("replay mode: nothing to retry against", Severity::Warning);
            return None;
        }
        if self.in_progress() {
            self.set_message(
                "still answering — wait, or Ctrl-C to cancel first",
                Severity::Warning,
            );
            return None;
        }
        if !turn.conn.can_retry() {
            self.set_message(
                format!(
                    "turn {} is {}: ask a follow-up instead",
                    index + 1,
                    turn.conn.label()
                ),
                Severity::Info,
            );
            return None;
        }
        if turn.question.as_deref().is_none_or(|q| q.trim().is_empty()) {
            self.set_message("this turn has no question to ask again", Severity::Warning);
            return None;
        }
        Some(Effect::Retry(index))
    }

    fn cancel(&mut self) {
        if let Some(mut stream) = self.stream.take() {
            stream.cancel();
        }
        if let Some(turn) = self.turns.last_mut()
            && turn.conn.in_progress()
        {
            turn.end(StreamEnd::Cancelled);
        }
        self.set_message("cancelled — Ctrl-C again (or q) quits", Severity::Warning);
    }

    fn submit(&mut self) -> Option<Effect> {
        let text = self.prompt.lines().join("\n");
        let question = text.trim();
        if question.is_empty() {
            return None;
        }
        if !self.can_ask {
            self.set_message(
                "replay mode: follow-ups need a server (run `research-tui --demo`)",
                Severity::Warning,
            );
            return None;
        }
        if self.in_progress() {
            self.set_message(
                "still answering — wait, or Ctrl-C to cancel first",
                Severity::Warning,
            );
            return None;
        }
        let question = question.to_owned();
        self.reset_prompt();
        Some(Effect::Ask(question))
    }

    fn scroll_for(&mut self, focus: Focus) -> &mut Scroll {
        match focus {
            Focus::Plan => &mut self.plan_scroll,
            Focus::Activity => &mut self.activity_scroll,
            Focus::Sources => &mut self.sources_scroll,
            Focus::Answer | Focus::Prompt => &mut self.answer_scroll,
        }
    }

    fn popup_scroll(&mut self) -> Option<&mut usize> {
        match &mut self.popup {
            Some(Popup::Help { scroll }) | Some(Popup::Source { scroll, .. }) => Some(scroll),
            Some(Popup::Sessions { .. }) | None => None,
        }
    }

    /// Move the sessions picker's selection; `false` when the picker is not open.
    fn move_picker(&mut self, delta: isize, edge: Option<bool>) -> bool {
        let Some(Popup::Sessions { list, selected }) = &mut self.popup else {
            return false;
        };
        let last = list.len().saturating_sub(1);
        *selected = match edge {
            Some(true) => last,
            Some(false) => 0,
            None => selected.saturating_add_signed(delta).min(last),
        };
        true
    }

    fn move_by(&mut self, delta: isize) {
        if self.move_picker(delta, None) {
            return;
        }
        if let Some(scroll) = self.popup_scroll() {
            *scroll = scroll.saturating_add_signed(delta);
            return;
        }
        match self.focus {
            Focus::Activity => self.move_activity(delta),
            Focus::Sources => self.move_source(delta),
            focus => self.scroll_for(focus).by(delta),
        }
    }

    fn page(&mut self, direction: isize) {
        if self.move_picker(direction * 5, None) {
            return;
        }
        if let Some(scroll) = self.popup_scroll() {
            *scroll = scroll.saturating_add_signed(direction * 10);
            return;
        }
        let focus = self.focus;
        let viewport = self.scroll_for(focus).viewport.max(2) as isize;
        match focus {
            Focus::Activity => self.move_activity(direction * (viewport - 1)),
            Focus::Sources => self.move_source(direction * (viewport / 2).max(1)),
            _ => self.scroll_for(focus).by(direction * (viewport - 1)),
        }
    }

    fn jump_to_edge(&mut self, bottom: bool) {
        if self.move_picker(0, Some(bottom)) {
            return;
        }
        if let Some(scroll) = self.popup_scroll() {
            *scroll = if bottom { usize::MAX / 2 } else { 0 };
            return;
        }
        match self.focus {
            Focus::Activity => {
                let n = self.current().map_or(0, |t| t.session.activity.len());
                self.activity_selected = if bottom { None } else { (n > 0).then_some(0) };
                self.activity_scroll.follow = bottom;
                if !bottom {
                    self.activity_scroll.top = 0;
                }
            }
            Focus::Sources => {
                let n = self.sidebar_items().len();
                if n > 0 {
                    self.source_selected = Some(if bottom { n - 1 } else { 0 });
                    self.focus_span = None;
                }
            }
            focus => {
                let scroll = self.scroll_for(focus);
                if bottom {
                    scroll.to_bottom();
                } else {
                    scroll.to_top();
                }
            }
        }
    }

    fn move_activity(&mut self, delta: isize) {
        let n = self.current().map_or(0, |t| t.session.activity.len());
        if n == 0 {
            return;
        }
        let current = self.activity_selected.unwrap_or(n - 1);
        let next = current.saturating_add_signed(delta).min(n - 1);
        // Moving to the newest row follows new activity again.
        self.activity_selected = if next == n - 1 && delta > 0 {
            None
        } else {
            Some(next)
        };
    }

    fn move_source(&mut self, delta: isize) {
        let n = self.sidebar_items().len();
        if n == 0 {
            return;
        }
        let next = match self.source_selected {
            Some(i) => i.saturating_add_signed(delta).min(n - 1),
            None => 0,
        };
        if self.source_selected != Some(next) {
            self.focus_span = None;
        }
        self.source_selected = Some(next);
    }

    fn enter(&mut self) -> Option<Effect> {
        if let Some(Popup::Sessions { list, selected }) = &self.popup {
            let id = list.get(*selected).map(|m| m.id.clone());
            if self.stream.is_some() || self.in_progress() {
                self.popup = None;
                self.set_message(
                    "a stream is running — Ctrl-C to cancel it first, then s",
                    Severity::Warning,
                );
                return None;
            }
            self.popup = None;
            return id.map(Effect::OpenSession);
        }
        match self.focus {
            Focus::Sources => {
                if let Some(item) = self.selected_item() {
                    self.popup = Some(Popup::Source { item, scroll: 0 });
                }
            }
            Focus::Activity => {
                let n = self.current().map_or(0, |t| t.session.activity.len());
                if n == 0 {
                    return None;
                }
                let i = self.activity_selected.unwrap_or(n - 1);
                if !self.expanded.remove(&i) {
                    self.expanded.insert(i);
                }
                self.activity_selected = Some(i);
            }
            _ => {}
        }
        None
    }

    fn jump_span(&mut self, forward: bool) {
        let Some(item) = self.selected_item() else {
            self.set_message("select a source first (c, then j/k)", Severity::Warning);
            return;
        };
        let spans = self.item_citations(item);
        if spans.is_empty() {
            self.set_message("no spans in the answer for this source", Severity::Info);
            return;
        }
        let position = self
            .focus_span
            .and_then(|current| spans.iter().position(|&c| c == current));
        let k = match (position, forward) {
            (None, true) => 0,
            (None, false) => spans.len() - 1,
            (Some(p), true) => (p + 1) % spans.len(),
            (Some(p), false) => (p + spans.len() - 1) % spans.len(),
        };
        let citation = spans[k];
        self.focus_span = Some(citation);
        if let Some(c) = self
            .current()
            .and_then(|t| t.attribution.citations.get(citation))
        {
            self.scroll_to_byte = Some(c.bytes.start);
        }
        self.set_message(
            format!("span {}/{} of the selected source", k + 1, spans.len()),
            Severity::Info,
        );
    }

    /// Something is animating (a spinner or the elapsed clock).
    pub fn needs_tick(&self) -> bool {
        self.in_progress()
    }
}
