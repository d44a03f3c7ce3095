//! The `ask-popup` command's decisions, apart from running anything: how a questionnaire is
//! read and sent, which output of `zellij pipe` counts as the reply, the Claude Code hook's
//! input and answer, the MCP tool's result, the settings that install the integrations, what
//! notifies of a question left waiting, and how the record reads. The binary's `run/` spawns
//! `zellij` and the notify command, handles signals and talks stdio and MCP; everything here is
//! tested on the host. What the command shares with the plugin is `ask_popup_protocol`.

pub mod approval;
pub mod ask;
pub mod claude;
pub mod codex;
pub mod history;
pub mod hook;
pub mod inbox;
pub mod json_document;
pub mod later;
pub mod mcp;
pub mod notify;
pub mod opencode;
pub mod relay;
pub mod session;
pub mod setup;
pub mod terminal;
pub mod web;
pub mod xdg;
/// Zellij's config.kdl (the alias and the binding setup writes), the doctor's checks of it,
/// and the plugin the command carries.
pub mod zellij_config;
