//! `ask-popup setup`: the configuration that wires an agent to the popup, printed for the user to
//! paste or merged into the agent's settings file without touching anything else there.

use serde_json::{json, Map, Value};

/// How long Claude Code lets the hook wait for the user, in seconds. When it runs out, Claude
/// Code stops the hook, which withdraws the question from the popup, and its own dialog asks.
pub const CLAUDE_HOOK_TIMEOUT_S: u64 = 3600;

/// Why the settings file was left alone.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SetupError {
    #[error("it is not valid JSON ({0}); fix or move it, then run this again")]
    NotJson(String),
    #[error(
        "`{0}` in it is not what Claude Code expects (an object of lists); add the hook by hand"
    )]
    Unexpected(&'static str),
}

/// The `hooks.PreToolUse` entry that sends Claude Code's `AskUserQuestion` to the popup.
pub fn claude_hook_entry(command: &str) -> Value {
    json!({
        "matcher": crate::command::claude::TOOL,
        "hooks": [{
            "type": "command",
            "command": command,
            "timeout": CLAUDE_HOOK_TIMEOUT_S,
        }]
    })
}

/// The settings snippet to paste into `~/.claude/settings.json`.
pub fn claude_snippet(command: &str) -> String {
    let settings = json!({ "hooks": { "PreToolUse": [claude_hook_entry(command)] } });
    format!("{}\n", pretty(&settings))
}

/// `existing` settings (empty when there is no file yet) with the hook in: an entry of ours
/// (a command that runs `claude-hook`) is replaced, any other left as it is. Returns the new text,
/// or `None` when the hook is already there as it should be.
pub fn merge_claude(existing: &str, command: &str) -> Result<Option<String>, SetupError> {
    let mut settings: Value = if existing.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_json::from_str(existing).map_err(|e| SetupError::NotJson(e.to_string()))?
    };
    let root = settings
        .as_object_mut()
        .ok_or(SetupError::Unexpected("the file"))?;
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or(SetupError::Unexpected("hooks"))?;
    let pre_tool_use = hooks
        .entry("PreToolUse")
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or(SetupError::Unexpected("hooks.PreToolUse"))?;
    let entry = claude_hook_entry(command);
    if pre_tool_use.contains(&entry) {
        return Ok(None);
    }
    pre_tool_use.retain(|e| !is_ours(e));
    pre_tool_use.push(entry);
    Ok(Some(format!("{}\n", pretty(&settings))))
}

/// Whether a `PreToolUse` entry is one this command wrote (its only hook runs `claude-hook`).
fn is_ours(entry: &Value) -> bool {
    let hooks = entry.get("hooks").and_then(Value::as_array);
    entry.get("matcher").and_then(Value::as_str) == Some(crate::command::claude::TOOL)
        && hooks.is_some_and(|hooks| {
            hooks.len() == 1
                && hooks[0]
                    .get("command")
                    .and_then(Value::as_str)
                    .is_some_and(|c| c.trim_end().ends_with(" claude-hook"))
        })
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// A path as one word of a shell command line (Claude Code runs hooks through a shell).
pub fn shell_word(path: &str) -> String {
    if !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%".contains(c))
    {
        path.to_owned()
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}
