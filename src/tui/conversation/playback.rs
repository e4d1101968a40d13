//! `open ID --speed F`: a saved session played turn by turn at the pace its bytes arrived (the
//! arrival times kept beside each turn, [`crate::wire::arrivals`]), then ready for a follow-up
//! like any opened session. Turns without times play at once; cancelling (Ctrl-C) rebuilds the
//! turns not played yet at once, so the session is whole either way.

use std::collections::VecDeque;

use crate::agent::replay::{Speed, replay_file};
use crate::agent::turn::TurnDriver;
use crate::local::store::{SavedSession, TurnStatus};

use super::restore::{restore_turn, saved_request};
use super::{Continuation, Conversation, Severity, Ui};

/// The saved turns still to play, and how fast.
#[derive(Debug, Default)]
pub(super) struct Queue {
    turns: VecDeque<usize>,
    speed: Option<Speed>,
}

impl Conversation {
    /// Replace the conversation with `saved`, played at its recorded pace scaled by `speed`. A
    /// session whose last turn still streams in another process is opened (and followed) instead.
    pub async fn play_saved(
        &mut self,
        app: &mut Ui,
        saved: SavedSession,
        speed: Speed,
    ) -> Result<(), String> {
        let live = saved
            .meta
            .turns
            .last()
            .is_some_and(|t| t.status == TurnStatus::Streaming);
        if live {
            return self.open(app, saved).await;
        }
        if self.is_streaming() || app.in_progress() {
            return Err("a stream is running — Ctrl-C to cancel it first".into());
        }
        let warning = self.agent_for(app, &saved).await?;
        let n = saved.meta.turns.len();
        app.load_turns(Vec::new(), Some(saved.meta.id.clone()));
        app.resume = Continuation {
            chat_id: saved.meta.chat_id.clone(),
            ..Continuation::default()
        };
        self.playback = Queue {
            turns: (0..n).collect(),
            speed: Some(speed),
        };
        self.saved = Some(saved);
        self.play_next(app);
        let message = warning.unwrap_or_else(|| {
            format!(
                "playing a saved session ({n} turn{}) at its recorded pace — Ctrl-C shows it all",
                if n == 1 { "" } else { "s" }
            )
        });
        app.set_message(message, Severity::Info);
        Ok(())
    }

    /// Start the next saved turn waiting to be played. `false` when none is left.
    pub(super) fn play_next(&mut self, app: &mut Ui) -> bool {
        let Some(speed) = self.playback.speed else {
            return false;
        };
        while let Some(index) = self.playback.turns.pop_front() {
            let Some(saved) = &self.saved else {
                break;
            };
            let Some(meta) = saved.meta.turns.get(index) else {
                continue;
            };
            let path = saved.stream_path(meta);
            let handle = path
                .as_ref()
                .and_then(|path| replay_file(path, speed, saved.provider()).ok());
            let Some(handle) = handle else {
                // Its file cannot be read: rebuilt (as far as it goes) like `open` does.
                let turn = restore_turn(saved, meta, &app.turns);
                app.add_turn(turn);
                continue;
            };
            let request = saved_request(saved, meta, &app.turns);
            app.begin_turn_with(Some(meta.question.clone()), request);
            if let Some(turn) = app.turns.last_mut() {
                turn.saved_index = Some(index);
                turn.raw = path;
            }
            self.attach(app, TurnDriver::start(Vec::new(), None, |_| handle));
            return true;
        }
        self.playback = Queue::default();
        false
    }

    /// The playback was cancelled: the turns not played yet, rebuilt at once.
    pub(super) fn play_rest_at_once(&mut self, app: &mut Ui) {
        let rest = std::mem::take(&mut self.playback);
        let Some(saved) = &self.saved else {
            return;
        };
        for index in rest.turns {
            if let Some(meta) = saved.meta.turns.get(index) {
                let turn = restore_turn(saved, meta, &app.turns);
                app.add_turn(turn);
            }
        }
    }
}
