//! Replaying a recorded stream with its pacing, as a [`StreamHandle`] like any live stream.
//!
//! Each frame waits `delay_ms / speed` (no wait at [`Speed::Max`]) and goes through the provider's
//! [`EventPipeline`]; its events are sent as a [`StreamUpdate::Events`] before the next pause (frames
//! without a pause between them go together); the end is `Ended(Closed)`. A file is read as it plays
//! ([`replay_file`]). A saved turn whose arrival times were kept beside it
//! ([`crate::wire::arrivals`]) plays at the pace it arrived instead.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use tokio::io::AsyncReadExt;

use crate::agent::stream::{StreamUpdate, UpdateSender};

use crate::agent::client::StreamHandle;

use crate::model::event::AgentEvent;
use crate::model::stream_end::StreamEnd;
use crate::model::timeline::Timeline;
use crate::wire::arrivals::Arrivals;
use crate::wire::input::read_timeline;
use crate::wire::provider::{EventPipeline, Provider};
use crate::wire::recording::{Frame, FrameSplitter, parse_frames};

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
    StreamHandle::spawn(move |tx| async move {
        let Some(mut player) = Player::start(speed, provider, tx).await else {
            return;
        };
        for frame in frames {
            if !player.play(frame).await {
                return;
            }
        }
        player.finish().await;
    })
}

/// How much of a recording is read at a time: as much as one update carries ([`BATCH_BYTES`]).
/// Each read of a `tokio::fs::File` is handed to a blocking thread and back: at 64 KiB a 100 MB
/// recording replayed at full speed cost ~5,000 context switches, at 256 KiB ~2,100. More is no
/// faster and is held twice (here and in tokio's own buffer): the app's memory while it replays a
/// small stream grows by as much (`chart_bounds`).
const READ_AT_ONCE: usize = 256 << 10;

/// Play the recording at `path` like [`replay`], reading it as it plays: however large the file,
/// only the frame being played is in memory.
pub fn replay_file(
    path: &Path,
    speed: Speed,
    provider: impl Into<Option<Provider>>,
) -> std::io::Result<StreamHandle> {
    let provider = provider.into();
    let file = std::fs::File::open(path)?;
    // At `max` nothing waits for its time, so arrival times are not read at all: a saved flood
    // followed part by part (20,000 of them) cost 2.3× the CPU, each read a hand-off to a
    // blocking thread and back.
    if speed != Speed::Max
        && let Some(arrivals) = read_arrivals(path)
    {
        return Ok(replay_timed(file, arrivals, speed, provider));
    }
    let mut buffer = read_buffer(&file);
    Ok(StreamHandle::spawn(move |tx| async move {
        let mut file = tokio::fs::File::from_std(file);
        let Some(mut player) = Player::start(speed, provider, tx).await else {
            return;
        };
        // At `max` no frame waits for its pause, so the bytes go to the decoder as they are read
        // rather than cut into frames first (each frame a copy: ~10 % of a flood's replay).
        let mut splitter = (speed != Speed::Max).then(FrameSplitter::default);
        let mut frames = Vec::new();
        loop {
            let read = match file.read(&mut buffer).await {
                Ok(0) => break,
                Ok(read) => read,
                Err(e) => {
                    let reason = format!("the recording could not be read: {e}");
                    player.end(StreamEnd::Cut { reason }).await;
                    return;
                }
            };
            let Some(splitter) = &mut splitter else {
                if !player.feed_read(&buffer[..read]).await {
                    return;
                }
                continue;
            };
            splitter.push(&buffer[..read], &mut frames);
            for frame in frames.drain(..) {
                if !player.play(frame).await {
                    return;
                }
            }
        }
        if let Some(frame) = splitter.and_then(FrameSplitter::finish)
            && !player.play(frame).await
        {
            return;
        }
        player.finish().await;
    }))
}

/// The buffer a recording is read into: [`READ_AT_ONCE`], or less for a smaller file (tokio
/// holds as much again), so a short recording costs no more memory than it did.
fn read_buffer(file: &std::fs::File) -> Vec<u8> {
    // A pipe or an empty file (which may still grow) says nothing of its length.
    let known = file.metadata().ok().filter(|m| m.is_file() && m.len() > 0);
    let len = known.map_or(READ_AT_ONCE as u64, |m| m.len().min(READ_AT_ONCE as u64));
    vec![0u8; len as usize]
}

