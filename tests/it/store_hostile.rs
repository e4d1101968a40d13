//! The store against a hostile data directory, through the real binary: a symlinked session
//! folder, a `.lock` that is a symlink, a `meta.json` naming another session, FIFOs and devices
//! where files should be. Nothing is written outside the data directory, and `sessions` (every
//! mode) returns within a second. A writer facing a stopped lock holder names it and saves its
//! turn in a branch.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use research_tui::local::store::SessionStore;

use crate::support::{self, Home};

/// A real session made by the store, its folder's name.
fn real_session(store: &SessionStore) -> String {
    let mut saved = store
        .create("research-agent", "bigdata", "http://127.0.0.1:9")
        .unwrap();
    let writer = saved.begin_turn("What is in the turn?", None).unwrap();
    drop(writer);
    saved.meta.id.clone()
}

/// `sessions ARGS` in `home`: its output, after asserting it returned within a second.
fn sessions(home: &Path, args: &[&str]) -> Output {
    support::sessions_within(home, args, Duration::from_secs(1))
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn symlinked_folders_and_locks_and_a_meta_naming_another_session_get_nothing_written() {
    let home = tempfile::tempdir().unwrap();
    let root = Home::new(home.path()).sessions();
    let store = SessionStore::new(&root);
    let id = real_session(&store);
    // Outside the data directory: a folder holding a session's meta, linked into `sessions/`.
    let outside = tempfile::tempdir().unwrap();
    let meta = std::fs::read_to_string(root.join(&id).join("meta.json")).unwrap();
    std::fs::write(
        outside.path().join("meta.json"),
        meta.replace(&id, "linked"),
    )
    .unwrap();
    symlink(outside.path(), root.join("linked")).unwrap();
    // A real session whose `.lock` points outside.
    let locked = real_session(&store);
    let target = outside.path().join("created-through-the-lock");
    let _ = std::fs::remove_file(root.join(&locked).join(".lock"));
    symlink(&target, root.join(&locked).join(".lock")).unwrap();
    // A folder whose meta names the first session.
    std::fs::create_dir(root.join("impostor")).unwrap();
    std::fs::write(root.join("impostor/meta.json"), &meta).unwrap();
    let before = names_in(outside.path());

    for args in [&["--json"][..], &[][..], &["--search", "turn"][..]] {
        let output = sessions(home.path(), args);
        let listed = String::from_utf8_lossy(&output.stdout);
        assert!(
            !listed.contains("linked") && !listed.contains("impostor"),
            "{listed}"
        );
    }
    assert_eq!(
        names_in(outside.path()),
        before,
        "nothing is written outside"
    );
    assert!(!target.exists(), "the lock's link was not followed");
    assert!(store.load("linked").is_err());
    assert!(
        store.load("impostor").is_err(),
        "a meta naming another session is refused"
    );
    let mut saved = store.load(&locked).unwrap();
    assert!(
        saved.begin_turn("again", None).is_err(),
        "a linked lock is refused"
    );
    assert!(!target.exists());
}

#[test]
fn fifos_and_devices_where_files_should_be_never_hang_sessions() {
    let home = tempfile::tempdir().unwrap();
    let root = Home::new(home.path()).sessions();
    let store = SessionStore::new(&root);
    // A session whose meta.json is a FIFO.
    std::fs::create_dir_all(root.join("fifo-meta")).unwrap();
    mkfifo(&root.join("fifo-meta/meta.json"));
    // A session whose turn file is a FIFO, and one whose turn file is /dev/zero.
    let fifo_turn = real_session(&store);
    let turn = store.load(&fifo_turn).unwrap().meta.turns[0]
        .stream_file
        .clone();
    std::fs::remove_file(root.join(&fifo_turn).join(&turn)).unwrap();
    mkfifo(&root.join(&fifo_turn).join(&turn));
    let zero_turn = real_session(&store);
    let turn = store.load(&zero_turn).unwrap().meta.turns[0]
        .stream_file
        .clone();
    std::fs::remove_file(root.join(&zero_turn).join(&turn)).unwrap();
    symlink("/dev/zero", root.join(&zero_turn).join(&turn)).unwrap();
    for args in [&["--json"][..], &[][..], &["--search", "turn"][..]] {
        let output = sessions(home.path(), args);
        assert!(output.status.success(), "{output:?}");
    }
}

/// `ask --demo ARGS` in `home`, as JSON.
fn ask_demo(home: &Path, args: &[&str]) -> Output {
    support::cli(home)
        .args(["ask", "--demo", "--demo-speed", "200", "--format", "json"])
        .args(args)
        .output()
        .unwrap()
}

/// A real process (flock(1)) that takes the lock of the session in `dir` and is then stopped with
/// SIGSTOP while it holds it. It does not write its pid into the lock file (the last writer's
/// stays there): the holder is named from the kernel's record of the lock.
struct StoppedHolder(std::process::Child);

impl StoppedHolder {
    fn hold(dir: &Path) -> StoppedHolder {
        use std::io::BufRead;
        let lock = dir.join(".lock");
        // flock(1) takes the lock and holds it while its command runs (`-o`: the command does
        // not inherit it); the command says so, then waits for its stdin to close.
        let mut child = Command::new("flock")
            .arg("-o")
            .arg(&lock)
            .args(["sh", "-c", "echo held && read -r _"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "held");
        let pid = child.id();
        // SAFETY: kill(2) on the child this test spawned and still owns.
        assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGSTOP) }, 0);
        StoppedHolder(child)
    }
}

