//! The store's unit tests: sessions saved, listed, found, written by two writers, cut.

use super::*;
use crate::local::meta::read_meta;
use crate::model::event::AgentEvent;

const RAW: &[u8] = b"data: {\"chat_id\":\"c-9\",\"message\":{\"type\":\"ANSWER\",\"content\":\"Hi\"}}\n\ndata: {\"chat_id\":\"c-9\",\"message\":{\"type\":\"COMPLETE\",\"checkpoint_id\":\"ck-1\"}}\n\n";

/// The session `RAW` decodes to.
fn complete_session() -> Session {
    let mut session = Session::new();
    session.apply(AgentEvent::Conversation(
        crate::model::event::ConversationIds {
            chat_id: Some("c-9".into()),
            ..Default::default()
        },
    ));
    session.apply(AgentEvent::Complete {
        checkpoint_id: Some("ck-1".into()),
        consumption: vec![],
    });
    session
}

#[test]
fn a_session_keeps_raw_bytes_and_meta_and_replays_its_turns() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut saved = store
        .create("research-agent", "bigdata", "http://127.0.0.1:1")
        .unwrap();
    let writer = saved.begin_turn("What changed?", None).unwrap();
    let (mut turn, sink) = SavedTurn::new(saved, writer);
    sink.lock().unwrap().write_all(RAW).unwrap();
    turn.end(&complete_session(), &StreamEnd::Closed).unwrap();

    let listed = store.list();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].first_question(), "What changed?");
    assert_eq!(listed[0].last_checkpoint_id(), Some("ck-1"));
    assert_eq!(listed[0].status(), "complete");
    assert_eq!(listed[0].chat_id.as_deref(), Some("c-9"));

    let found = store.find(Some("ck-1"), None).unwrap();
    let turns = found.replay_turns();
    assert_eq!(turns[0].1.answer.as_str(), "Hi");
    assert_eq!(turns[0].1.checkpoint_id(), Some("ck-1"));
    assert!(store.find(None, Some("c-9")).is_some());
    assert!(store.find(Some("nope"), None).is_none());
}

#[test]
fn session_ids_cannot_escape_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    assert!(store.load("../etc").is_err());
    assert!(store.load("").is_err());
}

#[test]
fn sessions_list_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut a = store.create("research-agent", "bigdata", "x").unwrap();
    a.meta.updated_at = "2026-01-01T00:00:00Z".into();
    write_meta(a.dir(), &a.meta).unwrap();
    let b = store.create("research-agent", "bigdata", "x").unwrap();
    let ids: Vec<_> = store.list().into_iter().map(|m| m.id).collect();
    assert_eq!(ids, [b.meta.id.clone(), a.meta.id.clone()]);
}

#[test]
fn two_writers_of_one_session_keep_both_turns_in_files_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let created = store.create("research-agent", "bigdata", "x").unwrap();
    // Two handles on the same session, as two processes resuming it would hold.
    let mut first = store.load(&created.meta.id).unwrap();
    let mut second = store.load(&created.meta.id).unwrap();
    let (mut a, sink_a) = SavedTurn::new(first.clone(), first.begin_turn("A", None).unwrap());
    let (mut b, sink_b) = SavedTurn::new(second.clone(), second.begin_turn("B", None).unwrap());
    sink_a.lock().unwrap().write_all(RAW).unwrap();
    sink_b.lock().unwrap().write_all(RAW).unwrap();
    b.end(&complete_session(), &StreamEnd::Closed).unwrap();
    a.end(&Session::new(), &StreamEnd::Cancelled).unwrap();

    let meta = store.load(&created.meta.id).unwrap().meta;
    let turns: Vec<_> = meta
        .turns
        .iter()
        .map(|t| {
            (
                t.question.as_str(),
                t.stream_file.as_str(),
                t.status.as_str(),
            )
        })
        .collect();
    assert_eq!(
        turns,
        [
            ("A", "turn-001.sse", "cancelled"),
            ("B", "turn-002.sse", "complete")
        ]
    );
    for file in ["turn-001.sse", "turn-002.sse"] {
        assert_eq!(std::fs::read(created.dir().join(file)).unwrap(), RAW);
    }
    // No temp file is left behind.
    let names: Vec<String> = std::fs::read_dir(created.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_stream_that_could_not_be_saved_in_full_ends_as_an_error_and_reads_as_cut() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut saved = store.create("research-agent", "bigdata", "x").unwrap();
    let mut writer = saved.begin_turn("Q", None).unwrap();
    // The disk fills up under the turn's file.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    writer.file = Arc::new(Mutex::new(TurnFile::new(full)));
    let (mut turn, sink) = SavedTurn::new(saved, writer);
    assert!(sink.lock().unwrap().write_all(RAW).is_err());
    let error = turn
        .end(&complete_session(), &StreamEnd::Closed)
        .unwrap_err();
    assert!(
        error.to_string().contains("could not be saved in full"),
        "{error}"
    );
    let saved_turn = &store.list()[0].turns[0];
    assert_eq!(saved_turn.status, TurnStatus::Cut);
    assert!(
        saved_turn
            .reason
            .as_deref()
            .unwrap()
            .contains("No space left"),
        "{saved_turn:?}"
    );
}

#[test]
fn a_turn_whose_writer_died_reads_as_cut_and_the_next_writer_saves_it_so() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut saved = store.create("research-agent", "bigdata", "x").unwrap();
    let id = saved.meta.id.clone();
    let (turn, _sink) = SavedTurn::new(saved.clone(), saved.begin_turn("Q", None).unwrap());
    // Its writer lives: streaming.
    assert_eq!(store.list()[0].status(), "streaming");
    // Its writer goes away without saving the end (as a killed process does).
    drop(turn);
    let listed = &store.list()[0].turns[0];
    assert_eq!(listed.status, TurnStatus::Cut);
    assert!(listed.reason.as_deref().unwrap().starts_with("interrupted"));
    assert_eq!(
        store.load(&id).unwrap().meta.turns[0].status,
        TurnStatus::Cut
    );
    // Only read so far; the next change to the session writes it down.
    assert!(read_meta(saved.dir()).unwrap().turns[0].status == TurnStatus::Streaming);
    let mut other = store.load(&id).unwrap();
    let _next = other.begin_turn("Q2", None).unwrap();
    let on_disk = read_meta(saved.dir()).unwrap();
    assert_eq!(on_disk.turns[0].status, TurnStatus::Cut);
    assert_eq!(on_disk.turns[1].status, TurnStatus::Streaming);
}

#[test]
fn an_end_saved_with_an_explanation_keeps_its_status_and_reason_with_the_request() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut saved = store.create("responses", "openai", "x").unwrap();
    let request = serde_json::json!({"method": "POST", "path": "/v1/responses"});
    let writer = saved
        .begin_recorded_turn("Q", None, Some(request.clone()))
        .unwrap();
    let (mut turn, _sink) = SavedTurn::new(saved, writer);
    let end = StreamEnd::Http {
        status: 429,
        message: "rate limited".into(),
    };
    let explained = Some((TurnStatus::HttpError, end.describe()));
    turn.end_explained(&Session::new(), &end, explained)
        .unwrap();
    let saved_turn = &store.list()[0].turns[0];
    assert_eq!(saved_turn.status, TurnStatus::HttpError);
    assert_eq!(saved_turn.reason.as_deref(), Some("HTTP 429: rate limited"));
    assert_eq!(saved_turn.request.as_ref(), Some(&request));
}
