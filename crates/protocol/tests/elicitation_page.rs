//! A form as the popup asks it: a request's `form` read into one question per field (or
//! refused, with why), read back from its own serialisation, and the answers given read back
//! into the content.

use ask_popup_protocol::elicitation::page::{DECLINE_LABEL, NO, YES};
use ask_popup_protocol::elicitation::Misfit;
use ask_popup_protocol::envelope::{self, Answer, Envelope, ErrorCode, Outcome, Responses};
use ask_popup_protocol::request::{parse, RequestError};
use serde_json::{json, Value};

fn request(schema: Value) -> Value {
    json!({"form": {"server": "shop", "message": "Your order", "schema": schema}})
}

fn order() -> Value {
    request(json!({"type": "object", "properties": {
        "size": {"type": "string", "title": "Size", "oneOf": [
            {"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
        "extras": {"type": "array", "title": "Extras", "items": {"enum": ["egg", "ham"]}},
        "gift": {"type": "boolean", "title": "A gift"},
        "note_for_the_courier": {"type": "string", "title": "A very long title for a note"},
    }, "required": ["size"]}))
}

#[test]
fn each_field_is_a_question_of_its_kind() {
    let q = parse(&order().to_string()).expect("a form the popup takes");
    assert_eq!(q.questions.len(), 4);
    let headers: Vec<&str> = q.questions.iter().map(|q| q.header.as_str()).collect();
    assert_eq!(headers, ["Size *", "Extras", "A gift", "A very long titl"]);
    let labels = |i: usize| -> Vec<&str> {
        q.questions[i]
            .options
            .iter()
            .map(|o| o.label.as_str())
            .collect()
    };
    assert_eq!(labels(0), ["Small", "Large"]);
    assert!(q.questions[1].multi_select);
    assert_eq!(labels(1), ["egg", "ham"]);
    assert_eq!(labels(2), [YES, NO]);
    assert!(labels(3).is_empty(), "a typed field has no options");
    assert_eq!(q.questions[0].question, "Size (required)");
    let context = q.questions[0].context.as_deref().unwrap_or_default();
    assert!(
        context.starts_with("**shop** asks: Your order"),
        "{context}"
    );
    // Serialised, it is the same request.
    let again = parse(&serde_json::to_string(&q).unwrap()).expect("read back");
    assert_eq!(again, q);
    assert_eq!(again.digest(), q.digest());
}

#[test]
fn a_form_the_popup_cannot_show_is_refused_with_why() {
    let many: serde_json::Map<String, Value> = (0..5)
        .map(|i| (format!("f{i}"), json!({"type": "string"})))
        .collect();
    let choices: Vec<String> = (0..10).map(|i| i.to_string()).collect();
    let cases = [
        (
            request(json!({"type": "object", "properties": many})),
            "at most 4 fields",
        ),
        (
            request(json!({"properties": {"c": {"type": "string", "enum": choices}}})),
            "more than 9 choices",
        ),
        (
            request(json!({"properties": {"c": {"type": "string", "oneOf": [
                {"const": "a", "title": "A"}, {"const": "b", "title": "A"}]}}})),
            "two choices of one title",
        ),
        (
            request(json!({"properties": {"o": {"type": "object"}}})),
            "field \"o\"",
        ),
        (json!({"form": {"server": "s"}}), "form.schema is required"),
    ];
    for (payload, why) in cases {
        let refused = parse(&payload.to_string()).expect_err("refused");
        assert!(
            matches!(&refused, RequestError::InvalidForm { detail } if detail.contains(why)),
            "{why}: {refused:?}"
        );
        assert_eq!(refused.code(), ErrorCode::InvalidPayload);
    }
}

#[test]
fn the_answers_read_back_from_the_envelope_are_the_content() {
    let q = parse(&order().to_string()).unwrap();
    let form = q.form.as_ref().unwrap();
    let mut responses = Responses::empty(4);
    responses.answers = vec![
        Some(Answer::Option(1)),
        Some(Answer::Multi {
            ticked: vec![0, 1],
            text: None,
        }),
        Some(Answer::Option(1)),
        Some(Answer::Custom("Ring twice".into())),
    ];
    let line = envelope::outcome(&q, &Outcome::Submitted(responses.clone()), None);
    let read = Envelope::read(&line).expect("an envelope");
    let answers = form.answers(&read.details.answers);
    assert_eq!(answers, responses.answers);
    assert_eq!(
        Value::Object(form.content(&answers).unwrap()),
        json!({"size": "l", "extras": ["egg", "ham"], "gift": false,
               "note_for_the_courier": "Ring twice"})
    );
    // A required field left empty is no content.
    assert_eq!(
        form.content(&[None, None, None, None]),
        Err((0, Misfit::Required))
    );
    assert_eq!(DECLINE_LABEL, "Decline");
}

#[test]
fn a_typed_fields_rules_are_said_before_anything_is_typed() {
    let rules = |property: Value| {
        let q = parse(&request(json!({"properties": {"f": property}})).to_string()).unwrap();
        q.questions[0].context.clone().unwrap_or_default()
    };
    let cases = [
        (
            json!({"type": "integer", "minimum": 1, "maximum": 5}),
            "_A whole number, 1 to 5._",
        ),
        (
            json!({"type": "number", "maximum": 2.5}),
            "_A number, at most 2.5._",
        ),
        (
            json!({"type": "string", "format": "email", "maxLength": 40}),
            "_An email address, at most 40 characters._",
        ),
        (
            json!({"type": "string", "minLength": 2, "maxLength": 2}),
            "_2 characters._",
        ),
        (
            json!({"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 1}),
            "_Pick at least 1._",
        ),
    ];
    for (property, said) in cases {
        let context = rules(property.clone());
        assert!(context.ends_with(said), "{property}: {context}");
    }
    assert!(!rules(json!({"type": "string"})).contains('_'));
}
