//! `ask-popup claude-hook`: Claude Code's `PreToolUse` hook for its `AskUserQuestion` tool. The
//! hook input names the tool and carries its questions (our request's shape); the popup's
//! envelope becomes Claude Code's answer: `allow` with the answers filled in, `deny` with the
//! envelope's text for a decline, a chat request or a question that is over (a timeout), and
//! nothing at all whenever the popup could not reach the user, so that Claude Code's own dialog
//! asks instead and the question is never lost (`Fallback::CLAUDE_CODE`).
//!
//! Besides `answers` (question → answer), AskUserQuestion's input takes `annotations` (question →
//! `{preview, notes}`), which Claude Code hands the model as `selected preview:` and `notes:` after
//! the answer, and as `(no option selected) notes:` for a question with a note and no answer. The
//! tool has no place for a note on the whole questionnaire, so the global note rides on the last
//! question's notes as `global note: …`, as it ends the envelope's text.

use super::tool_call as hook;
use ask_popup_protocol::envelope::{Details, NO_INPUT};
use ask_popup_protocol::error_code::Fallback;
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
    let Some(call) = hook::read(input, TOOL).map_err(HookInputError::NotJson)? else {
        return Ok(None);
    };
    let questions = call
        .input
        .get("tool_input")
        .and_then(|t| t.get("questions"))
        .filter(|q| q.is_array())
        .cloned()
        .ok_or(HookInputError::NoQuestions)?;
    let payload = json!({ "questions": questions }).to_string();
    Ok(Some(Call {
        questions,
        payload,
        tool_use_id: call.tool_use_id,
    }))
}

/// What the hook prints for the popup's `envelope`, or `None` when it prints nothing and
/// Claude Code's own dialog asks: whenever the popup could not reach the user, or refused a
/// request Claude Code took (`Fallback::CLAUDE_CODE`). A question that is over without an
/// answer (a timeout, withdrawn, replaced) is denied with the envelope's text, as a decline or
/// a chat request is: the model reads why.
pub fn answer(call: &Call, envelope: &str) -> Option<String> {
    let envelope = hook::for_the_agent(envelope, Fallback::CLAUDE_CODE)?;
    let details = &envelope.details;
    if details.error.is_none() && !details.cancelled {
        let mut updated = Map::new();
        updated.insert("questions".to_owned(), call.questions.clone());
        updated.insert("answers".to_owned(), Value::Object(answers(call, details)));
        let annotations = annotations(call, details);
        if !annotations.is_empty() {
            updated.insert("annotations".to_owned(), Value::Object(annotations));
        }
        let output = json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": updated,
            }
        });
        Some(format!("{output}\n"))
    } else {
        // A decline, a chat request, or a question that is over: the model reads the text.
        Some(hook::deny(envelope.text()))
    }
}

/// The questions' texts exactly as Claude Code sent them (the popup's envelope carries them
/// normalised: CRLF as LF), which Claude Code matches its answers and annotations to.
fn original_questions(call: &Call) -> Vec<&str> {
    call.questions
        .as_array()
        .into_iter()
        .flatten()
        .map(|q| q.get("question").and_then(Value::as_str).unwrap_or(""))
        .collect()
}

