//! The store against a hostile data directory, through the real binary: a symlinked session
//! folder, a `.lock` that is a symlink, a `meta.json` naming another session, FIFOs and devices
//! where files should be. Nothing is written outside the data directory, and `sessions` (every
//! mode) returns within a second. A writer that cannot take a session's lock says who holds it.

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
    let mut child = support::cli(home)
        .arg("sessions")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            panic!("sessions {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = start.elapsed();
    assert!(
        took < Duration::from_secs(1),
        "sessions {args:?} took {took:?}"
    );
    child.wait_with_output().unwrap()
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

#[test]
fn a_writer_that_cannot_take_the_lock_promptly_says_who_holds_it() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionStore::new(Home::new(home.path()).sessions());
    let id = real_session(&store);
    let mut saved = store.load(&id).unwrap();
    let held = research_tui::local::session_files::SessionLock::acquire(saved.dir()).unwrap();
    let start = Instant::now();
    let refused = saved.begin_turn("blocked?", None).unwrap_err();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    let message = refused.to_string();
    assert!(
        message.contains(&format!("locked by process {}", std::process::id())),
        "{message}"
    );
    drop(held);
    assert!(saved.begin_turn("free again", None).is_ok());
}