/// The largest sidecar of arrival times read back: the writer keeps ten million chunks under
/// 4 MiB, so a bigger file is not one it wrote, and only its first 8 MiB are read.
pub(crate) const MAX_TIMES_BYTES: u64 = 8 << 20;

/// The arrival times kept beside the raw stream file at `path` ([`crate::wire::arrivals`]), if
/// any: a regular file, not a link.
pub fn read_arrivals(path: &Path) -> Option<Arrivals> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut name = path.file_name()?.to_os_string();
    name.push(crate::wire::arrivals::SUFFIX);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path.with_file_name(name))
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = Vec::new();
    file.take(MAX_TIMES_BYTES).read_to_end(&mut text).ok()?;
    let arrivals = Arrivals::parse(&text);
    (!arrivals.is_empty()).then_some(arrivals)
}

/// The timeline of the saved turn at `path`, when its arrival times were kept beside it.
pub fn saved_timeline(path: &Path, provider: Option<Provider>) -> Option<Timeline> {
    let arrivals = read_arrivals(path)?;
    let file = std::fs::File::open(path).ok()?;
    read_timeline(std::io::BufReader::new(file), provider, &arrivals).ok()
}

/// A saved turn with its arrival times ([`Arrivals`]): each part of the file is fed when it
/// arrived, counted from the start of the replay (scaled by `speed`, never `max`, which
/// [`replay_file`] plays as it reads), read as it plays.
fn replay_timed(
    file: std::fs::File,
    arrivals: Arrivals,
    speed: Speed,
    provider: Option<Provider>,
) -> StreamHandle {
    let mut buffer = read_buffer(&file);
    StreamHandle::spawn(move |tx| async move {
        let mut file = tokio::fs::File::from_std(file);
        let Some(mut player) = Player::start(speed, provider, tx).await else {
            return;
        };
        let start = tokio::time::Instant::now();
        let mut at = 0u64;
        for (_, to, ms) in arrivals.parts() {
            let due = start + speed.delay(ms);
            if due > tokio::time::Instant::now() {
                if !player.flush().await {
                    return;
                }
                tokio::time::sleep_until(due).await;
            }
            // The timeline keeps the times the turn arrived at, not the playback's (scaled).
            if !player.arrived(ms).await {
                return;
            }
            loop {
                let room = to.map_or(buffer.len() as u64, |to| to.saturating_sub(at));
                let want = room.min(buffer.len() as u64) as usize;
                if want == 0 {
                    break;
                }
                let read = match file.read(&mut buffer[..want]).await {
                    Ok(0) => break,
                    Ok(read) => read,
                    Err(e) => {
                        let reason = format!("the recording could not be read: {e}");
                        player.end(StreamEnd::Cut { reason }).await;
                        return;
                    }
                };
                at += read as u64;
                if !player.feed_read(&buffer[..read]).await {
                    return;
                }
            }
        }
        player.finish().await;
    })
}

/// How much of what was read is decoded before the batch is checked for size: small enough that
/// an update of tiny events stays near [`BATCH_EVENTS`] (frames were checked one by one).
const FEED_AT_ONCE: usize = 16 << 10;

/// Frames without a pause between them are sent together up to this many events…
const BATCH_EVENTS: usize = 1024;
/// …or this many bytes of recording.
const BATCH_BYTES: usize = 256 * 1024;

/// Sends a recording's frames with their pacing through the provider's pipeline. Frames that follow
/// each other without a pause (all of them at [`Speed::Max`]) go out together, as one update, the
/// way a network chunk carries several events: far fewer wake-ups for the reader. A file followed
/// as it grows ([`crate::agent::tail`]) is fed the same way, as it arrives.
pub(super) struct Player {
    pipeline: EventPipeline,
    speed: Speed,
    tx: UpdateSender,
    /// Events decoded and not sent yet, and the bytes they came from.
    batch: Vec<AgentEvent>,
    batch_bytes: usize,
    /// The stream said it is over: a completion, an error or a cancel arrived.
    over: bool,
    /// The arrival time last sent ([`Player::arrived`]).
    arrived: Option<u64>,
}

