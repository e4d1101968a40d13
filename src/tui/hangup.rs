//! Ending the app when its terminal hangs up and its loop cannot see it.
//!
//! crossterm 0.29's event reader retries forever on a hung-up terminal: its read loop takes
//! neither `read`'s 0 nor EIO as an end (crossterm-rs/crossterm#793, fix unreleased). A screen
//! whose loop is inside that reader when the terminal goes (`tmux kill-session`, a closed
//! terminal tab or SSH connection) never returns to the loop, so it never sees the SIGHUP it was
//! sent, ignores SIGTERM too, and keeps a core busy until killed with SIGKILL. The first-frame
//! benchmark left fourteen such processes behind in 63 starts.
//!
//! So a thread waits in `poll` on the terminal, asking for no event: a hangup is reported
//! whatever is asked, so it sleeps until then and costs nothing. At the hangup it gives the app's
//! loop [`GRACE`] to return as it does on SIGHUP. If it has not returned and the terminal is still
//! taken then, the loop is stuck in the reader, and the process is ended; the turn that was
//! streaming is left as a dead writer's, which the store reads as cut. An app whose loop returned
//! is on its way out (saving its session; the telemetry export may take 2 s): it is ended only if
//! it is still running [`FINISHING`] later.

use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rustix::event::{PollFd, PollFlags};

/// How long the app's loop has to end on its own after its terminal hung up.
const GRACE: Duration = Duration::from_secs(1);
/// How long an app that gave its terminal back has to finish after that.
const FINISHING: Duration = Duration::from_secs(10);

/// The screen's loop has returned: the app is finishing (saving its session, giving the
/// terminal back, sending telemetry), not stuck in the key reader.
static LOOP_ENDED: AtomicBool = AtomicBool::new(false);

/// Say that the screen's loop has returned (a hangup then gets [`FINISHING`], not [`GRACE`]).
pub(super) fn loop_ended() {
    LOOP_ENDED.store(true, Ordering::SeqCst);
}

/// Start watching the terminal the app reads keys from for a hangup (once a process).
pub(super) fn watch() {
    static WATCHING: std::sync::Once = std::sync::Once::new();
    WATCHING.call_once(|| {
        let Ok(tty) = super::terminal::key_terminal() else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("hangup-watch".into())
            .spawn(move || {
                if hung_up(&tty) {
                    end_after_hangup();
                }
            });
    });
}

/// Wait until `tty` hangs up (true), or polling it fails (false).
fn hung_up(tty: &OwnedFd) -> bool {
    let mut fds = [PollFd::new(tty, PollFlags::empty())];
    loop {
        match rustix::event::poll(&mut fds, None) {
            Ok(_) => return fds[0].revents().intersects(PollFlags::HUP | PollFlags::ERR),
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return false,
        }
    }
}

/// The terminal hung up: end the process unless the app ends on its own first.
fn end_after_hangup() {
    std::thread::sleep(GRACE);
    if !LOOP_ENDED.load(Ordering::SeqCst) && super::terminal::is_taken() {
        crate::log::log(
            "the terminal hung up and the app's loop did not end (stuck in the terminal's key \
             reader): ending the process",
        );
        std::process::exit(0);
    }
    std::thread::sleep(FINISHING);
    crate::log::log("the terminal hung up and the app did not finish: ending the process");
    std::process::exit(0);
}
