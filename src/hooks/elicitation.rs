//! `ask-popup claude-elicitation`: Claude Code's `Elicitation` hook. An MCP server asks for
//! input (a form, or a URL to visit); the popup asks it, and the hook prints Claude Code's
//! answer: `accept` with the content, or `decline`. Whatever the popup could not answer (Esc,
//! the popup closed, no Zellij, a form the popup cannot show) prints nothing, and Claude Code's
//! own form asks.
//!
//! A form of more than four fields is asked four at a time: one dialog per four fields, each
//! saying which fields of how many it holds; Decline in any of them declines the form.

use crate::ask::command::fresh_id;
use crate::ask::stop::Interrupts;
use crate::ask::waiting::answer;
use crate::ask::Caller;
use crate::terminal::print;
use ask_popup_protocol::elicitation::page::{self, FormPage};
use ask_popup_protocol::elicitation::{hook_output, Action, HookInput};
use ask_popup_protocol::envelope::Envelope;
use ask_popup_protocol::request::MAX_QUESTIONS;
use serde_json::{json, Map, Value};
use std::io::Read;

/// The agent name the popup shows for Claude Code.
const AGENT: &str = super::claude::AGENT;

/// A URL form's choices.
const OPEN_IT: &str = "Accept";
const DECLINE: &str = page::DECLINE_LABEL;

/// How the person answered one dialog of the form.
#[derive(Debug, PartialEq)]
pub enum Answered {
    Accept(Map<String, Value>),
    Decline,
    /// Not answered in the popup: Claude Code's own form asks.
    Unanswered(String),
}

/// `ask-popup claude-elicitation`: always exits 0 (exit 2 would decline for the person).
pub fn claude_elicitation(plugin: &str) -> i32 {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        say_err!("ask-popup claude-elicitation: could not read the hook input: {e}");
        return 0;
    }
    let Some(input) = HookInput::parse(&input) else {
        return 0;
    };
    let ask = |payload: String| {
        let caller = Caller {
            pane_id: std::env::var("ZELLIJ_PANE_ID").ok(),
            agent: Some(AGENT.to_owned()),
            id: fresh_id(),
            id_given: false,
            approval_by: None,
        };
        answer(
            Ok(payload.into_bytes()),
            &caller,
            plugin,
            &Interrupts::install_watching(None),
        )
    };
    match ask_all(&input, ask) {
        Answered::Accept(content) => {
            // A URL's acceptance carries no content.
            let content = input.url.is_none().then_some(&content);
            print(&format!("{}\n", hook_output(Action::Accept, content)));
        }
        Answered::Decline => print(&format!("{}\n", hook_output(Action::Decline, None))),
        Answered::Unanswered(why) => {
            say_err!("ask-popup claude-elicitation: {why}; Claude Code's own form asks");
        }
    }
    0
}

/// Asks the whole form (or the URL) through `ask`, which takes a request and gives the
/// popup's envelope.
pub fn ask_all(input: &HookInput, mut ask: impl FnMut(String) -> String) -> Answered {
    if let Some(url) = &input.url {
        return url_answer(&ask(url_request(input, url)));
    }
    let Some(schema) = &input.schema else {
        return Answered::Unanswered("the form has no schema".to_owned());
    };
    let pages = match pages(input, schema) {
        Ok(pages) => pages,
        Err(why) => return Answered::Unanswered(why),
    };
    let mut content = Map::new();
    for request in pages {
        match page_answer(&request, &ask(request.to_string())) {
            Answered::Accept(page) => content.extend(page),
            other => return other,
        }
    }
    Answered::Accept(content)
}

/// The requests that ask the form, four fields each.
pub fn pages(input: &HookInput, schema: &Value) -> Result<Vec<Value>, String> {
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .ok_or("the form's schema has no properties")?;
    let required: Vec<&Value> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().collect())
        .unwrap_or_default();
    let names: Vec<&String> = properties.keys().collect();
    let count = names.len().div_ceil(MAX_QUESTIONS).max(1);
    Ok(names
        .chunks(MAX_QUESTIONS)
        .enumerate()
        .map(|(n, chunk)| {
            let mut page_properties = Map::new();
            for name in chunk {
                page_properties.insert((*name).clone(), properties[*name].clone());
            }
            let page_required: Vec<&Value> = required
                .iter()
                .copied()
                .filter(|r| r.as_str().is_some_and(|r| chunk.iter().any(|n| *n == r)))
                .collect();
            let message = if count > 1 {
                let first = n * MAX_QUESTIONS + 1;
                let last = first + chunk.len() - 1;
                format!(
                    "{}\n\n(Fields {first}–{last} of {}: part {} of {count})",
                    input.message,
                    names.len(),
                    n + 1
                )
            } else {
                input.message.clone()
            };
            json!({"form": {
                "server": input.server,
                "message": message,
                "schema": {"type": "object", "properties": page_properties, "required": page_required},
            }})
        })
        .collect())
}

