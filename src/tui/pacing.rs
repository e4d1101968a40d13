//! When the event loop draws ([`Pacing`]): stream updates are coalesced into at most one frame per
//! [`FRAME`], but what a key (or the mouse, a paste, a resize) changed is drawn at once, so a key
//! is answered as fast while an answer floods in as when the app is idle.
//!
//! Keys that come together (typed fast, or several in one read) still share a frame, exactly as
//! when idle: a key's frame is drawn at once only when no frame was drawn for a key in the last
//! [`FRAME`]; the keys after it wait for the next frame. So the facts the frames hand back
//! ([`FrameFacts`](super::screen::FrameFacts)), which some keys read, are the same whether a stream
//! runs or not. (A frame after every key of a burst drew letters typed together one by one, and a
//! key sent after the screen changed could then be sent while the burst was still being drawn.)
//!
//! Once a frame's worth of answer text has come in a flood, the loop lays it out at once (prepares
//! the panes) rather than in the frame 16 ms later: a key pressed in between then gets a frame
//! that has no text left to lay out, and the paced frame only draws what was prepared
//! ([`Pacing::prepared`]).

use std::time::Duration;

use tokio::time::Instant;

/// At most one frame per this long for stream updates (and for keys that come together).
pub const FRAME: Duration = Duration::from_millis(16);

/// Answer text taken in between two frames: the next frame lays it out, which must stay quick, so
/// more waits for that frame (the stream task waits meanwhile: see `agent::stream::BACKLOG`).
pub const TEXT_PER_FRAME: usize = 1024 * 1024;

/// What the screen owes and when it is due.
#[derive(Debug, Clone)]
pub struct Pacing {
    /// Something changed since the last frame.
    dirty: bool,
    /// Input changed something since the last frame.
    input: bool,
    last_draw: Instant,
    /// The last frame that showed what input changed.
    last_input_frame: Instant,
    /// Answer bytes taken in since the last frame.
    text_since_draw: usize,
    /// The panes were prepared since the last change (the next frame need only draw them).
    prepared: bool,
}

impl Pacing {
    /// A first frame is due at once.
    pub fn new(now: Instant) -> Pacing {
        let long_ago = now.checked_sub(FRAME).unwrap_or(now);
        Pacing {
            dirty: true,
            input: false,
            last_draw: long_ago,
            last_input_frame: long_ago,
            text_since_draw: 0,
            prepared: false,
        }
    }

    /// Something other than input changed the screen (a stream update, a tick, a note).
    pub fn changed(&mut self) {
        self.dirty = true;
        self.prepared = false;
    }

    /// Input was handled; `changed`: it changed the screen.
    pub fn input(&mut self, changed: bool) {
        self.dirty |= changed;
        self.input |= changed;
        self.prepared &= !changed;
    }

    /// Stream updates carrying `bytes` of answer text were applied.
    pub fn took_text(&mut self, bytes: usize) {
        self.text_since_draw += bytes;
        self.changed();
    }

    /// Lay the panes out now, ahead of their frame: a frame's worth of stream text came and no
    /// input changed anything since the last frame (keys read the panes as the last frame left
    /// them, as when idle).
    pub fn prepare_early(&self) -> bool {
        !self.take_updates() && !self.input && !self.prepared
    }

    /// The panes were prepared for the next frame.
    pub fn set_prepared(&mut self) {
        self.prepared = true;
    }

    /// Nothing changed since the panes were prepared: the frame need only draw them.
    pub fn prepared(&self) -> bool {
        self.prepared
    }

    /// Answer bytes taken in since the last frame.
    pub fn text_since_draw(&self) -> usize {
        self.text_since_draw
    }

    /// More stream updates may be applied before the next frame.
    pub fn take_updates(&self) -> bool {
        self.text_since_draw < TEXT_PER_FRAME
    }

