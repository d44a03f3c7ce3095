//! The request: a questionnaire payload, normalised and validated, or a typed rejection.
//!
//! Agents send the canonical shape (`{questions:[{question, header, options:[{label,
//! description, preview?}], multiSelect?}], timeout?}`) or one of the aliases that agents written
//! for other ask tools use. Every alias is normalised first; then the checks run in the order the
//! SPEC gives, so a payload with several faults is always rejected for the same one.

use crate::error_code::ErrorCode;
use serde::Serialize;
use serde_json::{Map, Value};
use thiserror::Error;

/// The largest payload accepted, in bytes.
pub const MAX_PAYLOAD_BYTES: usize = 1024 * 1024;
/// Questions per request.
pub const MAX_QUESTIONS: usize = 4;
/// Options per question.
pub const MIN_OPTIONS: usize = 2;
pub const MAX_OPTIONS: usize = 4;
/// Characters in a header and in an option label.
pub const MAX_HEADER_CHARS: usize = 16;
pub const MAX_LABEL_CHARS: usize = 60;
/// The shortest timeout, in milliseconds.
pub const MIN_TIMEOUT_MS: u64 = 1000;
/// The rows the dialog adds to every question, whose labels no option may take.
pub const FREEFORM_LABEL: &str = "Type something.";
pub const CHAT_LABEL: &str = "Chat about this";
/// A multi-select question's last row (`Submit` on the last question).
pub const NEXT_LABEL: &str = "Next";
/// What other tools call the free-form row; reserved so that agents written for them do not
/// offer it twice.
pub const OTHER_LABEL: &str = "Other";
/// Labels the dialog uses for its own rows, and `Other`, which models reach for.
pub const RESERVED_LABELS: [&str; 4] = [OTHER_LABEL, FREEFORM_LABEL, CHAT_LABEL, NEXT_LABEL];

/// A validated questionnaire: 1-4 questions, ready to show. Serialised, it is a request in
/// the canonical shape that `parse` reads back as the same questionnaire (without its timeout).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Questionnaire {
    pub questions: Vec<Question>,
    /// An agent's permission prompt (`"approval": true`): one single-select question whose
    /// focus starts on its last option (the agent's Deny), with no recommended option.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub approval: bool,
    /// Auto-dismiss after this many milliseconds, with a countdown.
    #[serde(skip)]
    pub timeout_ms: Option<u64>,
    /// An MCP server's form (`"form"`), whose fields the questions ask.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form: Option<crate::elicitation::page::FormPage>,
}

impl Questionnaire {
    /// A fingerprint of what is asked (the questions and the timeout): a reply kept for a
    /// caller's id is repeated only to the same questionnaire asked again with that id.
    ///
    /// Std's hasher, whose algorithm may change between Rust releases: a fingerprint is
    /// compared within one build of the plugin. (A reply kept across a reload into a plugin of
    /// another build is then not repeated, and its caller is asked again: safe.)
    pub fn digest(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::hash::DefaultHasher::new();
        self.hash(&mut hasher);
        hasher.finish()
    }
}

/// One question: its text, a short header for the tab, and 2-4 options.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    pub question: String,
    pub header: String,
    pub options: Vec<QuestionOption>,
    pub multi_select: bool,
    /// Markdown shown above the options (the `context` alias).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

/// One option the user can pick.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct QuestionOption {
    pub label: String,
    pub description: String,
    /// Markdown shown beside the options while this one is focused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
}

/// The mark the agents' own tools tell models to end a recommended option's label with.
pub const RECOMMENDED_MARK: &str = "(Recommended)";

impl QuestionOption {
    /// Whether its label ends with `(Recommended)`, as Claude Code's and Codex's tools tell the
    /// model to mark the option it recommends.
    pub fn is_recommended(&self) -> bool {
        self.label.trim_end().ends_with(RECOMMENDED_MARK)
    }
}

impl Question {
    /// The first option marked `(Recommended)`, if any.
    pub fn recommended(&self) -> Option<usize> {
        self.options.iter().position(QuestionOption::is_recommended)
    }

