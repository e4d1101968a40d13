//! Styled text, shared by the app and the terminal printer of `ask`: the row model of styled pieces
//! and the answer's Markdown rendered into it ([`text`]), the color themes ([`theme`]) and how many
//! colors a terminal shows ([`colors`]). It knows nothing of the app's state or its screen layout,
//! so `cmd/` prints with it without reaching into `tui/`.

pub mod colors;
pub mod text;
pub mod theme;