impl Player {
    /// The stream is open (`None` when no one listens any more).
    pub(super) async fn start(
        speed: Speed,
        provider: Option<Provider>,
        tx: UpdateSender,
    ) -> Option<Player> {
        tx.send(StreamUpdate::Connected).await.ok()?;
        Some(Player {
            pipeline: EventPipeline::new(provider).skimming(),
            speed,
            tx,
            batch: Vec::new(),
            batch_bytes: 0,
            over: false,
            arrived: None,
        })
    }

    /// Wait the frame's pause (sending what is decoded first), then decode it. `false` when no one
    /// listens any more.
    async fn play(&mut self, frame: Frame) -> bool {
        let pause = self.speed.delay(frame.delay_ms);
        if !pause.is_zero() {
            if !self.flush().await {
                return false;
            }
            tokio::time::sleep(pause).await;
        }
        self.feed(&frame.bytes).await
    }

    /// Decode `bytes` (a line cut in two waits in the decoder for its end), sending the batch when
    /// it is full. `false` when no one listens any more.
    pub(super) async fn feed(&mut self, bytes: &[u8]) -> bool {
        let before = self.batch.len();
        // A decoder error (an overlong line) is local to that line; the rest still plays.
        let _ = self.pipeline.feed(bytes, &mut self.batch);
        self.over |= self.batch[before..].iter().any(|event| {
            matches!(
                event,
                AgentEvent::Complete { .. }
                    | AgentEvent::Error { .. }
                    | AgentEvent::Cancelled { .. }
            )
        });
        self.batch_bytes += bytes.len();
        (self.batch.len() < BATCH_EVENTS && self.batch_bytes < BATCH_BYTES) || self.flush().await
    }

    /// Decode `bytes` as read from a file ([`READ_AT_ONCE`] of them), a piece at a time, so
    /// updates stay the size a network chunk makes ([`BATCH_EVENTS`], [`BATCH_BYTES`]) however
    /// much is read at once. `false` when no one listens any more.
    async fn feed_read(&mut self, bytes: &[u8]) -> bool {
        for piece in bytes.chunks(FEED_AT_ONCE) {
            if !self.feed(piece).await {
                return false;
            }
        }
        true
    }

    /// The bytes fed next arrived `ms` after the request: what is decoded goes first, then the
    /// time, when it changed. `false` when no one listens any more.
    pub(super) async fn arrived(&mut self, ms: u64) -> bool {
        if self.arrived == Some(ms) {
            return true;
        }
        self.arrived = Some(ms);
        self.flush().await && self.tx.send(StreamUpdate::Arrived(Some(ms))).await.is_ok()
    }

    /// A completion, an error or a cancel was decoded: the stream has said all it will.
    pub(super) fn is_over(&self) -> bool {
        self.over
    }

    /// Send the decoded events, if any. `false` when no one listens any more.
    pub(super) async fn flush(&mut self) -> bool {
        if self.batch.is_empty() {
            return true;
        }
        let events = std::mem::take(&mut self.batch);
        self.batch_bytes = 0;
        self.tx.send(StreamUpdate::Events(events)).await.is_ok()
    }

    /// The recording is over: what the pipeline still holds, then the end.
    pub(super) async fn finish(mut self) {
        let _ = self.pipeline.finish(&mut self.batch);
        self.end(StreamEnd::Closed).await;
    }

    /// What is decoded, then `end`.
    pub(super) async fn end(mut self, end: StreamEnd) {
        if self.flush().await {
            let _ = self.tx.send(StreamUpdate::Ended(end)).await;
        }
    }
}

