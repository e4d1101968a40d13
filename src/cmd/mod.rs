//! The command-line commands other than the interactive app: one module per command.

pub mod ask;
pub mod render;
