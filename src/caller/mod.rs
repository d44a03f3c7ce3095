//! The caller's side of the pipe: what the `ask-popup` command decides, apart from running
//! anything — how a questionnaire is read and sent, which output of `zellij pipe` counts as the
//! reply, the Claude Code hook's input and answer, the MCP tool's result, the settings that
//! install the integrations (opencode's among them), and what notifies of a question left waiting. The binary's thin
//! shell (`src/shell/`) spawns `zellij` and the notify command, handles signals and talks stdio
//! and MCP; everything here is tested on the host.

pub mod ask;
pub mod claude;
pub mod history;
pub mod later;
pub mod mcp;
pub mod notify;
pub mod opencode;
pub mod session;
pub mod setup;
pub mod terminal;
pub mod web;
pub mod xdg;
pub mod zellij;
