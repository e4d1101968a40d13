//! research-tui's pure core: everything between the bytes a provider sends and the text a person
//! reads, with no I/O beyond `std::io::Read`, no async runtime and no terminal.
//!
//! Layers, each importing only the ones before it: [`model`] (neutral events, the session reducer,
//! attribution) ← [`wire`] (SSE decoding and each provider's dialect and requests) ← [`render`]
//! (Markdown, JSON and text, and the sanitiser every output uses).

pub mod model;
pub mod render;
pub mod wire;
