//! The sessions index (`sessions.index`, beside the sessions folder) through the real binary: `sessions`, `sessions --json`
//! and `sessions --search` print the same with the index as from the raw files alone, whether the
//! index is missing, stale, corrupt or hostile; `ask` processes writing at once (new sessions and
//! resumes of one session) leave a whole, fresh line for every session.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use research_tui::agent::turn::TurnRecorder;
use research_tui::local::store::{SavedTurn, SessionStore};
use research_tui::model::session::Session;
use research_tui::model::stream_end::StreamEnd;

use crate::support::{self, Home};

/// What `sessions ARGS` prints in `home` (asserted to succeed within 2 s).
fn sessions(home: &Path, args: &[&str]) -> String {
    let output = support::sessions_within(home, args, Duration::from_secs(2));
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

const QUERIES: &[&str] = &[
    "cowos",
    "hbm4 sold out",
    "lam res",
    "tokyo electron",
    "zqxj",
    "q",
];

/// Every way of listing and searching, as printed.
fn everything(home: &Path) -> Vec<String> {
    let mut printed = vec![sessions(home, &[]), sessions(home, &["--json"])];
    for query in QUERIES {
        printed.push(sessions(home, &["--search", query]));
        printed.push(sessions(home, &["--search", query, "--json"]));
    }
    printed
}

/// What the same commands print with no index at all (the raw files alone); the index the
/// searches wrote is removed again.
fn from_raw_files(home: &Path) -> Vec<String> {
    let index = index_of(&Home::new(home).sessions());
    let _ = std::fs::remove_file(&index);
    let printed: Vec<String> = (0..QUERIES.len() * 2 + 2)
        .map(|k| {
            let _ = std::fs::remove_file(&index);
            let mut args: Vec<&str> = Vec::new();
            if k >= 2 {
                args.extend(["--search", QUERIES[(k - 2) / 2]]);
            }
            if k % 2 == 1 {
                args.push("--json");
            }
            sessions(home, &args)
        })
        .collect();
    let _ = std::fs::remove_file(&index);
    printed
}

/// The index of the sessions folder `root`.
fn index_of(root: &Path) -> PathBuf {
    root.with_file_name("sessions.index")
}

/// `printed` is `expected`, command by command (the first that differs shown in full).
#[track_caller]
fn same(printed: Vec<String>, expected: &[String]) {
    for (k, (printed, expected)) in printed.iter().zip(expected).enumerate() {
        let at = printed
            .bytes()
            .zip(expected.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(printed.len().min(expected.len()));
        let from = printed.floor_char_boundary(at.saturating_sub(80));
        let (a, b) = (&printed[from..], &expected[from..]);
        assert!(
            printed == expected,
            "command {k} differs at {at}:\n{a}\n---\n{b}"
        );
    }
    assert_eq!(printed.len(), expected.len());
}

/// A session saved by the store whose one turn streamed `recording`.
fn saved(store: &SessionStore, question: &str, recording: &str) -> PathBuf {
    let bytes = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(recording)).unwrap();
    saved_stream(store, question, bytes)
}

/// A session saved by the store whose one turn streamed `bytes`.
fn saved_stream(store: &SessionStore, question: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let mut saved = store
        .create("research-agent", "bigdata", "http://127.0.0.1:9")
        .unwrap();
    let writer = saved.begin_turn(question, None).unwrap();
    let (mut turn, sink) = SavedTurn::new(saved.clone(), writer);
    sink.lock().unwrap().write_all(bytes.as_ref()).unwrap();
    turn.end(&Session::new(), &StreamEnd::Closed).unwrap();
    saved.dir().to_owned()
}

/// A Bigdata.com answer event saying `text`.
fn answer_event(text: &str) -> String {
    let event =
        serde_json::json!({"chat_id": "c-1", "message": {"type": "ANSWER", "content": text}});
    format!("data: {event}\n\n")
}

fn two_sessions(home: &Path) -> (PathBuf, PathBuf) {
    let store = SessionStore::new(Home::new(home).sessions());
    let nvidia = saved(&store, "Give me a deep dive on NVIDIA", support::EARNINGS);
    let semis = saved(
        &store,
        "Compare ASML, Lam Research and Tokyo Electron",
        support::SECTOR,
    );
    (nvidia, semis)
}

#[test]
fn the_index_changes_nothing_sessions_prints_and_a_stale_one_is_read_past() {
    let home = tempfile::tempdir().unwrap();
    let (nvidia, _) = two_sessions(home.path());
    let index = index_of(&Home::new(home.path()).sessions());
    assert!(index.is_file(), "the writers recorded their sessions");
    let raw = from_raw_files(home.path());
    assert!(raw[2].contains("CoWoS"), "{}", raw[2]);
    // Written by the writers, and again by a reader after it was removed.
    same(everything(home.path()), &raw);
    assert!(index.is_file());
    same(everything(home.path()), &raw);

    // meta.json edited by hand: the new question is found, the old one no longer.
    let meta_path = nvidia.join("meta.json");
    let meta = std::fs::read_to_string(&meta_path).unwrap();
    std::fs::write(
        &meta_path,
        meta.replace("deep dive on NVIDIA", "zebra xylophone quartet"),
    )
    .unwrap();
    let found = sessions(home.path(), &["--search", "zebra xylophone"]);
    assert!(found.contains("zebra xylophone quartet"), "{found}");
    assert!(!sessions(home.path(), &[]).contains("deep dive on NVIDIA"));
    same(everything(home.path()), &from_raw_files(home.path()));

    // A turn file grown behind its back: its new answer is searched.
    let store = SessionStore::new(Home::new(home.path()).sessions());
    let short = saved_stream(&store, "Short one", answer_event("Wombats sleep a lot."));
    assert!(sessions(home.path(), &["--search", "quokka"]).starts_with("No saved session"));
    let mut turn = std::fs::OpenOptions::new()
        .append(true)
        .open(short.join("turn-001.sse"))
        .unwrap();
    turn.write_all(answer_event(" Quokkas smile.").as_bytes())
        .unwrap();
    let found = sessions(home.path(), &["--search", "quokka", "--json"]);
    assert!(
        found.contains("Wombats sleep a lot. Quokkas smile."),
        "{found}"
    );
    same(everything(home.path()), &from_raw_files(home.path()));

    // A session removed: no longer listed or found.
    std::fs::remove_dir_all(&nvidia).unwrap();
    let listed = sessions(home.path(), &["--json"]);
    assert_eq!(listed.lines().count(), 2, "{listed}");
    assert!(sessions(home.path(), &["--search", "cowos", "--json"]).is_empty());
}

#[test]
fn a_corrupt_truncated_or_forged_index_is_read_past_and_rewritten() {
    let home = tempfile::tempdir().unwrap();
    two_sessions(home.path());
    let index = index_of(&Home::new(home.path()).sessions());
    let raw = from_raw_files(home.path());
    sessions(home.path(), &["--search", "cowos"]);
    let whole = std::fs::read(&index).unwrap();

    // Cut in the middle of a line, then junk, a line of another layout, a line far too long, and
    // lines naming sessions that are not there or with stamps that do not match.
    let mut junk = whole[..whole.len() / 2].to_vec();
    junk.extend_from_slice(b"\n\x00\xff garbage\trt1\t\t\t\nrt0\tx\n");
    junk.extend(std::iter::repeat_n(b'a', 3 << 20));
    junk.extend_from_slice(b"\nrt1\tno-such-session\t1.2.3\t\t\t\t0\t\t-\t\tqcowos\t{}\n");
    let text = String::from_utf8_lossy(&whole).into_owned();
    let restamped: String = text
        .lines()
        .map(|line| {
            let mut fields: Vec<&str> = line.split('\t').collect();
            fields[2] = "1.1.1";
            fields.join("\t") + "\n"
        })
        .collect();
    junk.extend_from_slice(restamped.as_bytes());
    // Each line cut short (a torn write), and glued to the next.
    for line in text.lines() {
        junk.extend_from_slice(&line.as_bytes()[..line.len() * 2 / 3]);
        junk.push(b'\n');
    }
    junk.extend_from_slice(&whole[..whole.len() - 40]);
    for garbage in [junk, Vec::new(), b"rt1".to_vec()] {
        std::fs::write(&index, &garbage).unwrap();
        same(everything(home.path()), &raw);
    }

    // Many superseded lines: a reader rewrites the index with only the fresh ones.
    let stale = restamped.repeat(2000);
    std::fs::write(
        &index,
        format!("{stale}{}", String::from_utf8_lossy(&whole)),
    )
    .unwrap();
    same(everything(home.path()), &raw);
    let rewritten = std::fs::read_to_string(&index).unwrap();
    assert_eq!(rewritten.lines().count(), 2, "{}", rewritten.len());
}

#[test]
fn a_hostile_index_is_never_followed_waited_on_or_read_whole() {
    let home = tempfile::tempdir().unwrap();
    two_sessions(home.path());
    let root = Home::new(home.path()).sessions();
    let index = index_of(&root);
    let raw = from_raw_files(home.path());
    sessions(home.path(), &["--search", "cowos"]);
    let good = std::fs::read(&index).unwrap();

    // A link to a file elsewhere, holding lines that would pass: not read, not written.
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("elsewhere");
    std::fs::write(&target, &good).unwrap();
    std::fs::remove_file(&index).unwrap();
    symlink(&target, &index).unwrap();
    same(everything(home.path()), &raw);
    assert_eq!(
        std::fs::read(&target).unwrap(),
        good,
        "the link was not followed"
    );

    // A FIFO and a folder: nothing hangs.
    std::fs::remove_file(&index).unwrap();
    let status = Command::new("mkfifo").arg(&index).status().unwrap();
    assert!(status.success());
    same(everything(home.path()), &raw);
    std::fs::remove_file(&index).unwrap();
    std::fs::create_dir(&index).unwrap();
    same(everything(home.path()), &raw);
    std::fs::remove_dir(&index).unwrap();

    // Over the size bound (sparse, 2 GiB): not read, and replaced by a fresh index.
    let file = std::fs::File::create(&index).unwrap();
    file.set_len(2 << 30).unwrap();
    drop(file);
    same(everything(home.path()), &raw);
    let size = std::fs::metadata(&index).unwrap().len();
    assert!(size < 1 << 20, "rewritten: {size} bytes");
}

/// The index line for the session in `dir` as it is now on disk, if the index has one.
fn fresh_line<'a>(index: &'a str, dir: &Path) -> Option<&'a str> {
    let id = dir.file_name().unwrap().to_str().unwrap();
    let meta = std::fs::symlink_metadata(dir.join("meta.json")).unwrap();
    let stamp = format!(
        "{}.{}.{}",
        meta.ino(),
        meta.size(),
        i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec())
    );
    index.lines().rfind(|line| {
        line.split('\t').nth(1) == Some(id) && line.split('\t').nth(2) == Some(stamp.as_str())
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_processes_writing_at_once_leave_a_whole_fresh_line_for_every_session() {
    let addr = support::demo_agent(200.0).await;
    let base = format!("http://{addr}");
    let home = tempfile::tempdir().unwrap();
    let ask = |args: &[&str]| {
        support::cli(home.path())
            .arg("ask")
            .args(args)
            .args(["--base-url", &base, "--format", "json"])
            .env("BIGDATA_API_KEY", "sk-test-key")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let first = ask(&["Give me a deep dive on NVIDIA's latest quarterly earnings"])
        .wait_with_output()
        .unwrap();
    assert!(first.status.success(), "{first:?}");
    let listed: serde_json::Value =
        serde_json::from_str(sessions(home.path(), &["--json"]).lines().next().unwrap()).unwrap();
    let checkpoint = listed["turns"][0]["checkpoint_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Six new sessions and three resumes of the first, all at once.
    let questions: Vec<String> = (0..6)
        .map(|n| format!("Question number {n} about TSMC"))
        .collect();
    let mut children: Vec<_> = questions.iter().map(|q| ask(&[q])).collect();
    for n in 0..3 {
        children.push(ask(&[&format!("Follow-up {n}"), "--resume", &checkpoint]));
    }
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{output:?}");
    }

    let root = Home::new(home.path()).sessions();
    let index = std::fs::read_to_string(index_of(&root)).unwrap();
    assert!(index.ends_with('\n'));
    assert!(
        index.lines().all(|line| {
            let (rest, length) = line.rsplit_once('\t').unwrap();
            line.starts_with("rt1.") && rest.len().to_string() == length
        }),
        "every line whole:\n{index}"
    );
    let dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(dirs.len(), 7);
    for dir in &dirs {
        assert!(
            fresh_line(&index, dir).is_some(),
            "{} has a fresh line",
            dir.display()
        );
    }
    let resumed = sessions(home.path(), &["--search", "follow-up 2", "--json"]);
    let resumed: serde_json::Value = serde_json::from_str(resumed.lines().next().unwrap()).unwrap();
    assert_eq!(resumed["turns"].as_array().unwrap().len(), 4, "{resumed}");
    same(everything(home.path()), &from_raw_files(home.path()));
}

/// The list of the sessions folder `root` (what `sessions` and the picker read).
fn list_of(root: &Path) -> PathBuf {
    root.with_file_name("sessions.list")
}

/// `sessions` and `sessions --json` as printed.
fn listing(home: &Path) -> Vec<String> {
    vec![sessions(home, &[]), sessions(home, &["--json"])]
}

/// The same from the raw files alone (no index, no list; both removed again after).
fn listing_from_raw_files(home: &Path) -> Vec<String> {
    let root = Home::new(home).sessions();
    let printed = [&[][..], &["--json"][..]]
        .iter()
        .map(|args| {
            let _ = std::fs::remove_file(index_of(&root));
            let _ = std::fs::remove_file(list_of(&root));
            sessions(home, args)
        })
        .collect();
    let _ = std::fs::remove_file(list_of(&root));
    printed
}

#[test]
fn a_stale_corrupt_or_hostile_list_changes_nothing_sessions_prints() {
    let home = tempfile::tempdir().unwrap();
    let (nvidia, _) = two_sessions(home.path());
    let root = Home::new(home.path()).sessions();
    let list = list_of(&root);
    assert!(list.is_file(), "the writers recorded their sessions");
    let raw = listing_from_raw_files(home.path());
    assert!(raw[0].contains("deep dive on NVIDIA"), "{}", raw[0]);
    same(listing(home.path()), &raw);
    assert!(list.is_file(), "a reader wrote it again");
    let good = std::fs::read(&list).unwrap();

    // meta.json edited by hand, in place: listed as it is now.
    let meta_path = nvidia.join("meta.json");
    let meta = std::fs::read_to_string(&meta_path).unwrap();
    std::fs::write(
        &meta_path,
        meta.replace("deep dive on NVIDIA", "zebra quartet"),
    )
    .unwrap();
    let edited = listing(home.path());
    assert!(edited[0].contains("zebra quartet"), "{}", edited[0]);
    same(edited, &listing_from_raw_files(home.path()));
    std::fs::write(&meta_path, &meta).unwrap();
    let raw = listing_from_raw_files(home.path());

    // Torn, glued, forged and restamped lines, junk, a line far too long.
    let text = String::from_utf8_lossy(&good).into_owned();
    let mut junk = good[..good.len() / 2].to_vec();
    junk.extend_from_slice(b"\n\x00\xff garbage\trl1\t\t\t\n");
    junk.extend(std::iter::repeat_n(b'a', 3 << 20));
    for line in text.lines() {
        let mut fields: Vec<&str> = line.split('\t').collect();
        fields[2] = "1.1.1";
        junk.extend_from_slice((fields.join("\t") + "\n").as_bytes());
        junk.extend_from_slice(&line.as_bytes()[..line.len() * 2 / 3]);
    }
    junk.extend_from_slice(&good[..good.len() - 40]);
    for garbage in [junk, Vec::new(), b"rl1".to_vec()] {
        std::fs::write(&list, &garbage).unwrap();
        same(listing(home.path()), &raw);
    }

    // Many superseded lines: a reader rewrites the list with only the fresh ones.
    std::fs::write(
        &list,
        format!("{}{text}", text.replace("rl1.", "rl0.").repeat(1500)),
    )
    .unwrap();
    same(listing(home.path()), &raw);
    let rewritten = std::fs::read_to_string(&list).unwrap();
    assert_eq!(rewritten.lines().count(), 2, "{}", rewritten.len());

    // A link to a file elsewhere: not read, not written; a FIFO and a folder: nothing hangs.
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("elsewhere");
    std::fs::write(&target, &good).unwrap();
    std::fs::remove_file(&list).unwrap();
    symlink(&target, &list).unwrap();
    same(listing(home.path()), &raw);
    assert_eq!(
        std::fs::read(&target).unwrap(),
        good,
        "the link was not followed"
    );
    std::fs::remove_file(&list).unwrap();
    let status = Command::new("mkfifo").arg(&list).status().unwrap();
    assert!(status.success());
    same(listing(home.path()), &raw);
    std::fs::remove_file(&list).unwrap();
    std::fs::create_dir(&list).unwrap();
    same(listing(home.path()), &raw);
}
