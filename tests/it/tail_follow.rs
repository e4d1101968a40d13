//! Following a turn file another writer appends to ([`tail_file`]): what it yields equals what the
//! whole file decodes to, however the appends cut the stream (mid-line included), and it ends when
//! the writer is gone.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use research_tui::agent::stream::StreamUpdate;

use research_tui::agent::tail::tail_file;
use research_tui::model::event::AgentEvent;
use research_tui::model::stream_end::StreamEnd;
use research_tui::wire::provider::{EventPipeline, Provider};

const RECORDING: &str = "assets/recordings/bigdata/earnings-deep-dive.sse";

/// Every event the whole file decodes to, at once.
fn events_of_the_whole(bytes: &[u8]) -> Vec<AgentEvent> {
    let mut pipeline = EventPipeline::new(Provider::Bigdata);
    let mut events = Vec::new();
    pipeline.feed(bytes, &mut events).unwrap();
    pipeline.finish(&mut events).unwrap();
    events
}

/// Follow `path` until it ends: every event, and how it ended.
async fn follow(
    path: std::path::PathBuf,
    writing: Arc<AtomicBool>,
) -> (Vec<AgentEvent>, StreamEnd) {
    let mut handle = tail_file(&path, Some(Provider::Bigdata), move || {
        writing.load(Ordering::SeqCst)
    })
    .unwrap();
    let mut events = Vec::new();
    loop {
        let update = tokio::time::timeout(Duration::from_secs(20), handle.updates.recv())
            .await
            .expect("the follow ends")
            .expect("the follow says how it ended");
        match update {
            StreamUpdate::Events(batch) => events.extend(batch),
            StreamUpdate::Ended(end) => return (events, end),
            _ => {}
        }
    }
}

#[tokio::test]
async fn a_file_appended_in_pieces_yields_the_events_of_the_whole_file() {
    let bytes = std::fs::read(RECORDING).unwrap();
    // Without its completion, so the follow ends only when the writer is gone.
    let complete = bytes
        .windows(b"\"COMPLETE\"".len())
        .position(|w| w == b"\"COMPLETE\"")
        .unwrap();
    let frame_start = bytes[..complete]
        .windows(2)
        .rposition(|w| w == b"\n\n")
        .unwrap()
        + 2;
    let stream = bytes[..frame_start].to_vec();
    let whole = events_of_the_whole(&stream);
    assert!(whole.len() > 20, "a real stream: {} events", whole.len());

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("turn-001.sse");
    let mut file = std::fs::File::create(&path).unwrap();
    // Part of it is there before the follow starts; the rest arrives in pieces of 777 bytes, which
    // cut lines (and multi-byte characters) anywhere.
    let (first, rest) = stream.split_at(stream.len() / 3);
    file.write_all(first).unwrap();
    let writing = Arc::new(AtomicBool::new(true));
    let follower = tokio::spawn(follow(path.clone(), writing.clone()));
    let pieces: Vec<Vec<u8>> = rest.chunks(777).map(<[u8]>::to_vec).collect();
    let split_lines = pieces
        .iter()
        .filter(|piece| !piece.ends_with(b"\n"))
        .count();
    assert!(split_lines > 5, "appends cut lines in two");
    let writer = writing.clone();
    tokio::task::spawn_blocking(move || {
        for piece in pieces {
            file.write_all(&piece).unwrap();
            file.flush().unwrap();
            std::thread::sleep(Duration::from_millis(3));
        }
        writer.store(false, Ordering::SeqCst);
    })
    .await
    .unwrap();
    let (events, end) = follower.await.unwrap();
    assert_eq!(end, StreamEnd::Closed);
    assert_eq!(events, whole, "the same events as the whole file, in order");
}

#[tokio::test]
async fn a_completion_ends_the_follow_while_the_writer_still_holds_the_turn() {
    let bytes = std::fs::read(RECORDING).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("turn-001.sse");
    std::fs::write(&path, &bytes).unwrap();
    let (events, end) = follow(path, Arc::new(AtomicBool::new(true))).await;
    assert_eq!(end, StreamEnd::Closed);
    assert_eq!(events, events_of_the_whole(&bytes));
}

#[tokio::test]
async fn an_append_is_seen_as_it_lands_not_at_the_next_poll() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("turn-001.sse");
    let mut file = std::fs::File::create(&path).unwrap();
    let mut handle = tail_file(&path, Some(Provider::Bigdata), || true).unwrap();
    assert_eq!(handle.updates.recv().await, Some(StreamUpdate::Connected));
    let mut slowest = Duration::ZERO;
    for n in 0..5 {
        // Past the follower's first look, so only a change notification wakes it before the poll.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let line = format!(
            "data: {{\"chat_id\":\"c\",\"message\":{{\"type\":\"ANSWER\",\"content\":\"{n}\"}}}}\n\n"
        );
        let written = std::time::Instant::now();
        file.write_all(line.as_bytes()).unwrap();
        loop {
            match handle.updates.recv().await.unwrap() {
                StreamUpdate::Events(events) if !events.is_empty() => break,
                _ => {}
            }
        }
        slowest = slowest.max(written.elapsed());
    }
    assert!(
        slowest < research_tui::agent::tail::POLL / 2,
        "an append took {slowest:?} to arrive"
    );
}
