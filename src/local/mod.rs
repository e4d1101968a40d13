//! Files on this machine: configuration and the API key, saved sessions (with their summaries, the
//! index of them, the fuzzy search over them and the watch of their folder), and the timestamps they carry.

pub mod config;
pub mod ids;
pub mod index;
pub mod meta;
pub mod search;
pub mod session_files;
pub mod store;
pub mod summary;
pub mod timestamp;
pub mod turn_status;
pub mod watch;
