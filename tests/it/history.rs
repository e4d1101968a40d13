//! The searchable history: `research-tui sessions --search` (the real binary, on sessions `ask`
//! saved against the demo agent), and the sessions picker following the sessions folder while it is
//! open — a session being written shows `● live` first and turns complete or cut when its writer
//! ends or dies.

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use research_tui::agent::turn::TurnRecorder;
use research_tui::local::store::{SavedTurn, SessionStore};
use research_tui::local::watch::{SessionList, SessionsWatch};
use research_tui::model::session::Session;
use research_tui::model::stream_end::StreamEnd;
use serde_json::Value;

use crate::support;

fn research_tui(data: &Path, args: &[&str]) -> Output {
    support::cli(data)
        .args(args)
        .env("XDG_DATA_HOME", data)
        .env("XDG_CONFIG_HOME", data.join("config"))
        .env("XDG_CACHE_HOME", data.join("cache"))
        .env("BIGDATA_API_KEY", "sk-test-history")
        .output()
        .unwrap()
}

/// `--search ""` (an unset shell variable) and `--search "   "` are the same mistake: a usage
/// error (exit 2) that says how to list every session, never every session shown as a match.
#[test]
fn a_blank_search_is_a_usage_error_that_says_how_to_list_them_all() {
    let data = support::scratch();
    for blank in ["", "   "] {
        for extra in [&[][..], &["--json"][..]] {
            let mut args = vec!["sessions", "--search", blank];
            args.extend(extra);
            let output = research_tui(data, &args);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(output.stdout.is_empty(), "{args:?}");
            assert!(
                stderr.contains(&format!(
                    "invalid value '{blank}' for '--search <TEXT>': nothing to search for \
                     (without --search, `sessions` lists every session)"
                )),
                "{stderr}"
            );
        }
    }
}

