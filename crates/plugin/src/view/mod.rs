//! Frame rendering: turns dialog state into lines of styled text that fit the pane.
pub mod frame;
pub mod history_list;
pub mod limit;
pub mod markdown;
pub mod render;
pub mod style;
pub mod text;
pub mod theme;
pub mod wrap;

pub use frame::{Frame, Hit};
pub use render::{lay_out_ahead, natural_height, render, Chrome, ViewCache};
pub use theme::{Color, Theme};
