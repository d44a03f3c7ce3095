//! `ask-popup setup web`: Zellij's web client turned on in `config.kdl` (`config`), the tokens and
//! server it makes (`tokens`), the doctor's checks (`checks`), and the command that does it
//! (`command`).

pub mod checks;
pub mod command;
pub mod config;
#[cfg(test)]
mod tests;
pub mod tokens;

pub use command::setup_web;
pub use config::{online_base, session_url};
