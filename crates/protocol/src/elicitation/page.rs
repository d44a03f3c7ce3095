//! A form asked in the popup: a request's `form` (`{"server", "message", "schema"}`, at most
//! four fields: the command pages a longer form) read into a questionnaire of one question per
//! field, and the answers given to those questions read back into the form's content.
//!
//! Each field is a question whose header is the field's title: a choice's titles are its
//! options, a boolean's are `Yes` and `No`, a multi-select enum is a multi-select question,
//! and a text or number field has no options, only the typed row. The dialog checks each
//! value against its field as the person types, and sends nothing that does not fit.

use super::{number_text, Field, Form, Kind, Misfit, TextFormat};
use crate::envelope::{Answer, AnswerDetail};
use crate::history::RecordedForm;
use crate::request::{Question, QuestionOption, Questionnaire, RequestError, MAX_QUESTIONS};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// A boolean field's options.
pub const YES: &str = "Yes";
pub const NO: &str = "No";
/// The row that declines the form (where a question has `Chat about this`).
pub const DECLINE_LABEL: &str = "Decline";
/// At most this many choices in a field the popup asks (the rows are numbered 1-9).
pub const MAX_POPUP_CHOICES: usize = 9;
/// A tab's header: the field's title, cut to this many characters.
const HEADER_CHARS: usize = 16;

/// The form of a request, as it came and as read.
#[derive(Clone, Debug)]
pub struct FormPage {
    /// The MCP server that asks.
    pub server: String,
    pub message: String,
    /// The requested schema as it came: what the request is read back from.
    pub schema: Value,
    pub form: Form,
}

impl PartialEq for FormPage {
    fn eq(&self, other: &Self) -> bool {
        (&self.server, &self.message, &self.schema)
            == (&other.server, &other.message, &other.schema)
    }
}

impl Eq for FormPage {}

impl std::hash::Hash for FormPage {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.server.hash(state);
        self.message.hash(state);
        self.schema.to_string().hash(state);
    }
}

impl Serialize for FormPage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("server", &self.server)?;
        map.serialize_entry("message", &self.message)?;
        map.serialize_entry("schema", &self.schema)?;
        map.end()
    }
}

fn invalid(detail: impl Into<String>) -> RequestError {
    RequestError::InvalidForm {
        detail: detail.into(),
    }
}

/// Reads a request's `form` into the questionnaire that asks it.
pub fn questionnaire(form: &Value) -> Result<Questionnaire, RequestError> {
    let text = |key: &str| {
        form.get(key)
            .and_then(Value::as_str)
            .map(|s| s.replace("\r\n", "\n"))
    };
    let server = text("server").unwrap_or_default();
    let message = text("message").unwrap_or_default();
    let schema = form
        .get("schema")
        .cloned()
        .ok_or_else(|| invalid("form.schema is required"))?;
    let parsed = Form::parse(&schema).map_err(|e| invalid(e.to_string()))?;
    if parsed.fields.len() > MAX_QUESTIONS {
        return Err(invalid(format!(
            "at most {MAX_QUESTIONS} fields are asked at once"
        )));
    }
    let page = FormPage {
        server,
        message,
        schema,
        form: parsed,
    };
    let questions = page
        .form
        .fields
        .iter()
        .map(|field| page.question(field))
        .collect::<Result<_, _>>()?;
    Ok(Questionnaire {
        questions,
        approval: false,
        timeout_ms: None,
        form: Some(page),
    })
}

impl FormPage {
    /// The question that asks `field`.
    fn question(&self, field: &Field) -> Result<Question, RequestError> {
        let labels: Vec<String> = match &field.kind {
            Kind::Choice { choices, .. } | Kind::Choices { choices, .. } => {
                if choices.len() > MAX_POPUP_CHOICES {
                    return Err(invalid(format!(
                        "field {:?} has more than {MAX_POPUP_CHOICES} choices",
                        field.name
                    )));
                }
                let titles: Vec<String> = choices.iter().map(|c| c.title.clone()).collect();
                if titles
                    .iter()
                    .enumerate()
                    .any(|(i, t)| titles[..i].contains(t))
                {
                    return Err(invalid(format!(
                        "field {:?} has two choices of one title",
                        field.name
                    )));
                }
                titles
            }
            Kind::Boolean { .. } => vec![YES.to_owned(), NO.to_owned()],
            Kind::Text { .. } | Kind::Number { .. } => Vec::new(),
        };
        let mut context = format!("**{}** asks: {}", self.server, self.message.trim());
        if let Some(description) = &field.description {
            context.push_str("\n\n");
            context.push_str(description.trim());
        }
        if let Some(rules) = rules(field) {
            context.push_str(&format!("\n\n_{rules}._"));
        }
        let mark = if field.required { " *" } else { "" };
        let title: String = field
            .title
            .chars()
            .take(HEADER_CHARS - mark.len())
            .collect();
        Ok(Question {
            question: format!(
                "{}{}",
                field.title,
                if field.required { " (required)" } else { "" }
            ),
            header: format!("{title}{mark}"),
            options: labels
                .into_iter()
                .map(|label| QuestionOption {
                    label,
                    description: String::new(),
                    preview: None,
                })
                .collect(),
            multi_select: matches!(field.kind, Kind::Choices { .. }),
            context: Some(context),
        })
    }

