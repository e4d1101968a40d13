//! The saved-sessions history at scale: generates 10,000 sessions in a temp dir (each a `meta.json`,
//! a raw turn file — one of the demo recordings, hard-linked so it takes no space — and a fresh
//! `summary.json`; every fifth has a follow-up turn), then times what a user waits for:
//!
//! - `research-tui sessions`, `sessions --json` and `sessions --search TEXT` (the real binary),
//! - the picker opening (`s`: every meta read, the list shown),
//! - the picker's filter getting the answers and sources (every summary read, in the background),
//! - each keystroke of a filter typed in the picker (all 10,000 sessions matched again),
//! - rebuilding 1,000 summaries that went missing (the raw streams parsed again).
//!
//! Run with `cargo bench --bench history` (`HISTORY_SESSIONS=N` for another count). The generated
//! data is deleted at the end.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use research_tui::local::store::SessionStore;

use research_tui::local::meta::SessionMeta;
use research_tui::local::summary::{self, SessionSummary, TurnSummary};
use research_tui::tui::state::Picker;

const RECORDINGS: &[(&str, &str)] = &[
    (
        "bigdata",
        "assets/recordings/bigdata/earnings-deep-dive.sse",
    ),
    ("bigdata", "assets/recordings/bigdata/sector-comparison.sse"),
    ("xai", "assets/recordings/xai/solid-state-batteries.sse"),
    ("zeta", "assets/recordings/zeta/rag-long-documents.sse"),
    (
        "openai",
        "assets/recordings/openai/sodium-ion-grid-storage.sse",
    ),
    (
        "perplexity",
        "assets/recordings/perplexity/eu-ai-act-gpai.sse",
    ),
];
const FOLLOW_UP: &str = "assets/recordings/bigdata/follow-up.sse";

const COMPANIES: &[&str] = &[
    "NVIDIA",
    "AMD",
    "ASML",
    "TSMC",
    "Intel",
    "Micron",
    "SK hynix",
    "Samsung",
    "Apple",
    "Microsoft",
    "Alphabet",
    "Amazon",
    "Meta",
    "Tesla",
    "BYD",
    "CATL",
    "Siemens",
    "SAP",
    "LVMH",
    "Novo Nordisk",
];
const TOPICS: &[&str] = &[
    "latest quarter: revenue, margins and guidance",
    "supply constraints and capacity plans",
    "China exposure and export controls",
    "valuation against peers",
    "management commentary on AI demand",
    "free cash flow and buybacks",
    "risks flagged in the latest 10-K",
    "analyst estimate revisions this month",
];

fn meta(i: usize, provider: &str, turns: usize) -> SessionMeta {
    let minute = 10_000 - i;
    let stamp = format!(
        "2026-{:02}-{:02}T{:02}:{:02}:00Z",
        1 + minute / 40_000,
        1 + minute / 1440 % 28,
        minute / 60 % 24,
        minute % 60
    );
    let question = format!(
        "{} — {}",
        COMPANIES[i % COMPANIES.len()],
        TOPICS[i / COMPANIES.len() % TOPICS.len()]
    );
    let turn = |n: usize, q: &str| {
        serde_json::json!({
            "question": q, "started_at": stamp, "ended_at": stamp,
            "from_checkpoint_id": null, "checkpoint_id": format!("ckpt-{i:05}-{n}"),
            "status": "complete", "stream_file": format!("turn-{n:03}.sse"),
        })
    };
    let mut list = vec![turn(1, &question)];
    if turns > 1 {
        list.push(turn(2, "And how does that compare with last year?"));
    }
    serde_json::from_value(serde_json::json!({
        "id": format!("20260101-000000-{i:05}"), "created_at": stamp, "updated_at": stamp,
        "endpoint": "research-agent", "provider": provider, "base_url": "https://api.example",
        "chat_id": format!("chat-{i:05}"), "execution_id": null, "turns": list,
    }))
    .unwrap()
}

/// Link `from` to `to` (a copy where links are not allowed).
fn link(from: &Path, to: &Path) {
    if std::fs::hard_link(from, to).is_err() {
        std::fs::copy(from, to).unwrap();
    }
}

