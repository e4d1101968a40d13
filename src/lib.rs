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
