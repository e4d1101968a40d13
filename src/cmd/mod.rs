//! The commands, one module each: the interactive app (no subcommand, `open`, and `replay`'s
//! options), `ask`, `proxy`, `render`, `serve` and `sessions`, and the
//! completion scripts and manual page (`manual`). Each parses nothing itself (clap does, in
//! `main.rs`) and turns its arguments into calls on the layers below, ending in an exit code.

pub mod app;
pub mod ask;
mod ask_terminal;
pub mod manual;
pub mod proxy;
pub mod render;
pub mod serve;
pub mod sessions;
pub mod sessions_export;
