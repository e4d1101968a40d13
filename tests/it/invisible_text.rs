//! Invisible characters from the network — zero-width space and joiner, line and paragraph
//! separators, the byte-order mark, tag characters — never reach the screen, Markdown, text or an
//! export as themselves (a ZWJ made a Sources row wider than the terminal); JSON keeps the exact text.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use research_tui::agent::stream::StreamUpdate;
use research_tui::model::session::Session;
use research_tui::model::stream_end::StreamEnd;
use research_tui::render::{Format, render};
use research_tui::styled::theme::Theme;

use research_tui::tui::state::{AppConfig, Mode, Turn};
use research_tui::tui::ui::Ui;
use research_tui::wire::input::read_session;
use research_tui::wire::provider::{EventPipeline, Provider};

/// Characters that must not be shown as themselves.
const INVISIBLE: [char; 7] = [
    '\u{200B}',
    '\u{200D}',
    '\u{2028}',
    '\u{2029}',
    '\u{FEFF}',
    '\u{E0067}',
    '\u{E007F}',
];

/// A Bigdata.com stream whose headline, publisher and answer carry every invisible character.
fn stream() -> String {
    let headline = "Family \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} flag \u{1F3F4}\u{E0067}\u{E0062}\u{E007F} report";
    let answer = "Zero\u{200B}width\u{2028}line\u{2029}para\u{FEFF}mark done.";
    let grounding = serde_json::json!({
        "chat_id": "chat-1",
        "message": {"type": "GROUNDING", "references": [{
            "tool_name": "search", "audit_id": "a-1",
            "source": {"type": "EXTERNAL", "id": "s-1", "hd": headline,
                "action": {"name": "Pub\u{200D}lisher", "url": "https://example.com/x", "ts": "2026-01-02"}},
            "start": 0, "end": 4}]}
    });
    let answer =
        serde_json::json!({"chat_id": "chat-1", "message": {"type": "ANSWER", "content": answer}});
    let complete = serde_json::json!({"chat_id": "chat-1", "message": {"type": "COMPLETE", "checkpoint_id": "ck-1"}});
    format!("data: {grounding}\n\ndata: {answer}\n\ndata: {complete}\n\n")
}

fn session() -> Session {
    read_session(stream().as_bytes(), Provider::Bigdata)
        .unwrap()
        .0
}

fn leaked(text: &str) -> Vec<char> {
    text.chars().filter(|c| INVISIBLE.contains(c)).collect()
}

#[test]
fn markdown_and_text_replace_invisible_characters_and_json_keeps_them() {
    let session = session();
    for format in [Format::Markdown, Format::Text] {
        let out = render(&session, format);
        assert!(out.contains("\u{FFFD}width\u{FFFD}line"), "{out}");
        assert!(
            leaked(&out).is_empty(),
            "{format:?} leaked {:?}",
            leaked(&out)
        );
    }
    let json = render(&session, Format::Json);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        doc["answer"],
        "Zero\u{200B}width\u{2028}line\u{2029}para\u{FEFF}mark done."
    );
}

#[test]
fn the_screen_and_the_export_show_no_invisible_character() {
    let mut app = Ui::new(AppConfig {
        mode: Mode::Demo,
        theme: Theme::default(),
        can_ask: true,
    });
    app.begin_turn(Some("Who\u{200D}?".into()));
    app.apply_update(StreamUpdate::Connected);
    let mut pipeline = EventPipeline::new(Provider::Bigdata);
    let mut events = Vec::new();
    pipeline.feed(stream().as_bytes(), &mut events).unwrap();
    app.apply_update(StreamUpdate::Events(events));
    app.apply_update(StreamUpdate::Ended(StreamEnd::Closed));

    for (width, height) in [(140, 42), (80, 24)] {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal.draw(|frame| app.draw(frame)).unwrap();
        let shown: String = terminal
            .backend()
            .buffer()
            .content
            .iter()
            .map(|cell| cell.symbol())
            .collect();
        assert!(shown.contains("Zero"), "the answer is drawn");
        assert!(
            leaked(&shown).is_empty(),
            "{width}×{height}: {:?}",
            leaked(&shown)
        );
    }

    let turns: &[Turn] = &app.turns;
    let export = research_tui::tui::export::conversation_markdown(turns, &Default::default());
    assert!(export.contains("\u{FFFD}width\u{FFFD}line"), "{export}");
    assert!(leaked(&export).is_empty(), "{:?}", leaked(&export));
}
