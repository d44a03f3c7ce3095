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

use super::preview::{fenced, tool_preview};
use crate::consent::{self, Verdict, Yes};
pub use ask_popup_protocol::approval::{
    decision, Decision, ALLOW_ALWAYS, ALLOW_ONCE, DENY, HEADER, WHOLE_PREVIEW_BYTES,
    WHOLE_PREVIEW_LINES,
};
use serde_json::{json, Value};

/// The most characters of the input's summary in the question.
const MAX_SUMMARY_CHARS: usize = 120;
/// The most characters of the changes "Allow always" makes said in its description (all of
/// them are in its preview, whole).
const MAX_CHANGES_IN_DESCRIPTION: usize = 200;

/// The choice of an approval too long to show whole: the agent's own prompt decides.
pub fn leave_it_label(agent: &str) -> String {
    format!("Decide in {agent}'s own prompt")
}

/// The questionnaire of an approval: `agent` asks to use `tool`; `summary` says what (the
/// command, the file), `preview` shows it whole (markdown); `always` lists, whole, every change
/// `Allow always` would make to the agent's settings, when the agent offers it (`None`: not
/// offered, or not one the popup can show whole).
///
/// What would run is allowed only where it is shown whole: a preview past what the popup lays
/// out (`WHOLE_PREVIEW_BYTES`, `WHOLE_PREVIEW_LINES`) says how much is not shown and offers
/// `Deny` and the agent's own prompt, no Allow; and the same for `Allow always` and its changes.
pub fn questionnaire(
    agent: &str,
    tool: &str,
    summary: &str,
    preview: &str,
    always: Option<&[String]>,
) -> String {
    let summary = one_line(summary, MAX_SUMMARY_CHARS);
    let question = if summary.is_empty() {
        format!("Allow {agent} to use {tool}?")
    } else {
        format!("Allow {agent} to use {tool}: {summary}?")
    };
    let deny = json!({
        "label": DENY,
        "description": format!("Tell {agent} no (n first: a note it reads)."),
        "preview": preview,
    });
    if !shown_whole(preview) {
        let (head, left) = head(preview);
        let preview = format!(
            "**Too long to show whole:** {} of {} are not shown, so the popup does not offer Allow. Deny it here, or read it whole in {agent}'s own prompt.\n\n---\n\n{head}\n\n… {} not shown",
            size(left),
            size(preview.len()),
            size(left),
        );
        return json!({
            "approval": true,
            "questions": [{
                "question": question,
                "header": HEADER,
                "options": [
                    {"label": DENY, "description": format!("Tell {agent} no (n first: a note it reads)."), "preview": preview},
                    {"label": leave_it_label(agent), "description": "Read it whole there, and decide there.", "preview": preview},
                ],
            }],
        })
        .to_string();
    }
    let mut options = vec![json!({
        "label": ALLOW_ONCE,
        "description": "Let it run this time.",
        "preview": preview,
    })];
    if let Some(changes) = always {
        let listed = changes
            .iter()
            .map(|c| format!("- {c}"))
            .collect::<Vec<_>>()
            .join("\n");
        let always_preview = format!(
            "**Allow always** lets it run, and makes {} to {agent}'s settings:\n\n{listed}\n\n---\n\n{preview}",
            if changes.len() == 1 { "this change".to_owned() } else { format!("these {} changes", changes.len()) }
        );
        let said = changes.join("; ");
        let description =
            if said.chars().count() <= MAX_CHANGES_IN_DESCRIPTION && !said.contains('\n') {
                format!("Allow it from now on: {said}.")
            } else {
                format!(
                    "Allow it from now on: {} changes to the settings, each in the preview.",
                    changes.len()
                )
            };
        if shown_whole(&always_preview) {
            options.push(json!({
                "label": ALLOW_ALWAYS,
                "description": description,
                "preview": always_preview,
            }));
        }
    }
    options.push(deny);
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

/// Whether the popup shows `preview` whole.
pub fn shown_whole(preview: &str) -> bool {
    preview.len() <= WHOLE_PREVIEW_BYTES && preview.lines().count() <= WHOLE_PREVIEW_LINES
}

/// As much of `preview` as the popup shows whole (cut at a character), and how many bytes are
/// left out.
fn head(preview: &str) -> (&str, usize) {
    let mut end = preview.len().min(WHOLE_PREVIEW_BYTES / 2);
    if let Some((i, _)) = preview.match_indices('\n').nth(WHOLE_PREVIEW_LINES / 2) {
        end = end.min(i);
    }
    while !preview.is_char_boundary(end) {
        end -= 1;
    }
    (&preview[..end], preview.len() - end)
}

/// A size as people read it.
fn size(bytes: usize) -> String {
    if bytes >= 1024 * 1024 {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    } else if bytes >= 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else if bytes == 1 {
        "1 byte".to_owned()
    } else {
        format!("{bytes} bytes")
    }
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
    let (summary, preview) = tool_preview(tool, &tool_input);
    let changes = (!suggestions.is_empty()).then(|| changes(&suggestions));
    Ok(Some(HookRequest {
        payload: questionnaire(agent, tool, &summary, &preview, changes.as_deref()),
        suggestions,
        transcript: input
            .get("transcript_path")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }))
}

/// Every change Claude Code's suggestions would make to its settings, each said whole: the
/// rules added, replaced or removed with their behaviour, the mode, the directories added or
/// removed, and where each is written. A suggestion of a kind not known here is shown as the
/// JSON Claude Code would be handed.
fn changes(suggestions: &[Value]) -> Vec<String> {
    let mut said = Vec::new();
    for s in suggestions {
        let field = |key: &str| s.get(key).and_then(Value::as_str);
        let to = destination(field("destination"));
        let behaviour =
            field("behavior").map_or("(no behaviour said)".to_owned(), |b| format!("`{b}`"));
        let list = |key: &str, each: &dyn Fn(&Value) -> String| -> String {
            let items: Vec<String> = s
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(each)
                .collect();
            if items.is_empty() {
                "(none)".to_owned()
            } else {
                items.join(", ")
            }
        };
        let rule = |rule: &Value| {
            let tool = rule.get("toolName").and_then(Value::as_str).unwrap_or("?");
            match rule.get("ruleContent").and_then(Value::as_str) {
                Some(content) => format!("`{tool}({content})`"),
                None => format!("`{tool}`"),
            }
        };
        let directory = |d: &Value| {
            format!(
                "`{}`",
                d.as_str().map_or_else(|| d.to_string(), str::to_owned)
            )
        };
        match field("type") {
            Some("addRules") => said.push(format!(
                "adds the {behaviour} rules {} to {to}",
                list("rules", &rule)
            )),
            Some("replaceRules") => said.push(format!(
                "replaces the {behaviour} rules of {to} with {}",
                list("rules", &rule)
            )),
            Some("removeRules") => said.push(format!(
                "removes the {behaviour} rules {} from {to}",
                list("rules", &rule)
            )),
            Some("setMode") => said.push(format!(
                "sets the permission mode `{}` in {to}",
                field("mode").unwrap_or("?")
            )),
            Some("addDirectories") => said.push(format!(
                "adds the directories {} to {to}",
                list("directories", &directory)
            )),
            Some("removeDirectories") => said.push(format!(
                "removes the directories {} from {to}",
                list("directories", &directory)
            )),
            _ => said.push(format!(
                "makes this change, which the popup does not know: {}",
                fenced("json", &serde_json::to_string_pretty(s).unwrap_or_default())
            )),
        }
    }
    said
}

/// Where Claude Code writes a change, in words.
fn destination(destination: Option<&str>) -> String {
    match destination {
        Some("userSettings") => "your user settings (~/.claude/settings.json)".to_owned(),
        Some("projectSettings") => "the project's settings (.claude/settings.json)".to_owned(),
        Some("localSettings") => {
            "the project's local settings (.claude/settings.local.json)".to_owned()
        }
        Some("session") => "this session only".to_owned(),
        Some("cliArg") => "this session's arguments".to_owned(),
        Some(other) => format!("`{other}`"),
        None => "the settings Claude Code picks".to_owned(),
    }
}

/// The hook output for the person's verdict, as Claude Code and Codex read it: allow (with the
/// offered rules for Always) or deny with the message the model reads. An allow is made from
/// the person's `Consent` alone.
pub fn hook_output(request: &HookRequest, verdict: &Verdict) -> String {
    let decision = match verdict {
        Verdict::Allow(consent) => match consent.yes() {
            Yes::Always => {
                json!({"behavior": "allow", "updatedPermissions": request.suggestions})
            }
            Yes::Once | Yes::Accept(_) => json!({"behavior": "allow"}),
        },
        Verdict::Deny(message) => json!({"behavior": "deny", "message": message}),
    };
    let output = json!({
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": decision,
        }
    });
    format!("{output}\n")
}

/// What `ask-popup claude-approval` and `codex-approval` print for the popup's `envelope` to the
/// request asked under `id`: `None` leaves the agent's own prompt to decide.
pub fn hook_answer(request: &HookRequest, id: &str, envelope: &str) -> Option<String> {
    let verdict = consent::approval(&request.payload, id, envelope)?;
    Some(hook_output(request, &verdict))
}

#[cfg(test)]
pub(super) mod tests;
