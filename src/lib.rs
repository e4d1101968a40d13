//! research-tui: watch research-agent sessions stream in, with exact citations.
//!
//! Data flows one way: bytes ([`input`], HTTP) → [`sse`] decoder → [`provider`] dialect → neutral
//! [`event`]s → the pure [`session`] reducer → [`citations`] → renderers ([`render`], the TUI).

pub mod ask;
pub mod citations;
pub mod client;
pub mod config;
pub mod event;
pub mod input;
pub mod log;
pub mod provider;
pub mod recording;
pub mod render;
pub mod replay;
mod rng;
pub mod sanitize;
pub mod server;
pub mod session;
pub mod sse;
pub mod store;
pub mod stream;
pub mod tui;

/// The async runtime a command runs on, or the exit to take when it cannot start (said on stderr).
/// Two workers: the stream task and the UI never need more, and the target machines have two cores.
pub fn runtime() -> Result<tokio::runtime::Runtime, std::process::ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("research-tui: cannot start the async runtime: {e}");
            std::process::ExitCode::from(1)
        })
}
