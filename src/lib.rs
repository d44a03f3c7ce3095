//! The `ask-popup` command, laid out by feature: `cli` reads the arguments and hands each
//! subcommand to its feature's folder, where what the feature decides and what it does sit side
//! by side. What the command shares with the plugin is `ask_popup_protocol`. docs/ARCHITECTURE.md
//! has the map, a glossary and a question's way through the files.

#[macro_use]
pub mod terminal;

pub mod ask;
pub mod cli;
pub mod clock;
pub mod consent;
pub mod history;
pub mod hooks;
pub mod inbox;
pub mod later;
pub mod mcp;
pub mod notify;
pub mod remote;
pub mod setup;
pub mod xdg;
pub mod zellij;
