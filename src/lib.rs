//! research-tui: watch research-agent sessions stream in, with exact citations.
//!
//! Data flows one way: bytes (HTTP, files, stdin) → [`wire`] (SSE decoder, provider dialects) →
//! neutral [`model`] events → the pure session reducer and attribution → [`render`]ers and the
//! [`tui`]. The pure layers live in the `research-tui-core` crate, so the compiler keeps I/O, async
//! and terminal code out of them; this crate adds, bottom to top, [`log`] (the diagnostic log),
//! [`report`] (errors and panics, through color-eyre), [`styled`] (styled text for terminals), [`agent`] (async I/O), [`local`] (files on this
//! machine), [`server`], [`demo`] (the built-in agent) and [`proxy`], [`tui`] (the app) and [`cmd`]
//! (the commands). ARCHITECTURE.md at the repository root describes each and the app's pane model.

pub use research_tui_core::{model, render, wire};

pub mod agent;
pub mod cmd;
pub mod demo;
pub mod local;
pub mod log;
pub mod otel;
pub mod proxy;
pub mod report;
pub mod server;
pub mod styled;
pub mod tui;

/// The async runtime a command runs on, or the exit to take when it cannot start (said on stderr).
pub fn runtime() -> Result<tokio::runtime::Runtime, std::process::ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("research-tui: cannot start the async runtime: {e}");
            std::process::ExitCode::from(1)
        })
}
