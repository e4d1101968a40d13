//! Files on this machine: configuration and the API key, saved sessions, and the diagnostic log.

pub mod config;
pub mod log;
pub mod store;
