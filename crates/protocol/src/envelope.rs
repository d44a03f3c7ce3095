//! The result envelope: how a request ended, as the one JSON line the agent reads.
//!
//! The texts follow the tool schema byte for byte (`User has answered your questions: …`), so an
//! agent prompt written for the Pi and Claude Code tools reads ours the same way. Every
//! model-facing outcome text lives here; rejection texts live on `RequestError`.

pub use crate::error_code::ErrorCode;
use crate::request::{QuestionOption, Questionnaire, RequestError};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

pub const ANSWERED_PREFIX: &str = "User has answered your questions:";
pub const ANSWERED_SUFFIX: &str = "You can now continue with the user's answers in mind.";
pub const DECLINED_TEXT: &str = "User declined to answer questions";
pub const NO_INPUT: &str = "(no input)";
pub const TIMED_OUT_TEXT: &str = "Questionnaire timed out, the user did not respond within the configured timeout. The user never saw a decline; do NOT treat this as a rejection. Ask the questions as plain chat text instead or retry.";
pub const DISMISSED_TEXT: &str = "The question popup was closed before the user answered. The user never saw a decline; do NOT treat this as a rejection. Ask the questions as plain chat text instead or retry.";
pub const SUPERSEDED_TEXT: &str = "This request was replaced by a newer request with the same id; the newer call receives the user's answers. Ignore this result.";
pub const ABORTED_TEXT: &str = "The question was withdrawn by the agent before the user answered.";
pub const BUSY_TEXT: &str = "Too many questions are waiting in the popup right now, so this one was not shown. The user never saw a decline; do NOT treat this as a rejection. Ask the questions as plain chat text instead or retry later.";
pub const NO_UI_TEXT: &str = "Error: UI not available (not running inside Zellij, so nobody can see the questions). Ask the questions as plain chat text instead.";
pub const ZELLIJ_NOT_FOUND_TEXT: &str = "Error: zellij is not installed or not on PATH, so the questions cannot be shown. Ask the questions as plain chat text instead.";
pub const NO_CUSTOM_UI_TEXT: &str = "Error: this agent can show no dialog (it has no select or input prompts), so nobody can see the questions. Ask the questions as plain chat text instead.";
pub const NO_REPLY_TEXT: &str = "Error: no reply from ask-popup (the Zellij session may have ended, or the plugin is not loaded). The user never saw a decline; do NOT treat this as a rejection. Ask the questions as plain chat text instead or retry.";

/// How one question was answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A single-select option, by index.
    Option(usize),
    /// Typed text.
    Custom(String),
    /// Ticked options by index, in option order, plus typed text if any.
    Multi {
        ticked: Vec<usize>,
        text: Option<String>,
    },
}

/// Everything the user left in the dialog, whatever the ending: answers, notes, global note.
/// Indexes are question indexes; every vector is as long as the questionnaire.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Responses {
    pub answers: Vec<Option<Answer>>,
    pub notes: Vec<String>,
    pub global_note: String,
}

impl Responses {
    /// No answers and no notes for a questionnaire of `n` questions.
    pub fn empty(n: usize) -> Self {
        Responses {
            answers: vec![None; n],
            notes: vec![String::new(); n],
            global_note: String::new(),
        }
    }

    /// Whether the user left anything at all.
    pub fn is_empty(&self) -> bool {
        self.answers.iter().all(Option::is_none)
            && self.notes.iter().all(|n| n.trim().is_empty())
            && self.global_note.trim().is_empty()
    }
}

/// How a request ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The user submitted (possibly partially). With nothing given at all it reads as a decline.
    Submitted(Responses),
    /// The user cancelled; what they left survives in the details only.
    Declined(Responses),
    /// The user picked `Chat about this` on question `question` (0-based).
    ChatRequested {
        question: usize,
        responses: Responses,
    },
    /// The countdown expired.
    TimedOut(Responses),
    /// The host ended the request (popup closed, same id asked again, plugin unloading).
    Host {
        code: ErrorCode,
        responses: Responses,
    },
}

