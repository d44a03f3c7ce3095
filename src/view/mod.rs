//! Frame rendering: turns dialog state into lines of styled text that fit the pane.
pub mod markdown;
pub mod style;
pub mod text;
