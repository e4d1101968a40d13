//! The comparison of several agents (`research-tui --provider a,b,c [--question Q]`): one question
//! to every agent at once, each streaming into its own column — the app itself, one per agent, in
//! its column — with a header row per agent, a merged Sources view marking agreement, and
//! follow-ups to every agent or the focused one. Each agent's conversation is saved as its own
//! session linked by one comparison id. The comparison's own state ([`CompareScreen`]) is the
//! columns, which one has the keys, the merged source selected and where follow-ups go; the
//! figures and merged sources come from the core's [`Comparison`] of the columns' current turns.

mod view;

use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream};
use futures::StreamExt;

use super::conversation::{Agent, Conversation, LiveConfig};
use super::pacing::Pacing;
use super::state::{Action, AppConfig, ComparisonKey, ConnState, Mode, Severity, SidebarItem};
use super::ui::{InterruptStep, Ui};
use super::{Term, TuiOptions, effects};
use crate::agent::client::ApiKey;
use crate::model::citations::Attribution;
use crate::model::compare::{AgentRun, Comparison, Timings};
use crate::model::session::{Session, Status};
use crate::report::eyre::{self, WrapErr};
use crate::wire::provider::Provider;

pub use view::{WIDE_FROM, draw};

/// How often running streams are read (each column's updates are taken as they wait).
const POLL: Duration = Duration::from_millis(20);

/// One agent of the comparison: its app (the column) and its conversation.
pub struct Column {
    pub provider: Provider,
    pub ui: Ui,
    pub conversation: Conversation,
    /// When the newest question was sent, and when its first answer text arrived.
    asked_at: Instant,
    first_text: Option<Duration>,
}

impl Column {
    /// A column whose question goes now.
    fn new(provider: Provider, ui: Ui, conversation: Conversation) -> Column {
        Column {
            provider,
            ui,
            conversation,
            asked_at: Instant::now(),
            first_text: None,
        }
    }

    fn ask(&mut self, question: String) {
        let cont = self.ui.continuation();
        self.asked_at = Instant::now();
        self.first_text = None;
        self.conversation.ask(&mut self.ui, question, cont);
    }

    /// Take the updates that wait; whether any did.
    fn take_updates(&mut self) -> bool {
        let mut any = false;
        for _ in 0..256 {
            let Some(update) = self.conversation.try_next_update() else {
                break;
            };
            self.conversation.apply(&mut self.ui, update);
            any = true;
        }
        if any
            && self.first_text.is_none()
            && self
                .ui
                .turns
                .last()
                .is_some_and(|t| !t.session.answer.is_empty())
        {
            self.first_text = Some(self.asked_at.elapsed());
        }
        if !self.conversation.is_streaming()
            && let Some(question) = self.ui.take_queued()
        {
            self.ask(question);
        }
        any
    }

    fn timings(&self) -> Timings {
        let ms = |d: Duration| u64::try_from(d.as_millis()).ok();
        let turn = self.ui.turns.last();
        Timings {
            // A reopened turn was not timed here: its saved arrival times say when its text came.
            first_text_ms: self.first_text.and_then(ms).or_else(|| {
                turn.and_then(|t| t.timeline.as_ref())
                    .and_then(|timeline| timeline.first_answer_ms)
            }),
            total_ms: turn
                .and_then(|t| t.ended.map(|end| end - t.started))
                .and_then(ms),
        }
    }
}

/// The comparison: its columns and its own state.
pub struct CompareScreen {
    pub question: String,
    pub comparison_id: String,
    pub columns: Vec<Column>,
    /// The column that gets the keys.
    pub focus: usize,
    /// The merged source selected (index into the comparison's sources, by agreement).
    pub source: Option<usize>,
    /// Follow-ups go to every agent (else to the focused one).
    pub to_all: bool,
}

