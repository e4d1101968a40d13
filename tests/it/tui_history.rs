//! The sessions picker's filter: `/` then a query narrows the saved sessions as it is typed, best
//! first, the matched characters underlined (TestBackend snapshots at 140×42 and 80×24), Esc clears
//! it; and the real binary in tmux, typing `s`, `/` and a query over sessions `ask` saved, with a
//! session another process writes showing `● live` first, then cut when that process is killed.

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::KeyCode;
use ratatui::style::Modifier;
use research_tui::local::meta::SessionMeta;
use research_tui::local::meta::TurnMeta;
use research_tui::local::summary::{SessionSummary, TurnSummary};
use research_tui::tui::state::Effect;

use crate::support;

use support::tmux::*;
use support::*;

fn session(
    id: &str,
    updated: &str,
    question: &str,
    answer: &str,
    sources: &[&str],
) -> SessionSummary {
    let meta = SessionMeta {
        id: id.into(),
        created_at: updated.into(),
        updated_at: updated.into(),
        endpoint: "research-agent".into(),
        provider: "bigdata".into(),
        base_url: "http://127.0.0.1:8787".into(),
        chat_id: None,
        execution_id: None,
        options: Default::default(),
        comparison: None,
        branched_from: None,
        turns: vec![TurnMeta {
            question: question.into(),
            started_at: updated.into(),
            ended_at: Some(updated.into()),
            from_checkpoint_id: None,
            checkpoint_id: Some(format!("ckpt-{id}")),
            status: "complete".into(),
            stream_file: "turn-001.sse".into(),
            reason: None,
            request: None,
            not_saved: None,
        }],
    };
    let mut summary = SessionSummary::of_meta(meta);
    summary.turns.push(TurnSummary {
        stream_file: "turn-001.sse".into(),
        answer: answer.into(),
        sources: sources.iter().map(|s| s.to_string()).collect(),
        ..TurnSummary::default()
    });
    summary
}

fn sessions() -> Vec<SessionSummary> {
    vec![
        session(
            "20260528-101500-1a2b",
            "2026-05-28T10:15:00Z",
            "Break down NVIDIA's latest quarter: data-center growth, margins, and guidance",
            "## Supply\n- **Packaging:** TSMC plans to roughly double CoWoS capacity by the end of 2026.",
            &["SK hynix says 2026 HBM supply sold out"],
        ),
        session(
            "20260527-090000-00ff",
            "2026-05-27T09:00:00Z",
            "Compare ASML and Lam Research",
            "Lithography demand held up; China was 36% of sales.",
            &["ASML Q1 2026 results"],
        ),
        session(
            "20260526-180000-0042",
            "2026-05-26T18:00:00Z",
            "Which solid-state battery makers are closest to mass production?",
            "QuantumScape ships B-samples.",
            &["Reuters: solid-state cells"],
        ),
    ]
}

/// The app with the picker open over [`sessions`] (their answers and sources read).
fn picker_app() -> research_tui::tui::ui::Ui {
    let mut app = app();
    play(&mut app, EARNINGS, Some(DEMO_QUESTION), None);
    browse(&mut app);
    assert_eq!(
        key(&mut app, KeyCode::Char('s')),
        Some(Effect::ListSessions)
    );
    let list = sessions();
    app.show_sessions(list.iter().map(|s| s.meta.clone()).collect());
    app.update_sessions(list.into_iter().map(Arc::new).collect());
    app
}

/// The text of the cells drawn underlined (the matched characters), row by row.
fn underlined(terminal: &ratatui::Terminal<ratatui::backend::TestBackend>) -> Vec<String> {
    let buffer = terminal.backend().buffer();
    (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| &buffer[(x, y)])
                .filter(|cell| cell.modifier.contains(Modifier::UNDERLINED))
                .map(|cell| cell.symbol())
                .collect::<String>()
        })
        .filter(|row| !row.is_empty())
        .collect()
}

