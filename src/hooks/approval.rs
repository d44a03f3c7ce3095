//! Agents' permission prompts asked in the popup (opt-in: `ask-popup setup <agent> --approvals
//! --write`). An approval is a one-question dialog (`"approval": true`): who asks, the tool and
//! a summary of its input as the question, the input itself (the command, the file and its
//! change) as the preview, and the choices the agent offers: `Allow once`, `Allow always` (when
//! the agent offers a rule), `Deny`, and a typed answer, which denies with the text as the
//! note the model reads; a note (`n`) on Deny reaches the model too.
//!
//! The popup never allows anything by itself: the focus starts on `Deny`, no option is
//! recommended (the plugin refuses an approval with one), and the 400 ms key guard holds. Only an
//! answer that picked an Allow option allows; anything else the popup cannot answer (closed,
//! out of reach, timed out, refused, an envelope that cannot be read) leaves the decision to the
//! agent's own prompt, never an allow.
//!
//! `ask-popup claude-approval` is Claude Code's `PermissionRequest` hook: its input names the
//! tool, its input and the rules "always" would add (`permission_suggestions`); its output
//! allows (with those rules for Always) or denies with a message the model reads; no output
//! leaves Claude Code's own prompt, which shows meanwhile, to decide. `ask-popup
//! codex-approval` is Codex's: the same input without rules (so no `Allow always`) and the same
//! output; with no output Codex asks in its own prompt.

use super::preview::tool_preview;
pub use ask_popup_protocol::approval::{
    decision, Decision, ALLOW_ALWAYS, ALLOW_ONCE, DENY, HEADER,
};
use serde_json::{json, Value};

/// The most of a tool's input the preview holds (the popup shows 64 KiB of a text).
const MAX_PREVIEW_BYTES: usize = 64 * 1024;
/// The most characters of the input's summary in the question.
const MAX_SUMMARY_CHARS: usize = 120;

/// The questionnaire of an approval: `agent` asks to use `tool`; `summary` says what (the
/// command, the file), `preview` shows it whole (markdown); `always` describes the rule
/// `Allow always` would add, when the agent offers one.
pub fn questionnaire(
    agent: &str,
    tool: &str,
    summary: &str,
    preview: &str,
    always: Option<&str>,
) -> String {
    let preview = cut(preview, MAX_PREVIEW_BYTES);
    let summary = one_line(summary, MAX_SUMMARY_CHARS);
    let question = if summary.is_empty() {
        format!("Allow {agent} to use {tool}?")
    } else {
        format!("Allow {agent} to use {tool}: {summary}?")
    };
    let mut options = vec![json!({
        "label": ALLOW_ONCE,
        "description": "Let it run this time.",
        "preview": preview,
    })];
    if let Some(rule) = always {
        options.push(json!({
            "label": ALLOW_ALWAYS,
            "description": format!("Allow it from now on: {}.", one_line(rule, 200)),
            "preview": preview,
        }));
    }
    options.push(json!({
        "label": DENY,
        "description": format!("Tell {agent} no (n first: a note it reads)."),
        "preview": preview,
    }));
    json!({
        "approval": true,
        "questions": [{
            "question": question,
            "header": HEADER,
            "options": options,
        }],
    })
    .to_string()
}

/// The first line of `text`, at most `max` characters (an ellipsis where it was cut).
fn one_line(text: &str, max: usize) -> String {
    let line = text.trim().lines().next().unwrap_or("").trim();
    let more = text.trim().lines().nth(1).is_some();
    if line.chars().count() > max {
        let cut: String = line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    } else if more {
        format!("{line} …")
    } else {
        line.to_owned()
    }
}

/// At most `max` bytes of `text`, cut at a character.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// One permission prompt of Claude Code or Codex, from their `PermissionRequest` hook's input
/// (the same fields in both: `tool_name`, `tool_input`, `transcript_path`; Claude Code adds
/// `permission_suggestions`, the rules "always" would add, which Codex 0.171.0 has none of).
#[derive(Clone, Debug, PartialEq)]
pub struct HookRequest {
    /// The questionnaire to put to the popup.
    pub payload: String,
    /// The rules `Allow always` adds, as the agent offered them.
    pub suggestions: Vec<Value>,
    /// The session's transcript: a tool result written to it meanwhile means the agent's own
    /// prompt was answered.
    pub transcript: Option<String>,
}

