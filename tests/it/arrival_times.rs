//! Arrival times kept beside every saved turn (`turn-NNN.sse.times`): `ask`, the proxy and the app
//! save when each event arrived from a real server on 127.0.0.1 whose gaps are known, the raw file
//! stays byte-exact, and a replay of the saved turn plays those gaps again.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::body::{Body, Bytes};
use research_tui::agent::replay::{Speed, read_arrivals, replay_file};
use research_tui::agent::stream::StreamUpdate;
use research_tui::wire::arrivals::Arrivals;
use research_tui::wire::provider::Provider;

use crate::proxy::{KEY, ProxyProcess};
use crate::support;

/// What the gapped server sends, in three chunks.
const EVENTS: [&str; 3] = [
    "data: {\"chat_id\":\"c1\",\"message\":{\"type\":\"ANSWER\",\"content\":\"First. \"}}\n\n",
    "data: {\"chat_id\":\"c1\",\"message\":{\"type\":\"ANSWER\",\"content\":\"Second.\"}}\n\n",
    "data: {\"chat_id\":\"c1\",\"message\":{\"type\":\"COMPLETE\",\"checkpoint_id\":\"k1\"}}\n\n",
];
/// The pause before each chunk.
const GAPS_MS: [u64; 3] = [0, 600, 1200];