#[test]
fn slash_filters_the_sessions_picker_as_you_type_with_matches_underlined() {
    let mut app = picker_app();
    key(&mut app, KeyCode::Char('/'));
    // Letters are typed into the filter, not taken as keys (j would move, q would close).
    keys(&mut app, "cowos");
    let terminal = draw(&mut app, 140, 42);
    let screen = terminal.backend().to_string();
    assert!(screen.contains("Saved sessions (1 of 3)"), "{screen}");
    assert!(screen.contains("/ cowos"), "{screen}");
    assert!(
        screen.contains("answer: - **Packaging:** TSMC plans"),
        "{screen}"
    );
    assert_eq!(underlined(&terminal), ["CoWoS"]);
    insta::assert_snapshot!("session_picker_filter", terminal.backend());
    let narrow = draw(&mut app, 80, 24);
    assert_eq!(underlined(&narrow), ["CoWoS"]);
    insta::assert_snapshot!("session_picker_filter_narrow", narrow.backend());
    // `?` would be typed into the filter: the bar offers the help key that works there.
    let bar = screen.lines().last().unwrap_or_default();
    assert!(bar.contains("FILTER") && bar.contains("F1 help"), "{bar}");
    assert!(!bar.contains("? help"), "{bar}");

    // A question match is underlined in the question itself; best first.
    for _ in 0.."cowos".len() {
        key(&mut app, KeyCode::Backspace);
    }
    keys(&mut app, "asml lam");
    let terminal = draw(&mut app, 140, 42);
    let screen = terminal.backend().to_string();
    assert!(screen.contains("▸ 2026-05-27 09:00"), "{screen}");
    assert_eq!(
        underlined(&terminal).first().map(String::as_str),
        Some("ASMLLam")
    );

    // Esc clears the filter (the picked session stays picked), a second Esc closes the picker.
    key(&mut app, KeyCode::Esc);
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains("Saved sessions (3)"), "{screen}");
    assert!(screen.contains("▸ 2026-05-27 09:00"), "{screen}");
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        Some(Effect::OpenSession("20260527-090000-00ff".into()))
    );
    // A paste goes into the filter too.
    let mut app = picker_app();
    key(&mut app, KeyCode::Char('/'));
    app.update(research_tui::tui::state::Action::Paste(
        "solid\nstate".into(),
    ));
    let screen = draw(&mut app, 140, 42).backend().to_string();
    assert!(screen.contains("/ solid state"), "{screen}");
    assert!(screen.contains("Saved sessions (1 of 3)"), "{screen}");

    let mut app = picker_app();
    keys(&mut app, "/zzz");
    assert!(
        draw(&mut app, 80, 24)
            .backend()
            .to_string()
            .contains("No saved session matches")
    );
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none());
}

/// The binary with the app's store (the tmux session's directory is its XDG directories).
fn research_tui(dir: &std::path::Path) -> Command {
    let mut command = support::cli(dir);
    command
        .env("XDG_DATA_HOME", dir)
        .env("XDG_CONFIG_HOME", dir)
        .env("XDG_CACHE_HOME", dir)
        .env("BIGDATA_API_KEY", "sk-test-history");
    command
}

#[test]
fn in_tmux_the_picker_filters_and_follows_a_live_session_until_its_writer_is_killed() {
    let t = Tmux::start(140, 42, &["--demo", "--demo-speed", "50"]);
    let dir = t.dir.path().to_owned();
    t.wait_for("the demo answer", Duration::from_secs(60), |s| {
        status_line(s).contains("complete")
    });
    // A slow demo agent, and `ask` saving into the same store from another process.
    let (server, line) = crate::support::spawn_announcing(
        research_tui(&dir).args(["serve", "--port", "0", "--speed", "0.2"]),
    );
    let server = Killed(server);
    let base = line.trim().rsplit(' ').next().unwrap().to_owned();
    assert!(base.starts_with("http://127.0.0.1:"), "{line}");

    t.send(&["Escape", "s"]);
    t.wait_for("the picker", Duration::from_secs(5), |s| {
        s.contains("Saved sessions (1)")
    });
    let mut ask = Killed(
        research_tui(&dir)
            .args(["ask", "Compare ASML and Lam Research", "--base-url", &base])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let screen = t.wait_for("the live session, first", Duration::from_secs(15), |s| {
        s.contains("Saved sessions (2)") && s.contains("● live")
    });
    let live = screen.find("● live").unwrap();
    assert!(
        live < screen.find(DEMO_QUESTION.get(..30).unwrap()).unwrap(),
        "{screen}"
    );
    assert!(screen.contains("Compare ASML and Lam Research"), "{screen}");

    // Filter while it streams: only the live one matches.
    t.send(&["/", "asml"]);
    let screen = t.wait_for("the filter", Duration::from_secs(5), |s| {
        s.contains("Saved sessions (1 of 2)")
    });
    assert!(screen.contains("/ asml"), "{screen}");
    assert!(screen.contains("● live"), "{screen}");

    // The writer is killed mid-turn: the picker, still open, shows it cut.
    ask.0.kill().unwrap();
    ask.0.wait().unwrap();
    let screen = t.wait_for("the cut session", Duration::from_secs(10), |s| {
        !s.contains("● live") && s.contains(" cut ")
    });
    assert!(screen.contains("Saved sessions (1 of 2)"), "{screen}");
    t.send(&["Escape"]);
    t.wait_for("the whole list again", Duration::from_secs(5), |s| {
        s.contains("Saved sessions (2)")
    });
    t.send(&["Escape", "q", "q"]);
    t.wait_exit(Duration::from_secs(10));
    drop(server);
}

/// A child process killed when the test ends, whichever way it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
