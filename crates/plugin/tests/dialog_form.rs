//! An MCP server's form in the dialog: one tab per field, values checked as they are typed,
//! defaults filled in, Decline and Esc, and nothing submitted that the schema refuses.

mod support;

use ask_popup_plugin::dialog::{Dialog, Key, Response};
use ask_popup_protocol::elicitation::page::FormPage;
use ask_popup_protocol::envelope::{Answer, Outcome};
use serde_json::{json, Value};
use support::*;

fn form(d: &Dialog) -> &FormPage {
    d.form().expect("a form")
}

fn content(d: &Dialog, outcome: &Outcome) -> Value {
    let Outcome::Submitted(responses) = outcome else {
        panic!("not submitted: {outcome:?}");
    };
    Value::Object(
        form(d)
            .content(&responses.answers)
            .expect("content that fits"),
    )
}

#[test]
fn each_field_is_a_tab_with_its_title_the_server_and_the_message_on_top() {
    let d = elicit_form();
    let q = d.questionnaire();
    let headers: Vec<&str> = q.questions.iter().map(|q| q.header.as_str()).collect();
    assert_eq!(headers, ["Name *", "Count *", "Confirm", "Color"]);
    assert_eq!(
        q.questions[3].options.len(),
        3,
        "the titles are the options"
    );
    assert_eq!(q.questions[3].options[1].label, "Green");
    let screen = frame(&d, 100, 30);
    assert!(
        screen.contains("elicit asks: Please fill in your preferences"),
        "{screen}"
    );
    assert!(screen.contains("Your name"), "{screen}");
    assert!(screen.contains("Decline"), "{screen}");
    assert!(!screen.contains("Chat about this"), "{screen}");
    // A server has no place for a note.
    assert!(!screen.contains("n note"), "{screen}");
}

#[test]
fn a_form_answered_with_keys_gives_typed_content_and_refuses_a_value_out_of_bounds() {
    let mut d = elicit_form();
    type_text(&mut d, "Bob");
    keys(&mut d, &[Key::Enter]);
    assert_eq!(d.tab(), 1, "Enter on a fitting value goes on");
    // A digit is typed into a number, not taken as a jump to a row.
    type_text(&mut d, "9");
    let screen = frame(&d, 100, 30);
    assert!(screen.contains("⚠ At most 5"), "{screen}");
    assert_eq!(keys(&mut d, &[Key::Enter]), Response::Render);
    assert_eq!(d.tab(), 1, "a value out of bounds is refused");
    keys(&mut d, &[Key::Backspace]);
    type_text(&mut d, "3");
    assert!(!frame(&d, 100, 30).contains("⚠"));
    keys(&mut d, &[Key::Enter]);
    assert_eq!(d.tab(), 2);
    // The default (No) is picked and focused; Yes is one up.
    keys(&mut d, &[Key::Up, Key::Enter]);
    // The colour's default stays: Tab goes on to Submit.
    keys(&mut d, &[Key::Tab]);
    let outcome = match keys(&mut d, &[Key::Enter]) {
        Response::Finished(outcome) => outcome,
        other => panic!("not finished: {other:?}"),
    };
    assert_eq!(
        content(&d, &outcome),
        json!({"name": "Bob", "count": 3, "confirm": true, "color": "red"})
    );
}

#[test]
fn nothing_is_submitted_while_a_required_field_is_empty() {
    let mut d = elicit_form();
    // Straight to Submit: Name and Count are required and empty.
    keys(&mut d, &[Key::BackTab]);
    assert_eq!(keys(&mut d, &[Key::Enter]), Response::Render);
    assert_eq!(d.tab(), 0, "the first field that does not fit is shown");
    assert!(frame(&d, 100, 30).contains("⚠ Required"));
    // An empty required field does not let Enter go on either.
    assert_eq!(keys(&mut d, &[Key::Enter]), Response::Render);
    assert_eq!(d.tab(), 0);
}

