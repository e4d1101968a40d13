//! One question and its answer ([`Turn`]): the session its stream builds, the citations resolved from
//! it, how the stream is doing ([`ConnState`]), what the request continued ([`Continuation`]), and the
//! sources sidebar's entries ([`SidebarItem`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::agent::stream::StreamUpdate;

use crate::model::citations::Attribution;
use crate::model::event::AgentEvent;
use crate::model::pending::{Change, LiveResolver};
use crate::model::session::Session;
use crate::model::stream_end::StreamEnd;
use crate::model::timeline::Timeline;
use crate::styled::text::Annotations;

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
    pub conn: ConnState,
    pub started: Instant,
    pub ended: Option<Instant>,
    /// Sidebar entries in display order (rebuilt with the attribution).
    pub sidebar: Vec<SidebarItem>,
    /// Bumped whenever `sidebar` is rebuilt.
    pub sidebar_version: u64,
    /// What the request that started this turn continued (`r` sends the same again).
    pub request: Continuation,
    /// The turn's index in the saved session, when it is saved.
    pub saved_index: Option<usize>,
    /// Saved by the recording proxy from a request research-tui could not read: its question is
    /// unknown (shown as a placeholder, never asked again).
    pub unreadable_request: bool,
    /// When the next try starts (while `Retrying`).
    pub retry_at: Option<Instant>,
    /// This turn asks turn `n`'s question again (`r`).
    pub retry_of: Option<usize>,
    /// When each phase happened, from the times events reached the app (`None`: a saved turn
    /// whose arrival times were not kept).
    pub timeline: Option<Timeline>,
    /// Where the turn's raw bytes are (a saved turn's file, a replayed recording): the timeline's
    /// raw events are read from it.
    pub raw: Option<std::path::PathBuf>,
    /// When the events that come next arrived, when their writer said ([`StreamUpdate::Arrived`]):
    /// a turn followed in another process's file is timed from its request, not from when the
    /// following began.
    arrival_ms: Option<u64>,
    /// Keeps `attribution` up to date as events arrive, with work only for what changed.
    resolver: LiveResolver,
    /// Unique among the turns of this run: caches on the screen's side know a turn by it (an index
    /// is reused when a saved session replaces the conversation).
    pub id: u64,
}

/// The next [`Turn::id`].
static NEXT_TURN_ID: AtomicU64 = AtomicU64::new(0);

impl Turn {
    /// The question's lines as the answer pane shows them (and the search counts them): as typed,
    /// trimmed, each cleaned of control characters and bidi marks; a placeholder for one the proxy
    /// could not read.
    pub fn shown_question(&self) -> Option<Vec<String>> {
        let question = match self.unreadable_request {
            true => crate::local::meta::UNKNOWN_QUESTION,
            false => self.question.as_deref()?.trim(),
        };
        Some(question.lines().map(crate::styled::text::clean).collect())
    }