impl Drop for StoppedHolder {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
        // Its command's stdin closes: it ends too.
        drop(self.0.stdin.take());
    }
}

#[test]
fn a_writer_facing_a_stopped_lock_holder_saves_its_turn_in_a_branch_and_names_the_holder() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionStore::new(Home::new(home.path()).sessions());
    let first = ask_demo(home.path(), &["What did NVIDIA report?"]);
    assert!(first.status.success(), "{first:?}");
    let first: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    let checkpoint = first["checkpoint_id"].as_str().unwrap().to_owned();
    let original = store.list()[0].clone();
    let holder = StoppedHolder::hold(&store.root().join(&original.id));

    let start = Instant::now();
    let follow_up = ask_demo(home.path(), &["And AMD?", "--resume", &checkpoint]);
    let took = start.elapsed();
    assert!(follow_up.status.success(), "{follow_up:?}");
    assert!(took < Duration::from_secs(15), "{took:?}");
    let answer: serde_json::Value = serde_json::from_slice(&follow_up.stdout).unwrap();
    assert!(!answer["answer"].as_str().unwrap().is_empty());

    // One line says who holds the lock and where the turn went.
    let stderr = String::from_utf8_lossy(&follow_up.stderr);
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("branched from"))
        .collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].contains(&format!("locked by process {}", holder.0.id())),
        "{stderr}"
    );
    let branch = store
        .list()
        .into_iter()
        .find(|meta| meta.id != original.id)
        .expect("a new session holds the turn");
    assert!(said[0].contains(&branch.id), "{stderr}");
    assert!(said[0].contains(&original.id), "{stderr}");

    // The branch holds the turn, linked to the original and its conversation; nothing was lost.
    assert_eq!(branch.branched_from.as_deref(), Some(original.id.as_str()));
    assert_eq!(branch.chat_id, original.chat_id);
    assert_eq!(branch.turns.len(), 1);
    assert_eq!(branch.turns[0].question, "And AMD?");
    assert_eq!(branch.turns[0].status.as_str(), "complete");
    assert_eq!(
        branch.turns[0].from_checkpoint_id.as_deref(),
        Some(checkpoint.as_str())
    );
    let saved = store.load(&branch.id).unwrap();
    let replayed = saved.replay_turn(&saved.meta.turns[0]);
    assert_eq!(replayed.answer.as_str(), answer["answer"].as_str().unwrap());
    drop(holder);
    assert_eq!(store.load(&original.id).unwrap().meta.turns.len(), 1);
}