fn json_lines(output: &Output) -> Vec<Value> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn first_question(session: &Value) -> &str {
    session["turns"][0]["question"].as_str().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_search_finds_sessions_by_question_answer_and_source_best_first() {
    let addr = support::demo_agent(500.0).await;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path();
    let base = format!("http://{addr}");
    let nvidia = "Give me a deep dive on NVIDIA's latest quarterly earnings";
    let semis = "Compare ASML, Applied Materials, Lam Research and Tokyo Electron";
    for question in [nvidia, semis] {
        let asked = research_tui(data, &["ask", question, "--base-url", &base]);
        assert!(asked.status.success(), "{asked:?}");
    }

    // The plain listing: newest first, each row naming the agent it talked to.
    let listed = research_tui(data, &["sessions"]);
    let table = String::from_utf8_lossy(&listed.stdout);
    assert!(
        table.starts_with("ID                           DATE              PROVIDER   TURNS  STATUS        LAST CHECKPOINT            QUESTION\n"),
        "{table}"
    );
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{table}");
    assert!(
        rows.iter().all(|row| row[46..57].trim() == "bigdata"),
        "{table}"
    );
    let plain = json_lines(&research_tui(data, &["sessions", "--json"]));
    assert_eq!(plain.len(), 2);

    // `sessions ID…`: those sessions' rows and objects as listed (it was a usage error asking for
    // --export-otlp); a prefix names one; an id that names none says so.
    let (older, newer) = (
        plain[1]["id"].as_str().unwrap(),
        plain[0]["id"].as_str().unwrap(),
    );
    let differs = older
        .bytes()
        .zip(newer.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let named = research_tui(data, &["sessions", &older[..=differs]]);
    let named_table = String::from_utf8_lossy(&named.stdout);
    assert!(named.status.success(), "{named:?}");
    assert_eq!(named_table.lines().next(), table.lines().next());
    assert_eq!(
        named_table.lines().nth(1),
        rows.iter().find(|r| r.starts_with(older)).copied()
    );
    assert_eq!(named_table.lines().count(), 2, "{named_table}");
    let named = json_lines(&research_tui(data, &["sessions", older, "--json"]));
    assert_eq!(named, [plain[1].clone()]);
    let unknown = research_tui(data, &["sessions", "nope"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("no saved session \"nope\""),
        "{unknown:?}"
    );

    // A word only the NVIDIA answer has (TSMC's CoWoS packaging): that session alone, by its answer.
    let found = json_lines(&research_tui(
        data,
        &["sessions", "--search", "cowos", "--json"],
    ));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(first_question(&found[0]), nvidia);
    assert_eq!(found[0]["field"], "answer");
    assert!(found[0]["text"].as_str().unwrap().contains("CoWoS"));
    // Every field of `sessions --json` is kept as it was, with score, field and text added.
    let same = plain.iter().find(|s| s["id"] == found[0]["id"]).unwrap();
    for (key, value) in same.as_object().unwrap() {
        assert_eq!(&found[0][key], value, "{key}");
    }
    assert!(found[0]["score"].as_u64().unwrap() > 0);

    // A source title (the SK hynix HBM4 story the NVIDIA answer cites).
    let found = json_lines(&research_tui(
        data,
        &["sessions", "--search", "hbm4 sold out", "--json"],
    ));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["field"], "source");

    // Fuzzy, in the question: both sessions' questions have these letters, the closer one first.
    let found = json_lines(&research_tui(
        data,
        &["sessions", "--search", "lam res", "--json"],
    ));
    assert_eq!(first_question(&found[0]), semis, "{found:?}");
    assert_eq!(found[0]["field"], "question");
    let scores: Vec<u64> = found.iter().map(|s| s["score"].as_u64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");

    // The table: the matched line under each session; nothing found says so.
    let table = research_tui(data, &["sessions", "--search", "tokyo electron"]);
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.contains(semis.get(..40).unwrap()), "{table}");
    assert!(
        table.contains("↳ answer: ") || table.contains("↳ question: "),
        "{table}"
    );
    let none = research_tui(data, &["sessions", "--search", "zqxj"]);
    assert!(none.status.success());
    assert!(
        String::from_utf8_lossy(&none.stdout)
            .starts_with("No saved session matches \"zqxj\" (2 searched"),
        "{none:?}"
    );
    assert!(
        json_lines(&research_tui(
            data,
            &["sessions", "--search", "zqxj", "--json"]
        ))
        .is_empty()
    );
}

/// The next list the watch hands over for which `pred` holds (panics after 10 s).
fn wait_list(
    rx: &std::sync::mpsc::Receiver<SessionList>,
    what: &str,
    pred: impl Fn(&SessionList) -> bool,
) -> SessionList {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let left = until.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(list) if pred(&list) => return list,
            Ok(_) => continue,
            Err(_) => panic!("timed out waiting for {what}"),
        }
    }
}

fn statuses(list: &SessionList) -> Vec<String> {
    list.iter().map(|s| s.meta.status().to_owned()).collect()
}

#[test]
fn the_picker_shows_a_session_being_written_as_live_first_and_then_how_it_ended() {
    use research_tui::tui::state::{AppConfig, Mode};
    use research_tui::tui::ui::Ui;
    let tmp = tempfile::tempdir().unwrap();
    let store = SessionStore::new(tmp.path());
    // An older session, finished.
    let mut old = store.create("research-agent", "bigdata", "x").unwrap();
    let writer = old.begin_turn("An older question", None).unwrap();
    SavedTurn::new(old.clone(), writer)
        .0
        .end(&Session::new(), &StreamEnd::Closed)
        .unwrap();

    let mut app = Ui::new(AppConfig {
        mode: Mode::Demo,
        theme: Default::default(),
        can_ask: true,
    });
    app.show_sessions(store.list());
    let (tx, rx) = std::sync::mpsc::channel();
    let watch = SessionsWatch::start(tmp.path().to_owned(), move |list| tx.send(list).is_ok());
    wait_list(&rx, "the first read", |list| list.len() == 1);

    // Another process starts writing a session (here: this test, holding the turn lock).
    let mut live = store.create("research-agent", "xai", "x").unwrap();
    let writer = live.begin_turn("What is streaming now?", None).unwrap();
    let (mut turn, sink) = SavedTurn::new(live.clone(), writer);
    sink.lock().unwrap().write_all(b"data: {}\n\n").unwrap();
    let list = wait_list(&rx, "the live session", |list| {
        list.len() == 2 && statuses(list).contains(&"streaming".to_owned())
    });
    app.update_sessions(list);
    let screen = draw(&mut app);
    let live_row = screen.find("● live").expect("a live mark");
    assert!(
        live_row < screen.find("An older question").unwrap(),
        "{screen}"
    );
    assert!(screen.contains("What is streaming now?"), "{screen}");
    assert!(screen.contains("xai"), "{screen}");

    // The writer ends the turn: no longer live.
    turn.end(&Session::new(), &StreamEnd::Closed).unwrap();
    let list = wait_list(&rx, "the end", |list| {
        !statuses(list).contains(&"streaming".to_owned())
    });
    app.update_sessions(list);
    assert!(!draw(&mut app).contains("● live"));

    // A second turn whose writer dies (its lock let go without an end): cut, while still open.
    let writer = live.begin_turn("And then?", None).unwrap();
    let (dying, _sink) = SavedTurn::new(live.clone(), writer);
    wait_list(&rx, "the second turn live", |list| {
        statuses(list).contains(&"streaming".to_owned())
    });
    drop(dying);
    let list = wait_list(&rx, "the dead writer", |list| {
        statuses(list).contains(&"cut".to_owned())
    });
    app.update_sessions(list);
    let screen = draw(&mut app);
    assert!(
        !screen.contains("● live") && screen.contains("cut"),
        "{screen}"
    );
    drop(watch);
}

