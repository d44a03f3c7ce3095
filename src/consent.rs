//! The one way to say yes. Every yes the command hands an agent (an approval's allow or allow
//! always, opencode's `once` or `always`, a form's or a URL's `accept`) is printed from a
//! [`Consent`], and a `Consent` is made here alone: from the popup's envelope for the caller's
//! own request id, in which the person picked, on screen, a yes row that this very request
//! offered (the plugin takes a pick only once its key guard has passed). `Consent` has private
//! fields and no constructor outside this module, so no other code can say yes for the person.
//!
//! Everything else gives no `Consent`: an error, a cancel, Esc, no reply, an envelope for another
//! id, one that cannot be read, a typed answer (a note, never an allow), a row the request did
//! not offer, a form whose content does not fit. The hooks then deny, or print nothing so that
//! the agent's own dialog decides. `tests/consent.rs` tries every hook against a `zellij` that
//! never answers for the person and holds that none of them ever prints a yes.

use ask_popup_protocol::approval::{decision, Decision, ALLOW_ALWAYS, ALLOW_ONCE};
use ask_popup_protocol::elicitation::page::FormPage;
use ask_popup_protocol::envelope::{AnswerDetail, Envelope};
use ask_popup_protocol::request::{self, Questionnaire};
use serde_json::{Map, Value};

/// The person's yes to one request. Made only in this module (see the module's docs).
#[derive(Debug, PartialEq)]
pub struct Consent {
    yes: Yes,
}

/// What the person said yes to.
#[derive(Clone, Debug, PartialEq)]
pub enum Yes {
    /// Allow this once.
    Once,
    /// Allow this, and add the rules the agent offered (shown whole in the popup).
    Always,
    /// Accept a form with this content (empty for a confirmation or a URL).
    Accept(Map<String, Value>),
}

impl Consent {
    /// What was said yes to.
    pub fn yes(&self) -> &Yes {
        &self.yes
    }

    /// The content of the accepted form (empty for an allow).
    pub fn content(&self) -> Map<String, Value> {
        match &self.yes {
            Yes::Accept(content) => content.clone(),
            Yes::Once | Yes::Always => Map::new(),
        }
    }

    /// Two pages of one form, each accepted by the person: the form accepted with both contents.
    pub fn and(self, page: Consent) -> Consent {
        let mut content = self.content();
        content.extend(page.content());
        Consent {
            yes: Yes::Accept(content),
        }
    }
}

/// What the person decided on an approval.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    Allow(Consent),
    /// Denied, with the message the model reads.
    Deny(String),
}

/// The popup's envelope, when it is the reply to the caller's own request `id`: a request's
/// answer is never taken from another's.
fn envelope_for(id: &str, envelope: &str) -> Option<Envelope<'static>> {
    Envelope::read(envelope).filter(|e| !id.is_empty() && e.request_id() == Some(id))
}

/// Whether `questionnaire` offered a row labelled `label` (picked rows are read by label).
fn offered(questionnaire: &Questionnaire, label: &str) -> bool {
    questionnaire
        .questions
        .iter()
        .flat_map(|q| &q.options)
        .any(|o| o.label == label)
}

/// The person's decision on the approval `payload` asked under `id`, from the popup's
/// `envelope`: `None` leaves it to the agent's own prompt. An allow counts only when the
/// approval offered it and the person picked it.
pub fn approval(payload: &str, id: &str, envelope: &str) -> Option<Verdict> {
    let questionnaire = request::parse(payload).ok().filter(|q| q.approval)?;
    let envelope = envelope_for(id, envelope)?;
    let line = serde_json::to_string(&envelope).ok()?;
    let always = offered(&questionnaire, ALLOW_ALWAYS);
    match decision(&line, always)? {
        Decision::AllowOnce if offered(&questionnaire, ALLOW_ONCE) => {
            Some(Verdict::Allow(Consent { yes: Yes::Once }))
        }
        Decision::AllowAlways if always => Some(Verdict::Allow(Consent { yes: Yes::Always })),
        Decision::Deny(message) => Some(Verdict::Deny(message)),
        Decision::AllowOnce | Decision::AllowAlways => None,
    }
}

/// How the person answered one dialog of a form.
#[derive(Debug, PartialEq)]
pub enum FormAnswer {
    Accept(Consent),
    Decline,
    /// Not answered in the popup (Esc, an error, no reply, a value that does not fit): the
    /// agent's own form asks; why.
    Unanswered(String),
}

