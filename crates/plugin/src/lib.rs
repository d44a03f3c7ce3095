//! The plugin's core: the broker that turns Zellij's events and pipes into effects, the dialog
//! and its rendering, and the plugin's side of Zellij's wire format and commands. Pure Rust with
//! no zellij-tile (a dependency of the wasm build of `main.rs` only), so everything here is
//! tested on the host; the questionnaire, the envelope and the record are the protocol's
//! (`ask_popup_protocol`).
pub mod broker;
pub mod config;
pub mod dialog;
pub mod effect;
pub mod events;
pub mod intake;
pub mod log_line;
pub mod marks;
pub mod popup;
#[cfg(test)]
mod protobuf_encode;
pub mod view;
pub mod wire;
pub mod zellij_command;
pub mod zellij_event;
mod zellij_proto;