    pub fn new(question: Option<String>) -> Turn {
        Turn {
            question,
            session: Session::new(),
            attribution: Attribution::default(),
            ann: Annotations::default(),
            markers_version: 0,
            generation: 0,
            conn: ConnState::Connecting { attempt: 1 },
            started: Instant::now(),
            ended: None,
            sidebar: Vec::new(),
            sidebar_version: 0,
            request: Continuation::default(),
            saved_index: None,
            unreadable_request: false,
            retry_at: None,
            retry_of: None,
            timeline: Some(Timeline::new()),
            raw: None,
            arrival_ms: None,
            resolver: LiveResolver::new(),
            id: NEXT_TURN_ID.fetch_add(1, Ordering::Relaxed),
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
            timeline: None,
            ..Turn::new(Some(question))
        };
        turn.refresh_attribution();
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

    /// Apply events and bring the attribution up to date.
    pub fn apply_events(&mut self, events: Vec<AgentEvent>) {
        let ms = self.arrival_ms.unwrap_or_else(|| self.ms_now());
        self.apply_events_at(events, ms);
    }

    /// Milliseconds since the turn started (its request was sent).
    pub fn ms_now(&self) -> u64 {
        u64::try_from(self.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// [`Turn::apply_events`], the events having arrived `ms` after the request.
    pub fn apply_events_at(&mut self, events: Vec<AgentEvent>, ms: u64) {
        if let Some(timeline) = &mut self.timeline {
            for event in &events {
                timeline.push(ms, event);
            }
        }
        for event in events {
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
        self.refresh_attribution();
    }

    /// How many times the whole citation resolution ran for this turn (once it finished, or when
    /// the answer or its references were replaced; never per chunk).
    pub fn full_resolutions(&self) -> usize {
        self.resolver.rebuilds()
    }

    /// Bring the citations, the sidebar and the answer's markers up to date with the session: only
    /// what arrived since the last call is looked at (see [`LiveResolver`]).
    fn refresh_attribution(&mut self) {
        let finished = self.session.is_finished() || !self.conn.in_progress();
        match self
            .resolver
            .update(&mut self.attribution, &self.session, finished)
        {
            Change::Unchanged => {}
            Change::Rebuilt => {
                self.sidebar = sidebar_of(&self.attribution);
                self.sidebar_version += 1;
                let ann = Annotations {
                    markers: self.attribution.markers(),
                    hidden: self.attribution.marker_spans(),
                };
                if ann != self.ann {
                    self.ann = ann;
                    self.markers_version += 1;
                }
            }
            Change::Grew {
                added,
                shifted,
                sources,
            } => {
                let citations = &self.attribution.citations;
                let tools = added.iter().any(|&i| citations[i].source.is_none())
                    || (shifted
                        && self
                            .sidebar
                            .iter()
                            .any(|s| matches!(s, SidebarItem::Tool(_))));
                if sources || tools {
                    self.sidebar = sidebar_of(&self.attribution);
                    self.sidebar_version += 1;
                }
                let mut changed = false;
                for &i in &added {
                    if let Some(n) = citations[i].source {
                        changed |= add_marker(&mut self.ann.markers, citations[i].bytes.end, n);
                    }
                }
                if added.iter().any(|&i| citations[i].marker) {
                    let hidden = self.attribution.marker_spans();
                    changed |= hidden != self.ann.hidden;
                    self.ann.hidden = hidden;
                }
                if changed {
                    self.markers_version += 1;
                }
            }
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
            let ms = self.arrival_ms.unwrap_or_else(|| self.ms_now());
            if let Some(timeline) = &mut self.timeline {
                // Never before the last arrival it knows (events given their own times).
                timeline.finish(ms.max(timeline.last_ms.unwrap_or(0)));
            }
        }
        self.refresh_attribution();
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
            StreamUpdate::Arrived(ms) => self.arrival_ms = ms,
            StreamUpdate::Ended(end) => self.end(end),
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.ended.unwrap_or_else(Instant::now) - self.started
    }
}

/// Add source `n`'s marker at byte `pos` to `markers` (sorted by position, numbers ascending without
/// repeats, as [`Attribution::markers`] makes them). Whether it was new.
fn add_marker(markers: &mut Vec<(usize, Vec<usize>)>, pos: usize, n: usize) -> bool {
    let at = markers.partition_point(|(p, _)| *p < pos);
    match markers.get_mut(at) {
        Some((p, numbers)) if *p == pos => match numbers.binary_search(&n) {
            Ok(_) => false,
            Err(i) => {
                numbers.insert(i, n);
                true
            }
        },
        _ => {
            markers.insert(at, (pos, vec![n]));
            true
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::{Reference, SourceDoc};

    fn delta(text: &str) -> AgentEvent {
        AgentEvent::AnswerDelta {
            message_id: None,
            text: text.into(),
        }
    }

    /// `count` references to 7 sources, every 10 code points, the last 3 of every 5 tool-level.
    fn references(count: u64, marker: bool) -> Vec<Reference> {
        (0..count)
            .map(|i| Reference {
                start: Some(i * 10),
                end: Some(i * 10 + 4 + i % 3),
                source: (i % 5 < 3).then(|| SourceDoc {
                    id: Some(format!("doc-{}", i % 7)),
                    ..SourceDoc::default()
                }),
                marker,
                ..Reference::default()
            })
            .collect()
    }

    #[test]
    fn references_sent_before_their_text_are_resolved_without_resolving_everything_per_chunk() {
        let mut turn = Turn::new(Some("q".into()));
        turn.apply_update(StreamUpdate::Connected);
        // Sent before the text they cite, out of order: all pending.
        let mut refs = references(300, false);
        refs.reverse();
        turn.apply_events(vec![AgentEvent::Grounding(refs)]);
        assert_eq!(turn.attribution.pending_references, 300);
        for _ in 0..1000 {
            turn.apply_events(vec![delta("abc")]);
        }
        assert_eq!(turn.attribution.pending_references, 0);
        assert_eq!(
            turn.full_resolutions(),
            0,
            "3,000 chunks with references pending, no full resolution"
        );
        // What the answer pane and the sidebar show is what a full resolve gives.
        let full = Attribution::resolve(&turn.session, false);
        assert_eq!(turn.attribution, full);
        assert_eq!(turn.ann.markers, full.markers());
        assert_eq!(turn.sidebar, sidebar_of(&full));
        turn.end(StreamEnd::Closed);
        assert_eq!(turn.full_resolutions(), 1, "once, at the end");
    }

    #[test]
    fn provider_markers_that_arrive_with_their_text_are_hidden_as_they_come() {
        let mut turn = Turn::new(None);
        turn.apply_update(StreamUpdate::Connected);
        for (i, reference) in references(50, true).into_iter().enumerate() {
            turn.apply_events(vec![delta("0123456789")]);
            if i % 2 == 0 {
                turn.apply_events(vec![AgentEvent::Grounding(vec![reference])]);
            }
        }
        let full = Attribution::resolve(&turn.session, false);
        assert_eq!(turn.ann.markers, full.markers());
        assert_eq!(turn.ann.hidden, full.marker_spans());
        assert_eq!(turn.sidebar, sidebar_of(&full));
    }
}
