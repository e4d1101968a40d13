//! A saved session opened while another writer streams it, without a terminal: the app's
//! conversation follows the live turn from its file, shows turns the writer starts later, tells a
//! writer that died from one that finished, and continues the session with a follow-up of its own.
//! The other writer is the store's own turn writer on separate handles, as another process holds
//! them (its turn lock is a lock of its own).

use std::time::Duration;

use research_tui::agent::client::RawSink;
use research_tui::agent::turn::TurnRecorder;
use research_tui::local::store::{SavedTurn, SessionStore, TurnStatus};
use research_tui::model::session::Session;
use research_tui::model::stream_end::StreamEnd;
use research_tui::styled::theme::Theme;
use research_tui::tui::conversation::{Conversation, Settings};

use research_tui::tui::state::{Action, AppConfig, ConnState, Effect, Mode};
use research_tui::tui::ui::Ui;
use research_tui::wire::provider::Provider;

const EARNINGS: &str = "assets/recordings/bigdata/earnings-deep-dive.sse";
const FOLLOW_UP: &str = "assets/recordings/bigdata/follow-up.sse";

fn app() -> Ui {
    Ui::new(AppConfig {
        mode: Mode::Demo,
        theme: Theme::default(),
        can_ask: true,
    })
}

fn conversation(store: &SessionStore) -> Conversation {
    let settings = Settings {
        demo_speed: 1000.0,
        ..Settings::default()
    };
    Conversation::new(Some(store.clone()), settings)
}

/// What the whole recording at `path` decodes to.
fn session_of(path: &str) -> Session {
    let file = std::fs::File::open(path).unwrap();
    research_tui::wire::input::read_session(file, Provider::Bigdata)
        .unwrap()
        .0
}

/// A turn of session `id` begun by another writer: the turn, and where its bytes go.
fn begin_elsewhere(store: &SessionStore, id: &str, question: &str) -> (SavedTurn, RawSink) {
    let mut saved = store.load(id).unwrap();
    let writer = saved.begin_turn(question, None).unwrap();
    SavedTurn::new(saved, writer)
}

/// Let the conversation act on what arrives until `done` holds.
async fn run_until(app: &mut Ui, conversation: &mut Conversation, done: impl Fn(&Ui) -> bool) {
    tokio::time::timeout(Duration::from_secs(20), async {
        while !done(app) {
            let incoming = conversation.next_incoming(true).await;
            conversation.on_change(app, incoming).await;
        }
    })
    .await
    .expect("it happens in time");
}

#[tokio::test]
async fn a_live_session_is_followed_to_its_end_then_a_follow_up_continues_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let id = store
        .create("research-agent", "bigdata", "http://127.0.0.1:9")
        .unwrap()
        .meta
        .id;
    let (mut writer, sink) = begin_elsewhere(&store, &id, "What did NVIDIA report?");
    let bytes = std::fs::read(EARNINGS).unwrap();
    let (first, rest) = bytes.split_at(bytes.len() / 2);
    sink.lock().unwrap().write_all(first).unwrap();

    let mut app = app();
    let mut conversation = conversation(&store);
    conversation.open_id(&mut app, &id).await.unwrap();
    assert!(app.watching && conversation.is_streaming());
    assert_eq!(app.turns.len(), 1);
    assert_eq!(
        app.turns[0].question.as_deref(),
        Some("What did NVIDIA report?")
    );
    run_until(&mut app, &mut conversation, |app| {
        !app.turns[0].session.answer.as_str().is_empty()
    })
    .await;
    assert!(app.turns[0].conn.in_progress(), "still live");

    sink.lock().unwrap().write_all(rest).unwrap();
    let whole = session_of(EARNINGS);
    writer.end(&whole, &StreamEnd::Closed).unwrap();
    run_until(&mut app, &mut conversation, |app| !app.watching).await;
    assert!(!conversation.is_streaming());
    assert_eq!(app.turns[0].conn, ConnState::Complete);
    assert_eq!(app.turns[0].session.answer.as_str(), whole.answer.as_str());
    assert_eq!(app.turns[0].checkpoint_id(), whole.checkpoint_id());

    // A follow-up of the app's own, from the watched turn's checkpoint, into the same session.
    let cont = app.continuation();
    assert_eq!(cont.checkpoint_id.as_deref(), whole.checkpoint_id());
    assert!(conversation.ask(&mut app, "Any risks?".into(), cont));
    conversation.run_stream(&mut app).await;
    assert_eq!(
        app.turns[1].conn,
        ConnState::Complete,
        "{:?}",
        app.turns[1].conn
    );
    let meta = store.load(&id).unwrap().meta;
    assert_eq!(meta.turns.len(), 2);
    assert_eq!(meta.turns[1].question, "Any risks?");
    assert_eq!(
        meta.turns[1].from_checkpoint_id.as_deref(),
        whole.checkpoint_id()
    );
    assert_eq!(meta.turns[1].status, TurnStatus::Complete);
}