/// The envelope, as the plugin and the command write it and every reader reads it back
/// (`Envelope::read`): one type both ways, so the reader's fields are the writer's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope<'a> {
    pub content: Vec<Content<'a>>,
    pub details: Details<'a>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Content<'a> {
    #[serde(rename = "type")]
    pub kind: Cow<'a, str>,
    pub text: Cow<'a, str>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Details<'a> {
    pub answers: Vec<AnswerDetail<'a>>,
    pub cancelled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_note: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unanswered_notes: Vec<UnansweredNote<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_requested: Option<ChatRequested<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<Cow<'a, str>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AnswerDetail<'a> {
    pub question_index: usize,
    pub question: Cow<'a, str>,
    /// `option`, `custom` or `multi`.
    pub kind: Cow<'a, str>,
    /// The label or the typed text (not for `multi`).
    pub answer: Option<Cow<'a, str>>,
    /// The ticked labels, then the typed text (`multi`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub selected: Vec<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<Cow<'a, str>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct UnansweredNote<'a> {
    pub question_index: usize,
    pub question: Cow<'a, str>,
    pub note: Cow<'a, str>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ChatRequested<'a> {
    pub question_index: usize,
    pub question: Cow<'a, str>,
}

impl Envelope<'_> {
    /// `line` read back as an envelope: a JSON object with a text and its details, else None.
    pub fn read(line: &str) -> Option<Envelope<'static>> {
        serde_json::from_str::<Envelope<'static>>(line.trim())
            .ok()
            .filter(|e| !e.content.is_empty())
    }

    /// What the model reads.
    pub fn text(&self) -> &str {
        self.content.first().map_or("", |c| c.text.as_ref())
    }

    /// The `error` code it carries, if any (an unknown one as `Err` with its text).
    pub fn error(&self) -> Option<Result<ErrorCode, &str>> {
        let code = self.details.error.as_deref()?;
        Some(ErrorCode::parse(code).ok_or(code))
    }

    pub fn request_id(&self) -> Option<&str> {
        self.details.request_id.as_deref()
    }
}

/// The envelope of a rejected request: `{answers:[], cancelled:true, error}` and the error's
/// text. Ends with a newline.
pub fn rejection(error: &RequestError, request_id: Option<&str>) -> String {
    let envelope = Envelope {
        content: vec![text_content(error.to_string())],
        details: Details {
            cancelled: true,
            error: Some(error.code().as_str().into()),
            request_id: request_id.map(Cow::Borrowed),
            ..Details::default()
        },
    };
    to_line(&envelope)
}

/// How a request ended, in short: what the answered/cancelled events say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    /// Answered: how many questions got an answer.
    pub answered: Option<usize>,
    /// Not answered: why (`declined`, `chat`, `timed_out`, or a host error code).
    pub reason: Option<&'static str>,
}

/// How `outcome` ended. A submission with nothing given at all reads as a decline: one clear
/// signal, here and in the envelope's text.
pub fn ending(outcome: &Outcome) -> Ending {
    let reason = match outcome {
        Outcome::Submitted(responses) if !responses.is_empty() => {
            let answered = responses.answers.iter().filter(|a| a.is_some()).count();
            return Ending {
                answered: Some(answered),
                reason: None,
            };
        }
        Outcome::Submitted(_) | Outcome::Declined(_) => "declined",
        Outcome::ChatRequested { .. } => "chat",
        Outcome::TimedOut(_) => "timed_out",
        Outcome::Host { code, .. } => code.as_str(),
    };
    Ending {
        answered: None,
        reason: Some(reason),
    }
}

/// The envelope of a request that was shown. Ends with a newline.
pub fn outcome(
    questionnaire: &Questionnaire,
    outcome: &Outcome,
    request_id: Option<&str>,
) -> String {
    let responses = responses_of(outcome);
    let text = match outcome {
        Outcome::Submitted(_) if ending(outcome).answered.is_none() => DECLINED_TEXT.to_owned(),
        Outcome::Submitted(_) => {
            let segments = segments(questionnaire, responses);
            format!("{ANSWERED_PREFIX} {} {ANSWERED_SUFFIX}", segments.join(" "))
        }
        Outcome::Declined(_) => DECLINED_TEXT.to_owned(),
        Outcome::ChatRequested { question, .. } => {
            let mut text = format!(
                "User picked \"Chat about this\" on question {}: \"{}\".",
                question + 1,
                question_text(questionnaire, *question)
            );
            for segment in segments(questionnaire, responses) {
                text.push(' ');
                text.push_str(&segment);
            }
            text
        }
        Outcome::TimedOut(_) => TIMED_OUT_TEXT.to_owned(),
        Outcome::Host { code, .. } => host_text(*code).to_owned(),
    };
    let envelope = Envelope {
        content: vec![text_content(text)],
        details: details_of(questionnaire, outcome, request_id),
    };
    to_line(&envelope)
}