    /// Whether any option carries a preview.
    pub fn has_preview(&self) -> bool {
        self.options.iter().any(|o| o.preview.is_some())
    }
}

/// Why a request was rejected. The `Display` text of each variant is what the agent reads:
/// every model-facing rejection text lives here.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum RequestError {
    #[error("Error: the questionnaire could not be read ({detail}).")]
    Unreadable { detail: String },
    #[error("Error: the questionnaire is not valid UTF-8 (invalid byte at offset {offset}). Send one JSON object encoded as UTF-8.")]
    InvalidUtf8 { offset: usize },
    #[error("Error: the questionnaire is not valid JSON ({detail}). Send one JSON object such as {{\"questions\":[{{\"question\":\"…?\",\"header\":\"…\",\"options\":[{{\"label\":\"…\",\"description\":\"…\"}},{{\"label\":\"…\",\"description\":\"…\"}}]}}]}}.")]
    NotJson { detail: String },
    #[error(
        "Error: the questionnaire must be a JSON object with a \"questions\" array, got {found}."
    )]
    NotAnObject { found: &'static str },
    #[error("Error: {path} must be {expected}, got {found}.")]
    WrongType {
        path: String,
        expected: &'static str,
        found: &'static str,
    },
    #[error("Error: {path} is required: {hint}.")]
    Missing { path: String, hint: &'static str },
    #[error("Error: {path} must not be empty.")]
    Empty { path: String },
    #[error("Error: the questionnaire is {bytes} bytes; at most {MAX_PAYLOAD_BYTES} bytes (1 MiB) are allowed. Shorten the previews, descriptions or context.")]
    PayloadTooLarge { bytes: usize },
    #[error("Error: At least one question is required")]
    NoQuestions,
    #[error("Error: At most 4 questions are allowed per invocation")]
    TooManyQuestions,
    #[error("Error: Question text must be unique within an invocation")]
    DuplicateQuestion,
    #[error("Error: Each question requires at least 2 options")]
    EmptyOptions,
    #[error("Error: At most 4 options are allowed per question (question {question} has {count}); the dialog adds \"Type something.\" and \"Chat about this\" itself")]
    TooManyOptions { question: usize, count: usize },
    #[error("Error: Option label is reserved (Other, Type something., Chat about this, Next)")]
    ReservedLabel,
    #[error("Error: Option labels must be unique within a question")]
    DuplicateOptionLabel,
    #[error("Error: Header \"{header}\" of question {question} is {chars} characters long; at most 16 are allowed")]
    HeaderTooLong {
        question: usize,
        header: String,
        chars: usize,
    },
    #[error("Error: Option label \"{label}\" in question {question} is {chars} characters long; at most 60 are allowed (1 to 5 words; put details in the description)")]
    LabelTooLong {
        question: usize,
        label: String,
        chars: usize,
    },
    #[error("Error: timeout must be an integer number of milliseconds, at least 1000 (got {found}). Leave it out to wait until the user answers.")]
    InvalidTimeout { found: String },
    #[error("Error: an approval asks one single-select question, none of whose options is marked \"(Recommended)\".")]
    ApprovalShape,
    #[error("Error: \"approval\": true is for the agents' permission prompts, which ask-popup's approval hooks send (claude-approval, codex-approval, opencode-approval); leave it out to ask a question.")]
    ApprovalNotFromHook,
    #[error("Error: the form cannot be asked in the popup ({detail}).")]
    InvalidForm { detail: String },
    #[error("Error: ask-popup has no pipe named \"{name}\". Send the questionnaire with --name ask (or no --name); the pipes status, show, cancel and version answer at once.")]
    UnknownPipe { name: String },
}

impl RequestError {
    /// The rejection of a payload that is empty, or only white space.
    pub fn empty() -> RequestError {
        RequestError::Missing {
            path: "questions".to_owned(),
            hint: "the payload was empty; send one JSON object with a \"questions\" array",
        }
    }

    /// The `error` code the envelope carries.
    pub fn code(&self) -> ErrorCode {
        use RequestError::*;
        match self {
            Unreadable { .. }
            | UnknownPipe { .. }
            | InvalidUtf8 { .. }
            | NotJson { .. }
            | NotAnObject { .. }
            | WrongType { .. }
            | Missing { .. }
            | Empty { .. }
            | ApprovalShape
            | InvalidForm { .. }
            | ApprovalNotFromHook => ErrorCode::InvalidPayload,
            PayloadTooLarge { .. } => ErrorCode::PayloadTooLarge,
            NoQuestions => ErrorCode::NoQuestions,
            TooManyQuestions => ErrorCode::TooManyQuestions,
            DuplicateQuestion => ErrorCode::DuplicateQuestion,
            EmptyOptions => ErrorCode::EmptyOptions,
            TooManyOptions { .. } => ErrorCode::TooManyOptions,
            ReservedLabel => ErrorCode::ReservedLabel,
            DuplicateOptionLabel => ErrorCode::DuplicateOptionLabel,
            HeaderTooLong { .. } => ErrorCode::HeaderTooLong,
            LabelTooLong { .. } => ErrorCode::LabelTooLong,
            InvalidTimeout { .. } => ErrorCode::InvalidTimeout,
        }
    }
}

/// Parses a payload that arrived as raw bytes (a pipe can carry anything).
pub fn parse_bytes(payload: &[u8]) -> Result<Questionnaire, RequestError> {
    if payload.len() > MAX_PAYLOAD_BYTES {
        return Err(RequestError::PayloadTooLarge {
            bytes: payload.len(),
        });
    }
    match std::str::from_utf8(payload) {
        Ok(text) => parse(text),
        Err(e) => Err(RequestError::InvalidUtf8 {
            offset: e.valid_up_to(),
        }),
    }
}

/// Parses, normalises and validates a questionnaire.
///
/// The size limit is checked before the JSON is parsed: parsing many megabytes inside Zellij's
/// interpreter would stall every other pane, and no valid request is that large.
pub fn parse(payload: &str) -> Result<Questionnaire, RequestError> {
    if payload.len() > MAX_PAYLOAD_BYTES {
        return Err(RequestError::PayloadTooLarge {
            bytes: payload.len(),
        });
    }
    let value: Value = serde_json::from_str(payload).map_err(|e| RequestError::NotJson {
        detail: describe_json_error(&e),
    })?;
    let root = match &value {
        Value::Object(map) => map,
        other => {
            return Err(RequestError::NotAnObject {
                found: type_name(other),
            })
        }
    };
    if let Some(form) = root.get("form").filter(|f| !f.is_null()) {
        let mut questionnaire = crate::elicitation::page::questionnaire(form)?;
        questionnaire.timeout_ms = timeout(root)?;
        return Ok(questionnaire);
    }
    let mut questionnaire = normalise(root)?;
    validate(&questionnaire)?;
    questionnaire.timeout_ms = timeout(root)?;
    Ok(questionnaire)
}

fn describe_json_error(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let what = match e.classify() {
        Category::Eof => "it ends too early",
        Category::Syntax => "syntax error",
        Category::Data | Category::Io => "unreadable value",
    };
    format!("{what} at line {} column {}", e.line(), e.column())
}

/// What an `invalid_payload` text says a string field must be.
pub const EXPECTED_STRING: &str = "a string";
/// What an `invalid_payload` text says a boolean field must be.
pub const EXPECTED_BOOL: &str = "true or false";

/// What a value of the wrong type is called in an `invalid_payload` text ("got a number").
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// CRLF and lone CR become LF (agents' tool arguments carry stray CRs).
fn normalise_newlines(s: &str) -> String {
    if !s.contains('\r') {
        return s.to_owned();
    }
    s.replace("\r\n", "\n").replace('\r', "\n")
}

fn wrong_type(path: impl Into<String>, expected: &'static str, found: &Value) -> RequestError {
    RequestError::WrongType {
        path: path.into(),
        expected,
        found: type_name(found),
    }
}

/// Turns every accepted shape into the canonical one, checking types on the way. Every
/// question and option is read (the payload is at most 1 MiB, so this is bounded), so that a
/// wrong type anywhere is reported before the counting checks, in the SPEC's order.
fn normalise(root: &Map<String, Value>) -> Result<Questionnaire, RequestError> {
    let questions = match root.get("questions") {
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let path = format!("questions[{i}]");
                match item {
                    Value::Object(map) => normalise_question(i, &path, map),
                    other => Err(wrong_type(path, "an object", other)),
                }
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(Value::Null) | None => match root.get("question") {
            // The pi-ask-user shape: the top-level object is the one question.
            Some(Value::String(_)) => vec![normalise_question(0, "", root)?],
            Some(Value::Null) | None => {
                return Err(RequestError::Missing {
                    path: "questions".to_owned(),
                    hint: "an array of 1 to 4 question objects",
                })
            }
            Some(other) => return Err(wrong_type("question", EXPECTED_STRING, other)),
        },
        Some(other) => return Err(wrong_type("questions", "an array", other)),
    };
    Ok(Questionnaire {
        questions,
        approval: optional_bool(root, "", "approval")?.unwrap_or(false),
        timeout_ms: None, // checked last, in validate()
        form: None,
    })
}

/// Joins a field name onto a path; the top-level question shape has the empty path.
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn optional_string(
    map: &Map<String, Value>,
    path: &str,
    key: &str,
) -> Result<Option<String>, RequestError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(normalise_newlines(s))),
        Some(other) => Err(wrong_type(join(path, key), EXPECTED_STRING, other)),
    }
}