/// `{"<question>": "<answer>"}` in question order, keyed by the question as Claude Code sent it:
/// a label, the typed text, or the ticked labels (and typed text) joined with `, `, as the
/// envelope's text gives them.
fn answers(call: &Call, details: &Details) -> Map<String, Value> {
    let questions = original_questions(call);
    let mut answers = Map::new();
    for answer in &details.answers {
        let question = questions
            .get(answer.question_index)
            .copied()
            .unwrap_or(&answer.question);
        let text = match &answer.answer {
            Some(text) => text.to_string(),
            None => answer.selected.join(", "),
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

/// `{"<question>": {"preview": …, "notes": …}}` for the questions with a picked preview or a note
/// (answered or not), in question order; the global note joins the last question's notes.
fn annotations(call: &Call, details: &Details) -> Map<String, Value> {
    let questions = original_questions(call);
    let mut notes: Vec<Option<String>> = vec![None; questions.len()];
    let mut previews: Vec<Option<String>> = vec![None; questions.len()];
    for answer in &details.answers {
        if let Some(i) = (answer.question_index < questions.len()).then_some(answer.question_index)
        {
            if let Some(note) = &answer.notes {
                notes[i] = Some(note.to_string());
            }
            if let Some(preview) = &answer.preview {
                previews[i] = Some(preview.to_string());
            }
        }
    }
    for unanswered in &details.unanswered_notes {
        if let Some(slot) = notes.get_mut(unanswered.question_index) {
            *slot = Some(unanswered.note.to_string());
        }
    }
    if let (Some(global), Some(last)) = (details.global_note.as_deref(), notes.last_mut()) {
        let global = format!("global note: {global}");
        *last = Some(match last.take() {
            Some(note) => format!("{note}. {global}"),
            None => global,
        });
    }
    let mut annotations = Map::new();
    for (i, question) in questions.iter().enumerate() {
        let mut annotation = Map::new();
        if let Some(preview) = previews[i].take() {
            annotation.insert("preview".to_owned(), Value::String(preview));
        }
        if let Some(note) = notes[i].take() {
            annotation.insert("notes".to_owned(), Value::String(note));
        }
        if !annotation.is_empty() {
            annotations.insert((*question).to_owned(), Value::Object(annotation));
        }
    }
    annotations
}

/// Whether a tool result was written to Claude Code's transcript after its first `from` bytes:
/// its own prompt was answered (Claude Code waits on the prompt, so no other tool finishes
/// meanwhile but one that needed none). The transcript is JSON lines: each whole line written
/// since is read as JSON and counts when it holds a `{"type": "tool_result"}` block (a line
/// still being written counts once it is whole; text that merely mentions one does not).
pub fn answered_in_transcript(path: &str, from: u64) -> bool {
    use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    if file.seek(SeekFrom::Start(from)).is_err() {
        return false;
    }
    BufReader::new(file.take(16 * 1024 * 1024))
        .split(b'\n')
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_slice::<Value>(&line).ok())
        .any(|entry| holds_tool_result(&entry))
}

/// Whether `value` is, or holds at any depth, an object whose `type` is `tool_result`.
fn holds_tool_result(value: &Value) -> bool {
    match value {
        Value::Object(object) => {
            object.get("type").and_then(Value::as_str) == Some("tool_result")
                || object.values().any(holds_tool_result)
        }
        Value::Array(items) => items.iter().any(holds_tool_result),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ask_popup_protocol::envelope::{self, Answer, ErrorCode, Outcome, Responses};
    use ask_popup_protocol::request;

    const QUESTIONS: &str = r#"[{"question":"Which layout?","header":"Layout","options":[{"label":"Grid","description":"grid layout","preview":"+--+--+"},{"label":"List","description":"list layout"}],"multiSelect":false},{"question":"Which sizes?","header":"Sizes","options":[{"label":"S","description":"small"},{"label":"M","description":"medium"},{"label":"L","description":"large"}],"multiSelect":true}]"#;

    fn hook_input(tool: &str) -> String {
        format!(
            r#"{{"session_id":"s","transcript_path":"/t","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"{tool}","tool_input":{{"questions":{QUESTIONS}}},"tool_use_id":"toolu_1"}}"#
        )
    }

    fn call() -> Call {
        read_input(hook_input(TOOL).as_bytes())
            .expect("valid input")
            .expect("AskUserQuestion")
    }

    /// The envelope the plugin writes for `outcome` of the hook's questions.
    fn envelope_of(outcome: Outcome) -> String {
        let questionnaire = request::parse(&call().payload).expect("valid questions");
        envelope::outcome(&questionnaire, &outcome, Some("toolu_1"))
    }

    fn allow(updated: &str) -> String {
        format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{{"questions":{QUESTIONS},{updated}}}}}}}"#
        ) + "\n"
    }

    fn deny(reason: &str) -> String {
        format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":{}}}}}"#,
            serde_json::to_string(reason).unwrap()
        ) + "\n"
    }

    fn responses(answers: [Option<Answer>; 2], notes: [&str; 2], global: &str) -> Responses {
        Responses {
            answers: answers.to_vec(),
            notes: notes.iter().map(|n| n.to_string()).collect(),
            global_note: global.to_owned(),
        }
    }

    #[test]
    fn the_hook_input_gives_the_questions_back_and_the_popups_questionnaire() {
        let call = call();
        assert_eq!(call.tool_use_id.as_deref(), Some("toolu_1"));
        assert_eq!(
            call.questions,
            serde_json::from_str::<Value>(QUESTIONS).unwrap()
        );
        assert_eq!(call.payload, format!(r#"{{"questions":{QUESTIONS}}}"#));
    }

    #[test]
    fn other_tools_are_left_alone_and_bad_input_is_an_error() {
        assert_eq!(read_input(hook_input("Bash").as_bytes()), Ok(None));
        assert!(matches!(
            read_input(b"not json"),
            Err(HookInputError::NotJson(_))
        ));
        assert!(matches!(
            read_input(b"[1]"),
            Err(HookInputError::NotJson(_))
        ));
        assert_eq!(
            read_input(br#"{"tool_name":"AskUserQuestion","tool_input":{}}"#),
            Err(HookInputError::NoQuestions)
        );
    }

    #[test]
    fn every_envelope_maps_to_its_hook_output() {
        let picked_grid = Some(Answer::Option(0));
        let sizes = Some(Answer::Multi {
            ticked: vec![0, 2],
            text: Some("XL too".to_owned()),
        });
        let cases: Vec<(&str, String, Option<String>)> = vec![
            (
                "a pick",
                envelope_of(Outcome::Submitted(responses([Some(Answer::Option(1)), None], ["", ""], ""))),
                Some(allow(r#""answers":{"Which layout?":"List"}"#)),
            ),
            (
                "a pick with a preview, a multi-select with typed text",
                envelope_of(Outcome::Submitted(responses([picked_grid.clone(), sizes.clone()], ["", ""], ""))),
                Some(allow(
                    r#""answers":{"Which layout?":"Grid","Which sizes?":"S, L, XL too"},"annotations":{"Which layout?":{"preview":"+--+--+"}}"#,
                )),
            ),
            (
                "typed text, a note on it and a note on an unanswered question",
                envelope_of(Outcome::Submitted(responses(
                    [Some(Answer::Custom("Masonry, \"tight\"".to_owned())), None],
                    ["no gaps", "whatever fits"],
                    "",
                ))),
                Some(allow(
                    r#""answers":{"Which layout?":"Masonry, \"tight\""},"annotations":{"Which layout?":{"notes":"no gaps"},"Which sizes?":{"notes":"whatever fits"}}"#,
                )),
            ),
            (
                "a global note joins the last question's notes",
                envelope_of(Outcome::Submitted(responses([picked_grid.clone(), sizes], ["", "most sold"], "ship friday"))),
                Some(allow(
                    r#""answers":{"Which layout?":"Grid","Which sizes?":"S, L, XL too"},"annotations":{"Which layout?":{"preview":"+--+--+"},"Which sizes?":{"notes":"most sold. global note: ship friday"}}"#,
                )),
            ),
            (
                "an empty typed answer",
                envelope_of(Outcome::Submitted(responses([Some(Answer::Custom(String::new())), None], ["", ""], ""))),
                Some(allow(r#""answers":{"Which layout?":"(no input)"}"#)),
            ),
            (
                "a decline",
                envelope_of(Outcome::Declined(responses([picked_grid.clone(), None], ["", ""], ""))),
                Some(deny(envelope::DECLINED_TEXT)),
            ),
            (
                "a submission with nothing reads as a decline",
                envelope_of(Outcome::Submitted(Responses::empty(2))),
                Some(deny(envelope::DECLINED_TEXT)),
            ),
            (
                "chat",
                envelope_of(Outcome::ChatRequested {
                    question: 1,
                    responses: responses([picked_grid.clone(), None], ["", ""], ""),
                }),
                Some(deny(
                    "User picked \"Chat about this\" on question 2: \"Which sizes?\". \"Which layout?\"=\"Grid\". selected preview: +--+--+.",
                )),
            ),
            (
                "timed out: over, the model reads why",
                envelope_of(Outcome::TimedOut(responses([picked_grid, None], ["", ""], ""))),
                Some(deny(envelope::TIMED_OUT_TEXT)),
            ),
        ];
        for (what, envelope, expected) in cases {
            assert_eq!(answer(&call(), &envelope), expected, "{what}: {envelope}");
        }
    }

    #[test]
    fn answers_and_annotations_are_keyed_by_the_question_as_claude_code_sent_it() {
        let original = "Which layout\r\nfor the page?";
        let input = hook_input(TOOL).replace("Which layout?", "Which layout\\r\\nfor the page?");
        let call = read_input(input.as_bytes())
            .expect("valid")
            .expect("AskUserQuestion");
        let questionnaire = request::parse(&call.payload).expect("valid questions");
        assert_eq!(
            questionnaire.questions[0].question,
            "Which layout\nfor the page?"
        );
        let mut responses = Responses::empty(2);
        responses.answers[0] = Some(Answer::Option(0));
        let envelope = envelope::outcome(&questionnaire, &Outcome::Submitted(responses), None);
        let output: Value =
            serde_json::from_str(&answer(&call, &envelope).expect("allow")).unwrap();
        let updated = &output["hookSpecificOutput"]["updatedInput"];
        assert_eq!(updated["answers"], json!({ original: "Grid" }));
        assert_eq!(
            updated["annotations"],
            json!({ original: {"preview": "+--+--+"} })
        );
        assert_eq!(updated["questions"][0]["question"], original);
    }

    #[test]
    fn whenever_the_popup_could_not_answer_the_hook_prints_nothing() {
        let codes = [
            ErrorCode::Dismissed,
            ErrorCode::Busy,
            ErrorCode::NoUi,
            ErrorCode::ZellijNotFound,
            ErrorCode::NoReply,
        ];
        for code in codes {
            assert_eq!(
                answer(&call(), &envelope::host_error(code, None)),
                None,
                "{code:?}"
            );
        }
        // A question that is over is denied with its text: Claude Code's dialog would ask
        // what is no longer wanted.
        for code in [
            ErrorCode::TimedOut,
            ErrorCode::Superseded,
            ErrorCode::Aborted,
        ] {
            assert_eq!(
                answer(&call(), &envelope::host_error(code, None)),
                Some(deny(envelope::host_text(code))),
                "{code:?}"
            );
        }
        let rejected = request::parse("{}").expect_err("no questions");
        assert_eq!(answer(&call(), &envelope::rejection(&rejected, None)), None);
        assert_eq!(answer(&call(), "not json"), None);
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
        // Text that names a tool result is no tool result, nor is a line not yet whole.
        let from = std::fs::metadata(&path).unwrap().len();
        let said = "{\"type\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"a \\\"tool_result\\\" block\"}]}\n{\"type\":\"user\",\"content\":[{\"type\":\"tool_res";
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str(said);
        std::fs::write(&path, &text).unwrap();
        assert!(!answered_in_transcript(&path, from));
        text.push_str("ult\"}]}\n");
        std::fs::write(&path, &text).unwrap();
        assert!(answered_in_transcript(&path, from));
        let _ = std::fs::remove_dir_all(dir);
    }
}