    /// The value an answer to field `index` gives, or why it does not fit; `None`: left empty.
    pub fn value(&self, index: usize, answer: Option<&Answer>) -> Result<Option<Value>, Misfit> {
        let Some(field) = self.form.fields.get(index) else {
            return Ok(None);
        };
        let value = match (&field.kind, answer) {
            (_, None) => None,
            (Kind::Text { .. } | Kind::Number { .. }, Some(Answer::Custom(text))) => {
                return field.typed(text)
            }
            (Kind::Choice { choices, .. }, Some(Answer::Option(i))) => {
                choices.get(*i).map(|c| Value::from(c.value.clone()))
            }
            (Kind::Boolean { .. }, Some(Answer::Option(i))) => Some(Value::from(*i == 0)),
            (Kind::Choices { choices, .. }, Some(Answer::Multi { ticked, .. })) => Some(
                ticked
                    .iter()
                    .filter_map(|i| choices.get(*i))
                    .map(|c| Value::from(c.value.clone()))
                    .collect(),
            ),
            _ => return Err(Misfit::NotAChoice),
        };
        match value {
            Some(value) => field.check_value(&value).map(|()| Some(value)),
            None if field.required => Err(Misfit::Required),
            None => Ok(None),
        }
    }

    /// The content of the answers, or the first field whose answer does not fit, with why.
    pub fn content(
        &self,
        answers: &[Option<Answer>],
    ) -> Result<Map<String, Value>, (usize, Misfit)> {
        let values = (0..self.form.fields.len())
            .map(|i| {
                self.value(i, answers.get(i).and_then(Option::as_ref))
                    .map_err(|m| (i, m))
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.form.content(&values)
    }

    /// The answers an envelope's details name (by label), as the dialog gave them.
    pub fn answers(&self, details: &[AnswerDetail]) -> Vec<Option<Answer>> {
        let mut answers = vec![None; self.form.fields.len()];
        for detail in details {
            let Some(field) = self.form.fields.get(detail.question_index) else {
                continue;
            };
            let index_of = |label: &str| match &field.kind {
                Kind::Choice { choices, .. } | Kind::Choices { choices, .. } => {
                    choices.iter().position(|c| c.title == label)
                }
                Kind::Boolean { .. } => [YES, NO].iter().position(|l| *l == label),
                _ => None,
            };
            let answer = match (detail.kind.as_ref(), detail.answer.as_deref()) {
                ("option", Some(label)) => index_of(label).map(Answer::Option),
                ("custom", Some(text)) => Some(Answer::Custom(text.to_owned())),
                ("multi", _) => Some(Answer::Multi {
                    ticked: detail.selected.iter().filter_map(|l| index_of(l)).collect(),
                    text: None,
                }),
                _ => None,
            };
            if let Some(slot) = answers.get_mut(detail.question_index) {
                *slot = answer;
            }
        }
        answers
    }

    /// The fields whose values are never written to the record.
    pub fn secret(&self, index: usize) -> bool {
        self.form.fields.get(index).is_some_and(Field::is_secret)
    }
}

/// What a value of `field` must be, as the person reads it before typing (`A whole number
/// from 1 to 5`); `None` when anything goes, or the options say it.
fn rules(field: &Field) -> Option<String> {
    let span = |min: Option<String>, max: Option<String>, unit: &str| match (min, max) {
        (Some(min), Some(max)) if min == max => Some(format!("{min}{unit}")),
        (Some(min), Some(max)) => Some(format!("{min} to {max}{unit}")),
        (Some(min), None) => Some(format!("at least {min}{unit}")),
        (None, Some(max)) => Some(format!("at most {max}{unit}")),
        (None, None) => None,
    };
    let parts: Vec<String> = match &field.kind {
        Kind::Text {
            min_length,
            max_length,
            format,
            ..
        } => {
            let what = format.map(|f| match f {
                TextFormat::Email => "An email address".to_owned(),
                TextFormat::Uri => "A URL".to_owned(),
                TextFormat::Date => "A date (YYYY-MM-DD)".to_owned(),
                TextFormat::DateTime => "A date and time (YYYY-MM-DDTHH:MM:SSZ)".to_owned(),
            });
            let length = span(
                min_length.map(|n| n.to_string()),
                max_length.map(|n| n.to_string()),
                " characters",
            );
            what.into_iter().chain(length).collect()
        }
        Kind::Number {
            integer,
            minimum,
            maximum,
            ..
        } => {
            let what = if *integer {
                "A whole number"
            } else {
                "A number"
            };
            let bounds = span(minimum.map(number_text), maximum.map(number_text), "");
            vec![match bounds {
                Some(bounds) => format!("{what}, {bounds}"),
                None => what.to_owned(),
            }]
        }
        Kind::Choices {
            min_items,
            max_items,
            ..
        } => span(
            min_items.map(|n| n.to_string()),
            max_items.map(|n| n.to_string()),
            "",
        )
        .map(|n| format!("Pick {n}"))
        .into_iter()
        .collect(),
        Kind::Boolean { .. } | Kind::Choice { .. } => Vec::new(),
    };
    let mut text = parts.join(", ");
    if let Some(first) = text.get(..1) {
        text = first.to_uppercase() + &text[1..];
    }
    (!text.is_empty()).then_some(text)
}

/// What the record keeps of a form and its answers.
impl FormPage {
    /// Whether any field is a secret: then no reply is kept to be repeated either.
    pub fn has_secret(&self) -> bool {
        (0..self.form.fields.len()).any(|i| self.secret(i))
    }

    /// The form as the record keeps it, with the content `reply` (the envelope) sent, if it
    /// was sent, each secret as `•••`.
    pub fn recorded(&self, reply: &str) -> RecordedForm {
        let sent = crate::envelope::Envelope::read(reply)
            .filter(|e| {
                let d = &e.details;
                d.error.is_none() && !d.cancelled && d.chat_requested.is_none()
            })
            .and_then(|e| self.content(&self.answers(&e.details.answers)).ok())
            .map(|mut content| {
                for (i, field) in self.form.fields.iter().enumerate() {
                    if self.secret(i) && content.contains_key(&field.name) {
                        content.insert(field.name.clone(), Value::from(HIDDEN));
                    }
                }
                Value::Object(content)
            });
        RecordedForm {
            server: self.server.clone(),
            message: self.message.clone(),
            sent,
        }
    }

    /// `reply` (an envelope) with each secret field's value replaced by `•••` (see
    /// `shown_to_others`).
    pub fn without_secrets(&self, reply: &str) -> String {
        let Ok(mut envelope) = serde_json::from_str::<Value>(reply.trim()) else {
            return reply.to_owned();
        };
        let mut hidden = Vec::new();
        if let Some(answers) = envelope
            .pointer_mut("/details/answers")
            .and_then(Value::as_array_mut)
        {
            for answer in answers {
                let index = answer
                    .get("questionIndex")
                    .and_then(Value::as_u64)
                    .and_then(|i| usize::try_from(i).ok());
                if !index.is_some_and(|i| self.secret(i)) {
                    continue;
                }
                // As the text says it: the typed text or label, or the labels ticked.
                let said = match (answer.get("answer"), answer.get("selected")) {
                    (Some(Value::String(text)), _) => text.clone(),
                    (_, Some(Value::Array(ticked))) => {
                        let ticked: Vec<&str> = ticked.iter().filter_map(Value::as_str).collect();
                        ticked.join(", ")
                    }
                    _ => String::new(),
                };
                hidden.push(said);
                answer["answer"] = Value::from(HIDDEN);
                if answer.get("selected").is_some() {
                    answer["selected"] = Value::from([HIDDEN]);
                }
            }
        }
        if let Some(text) = envelope
            .pointer_mut("/content/0/text")
            .filter(|t| t.is_string())
        {
            let mut said = text.as_str().unwrap_or_default().to_owned();
            for secret in hidden.iter().filter(|s| !s.is_empty()) {
                said = said.replace(&format!("=\"{secret}\""), &format!("=\"{HIDDEN}\""));
            }
            *text = Value::from(said);
        }
        envelope.to_string()
    }
}

/// `reply`, the envelope of a request that asked `questionnaire`, as everyone but its one
/// caller is shown it: the record, the `ask-popup:answered` and `ask-popup:cancelled` events,
/// the trace, the plugin's other instances. A form's secret values are `•••` in it; any other
/// reply is as it came.
pub fn shown_to_others<'a>(questionnaire: &Questionnaire, reply: &'a str) -> Cow<'a, str> {
    match &questionnaire.form {
        Some(form) if form.has_secret() => Cow::Owned(form.without_secrets(reply)),
        _ => Cow::Borrowed(reply),
    }
}

/// What everyone but the caller is shown of a secret.
pub const HIDDEN: &str = "•••";