fn optional_bool(
    map: &Map<String, Value>,
    path: &str,
    key: &str,
) -> Result<Option<bool>, RequestError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(wrong_type(join(path, key), EXPECTED_BOOL, other)),
    }
}

fn normalise_question(
    index: usize,
    path: &str,
    map: &Map<String, Value>,
) -> Result<Question, RequestError> {
    let question = match optional_string(map, path, "question")? {
        Some(q) if q.trim().is_empty() => {
            return Err(RequestError::Empty {
                path: join(path, "question"),
            })
        }
        Some(q) => q,
        None => {
            return Err(RequestError::Missing {
                path: join(path, "question"),
                hint: "the full question text, ending with \"?\"",
            })
        }
    };
    let header = optional_string(map, path, "header")?
        .filter(|h| !h.trim().is_empty())
        .unwrap_or_else(|| format!("Q{}", index + 1));
    let multi_select = match optional_bool(map, path, "multiSelect")? {
        Some(b) => b,
        None => optional_bool(map, path, "allowMultiple")?.unwrap_or(false),
    };
    let context = optional_string(map, path, "context")?.filter(|c| !c.trim().is_empty());
    let options_path = join(path, "options");
    let options = match map.get("options") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| normalise_option(&format!("{options_path}[{i}]"), item))
            .collect::<Result<Vec<_>, _>>()?,
        Some(other) => return Err(wrong_type(options_path, "an array", other)),
    };
    Ok(Question {
        question,
        header,
        options,
        multi_select,
        context,
    })
}

