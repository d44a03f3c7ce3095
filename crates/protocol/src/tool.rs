//! The `ask_user_question` tool as agents declare it to their model: its name, the description
//! written for the model, and its parameters as JSON Schema, built from the validator's own
//! limits. The MCP server serves these, and the Pi extension's TypeBox schema, description and
//! texts are checked against `pi_shared()` (written to `integrations/pi/src/shared.json`).

use crate::envelope::{self, ErrorCode};
use crate::error_code::Fallback;
use crate::request::{
    type_name, RequestError, CHAT_LABEL, EXPECTED_BOOL, EXPECTED_STRING, FREEFORM_LABEL,
    MAX_HEADER_CHARS, MAX_LABEL_CHARS, MAX_OPTIONS, MAX_QUESTIONS, MIN_OPTIONS, MIN_TIMEOUT_MS,
    RESERVED_LABELS,
};
use serde_json::{json, Value};

/// The tool's name, in every agent.
pub const NAME: &str = "ask_user_question";

/// What the model reads about the tool.
pub const DESCRIPTION: &str = "Ask the user 1-4 structured questions in a dialog and wait for the answers. Use it when you need the user's decision before going on: choosing between approaches, confirming an assumption, settling a requirement you would otherwise guess.\n\nEach question has a short header (at most 16 characters) and 2-4 options, each with a label (1-5 words, at most 60 characters) and a description of what it means or costs. The dialog adds a free-text row (\"Type something.\") and a \"Chat about this\" row to every question itself, so never add an \"Other\" option. Set multiSelect when the choices are not exclusive. An option of a single-select question may carry a markdown preview (a mockup, a code sample, a diff) for the user to compare. Set timeout (milliseconds) only when an answer is useless after a while.\n\nThe result's text says what the user chose, with any notes they left. If it says the user picked \"Chat about this\", stop: ask in plain chat what they want to clarify, and wait for their reply before going on. If it says the user declined, do not ask the same questions again; go on without those answers or ask what they prefer. A timeout, a closed popup or an error is not a decline: the user may not have seen the questions, so ask them as plain chat text instead or retry.";

/// The tool that asks without waiting (the MCP server's; `ask-popup ask --no-wait`).
pub const LATER_NAME: &str = "ask_user_question_later";

/// What the model reads about it, beside `DESCRIPTION`.
pub const LATER_DESCRIPTION: &str = "Put 1-4 structured questions to the user in the same dialog as ask_user_question, but do not wait: the result is the request's id at once, and get_user_answer fetches the answers later. Use it instead of ask_user_question when you can go on with work that does not depend on the answers while the user thinks (the user may be away for a while); use ask_user_question when you cannot go on without them. The questions and options follow the same rules as ask_user_question's.";

/// The tool that fetches what a question asked without waiting got.
pub const ANSWER_NAME: &str = "get_user_answer";

/// What the model reads about it.
pub const ANSWER_DESCRIPTION: &str = "Get the user's answers to questions asked with ask_user_question_later, by the requestId it returned. If the user has answered, the result reads as ask_user_question's would (the same rules apply: \"Chat about this\" means stop and ask in chat; a decline is not to be asked again). If not yet, it says so: do other work and call it again later, or set waitSeconds to wait up to that long for the answer.";

/// get_user_answer's parameters as JSON Schema.
pub fn answer_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "requestId": {
                "type": "string",
                "description": "The id ask_user_question_later returned",
            },
            "waitSeconds": {
                "type": "integer",
                "description": "Wait up to this many seconds for the answer (default 0: say at once whether it is there)",
                "minimum": 0,
                "maximum": MAX_ANSWER_WAIT_S,
            },
        },
        "required": ["requestId"],
    })
}

/// The longest get_user_answer waits in one call.
pub const MAX_ANSWER_WAIT_S: u64 = 600;

