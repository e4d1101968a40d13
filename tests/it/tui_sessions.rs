//! The interactive app's conversation against the in-process demo agent at high speed, without a
//! terminal: the app's own update loop ([`Conversation`] carrying out the app's effects), checking
//! what is saved on disk, opening it again, branching and retrying.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use research_tui::local::store::SessionStore;
use research_tui::styled::theme::Theme;
use research_tui::tui::conversation::{Agent, Conversation, Settings};

use research_tui::tui::state::{AppConfig, ConnState, Effect, Focus, Mode};
use research_tui::tui::ui::Ui;
use research_tui::wire::provider::Provider;
use serde_json::Value;

fn settings(fault: Option<research_tui::demo::Fault>) -> Settings {
    Settings {
        demo_speed: 1000.0,
        demo_fault: fault,
        ..Settings::default()
    }
}

fn app() -> Ui {
    Ui::new(AppConfig {
        mode: Mode::Demo,
        theme: Theme::default(),
        can_ask: true,
    })
}

/// A conversation saving into `store`, answered by a fresh demo agent for `provider`.
async fn conversation(
    store: &SessionStore,
    provider: Provider,
    fault: Option<research_tui::demo::Fault>,
    app: &mut Ui,
) -> Conversation {
    let settings = settings(fault);
    let mut conversation = Conversation::new(Some(store.clone()), settings);
    let agent = Agent::demo(provider, &settings, false).await.unwrap();
    conversation.set_agent(agent, app);
    conversation
}

/// Press a key the way the event loop does: key → action → effect → the conversation carries it out.
async fn press(app: &mut Ui, conversation: &mut Conversation, code: KeyCode) {
    let Some(action) = app.handle_key(KeyEvent::new(code, KeyModifiers::NONE)) else {
        return;
    };
    match app.update(action) {
        Some(Effect::Ask(question)) => {
            let cont = app.continuation();
            assert!(conversation.ask(app, question, cont));
        }
        Some(Effect::Retry(index)) => assert!(conversation.retry(app, index)),
        Some(Effect::OpenSession(id)) => conversation.open_id(app, &id).await.unwrap(),
        Some(Effect::ListSessions) => {
            let list = conversation.list();
            app.show_sessions(list);
        }
        Some(Effect::Cancel) => conversation.cancelled(app),
        _ => {}
    }
}

async fn type_and_send(app: &mut Ui, conversation: &mut Conversation, text: &str) {
    if app.focus != Focus::Prompt {
        press(app, conversation, KeyCode::Char('i')).await;
    }
    for c in text.chars() {
        press(app, conversation, KeyCode::Char(c)).await;
    }
    press(app, conversation, KeyCode::Enter).await;
    conversation.run_stream(app).await;
}

