//! ask-popup's core: the questionnaire protocol, the result envelope, the dialog and its
//! rendering, and the broker that turns host events into effects. Pure Rust with no Zellij
//! types, so everything here is tested on the host.
/// Files written whole or not at all (a temporary file renamed into place), for the command's
/// settings and the plugin alike.
pub mod atomic_file;
pub mod broker;
/// The caller's side of the pipe: the `ask-popup` command's decisions (the host build only).
#[cfg(not(target_family = "wasm"))]
pub mod caller;
pub mod config;
pub mod dialog;
pub mod effect;
pub mod envelope;
pub mod error_code;
pub mod events;
/// The record of every questionnaire and how it ended.
pub mod history;
pub mod intake;
pub mod log_line;
pub mod marks;
pub mod pipe_args;
pub mod popup;
#[cfg(test)]
mod protobuf_encode;
pub mod request;
/// The `ask_user_question` tool as agents see it: its description and JSON Schema (built from
/// the validator's limits), and the shared data the Pi extension is generated from.
#[cfg(not(target_family = "wasm"))]
pub mod tool;
pub mod view;
pub mod wire;
pub mod zellij_command;
pub mod zellij_event;
mod zellij_proto;
