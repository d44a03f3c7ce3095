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

pub use ask_popup_protocol::approval::{
    decision, Decision, ALLOW_ALWAYS, ALLOW_ONCE, DENY, HEADER,
};
use serde_json::{json, Map, Value};

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

/// `text` fenced as a code block of `lang`, with a fence longer than any run of backticks in it.
pub fn fenced(lang: &str, text: &str) -> String {
    let longest = text
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or(0)
        .max(2);
    let fence = "`".repeat(longest + 1);
    let text = text.strip_suffix('\n').unwrap_or(text);
    format!("{fence}{lang}\n{text}\n{fence}")
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

/// The summary and the preview of a Claude Code tool's input: the command of `Bash`, the file
/// and its change of `Edit`, `MultiEdit` and `Write`, the URL of `WebFetch`, and any other
/// input as JSON.
fn tool_preview(tool: &str, input: &Map<String, Value>) -> (String, String) {
    let text = |key: &str| input.get(key).and_then(Value::as_str).unwrap_or("");
    match tool {
        "Bash" => (
            text("command").to_owned(),
            command_preview(text("command"), text("description")),
        ),
        "Edit" => {
            let diff = diff(text("old_string"), text("new_string"));
            (
                text("file_path").to_owned(),
                file_preview(text("file_path"), Some(("diff", &diff))),
            )
        }
        "MultiEdit" => {
            let diffs: Vec<String> = input
                .get("edits")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|e| {
                    let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("");
                    diff(s("old_string"), s("new_string"))
                })
                .collect();
            (
                text("file_path").to_owned(),
                file_preview(text("file_path"), Some(("diff", &diffs.join("\n")))),
            )
        }
        "Write" => (
            text("file_path").to_owned(),
            file_preview(text("file_path"), Some(("", text("content")))),
        ),
        "WebFetch" => (
            text("url").to_owned(),
            format!("{}\n\n{}", text("url"), text("prompt")),
        ),
        _ => {
            let json = serde_json::to_string_pretty(input).unwrap_or_default();
            (String::new(), fenced("json", &json))
        }
    }
}

/// A command as the preview shows it: fenced as shell, its description (when it has one) below.
fn command_preview(command: &str, description: &str) -> String {
    let fenced = fenced("sh", command);
    if description.is_empty() {
        fenced
    } else {
        format!("{fenced}\n\n{description}")
    }
}

/// A file as the preview shows it: its path, and below it `body` fenced as `lang` (its change,
/// or what is written), when there is one.
fn file_preview(path: &str, body: Option<(&str, &str)>) -> String {
    match body {
        Some((lang, body)) => format!("`{path}`\n\n{}", fenced(lang, body)),
        None => format!("`{path}`"),
    }
}

