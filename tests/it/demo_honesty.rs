//! The demo agent says when it plays a recording that is not about the question: its answer opens
//! with a note, for every provider, and the citations after the note still cover the same words.

use research_tui::agent::live::demo_question;
use research_tui::styled::theme::Theme;
use research_tui::tui::conversation::{Agent, Conversation, Settings};

use research_tui::tui::state::{AppConfig, ConnState, Mode};
use research_tui::tui::ui::Ui;
use research_tui::wire::provider::Provider;

/// A conversation with a fresh demo agent for `provider`: the demo's question, then `follow_up`.
/// The follow-up's turn.
async fn ask_demo(provider: Provider, follow_up: &str) -> Ui {
    let mut app = Ui::new(AppConfig {
        mode: Mode::Demo,
        theme: Theme::default(),
        can_ask: true,
    });
    let settings = Settings {
        demo_speed: 1000.0,
        ..Settings::default()
    };
    let mut conversation = Conversation::new(None, settings);
    let agent = Agent::demo(provider, &settings, false).await.unwrap();
    conversation.set_agent(agent, &mut app);
    for question in [demo_question(provider), follow_up] {
        let cont = app.continuation();
        assert!(conversation.ask(&mut app, question.to_owned(), cont));
        conversation.run_stream(&mut app).await;
        assert_eq!(app.turns.last().unwrap().conn, ConnState::Complete);
    }
    app
}

/// The words each citation of the newest turn covers.
fn cited(app: &Ui) -> Vec<String> {
    let turn = app.turns.last().unwrap();
    let answer = turn.session.answer.as_str();
    let mut cited: Vec<String> = turn
        .attribution
        .citations
        .iter()
        .map(|c| c.text(answer).to_owned())
        .collect();
    cited.sort();
    cited
}

#[tokio::test]
async fn a_question_no_recording_is_about_gets_its_answer_opened_by_a_note() {
    for (provider, matching) in [
        (Provider::Bigdata, "And AMD?"),
        (Provider::Xai, "And their energy density?"),
        (Provider::Zeta, "And for scientific PDFs?"),
        (
            Provider::OpenAI,
            "And what would speed sodium-ion adoption?",
        ),
        (
            Provider::Perplexity,
            "And what are the fines for GPAI providers?",
        ),
        (
            Provider::Gemini,
            "And when will tandems reach gigawatt factories?",
        ),
        (
            Provider::Anthropic,
            "And how has New York's congestion pricing done?",
        ),
    ] {
        let honest = ask_demo(provider, matching).await;
        let answer = honest.turns[1].session.answer.as_str();
        assert!(!answer.contains("Demo agent"), "{provider:?}: {answer}");

        let canned = ask_demo(provider, "And Broadcom?").await;
        let answer = canned.turns[1].session.answer.as_str();
        assert!(
            answer.starts_with("*Demo agent: no recording answers this question."),
            "{provider:?}: {answer}"
        );
        assert!(answer.contains("the recorded answer to"), "{answer}");
        assert_eq!(
            cited(&canned),
            cited(&honest),
            "{provider:?}: citations moved with the note"
        );
        assert!(!cited(&canned).is_empty(), "{provider:?}");
        // The demo's own first question is its recording's: no note.
        let first = canned.turns[0].session.answer.as_str();
        assert!(!first.contains("Demo agent"), "{provider:?}");
    }
}