/// Keys that name an option's label in the shapes other ask tools accept, in order of preference.
const LABEL_KEYS: [&str; 6] = ["label", "title", "text", "value", "name", "option"];

fn normalise_option(path: &str, item: &Value) -> Result<QuestionOption, RequestError> {
    let map = match item {
        Value::String(s) if s.trim().is_empty() => {
            return Err(RequestError::Empty {
                path: path.to_owned(),
            })
        }
        Value::String(s) => {
            return Ok(QuestionOption {
                label: normalise_newlines(s),
                description: String::new(),
                preview: None,
            })
        }
        Value::Object(map) => map,
        other => return Err(wrong_type(path, "an object or a string", other)),
    };
    let mut label = None;
    for key in LABEL_KEYS {
        if let Some(text) = optional_string(map, path, key)? {
            label = Some(text);
            break;
        }
    }
    let label = match label {
        Some(l) if l.trim().is_empty() => {
            return Err(RequestError::Empty {
                path: join(path, "label"),
            })
        }
        Some(l) => l,
        None => {
            return Err(RequestError::Missing {
                path: join(path, "label"),
                hint: "a short label of 1 to 5 words",
            })
        }
    };
    Ok(QuestionOption {
        label,
        description: optional_string(map, path, "description")?.unwrap_or_default(),
        preview: optional_string(map, path, "preview")?.filter(|p| !p.trim().is_empty()),
    })
}