/// The request bodies the demo agent behind `conversation` received.
async fn requests(conversation: &Conversation) -> Vec<Value> {
    let base = &conversation.agent().unwrap().config.base_url;
    crate::support::http()
        .get(format!("{base}/_demo/requests"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_tui_conversation_is_saved_turn_by_turn_with_its_meta() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut app = app();
    let mut conversation = conversation(&store, Provider::Bigdata, None, &mut app).await;

    let first = research_tui::agent::live::demo_question(Provider::Bigdata).to_owned();
    let cont = app.continuation();
    assert!(conversation.ask(&mut app, first.clone(), cont));
    conversation.run_stream(&mut app).await;
    assert_eq!(app.turns[0].conn, ConnState::Complete);
    type_and_send(&mut app, &mut conversation, "And AMD?").await;
    assert_eq!(app.turns[1].conn, ConnState::Complete);

    let sessions = store.list();
    assert_eq!(sessions.len(), 1, "one session for the whole conversation");
    let meta = &sessions[0];
    assert_eq!(app.session_id.as_deref(), Some(meta.id.as_str()));
    assert_eq!(meta.provider, "bigdata");
    assert_eq!(meta.endpoint, "research-agent");
    assert!(meta.base_url.starts_with("http://127.0.0.1:"), "{meta:?}");
    assert_eq!(meta.chat_id, app.turns[0].session.ids.chat_id);
    assert_eq!(meta.turns.len(), 2);
    assert_eq!(meta.turns[0].question, first);
    assert_eq!(meta.turns[1].question, "And AMD?");
    assert_eq!(meta.turns[0].from_checkpoint_id, None);
    // The follow-up continued from the first turn's checkpoint, in the same chat.
    assert_eq!(
        meta.turns[1].from_checkpoint_id.as_deref(),
        app.turns[0].checkpoint_id()
    );
    for (turn, saved) in app.turns.iter().zip(&meta.turns) {
        assert_eq!(saved.status, "complete");
        assert_eq!(saved.checkpoint_id.as_deref(), turn.checkpoint_id());
        assert!(saved.ended_at.is_some());
    }
    let bodies = requests(&conversation).await;
    assert_eq!(bodies[0]["body"].get("chat_id"), None, "a new conversation");
    assert_eq!(
        bodies[1]["body"]["chat_id"].as_str(),
        app.turns[0].session.ids.chat_id.as_deref()
    );
    assert_eq!(
        bodies[1]["body"]["from_checkpoint_id"].as_str(),
        app.turns[0].checkpoint_id()
    );

    // The raw files replay to exactly what the app showed.
    let saved = store.load(&meta.id).unwrap();
    let replayed = saved.replay_turns();
    for (turn, (_, session)) in app.turns.iter().zip(&replayed) {
        assert_eq!(session.answer.as_str(), turn.session.answer.as_str());
    }
}

#[tokio::test]
async fn an_opened_session_shows_every_turn_at_once_and_continues_on_a_fresh_demo_agent() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let id = {
        let mut app = app();
        let mut conversation = conversation(&store, Provider::Bigdata, None, &mut app).await;
        type_and_send(&mut app, &mut conversation, "What did NVIDIA report?").await;
        type_and_send(&mut app, &mut conversation, "And AMD?").await;
        app.session_id.clone().unwrap()
    };

    // A new app: nothing streams, every turn is there, ready for a follow-up.
    let mut app = app();
    let mut conversation = Conversation::new(Some(store.clone()), settings(None));
    conversation.open_id(&mut app, &id).await.unwrap();
    assert!(!conversation.is_streaming() && !app.stream_running);
    assert_eq!(app.turns.len(), 2);
    assert!(app.turns.iter().all(|t| t.conn == ConnState::Complete));
    assert_eq!(
        app.turns[1].question.as_deref(),
        Some("And AMD?"),
        "questions as saved"
    );
    assert!(!app.turns[1].session.answer.as_str().is_empty());
    assert_eq!(app.focus, Focus::Prompt);
    assert_eq!(app.mode, Mode::Demo);
    let next = app.continuation();
    assert_eq!(next.checkpoint_id.as_deref(), app.turns[1].checkpoint_id());
    assert_eq!(next.chat_id, app.turns[1].session.ids.chat_id);

    // The fresh demo agent never issued that checkpoint, and still answers the follow-up.
    type_and_send(&mut app, &mut conversation, "Any risks?").await;
    assert_eq!(app.turns[2].conn, ConnState::Complete, "{:?}", app.turns[2]);
    let meta = store.load(&id).unwrap().meta;
    assert_eq!(meta.turns.len(), 3, "later turns go into the same session");
    assert_eq!(
        meta.turns[2].from_checkpoint_id.as_deref(),
        app.turns[1].checkpoint_id()
    );

    // `s` lists the sessions; Enter opens one in place.
    press(&mut app, &mut conversation, KeyCode::Esc).await;
    press(&mut app, &mut conversation, KeyCode::Char('s')).await;
    assert!(app.popup.is_some());
    press(&mut app, &mut conversation, KeyCode::Enter).await;
    assert_eq!(app.turns.len(), 3);
    assert_eq!(app.session_id.as_deref(), Some(id.as_str()));
}

#[tokio::test]
async fn a_branch_continues_from_the_selected_turns_checkpoint_in_the_same_chat() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut app = app();
    let mut conversation = conversation(&store, Provider::Bigdata, None, &mut app).await;
    type_and_send(&mut app, &mut conversation, "What did NVIDIA report?").await;
    type_and_send(&mut app, &mut conversation, "And AMD?").await;
    press(&mut app, &mut conversation, KeyCode::Esc).await;
    press(&mut app, &mut conversation, KeyCode::Char('[')).await;
    assert_eq!(app.branch_from(), Some(0));
    type_and_send(&mut app, &mut conversation, "Margins instead?").await;
    assert_eq!(app.turns.len(), 3);
    assert_eq!(app.turns[2].request.from_turn, Some(0));
    let bodies = requests(&conversation).await;
    let branch = &bodies[2]["body"];
    assert_eq!(
        branch["from_checkpoint_id"].as_str(),
        app.turns[0].checkpoint_id()
    );
    assert_eq!(
        branch["chat_id"].as_str(),
        app.turns[0].session.ids.chat_id.as_deref()
    );
    assert_ne!(app.turns[0].checkpoint_id(), app.turns[1].checkpoint_id());
    let meta = store.load(app.session_id.as_deref().unwrap()).unwrap().meta;
    assert_eq!(
        meta.turns[2].from_checkpoint_id.as_deref(),
        app.turns[0].checkpoint_id()
    );
    // Reopened, the branch still knows where it came from.
    let turns = research_tui::tui::conversation::restore_turns(&store.load(&meta.id).unwrap());
    assert_eq!(turns[2].request.from_turn, Some(0));
}

