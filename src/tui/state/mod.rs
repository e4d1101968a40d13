//! The app's state and how it changes, with no I/O and no drawing: [`App`] holds the turns
//! ([`turn`]), the focus ([`focus`]) and scroll positions ([`scroll`]); keys map to [`Action`]s through
//! one table ([`keymap`]); [`App::update`] carries them out ([`update`], [`navigate`]) and hands side
//! effects back to the event loop as [`Effect`]s ([`action`]).

pub mod action;
pub mod app;
pub mod focus;
pub mod keymap;
pub mod mouse;
pub mod navigate;
pub mod panes;
pub mod picker;
pub mod scroll;
pub mod turn;
pub mod update;

pub use action::{Action, Effect, Popup, Severity, Spot};
pub use app::{App, AppConfig, Mode, SPINNER};
pub use focus::Focus;
pub use picker::Picker;
pub use scroll::Scroll;
pub use turn::{ConnState, Continuation, SidebarItem, Turn, sidebar_of};
