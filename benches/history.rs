//! The saved-sessions history at scale: generates 10,000 sessions (`HISTORY_SESSIONS=100000` for
//! 100,000) in a temp dir (each a `meta.json`, a raw turn file — one of the demo recordings,
//! hard-linked so it takes no space — and a fresh `summary.json`; every fifth has a follow-up turn;
//! no sessions index yet), then measures what a user waits for:
//!
//! - the first `sessions --search`, which finds no index, reads every summary and writes it;
//! - `fzf --filter` over every question (the anchor), `research-tui sessions`, `sessions --json`
//!   and `sessions --search TEXT` (the real binary), alternating, 7 runs each: the median wall time,
//!   its ratio to fzf's in the same run, and each one's peak RSS (from `wait4`);
//! - in process: the picker opening (`s`), its filter getting answers and sources, each keystroke
//!   of a filter typed in it, and 1,000 sessions changed behind the index's back (read
//!   again from the raw streams and recorded).
//!
//! The load average is printed at the start and the end. Run with `cargo bench --bench history`
//! (needs `fzf`). The generated data is deleted at the end.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use research_tui::local::store::SessionStore;

use research_tui::local::index;
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

/// The id of generated session `i`.
fn id(i: usize) -> String {
    format!("20260101-000000-{i:06}")
}

/// The meta of generated session `i` of `count` (session 0 the newest), with `turns` turns.
fn meta(i: usize, count: usize, provider: &str, turns: usize) -> SessionMeta {
    let minute = count - i;
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
            "from_checkpoint_id": null, "checkpoint_id": format!("ckpt-{i:06}-{n}"),
            "status": "complete", "stream_file": format!("turn-{n:03}.sse"),
        })
    };
    let mut list = vec![turn(1, &question)];
    if turns > 1 {
        list.push(turn(2, FOLLOW_UP_QUESTION));
    }
    serde_json::from_value(serde_json::json!({
        "id": id(i), "created_at": stamp, "updated_at": stamp,
        "endpoint": "research-agent", "provider": provider, "base_url": "https://api.example",
        "chat_id": format!("chat-{i:06}"), "execution_id": null, "turns": list,
    }))
    .unwrap()
}

const FOLLOW_UP_QUESTION: &str = "And how does that compare with last year?";

/// Link `from` to `to` (a copy where links are not allowed).
fn link(from: &Path, to: &Path) {
    if std::fs::hard_link(from, to).is_err() {
        // Another filesystem (a tree on tmpfs, say): one copy of the recording beside the
        // sessions, linked from there, not one a session (100,000 × 100 KB).
        let sessions = to.parent().and_then(Path::parent).unwrap();
        let copy = sessions
            .with_file_name("recordings")
            .join(from.file_name().unwrap());
        if !copy.exists() {
            std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
            std::fs::copy(from, &copy).unwrap();
        }
        std::fs::hard_link(&copy, to).unwrap();
    }
}

