//! What Claude Code's and Codex's `PreToolUse` hooks share: the hook input's call to one tool,
//! whether the popup's envelope is for the agent at all, and the denial that hands the model a
//! reason.

use ask_popup_protocol::envelope::Envelope;
use ask_popup_protocol::error_code::Fallback;
use serde_json::{json, Map, Value};

/// The hook input's call, when it is to the tool the hook answers.
pub struct ToolCall {
    /// The whole hook input.
    pub input: Map<String, Value>,
    /// The agent's id for this tool call, when it gave one: the popup request's id.
    pub tool_use_id: Option<String>,
}

/// Reads the hook input: `Ok(None)` for a call to another tool than `tool` (nothing to do),
/// `Err` with why when it is not a JSON object.
pub fn read(input: &[u8], tool: &str) -> Result<Option<ToolCall>, String> {
    let value: Value = serde_json::from_slice(input).map_err(|e| e.to_string())?;
    let Value::Object(input) = value else {
        return Err("not an object".to_owned());
    };
    if input.get("tool_name").and_then(Value::as_str) != Some(tool) {
        return Ok(None);
    }
    let tool_use_id = input
        .get("tool_use_id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned);
    Ok(Some(ToolCall { input, tool_use_id }))
}

/// The envelope, unless the agent's own dialog asks after it (`fallback`): the popup could not
/// reach the user, refused what the agent takes, or wrote something unreadable.
pub fn for_the_agent(envelope: &str, fallback: Fallback) -> Option<Envelope<'static>> {
    let envelope = Envelope::read(envelope)?;
    match envelope.error() {
        Some(Ok(code)) if fallback.after(code) => None,
        Some(Err(_)) => None,
        _ => Some(envelope),
    }
}

/// The hook's output that denies the call with `reason`, which the agent hands its model.
pub fn deny(reason: &str) -> String {
    let output = json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    });
    format!("{output}\n")
}
