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
use crate::consent::{self, Consent, FormAnswer};
use crate::terminal::print;
use ask_popup_protocol::elicitation::page;
use ask_popup_protocol::elicitation::HookInput;
use ask_popup_protocol::request::MAX_QUESTIONS;
use serde_json::{json, Map, Value};
use std::io::Read;

/// The agent name the popup shows for Claude Code.
const AGENT: &str = super::claude::AGENT;

/// The choices of a URL to visit and of a form with nothing to fill in.
const ACCEPT: &str = "Accept";
const DECLINE: &str = page::DECLINE_LABEL;

/// How the person answered the whole form.
pub type Answered = FormAnswer;

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
    let ask = |payload: &str| {
        let caller = Caller {
            pane_id: std::env::var("ZELLIJ_PANE_ID").ok(),
            agent: Some(AGENT.to_owned()),
            id: fresh_id(),
            id_given: false,
            approval_by: None,
        };
        let envelope = answer(
            Ok(payload.as_bytes().to_vec()),
            &caller,
            plugin,
            &Interrupts::install_watching(None),
        );
        (caller.id, envelope)
    };
    match ask_all(&input, ask) {
        FormAnswer::Accept(consent) => print(&format!("{}\n", accepted(&input, &consent))),
        FormAnswer::Decline => print(&format!("{}\n", output("decline", None))),
        FormAnswer::Unanswered(why) => {
            say_err!("ask-popup claude-elicitation: {why}; Claude Code's own form asks");
        }
    }
    0
}

/// Claude Code's answer for the person's yes: `accept`, with the content for a form (a URL's
/// acceptance carries none).
pub fn accepted(input: &HookInput, consent: &Consent) -> String {
    let content = consent.content();
    output("accept", input.url.is_none().then_some(&content))
}

/// What Claude Code's `Elicitation` hook prints (exit 0): `accept` (made from a `Consent` only,
/// by `accepted`) or `decline`.
fn output(action: &str, content: Option<&Map<String, Value>>) -> String {
    let mut out = Map::new();
    out.insert("hookEventName".into(), "Elicitation".into());
    out.insert("action".into(), action.into());
    if let Some(content) = content {
        out.insert("content".into(), Value::Object(content.clone()));
    }
    json!({ "hookSpecificOutput": out }).to_string()
}

/// Asks the whole form (or the URL) through `ask`, which takes a request and gives the id it
/// was asked under and the popup's envelope.
pub fn ask_all(input: &HookInput, mut ask: impl FnMut(&str) -> (String, String)) -> Answered {
    if let Some(url) = &input.url {
        let request = url_request(input, url);
        let (id, envelope) = ask(&request);
        return consent::picked(&request, &id, &envelope, ACCEPT, DECLINE);
    }
    let Some(schema) = &input.schema else {
        return FormAnswer::Unanswered("the form has no schema".to_owned());
    };
    let pages = match pages(input, schema) {
        Ok(pages) => pages,
        Err(why) => return FormAnswer::Unanswered(why),
    };
    if pages.is_empty() {
        // Nothing to fill in: a confirmation, asked as a question like any other.
        let request = confirmation_request(input);
        let (id, envelope) = ask(&request);
        return consent::picked(&request, &id, &envelope, ACCEPT, DECLINE);
    }
    let mut accepted: Option<Consent> = None;
    for request in pages {
        let request = request.to_string();
        let (id, envelope) = ask(&request);
        match consent::form_page(&request, &id, &envelope) {
            FormAnswer::Accept(page) => {
                accepted = Some(match accepted {
                    Some(so_far) => so_far.and(page),
                    None => page,
                });
            }
            other => return other,
        }
    }
    accepted.map_or_else(
        || FormAnswer::Unanswered("nothing was asked".to_owned()),
        FormAnswer::Accept,
    )
}

/// The requests that ask the form, four fields each; none for a form with no fields.
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
    let count = names.len().div_ceil(MAX_QUESTIONS);
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

/// The question that asks a form with nothing to fill in: the server's message, to accept or
/// decline.
fn confirmation_request(input: &HookInput) -> String {
    let message = input.message.trim();
    let question = if message.is_empty() {
        format!("{} asks you to confirm", server_name(input))
    } else {
        message.to_owned()
    };
    json!({"questions": [{
        "question": question,
        "header": "Confirm",
        "context": format!("**{}** asks:\n\n{}", server_name(input), blockquote(message)),
        "options": [
            {"label": ACCEPT, "description": format!("Tell {} yes", server_name(input))},
            {"label": DECLINE, "description": format!("Tell {} no", server_name(input))},
        ],
    }]})
    .to_string()
}

/// The server's name as the popup shows it.
fn server_name(input: &HookInput) -> &str {
    Some(input.server.trim())
        .filter(|s| !s.is_empty())
        .unwrap_or("An MCP server")
}