/// The summary of one turn of `recording`, as the store builds it.
fn turn_summary(scratch: &Path, provider: &str, recording: &Path) -> TurnSummary {
    let dir = scratch.join(format!(
        "{provider}-{}",
        recording.display().to_string().len()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut meta = meta(0, provider, 1);
    meta.id = dir.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::write(dir.join("meta.json"), serde_json::to_vec(&meta).unwrap()).unwrap();
    link(recording, &dir.join("turn-001.sse"));
    let built = summary::load(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    built.turns.into_iter().next().unwrap()
}

fn generate(root: &Path, count: usize) {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let scratch = root.with_file_name("scratch");
    let follow_up = turn_summary(&scratch, "bigdata", &manifest.join(FOLLOW_UP));
    let turns: Vec<TurnSummary> = RECORDINGS
        .iter()
        .map(|(provider, path)| turn_summary(&scratch, provider, &manifest.join(path)))
        .collect();
    std::fs::create_dir_all(root).unwrap();
    for i in 0..count {
        let k = i % RECORDINGS.len();
        let (provider, path) = RECORDINGS[k];
        let two = i % 5 == 0;
        let meta = meta(i, provider, if two { 2 } else { 1 });
        let dir = root.join(&meta.id);
        std::fs::create_dir(&dir).unwrap();
        link(&manifest.join(path), &dir.join("turn-001.sse"));
        let mut summary_turns = vec![turns[k].clone()];
        if two {
            link(&manifest.join(FOLLOW_UP), &dir.join("turn-002.sse"));
            let mut second = follow_up.clone();
            second.stream_file = "turn-002.sse".into();
            summary_turns.push(second);
        }
        std::fs::write(dir.join("meta.json"), serde_json::to_vec(&meta).unwrap()).unwrap();
        let summary = SessionSummary {
            version: summary::VERSION,
            meta,
            turns: summary_turns,
        };
        std::fs::write(
            dir.join("summary.json"),
            serde_json::to_vec(&summary).unwrap(),
        )
        .unwrap();
    }
}

/// The median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn binary(data: &Path, args: &[&str]) -> Duration {
    median(5, || {
        let out = Command::new(env!("CARGO_BIN_EXE_research-tui"))
            .args(args)
            .env("XDG_DATA_HOME", data)
            .output()
            .unwrap();
        assert!(out.status.success() && !out.stdout.is_empty());
    })
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let count: usize = std::env::var("HISTORY_SESSIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let root = data.join("research-tui").join("sessions");
    let started = Instant::now();
    generate(&root, count);
    println!("generated {count} sessions in {}", ms(started.elapsed()));
    let store = SessionStore::new(&root);

    let rows = [
        ("research-tui sessions", binary(&data, &["sessions"])),
        (
            "research-tui sessions --json",
            binary(&data, &["sessions", "--json"]),
        ),
        (
            "research-tui sessions --search \"cowos packaging\"",
            binary(&data, &["sessions", "--search", "cowos packaging"]),
        ),
        (
            "picker opens (s: every meta read)",
            median(5, || {
                let list = store.list();
                assert_eq!(list.len(), count);
            }),
        ),
        (
            "picker filter ready (every summary read)",
            median(3, || assert_eq!(summary::list(&root).len(), count)),
        ),
    ];
    let entries: Vec<Arc<SessionSummary>> =
        summary::list(&root).into_iter().map(Arc::new).collect();
    let mut picker = Picker::new(entries, None);
    picker.start_filter();
    let mut keystrokes = Vec::new();
    for c in "nvidia margins".chars() {
        let start = Instant::now();
        picker.edit_filter(crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Char(c),
            crossterm::event::KeyModifiers::NONE,
        ));
        keystrokes.push(start.elapsed());
    }
    let worst = keystrokes.iter().max().copied().unwrap_or_default();
    let mean = keystrokes.iter().sum::<Duration>() / keystrokes.len() as u32;
    let matched = picker.shown.len();

    // 1,000 summaries go missing: the next read rebuilds them from the raw streams.
    for i in (0..count).step_by(10) {
        let _ = std::fs::remove_file(root.join(format!("20260101-000000-{i:05}/summary.json")));
    }
    let rebuild = median(1, || assert_eq!(summary::list(&root).len(), count));

    println!("\n| {count} saved sessions | time |\n|---|---:|");
    for (what, time) in rows {
        println!("| {what} | {} |", ms(time));
    }
    println!(
        "| picker filter, per keystroke (\"nvidia margins\", {matched} matches) | {} mean, {} worst |",
        ms(mean),
        ms(worst)
    );
    println!(
        "| every summary read, {} of them rebuilt from the raw streams | {} |",
        count.div_ceil(10),
        ms(rebuild)
    );
    drop(tmp);
}