/// The old text's lines as removed, the new one's as added.
fn diff(old: &str, new: &str) -> String {
    let mut out = String::new();
    for line in old.lines() {
        out.push('-');
        out.push_str(line);
        out.push('\n');
    }
    for line in new.lines() {
        out.push('+');
        out.push_str(line);
        out.push('\n');
    }
    out
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

/// One opencode permission prompt, from its `permission.asked` event (which the opencode
/// plugin hands `ask-popup opencode-approval` on stdin): `{id, sessionID, permission, patterns,
/// always, metadata, tool}`.
#[derive(Clone, Debug, PartialEq)]
pub struct OpencodeRequest {
    /// The questionnaire to put to the popup.
    pub payload: String,
    /// opencode's id for the prompt: the popup request's id.
    pub id: Option<String>,
    /// Whether opencode offers to allow it always (its `always` patterns).
    pub always: bool,
}

/// Reads a `permission.asked` event's properties: `Err` with why when they cannot be read
/// (opencode's own prompt then decides).
pub fn read_opencode(input: &[u8]) -> Result<Option<OpencodeRequest>, String> {
    let value: Value = serde_json::from_slice(input).map_err(|e| e.to_string())?;
    let Value::Object(event) = value else {
        return Err("the permission is not a JSON object".to_owned());
    };
    let permission = event
        .get("permission")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .ok_or("the permission names no tool")?;
    let strings = |key: &str| -> Vec<String> {
        event
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    let (patterns, always) = (strings("patterns"), strings("always"));
    let metadata = event
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let text = |key: &str| metadata.get(key).and_then(Value::as_str).unwrap_or("");
    let (summary, preview) = if !text("command").is_empty() {
        (
            text("command").to_owned(),
            command_preview(text("command"), text("description")),
        )
    } else if !text("filepath").is_empty() {
        let change = Some(("diff", text("diff"))).filter(|(_, diff)| !diff.is_empty());
        (
            text("filepath").to_owned(),
            file_preview(text("filepath"), change),
        )
    } else {
        let mut preview = patterns
            .iter()
            .map(|p| format!("- `{p}`"))
            .collect::<Vec<_>>()
            .join("\n");
        if !metadata.is_empty() {
            let json = serde_json::to_string_pretty(&metadata).unwrap_or_default();
            preview = format!("{preview}\n\n{}", fenced("json", &json));
        }
        (patterns.join(", "), preview)
    };
    let rule = always.join(", ");
    Ok(Some(OpencodeRequest {
        payload: questionnaire(
            OPENCODE,
            permission,
            &summary,
            &preview,
            (!always.is_empty()).then_some(rule.as_str()),
        ),
        id: event
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .map(str::to_owned),
        always: !always.is_empty(),
    }))
}

/// The agent name the popup shows for opencode.
const OPENCODE: &str = "opencode";

/// What `ask-popup opencode-approval` prints for the popup's `envelope`: opencode's reply
/// (`{"reply":"once"}`, `"always"`, or `"reject"` with the message the model reads), or `None`,
/// which leaves the decision to opencode's own prompt.
pub fn opencode_answer(request: &OpencodeRequest, envelope: &str) -> Option<String> {
    let reply = match decision(envelope, request.always)? {
        Decision::AllowOnce => json!({"reply": "once"}),
        Decision::AllowAlways => json!({"reply": "always"}),
        Decision::Deny(message) => json!({"reply": "reject", "message": message}),
    };
    Some(format!("{reply}\n"))
}

/// Whether a tool result was written to Claude Code's transcript after its first `from` bytes:
/// its own prompt was answered (Claude Code waits on the prompt, so no other tool finishes
/// meanwhile but one that needed none).
pub fn answered_in_transcript(path: &str, from: u64) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    if file.seek(SeekFrom::Start(from)).is_err() {
        return false;
    }
    let mut added = String::new();
    let _ = file.take(16 * 1024 * 1024).read_to_string(&mut added);
    added.contains("\"tool_result\"")
}

#[cfg(test)]
mod tests {
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

    fn responses(answer: Answer, note: Option<&str>) -> Responses {
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
    fn an_edit_shows_its_file_and_change() {
        let r = read_hook_input(
            br#"{"hook_event_name":"PermissionRequest","tool_name":"Edit","tool_input":{"file_path":"/p/src/main.rs","old_string":"a\nb","new_string":"c"}}"#, "claude")
        .unwrap()
        .unwrap();
        let q = request::parse(&r.payload).unwrap();
        assert_eq!(
            q.questions[0].question,
            "Allow claude to use Edit: /p/src/main.rs?"
        );
        assert_eq!(
            q.questions[0].options[0].preview.as_deref(),
            Some("`/p/src/main.rs`\n\n```diff\n-a\n-b\n+c\n```")
        );
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

    #[test]
    fn opencodes_prompt_asks_with_its_command_and_replies_as_opencode_reads() {
        let event = json!({
            "id": "per_1", "sessionID": "ses_1", "permission": "bash",
            "patterns": ["touch x"], "always": ["touch *"],
            "metadata": {"command": "touch x", "description": "Touch it"},
            "tool": {"messageID": "msg_1", "callID": "call_1"},
        })
        .to_string();
        let r = read_opencode(event.as_bytes()).unwrap().unwrap();
        assert_eq!(r.id.as_deref(), Some("per_1"));
        let q = request::parse(&r.payload).unwrap();
        assert_eq!(
            q.questions[0].question,
            "Allow opencode to use bash: touch x?"
        );
        assert!(q.questions[0].options[1].description.contains("touch *"));
        assert_eq!(
            q.questions[0].options[0].preview.as_deref(),
            Some("```sh\ntouch x\n```\n\nTouch it")
        );
        let reply = |answer, note| {
            let env = envelope::outcome(&q, &Outcome::Submitted(responses(answer, note)), None);
            opencode_answer(&r, &env).map(|s| serde_json::from_str::<Value>(&s).unwrap())
        };
        assert_eq!(
            reply(Answer::Option(0), None),
            Some(json!({"reply": "once"}))
        );
        assert_eq!(
            reply(Answer::Option(1), None),
            Some(json!({"reply": "always"}))
        );
        assert_eq!(
            reply(Answer::Option(2), Some("not now")),
            Some(json!({"reply": "reject", "message": "The user denied this: not now"}))
        );
        let declined = envelope::outcome(&q, &Outcome::Declined(Responses::empty(1)), None);
        assert_eq!(opencode_answer(&r, &declined), None);
        // An edit shows its file and diff; anything else its patterns.
        let edit = br#"{"id":"per_2","permission":"edit","patterns":["a.rs"],"metadata":{"filepath":"/p/a.rs","diff":"-a\n+b\n"}}"#;
        let q = request::parse(&read_opencode(edit).unwrap().unwrap().payload).unwrap();
        assert_eq!(
            q.questions[0].question,
            "Allow opencode to use edit: /p/a.rs?"
        );
        assert_eq!(
            q.questions[0].options[0].preview.as_deref(),
            Some("`/p/a.rs`\n\n```diff\n-a\n+b\n```")
        );
        let labels: Vec<&str> = q.questions[0]
            .options
            .iter()
            .map(|o| o.label.as_str())
            .collect();
        assert_eq!(labels, [ALLOW_ONCE, DENY]);
        let other = br#"{"permission":"external_directory","patterns":["/etc/*"]}"#;
        let q = request::parse(&read_opencode(other).unwrap().unwrap().payload).unwrap();
        assert_eq!(
            q.questions[0].question,
            "Allow opencode to use external_directory: /etc/*?"
        );
        assert!(read_opencode(b"{}").is_err());
        assert!(read_opencode(b"[]").is_err());
    }

    #[test]
    fn a_fence_is_longer_than_the_backticks_inside() {
        assert_eq!(fenced("sh", "echo ```"), "````sh\necho ```\n````");
        assert_eq!(fenced("", "x"), "```\nx\n```");
    }

    #[test]
    fn a_tool_result_in_the_transcript_is_an_answer_elsewhere() {
        let dir = std::env::temp_dir().join(format!("ask-popup-approval-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.jsonl");
        std::fs::write(
            &path,
            "{\"type\":\"user\",\"content\":[{\"type\":\"tool_result\"}]}\n",
        )
        .unwrap();
        let from = std::fs::metadata(&path).unwrap().len();
        let path = path.to_string_lossy().into_owned();
        assert!(!answered_in_transcript(&path, from));
        assert!(answered_in_transcript(&path, 0));
        std::fs::write(&path, "{\"type\":\"user\",\"content\":[{\"type\":\"tool_result\"}]}\n{\"type\":\"tool_result\"}\n").unwrap();
        assert!(answered_in_transcript(&path, from));
        assert!(!answered_in_transcript("/no/such/file", 0));
        let _ = std::fs::remove_dir_all(dir);
    }
}