#[tokio::test]
async fn a_zeta_branch_sends_only_the_history_on_its_way() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut app = app();
    let mut conversation = conversation(&store, Provider::Zeta, None, &mut app).await;
    type_and_send(&mut app, &mut conversation, "RAG for long documents?").await;
    type_and_send(&mut app, &mut conversation, "And for PDFs?").await;
    press(&mut app, &mut conversation, KeyCode::Esc).await;
    press(&mut app, &mut conversation, KeyCode::Char('[')).await;
    type_and_send(&mut app, &mut conversation, "What about tables?").await;
    let bodies = requests(&conversation).await;
    let senders = |i: usize| -> Vec<String> {
        bodies[i]["body"]["conversation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                m["content"]
                    .as_str()
                    .unwrap_or("")
                    .chars()
                    .take(16)
                    .collect()
            })
            .collect()
    };
    assert_eq!(senders(1).len(), 3, "question, answer, follow-up");
    let branch = senders(2);
    assert_eq!(branch.len(), 3, "turn 2 is not on the branch: {branch:?}");
    assert_eq!(branch[0], "RAG for long doc");
    assert_eq!(branch[2], "What about table");
    assert_eq!(
        bodies[2]["body"]["session_id"],
        bodies[1]["body"]["session_id"]
    );
    let meta = store.load(app.session_id.as_deref().unwrap()).unwrap().meta;
    assert_eq!(
        (meta.provider.as_str(), meta.endpoint.as_str()),
        ("zeta", "chat")
    );
}

#[tokio::test]
async fn r_after_a_cut_sends_the_same_request_again_as_a_new_turn() {
    use research_tui::demo::Fault;
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut app = app();
    let mut conversation = conversation(
        &store,
        Provider::Bigdata,
        Some(Fault::CutMidAnswer),
        &mut app,
    )
    .await;
    type_and_send(&mut app, &mut conversation, "What did NVIDIA report?").await;
    assert!(
        matches!(app.turns[0].conn, ConnState::Cut(_)),
        "{:?}",
        app.turns[0].conn
    );
    let kept = app.turns[0].session.answer.as_str().len();
    assert!(kept > 0, "what arrived is kept");
    let cut_body = requests(&conversation).await[0]["body"].clone();
    // The retry is the same request in the same chat: the one the agent gave the cut turn.
    let mut again = cut_body.clone();
    again["chat_id"] = app.turns[0].session.ids.chat_id.clone().unwrap().into();

    // While the fault lasts, the retry is cut too: a second turn, the same request.
    press(&mut app, &mut conversation, KeyCode::Esc).await;
    press(&mut app, &mut conversation, KeyCode::Char('r')).await;
    press(&mut app, &mut conversation, KeyCode::Enter).await;
    conversation.run_stream(&mut app).await;
    assert_eq!(app.turns.len(), 2);
    assert_eq!(app.turns[1].retry_of, Some(0));
    assert!(matches!(app.turns[1].conn, ConnState::Cut(_)));
    assert_eq!(app.turns[0].session.answer.as_str().len(), kept);
    assert_eq!(requests(&conversation).await[1]["body"], again);

    // Once the fault is gone (another demo agent, as if the service recovered) it completes.
    let agent = Agent::demo(Provider::Bigdata, &settings(None), false)
        .await
        .unwrap();
    conversation.set_agent(agent, &mut app);
    press(&mut app, &mut conversation, KeyCode::Esc).await;
    press(&mut app, &mut conversation, KeyCode::Char('r')).await;
    press(&mut app, &mut conversation, KeyCode::Enter).await;
    conversation.run_stream(&mut app).await;
    assert_eq!(app.turns.len(), 3);
    assert_eq!(app.turns[2].conn, ConnState::Complete);
    assert_eq!(
        app.turns[2].question.as_deref(),
        Some("What did NVIDIA report?")
    );
    assert_eq!(requests(&conversation).await[0]["body"], again);

    let meta = store.load(app.session_id.as_deref().unwrap()).unwrap().meta;
    let statuses: Vec<&str> = meta.turns.iter().map(|t| t.status.as_str()).collect();
    assert_eq!(statuses, ["cut", "cut", "complete"]);
}