/// A server that answers any POST with [`EVENTS`], pausing [`GAPS_MS`] before each.
async fn gapped_server() -> SocketAddr {
    let app = axum::Router::new().fallback(axum::routing::post(|| async {
        let chunks =
            futures::stream::iter(EVENTS.iter().zip(GAPS_MS)).then(|(event, gap)| async move {
                tokio::time::sleep(Duration::from_millis(gap)).await;
                Ok::<_, std::io::Error>(Bytes::from_static(event.as_bytes()))
            });
        (
            [("content-type", "text/event-stream")],
            Body::from_stream(chunks),
        )
    }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

use futures::StreamExt;

/// The one saved turn file under `sessions`.
fn turn_file(sessions: &Path) -> PathBuf {
    let files: Vec<PathBuf> = support::files_under(sessions)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "sse"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files.into_iter().next().unwrap()
}

/// When each of [`EVENTS`] arrived, by the sidecar: the time of its first byte.
fn event_times(raw: &[u8], arrivals: &Arrivals) -> Vec<u64> {
    let mut offset = 0u64;
    EVENTS
        .iter()
        .map(|event| {
            let at = arrivals.at(offset).unwrap();
            offset += event.len() as u64;
            at
        })
        .collect::<Vec<_>>()
        .into_iter()
        .inspect(|_| assert!(EVENTS.concat().len() <= raw.len()))
        .collect()
}

/// Each gap between events `times` is the server's within 10% (never shorter than it).
fn assert_gaps(times: &[u64], what: &str) {
    for (i, pair) in times.windows(2).enumerate() {
        let gap = (pair[1] - pair[0]) as f64;
        let expected = GAPS_MS[i + 1] as f64;
        assert!(
            gap >= expected * 0.97 && gap <= expected * 1.1,
            "{what}: gap {} was {gap} ms, not {expected} ms within 10% ({times:?})",
            i + 1
        );
    }
}

/// A saved turn: its raw bytes are exactly what was sent, and its sidecar has a request time,
/// a first byte and the server's gaps.
fn assert_saved_with_times(sessions: &Path, what: &str) -> PathBuf {
    let path = turn_file(sessions);
    let raw = std::fs::read(&path).unwrap();
    assert_eq!(String::from_utf8_lossy(&raw), EVENTS.concat(), "{what}");
    let arrivals = read_arrivals(&path).unwrap_or_else(|| panic!("{what} kept no times"));
    assert!(arrivals.sent_unix_ms.is_some(), "{what}");
    assert!(arrivals.first_byte_ms().unwrap() < 1000, "{what}");
    assert_gaps(&event_times(&raw, &arrivals), what);
    path
}

/// The gaps between the event batches of a replay of `path` at `speed`, in ms.
async fn replayed_gaps(path: &Path, speed: Speed) -> Vec<u64> {
    let mut handle = replay_file(path, speed, Provider::Bigdata).unwrap();
    let mut times = Vec::new();
    let start = tokio::time::Instant::now();
    while let Some(update) = handle.updates.recv().await {
        if let StreamUpdate::Events(_) = update {
            times.push(start.elapsed().as_millis() as u64);
        }
    }
    times
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_and_the_proxy_keep_when_each_event_arrived_and_a_replay_plays_the_gaps_again() {
    let upstream = gapped_server().await;
    let proxy = ProxyProcess::start(upstream, |_| {});
    let home = tempfile::tempdir().unwrap();
    let base = format!("http://{}/bigdata", proxy.addr);
    let output = tokio::task::spawn_blocking({
        let home = home.path().to_owned();
        move || {
            support::cli(&home)
                .args(["ask", "Gaps?", "--format", "json", "--base-url", &base])
                .env("BIGDATA_API_KEY", KEY)
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    assert!(output.status.success(), "{output:?}");
    let asked = assert_saved_with_times(&support::Home::new(home.path()).sessions(), "ask");
    proxy.settled_sessions(1);
    let proxy_sessions = proxy.store().root().to_owned();
    assert_saved_with_times(&proxy_sessions, "the proxy");

    let recorded = {
        let raw = std::fs::read(&asked).unwrap();
        event_times(&raw, &read_arrivals(&asked).unwrap())
    };
    let played = replayed_gaps(&asked, Speed::Factor(1.0)).await;
    assert_eq!(played.len(), 3, "one batch per arrival: {played:?}");
    for i in 1..3 {
        let (want, got) = (
            (recorded[i] - recorded[i - 1]) as f64,
            (played[i] - played[i - 1]) as f64,
        );
        assert!(
            (got - want).abs() <= want * 0.1,
            "replayed gap {i}: {got} ms, recorded {want} ms ({played:?} vs {recorded:?})"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_saved_turn_replays_at_its_recorded_pace_scaled_by_the_speed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("turn-001.sse");
    std::fs::write(&path, EVENTS.concat()).unwrap();
    let (a, b) = (EVENTS[0].len(), EVENTS[0].len() + EVENTS[1].len());
    std::fs::write(
        dir.path().join("turn-001.sse.times"),
        format!("# research-tui arrival times 1\nsent 1000\n0 300\n{a} 2300\n{b} 7300\n"),
    )
    .unwrap();
    assert_eq!(
        replayed_gaps(&path, Speed::Factor(1.0)).await,
        [300, 2300, 7300]
    );
    assert_eq!(
        replayed_gaps(&path, Speed::Factor(2.0)).await,
        [150, 1150, 3650]
    );
    assert_eq!(replayed_gaps(&path, Speed::Max).await, [0]);
    // Without its sidecar the same file plays at the even pace of a recording without pauses.
    std::fs::remove_file(dir.path().join("turn-001.sse.times")).unwrap();
    assert_eq!(replayed_gaps(&path, Speed::Factor(1.0)).await, [25, 50, 75]);
}

#[test]
fn the_app_keeps_arrival_times_beside_each_turn_it_saves() {
    use crate::support::tmux::Tmux;
    let t = Tmux::start(
        100,
        30,
        &[
            "--demo",
            "--demo-speed",
            "4",
            "--exit-when-done",
            "--question",
            "Timed?",
        ],
    );
    assert_eq!(t.wait_exit(Duration::from_secs(60)), "0");
    let sidecars: Vec<PathBuf> = support::files_under(t.dir.path())
        .into_iter()
        .filter(|p| p.ends_with("turn-001.sse.times"))
        .collect();
    assert_eq!(sidecars.len(), 1, "{sidecars:?}");
    let raw_path = sidecars[0].with_file_name("turn-001.sse");
    let raw = std::fs::read(&raw_path).unwrap();
    let arrivals = read_arrivals(&raw_path).unwrap();
    // Many marks, in order, the last of them covering bytes of the file.
    assert!(arrivals.marks.len() > 5, "{arrivals:?}");
    assert!(arrivals.marks.last().unwrap().offset < raw.len() as u64);
    assert!(arrivals.marks.windows(2).all(|w| w[0].ms <= w[1].ms));
}

/// A saved session of two turns whose files say they arrived with known gaps, in `store`.
fn saved_with_gaps(store: &research_tui::local::store::SessionStore) -> String {
    use research_tui::agent::turn::TurnRecorder;
    use research_tui::local::store::SavedTurn;
    use research_tui::model::stream_end::StreamEnd;
    let mut saved = store
        .create("research", "bigdata", "http://127.0.0.1:9")
        .unwrap();
    for (n, question) in ["First?", "Second?"].into_iter().enumerate() {
        let writer = saved.begin_turn(question, None).unwrap();
        let (mut turn, _sink) = SavedTurn::new(saved, writer);
        let dir = turn.saved.dir().to_owned();
        let name = format!("turn-00{}.sse", n + 1);
        let (a, b) = (EVENTS[0].len(), EVENTS[0].len() + EVENTS[1].len());
        std::fs::write(dir.join(&name), EVENTS.concat()).unwrap();
        std::fs::write(
            dir.join(format!("{name}.times")),
            format!("# research-tui arrival times 1\nsent 1000\n0 200\n{a} 1200\n{b} 3200\n"),
        )
        .unwrap();
        let session = research_tui::wire::input::read_session(
            std::fs::File::open(dir.join(&name)).unwrap(),
            Provider::Bigdata,
        )
        .unwrap()
        .0;
        turn.end(&session, &StreamEnd::Closed).unwrap();
        saved = turn.saved;
    }
    saved.meta.id
}

#[tokio::test(start_paused = true)]
async fn open_with_a_speed_plays_every_saved_turn_at_its_recorded_pace_keeps_its_times_then_takes_a_follow_up()
 {
    use research_tui::local::store::SessionStore;
    use research_tui::tui::conversation::{Conversation, Settings};
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let id = saved_with_gaps(&store);
    let mut app = support::app();
    let mut conversation = Conversation::new(Some(store.clone()), Settings::default());
    let saved = store.load(&id).unwrap();
    // Events take their arrival times, not the tests' fixed clock.
    app.fixed_elapsed = None;
    conversation
        .play_saved(&mut app, saved, Speed::Factor(2.0))
        .await
        .unwrap();
    let start = tokio::time::Instant::now();
    let mut batches = Vec::new();
    while conversation.is_streaming() {
        let update = conversation.next_update().await;
        if let StreamUpdate::Events(_) = &update {
            batches.push((app.turns.len(), start.elapsed().as_millis() as u64));
        }
        conversation.apply(&mut app, update);
    }
    // Each turn's three arrivals at half their recorded times, the second turn after the first.
    assert_eq!(
        batches,
        [
            (1, 100),
            (1, 600),
            (1, 1600),
            (2, 1700),
            (2, 2200),
            (2, 3200)
        ]
    );
    let questions: Vec<_> = app.turns.iter().map(|t| t.question.clone()).collect();
    assert_eq!(questions, [Some("First?".into()), Some("Second?".into())]);
    assert!(
        app.turns
            .iter()
            .all(|t| t.session.answer.as_str() == "First. Second.")
    );
    assert_eq!(app.continuation().checkpoint_id.as_deref(), Some("k1"));
    // The timelines keep the times the turns arrived at, not the playback's halved ones.
    for turn in &app.turns {
        let timeline = turn.timeline.as_ref().unwrap();
        assert_eq!(timeline.last_ms, Some(3200), "{timeline:?}");
    }
}

fn render(home: &Path, file: &Path, format: &str) -> String {
    let output = support::cli(home)
        .arg("render")
        .arg(file)
        .args(["--format", format])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_and_render_of_a_saved_turn_add_its_timeline_and_a_timing_line() {
    let upstream = gapped_server().await;
    let home = tempfile::tempdir().unwrap();
    let base = format!("http://{upstream}");
    let ask = |format: &'static str| {
        let (home, base) = (home.path().to_owned(), base.clone());
        tokio::task::spawn_blocking(move || {
            let output = support::cli(&home)
                .args(["ask", "Gaps?", "--format", format, "--base-url", &base])
                .env("BIGDATA_API_KEY", KEY)
                .output()
                .unwrap();
            assert!(output.status.success(), "{output:?}");
            String::from_utf8(output.stdout).unwrap()
        })
    };
    let asked: serde_json::Value = serde_json::from_str(&ask("json").await.unwrap()).unwrap();
    let timeline = &asked["timeline"];
    let kinds: Vec<&str> = timeline["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["request", "answer", "end"], "{timeline:#}");
    assert_eq!(timeline["answer_chars"], "First. Second.".chars().count());
    let (answer, end) = (&timeline["phases"][1], &timeline["phases"][2]);
    let ms = |v: &serde_json::Value| v.as_u64().unwrap();
    assert_eq!(ms(&answer["start_ms"]), ms(&timeline["first_byte_ms"]));
    assert_eq!(ms(&answer["start_ms"]), ms(&timeline["first_answer_ms"]));
    let streamed = (ms(&answer["end_ms"]) - ms(&answer["start_ms"])) as f64;
    let total = (ms(&end["start_ms"]) - ms(&answer["start_ms"])) as f64;
    assert!((streamed - 600.0).abs() <= 60.0, "{timeline:#}");
    assert!((total - 1800.0).abs() <= 180.0, "{timeline:#}");
    assert_eq!(timeline["gaps"], serde_json::json!([]));

    // `render` of the saved turn reads the same timeline from the times kept beside it.
    let saved = turn_file(&support::Home::new(home.path()).sessions());
    let rendered: serde_json::Value =
        serde_json::from_str(&render(home.path(), &saved, "json")).unwrap();
    assert_eq!(rendered["timeline"], *timeline);
    let text = render(home.path(), &saved, "text");
    let last = text.trim_end().lines().last().unwrap();
    assert!(last.starts_with("timing: first byte "), "{text}");
    assert!(
        last.contains(" · first answer text ") && last.contains(" chars/s · total 1."),
        "{last}"
    );
    let markdown = render(home.path(), &saved, "markdown");
    assert_eq!(markdown.trim_end().lines().last(), Some(last));

    // A copy without its times renders as before: no timeline, no timing line.
    let bare = home.path().join("bare.sse");
    std::fs::copy(&saved, &bare).unwrap();
    let rendered: serde_json::Value =
        serde_json::from_str(&render(home.path(), &bare, "json")).unwrap();
    assert!(rendered.get("timeline").is_none());
    assert!(!render(home.path(), &bare, "text").contains("timing:"));
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_record_keeps_its_arrival_times_beside_the_file_and_a_replay_of_it_plays_the_gaps_again()
 {
    let upstream = gapped_server().await;
    let home = tempfile::tempdir().unwrap();
    let record = home.path().join("run.sse");
    let output = tokio::task::spawn_blocking({
        let home = home.path().to_owned();
        let record = record.clone();
        let base = format!("http://{upstream}");
        move || {
            support::cli(&home)
                .args(["ask", "Gaps?", "--format", "text", "--base-url", &base])
                .arg("--record")
                .arg(&record)
                .env("BIGDATA_API_KEY", KEY)
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    assert!(output.status.success(), "{output:?}");
    let raw = std::fs::read(&record).unwrap();
    assert_eq!(String::from_utf8_lossy(&raw), EVENTS.concat(), "byte-exact");
    let times = std::fs::read_to_string(home.path().join("run.sse.times")).unwrap();
    assert!(
        times.starts_with("# research-tui arrival times 1\nsent "),
        "{times}"
    );
    let arrivals = read_arrivals(&record).expect("times beside the record");
    let recorded = event_times(&raw, &arrivals);
    assert_gaps(&recorded, "ask --record");
    // The same format as a saved turn's: the one in the store has the same gaps.
    let saved = turn_file(&support::Home::new(home.path()).sessions());
    assert_gaps(
        &event_times(
            &std::fs::read(&saved).unwrap(),
            &read_arrivals(&saved).unwrap(),
        ),
        "the saved turn",
    );
    let played = replayed_gaps(&record, Speed::Factor(1.0)).await;
    assert_eq!(played.len(), 3, "one batch per arrival: {played:?}");
    for i in 1..3 {
        let (want, got) = (
            (recorded[i] - recorded[i - 1]) as f64,
            (played[i] - played[i - 1]) as f64,
        );
        assert!(
            (got - want).abs() <= want * 0.1,
            "replayed gap {i}: {got} ms, recorded {want} ms ({played:?} vs {recorded:?})"
        );
    }
}
