//! `ask-popup claude-hook`: Claude Code's `PreToolUse` hook for its `AskUserQuestion` tool. The
//! hook input names the tool and carries its questions (our request's shape); the popup's
//! envelope becomes Claude Code's answer: `allow` with the answers filled in, `deny` with the
//! envelope's text for a decline or a chat request, and nothing at all whenever the popup could
//! not answer, so that Claude Code's own dialog asks instead and the question is never lost.

use crate::envelope::NO_INPUT;
use serde_json::{json, Map, Value};

/// The Claude Code tool this hook answers.
pub const TOOL: &str = "AskUserQuestion";
/// The agent name the popup shows for Claude Code.
pub const AGENT: &str = "claude";

/// One `AskUserQuestion` call, from the hook's input.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The tool input's `questions`, exactly as Claude Code sent them: the hook hands them back.
    pub questions: Value,
    /// The questionnaire to put to the popup.
    pub payload: String,
    /// Claude Code's id for this tool call, when it gave one: the popup request's id.
    pub tool_use_id: Option<String>,
}

/// Why the hook input could not be read (said on stderr; Claude Code then asks itself).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HookInputError {
    #[error("the hook input is not a JSON object: {0}")]
    NotJson(String),
    #[error("the AskUserQuestion input has no `questions` list")]
    NoQuestions,
}

/// Reads the hook input: `Ok(None)` for another tool (nothing to do).
pub fn read_input(input: &[u8]) -> Result<Option<Call>, HookInputError> {
    let value: Value =
        serde_json::from_slice(input).map_err(|e| HookInputError::NotJson(e.to_string()))?;
    let Value::Object(input) = value else {
        return Err(HookInputError::NotJson("not an object".to_owned()));
    };
    if input.get("tool_name").and_then(Value::as_str) != Some(TOOL) {
        return Ok(None);
    }
    let questions = input
        .get("tool_input")
        .and_then(|t| t.get("questions"))
        .filter(|q| q.is_array())
        .cloned()
        .ok_or(HookInputError::NoQuestions)?;
    let payload = json!({ "questions": questions }).to_string();
    let tool_use_id = input
        .get("tool_use_id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned);
    Ok(Some(Call {
        questions,
        payload,
        tool_use_id,
    }))
}

/// What the hook prints for the popup's `envelope`, or `None` when it prints nothing (the popup
/// could not answer: Claude Code's own dialog asks).
pub fn answer(call: &Call, envelope: &str) -> Option<String> {
    let envelope: Value = serde_json::from_str(envelope).ok()?;
    let details = envelope.get("details")?;
    if details.get("error").is_some() {
        return None;
    }
    let text = envelope
        .get("content")
        .and_then(|c| c.get(0))
        .and_then(|c| c.get("text"))
        .and_then(Value::as_str)?;
    let output = if details.get("cancelled").and_then(Value::as_bool) == Some(false) {
        let mut updated = Map::new();
        updated.insert("questions".to_owned(), call.questions.clone());
        updated.insert("answers".to_owned(), Value::Object(answers(details)));
        json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": updated,
            }
        })
    } else {
        // A decline, or the user wants to talk first: the model reads the envelope's text.
        json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": text,
            }
        })
    };
    Some(format!("{output}\n"))
}

/// `{"<question>": "<answer>"}` in question order: a label, the typed text, or the ticked labels
/// (and typed text) joined with `, `, as the envelope's text gives them.
fn answers(details: &Value) -> Map<String, Value> {
    let mut answers = Map::new();
    for answer in details
        .get("answers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(question) = answer.get("question").and_then(Value::as_str) else {
            continue;
        };
        let text = match answer.get("answer").and_then(Value::as_str) {
            Some(text) => text.to_owned(),
            None => answer
                .get("selected")
                .and_then(Value::as_array)
                .map(|s| {
                    s.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default(),
        };
        let text = if text.is_empty() {
            NO_INPUT.to_owned()
        } else {
            text
        };
        answers.insert(question.to_owned(), Value::String(text));
    }
    answers
}