/// The envelope of a dialog the person submitted, or how it ended otherwise: `Decline`
/// (where `Chat about this` is) declines; Esc, an error or no reply is no answer.
fn submitted(envelope: &str) -> Result<Envelope<'static>, Answered> {
    let Some(envelope) = Envelope::read(envelope) else {
        return Err(Answered::Unanswered("no reply from the popup".to_owned()));
    };
    let details = &envelope.details;
    if details.chat_requested.is_some() {
        return Err(Answered::Decline);
    }
    if details.error.is_some() || details.cancelled {
        return Err(Answered::Unanswered(envelope.text().to_owned()));
    }
    Ok(envelope)
}

/// What one dialog of the form gave.
fn page_answer(request: &Value, envelope: &str) -> Answered {
    let envelope = match submitted(envelope) {
        Ok(envelope) => envelope,
        Err(ended) => return ended,
    };
    let Ok(questionnaire) = ask_popup_protocol::request::parse(&request.to_string()) else {
        return Answered::Unanswered("the popup cannot show this form".to_owned());
    };
    let Some(form) = questionnaire.form else {
        return Answered::Unanswered("the popup cannot show this form".to_owned());
    };
    content_of(&form, &envelope)
}

/// The content the envelope's answers give, checked once more against the form.
fn content_of(form: &FormPage, envelope: &Envelope) -> Answered {
    match form.content(&form.answers(&envelope.details.answers)) {
        Ok(content) => Answered::Accept(content),
        Err((i, misfit)) => Answered::Unanswered(format!(
            "the answer to {:?} does not fit ({misfit})",
            form.form.fields.get(i).map_or("", |f| f.name.as_str())
        )),
    }
}

/// The question that shows a URL to visit: the popup opens nothing itself.
fn url_request(input: &HookInput, url: &str) -> String {
    let message = if input.message.trim().is_empty() {
        "Open this page?"
    } else {
        input.message.trim()
    };
    json!({"questions": [{
        "question": message,
        "header": "Open URL",
        "context": format!(
            "**{}** asks you to open this page:\n\n`{url}`\n\nThe popup opens nothing: accept, then open it yourself.",
            input.server
        ),
        "options": [
            {"label": OPEN_IT, "description": "I will open the page myself"},
            {"label": DECLINE, "description": "Tell the server no"},
        ],
    }]})
    .to_string()
}