impl CompareScreen {
    /// The comparison's first screen: the first agent focused, no merged source selected,
    /// follow-ups to every agent.
    fn new(question: String, comparison_id: String, columns: Vec<Column>) -> CompareScreen {
        let mut screen = CompareScreen {
            question,
            comparison_id,
            columns,
            focus: 0,
            source: None,
            to_all: true,
        };
        screen.mark_keys();
        screen
    }

    /// Tell every column but the focused one that the keys are elsewhere, and where what is typed
    /// goes: their prompts say so instead of offering to type.
    fn mark_keys(&mut self) {
        let focused = self.columns[self.focus].provider.as_str();
        let note = match self.to_all {
            true => format!("{focused}'s follow-ups go here too"),
            false => {
                let keys = &self.columns[self.focus].ui.app.keys;
                let moves = keys.fill(
                    &[crate::tui::state::keymap::Context::Comparison],
                    "{next_agent}/{previous_agent} to ask here",
                );
                match moves.is_empty() {
                    true => format!("follow-ups go to {focused} only"),
                    false => format!("follow-ups go to {focused} only · {moves}"),
                }
            }
        };
        for (i, column) in self.columns.iter_mut().enumerate() {
            column.ui.app.keys_elsewhere = (i != self.focus).then(|| note.clone());
        }
    }

    /// The columns' current turns compared.
    pub fn comparison(&self) -> Comparison {
        // A column with no turn yet is an agent with nothing: skipping it would shift every later
        // agent's index off its column (headers, marks and highlights on the wrong answer).
        let (no_session, no_attribution) = (Session::new(), Attribution::default());
        let runs: Vec<AgentRun<'_>> = self
            .columns
            .iter()
            .map(|c| {
                let (session, attribution, ended) = match c.ui.current() {
                    Some(turn) => (&turn.session, &turn.attribution, ended(&turn.conn)),
                    None => (&no_session, &no_attribution, None),
                };
                AgentRun {
                    provider: c.provider.as_str(),
                    session,
                    attribution,
                    timings: c.timings(),
                    ended,
                }
            })
            .collect();
        Comparison::build(&runs)
    }

    /// Some agent's stream is running.
    pub fn streaming(&self) -> bool {
        self.columns.iter().any(|c| c.conversation.is_streaming())
    }

    /// Take every column's waiting updates (keeping the selected merged source selected in each).
    pub fn take_updates(&mut self) {
        for column in &mut self.columns {
            column.take_updates();
            column.ui.tick = column.ui.tick.wrapping_add(1);
        }
        if self.source.is_some() {
            self.highlight();
        }
        self.mark_answering();
    }

    /// Tell each column whether another agent is still answering (what its Ctrl-C hint says).
    fn mark_answering(&mut self) {
        let running: Vec<bool> = (self.columns.iter())
            .map(|c| c.ui.interrupt_cancels())
            .collect();
        for (i, column) in self.columns.iter_mut().enumerate() {
            column.ui.app.others_answering =
                (running.iter().enumerate()).any(|(j, &r)| r && j != i);
        }
    }

    /// Ctrl-C where the focused agent has nothing of its own left to stop: the other agents still
    /// answering are cancelled (their queued questions dropped first), as one agent's app cancels
    /// before it quits. `false` when none was answering (the key then quits).
    async fn cancel_the_others(
        &mut self,
        terminal: &mut Term,
        notes: &tokio::sync::mpsc::UnboundedSender<effects::Note>,
    ) -> bool {
        let mut cancelled = Vec::new();
        for (i, column) in self.columns.iter_mut().enumerate() {
            if i == self.focus {
                continue;
            }
            // A queued question goes first, then the answer: two steps at most.
            for _ in 0..2 {
                if !column.ui.interrupt_cancels() {
                    break;
                }
                let cancels = column.ui.interrupt_step() == InterruptStep::Cancel;
                let (ui, conversation) = (&mut column.ui, &mut column.conversation);
                effects::carry_out(Action::Interrupt, ui, conversation, terminal, notes).await;
                if cancels {
                    cancelled.push(column.provider.as_str());
                }
            }
        }
        if cancelled.is_empty() {
            return false;
        }
        self.mark_answering();
        // Short enough for an 80-column bar with its hint whole; the headers name each one.
        let who = match cancelled.as_slice() {
            [one] => (*one).to_owned(),
            more => format!("{} agents", more.len()),
        };
        let said = format!("cancelled {who} — Ctrl-C again quits");
        (self.columns[self.focus].ui.app).set_message(said, Severity::Info);
        true
    }

