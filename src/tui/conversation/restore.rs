//! A saved session's turns rebuilt for the app from their raw stream files: how each ended (as
//! saved, or as the store knows better), how long it took, and what it continued.

use std::time::Duration;

use crate::local::store::{SavedSession, TurnStatus};

use crate::local::meta::TurnMeta;
use crate::local::timestamp::unix_seconds;
use crate::model::session::Session;
use crate::tui::state::{ConnState, Continuation, Turn};

/// Every turn of `saved`, rebuilt from its raw stream file, with the status it was saved with.
pub fn restore_turns(saved: &SavedSession) -> Vec<Turn> {
    restore_first_turns(saved, saved.meta.turns.len())
}

/// The first `n` turns of `saved`, as [`restore_turns`] rebuilds them.
pub(super) fn restore_first_turns(saved: &SavedSession, n: usize) -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::with_capacity(n);
    for meta in saved.meta.turns.iter().take(n) {
        let turn = restore_turn(saved, meta, &turns);
        turns.push(turn);
    }
    turns
}

/// Saved turn `meta` of `saved`, following `earlier`, rebuilt from its raw stream file.
pub(super) fn restore_turn(saved: &SavedSession, meta: &TurnMeta, earlier: &[Turn]) -> Turn {
    let session = saved.replay_turn(meta);
    let conn = saved_conn(meta, &session);
    let elapsed = turn_duration(meta).unwrap_or_default();
    let request = saved_request(saved, meta, earlier);
    let mut turn = Turn::restored(meta.question.clone(), session, conn, elapsed, request);
    turn.saved_index = Some(earlier.len());
    turn.unreadable_request = meta.unreadable_request();
    // When its arrival times were kept beside it, how the turn unfolded.
    turn.raw = saved.stream_path(meta);
    turn.timeline = turn
        .raw
        .as_ref()
        .and_then(|path| crate::agent::replay::saved_timeline(path, Some(saved.provider())));
    turn
}

/// What saved turn `meta`, following `earlier`, continued.
pub(super) fn saved_request(
    saved: &SavedSession,
    meta: &TurnMeta,
    earlier: &[Turn],
) -> Continuation {
    // The turn it continued: the one whose checkpoint it was sent with, else the one before.
    let from_turn = match &meta.from_checkpoint_id {
        Some(checkpoint) => earlier
            .iter()
            .rposition(|t| t.checkpoint_id() == Some(checkpoint.as_str())),
        None => earlier.len().checked_sub(1),
    };
    Continuation {
        chat_id: saved.meta.chat_id.clone(),
        checkpoint_id: meta.from_checkpoint_id.clone(),
        from_turn,
    }
}

/// How a saved turn ended, as the app shows it.
pub(super) fn saved_conn(meta: &TurnMeta, session: &Session) -> ConnState {
    if let Some(reason) = &meta.reason {
        // What the store knows better than the status word: its writer died, or it is saved in part.
        return ConnState::Cut(reason.clone());
    }
    match &meta.status {
        TurnStatus::Complete => ConnState::Complete,
        TurnStatus::Error => ConnState::Error(
            session
                .error
                .clone()
                .unwrap_or_else(|| "the agent reported an error".into()),
        ),
        TurnStatus::HttpError => ConnState::Error("the agent answered with an HTTP error".into()),
        TurnStatus::ConnectError => ConnState::Error("could not connect to the agent".into()),
        TurnStatus::Cut => ConnState::Cut("the connection was cut before completion".into()),
        TurnStatus::Stalled => ConnState::Stalled(0),
        TurnStatus::Cancelled => ConnState::Cancelled,
        TurnStatus::Incomplete => ConnState::Cut("the stream closed before completion".into()),
        // The store marks a turn whose writer died as cut: this one is still being written.
        TurnStatus::Streaming => ConnState::Cut(
            "still streaming in another process: this is what had arrived when it was opened"
                .into(),
        ),
        TurnStatus::Other(other) => ConnState::Cut(format!("saved as {other}")),
    }
}

/// From `started_at` to `ended_at`.
fn turn_duration(meta: &TurnMeta) -> Option<Duration> {
    let start = unix_seconds(&meta.started_at)?;
    let end = unix_seconds(meta.ended_at.as_deref()?)?;
    Some(Duration::from_secs(end.checked_sub(start)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_timestamps_give_the_turn_duration() {
        assert_eq!(unix_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(unix_seconds("2026-11-23T02:06:15Z"), Some(1_795_399_575));
        assert_eq!(unix_seconds("2000-02-29T00:00:00Z"), Some(951_782_400));
        let meta = TurnMeta {
            question: "q".into(),
            started_at: "2026-11-23T02:06:15Z".into(),
            ended_at: Some("2026-11-23T02:07:00Z".into()),
            from_checkpoint_id: None,
            checkpoint_id: None,
            status: TurnStatus::Complete,
            stream_file: "turn-001.sse".into(),
            reason: None,
            request: None,
            not_saved: None,
        };
        assert_eq!(turn_duration(&meta), Some(Duration::from_secs(45)));
    }
}
