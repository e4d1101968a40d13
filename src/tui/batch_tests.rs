//! The event loop's batches of stream updates: a key waiting stops a batch at once, so it is read
//! (and its frame drawn) before more of a flood is taken in.

use std::time::Duration;

use super::conversation::{Conversation, Settings};
use super::state::{AppConfig, Mode};
use super::ui::Ui;
use super::{Batch, apply_batch};
use crate::agent::replay::{Speed, replay_file};

/// A Bigdata.com answer of `chunks` answer events of 1 KB each, then COMPLETE.
fn flood(chunks: usize) -> Vec<u8> {
    let text = "word ".repeat(200);
    let mut out = Vec::new();
    for _ in 0..chunks {
        out.extend_from_slice(
            format!(
                "data: {{\"chat_id\":\"c\",\"message\":{{\"type\":\"ANSWER\",\"content\":\"{text}\"}}}}\n\n"
            )
            .as_bytes(),
        );
    }
    out.extend_from_slice(
        b"data: {\"chat_id\":\"c\",\"message\":{\"type\":\"COMPLETE\",\"checkpoint_id\":\"k\"}}\n\n",
    );
    out
}

#[tokio::test]
async fn a_key_waiting_stops_a_batch_of_flood_updates_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flood.sse");
    // 2 MB: 32 updates of 64 KiB, more than the batches below take.
    std::fs::write(&path, flood(2_000)).unwrap();
    let mut app = Ui::new(AppConfig {
        mode: Mode::Replay,
        theme: Default::default(),
        can_ask: false,
    });
    let mut conversation = Conversation::new(None, Settings::default());
    conversation.play(&mut app, replay_file(&path, Speed::Max, None).unwrap());
    // The stream task reads ahead of the app (up to 64 updates) while the test waits.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let first = conversation.next_update().await;
    let batch = apply_batch(&mut app, &mut conversation, first, 0, || true);
    assert_eq!(batch.updates, 1, "a key already waiting: {batch:?}");

    let next = conversation.next_update().await;
    let mut asked = 0;
    let key_after_three = || {
        asked += 1;
        asked == 3
    };
    let batch: Batch = apply_batch(&mut app, &mut conversation, next, 0, key_after_three);
    assert_eq!(batch.updates, 3, "a key came during the third: {batch:?}");
    assert!(batch.text > 0, "{batch:?}");
    assert!(
        app.turns[0]
            .session
            .answer
            .as_str()
            .starts_with("word word")
    );
}
