//! The `ask-popup` command's decisions, apart from running anything: how a questionnaire is read
//! and sent, which output of `zellij pipe` counts as the reply, the exit statuses, the Claude Code
//! hook's input and answer, the MCP tool and its result, and the settings that install them. The
//! binary's thin shell (`src/cli/`) spawns `zellij`, handles signals and talks stdio and MCP;
//! everything here is tested on the host.

pub mod ask;
pub mod claude;
pub mod mcp;
pub mod setup;
pub mod tool;
pub mod zellij;
