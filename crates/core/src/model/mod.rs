//! The neutral model: events any provider's stream becomes, the pure session reducer that folds
//! them, and exact attribution of the answer's spans to sources.

pub mod chart;
pub mod citations;
pub mod compare;
pub mod event;
pub mod json_text;
pub mod pending;
pub mod session;
pub mod stream_end;
pub mod structured;
pub mod timeline;
