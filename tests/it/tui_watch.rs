//! Watching sessions that another process writes, end to end: the real binary in tmux (`watch`,
//! `watch --follow`, `open`) beside real `research-tui ask --demo` processes writing the same
//! (isolated) sessions folder.

use crate::support;

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use support::tmux::{Tmux, status_line};

/// `research-tui ask --demo` writing into `t`'s sessions folder, at `speed` times the recorded pace.
fn ask(t: &Tmux, speed: &str, question: &str) -> Child {
    support::cli(t.dir.path())
        .args(["ask", "--demo", "--demo-speed", speed, question])
        .env("XDG_CONFIG_HOME", t.dir.path())
        .env("XDG_CACHE_HOME", t.dir.path())
        .env("XDG_DATA_HOME", t.dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// The text inside the Answer pane (wide layout: between its heavy side borders).
fn answer_pane(screen: &str) -> String {
    screen
        .lines()
        .filter_map(|line| {
            let start = line.find('┃')? + '┃'.len_utf8();
            let end = start + line[start..].find('┃')?;
            Some(line[start..end].trim().to_owned())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The answer's own text in the pane: what follows the question, without the progress line.
fn answer_text(screen: &str) -> String {
    let pane = answer_pane(screen);
    pane.lines()
        .skip_while(|line| !line.contains("You:"))
        .skip(1)
        .filter(|line| !line.contains("researching…"))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

fn waiting(t: &Tmux) {
    t.wait_for("the waiting screen", Duration::from_secs(15), |s| {
        s.contains("Waiting for a research session to start… (q q quits)") && s.contains("WATCH")
    });
}

/// The conversation an export (`e`) of the app in `t` wrote, from its first question on (the
/// export's time and mode above it differ between two apps).
fn exported_conversation(t: &Tmux) -> String {
    t.send(&["Escape", "e", "Enter"]);
    t.wait_for("the export", Duration::from_secs(10), |s| {
        s.contains("exported to")
    });
    let files = t.files_named("research-tui-export-");
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let at = text.find("\n## ").expect("a question heading");
    text[at..].to_owned()
}

#[test]
fn a_session_that_ask_writes_is_watched_live_and_ends_as_the_saved_session_shows() {
    let t = Tmux::start(140, 42, &["watch"]);
    waiting(&t);
    let mut writer = ask(&t, "1", "What did NVIDIA report?");

    // The answer grows on the screen while `ask` still writes it.
    let early = t.wait_for("the answer streaming", Duration::from_secs(60), |s| {
        answer_text(s).len() > 80
    });
    assert!(status_line(&early).contains("watching · live"), "{early}");
    assert!(early.contains("You: What did NVIDIA report?"), "{early}");
    let grown = t.wait_for("more of the answer", Duration::from_secs(30), |s| {
        answer_text(s) != answer_text(&early) && answer_text(s).len() > answer_text(&early).len()
    });
    assert!(
        writer.try_wait().unwrap().is_none(),
        "ask still streams while the answer grows on screen:\n{grown}"
    );

    // Once `ask` is done, the watched turn is complete, and what it shows equals the saved session
    // opened afresh.
    assert!(writer.wait().unwrap().success());
    let done = t.wait_for("the watched turn complete", Duration::from_secs(10), |s| {
        status_line(s).contains("✔ complete")
    });
    assert!(!done.contains("watching · live"), "{done}");
    assert!(done.contains("complete — type a follow-up"), "{done}");
    let watched = exported_conversation(&t);

    let ids: Vec<String> = std::fs::read_dir(t.dir.path().join("research-tui/sessions"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(ids.len(), 1, "one session: {ids:?}");
    let id = ids[0].as_str();
    let data = format!("XDG_DATA_HOME={}", t.dir.path().display());
    let opened = Tmux::start_with_env(140, 42, &[&data], &["open", id]);
    opened.wait_for("the saved session", Duration::from_secs(15), |s| {
        s.contains("opened a saved session")
    });
    assert_eq!(watched, exported_conversation(&opened));
}

#[test]
fn watch_follow_switches_to_each_new_session_as_it_starts() {
    let t = Tmux::start(140, 42, &["watch", "--follow"]);
    waiting(&t);
    let mut first = ask(&t, "5", "First question: how did AMD do?");
    t.wait_for("the first session", Duration::from_secs(30), |s| {
        s.contains("You: First question: how did AMD do?")
    });
    assert!(first.wait().unwrap().success());
    t.wait_for("the first session complete", Duration::from_secs(10), |s| {
        status_line(s).contains("✔ complete")
    });

    let mut second = ask(&t, "5", "Second question: and Intel?");
    let switched = t.wait_for("the second session", Duration::from_secs(30), |s| {
        s.contains("You: Second question: and Intel?")
    });
    assert!(
        !switched.contains("First question"),
        "another session, not a turn of the first:\n{switched}"
    );
    assert!(second.wait().unwrap().success());
    t.wait_for(
        "the second session complete",
        Duration::from_secs(10),
        |s| status_line(s).contains("✔ complete"),
    );
}

#[test]
fn a_writer_killed_mid_turn_shows_as_cut_not_live() {
    let t = Tmux::start(140, 42, &["watch"]);
    waiting(&t);
    let mut writer = ask(&t, "0.5", "What did NVIDIA report?");
    t.wait_for("the turn streaming", Duration::from_secs(60), |s| {
        status_line(s).contains("watching · live") && s.contains("You: What did NVIDIA report?")
    });
    // SIGKILL: no chance to save how the turn ended.
    writer.kill().unwrap();
    writer.wait().unwrap();
    let killed = Instant::now();
    let cut = t.wait_for("the turn shown as cut", Duration::from_secs(5), |s| {
        status_line(s).contains("! cut")
    });
    let took = killed.elapsed();
    assert!(took < Duration::from_secs(3), "seen as cut after {took:?}");
    assert!(!cut.contains("watching · live"), "{cut}");
    assert!(cut.contains("interrupted"), "the store's reason:\n{cut}");
}

#[test]
fn a_question_typed_while_watching_is_queued_and_sent_when_the_watched_answer_ends() {
    let t = Tmux::start(80, 24, &["watch"]);
    t.wait_for("the waiting screen", Duration::from_secs(15), |s| {
        s.contains("WATCH")
    });
    let mut writer = ask(&t, "2", "What did NVIDIA report?");
    t.wait_for("the turn streaming", Duration::from_secs(60), |s| {
        status_line(s).contains("watching · live")
    });
    t.send(&["i"]);
    t.paste("And AMD?");
    t.send(&["Enter"]);
    let queued = t.wait_for("the question queued", Duration::from_secs(10), |s| {
        status_line(s).contains("queued: sent when the answer ends ·")
    });
    assert!(
        queued.contains("queued: And AMD? (Ctrl-C drops)"),
        "the prompt's title shows it:\n{queued}"
    );
    assert!(writer.try_wait().unwrap().is_none(), "ask still streams");
    assert!(writer.wait().unwrap().success());
    t.wait_for("the question sent", Duration::from_secs(30), |s| {
        status_line(s).contains("sent the question that waited")
    });
    t.wait_for("its answer complete", Duration::from_secs(60), |s| {
        status_line(s).contains("✔ complete")
    });
    // It continued the watched session, as a follow-up typed after its end would.
    let sessions = t.dir.path().join("research-tui/sessions");
    let ids: Vec<_> = std::fs::read_dir(&sessions).unwrap().collect();
    assert_eq!(ids.len(), 1, "{ids:?}");
    let meta = std::fs::read_to_string(ids[0].as_ref().unwrap().path().join("meta.json")).unwrap();
    assert!(
        meta.contains("\"question\": \"And AMD?\"") || meta.contains("\"question\":\"And AMD?\""),
        "{meta}"
    );
}
