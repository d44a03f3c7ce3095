//! The `ask-popup` command's decisions, apart from running anything: how a questionnaire is read
//! and sent, which output of `zellij pipe` counts as the reply, the exit statuses, the Claude Code
//! hook's input and answer, and the settings it is installed with. The binary's thin shell
//! (`src/cli.rs`) spawns `zellij`, handles signals and talks stdio; everything here is tested on
//! the host.

pub mod ask;
pub mod claude;
pub mod mcp;
pub mod setup;
pub mod tool;