/// The envelope's `details` of a request that was shown, as JSON (for the full events).
pub fn details(
    questionnaire: &Questionnaire,
    outcome: &Outcome,
    request_id: Option<&str>,
) -> serde_json::Value {
    serde_json::to_value(details_of(questionnaire, outcome, request_id)).unwrap_or_default()
}

fn responses_of(outcome: &Outcome) -> &Responses {
    match outcome {
        Outcome::Submitted(r) | Outcome::Declined(r) | Outcome::TimedOut(r) => r,
        Outcome::ChatRequested { responses, .. } | Outcome::Host { responses, .. } => responses,
    }
}

fn details_of<'a>(
    questionnaire: &'a Questionnaire,
    outcome: &'a Outcome,
    request_id: Option<&'a str>,
) -> Details<'a> {
    let responses = responses_of(outcome);
    let (error, chat) = match outcome {
        Outcome::ChatRequested { question, .. } => (None, Some(*question)),
        Outcome::TimedOut(_) => (Some(ErrorCode::TimedOut), None),
        Outcome::Host { code, .. } => (Some(*code), None),
        Outcome::Submitted(_) | Outcome::Declined(_) => (None, None),
    };
    Details {
        answers: answer_details(questionnaire, responses),
        cancelled: ending(outcome).answered.is_none(),
        global_note: non_empty(&responses.global_note).map(Cow::Borrowed),
        unanswered_notes: unanswered_notes(questionnaire, responses),
        chat_requested: chat.map(|i| ChatRequested {
            question_index: i,
            question: question_text(questionnaire, i).into(),
        }),
        error: error.map(|code| code.as_str().into()),
        request_id: request_id.map(Cow::Borrowed),
    }
}

/// The envelope of a host-side ending for a request that was never shown (its questionnaire
/// had not fully arrived). Ends with a newline.
pub fn host_error(code: ErrorCode, request_id: Option<&str>) -> String {
    let empty = Questionnaire {
        approval: false,
        questions: Vec::new(),
        timeout_ms: None,
        form: None,
    };
    outcome(
        &empty,
        &Outcome::Host {
            code,
            responses: Responses::default(),
        },
        request_id,
    )
}

/// The text of a host-side ending.
pub fn host_text(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::Superseded => SUPERSEDED_TEXT,
        ErrorCode::Aborted => ABORTED_TEXT,
        ErrorCode::Busy => BUSY_TEXT,
        ErrorCode::TimedOut => TIMED_OUT_TEXT,
        ErrorCode::NoUi => NO_UI_TEXT,
        ErrorCode::NoCustomUi => NO_CUSTOM_UI_TEXT,
        ErrorCode::ZellijNotFound => ZELLIJ_NOT_FOUND_TEXT,
        ErrorCode::NoReply => NO_REPLY_TEXT,
        _ => DISMISSED_TEXT,
    }
}

fn text_content(text: String) -> Content<'static> {
    Content {
        kind: "text".into(),
        text: text.into(),
    }
}

fn to_line<T: Serialize>(value: &T) -> String {
    // Serialising plain structs of strings and numbers cannot fail; fall back to a fixed
    // envelope rather than panic if it ever did.
    let mut line = serde_json::to_string(value).unwrap_or_else(|_| {
        "{\"content\":[{\"type\":\"text\",\"text\":\"User declined to answer questions\"}],\"details\":{\"answers\":[],\"cancelled\":true}}".to_owned()
    });
    line.push('\n');
    line
}

fn non_empty(s: &str) -> Option<&str> {
    if s.trim().is_empty() {
        None
    } else {
        Some(s)
    }
}

fn question_text(questionnaire: &Questionnaire, question: usize) -> &str {
    questionnaire
        .questions
        .get(question)
        .map_or("", |q| q.question.as_str())
}

fn chosen_option(
    questionnaire: &Questionnaire,
    question: usize,
    option: usize,
) -> Option<&QuestionOption> {
    questionnaire.questions.get(question)?.options.get(option)
}

fn label(questionnaire: &Questionnaire, question: usize, option: usize) -> &str {
    chosen_option(questionnaire, question, option).map_or("", |o| o.label.as_str())
}

