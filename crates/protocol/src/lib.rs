//! What the two programs of ask-popup share: the questionnaire and its validation, the result
//! envelope and its error codes, the pipe's arguments, the record's entry and file, the tool's
//! definition agents read, and the cleaning of untrusted text. No Zellij and no process here;
//! the only I/O is `std::fs` for the files both programs write (`atomic_file`, the record), which
//! works alike on the host and in the plugin's WASI. Built for both targets and tested on the
//! host.

/// Files written whole or not at all (a temporary file renamed into place), for the command's
/// settings and the plugin's files alike.
pub mod approval;
pub mod atomic_file;
/// An MCP server's form (elicitation): its fields, their rules, the content and the hook's
/// answer.
pub mod elicitation;
pub mod envelope;
pub mod error_code;
/// The record of every questionnaire and how it ended.
pub mod history;
pub mod pipe_args;
pub mod question;
pub mod request;
pub mod text;
/// The `ask_user_question` tool as agents see it: its description and JSON Schema (built from
/// the validator's limits), and the shared data the Pi extension is generated from.
pub mod tool;

/// The mark in front of a waiting caller's pane title: the plugin puts it there, and the
/// command where the plugin cannot (a session nobody is attached to).
pub const TITLE_MARK: &str = "⏳ ";

/// The version of both programs: the plugin's `version` pipe answers it, the command says it
/// and the doctor compares the two.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
