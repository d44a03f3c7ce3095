//! `ask-popup history`: the record of questionnaires, where it is and how it reads (`read`),
//! its folder kept private (`private`), and the command (`command`).

pub mod command;
pub mod private;
pub mod read;

pub use read::*;
