//! The app's state, with no I/O and no drawing: [`App`] holds the conversation's turns ([`turn`]) and
//! the shell around the panes — the focus ([`focus`]), the popup, the status message, the pane sizes
//! ([`sizes`]), the sessions picker ([`picker`]), the search `/` started ([`search`]); keys map to [`Action`]s through one table
//! ([`keymap`]) and side effects go back to the event loop as [`Effect`]s ([`action`]). The panes'
//! own state (selections, [`Scroll`] positions, rows) lives with them in `tui::screen`, and
//! `tui::ui` carries actions out on both.

pub mod action;
pub mod app;
pub mod focus;
pub mod keymap;
pub mod picker;
pub mod scroll;
pub mod search;
pub mod sizes;
pub mod timeline;
pub mod turn;

pub use action::{Action, Armed, ComparisonKey, Effect, Popup, Severity, Spot};
pub use app::{App, AppConfig, Mode, SPINNER};
pub use focus::Focus;
pub use picker::Picker;
pub use scroll::Scroll;
pub use search::{Hit, Search};
pub use timeline::{EventData, EventsView, TimelineView};
pub use turn::{ConnState, Continuation, SidebarItem, Turn, sidebar_of};