fn draw(app: &mut research_tui::tui::ui::Ui) -> String {
    use ratatui::{Terminal, backend::TestBackend};
    let mut terminal = Terminal::new(TestBackend::new(140, 42)).unwrap();
    terminal.draw(|frame| app.draw(frame)).unwrap();
    terminal.backend().to_string()
}

/// `sessions --delete ID…` deletes the sessions named (whole ids or prefixes), a line each, and never
/// one a live process still writes; the listing no longer has them. A newcomer found no way to
/// remove the sessions every try of the app leaves.
#[test]
fn sessions_delete_removes_the_named_sessions_but_never_one_being_written() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path();
    let store = SessionStore::new(data.join("research-tui").join("sessions"));
    let mut done = store.create("research-agent", "bigdata", "x").unwrap();
    let writer = done.begin_turn("A finished question", None).unwrap();
    SavedTurn::new(done.clone(), writer)
        .0
        .end(&Session::new(), &StreamEnd::Closed)
        .unwrap();
    // Another process writing a session (here: this test, holding the turn lock).
    let mut live = store.create("research-agent", "xai", "x").unwrap();
    let writer = live.begin_turn("What is streaming now?", None).unwrap();
    let _writing = SavedTurn::new(live.clone(), writer);
    let (done_id, live_id) = (done.meta.id.clone(), live.meta.id.clone());
    assert_eq!(
        json_lines(&research_tui(data, &["sessions", "--json"])).len(),
        2
    );

    let deleted = research_tui(data, &["sessions", "--delete", &done_id, &live_id]);
    assert_eq!(deleted.status.code(), Some(1), "{deleted:?}");
    assert_eq!(
        String::from_utf8_lossy(&deleted.stdout),
        format!("deleted session {done_id}\n")
    );
    assert_eq!(
        String::from_utf8_lossy(&deleted.stderr),
        format!(
            "research-tui: session {live_id} is still being written (turn 1) by another process: \
             not deleted\n"
        )
    );
    let left = json_lines(&research_tui(data, &["sessions", "--json"]));
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["id"], live_id.as_str());
    assert!(!data.join("research-tui/sessions").join(&done_id).exists());

    // A link among the sessions to a folder elsewhere: that folder is not ours to delete.
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("keep.txt"), "mine").unwrap();
    let link = data.join("research-tui/sessions/20260101-000000-link");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    let refused = research_tui(data, &["sessions", "--delete", "20260101-000000-link"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(elsewhere.join("keep.txt").exists() && link.exists());

    let unknown = research_tui(data, &["sessions", "--delete", "nope"]);
    assert_eq!(unknown.status.code(), Some(1));
    let without_ids = research_tui(data, &["sessions", "--delete"]);
    assert_eq!(without_ids.status.code(), Some(2));
}