/// The provider the recording at `path` speaks, from the identifying events in its first MiB
/// (`None`: none identifies one).
pub fn provider_of(path: &Path) -> std::io::Result<Option<Provider>> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)?
        .take(1 << 20)
        .read_to_end(&mut head)?;
    let mut pipeline = EventPipeline::auto();
    let mut events = Vec::new();
    for chunk in head.chunks(64 * 1024) {
        let _ = pipeline.feed(chunk, &mut events);
        events.clear();
        if let Some(provider) = pipeline.provider() {
            return Ok(Some(provider));
        }
    }
    Ok(None)
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

    /// Every event a replay sends, in order, and how it ended.
    async fn played(mut handle: StreamHandle) -> (Vec<AgentEvent>, Option<StreamEnd>) {
        let (mut events, mut ended) = (Vec::new(), None);
        while let Some(update) = handle.updates.recv().await {
            match update {
                StreamUpdate::Events(batch) => events.extend(batch),
                StreamUpdate::Ended(end) => ended = Some(end),
                _ => {}
            }
        }
        (events, ended)
    }

    /// At `max` a recording goes to the decoder as read (256 KiB at a time), not frame by frame, and
    /// a saved turn's arrival times are not followed part by part: the events must be the same,
    /// for every recording shipped and for a stream of 3 MB whose events straddle every read and
    /// every piece decoded.
    #[tokio::test]
    async fn at_max_speed_a_recording_plays_the_same_events_as_frame_by_frame() {
        let dir = tempfile::tempdir().unwrap();
        let mut files: Vec<std::path::PathBuf> = glob_recordings();
        let flood = dir.path().join("flood.sse");
        let mut text = String::new();
        for n in 0..30_000 {
            let chunk = format!("word {n} ").repeat(n % 13 + 1);
            let event = serde_json::json!({"chat_id": "c", "message": {"type": "ANSWER", "content": chunk}});
            text.push_str(&format!(": delay=1\ndata: {event}\n\n"));
        }
        text.push_str("data: {\"chat_id\":\"c\",\"message\":{\"type\":\"COMPLETE\",\"checkpoint_id\":\"k\"}}\n\n");
        assert!(text.len() > 3 * READ_AT_ONCE);
        std::fs::write(&flood, &text).unwrap();
        files.push(flood);
        // A last frame without the blank line that ends it (the decoder's end completes it).
        let unended = dir.path().join("unended.sse");
        let answer = r#"data: {"chat_id":"c","message":{"type":"ANSWER","content":"Hi"}}"#;
        let complete = r#"data: {"chat_id":"c","message":{"type":"COMPLETE","checkpoint_id":"k"}}"#;
        std::fs::write(&unended, format!("{answer}\n\n{complete}")).unwrap();
        files.push(unended);
        let framed = Speed::Factor(1e12);
        for file in files {
            let name = file.display().to_string();
            let by_frames = played(replay_file(&file, framed, None).unwrap()).await;
            assert!(!by_frames.0.is_empty(), "{name}");
            let at_max = played(replay_file(&file, Speed::Max, None).unwrap()).await;
            assert!(at_max == by_frames, "{name} at max");
            // The same bytes saved with their arrival times, a part every 97 bytes.
            let saved = dir.path().join("turn-001.sse");
            std::fs::copy(&file, &saved).unwrap();
            let size = std::fs::metadata(&saved).unwrap().len();
            let mut times = String::from("# research-tui arrival times 1\nsent 1764120000123\n");
            for (ms, offset) in (0..size).step_by(97).enumerate() {
                times.push_str(&format!("{offset} {ms}\n"));
            }
            std::fs::write(dir.path().join("turn-001.sse.times"), times).unwrap();
            let timed = played(replay_file(&saved, framed, None).unwrap()).await;
            let timed_at_max = played(replay_file(&saved, Speed::Max, None).unwrap()).await;
            assert!(timed_at_max == timed, "{name} saved, at max");
            assert!(timed.0 == by_frames.0, "{name} saved");
        }
    }

    fn glob_recordings() -> Vec<std::path::PathBuf> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/recordings");
        let mut files: Vec<_> = std::fs::read_dir(root)
            .unwrap()
            .flat_map(|provider| std::fs::read_dir(provider.unwrap().path()).unwrap())
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "sse"))
            .collect();
        files.sort();
        assert!(files.len() >= 20, "{files:?}");
        files
    }
}
