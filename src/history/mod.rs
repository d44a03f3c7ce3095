//! `ask-popup history`: the record of questionnaires, where it is and how it reads (`read`),
//! and the command (`command`).

pub mod command;
pub mod read;

pub use read::*;