#[test]
fn decline_and_esc_end_the_form_differently() {
    let mut d = elicit_form();
    // Name's rows: the typed row, then Decline.
    match keys(&mut d, &[Key::Down, Key::Enter]) {
        Response::Finished(Outcome::ChatRequested { .. }) => {}
        other => panic!("Decline: {other:?}"),
    }
    let mut d = elicit_form();
    match keys(&mut d, &[Key::Esc]) {
        Response::Finished(Outcome::Declined(_)) => {}
        other => panic!("Esc: {other:?}"),
    }
}

#[test]
fn defaults_are_filled_in_and_multi_select_enums_are_checkboxes() {
    let mut d = Dialog::new(questionnaire(json!({"form": {
        "server": "s", "message": "m",
        "schema": {"type": "object", "properties": {
            "city": {"type": "string", "default": "Oslo", "minLength": 2},
            "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "default": ["b"],
                     "minItems": 1, "maxItems": 2},
        }},
    }})));
    assert_eq!(d.tab_state(0).unwrap().draft.text(), "Oslo");
    assert_eq!(d.tab_state(1).unwrap().ticks, [false, true, false]);
    keys(
        &mut d,
        &[
            Key::Tab,
            Key::Char(' '),
            Key::Down,
            Key::Down,
            Key::Char(' '),
        ],
    );
    assert!(frame(&d, 100, 30).contains("⚠ Pick at most 2"));
    keys(&mut d, &[Key::Char(' ')]);
    let outcome = match keys(&mut d, &[Key::Tab, Key::Enter]) {
        Response::Finished(outcome) => outcome,
        other => panic!("not finished: {other:?}"),
    };
    assert_eq!(
        content(&d, &outcome),
        json!({"city": "Oslo", "tags": ["a", "b"]})
    );
}

#[test]
fn a_secret_is_never_on_screen_nor_in_the_record() {
    let mut d = Dialog::new(questionnaire(json!({"form": {
        "server": "s", "message": "Log in",
        "schema": {"type": "object", "properties": {
            "api_token": {"type": "string"},
        }, "required": ["api_token"]},
    }})));
    type_text(&mut d, "hunter22");
    let screen = frame(&d, 100, 30);
    assert!(!screen.contains("hunter22"), "{screen}");
    assert!(screen.contains("••••••••"), "{screen}");
    let outcome = match keys(&mut d, &[Key::Enter]) {
        Response::Finished(outcome) => outcome,
        other => panic!("not finished: {other:?}"),
    };
    let Outcome::Submitted(responses) = &outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(
        responses.answers[0],
        Some(Answer::Custom("hunter22".into()))
    );
    let reply = ask_popup_protocol::envelope::outcome(d.questionnaire(), &outcome, None);
    assert!(reply.contains("hunter22"), "the caller gets it");
    let recorded = form(&d).without_secrets(&reply);
    assert!(!recorded.contains("hunter22"), "{recorded}");
    assert!(recorded.contains("•••"), "{recorded}");
}

#[test]
fn the_submit_tab_hides_secrets_and_names_the_fields_that_do_not_fit() {
    let mut d = Dialog::new(questionnaire(json!({"form": {
        "server": "s", "message": "Sign up",
        "schema": {"type": "object", "properties": {
            "password": {"type": "string"},
            "age": {"type": "integer", "title": "Age", "minimum": 18},
        }, "required": ["password", "age"]},
    }})));
    type_text(&mut d, "hunter22");
    keys(&mut d, &[Key::Enter]);
    type_text(&mut d, "12");
    // The field that does not fit is not marked answered in the tab bar.
    let screen = frame(&d, 100, 30);
    assert!(screen.contains("□ Age *"), "{screen}");
    assert!(screen.contains("A whole number, at least 18"), "{screen}");
    keys(&mut d, &[Key::Esc, Key::Tab]);
    let screen = frame(&d, 100, 30);
    assert!(!screen.contains("hunter22"), "{screen}");
    assert!(screen.contains("→ •••"), "{screen}");
    assert!(screen.contains("⚠ At least 18"), "{screen}");
    assert!(
        screen.contains("⚠ Not sent until these fit: Age *"),
        "{screen}"
    );
}