    /// When the next frame is due; `None` when nothing changed.
    pub fn due_at(&self) -> Option<Instant> {
        if !self.dirty {
            return None;
        }
        let paced = self.last_draw + FRAME;
        Some(match self.input {
            true => paced.min(self.last_input_frame + FRAME),
            false => paced,
        })
    }

    /// A frame is due at `now`.
    pub fn due(&self, now: Instant) -> bool {
        self.due_at().is_some_and(|at| now >= at)
    }

    /// A frame was drawn at `now`.
    pub fn drawn(&mut self, now: Instant) {
        if self.input {
            self.last_input_frame = now;
        }
        self.last_draw = now;
        self.dirty = false;
        self.input = false;
        self.text_since_draw = 0;
        self.prepared = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// A pacing whose last frame, drawn for the stream, was at `start`.
    fn streaming(start: Instant) -> Pacing {
        let mut pacing = Pacing::new(start);
        pacing.drawn(start);
        pacing
    }

    #[tokio::test(start_paused = true)]
    async fn a_key_pressed_just_after_a_stream_frame_is_drawn_at_once() {
        let start = Instant::now();
        let mut pacing = streaming(start);
        pacing.took_text(1024);
        assert_eq!(pacing.due_at(), Some(start + FRAME), "the stream waits");
        tokio::time::advance(3 * MS).await;
        pacing.input(true);
        assert!(pacing.due(Instant::now()), "the key does not");
    }

    #[tokio::test(start_paused = true)]
    async fn keys_that_come_together_share_a_frame_whether_a_stream_runs_or_not() {
        for stream in [false, true] {
            let start = Instant::now();
            let mut pacing = Pacing::new(start);
            if stream {
                pacing.drawn(start);
                pacing.took_text(1024);
                tokio::time::advance(5 * MS).await;
            }
            // The first key's frame at once…
            pacing.input(true);
            let first = Instant::now();
            assert!(pacing.due(first), "stream: {stream}");
            pacing.drawn(first);
            // …the keys right behind it in one frame, FRAME after it, as when idle.
            tokio::time::advance(2 * MS).await;
            pacing.input(true);
            pacing.input(true);
            assert!(!pacing.due(Instant::now()), "stream: {stream}");
            assert_eq!(pacing.due_at(), Some(first + FRAME), "stream: {stream}");
            tokio::time::advance(FRAME).await;
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_frame_s_worth_of_text_is_laid_out_early_unless_a_key_came_and_any_change_undoes_it()
    {
        let start = Instant::now();
        let mut pacing = streaming(start);
        pacing.took_text(1024);
        assert!(!pacing.prepare_early(), "a frame's worth has not come");
        pacing.took_text(TEXT_PER_FRAME);
        assert!(pacing.prepare_early());
        pacing.set_prepared();
        assert!(pacing.prepared() && !pacing.prepare_early());
        pacing.input(false);
        assert!(pacing.prepared(), "a key that changed nothing");
        pacing.input(true);
        assert!(!pacing.prepared());
        assert!(!pacing.prepare_early(), "a key came: its frame prepares");
        pacing.drawn(Instant::now());
        pacing.took_text(TEXT_PER_FRAME);
        pacing.set_prepared();
        pacing.changed();
        assert!(!pacing.prepared(), "a tick or a note");
    }

    #[tokio::test(start_paused = true)]
    async fn a_key_that_changes_nothing_draws_nothing() {
        let start = Instant::now();
        let mut pacing = streaming(start);
        pacing.input(false);
        assert_eq!(pacing.due_at(), None);
    }

    #[tokio::test(start_paused = true)]
    async fn updates_wait_for_the_frame_once_a_frame_s_worth_of_text_came() {
        let start = Instant::now();
        let mut pacing = streaming(start);
        pacing.took_text(TEXT_PER_FRAME - 1);
        assert!(pacing.take_updates());
        pacing.took_text(1);
        assert!(!pacing.take_updates());
        tokio::time::advance(FRAME).await;
        pacing.drawn(Instant::now());
        assert!(pacing.take_updates());
    }
}
