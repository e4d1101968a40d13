//! Ctrl-C for `ask`, listened for from before the request leaves: a press right after a run
//! started on the server still cancels it there (tokio's `ctrl_c()` listens only once polled, and
//! a press before that would end the process with the run going on).

/// The interrupt signal, caught from the moment it is made.
pub(super) struct Interrupt(Option<Inner>);

#[cfg(unix)]
type Inner = tokio::signal::unix::Signal;
#[cfg(windows)]
type Inner = tokio::signal::windows::CtrlC;

impl Interrupt {
    /// Start listening (inside the runtime). Where the signal cannot be caught, it never fires and
    /// Ctrl-C ends the process as it would without us.
    pub(super) fn listen() -> Interrupt {
        #[cfg(unix)]
        let inner = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok();
        #[cfg(windows)]
        let inner = tokio::signal::windows::ctrl_c().ok();
        Interrupt(inner)
    }

    /// The next Ctrl-C.
    pub(super) async fn pressed(&mut self) {
        match &mut self.0 {
            Some(inner) => {
                inner.recv().await;
            }
            None => std::future::pending().await,
        }
    }
}
