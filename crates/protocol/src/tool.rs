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

/// What the model reads about the tool (the Pi extension's and the MCP server's). Every fact
/// the model needs is here or in `parameters()`; the figures and their budgets are `Budget`.
pub const DESCRIPTION: &str = "Ask the user 1-4 multiple-choice questions in a dialog and wait for the answers. Ask about choices you would otherwise guess or cannot undo. Put a recommended option first, its label ending \"(Recommended)\". The dialog adds free-text and \"Chat about this\" rows; Other, Type something., Chat about this and Next are reserved labels.\nIn the result, \"Chat about this\" means: stop and ask in chat what to clarify. Declined: don't ask again. A timeout or error is no decline: ask in chat or retry.";

/// The line Pi's system prompt gives the tool among the others.
pub const PI_SNIPPET: &str = "Ask the user multiple-choice questions in a dialog";

/// The MCP server's parameter that asks without waiting (`ask-popup ask --no-wait`).
pub const WAIT: &str = "wait";

/// The name the MCP server's tool that asked without waiting had: still answered, no longer
/// listed (`ask_user_question` with `wait` false does it).
pub const LATER_NAME: &str = "ask_user_question_later";

/// The tool that fetches what a question asked without waiting got.
pub const ANSWER_NAME: &str = "get_user_answer";

/// What the model reads about it.
pub const ANSWER_DESCRIPTION: &str = "Get the answers to questions asked with wait false, by requestId. Answered: read it as ask_user_question's result. Not yet: work on and call again later, or set waitSeconds.";

/// get_user_answer's parameters as JSON Schema.
pub fn answer_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "requestId": {"type": "string"},
            "waitSeconds": {
                "type": "integer",
                "description": "Wait up to this long (default 0)",
                "minimum": 0,
                "maximum": MAX_ANSWER_WAIT_S,
            },
        },
        "required": ["requestId"],
    })
}

/// ask_user_question's parameters as the MCP server lists them: `parameters()` and `wait`.
pub fn mcp_parameters() -> Value {
    let mut schema = parameters();
    schema["properties"][WAIT] = json!({
        "type": "boolean",
        "description": "false: return a requestId now, for get_user_answer",
    });
    schema
}

/// What the model reads of a tool, in characters: its name, its description and its input
/// schema as compact JSON (what an agent sends its model on every request).
pub fn model_chars(name: &str, description: &str, schema: &Value) -> usize {
    name.chars().count() + description.chars().count() + schema.to_string().chars().count()
}

/// The most characters each definition the model reads may take (`model_chars`); a test
/// measures each against its budget.
pub struct Budget;

impl Budget {
    /// ask_user_question as the MCP server lists it.
    pub const ASK: usize = 1_500;
    /// Every tool the MCP server lists.
    pub const MCP: usize = 2_600;
    /// The Pi extension's tool: description, snippet and parameters.
    pub const PI: usize = 1_500;
}

/// The longest get_user_answer waits in one call.
pub const MAX_ANSWER_WAIT_S: u64 = 600;

/// What asking without waiting (`wait` false) answers at once: where the question is and how to get its answer.
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

/// The tool's parameters as JSON Schema: the seed schema with the validator's limits, each
/// field described only where its name does not say it all. The descriptions repeat the
/// limits: Codex passes its model the schema without `maxItems`, `maxLength` and `minimum`.
pub fn parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_QUESTIONS,
                "items": {
                    "type": "object",
                    "properties": {
                        "question": {"type": "string"},
                        "header": {
                            "type": "string",
                            "description": format!("Tab label, ≤{MAX_HEADER_CHARS} chars"),
                            "maxLength": MAX_HEADER_CHARS,
                        },
                        "options": {
                            "type": "array",
                            "description": format!("{MIN_OPTIONS}-{MAX_OPTIONS} choices"),
                            "minItems": MIN_OPTIONS,
                            "maxItems": MAX_OPTIONS,
                            "items": {
                                "type": "object",
                                "properties": {
                                    "label": {
                                        "type": "string",
                                        "description": format!("≤{MAX_LABEL_CHARS} chars"),
                                        "maxLength": MAX_LABEL_CHARS,
                                    },
                                    "description": {
                                        "type": "string",
                                        "description": "Meaning or trade-off",
                                    },
                                    "preview": {
                                        "type": "string",
                                        "description": "Markdown (code, mockup) shown when focused; single-select only",
                                    },
                                },
                                "required": ["label", "description"],
                            },
                        },
                        "multiSelect": {
                            "type": "boolean",
                            "description": "Allow several picks",
                        },
                    },
                    "required": ["question", "header", "options"],
                },
            },
            "timeout": {
                "type": "integer",
                "description": format!("ms (≥{MIN_TIMEOUT_MS}) until an answer is useless; omit to wait"),
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
        "snippet": PI_SNIPPET,
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