/// The summary of one turn of `recording`, as the store builds it.
fn turn_summary(scratch: &Path, provider: &str, recording: &Path) -> TurnSummary {
    let dir = scratch.join(format!(
        "{provider}-{}",
        recording.display().to_string().len()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut meta = meta(0, 1, provider, 1);
    meta.id = dir.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::write(dir.join("meta.json"), serde_json::to_vec(&meta).unwrap()).unwrap();
    link(recording, &dir.join("turn-001.sse"));
    let built = summary::load(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    built.turns.into_iter().next().unwrap()
}

/// Generate `count` sessions in `root`; their questions, one a line.
fn generate(root: &Path, count: usize) -> String {
    let mut questions = String::new();
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
        let meta = meta(i, count, provider, if two { 2 } else { 1 });
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
        for turn in &meta.turns {
            questions.push_str(&turn.question);
            questions.push('\n');
        }
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
    questions
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

/// One run of `command`, its output thrown away: the wall time, the CPU time (user + sys) and the
/// peak RSS (KiB) of the process, from `wait4`.
// The child is reaped by `wait4`, which also gives its resource usage.
#[allow(clippy::zombie_processes)]
fn run(command: &mut Command) -> (Duration, Duration, u64) {
    let start = Instant::now();
    let child = command.stdout(Stdio::null()).spawn().unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waiting for our own child, with pointers to live locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let took = start.elapsed();
    // fzf --filter exits 1 when nothing matches.
    let fine = if command.get_program() == "fzf" { 1 } else { 0 };
    assert!(
        waited == pid && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) <= fine,
        "{command:?} failed"
    );
    let cpu =
        |t: libc::timeval| Duration::from_micros(t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64);
    (
        took,
        cpu(usage.ru_utime) + cpu(usage.ru_stime),
        usage.ru_maxrss as u64,
    )
}

/// The binary measured: this build's, or `HISTORY_BINARY` (e.g. an earlier build's).
fn binary() -> PathBuf {
    std::env::var_os("HISTORY_BINARY")
        .map_or_else(|| env!("CARGO_BIN_EXE_research-tui").into(), PathBuf::from)
}

fn research_tui(data: &Path, args: &[&str]) -> Command {
    research_tui_of(&binary(), data, args)
}

fn research_tui_of(binary: &Path, data: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(binary);
    command.args(args).env("XDG_DATA_HOME", data);
    command
}

fn fzf(questions: &Path, query: &str) -> Command {
    let mut command = Command::new("fzf");
    command
        .args(["--filter", query])
        .stdin(Stdio::from(std::fs::File::open(questions).unwrap()));
    command
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// What the binary prints for `args` (checked once before the timed runs).
fn printed(data: &Path, args: &[&str]) -> String {
    let out = research_tui(data, args).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

const RUNS: usize = 7;

/// The commands compared: a name and how to start it.
type Row<'a> = (String, Box<dyn Fn() -> Command + 'a>);

/// Run every command of `rows` [`RUNS`] times, alternating, and print each one's median wall
/// time, its ratio to the first row's (the anchor) and its peak RSS.
fn compare(count: usize, rows: &[Row]) {
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); rows.len()];
    let mut cpus: Vec<Vec<Duration>> = vec![Vec::new(); rows.len()];
    let mut rss = vec![0u64; rows.len()];
    for _ in 0..RUNS {
        for (k, (_, command)) in rows.iter().enumerate() {
            let (took, cpu, peak) = run(&mut command());
            times[k].push(took);
            cpus[k].push(cpu);
            rss[k] = rss[k].max(peak);
        }
    }
    let median = |t: &mut Vec<Duration>| {
        t.sort();
        t[t.len() / 2]
    };
    let walls: Vec<Duration> = times.iter_mut().map(median).collect();
    let cpus: Vec<Duration> = cpus.iter_mut().map(median).collect();
    println!(
        "\n| {count} saved sessions, {RUNS} alternating runs, medians | wall | × fzf | CPU (user+sys) | × fzf | peak RSS |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for (k, (what, _)) in rows.iter().enumerate() {
        println!(
            "| {what} | {} | {:.1}× | {} | {:.1}× | {:.1} MB |",
            ms(walls[k]),
            walls[k].as_secs_f64() / walls[0].as_secs_f64(),
            ms(cpus[k]),
            cpus[k].as_secs_f64() / cpus[0].as_secs_f64().max(0.001),
            rss[k] as f64 / 1024.0
        );
    }
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let count: usize = std::env::var("HISTORY_SESSIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    // HISTORY_DIR: generate there and keep it (to profile a command on it afterwards).
    let tmp = match std::env::var_os("HISTORY_DIR") {
        Some(dir) => tempfile::Builder::new()
            .disable_cleanup(true)
            .tempdir_in(dir)
            .unwrap(),
        None => tempfile::tempdir().unwrap(),
    };
    let data = tmp.path().join("data");
    let root = data.join("research-tui").join("sessions");
    let started = Instant::now();
    let questions = tmp.path().join("questions.txt");
    std::fs::write(&questions, generate(&root, count)).unwrap();
    println!("generated {count} sessions in {}", ms(started.elapsed()));
    println!("load average at the start: {}", load());

    // The first reader finds no index: it reads every summary and writes the index.
    let (first, _, first_rss) = run(&mut research_tui(&data, &["sessions", "--search", "cowos"]));
    println!(
        "first `sessions --search` (no index yet: every summary read, the index written): {}, {:.1} MB peak RSS",
        ms(first),
        first_rss as f64 / 1024.0
    );
    let listed = printed(&data, &["sessions"]);
    assert_eq!(listed.lines().count(), count + 1, "every session listed");
    let found = printed(&data, &["sessions", "--search", "cowos packaging"]);
    assert!(found.contains("↳ answer"), "{found}");

    // HISTORY_BASELINE=<binary>: an earlier build, alternating in the same run, on a hard-linked
    // copy of the sessions with an index of its own (the two builds' indexes may differ).
    let baseline = std::env::var_os("HISTORY_BASELINE").map(PathBuf::from);
    let base_data = tmp.path().join("base");
    let queries = ["cowos packaging", "nvidia margins"];
    let (data, questions) = (data.as_path(), questions.as_path());
    let mut rows: Vec<Row> = vec![(
        format!(
            "`fzf --filter \"{}\"` over the {} questions",
            queries[0],
            questions_count(questions)
        ),
        Box::new(|| fzf(questions, queries[0])),
    )];
    rows.push((
        "`research-tui sessions`".into(),
        Box::new(|| research_tui(data, &["sessions"])),
    ));
    rows.push((
        "`research-tui sessions --json`".into(),
        Box::new(|| research_tui(data, &["sessions", "--json"])),
    ));
    for query in queries {
        rows.push((
            format!("`research-tui sessions --search \"{query}\"`"),
            Box::new(move || research_tui(data, &["sessions", "--search", query])),
        ));
    }
    rows.push((
        format!("`fzf --filter \"{}\"` over the questions", queries[1]),
        Box::new(|| fzf(questions, queries[1])),
    ));
    if let Some(baseline) = &baseline {
        std::fs::create_dir_all(base_data.join("research-tui")).unwrap();
        let copied = Command::new("cp")
            .arg("-al")
            .arg(&root)
            .arg(base_data.join("research-tui").join("sessions"))
            .status()
            .unwrap();
        assert!(copied.success());
        let (first, _, _) = run(&mut research_tui_of(
            baseline,
            &base_data,
            &["sessions", "--search", "cowos"],
        ));
        println!(
            "the baseline's first `sessions --search` (no index yet): {}",
            ms(first)
        );
        let (baseline, base_data) = (baseline.as_path(), base_data.as_path());
        rows.push((
            "baseline: `research-tui sessions`".into(),
            Box::new(move || research_tui_of(baseline, base_data, &["sessions"])),
        ));
        for query in queries {
            rows.push((
                format!("baseline: `research-tui sessions --search \"{query}\"`"),
                Box::new(move || {
                    research_tui_of(baseline, base_data, &["sessions", "--search", query])
                }),
            ));
        }
    }
    compare(count, &rows);
    in_process(&root, count);
    println!("load average at the end: {}", load());
    drop(tmp);
}

fn questions_count(questions: &Path) -> usize {
    std::fs::read_to_string(questions).unwrap().lines().count()
}

/// What the app does in process: the picker opening and filtering, and sessions changed behind
/// the index's back read again.
fn in_process(root: &Path, count: usize) {
    let store = SessionStore::new(root);
    let opens = median(5, || assert_eq!(store.list().len(), count));
    let ready = median(3, || assert_eq!(index::summaries(root).len(), count));
    let entries: Vec<Arc<SessionSummary>> =
        index::summaries(root).into_iter().map(Arc::new).collect();
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
    drop(picker);

    // 1,000 sessions change behind the index's back (meta.json rewritten, summary.json gone): the
    // next reader reads those from the raw streams and records them again.
    let changed = 1000.min(count);
    for i in (0..count).step_by(count / changed) {
        let dir = root.join(id(i));
        let meta = std::fs::read(dir.join("meta.json")).unwrap();
        std::fs::remove_file(dir.join("meta.json")).unwrap();
        std::fs::write(dir.join("meta.json"), meta).unwrap();
        let _ = std::fs::remove_file(dir.join("summary.json"));
    }
    let rebuild = median(1, || assert_eq!(index::summaries(root).len(), count));
    let after = median(3, || assert_eq!(index::summaries(root).len(), count));

    println!("\n| {count} saved sessions, in process | time |\n|---|---:|");
    println!(
        "| the picker opens (`s`: every meta, from the index) | {} |",
        ms(opens)
    );
    println!(
        "| the picker's filter gets answers and sources (from the index, in the background) | {} |",
        ms(ready)
    );
    println!(
        "| picker filter, per keystroke (\"nvidia margins\", {matched} matches) | {} mean, {} worst |",
        ms(mean),
        ms(worst)
    );
    println!(
        "| {} sessions changed behind the index's back: read from the raw streams, recorded | {} |",
        changed,
        ms(rebuild)
    );
    println!("| the same read again, from the index | {} |", ms(after));
}