/// What the URL's question gave.
fn url_answer(envelope: &str) -> Answered {
    let envelope = match submitted(envelope) {
        Ok(envelope) => envelope,
        Err(ended) => return ended,
    };
    match envelope
        .details
        .answers
        .first()
        .and_then(|a| a.answer.as_deref())
    {
        Some(OPEN_IT) => Answered::Accept(Map::new()),
        Some(DECLINE) => Answered::Decline,
        _ => Answered::Unanswered("the page was not accepted".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ask_popup_protocol::envelope::{self, Answer, ErrorCode, Outcome, Responses};
    use ask_popup_protocol::request;

    fn input(schema: Value) -> HookInput {
        let hook = json!({"hook_event_name": "Elicitation", "mcp_server_name": "srv",
            "message": "Fill it in", "mode": "form", "requested_schema": schema});
        HookInput::parse(&hook.to_string()).expect("an Elicitation hook's input")
    }

    /// The envelope of the person answering `request` with `outcome` of its answers.
    fn answered(request: &str, outcome: impl Fn(usize) -> Outcome) -> String {
        let questionnaire = request::parse(request).expect("a request the popup takes");
        envelope::outcome(
            &questionnaire,
            &outcome(questionnaire.questions.len()),
            None,
        )
    }

    fn submitted(answers: Vec<Option<Answer>>) -> Outcome {
        let mut responses = Responses::empty(answers.len());
        responses.answers = answers;
        Outcome::Submitted(responses)
    }

    /// Six text fields, `f1` to `f6`, `f1` and `f6` required.
    fn six() -> HookInput {
        let properties: Map<String, Value> = (1..=6)
            .map(|i| (format!("f{i}"), json!({"type": "string"})))
            .collect();
        input(json!({"type": "object", "properties": properties, "required": ["f1", "f6"]}))
    }

    #[test]
    fn a_long_form_is_asked_four_fields_at_a_time_and_its_content_joined() {
        let mut asked = Vec::new();
        let result = ask_all(&six(), |request| {
            let value: Value = serde_json::from_str(&request).unwrap();
            asked.push(value.clone());
            answered(&request, |n| {
                submitted(
                    (0..n)
                        .map(|i| Some(Answer::Custom(format!("{}-{i}", asked.len()))))
                        .collect(),
                )
            })
        });
        assert_eq!(asked.len(), 2);
        assert_eq!(asked[0]["form"]["schema"]["required"], json!(["f1"]));
        assert_eq!(asked[1]["form"]["schema"]["required"], json!(["f6"]));
        let message = asked[1]["form"]["message"].as_str().unwrap();
        assert!(
            message.contains("Fields 5–6 of 6: part 2 of 2"),
            "{message}"
        );
        let expected: Map<String, Value> = serde_json::from_value(json!({"f1": "1-0",
            "f2": "1-1", "f3": "1-2", "f4": "1-3", "f5": "2-0", "f6": "2-1"}))
        .unwrap();
        assert_eq!(result, Answered::Accept(expected));
    }

    #[test]
    fn decline_declines_and_whatever_the_popup_did_not_answer_is_left_to_claude_code() {
        let decline = ask_all(&six(), |request| {
            answered(&request, |n| Outcome::ChatRequested {
                question: 0,
                responses: Responses::empty(n),
            })
        });
        assert_eq!(decline, Answered::Decline);
        let esc = ask_all(&six(), |request| {
            answered(&request, |n| Outcome::Declined(Responses::empty(n)))
        });
        assert!(matches!(esc, Answered::Unanswered(_)), "{esc:?}");
        for code in [ErrorCode::Dismissed, ErrorCode::NoUi, ErrorCode::NoReply] {
            let unanswered = ask_all(&six(), |_| envelope::host_error(code, None));
            assert!(matches!(unanswered, Answered::Unanswered(_)), "{code:?}");
        }
        // A form the popup cannot show (ten choices) is Claude Code's to ask.
        let choices: Vec<String> = (0..10).map(|i| format!("c{i}")).collect();
        let wide = input(json!({"type": "object", "properties": {
            "pick": {"type": "string", "enum": choices}}}));
        let refused = ask_all(&wide, |request| match request::parse(&request) {
            Ok(_) => panic!("taken"),
            Err(e) => envelope::rejection(&e, None),
        });
        assert!(matches!(refused, Answered::Unanswered(_)), "{refused:?}");
    }

    #[test]
    fn a_value_the_schema_refuses_is_never_sent() {
        let form = input(json!({"type": "object", "properties": {
            "n": {"type": "integer", "maximum": 5}}}));
        let result = ask_all(&form, |request| {
            answered(&request, |_| {
                submitted(vec![Some(Answer::Custom("9".into()))])
            })
        });
        assert!(matches!(result, Answered::Unanswered(_)), "{result:?}");
    }

    #[test]
    fn a_url_is_shown_never_opened_and_accepted_or_declined() {
        let hook = json!({"hook_event_name": "Elicitation", "mcp_server_name": "auth",
            "message": "Sign in", "mode": "url", "url": "https://example.com/login",
            "elicitation_id": "e1"});
        let url = HookInput::parse(&hook.to_string()).unwrap();
        for (option, expected) in [(0, Answered::Accept(Map::new())), (1, Answered::Decline)] {
            let result = ask_all(&url, |request| {
                assert!(request.contains("https://example.com/login"));
                answered(&request, |_| submitted(vec![Some(Answer::Option(option))]))
            });
            assert_eq!(result, expected);
        }
    }
}