    /// Carry out a comparison key.
    pub fn key(&mut self, key: ComparisonKey) {
        let n = self.columns.len();
        match key {
            ComparisonKey::Agent(next) => {
                self.focus = if next {
                    (self.focus + 1) % n
                } else {
                    (self.focus + n - 1) % n
                };
            }
            ComparisonKey::Source(next) => {
                let count = self.comparison().sources.len();
                if count > 0 {
                    self.source = Some(match (self.source, next) {
                        (None, _) => 0,
                        (Some(i), true) => (i + 1).min(count - 1),
                        (Some(i), false) => i.saturating_sub(1),
                    });
                }
                self.highlight();
                self.jump_to_spans();
            }
            ComparisonKey::SendTo => self.to_all = !self.to_all,
        }
        self.mark_keys();
    }

    /// Select the merged source's entry in every column that cites it (its spans light up there),
    /// and none in the others.
    pub fn highlight(&mut self) {
        let comparison = self.comparison();
        let Some(merged) = self.source.and_then(|i| comparison.sources.get(i)) else {
            return;
        };
        for (agent, column) in self.columns.iter_mut().enumerate() {
            let number = merged
                .numbers
                .iter()
                .find(|(a, _)| *a == agent)
                .map(|(_, n)| *n);
            let index = number.and_then(|n| {
                let turn = column.ui.current()?;
                column.ui.sidebar_items().iter().position(|item| {
                    matches!(item, SidebarItem::Source(i) if turn.attribution.sources.get(*i).is_some_and(|s| s.n == n && !s.consulted_only))
                })
            });
            column.ui.panes.sources.selected = index;
        }
    }

    /// Bring the first span of the selected merged source into view in every column that cites it
    /// (as `n` does in the app).
    fn jump_to_spans(&mut self) {
        for column in &mut self.columns {
            if column.ui.panes.sources.selected.is_some() {
                // Where the keys were stays: a question being typed goes on being typed.
                let focus = column.ui.focus;
                column.ui.panes.answer.focus_span = None;
                column.ui.update(Action::NextSpan);
                column.ui.focus = focus;
            }
        }
    }

    /// A follow-up the focused column just asked: to every other agent too, when they all get them.
    fn spread(&mut self, before: usize) {
        let focused = &mut self.columns[self.focus];
        if focused.ui.turns.len() <= before {
            return;
        }
        focused.asked_at = Instant::now();
        focused.first_text = None;
        if !self.to_all {
            return;
        }
        let Some(question) = focused.ui.turns.last().and_then(|t| t.question.clone()) else {
            return;
        };
        for (i, column) in self.columns.iter_mut().enumerate() {
            if i != self.focus {
                column.ask(question.clone());
            }
        }
    }
}

/// Where a comparison starts: a question to several agents, or saved sessions of one comparison.
pub enum Start {
    Ask(Vec<Provider>),
    /// Every session of a comparison (`open` of one of them), oldest first.
    Open(Vec<crate::local::store::SavedSession>),
}

/// An app for one column, in the comparison's theme, with the keys in force.
fn column_ui(theme: &crate::styled::theme::Theme, opts: &TuiOptions) -> Ui {
    let mut ui = Ui::new(AppConfig {
        mode: Mode::Demo,
        theme: theme.clone(),
        can_ask: true,
    });
    ui.comparison = true;
    ui.keys = opts.keys.clone();
    ui
}