/// `text` as a markdown quote.
fn blockquote(text: &str) -> String {
    if text.is_empty() {
        return "> (no message)".to_owned();
    }
    text.lines()
        .map(|l| format!("> {l}"))
        .collect::<Vec<_>>()
        .join("\n")
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
            {"label": ACCEPT, "description": "I will open the page myself"},
            {"label": DECLINE, "description": "Tell the server no"},
        ],
    }]})
    .to_string()
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

    /// The id and the envelope of the person answering `request` with `outcome` of its answers.
    fn answered(request: &str, outcome: impl Fn(usize) -> Outcome) -> (String, String) {
        let questionnaire = request::parse(request).expect("a request the popup takes");
        let envelope = envelope::outcome(
            &questionnaire,
            &outcome(questionnaire.questions.len()),
            Some("r1"),
        );
        ("r1".to_owned(), envelope)
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
            let value: Value = serde_json::from_str(request).unwrap();
            asked.push(value.clone());
            answered(request, |n| {
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
        let FormAnswer::Accept(consent) = result else {
            panic!("not accepted: {result:?}");
        };
        assert_eq!(consent.content(), expected);
    }

    #[test]
    fn decline_declines_and_whatever_the_popup_did_not_answer_is_left_to_claude_code() {
        let decline = ask_all(&six(), |request| {
            answered(request, |n| Outcome::ChatRequested {
                question: 0,
                responses: Responses::empty(n),
            })
        });
        assert_eq!(decline, Answered::Decline);
        let esc = ask_all(&six(), |request| {
            answered(request, |n| Outcome::Declined(Responses::empty(n)))
        });
        assert!(matches!(esc, Answered::Unanswered(_)), "{esc:?}");
        for code in [ErrorCode::Dismissed, ErrorCode::NoUi, ErrorCode::NoReply] {
            let unanswered = ask_all(&six(), |_| {
                ("r1".to_owned(), envelope::host_error(code, Some("r1")))
            });
            assert!(matches!(unanswered, Answered::Unanswered(_)), "{code:?}");
        }
        // A form the popup cannot show (ten choices) is Claude Code's to ask.
        let choices: Vec<String> = (0..10).map(|i| format!("c{i}")).collect();
        let wide = input(json!({"type": "object", "properties": {
            "pick": {"type": "string", "enum": choices}}}));
        let refused = ask_all(&wide, |request| match request::parse(request) {
            Ok(_) => panic!("taken"),
            Err(e) => ("r1".to_owned(), envelope::rejection(&e, Some("r1"))),
        });
        assert!(matches!(refused, Answered::Unanswered(_)), "{refused:?}");
    }

    #[test]
    fn a_value_the_schema_refuses_is_never_sent() {
        let form = input(json!({"type": "object", "properties": {
            "n": {"type": "integer", "maximum": 5}}}));
        let result = ask_all(&form, |request| {
            answered(request, |_| {
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
        let accept = ask_all(&url, |request| {
            assert!(request.contains("https://example.com/login"));
            answered(request, |_| submitted(vec![Some(Answer::Option(0))]))
        });
        let FormAnswer::Accept(consent) = accept else {
            panic!("not accepted: {accept:?}");
        };
        assert_eq!(
            accepted(&url, &consent),
            r#"{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept"}}"#
        );
        let decline = ask_all(&url, |request| {
            answered(request, |_| submitted(vec![Some(Answer::Option(1))]))
        });
        assert_eq!(decline, FormAnswer::Decline);
    }

    #[test]
    fn a_form_with_nothing_to_fill_in_is_asked_and_only_the_persons_accept_accepts() {
        let confirm = input(json!({"type": "object", "properties": {}}));
        let mut asked = Vec::new();
        let unanswered = ask_all(&confirm, |request| {
            asked.push(request.to_owned());
            ("r1".to_owned(), String::new())
        });
        assert!(
            matches!(unanswered, FormAnswer::Unanswered(_)),
            "{unanswered:?}"
        );
        assert_eq!(asked.len(), 1, "the confirmation is asked");
        let q = request::parse(&asked[0]).expect("a question the popup takes");
        assert_eq!(q.questions[0].question, "Fill it in");
        let labels: Vec<&str> = q.questions[0]
            .options
            .iter()
            .map(|o| o.label.as_str())
            .collect();
        assert_eq!(labels, [ACCEPT, DECLINE]);
        assert!(q.questions[0]
            .context
            .as_deref()
            .unwrap_or("")
            .contains("srv"));
        let accept = ask_all(&confirm, |request| {
            answered(request, |_| submitted(vec![Some(Answer::Option(0))]))
        });
        let FormAnswer::Accept(consent) = accept else {
            panic!("not accepted: {accept:?}");
        };
        assert_eq!(
            accepted(&confirm, &consent),
            r#"{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{}}}"#
        );
        let decline = ask_all(&confirm, |request| {
            answered(request, |_| submitted(vec![Some(Answer::Option(1))]))
        });
        assert_eq!(decline, FormAnswer::Decline);
        // Another request's answer accepts nothing.
        let other = ask_all(&confirm, |request| {
            let (_, envelope) = answered(request, |_| submitted(vec![Some(Answer::Option(0))]));
            ("r2".to_owned(), envelope)
        });
        assert!(matches!(other, FormAnswer::Unanswered(_)), "{other:?}");
    }
}