#[tokio::test]
async fn a_cancelled_turn_is_saved_as_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut app = app();
    let mut conversation = conversation(&store, Provider::Bigdata, None, &mut app).await;
    conversation.settings.demo_speed = 1.0;
    let slow = Agent::demo(Provider::Bigdata, &conversation.settings, false)
        .await
        .unwrap();
    conversation.set_agent(slow, &mut app);
    let cont = app.continuation();
    conversation.ask(&mut app, "Slowly, please".into(), cont);
    let action = app
        .handle_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL))
        .unwrap();
    assert_eq!(app.update(action), Some(Effect::Cancel));
    conversation.cancelled(&mut app);
    let meta = store.load(app.session_id.as_deref().unwrap()).unwrap().meta;
    assert_eq!(meta.turns[0].status, "cancelled");
}

#[tokio::test]
async fn the_xai_demo_answers_with_its_own_markers_and_saves_as_xai() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let mut app = app();
    let mut conversation = conversation(&store, Provider::Xai, None, &mut app).await;
    let question = research_tui::agent::live::demo_question(Provider::Xai).to_owned();
    let cont = app.continuation();
    conversation.ask(&mut app, question, cont);
    conversation.run_stream(&mut app).await;
    let turn = &app.turns[0];
    assert_eq!(turn.conn, ConnState::Complete);
    assert!(turn.attribution.numbered().count() >= 10);
    assert!(!turn.ann.markers.is_empty());
    type_and_send(&mut app, &mut conversation, "And energy density?").await;
    let bodies = requests(&conversation).await;
    assert_eq!(
        bodies[1]["body"]["previous_response_id"].as_str(),
        app.turns[0].checkpoint_id()
    );
    let meta = &store.list()[0];
    assert_eq!(
        (meta.provider.as_str(), meta.endpoint.as_str()),
        ("xai", "responses")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_file_cannot_send_the_key_to_a_url_it_names() {
    // Only this test reads XAI_API_KEY; the others use the demo agent, which needs no key.
    unsafe { std::env::set_var("XAI_API_KEY", "xai-test-key") };
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let id = {
        let mut app = app();
        let mut conversation = conversation(&store, Provider::Xai, None, &mut app).await;
        type_and_send(&mut app, &mut conversation, "Battery makers?").await;
        app.session_id.clone().unwrap()
    };
    let meta_path = dir.path().join(&id).join("meta.json");
    let mut meta: Value = serde_json::from_slice(&std::fs::read(&meta_path).unwrap()).unwrap();
    meta["base_url"] = Value::from("https://attacker.example");
    std::fs::write(&meta_path, serde_json::to_vec(&meta).unwrap()).unwrap();

    let mut app = app();
    let mut conversation = Conversation::new(Some(store.clone()), settings(None));
    conversation.open_id(&mut app, &id).await.unwrap();
    let agent = conversation.agent().unwrap();
    assert_eq!(agent.config.base_url, "https://api.x.ai");
    let (message, _) = app.message.clone().unwrap();
    assert!(
        message.contains("recorded against https://attacker.example"),
        "{message}"
    );
}