#[tokio::test]
async fn a_turn_another_writer_starts_while_the_session_is_open_appears_as_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let id = store
        .create("research-agent", "bigdata", "http://127.0.0.1:9")
        .unwrap()
        .meta
        .id;
    let (mut writer, sink) = begin_elsewhere(&store, &id, "What did NVIDIA report?");
    sink.lock()
        .unwrap()
        .write_all(&std::fs::read(EARNINGS).unwrap())
        .unwrap();
    writer
        .end(&session_of(EARNINGS), &StreamEnd::Closed)
        .unwrap();

    let mut app = app();
    let mut conversation = conversation(&store);
    conversation.open_id(&mut app, &id).await.unwrap();
    assert!(!app.watching, "nothing streams yet");

    let (mut next, sink) = begin_elsewhere(&store, &id, "And the guidance?");
    run_until(&mut app, &mut conversation, |app| app.turns.len() == 2).await;
    assert_eq!(app.turns[1].question.as_deref(), Some("And the guidance?"));
    assert!(app.watching);
    sink.lock()
        .unwrap()
        .write_all(&std::fs::read(FOLLOW_UP).unwrap())
        .unwrap();
    next.end(&session_of(FOLLOW_UP), &StreamEnd::Closed)
        .unwrap();
    run_until(&mut app, &mut conversation, |app| !app.watching).await;
    assert_eq!(app.turns[1].conn, ConnState::Complete);
    assert_eq!(
        app.turns[1].session.answer.as_str(),
        session_of(FOLLOW_UP).answer.as_str()
    );
}

#[tokio::test]
async fn a_writer_that_dies_mid_turn_leaves_the_turn_cut_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let id = store
        .create("research-agent", "bigdata", "http://127.0.0.1:9")
        .unwrap()
        .meta
        .id;
    let (writer, sink) = begin_elsewhere(&store, &id, "What did NVIDIA report?");
    let bytes = std::fs::read(EARNINGS).unwrap();
    sink.lock()
        .unwrap()
        .write_all(&bytes[..bytes.len() / 2])
        .unwrap();

    let mut app = app();
    let mut conversation = conversation(&store);
    conversation.open_id(&mut app, &id).await.unwrap();
    assert!(app.watching);
    // Gone without saving the end, as a killed process is: its turn lock is let go.
    drop((writer, sink));
    run_until(&mut app, &mut conversation, |app| !app.watching).await;
    match &app.turns[0].conn {
        ConnState::Cut(reason) => assert!(reason.starts_with("interrupted"), "{reason}"),
        other => panic!("cut expected, not {other:?}"),
    }
    assert!(
        !app.turns[0].session.answer.as_str().is_empty(),
        "what arrived is kept"
    );
}

/// A new session whose first turn another writer is streaming.
fn start_elsewhere(store: &SessionStore, question: &str) -> (String, SavedTurn, RawSink) {
    let id = store
        .create("research-agent", "bigdata", "http://127.0.0.1:9")
        .unwrap()
        .meta
        .id;
    let (turn, sink) = begin_elsewhere(store, &id, question);
    (id, turn, sink)
}