/// The counting and uniqueness checks, each over the whole questionnaire, in the SPEC's order.
fn validate(q: &Questionnaire) -> Result<(), RequestError> {
    let questions = &q.questions;
    if questions.is_empty() {
        return Err(RequestError::NoQuestions);
    }
    if q.approval
        && (questions.len() != 1
            || questions
                .iter()
                .any(|q| q.multi_select || q.recommended().is_some()))
    {
        // The popup never allows by itself: nothing would take a recommended option.
        return Err(RequestError::ApprovalShape);
    }
    if questions.len() > MAX_QUESTIONS {
        return Err(RequestError::TooManyQuestions);
    }
    for (i, a) in questions.iter().enumerate() {
        if questions[..i].iter().any(|b| b.question == a.question) {
            return Err(RequestError::DuplicateQuestion);
        }
    }
    if questions.iter().any(|q| q.options.len() < MIN_OPTIONS) {
        return Err(RequestError::EmptyOptions);
    }
    if let Some((i, q)) = questions
        .iter()
        .enumerate()
        .find(|(_, q)| q.options.len() > MAX_OPTIONS)
    {
        return Err(RequestError::TooManyOptions {
            question: i + 1,
            count: q.options.len(),
        });
    }
    if questions
        .iter()
        .flat_map(|q| &q.options)
        .any(|o| RESERVED_LABELS.contains(&o.label.as_str()))
    {
        return Err(RequestError::ReservedLabel);
    }
    for q in questions {
        for (i, a) in q.options.iter().enumerate() {
            if q.options[..i].iter().any(|b| b.label == a.label) {
                return Err(RequestError::DuplicateOptionLabel);
            }
        }
    }
    for (i, q) in questions.iter().enumerate() {
        let chars = q.header.chars().count();
        if chars > MAX_HEADER_CHARS {
            return Err(RequestError::HeaderTooLong {
                question: i + 1,
                header: q.header.clone(),
                chars,
            });
        }
    }
    for (i, q) in questions.iter().enumerate() {
        for o in &q.options {
            let chars = o.label.chars().count();
            if chars > MAX_LABEL_CHARS {
                return Err(RequestError::LabelTooLong {
                    question: i + 1,
                    label: o
                        .label
                        .chars()
                        .take(MAX_LABEL_CHARS)
                        .chain(std::iter::once('…'))
                        .collect(),
                    chars,
                });
            }
        }
    }
    Ok(())
}

/// Reads `timeout`: absent or null means no timeout; anything else must be a whole number of
/// milliseconds, at least 1000 (a float with no fraction, as JavaScript sends, is accepted).
fn timeout(root: &Map<String, Value>) -> Result<Option<u64>, RequestError> {
    let value = match root.get("timeout") {
        None | Some(Value::Null) => return Ok(None),
        Some(v) => v,
    };
    let ms = match value {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < u64::MAX as f64)
                .map(|f| f as u64)
        }),
        _ => None,
    };
    match ms {
        Some(ms) if ms >= MIN_TIMEOUT_MS => Ok(Some(ms)),
        _ => {
            let mut found = value.to_string();
            if found.len() > 40 {
                found = found.chars().take(40).chain(std::iter::once('…')).collect();
            }
            Err(RequestError::InvalidTimeout { found })
        }
    }
}
