//! Replaying a recorded stream with its pacing, as a [`StreamHandle`] like any live stream.
//!
//! Each frame waits `delay_ms / speed` (no wait at [`Speed::Max`]), goes through the provider's
//! [`EventPipeline`] and is sent as one [`StreamUpdate::Events`]; the end is `Ended(Closed)`.

use std::str::FromStr;
use std::time::Duration;

use crate::agent::stream::{StreamEnd, StreamHandle, StreamUpdate};
use crate::wire::provider::{EventPipeline, Provider};
use crate::wire::recording::{Frame, parse_frames};

/// How fast to play a recording back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Speed {
    /// Multiply the recorded pace (2.0 = twice as fast).
    Factor(f64),
    /// No pauses at all.
    Max,
}

impl Default for Speed {
    fn default() -> Self {
        Speed::Factor(1.0)
    }
}

/// The longest pause between two frames, whatever the speed factor.
const MAX_PAUSE: Duration = Duration::from_secs(3600);

impl Speed {
    /// The pause before a frame recorded with `delay_ms`.
    pub fn delay(self, delay_ms: u64) -> Duration {
        match self {
            Speed::Max => Duration::ZERO,
            // A tiny factor would overflow a Duration: such a pause is simply "forever" (capped).
            Speed::Factor(f) => Duration::try_from_secs_f64(delay_ms as f64 / 1000.0 / f)
                .unwrap_or(MAX_PAUSE)
                .min(MAX_PAUSE),
        }
    }
}

impl FromStr for Speed {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("max") {
            return Ok(Speed::Max);
        }
        match s.trim_end_matches(['x', 'X']).parse::<f64>() {
            Ok(f) if f.is_finite() && f > 0.0 => Ok(Speed::Factor(f)),
            _ => Err(format!(
                "`{s}` is not a speed: use a positive factor (0.5, 2, 10) or `max`"
            )),
        }
    }
}

/// Play `recording` (SSE text with optional `: delay=MS` comments) in a background task.
/// `provider` is a [`Provider`], or `None` to detect it from the first events.
pub fn replay(
    recording: &[u8],
    speed: Speed,
    provider: impl Into<Option<Provider>>,
) -> StreamHandle {
    let provider = provider.into();
    let frames = parse_frames(recording);
    StreamHandle::spawn(move |tx| play(frames, speed, provider, tx))
}

async fn play(
    frames: Vec<Frame>,
    speed: Speed,
    provider: Option<Provider>,
    tx: tokio::sync::mpsc::UnboundedSender<StreamUpdate>,
) {
    let mut pipeline = EventPipeline::new(provider);
    if tx.send(StreamUpdate::Connected).is_err() {
        return;
    }
    for frame in frames {
        let pause = speed.delay(frame.delay_ms);
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
        let mut events = Vec::new();
        // A decoder error (an overlong line) is local to that line; the rest still plays.
        let _ = pipeline.feed(&frame.bytes, &mut events);
        if !events.is_empty() && tx.send(StreamUpdate::Events(events)).is_err() {
            return;
        }
        if matches!(speed, Speed::Max) {
            tokio::task::yield_now().await;
        }
    }
    let mut events = Vec::new();
    let _ = pipeline.finish(&mut events);
    if !events.is_empty() {
        let _ = tx.send(StreamUpdate::Events(events));
    }
    let _ = tx.send(StreamUpdate::Ended(StreamEnd::Closed));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiny_speed_factor_caps_the_pause_instead_of_overflowing() {
        let speed: Speed = "1e-300".parse().unwrap();
        assert_eq!(speed.delay(500), MAX_PAUSE);
        assert_eq!(
            "2".parse::<Speed>().unwrap().delay(500),
            Duration::from_millis(250)
        );
    }
    use crate::model::session::Session;

    #[test]
    fn speeds_parse() {
        assert_eq!("max".parse::<Speed>(), Ok(Speed::Max));
        assert_eq!("2".parse::<Speed>(), Ok(Speed::Factor(2.0)));
        assert_eq!("0.5x".parse::<Speed>(), Ok(Speed::Factor(0.5)));
        assert!("0".parse::<Speed>().is_err());
        assert!("fast".parse::<Speed>().is_err());
        assert_eq!(Speed::Factor(2.0).delay(100), Duration::from_millis(50));
    }

    #[tokio::test]
    async fn replay_delivers_every_event_then_closes() {
        let text = b": delay=5\ndata: {\"chat_id\":\"c\",\"message\":{\"type\":\"ANSWER\",\"content\":\"Hi\"}}\n\n\
data: {\"chat_id\":\"c\",\"message\":{\"type\":\"COMPLETE\",\"checkpoint_id\":\"k\"}}\n\n";
        let mut handle = replay(text, Speed::Max, None);
        let mut session = Session::new();
        let mut ended = None;
        while let Some(update) = handle.updates.recv().await {
            match update {
                StreamUpdate::Events(events) => session.apply_all(events),
                StreamUpdate::Ended(end) => ended = Some(end),
                _ => {}
            }
        }
        assert_eq!(ended, Some(StreamEnd::Closed));
        assert_eq!(session.answer.as_str(), "Hi");
        assert_eq!(session.checkpoint_id(), Some("k"));
    }
}