/// What ask_user_question_later's result says: where the question is and how to get its answer.
pub fn later_text(request_id: &str) -> String {
    format!("The questions are in front of the user; their requestId is \"{request_id}\". Go on with work that does not depend on the answers, and call get_user_answer with this requestId when you need them.")
}

/// What get_user_answer's result says while the user has not answered.
pub fn waiting_text(request_id: &str) -> String {
    format!("The user has not answered the questions of requestId \"{request_id}\" yet. Do other work and call get_user_answer again later, or call it with waitSeconds to wait for the answer.")
}

/// What get_user_answer's result says of a request nobody knows.
pub fn unknown_text(request_id: &str) -> String {
    format!("No questions with requestId \"{request_id}\" are waiting or recorded: check the id, or ask again.")
}

/// The tool's parameters as JSON Schema: the seed schema with the validator's limits.
pub fn parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "description": "The questions to ask, 1 to 4",
                "minItems": 1,
                "maxItems": MAX_QUESTIONS,
                "items": {
                    "type": "object",
                    "properties": {
                        "question": {
                            "type": "string",
                            "description": "The complete question, ending with a question mark",
                        },
                        "header": {
                            "type": "string",
                            "description": "A very short label shown as the question's tab",
                            "maxLength": MAX_HEADER_CHARS,
                        },
                        "options": {
                            "type": "array",
                            "description": "The choices, 2 to 4; the dialog adds a free-text row and \"Chat about this\" itself",
                            "minItems": MIN_OPTIONS,
                            "maxItems": MAX_OPTIONS,
                            "items": {
                                "type": "object",
                                "properties": {
                                    "label": {
                                        "type": "string",
                                        "description": "The choice, 1 to 5 words",
                                        "maxLength": MAX_LABEL_CHARS,
                                    },
                                    "description": {
                                        "type": "string",
                                        "description": "What the choice means or its trade-off",
                                    },
                                    "preview": {
                                        "type": "string",
                                        "description": "Markdown shown beside the options when this one is focused (single-select questions only)",
                                    },
                                },
                                "required": ["label", "description"],
                            },
                        },
                        "multiSelect": {
                            "type": "boolean",
                            "description": "Let the user pick several options (default false)",
                        },
                    },
                    "required": ["question", "header", "options"],
                },
            },
            "timeout": {
                "type": "integer",
                "description": "Milliseconds before the dialog gives up (at least 1000); leave it out to wait until the user answers",
                "minimum": MIN_TIMEOUT_MS,
            },
        },
        "required": ["questions"],
    })
}