/// The preview of the option picked on `question`, if it has one.
fn preview(questionnaire: &Questionnaire, question: usize, option: usize) -> Option<&str> {
    chosen_option(questionnaire, question, option)?
        .preview
        .as_deref()
}

/// The labels and text of a multi-select answer, in option order, the typed text last.
fn multi_parts<'a>(
    questionnaire: &'a Questionnaire,
    question: usize,
    ticked: &[usize],
    text: &'a Option<String>,
) -> Vec<&'a str> {
    let mut parts: Vec<&str> = ticked
        .iter()
        .map(|&option| label(questionnaire, question, option))
        .collect();
    if let Some(text) = text.as_deref().and_then(non_empty) {
        parts.push(text);
    }
    parts
}

/// The scalar answer as the text shows it: the label, the typed text, or the labels joined.
pub fn answer_text(questionnaire: &Questionnaire, question: usize, answer: &Answer) -> String {
    let text = match answer {
        Answer::Option(option) => label(questionnaire, question, *option).to_owned(),
        Answer::Custom(text) => text.clone(),
        Answer::Multi { ticked, text } => {
            multi_parts(questionnaire, question, ticked, text).join(", ")
        }
    };
    if text.is_empty() {
        NO_INPUT.to_owned()
    } else {
        text
    }
}

fn answer_details<'a>(
    questionnaire: &'a Questionnaire,
    responses: &'a Responses,
) -> Vec<AnswerDetail<'a>> {
    responses
        .answers
        .iter()
        .enumerate()
        .filter_map(|(question, answer)| answer.as_ref().map(|answer| (question, answer)))
        .map(|(question, answer)| {
            let (kind, text, selected, preview) = match answer {
                Answer::Option(option) => (
                    "option",
                    Some(label(questionnaire, question, *option)),
                    Vec::new(),
                    preview(questionnaire, question, *option),
                ),
                Answer::Custom(text) => ("custom", Some(text.as_str()), Vec::new(), None),
                Answer::Multi { ticked, text } => (
                    "multi",
                    None,
                    multi_parts(questionnaire, question, ticked, text),
                    None,
                ),
            };
            AnswerDetail {
                question_index: question,
                question: question_text(questionnaire, question).into(),
                kind: kind.into(),
                answer: text.map(Cow::Borrowed),
                selected: selected.into_iter().map(Cow::Borrowed).collect(),
                notes: responses
                    .notes
                    .get(question)
                    .and_then(|n| non_empty(n))
                    .map(Cow::Borrowed),
                preview: preview.map(Cow::Borrowed),
            }
        })
        .collect()
}

fn unanswered_notes<'a>(
    questionnaire: &'a Questionnaire,
    responses: &'a Responses,
) -> Vec<UnansweredNote<'a>> {
    responses
        .notes
        .iter()
        .enumerate()
        .filter(|(question, _)| responses.answers.get(*question).is_none_or(Option::is_none))
        .filter_map(|(question, note)| {
            non_empty(note).map(|note| UnansweredNote {
                question_index: question,
                question: question_text(questionnaire, question).into(),
                note: note.into(),
            })
        })
        .collect()
}

/// The text segments in question order (answers and notes on unanswered questions), then the
/// global note.
fn segments(questionnaire: &Questionnaire, responses: &Responses) -> Vec<String> {
    let mut segments = Vec::new();
    for question in 0..questionnaire.questions.len() {
        let note = responses.notes.get(question).and_then(|n| non_empty(n));
        let text = question_text(questionnaire, question);
        match responses.answers.get(question).and_then(Option::as_ref) {
            Some(answer) => {
                let mut parts = vec![format!(
                    "\"{text}\"=\"{}\"",
                    answer_text(questionnaire, question, answer)
                )];
                if let Answer::Option(option) = answer {
                    if let Some(preview) = preview(questionnaire, question, *option) {
                        parts.push(format!("selected preview: {preview}"));
                    }
                }
                if let Some(note) = note {
                    parts.push(format!("user notes: {note}"));
                }
                segments.push(format!("{}.", parts.join(". ")));
            }
            None => {
                if let Some(note) = note {
                    segments.push(format!("note on \"{text}\": {note}."));
                }
            }
        }
    }
    if let Some(note) = non_empty(&responses.global_note) {
        segments.push(format!("global note: {note}."));
    }
    segments
}