/// The envelope of a dialog the person submitted for `id`, or how it ended otherwise:
/// `Decline` (where `Chat about this` is) declines; Esc, an error or no reply is no answer.
fn submitted(id: &str, envelope: &str) -> Result<Envelope<'static>, FormAnswer> {
    let Some(envelope) = envelope_for(id, envelope) else {
        return Err(FormAnswer::Unanswered("no reply from the popup".to_owned()));
    };
    let details = &envelope.details;
    if details.chat_requested.is_some() {
        return Err(FormAnswer::Decline);
    }
    if details.error.is_some() || details.cancelled {
        return Err(FormAnswer::Unanswered(envelope.text().to_owned()));
    }
    Ok(envelope)
}

/// What one page of a form (the request `payload`, asked under `id`) gave: its content,
/// checked once more against the form (Claude Code does not check what a hook sends).
pub fn form_page(payload: &str, id: &str, envelope: &str) -> FormAnswer {
    let envelope = match submitted(id, envelope) {
        Ok(envelope) => envelope,
        Err(ended) => return ended,
    };
    let Ok(questionnaire) = request::parse(payload) else {
        return FormAnswer::Unanswered("the popup cannot show this form".to_owned());
    };
    if !rows_offered(&questionnaire, &envelope.details.answers) {
        return FormAnswer::Unanswered("an answer names a row the form did not offer".to_owned());
    }
    let Some(form): Option<FormPage> = questionnaire.form else {
        return FormAnswer::Unanswered("the popup cannot show this form".to_owned());
    };
    if form.form.fields.is_empty() {
        return FormAnswer::Unanswered("a form without fields is asked as a question".to_owned());
    }
    match form.content(&form.answers(&envelope.details.answers)) {
        Ok(content) => FormAnswer::Accept(Consent {
            yes: Yes::Accept(content),
        }),
        Err((i, misfit)) => FormAnswer::Unanswered(format!(
            "the answer to {:?} does not fit ({misfit})",
            form.form.fields.get(i).map_or("", |f| f.name.as_str())
        )),
    }
}

/// Whether every answer of `answers` is to a question `questionnaire` asked, and names only
/// rows that question offered (a typed answer names none: its field checks it). An envelope
/// whose answer names anything else is not the popup's for this request.
fn rows_offered(questionnaire: &Questionnaire, answers: &[AnswerDetail]) -> bool {
    answers.iter().all(|answer| {
        let Some(question) = questionnaire.questions.get(answer.question_index) else {
            return false;
        };
        let offered = |label: &str| question.options.iter().any(|o| o.label == label);
        match answer.kind.as_ref() {
            "option" => answer.answer.as_deref().is_some_and(offered),
            "multi" => answer.selected.iter().all(|label| offered(label)),
            "custom" => true,
            _ => false,
        }
    })
}

