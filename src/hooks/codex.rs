//! `ask-popup codex-hook`: Codex's `PreToolUse` hook for its own question tool,
//! `request_user_input`. The hook input carries the tool's questions (1-3, each with an `id`, a
//! `header`, the `question` and its options); the popup asks them, and the model gets the
//! answers in the form Codex's own dialog gives them, `{"answers":{"<id>":{"answers":[…]}}}`.
//!
//! Codex lets a `PreToolUse` hook only deny a call (an `allow`, with or without `updatedInput`,
//! still runs Codex's own dialog), and hands the model the denial's reason as the call's output.
//! So an answer goes back as a denial whose reason says the user answered in the popup and
//! gives the answers as Codex's dialog would; a decline, a chat request or a question that is
//! over goes back with the envelope's text. Whenever the popup could not reach the user, or
//! refused questions Codex takes (`Fallback::CODEX`), the hook prints nothing and Codex's own
//! dialog asks. A secret question (`isSecret`) is always left to Codex's dialog, which hides what
//! is typed.

use super::tool_call as hook;
use ask_popup_protocol::envelope::{Details, NO_INPUT};
use ask_popup_protocol::error_code::Fallback;
use serde_json::{json, Map, Value};

/// The Codex tool this hook answers.
pub const TOOL: &str = "request_user_input";
/// The agent name the popup shows for Codex.
pub const AGENT: &str = "codex";
/// What the reason of an answered call says before the answers.
pub const ANSWERED: &str = "The user answered these questions in the ask-popup dialog (Codex's own dialog was not shown). The answers, as request_user_input returns them: ";

/// One `request_user_input` call, from the hook's input.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// Each question's `id`, in order: the answers are keyed by them.
    pub ids: Vec<String>,
    /// The questionnaire to put to the popup.
    pub payload: String,
    /// Codex's id for this tool call, when it gave one: the popup request's id.
    pub tool_use_id: Option<String>,
}

/// Why the hook input could not be read (said on stderr; Codex then asks itself).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HookInputError {
    #[error("the hook input is not a JSON object: {0}")]
    NotJson(String),
    #[error("the request_user_input input has no `questions` list")]
    NoQuestions,
    #[error("a question is secret: Codex's own dialog hides what is typed")]
    Secret,
}

