//! The demo agent started on 127.0.0.1 for a test: one place that knows how.

use std::net::SocketAddr;

use research_tui::demo::{self, ServerConfig};

/// The built-in demo agent on a free loopback port, playing at `speed` times the recordings' pace.
pub async fn demo_agent(speed: f64) -> SocketAddr {
    demo_agent_with(ServerConfig {
        speed,
        ..ServerConfig::default()
    })
    .await
}

/// The demo agent as `config` sets it up, on a free loopback port (it runs until the test ends).
pub async fn demo_agent_with(config: ServerConfig) -> SocketAddr {
    demo::spawn(config, 0)
        .await
        .expect("the demo agent starts")
        .0
}