/// Reads a `PermissionRequest` hook input of `agent` (the name the popup shows): `Ok(None)` for
/// another event, `Err` with why when it cannot be read (the agent's own prompt then decides).
pub fn read_hook_input(input: &[u8], agent: &str) -> Result<Option<HookRequest>, String> {
    let value: Value = serde_json::from_slice(input).map_err(|e| e.to_string())?;
    let Value::Object(input) = value else {
        return Err("the hook input is not a JSON object".to_owned());
    };
    if input.get("hook_event_name").and_then(Value::as_str) != Some("PermissionRequest") {
        return Ok(None);
    }
    let tool = input
        .get("tool_name")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or("the hook input names no tool")?;
    let tool_input = input
        .get("tool_input")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let suggestions: Vec<Value> = input
        .get("permission_suggestions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let rules = rules(&suggestions);
    let (summary, preview) = tool_preview(tool, &tool_input);
    let always = (!suggestions.is_empty()).then_some(rules);
    Ok(Some(HookRequest {
        payload: questionnaire(agent, tool, &summary, &preview, always.as_deref()),
        suggestions,
        transcript: input
            .get("transcript_path")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }))
}

/// What Claude Code's suggestions would add, as its settings write rules: `Bash(npm test:*)`,
/// a mode, directories.
fn rules(suggestions: &[Value]) -> String {
    let mut said = Vec::new();
    for s in suggestions {
        match s.get("type").and_then(Value::as_str) {
            Some("addRules") => {
                for rule in s
                    .get("rules")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let tool = rule.get("toolName").and_then(Value::as_str).unwrap_or("?");
                    match rule.get("ruleContent").and_then(Value::as_str) {
                        Some(content) => said.push(format!("{tool}({content})")),
                        None => said.push(tool.to_owned()),
                    }
                }
            }
            Some("setMode") => {
                let mode = s.get("mode").and_then(Value::as_str).unwrap_or("?");
                said.push(format!("the mode {mode}"));
            }
            Some("addDirectories") => {
                for d in s
                    .get("directories")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    said.push(format!("the directory {}", d.as_str().unwrap_or("?")));
                }
            }
            _ => {}
        }
    }
    if said.is_empty() {
        "the rule the agent offers".to_owned()
    } else {
        said.join(", ")
    }
}

/// The hook output for `decision`, as Claude Code and Codex read it: allow (with the offered
/// rules for Always) or deny with the message the model reads.
pub fn hook_output(request: &HookRequest, decision: &Decision) -> String {
    let decision = match decision {
        Decision::AllowOnce => json!({"behavior": "allow"}),
        Decision::AllowAlways => {
            json!({"behavior": "allow", "updatedPermissions": request.suggestions})
        }
        Decision::Deny(message) => json!({"behavior": "deny", "message": message}),
    };
    let output = json!({
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": decision,
        }
    });
    format!("{output}\n")
}