/// Start the comparison: every agent asked the question, or every saved session of it reopened
/// (each ready for a follow-up on its own agent).
pub async fn start(opts: &TuiOptions, start: Start) -> eyre::Result<CompareScreen> {
    match start {
        Start::Ask(providers) => ask_all(opts, &providers).await,
        Start::Open(sessions) => open_all(opts, sessions).await,
    }
}

async fn open_all(
    opts: &TuiOptions,
    sessions: Vec<crate::local::store::SavedSession>,
) -> eyre::Result<CompareScreen> {
    // Sessions removed between listing and loading leave none: every column drawing assumes one.
    if sessions.is_empty() {
        eyre::bail!("cannot open the saved comparison: none of its sessions could be read");
    }
    let (theme, settings, _) = super::theme_and_settings(opts);
    let comparison_id = sessions
        .first()
        .and_then(|s| s.meta.comparison.clone())
        .unwrap_or_default();
    let question = sessions
        .first()
        .map(|s| s.meta.first_question().to_owned())
        .unwrap_or_default();
    let mut columns = Vec::new();
    for saved in sessions {
        let provider =
            <Provider as clap::ValueEnum>::from_str(&saved.meta.provider, true).unwrap_or_default();
        let mut ui = column_ui(&theme, opts);
        let mut conversation = Conversation::new(opts.store.clone(), settings);
        conversation.comparison = Some(comparison_id.clone());
        conversation
            .open(&mut ui, saved)
            .await
            .map_err(|why| eyre::eyre!(why))
            .wrap_err("cannot open the saved comparison")?;
        columns.push(Column::new(provider, ui, conversation));
    }
    Ok(CompareScreen::new(question, comparison_id, columns))
}

/// Start every agent (the demo agent for each, or the live ones) and ask them the question.
async fn ask_all(opts: &TuiOptions, providers: &[Provider]) -> eyre::Result<CompareScreen> {
    let (theme, settings, _) = super::theme_and_settings(opts);
    let comparison_id = crate::agent::rng::id("cmp");
    let question = opts
        .question
        .clone()
        .filter(|q| !q.trim().is_empty())
        .unwrap_or_else(|| crate::demo::COMPARISON_QUESTION.to_owned());
    let mut columns = Vec::new();
    for &provider in providers {
        let mut ui = column_ui(&theme, opts);
        let mut conversation = Conversation::new(opts.store.clone(), settings);
        conversation.comparison = Some(comparison_id.clone());
        let agent = match live_key(opts, provider) {
            Some((base_url, key)) if !opts.demo => {
                let config = LiveConfig {
                    base_url,
                    ..LiveConfig::new(provider, Some(key))
                };
                Agent::live(config, &settings)
            }
            _ => Agent::demo(provider, &settings, false)
                .await
                .wrap_err("cannot start the built-in demo agent")?,
        };
        conversation.set_agent(agent, &mut ui);
        columns.push(Column::new(provider, ui, conversation));
    }
    for column in &mut columns {
        column.ask(question.clone());
    }
    Ok(CompareScreen::new(question, comparison_id, columns))
}

/// The provider's key and base URL when it has a key (else the demo agent answers for it).
fn live_key(opts: &TuiOptions, provider: Provider) -> Option<(String, ApiKey)> {
    if opts.demo {
        return None;
    }
    let target = crate::local::config::live_target(provider, None).ok()?;
    Some((target.base_url, target.api_key?))
}

/// How a column's stream ended, as its header says it when the session never heard (a cancel
/// here, a cut, a failed connection): the header said `streaming` for ever after one.
fn ended(conn: &ConnState) -> Option<Status> {
    match conn {
        ConnState::Cancelled => Some(Status::Cancelled),
        ConnState::Cut(_) | ConnState::Stalled(_) => Some(Status::Incomplete),
        ConnState::Error(_) => Some(Status::Error),
        ConnState::Idle
        | ConnState::Connecting { .. }
        | ConnState::Retrying { .. }
        | ConnState::Streaming => None,
        ConnState::Complete => Some(Status::Complete),
    }
}

