//! Talking to agents: the HTTP client (and its checks on base URLs and responses), the stream task
//! every source feeds, starting a live turn with any provider, driving one turn (stream, raw bytes,
//! saving) for `ask` and the TUI alike, resuming and cancelling runs that live on the server, and
//! replaying recordings as if they were live, and following a stream file another process writes.

pub mod client;
pub mod http;
pub(crate) mod http_checks;
pub mod live;
pub mod replay;
pub(crate) mod rng;
pub mod stream;
pub mod tail;
pub mod turn;
