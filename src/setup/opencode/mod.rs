//! opencode: its config's MCP entry and the plugins setup writes (`config`), and the files
//! `setup opencode` writes and takes out (`install`).

pub mod config;
pub mod install;
#[cfg(test)]
mod tests;

pub use config::{entry_in, snippet, Entry, AGENT, PLUGIN, SCHEMA};
pub use install::setup_opencode;
