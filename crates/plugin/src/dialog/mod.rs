//! The dialog for one questionnaire: its state, and what each key does to it.
//!
//! A state machine with no Zellij types: `handle(input) -> Response`, `tick(ms) -> Response`.
//! Rendering (in `view`) only reads this state.

pub mod editor;
mod form;
mod input;
mod key_press;
mod keymap;
mod state;
mod user_input;

pub use editor::{Edit, Editor};
pub use key_press::{KeyName, KeyPress, UnknownKey};
pub use keymap::{key_of, Hint};
pub use state::{
    numbered_row, row_number, Choice, Countdown, Dialog, Mode, Response, Row, TabState,
    SUBMIT_CHOICES,
};
pub use user_input::{ctrl_symbol, Input, Key, Target};
