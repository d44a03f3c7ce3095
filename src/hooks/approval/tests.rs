//! The approval hook's questionnaire, its Allow offered only for what is shown whole, and
//! each agent's output for each answer.

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

/// The labels of the approval's rows.
fn labels(q: &request::Questionnaire) -> Vec<&str> {
    q.questions[0]
        .options
        .iter()
        .map(|o| o.label.as_str())
        .collect()
}

fn envelope_of(outcome: Outcome) -> String {
    let questionnaire = request::parse(&request().payload).expect("a valid approval");
    envelope::outcome(&questionnaire, &outcome, Some("r1"))
}

fn answer(r: &HookRequest, envelope: &str) -> Option<String> {
    hook_answer(r, "r1", envelope)
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
    let labels = labels(&q);
    assert_eq!(labels, [ALLOW_ONCE, DENY]);
    // An Always that was not offered allows nothing.
    let env = envelope::outcome(
        &request::parse(&request().payload).unwrap(),
        &Outcome::Submitted(responses(Answer::Option(1), None)),
        Some("r1"),
    );
    assert_eq!(answer(&r, &env), None);
}

#[test]
fn each_answer_gives_its_decision_in_claude_codes_form() {
    let r = request();
    let allow = answer(
        &r,
        &envelope_of(Outcome::Submitted(responses(Answer::Option(0), None))),
    );
    let allow: Value = serde_json::from_str(allow.as_deref().unwrap()).unwrap();
    assert_eq!(
        allow,
        json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"}}})
    );
    let always = answer(
        &r,
        &envelope_of(Outcome::Submitted(responses(Answer::Option(1), None))),
    );
    let always: Value = serde_json::from_str(always.as_deref().unwrap()).unwrap();
    assert_eq!(
        always["hookSpecificOutput"]["decision"]["updatedPermissions"],
        json!(r.suggestions)
    );
    let deny = answer(
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
        assert_eq!(answer(&r, &envelope), None, "{envelope}");
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
    let labels = labels(&q);
    assert_eq!(labels, [ALLOW_ONCE, DENY]);
    let allow = envelope::outcome(
        &q,
        &Outcome::Submitted(responses(Answer::Option(0), None)),
        Some("r1"),
    );
    let allow: Value = serde_json::from_str(&answer(&r, &allow).unwrap()).unwrap();
    assert_eq!(
        allow["hookSpecificOutput"]["decision"],
        json!({"behavior": "allow"})
    );
}

#[test]
fn a_command_too_long_to_show_whole_offers_no_allow_and_says_how_much_is_not_shown() {
    // 70,000 characters, with what matters at the very end.
    let command = format!("echo {}; touch /tmp/owned", "a".repeat(70_000));
    let input = json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": command},
        "permission_suggestions": [{"type": "addRules", "rules": [{"toolName": "Bash",
            "ruleContent": "echo:*"}], "behavior": "allow", "destination": "localSettings"}]})
    .to_string();
    let r = read_hook_input(input.as_bytes(), "claude")
        .unwrap()
        .unwrap();
    let q = request::parse(&r.payload).expect("a valid approval");
    let labels = labels(&q);
    assert_eq!(labels, [DENY, "Decide in claude's own prompt"]);
    let preview = q.questions[0].options[0].preview.as_deref().unwrap();
    assert!(
        preview.starts_with("**Too long to show whole:**"),
        "{preview:.200}"
    );
    assert!(
        preview.contains("KiB of 68.4 KiB are not shown"),
        "{preview:.200}"
    );
    assert!(shown_whole(preview), "the notice itself is shown whole");
    // The popup's answer on its rows: Deny denies, the other leaves it to Claude Code.
    let picked = |row| {
        let env = envelope::outcome(
            &q,
            &Outcome::Submitted(responses(Answer::Option(row), None)),
            Some("r1"),
        );
        hook_answer(&r, "r1", &env)
    };
    assert!(picked(0).unwrap().contains("\"deny\""));
    assert_eq!(picked(1), None);
    // Just within what the popup shows whole, Allow is offered.
    let fits = format!("echo {}", "a".repeat(WHOLE_PREVIEW_BYTES - 100));
    let input = json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": fits}})
    .to_string();
    let r = read_hook_input(input.as_bytes(), "claude")
        .unwrap()
        .unwrap();
    let q = request::parse(&r.payload).unwrap();
    assert_eq!(q.questions[0].options[0].label, ALLOW_ONCE);
    // And so for lines.
    let lines = "echo a\n".repeat(WHOLE_PREVIEW_LINES + 1);
    let input = json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": lines}})
    .to_string();
    let r = read_hook_input(input.as_bytes(), "claude")
        .unwrap()
        .unwrap();
    let q = request::parse(&r.payload).unwrap();
    assert_eq!(q.questions[0].options[0].label, DENY);
}

#[test]
fn allow_always_shows_every_change_it_makes_whole() {
    let long_rule = "x".repeat(300);
    let input = json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash",
    "tool_input": {"command": "ls"},
    "permission_suggestions": [
        {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": long_rule}],
            "behavior": "allow", "destination": "userSettings"},
        {"type": "replaceRules", "rules": [{"toolName": "Read"}], "behavior": "deny",
            "destination": "projectSettings"},
        {"type": "removeRules", "rules": [{"toolName": "Bash", "ruleContent": "rm:*"}],
            "behavior": "ask", "destination": "localSettings"},
        {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
        {"type": "addDirectories", "directories": ["/srv/a"], "destination": "session"},
        {"type": "removeDirectories", "directories": ["/srv/b"], "destination": "cliArg"},
        {"type": "somethingNew", "payload": 1},
    ]})
    .to_string();
    let r = read_hook_input(input.as_bytes(), "claude")
        .unwrap()
        .unwrap();
    let q = request::parse(&r.payload).unwrap();
    let always = &q.questions[0].options[1];
    assert_eq!(always.label, ALLOW_ALWAYS);
    let preview = always.preview.as_deref().unwrap();
    for said in [
        format!("adds the `allow` rules `Bash({long_rule})` to your user settings"),
        "replaces the `deny` rules of the project's settings (.claude/settings.json) with `Read`"
            .to_owned(),
        "removes the `ask` rules `Bash(rm:*)` from the project's local settings".to_owned(),
        "sets the permission mode `acceptEdits` in this session only".to_owned(),
        "adds the directories `/srv/a` to this session only".to_owned(),
        "removes the directories `/srv/b` from this session's arguments".to_owned(),
        "\"type\": \"somethingNew\"".to_owned(),
    ] {
        assert!(preview.contains(&said), "{said} not in {preview}");
    }
    assert!(
        always.description.contains("7 changes"),
        "{}",
        always.description
    );
}
