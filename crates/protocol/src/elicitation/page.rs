//! A form asked in the popup: a request's `form` (`{"server", "message", "schema"}`, at most
//! four fields: the command pages a longer form) read into a questionnaire of one question per
//! field (the answers given to those questions are read back into the form's content in
//! `answers.rs`).
//!
//! Each field is a question whose header is the field's title: a choice's titles are its
//! options, a boolean's are `Yes` and `No`, a multi-select enum is a multi-select question,
//! and a text or number field has no options, only the typed row. The dialog checks each
//! value against its field as the person types, and sends nothing that does not fit.

use super::{number, Field, Form, Kind, TextFormat};
use crate::question::{Question, QuestionOption, RequestError, MAX_QUESTIONS};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

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

/// Reads a request's `form` into the form and the questions that ask it
/// (`request::parse` makes the questionnaire of them).
pub fn questions(form: &Value) -> Result<(FormPage, Vec<Question>), RequestError> {
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
    Ok((page, questions))
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
            let bounds = span(minimum.map(number::text), maximum.map(number::text), "");
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
    // The first byte, when it is a whole character: ASCII, uppercased in place (str's
    // `to_uppercase` would bring its Unicode code into the plugin for it).
    if let Some(first) = text.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    (!text.is_empty()).then_some(text)
}

/// What the record keeps of a form and its answers.
impl FormPage {
    /// Whether any field is a secret: then no reply is kept to be repeated either.
    pub fn has_secret(&self) -> bool {
        (0..self.form.fields.len()).any(|i| self.secret(i))
    }
}
