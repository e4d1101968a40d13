//! The terminal the app takes: raw mode, the alternate screen, paste and mouse modes; giving it
//! back on every exit path (guard, panic, Ctrl-Z) exactly once.

use std::io;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// The app has the terminal (raw mode, the alternate screen): set by [`take_terminal`], cleared by
/// [`restore_terminal`].
static TAKEN: AtomicBool = AtomicBool::new(false);

/// Whether the app has the terminal (between [`take_terminal`] and [`restore_terminal`]).
pub(crate) fn is_taken() -> bool {
    TAKEN.load(Ordering::SeqCst)
}

/// Restore the terminal: raw mode off, main screen back, paste and mouse modes off, cursor shown.
/// Only once per taking: leaving the alternate screen again would move the cursor back to where it
/// was entered, and the shell would then write over what was printed since (a panic's report).
pub fn restore_terminal() {
    if !TAKEN.swap(false, Ordering::SeqCst) {
        return;
    }
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

pub(crate) struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Restore the terminal before the panic is reported (by color-eyre's hook, `report::install`),
/// when the panic ends the app (it happened on the thread running the event loop). A panicking
/// background task only fails that task: its report goes to the log file, since printing it would
/// scribble over the screen the app still owns.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    let ui_thread = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == ui_thread {
            restore_terminal();
            previous(info);
        } else {
            crate::log::log(&format!("background task panicked: {info}"));
        }
    }));
}

/// The app's terminal. Dropping it shows the cursor if it can and otherwise lets it go quietly:
/// ratatui's own `Drop` reports a failure to show the cursor with `eprintln!`, which panics when
/// the terminal has hung up (stderr gives EIO), turning a closed window into a panic report and a
/// slow exit.
pub(crate) struct Term(Option<Terminal<CrosstermBackend<io::Stdout>>>);

const PRESENT: &str = "the terminal is present until dropped";

impl Deref for Term {
    type Target = Terminal<CrosstermBackend<io::Stdout>>;
    fn deref(&self) -> &Self::Target {
        self.0.as_ref().expect(PRESENT)
    }
}

impl DerefMut for Term {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.0.as_mut().expect(PRESENT)
    }
}

impl Drop for Term {
    fn drop(&mut self) {
        if let Some(mut terminal) = self.0.take()
            && terminal.show_cursor().is_err()
        {
            // The terminal is gone: its buffers are left to the process's end.
            std::mem::forget(terminal);
        }
    }
}

pub(crate) fn setup_terminal() -> io::Result<Term> {
    install_panic_hook();
    take_terminal(true)?;
    super::hangup::watch();
    Terminal::new(CrosstermBackend::new(io::stdout())).map(|t| Term(Some(t)))
}

/// Whether there is a terminal to take ([`key_terminal`]).
pub(crate) fn terminal_available() -> io::Result<()> {
    key_terminal()
        .map(drop)
        // ENXIO's "No such device or address" says nothing a person can act on.
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                "no terminal to draw on (the app needs one; from a script, `research-tui ask` \
                 works without)",
            )
        })
}

/// The terminal the app reads keys from, as raw mode and crossterm's reader find it: standard
/// input when it is one, else the process's controlling terminal (`/dev/tty`).
pub(crate) fn key_terminal() -> io::Result<std::os::fd::OwnedFd> {
    use std::io::IsTerminal;
    use std::os::fd::AsFd;
    if io::stdin().is_terminal() {
        return io::stdin().as_fd().try_clone_to_owned();
    }
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .map(Into::into)
}

/// Raw mode, the alternate screen, bracketed paste, and the mouse when the app has it.
pub(crate) fn take_terminal(mouse: bool) -> io::Result<()> {
    TAKEN.store(true, Ordering::SeqCst);
    enable_raw_mode()?;
    execute!(io::stdout(), EnterAlternateScreen, EnableBracketedPaste)?;
    if mouse {
        execute!(io::stdout(), EnableMouseCapture)?;
    }
    Ok(())
}

/// Ctrl-Z: give the terminal back as it was before the app, stop the process group as a shell's
/// Ctrl-Z would (the whole job, so a shell waiting on a wrapper script sees it stop), and when it is
/// continued (`fg`) take the terminal again and redraw every cell.
pub(crate) fn suspend(terminal: &mut Term, mouse: bool) -> io::Result<()> {
    restore_terminal();
    // Returns once SIGCONT has continued the process (at once when nothing can continue it: an
    // orphaned process group does not stop).
    rustix::process::kill_current_process_group(rustix::process::Signal::TSTP)?;
    take_terminal(mouse)?;
    terminal.clear()
}