/// Run the comparison until the user quits.
pub(crate) async fn event_loop(
    terminal: &mut Term,
    screen: &mut CompareScreen,
) -> eyre::Result<()> {
    let mut events = EventStream::new();
    let (note_tx, mut note_rx) = tokio::sync::mpsc::unbounded_channel::<effects::Note>();
    let mut poll = tokio::time::interval(POLL);
    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    // The app's pacing: a key's change is drawn at once, the streams' at most once a frame.
    let mut pacing = Pacing::new(tokio::time::Instant::now());
    loop {
        if screen.columns.iter().any(|c| c.ui.quit) {
            break;
        }
        if pacing.due(tokio::time::Instant::now()) {
            match terminal.draw(|frame| view::draw(frame, screen)) {
                Ok(_) => {}
                // A closed terminal ends it, as in the app.
                Err(e) if super::terminal_gone(&e) => break,
                Err(e) => return Err(e).wrap_err("cannot draw on the terminal"),
            }
            pacing.drawn(tokio::time::Instant::now());
        }
        let draw_at = pacing.due_at();
        let streaming = screen.streaming();
        tokio::select! {
            biased;
            event = events.next() => match event {
                Some(Ok(event)) => pacing.input(on_event(event, screen, terminal, &note_tx).await),
                Some(Err(e)) if super::terminal_gone(&e) => break,
                Some(Err(e)) => return Err(e).wrap_err("cannot read the terminal's input"),
                None => break,
            },
            Some(note) = note_rx.recv() => {
                let column = &mut screen.columns[screen.focus];
                effects::note(note, &mut column.ui, terminal);
                pacing.changed();
            }
            _ = tokio::time::sleep_until(draw_at.unwrap_or_else(tokio::time::Instant::now)), if draw_at.is_some() => {}
            _ = poll.tick(), if streaming || screen.columns.iter().any(|c| c.ui.needs_tick()) => {
                screen.take_updates();
                pacing.changed();
            }
        }
    }
    for column in &mut screen.columns {
        column.conversation.finish(&mut column.ui);
    }
    Ok(())
}

/// A terminal event: a comparison key, else the focused column's (a follow-up it asks goes to
/// every agent when they all get them). The mouse is left alone: the columns share the screen.
/// The key is mapped once, by the focused column (its letters of a word being typed count once).
async fn on_event(
    event: Event,
    screen: &mut CompareScreen,
    terminal: &mut Term,
    notes: &tokio::sync::mpsc::UnboundedSender<effects::Note>,
) -> bool {
    let action = match event {
        Event::Mouse(_) => return false,
        event => effects::action_of(event, &mut screen.columns[screen.focus].ui),
    };
    let action = match action {
        effects::Asked::Action(Action::Comparison(k)) => {
            screen.key(k);
            return true;
        }
        effects::Asked::Action(action) => action,
        effects::Asked::Redraw => return true,
        effects::Asked::Nothing => return false,
    };
    // Ctrl-C would quit every agent, those still answering with the focused one that has ended.
    if matches!(action, Action::Interrupt) {
        // An answer that ended in updates not taken yet is not cancelled.
        screen.take_updates();
        if screen.columns[screen.focus].ui.interrupt_step() == InterruptStep::Quit {
            // The key disarms a letter pressed before it, as any key does in the column.
            screen.columns[screen.focus].ui.app.armed = None;
            if screen.cancel_the_others(terminal, notes).await {
                return true;
            }
        }
    }
    let before = screen.columns[screen.focus].ui.turns.len();
    let column = &mut screen.columns[screen.focus];
    let changed = effects::carry_out(
        action,
        &mut column.ui,
        &mut column.conversation,
        terminal,
        notes,
    )
    .await;
    screen.spread(before);
    screen.mark_answering();
    changed
}