#[tokio::test]
async fn watch_follow_waits_opens_each_new_session_and_never_takes_a_question_being_typed() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut app = app();
    let mut conversation = conversation(&store);
    conversation.watch_sessions(&mut app, true).await;
    assert_eq!(app.mode, Mode::Watch);
    assert!(app.turns.is_empty());
    // A question typed while waiting has nothing to follow up: it stays in the prompt.
    app.panes.prompt.editor.insert_str("What changed?");
    assert_eq!(app.update(Action::Submit), None);
    assert_eq!(
        app.message.as_ref().map(|(text, _)| text.as_str()),
        Some("no session to follow up yet")
    );

    let (first, _a, _sink_a) = start_elsewhere(&store, "First?");
    run_until(&mut app, &mut conversation, |app| {
        app.session_id.as_deref() == Some(first.as_str())
    })
    .await;
    assert!(app.watching);
    assert_eq!(app.turns[0].question.as_deref(), Some("First?"));
    assert_eq!(
        app.panes.prompt.editor.lines(),
        ["What changed?"],
        "kept across the opening"
    );
    app.reset_prompt();

    // Half a question typed: a new session is announced, not opened over it.
    app.panes.prompt.editor.insert_str("And what ab");
    let (_second, _b, _sink_b) = start_elsewhere(&store, "Second?");
    run_until(&mut app, &mut conversation, |app| {
        app.message
            .as_ref()
            .is_some_and(|(text, _)| text.contains("another session started: Second?"))
    })
    .await;
    assert_eq!(app.session_id.as_deref(), Some(first.as_str()));
    assert_eq!(app.panes.prompt.editor.lines(), ["And what ab"]);

    app.reset_prompt();
    let (third, _c, _sink_c) = start_elsewhere(&store, "Third?");
    run_until(&mut app, &mut conversation, |app| {
        app.session_id.as_deref() == Some(third.as_str())
    })
    .await;
    assert_eq!(app.turns.len(), 1);
    assert_eq!(app.turns[0].question.as_deref(), Some("Third?"));
    assert!(app.watching);
    assert!(
        app.message
            .as_ref()
            .is_some_and(|(text, _)| text == "a new session started: Third?"),
        "{:?}",
        app.message
    );
}

#[tokio::test]
async fn while_watching_a_question_waits_ctrl_c_stops_following_and_q_quits_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let (id, _writer, sink) = start_elsewhere(&store, "What did NVIDIA report?");
    let bytes = std::fs::read(EARNINGS).unwrap();
    sink.lock()
        .unwrap()
        .write_all(&bytes[..bytes.len() / 2])
        .unwrap();
    let mut app = app();
    let mut conversation = conversation(&store);
    conversation.open_id(&mut app, &id).await.unwrap();
    assert!(app.watching);

    let cont = app.continuation();
    assert!(!conversation.ask(&mut app, "Too early?".into(), cont));
    assert_eq!(
        app.message.as_ref().map(|(text, _)| text.as_str()),
        Some(research_tui::tui::state::app::STILL_WATCHING)
    );
    assert_eq!(app.turns.len(), 1);

    // Ctrl-C stops following here; the writer goes on.
    assert_eq!(app.update(Action::Interrupt), Some(Effect::Cancel));
    conversation.cancelled(&mut app);
    assert!(!app.watching && !conversation.is_streaming());
    match &app.turns[0].conn {
        ConnState::Cut(reason) => assert!(reason.contains("no longer followed here"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        store.load(&id).unwrap().meta.turns[0].status,
        TurnStatus::Streaming
    );

    // Watching again (the session opened anew), `q` quits at once: nothing here is lost.
    conversation.open_id(&mut app, &id).await.unwrap();
    assert!(app.watching);
    assert_eq!(app.update(Action::Quit), Some(Effect::Quit));
    assert!(app.quit);
}

/// `watch` before any session started: the prompt says there is nothing to follow up yet, instead
/// of inviting a question Enter cannot send (it said "i types a question" and "Enter send").
#[tokio::test]
async fn waiting_to_watch_the_prompt_says_there_is_nothing_to_follow_up_yet() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut app = app();
    let mut conversation = conversation(&store);
    conversation.watch_sessions(&mut app, true).await;
    for (width, height, said) in [
        (140, 42, "nothing to follow up until a session starts"),
        (80, 24, "nothing to follow up until a session starts"),
    ] {
        app.update(Action::Escape);
        let screen = crate::support::draw(&mut app, width, height)
            .backend()
            .to_string();
        assert!(screen.contains(said), "{width}: {screen}");
        assert!(!screen.contains("types a question"), "{width}: {screen}");
        app.update(Action::Focus(research_tui::tui::state::Focus::Prompt));
        let screen = crate::support::draw(&mut app, width, height)
            .backend()
            .to_string();
        assert!(!screen.contains("Enter send"), "{width}: {screen}");
        assert!(
            screen.contains("Nothing to follow up until a session starts"),
            "{width}: {screen}"
        );
    }
}
