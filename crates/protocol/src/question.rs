//! What a questionnaire is made of, below the request that reads it (`request.rs`) and the form
//! that asks through it (`elicitation/page.rs`): the question and its options, the limits, the
//! dialog's own rows, and why a request is rejected.

use crate::error_code::ErrorCode;
use serde::Serialize;
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
