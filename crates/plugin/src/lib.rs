//! The plugin's core: the broker that turns Zellij's events and pipes into effects, the
//! instance that turns those effects into Zellij's commands, the dialog and its rendering, and
//! the plugin's side of Zellij's wire format and commands. Pure Rust with no zellij-tile (a
//! dependency of the wasm build of `main.rs` only), so everything here is tested on the host;
//! the questionnaire, the envelope and the record are the protocol's (`ask_popup_protocol`).
//!
//! Which way things go, by name: `incoming` reads the events Zellij sends the plugin, `wire`
//! its pipe messages; `outgoing` writes what the plugin tells others (broadcasts, replies,
//! messages between its instances), `zellij_command` the commands it sends Zellij.
pub mod broker;
pub mod config;
pub mod dialog;
pub mod effect;
pub mod incoming;
pub mod instance;
pub mod intake;
pub mod log_line;
pub mod marks;
pub mod outgoing;
pub mod popup;
#[cfg(test)]
mod protobuf_encode;
pub mod shared_folder;
pub mod tab_marks;
pub mod trace;
pub mod view;
pub mod wire;
pub mod zellij_command;
mod zellij_proto;
