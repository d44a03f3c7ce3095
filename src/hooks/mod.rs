//! The agents' hooks: Claude Code's and Codex's question tools (`claude`, `codex`, sharing
//! `tool_call`), every agent's permission prompts (`approval`), MCP servers' forms through
//! Claude Code (`elicitation`), and the commands that run them (`command`).

pub mod approval;
pub mod claude;
pub mod codex;
pub mod command;
pub mod elicitation;
pub mod opencode;
pub mod preview;
pub mod tool_call;