/// What `ask-popup claude-approval` and `codex-approval` print for the popup's `envelope`:
/// `None` leaves the agent's own prompt to decide.
pub fn hook_answer(request: &HookRequest, envelope: &str) -> Option<String> {
    let decision = decision(envelope, !request.suggestions.is_empty())?;
    Some(hook_output(request, &decision))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use ask_popup_protocol::envelope::{self, Answer, ErrorCode, Outcome, Responses};
    use ask_popup_protocol::request;

    fn bash_input() -> String {
        json!({
            "session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/p",
            "permission_mode": "default", "hook_event_name": "PermissionRequest",
            "tool_name": "Bash",
            "tool_input": {"command": "cargo publish\n--dry-run", "description": "Publish the crate"},
            "permission_suggestions": [{"type": "addRules", "rules": [{"toolName": "Bash",
                "ruleContent": "cargo publish:*"}], "behavior": "allow", "destination": "localSettings"}],
        })
        .to_string()
    }

    fn request() -> HookRequest {
        read_hook_input(bash_input().as_bytes(), "claude")
            .unwrap()
            .unwrap()
    }

    fn envelope_of(outcome: Outcome) -> String {
        let questionnaire = request::parse(&request().payload).expect("a valid approval");
        envelope::outcome(&questionnaire, &outcome, Some("r1"))
    }

    /// The responses of a one-question dialog: `answer`, with `note` (for opencode's tests too).
    pub(in crate::hooks) fn responses(answer: Answer, note: Option<&str>) -> Responses {
        let mut r = Responses::empty(1);
        r.answers[0] = Some(answer);
        r.notes[0] = note.unwrap_or("").to_owned();
        r
    }

    #[test]
    fn a_bash_prompt_asks_with_the_command_as_its_preview() {
        let q = request::parse(&request().payload).expect("a valid approval");
        assert!(q.approval);
        let question = &q.questions[0];
        assert_eq!(
            question.question,
            "Allow claude to use Bash: cargo publish …?"
        );
        assert_eq!(question.header, HEADER);
        let labels: Vec<&str> = question.options.iter().map(|o| o.label.as_str()).collect();
        assert_eq!(labels, [ALLOW_ONCE, ALLOW_ALWAYS, DENY]);
        assert!(question.options[1]
            .description
            .contains("Bash(cargo publish:*)"));
        let preview = question.options[0].preview.as_deref().unwrap();
        assert!(
            preview.starts_with("```sh\ncargo publish\n--dry-run\n```"),
            "{preview}"
        );
        assert!(preview.ends_with("Publish the crate"));
    }

    #[test]
    fn without_suggestions_there_is_no_always() {
        let input = bash_input().replace("\"permission_suggestions\"", "\"other\"");
        let r = read_hook_input(input.as_bytes(), "claude")
            .unwrap()
            .unwrap();
        let q = request::parse(&r.payload).unwrap();
        let labels: Vec<&str> = q.questions[0]
            .options
            .iter()
            .map(|o| o.label.as_str())
            .collect();
        assert_eq!(labels, [ALLOW_ONCE, DENY]);
        // An Always that was not offered allows nothing.
        let env = envelope::outcome(
            &request::parse(&request().payload).unwrap(),
            &Outcome::Submitted(responses(Answer::Option(1), None)),
            None,
        );
        assert_eq!(decision(&env, false), None);
    }

    #[test]
    fn each_answer_gives_its_decision_in_claude_codes_form() {
        let r = request();
        let allow = hook_answer(
            &r,
            &envelope_of(Outcome::Submitted(responses(Answer::Option(0), None))),
        );
        let allow: Value = serde_json::from_str(allow.as_deref().unwrap()).unwrap();
        assert_eq!(
            allow,
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow"}}})
        );
        let always = hook_answer(
            &r,
            &envelope_of(Outcome::Submitted(responses(Answer::Option(1), None))),
        );
        let always: Value = serde_json::from_str(always.as_deref().unwrap()).unwrap();
        assert_eq!(
            always["hookSpecificOutput"]["decision"]["updatedPermissions"],
            json!(r.suggestions)
        );
        let deny = hook_answer(
            &r,
            &envelope_of(Outcome::Submitted(responses(
                Answer::Option(2),
                Some("use the staging registry"),
            ))),
        );
        let deny: Value = serde_json::from_str(deny.as_deref().unwrap()).unwrap();
        assert_eq!(
            deny["hookSpecificOutput"]["decision"],
            json!({"behavior": "deny", "message": "The user denied this: use the staging registry"})
        );
        let typed = decision(
            &envelope_of(Outcome::Submitted(responses(
                Answer::Custom("Allow once".into()),
                None,
            ))),
            true,
        );
        // Typed text is a note, never an allow, whatever it says.
        assert_eq!(
            typed,
            Some(Decision::Deny("The user denied this: Allow once".into()))
        );
    }

    #[test]
    fn whatever_the_popup_cannot_answer_is_left_to_claude_codes_prompt() {
        let r = request();
        for envelope in [
            envelope_of(Outcome::Declined(Responses::empty(1))),
            envelope_of(Outcome::TimedOut(Responses::empty(1))),
            envelope_of(Outcome::Host {
                code: ErrorCode::Dismissed,
                responses: Responses::empty(1),
            }),
            envelope::host_error(ErrorCode::NoReply, Some("r1")),
            envelope::host_error(ErrorCode::ZellijNotFound, Some("r1")),
            String::new(),
            "not json".to_owned(),
            r#"{"content":[{"type":"text","text":"allow"}],"details":{"answers":[{"questionIndex":0,"question":"q","kind":"option","answer":"Allow once"}],"cancelled":true}}"#.to_owned(),
        ] {
            assert_eq!(hook_answer(&r, &envelope), None, "{envelope}");
        }
    }

    #[test]
    fn other_events_and_bad_input() {
        assert_eq!(
            read_hook_input(
                br#"{"hook_event_name":"PreToolUse","tool_name":"Bash"}"#,
                "claude"
            ),
            Ok(None)
        );
        assert!(read_hook_input(b"[1]", "claude").is_err());
        assert!(read_hook_input(b"{", "claude").is_err());
        assert!(read_hook_input(br#"{"hook_event_name":"PermissionRequest"}"#, "claude").is_err());
        // A tool the preview does not know shows its input as JSON.
        let r = read_hook_input(
            br#"{"hook_event_name":"PermissionRequest","tool_name":"mcp__db__drop","tool_input":{"table":"users"}}"#, "claude")
        .unwrap()
        .unwrap();
        let q = request::parse(&r.payload).unwrap();
        assert_eq!(
            q.questions[0].question,
            "Allow claude to use mcp__db__drop?"
        );
        assert!(q.questions[0].options[0]
            .preview
            .as_deref()
            .unwrap()
            .contains("\"table\": \"users\""));
    }

    #[test]
    fn codexs_prompt_has_no_always_and_the_same_output() {
        let input = json!({
            "session_id": "s", "turn_id": "t", "transcript_path": null, "cwd": "/p",
            "model": "m", "permission_mode": "default", "hook_event_name": "PermissionRequest",
            "tool_name": "Bash", "tool_input": {"command": "touch x"},
        })
        .to_string();
        let r = read_hook_input(input.as_bytes(), "codex").unwrap().unwrap();
        assert_eq!(r.transcript, None);
        let q = request::parse(&r.payload).unwrap();
        assert_eq!(q.questions[0].question, "Allow codex to use Bash: touch x?");
        let labels: Vec<&str> = q.questions[0]
            .options
            .iter()
            .map(|o| o.label.as_str())
            .collect();
        assert_eq!(labels, [ALLOW_ONCE, DENY]);
        let allow = envelope::outcome(
            &q,
            &Outcome::Submitted(responses(Answer::Option(0), None)),
            None,
        );
        let allow: Value = serde_json::from_str(&hook_answer(&r, &allow).unwrap()).unwrap();
        assert_eq!(
            allow["hookSpecificOutput"]["decision"],
            json!({"behavior": "allow"})
        );
    }
}
