//! A form's answers: what the person gave to the questions of a form (`page.rs`) read back into
//! the form's content, checked against its fields, and the reply as the record and everyone but
//! its one caller are shown it, each secret field's value hidden.

use super::page::{FormPage, NO, YES};
use super::{Kind, Misfit};
use crate::envelope::{Answer, AnswerDetail};
use crate::history::RecordedForm;
use crate::request::Questionnaire;
use serde_json::{Map, Value};
use std::borrow::Cow;

impl FormPage {
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
