//! `ask-popup setup` and `ask-popup doctor`, a file for what each setup wires, with what it decides
//! and what it does side by side: Claude Code (`claude`), Codex (`codex`), Pi (`pi`), opencode
//! (`opencode/`), the skill they share (`skill`), Zellij (`zellij/`) and its web client (`web/`);
//! `setup` alone (`all`); and the checks (`doctor`). What they share: the hooks' shape in a
//! settings file (`hook`), JSON settings edited as documents (`json_document`), why a file was
//! left alone (`error`), the files read and written (`files`), what is said of each change
//! (`report`), and a check as the doctor reports it (`check`).

pub mod all;
pub mod check;
pub mod claude;
pub mod codex;
pub mod doctor;
pub mod error;
pub mod files;
pub mod hook;
pub mod json_document;
pub mod opencode;
pub mod pi;
pub mod pi_node;
pub mod places;
pub mod report;
pub mod skill;
pub mod web;
pub mod zellij;

pub use claude::{
    claude_mcp_line, merge_claude_mcp_env, remove_claude_mcp_env, CLAUDE_APPROVAL_HOOK,
    CLAUDE_HOOK, CLAUDE_MCP_ENV,
};
pub use codex::{codex_snippet, CODEX_APPROVAL_HOOK, CODEX_HOOK, MCP_ENV_VARS};
pub use error::SetupError;
pub use hook::shell_word;
pub use pi::{pi_package_source, PI_EXTENSION, PI_PACKAGE};
pub use skill::{SKILL, SKILL_NAME};