/// What a yes-or-no question (the request `payload`, asked under `id`: a URL to visit, a form
/// with nothing to fill in) gave: accepted when the person picked the row `accept`, declined
/// when they picked `decline`.
pub fn picked(payload: &str, id: &str, envelope: &str, accept: &str, decline: &str) -> FormAnswer {
    let envelope = match submitted(id, envelope) {
        Ok(envelope) => envelope,
        Err(ended) => return ended,
    };
    let Ok(questionnaire) = request::parse(payload) else {
        return FormAnswer::Unanswered("the popup cannot show this question".to_owned());
    };
    let [answer] = envelope.details.answers.as_slice() else {
        return FormAnswer::Unanswered("not answered".to_owned());
    };
    let label = answer.answer.as_deref().filter(|_| answer.kind == "option");
    match label {
        Some(label) if label == accept && offered(&questionnaire, accept) => {
            FormAnswer::Accept(Consent {
                yes: Yes::Accept(Map::new()),
            })
        }
        Some(label) if label == decline => FormAnswer::Decline,
        _ => FormAnswer::Unanswered("not accepted".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ask_popup_protocol::envelope::{self, Answer, ErrorCode, Outcome, Responses};

    const APPROVAL: &str = r#"{"approval":true,"questions":[{"question":"Allow x to use Bash: ls?","header":"Approval","options":["Allow once","Allow always","Deny"]}]}"#;

    fn picked_row(payload: &str, row: Answer, id: &str) -> String {
        let q = request::parse(payload).expect("a request the popup takes");
        let mut responses = Responses::empty(q.questions.len());
        responses.answers[0] = Some(row);
        envelope::outcome(&q, &Outcome::Submitted(responses), Some(id))
    }

    #[test]
    fn an_allow_is_the_persons_pick_on_the_callers_own_request() {
        let once = picked_row(APPROVAL, Answer::Option(0), "r1");
        assert_eq!(
            approval(APPROVAL, "r1", &once),
            Some(Verdict::Allow(Consent { yes: Yes::Once }))
        );
        let always = picked_row(APPROVAL, Answer::Option(1), "r1");
        assert_eq!(
            approval(APPROVAL, "r1", &always),
            Some(Verdict::Allow(Consent { yes: Yes::Always }))
        );
        // The same pick for another request, or for none, is no allow.
        assert_eq!(approval(APPROVAL, "r2", &once), None);
        assert_eq!(approval(APPROVAL, "", &once), None);
        let anonymous = {
            let q = request::parse(APPROVAL).unwrap();
            let mut responses = Responses::empty(1);
            responses.answers[0] = Some(Answer::Option(0));
            envelope::outcome(&q, &Outcome::Submitted(responses), None)
        };
        assert_eq!(approval(APPROVAL, "r1", &anonymous), None);
    }

    #[test]
    fn an_allow_the_request_did_not_offer_is_no_allow() {
        let deny_only = r#"{"approval":true,"questions":[{"question":"Allow x to use Bash?","header":"Approval","options":["Deny","Ask in x's own prompt"]}]}"#;
        // An envelope that says "Allow once", for a request that never offered it.
        let forged = picked_row(APPROVAL, Answer::Option(0), "r1");
        assert_eq!(approval(deny_only, "r1", &forged), None);
        let without_always = r#"{"approval":true,"questions":[{"question":"Allow x?","header":"Approval","options":["Allow once","Deny"]}]}"#;
        let always = picked_row(APPROVAL, Answer::Option(1), "r1");
        assert_eq!(approval(without_always, "r1", &always), None);
        // Not an approval at all.
        let question =
            r#"{"questions":[{"question":"Allow?","header":"Q","options":["Allow once","Deny"]}]}"#;
        let once = picked_row(question, Answer::Option(0), "r1");
        assert_eq!(approval(question, "r1", &once), None);
    }

    #[test]
    fn a_typed_answer_an_error_or_a_cancel_is_never_a_yes() {
        let typed = picked_row(APPROVAL, Answer::Custom("Allow once".into()), "r1");
        assert!(matches!(
            approval(APPROVAL, "r1", &typed),
            Some(Verdict::Deny(_))
        ));
        let q = request::parse(APPROVAL).unwrap();
        for envelope in [
            envelope::outcome(&q, &Outcome::Declined(Responses::empty(1)), Some("r1")),
            envelope::host_error(ErrorCode::NoReply, Some("r1")),
            "garbage".to_owned(),
            String::new(),
        ] {
            assert_eq!(approval(APPROVAL, "r1", &envelope), None, "{envelope}");
        }
    }

    #[test]
    fn a_form_page_accepts_only_rows_it_offered() {
        let page = r#"{"form":{"server":"s","message":"m","schema":{"type":"object","properties":{"pick":{"type":"string","enum":["a","b"]}}}}}"#;
        let q = request::parse(page).unwrap();
        let picked = |row: &str| {
            let mut responses = Responses::empty(1);
            responses.answers[0] = Some(Answer::Option(0));
            envelope::outcome(&q, &Outcome::Submitted(responses), Some("r1"))
                .replace("\"answer\":\"a\"", &format!("\"answer\":\"{row}\""))
        };
        let FormAnswer::Accept(consent) = form_page(page, "r1", &picked("a")) else {
            panic!("the person's pick of a row offered is accepted");
        };
        assert_eq!(consent.content()["pick"], "a");
        assert!(matches!(
            form_page(page, "r1", &picked("Accept")),
            FormAnswer::Unanswered(_)
        ));
        assert!(matches!(
            form_page(page, "r2", &picked("a")),
            FormAnswer::Unanswered(_)
        ));
    }

    #[test]
    fn a_yes_or_no_question_accepts_only_the_accept_row() {
        let question = r#"{"questions":[{"question":"Delete it?","header":"Confirm","options":["Accept","Decline"]}]}"#;
        let accept = picked_row(question, Answer::Option(0), "r1");
        assert_eq!(
            picked(question, "r1", &accept, "Accept", "Decline"),
            FormAnswer::Accept(Consent {
                yes: Yes::Accept(Map::new())
            })
        );
        assert!(matches!(
            picked(question, "r2", &accept, "Accept", "Decline"),
            FormAnswer::Unanswered(_)
        ));
        let decline = picked_row(question, Answer::Option(1), "r1");
        assert_eq!(
            picked(question, "r1", &decline, "Accept", "Decline"),
            FormAnswer::Decline
        );
        let typed = picked_row(question, Answer::Custom("Accept".into()), "r1");
        assert!(matches!(
            picked(question, "r1", &typed, "Accept", "Decline"),
            FormAnswer::Unanswered(_)
        ));
    }
}
