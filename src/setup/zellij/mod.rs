//! Zellij: the plugin this command carries and where its release is (`plugin`), the alias and
//! binding in `config.kdl` (`config`), the doctor's checks of both (`checks`), and `ask-popup
//! setup zellij`, which writes them (`install`).

pub mod checks;
pub mod config;
pub mod install;
pub mod plugin;
#[cfg(test)]
mod tests;

pub use install::{setup_zellij, setup_zellij_url};
