//! The integration tests, in one binary: each module is one area of behaviour (the real binary
//! through the CLI, the app in tmux, the demo agent and hostile servers on 127.0.0.x, recordings
//! through the pipeline). One binary links the app once instead of once per file.

mod support;

mod anthropic_turns;
mod ask_cli;
mod ask_terminal;
mod chart_bounds;
mod charts_cli;
mod client_edges;
mod client_robustness;
mod compare_ask;
mod compare_demo;
mod demo_agent;
mod demo_honesty;
mod demo_timeouts;
mod docs;
mod gemini;
mod history;
mod history_index;
mod invisible_text;
mod key_safety;
pub(crate) mod large_streams;
mod manual;
mod pipeline_props;
mod provider_dialects;
mod provider_http;
pub(crate) mod proxy;
mod proxy_edges;
mod real_traffic;
mod render_empty;
mod render_golden;
mod repeated_events;
mod research_apis;
mod server_client;
mod sse_vectors;
mod store_concurrency;
mod store_hostile;
mod tail_follow;
mod tls;
mod tui_charts;
mod tui_compare;
mod tui_e2e;
mod tui_e2e_newcomer;
mod tui_history;
mod tui_hostile_store;
mod tui_input;
mod tui_input_model;
mod tui_layouts;
mod tui_mouse;
mod tui_popups;
mod tui_sessions;
mod tui_snapshots;
mod tui_watch;
mod turn_file_bounds;
mod watch_sessions;
