//! The request: a questionnaire payload, normalised and validated, or a typed rejection.
//!
//! Agents send the canonical shape (`{questions:[{question, header, options:[{label,
//! description, preview?}], multiSelect?}], timeout?}`) or one of the aliases that agents written
//! for other ask tools use. Every alias is normalised first; then the checks run in the order the
//! SPEC gives, so a payload with several faults is always rejected for the same one.

pub use crate::question::{
    Question, QuestionOption, RequestError, CHAT_LABEL, FREEFORM_LABEL, MAX_HEADER_CHARS,
    MAX_LABEL_CHARS, MAX_OPTIONS, MAX_PAYLOAD_BYTES, MAX_QUESTIONS, MIN_OPTIONS, MIN_TIMEOUT_MS,
    NEXT_LABEL, OTHER_LABEL, RECOMMENDED_MARK, RESERVED_LABELS,
};
use serde::Serialize;
use serde_json::{Map, Value};

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
        let (form, questions) = crate::elicitation::page::questions(form)?;
        return Ok(Questionnaire {
            questions,
            approval: false,
            timeout_ms: timeout(root)?,
            form: Some(form),
        });
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