/// The codes and texts an integration that cannot run the command (Pi's own dialogs, outside
/// Zellij) needs to answer exactly as the plugin does, and the tool as the model sees it.
pub fn pi_shared() -> Value {
    let static_error =
        |error: RequestError| json!({ "code": error.code().as_str(), "text": error.to_string() });
    json!({
        "name": NAME,
        "description": DESCRIPTION,
        "parameters": parameters(),
        "limits": {
            "maxQuestions": MAX_QUESTIONS,
            "minOptions": MIN_OPTIONS,
            "maxOptions": MAX_OPTIONS,
            "maxHeaderChars": MAX_HEADER_CHARS,
            "maxLabelChars": MAX_LABEL_CHARS,
            "minTimeoutMs": MIN_TIMEOUT_MS,
        },
        "labels": {
            "reserved": RESERVED_LABELS,
            "freeform": FREEFORM_LABEL,
            "chat": CHAT_LABEL,
        },
        "errors": {
            "noQuestions": static_error(RequestError::NoQuestions),
            "tooManyQuestions": static_error(RequestError::TooManyQuestions),
            "duplicateQuestion": static_error(RequestError::DuplicateQuestion),
            "emptyOptions": static_error(RequestError::EmptyOptions),
            "reservedLabel": static_error(RequestError::ReservedLabel),
            "duplicateOptionLabel": static_error(RequestError::DuplicateOptionLabel),
            // Templates: `{path}` (`questions[0].question`), `{expected}`, `{found}`.
            "emptyField": static_error(RequestError::Empty { path: "{path}".to_owned() }),
            "wrongType": static_error(RequestError::WrongType {
                path: "{path}".to_owned(),
                expected: "{expected}",
                found: "{found}",
            }),
            "noUi": { "code": ErrorCode::NoUi.as_str(), "text": envelope::NO_UI_TEXT },
            "noCustomUi": { "code": ErrorCode::NoCustomUi.as_str(), "text": envelope::NO_CUSTOM_UI_TEXT },
            "timedOut": { "code": ErrorCode::TimedOut.as_str(), "text": envelope::TIMED_OUT_TEXT },
        },
        // The words of `wrongType`: what a field must be, and what a value of each JSON type
        // is called.
        "expected": { "string": EXPECTED_STRING, "boolean": EXPECTED_BOOL },
        "typeNames": {
            "null": type_name(&Value::Null),
            "boolean": type_name(&Value::Bool(true)),
            "number": type_name(&json!(0)),
            "string": type_name(&json!("")),
            "array": type_name(&json!([])),
            "object": type_name(&json!({})),
        },
        // The endings after which Pi's own dialogs ask instead, as decided for every agent on
        // `ErrorCode` (`Fallback::PI`): the popup could not reach the user.
        "popupUnavailable": ErrorCode::ALL
            .iter()
            .copied()
            .filter(|code| Fallback::PI.after(*code))
            .map(ErrorCode::as_str)
            .collect::<Vec<_>>(),
        "texts": {
            "answeredPrefix": envelope::ANSWERED_PREFIX,
            "answeredSuffix": envelope::ANSWERED_SUFFIX,
            "declined": envelope::DECLINED_TEXT,
            "noInput": envelope::NO_INPUT,
        },
    })
}

/// `pi_shared()` as the file the Pi extension reads: pretty JSON and a final newline.
pub fn pi_shared_file() -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(&pi_shared()).unwrap_or_default()
    )
}

/// Checks that the generated file `file` (relative to the repository) holds `expected`, or, with
/// `ASK_POPUP_WRITE_SHARED` set, writes it: the tests that keep the Pi extension's generated
/// files current (`shared.json` here, the parity fixture in `tests/pi_parity.rs`) use it.
/// `Err` says how to write it anew (`rewrite`: the test command that does).
pub fn generated_file_is_current(file: &str, expected: &str, rewrite: &str) -> Result<(), String> {
    // `file` is named from the repository's root, two folders above this crate.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(file);
    if std::env::var_os("ASK_POPUP_WRITE_SHARED").is_some() {
        crate::atomic_file::write(&path, expected.as_bytes(), crate::atomic_file::READABLE)
            .map_err(|e| format!("write {}: {e}", path.display()))?;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    if actual == expected {
        Ok(())
    } else {
        Err(format!(
            "{} is not what the library says; write it anew with \
             `ASK_POPUP_WRITE_SHARED=1 {rewrite}`",
            path.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schemas_limits_are_the_validators() {
        let p = parameters();
        let questions = &p["properties"]["questions"];
        assert_eq!(questions["maxItems"], MAX_QUESTIONS);
        let question = &questions["items"]["properties"];
        assert_eq!(question["header"]["maxLength"], MAX_HEADER_CHARS);
        assert_eq!(question["options"]["minItems"], MIN_OPTIONS);
        assert_eq!(question["options"]["maxItems"], MAX_OPTIONS);
        assert_eq!(
            question["options"]["items"]["properties"]["label"]["maxLength"],
            MAX_LABEL_CHARS
        );
        assert_eq!(p["properties"]["timeout"]["minimum"], MIN_TIMEOUT_MS);
    }

    #[test]
    fn the_pi_extensions_shared_file_is_current() {
        let current = generated_file_is_current(
            "integrations/pi/src/shared.json",
            &pi_shared_file(),
            "cargo test -p ask-popup-protocol --lib shared_file",
        );
        assert_eq!(current, Ok(()));
    }
}