/// Reads the hook input: `Ok(None)` for another tool (nothing to do).
pub fn read_input(input: &[u8]) -> Result<Option<Call>, HookInputError> {
    let Some(call) = hook::read(input, TOOL).map_err(HookInputError::NotJson)? else {
        return Ok(None);
    };
    // Codex hands the tool's arguments as an object (or, from some paths, as their JSON text).
    let tool_input = match call.input.get("tool_input") {
        Some(Value::String(text)) => serde_json::from_str(text).unwrap_or(Value::Null),
        Some(other) => other.clone(),
        None => Value::Null,
    };
    let questions = tool_input
        .get("questions")
        .and_then(Value::as_array)
        .ok_or(HookInputError::NoQuestions)?;
    if questions
        .iter()
        .any(|q| q.get("isSecret").and_then(Value::as_bool) == Some(true))
    {
        return Err(HookInputError::Secret);
    }
    let text = |q: &Value, field: &str| {
        q.get(field)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let ids = questions.iter().map(|q| text(q, "id")).collect();
    let asked: Vec<Value> = questions
        .iter()
        .map(|q| {
            let options: Vec<Value> = q
                .get("options")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(
                    |o| json!({ "label": text(o, "label"), "description": text(o, "description") }),
                )
                .collect();
            json!({
                "question": text(q, "question"),
                "header": text(q, "header"),
                "options": options,
                "multiSelect": false,
            })
        })
        .collect();
    let payload = json!({ "questions": asked }).to_string();
    Ok(Some(Call {
        ids,
        payload,
        tool_use_id: call.tool_use_id,
    }))
}

/// What the hook prints for the popup's `envelope`, or `None` when it prints nothing and
/// Codex's own dialog asks (`Fallback::CODEX`).
pub fn answer(call: &Call, envelope: &str) -> Option<String> {
    let envelope = hook::for_the_agent(envelope, Fallback::CODEX)?;
    let details = &envelope.details;
    let reason = if details.error.is_none() && !details.cancelled {
        format!("{ANSWERED}{}", answers(call, details))
    } else {
        // A decline, a chat request, or a question that is over: the model reads the text,
        // without its last full stop (Codex puts one after the reason).
        let text = envelope.text();
        text.strip_suffix('.').unwrap_or(text).to_owned()
    };
    Some(hook::deny(&reason))
}

/// `{"answers":{"<id>":{"answers":[…]}}}` as Codex's dialog returns it: the picked label or
/// the typed text, then the question's note as `user_note: …`; the global note joins the last
/// question's answers the same way.
fn answers(call: &Call, details: &Details) -> Value {
    let mut lists: Vec<Vec<String>> = vec![Vec::new(); call.ids.len()];
    for answer in &details.answers {
        let Some(list) = lists.get_mut(answer.question_index) else {
            continue;
        };
        match &answer.answer {
            Some(text) if !text.is_empty() => list.push(text.to_string()),
            Some(_) => list.push(NO_INPUT.to_owned()),
            None => list.extend(answer.selected.iter().map(|s| s.to_string())),
        }
        if let Some(note) = &answer.notes {
            list.push(format!("user_note: {note}"));
        }
    }
    for unanswered in &details.unanswered_notes {
        if let Some(list) = lists.get_mut(unanswered.question_index) {
            list.push(format!("user_note: {}", unanswered.note));
        }
    }
    if let (Some(global), Some(last)) = (details.global_note.as_deref(), lists.last_mut()) {
        last.push(format!("user_note: {global}"));
    }
    let mut answers = Map::new();
    for (id, list) in call.ids.iter().zip(lists) {
        answers.insert(id.clone(), json!({ "answers": list }));
    }
    json!({ "answers": answers })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ask_popup_protocol::envelope::{self, Answer, ErrorCode, Outcome, Responses};
    use ask_popup_protocol::request;

    const QUESTIONS: &str = r#"[{"id":"db","header":"DB","question":"Which database?","options":[{"label":"Postgres","description":"a server"},{"label":"SQLite","description":"a file"}]},{"id":"ci","header":"CI","question":"Which CI?","options":[{"label":"GitHub","description":"hosted"},{"label":"Local","description":"here"}]}]"#;

    fn hook_input(tool: &str, questions: &str) -> String {
        format!(
            r#"{{"session_id":"s","turn_id":"t","cwd":"/p","hook_event_name":"PreToolUse","model":"m","permission_mode":"default","tool_name":"{tool}","tool_input":{{"questions":{questions}}},"tool_use_id":"call_1"}}"#
        )
    }

    fn call() -> Call {
        read_input(hook_input(TOOL, QUESTIONS).as_bytes())
            .expect("valid input")
            .expect("request_user_input")
    }

    fn envelope_of(outcome: Outcome) -> String {
        let questionnaire = request::parse(&call().payload).expect("valid questions");
        envelope::outcome(&questionnaire, &outcome, Some("call_1"))
    }

    fn reason_of(output: &str) -> String {
        let value: Value = serde_json::from_str(output).expect("JSON");
        assert_eq!(value["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        assert_eq!(value["hookSpecificOutput"]["permissionDecision"], "deny");
        value["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .expect("a reason")
            .to_owned()
    }

    #[test]
    fn the_hook_input_becomes_the_popups_questionnaire() {
        let call = call();
        assert_eq!(call.ids, ["db", "ci"]);
        assert_eq!(call.tool_use_id.as_deref(), Some("call_1"));
        let asked = request::parse(&call.payload).expect("the popup takes it");
        assert_eq!(asked.questions.len(), 2);
        assert_eq!(asked.questions[0].header, "DB");
        assert_eq!(asked.questions[1].options[1].label, "Local");
        // Arguments given as their JSON text read the same.
        let as_text = format!(
            r#"{{"tool_name":"{TOOL}","tool_input":{}}}"#,
            serde_json::to_string(&format!(r#"{{"questions":{QUESTIONS}}}"#)).unwrap()
        );
        assert_eq!(
            read_input(as_text.as_bytes()).unwrap().unwrap().ids,
            ["db", "ci"]
        );
    }

    #[test]
    fn other_tools_secrets_and_bad_input_are_left_to_codex() {
        assert_eq!(read_input(hook_input("shell", "[]").as_bytes()), Ok(None));
        let secret = QUESTIONS.replacen(r#""id":"db","#, r#""id":"db","isSecret":true,"#, 1);
        assert_eq!(
            read_input(hook_input(TOOL, &secret).as_bytes()),
            Err(HookInputError::Secret)
        );
        assert!(matches!(read_input(b"no"), Err(HookInputError::NotJson(_))));
        assert!(matches!(
            read_input(b"[1]"),
            Err(HookInputError::NotJson(_))
        ));
        assert_eq!(
            read_input(format!(r#"{{"tool_name":"{TOOL}","tool_input":{{}}}}"#).as_bytes()),
            Err(HookInputError::NoQuestions)
        );
    }

    #[test]
    fn answers_go_back_as_codexs_dialog_gives_them() {
        let outcome = Outcome::Submitted(Responses {
            answers: vec![
                Some(Answer::Option(1)),
                Some(Answer::Custom("Woodpecker".to_owned())),
            ],
            notes: vec!["keep it small".to_owned(), String::new()],
            global_note: "thanks".to_owned(),
        });
        let reason = reason_of(&answer(&call(), &envelope_of(outcome)).expect("answered"));
        let json = reason.strip_prefix(ANSWERED).expect("the sentence first");
        assert_eq!(
            serde_json::from_str::<Value>(json).unwrap(),
            json!({"answers": {
                "db": {"answers": ["SQLite", "user_note: keep it small"]},
                "ci": {"answers": ["Woodpecker", "user_note: thanks"]},
            }})
        );
    }

    #[test]
    fn a_decline_is_the_envelopes_text_and_out_of_reach_leaves_codex_to_ask() {
        let none = Responses {
            answers: vec![None, None],
            notes: vec![String::new(), String::new()],
            global_note: String::new(),
        };
        let declined = envelope_of(Outcome::Declined(none.clone()));
        let no_stop = |text: &str| text.strip_suffix('.').unwrap_or(text).to_owned();
        assert_eq!(
            reason_of(&answer(&call(), &declined).unwrap()),
            no_stop(envelope::DECLINED_TEXT)
        );
        let timed_out = envelope_of(Outcome::TimedOut(none));
        assert_eq!(
            reason_of(&answer(&call(), &timed_out).unwrap()),
            no_stop(envelope::TIMED_OUT_TEXT)
        );
        for code in [ErrorCode::NoUi, ErrorCode::Dismissed, ErrorCode::NoReply] {
            assert_eq!(
                answer(&call(), &envelope::host_error(code, None)),
                None,
                "{code:?}"
            );
        }
        // Questions the popup refuses (no options) are asked in Codex's dialog.
        let bare = r#"{"questions":[{"question":"Name?","header":"Name","options":[],"multiSelect":false}]}"#;
        let rejected = request::parse(bare).expect_err("no options");
        assert_eq!(answer(&call(), &envelope::rejection(&rejected, None)), None);
        assert_eq!(answer(&call(), "not an envelope"), None);
    }
}
