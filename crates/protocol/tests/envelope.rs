//! The result envelope, byte for byte, for every way a request can end.

use ask_popup_protocol::envelope::ErrorCode;
use ask_popup_protocol::envelope::{self, Answer, Outcome, Responses};
use ask_popup_protocol::request::{parse, Questionnaire, RequestError};
use serde_json::json;

fn pick() -> Questionnaire {
    parse(
        &json!({"questions": [{"question": "Pick?", "header": "P", "options": ["A", "B"]}]})
            .to_string(),
    )
    .unwrap()
}

fn three() -> Questionnaire {
    parse(
        &json!({"questions": [
            {"question": "Database?", "header": "DB", "options": [
                {"label": "Postgres", "description": "server", "preview": "## Postgres\n\nmature"},
                {"label": "SQLite", "description": "file"}]},
            {"question": "Features?", "header": "Features", "multiSelect": true, "options": ["Auth", "Search", "Export"]},
            {"question": "Name?", "header": "Name", "options": ["foo", "bar"]},
        ]})
        .to_string(),
    )
    .unwrap()
}

fn responses(n: usize) -> Responses {
    Responses::empty(n)
}

#[test]
fn pinned_rpiv_example_global_note_with_newline() {
    let mut r = responses(1);
    r.answers[0] = Some(Answer::Option(0));
    r.global_note = "ship it\nFriday".into();
    assert_eq!(
        envelope::outcome(&pick(), &Outcome::Submitted(r), None),
        concat!(
            r#"{"content":[{"type":"text","text":"User has answered your questions: \"Pick?\"=\"A\". global note: ship it\nFriday. You can now continue with the user's answers in mind."}],"#,
            r#""details":{"answers":[{"questionIndex":0,"question":"Pick?","kind":"option","answer":"A"}],"cancelled":false,"globalNote":"ship it\nFriday"}}"#,
            "\n"
        )
    );
}

#[test]
fn answers_with_preview_notes_multi_and_custom() {
    let mut r = responses(3);
    r.answers[0] = Some(Answer::Option(0));
    r.answers[1] = Some(Answer::Multi {
        ticked: vec![0, 2],
        text: Some("Audit log".into()),
    });
    r.answers[2] = Some(Answer::Custom("baz".into()));
    r.notes[0] = "we know it".into();
    assert_eq!(
        envelope::outcome(&three(), &Outcome::Submitted(r), Some("req-7")),
        concat!(
            r#"{"content":[{"type":"text","text":"User has answered your questions: \"Database?\"=\"Postgres\". selected preview: ## Postgres\n\nmature. user notes: we know it. \"Features?\"=\"Auth, Export, Audit log\". \"Name?\"=\"baz\". You can now continue with the user's answers in mind."}],"#,
            r#""details":{"answers":["#,
            r###"{"questionIndex":0,"question":"Database?","kind":"option","answer":"Postgres","notes":"we know it","preview":"## Postgres\n\nmature"},"###,
            r#"{"questionIndex":1,"question":"Features?","kind":"multi","answer":null,"selected":["Auth","Export","Audit log"]},"#,
            r#"{"questionIndex":2,"question":"Name?","kind":"custom","answer":"baz"}],"#,
            r#""cancelled":false,"requestId":"req-7"}}"#,
            "\n"
        )
    );
}

#[test]
fn empty_answers_read_no_input() {
    let mut r = responses(3);
    r.answers[1] = Some(Answer::Multi {
        ticked: vec![],
        text: None,
    });
    r.answers[2] = Some(Answer::Custom(String::new()));
    let text = envelope::outcome(&three(), &Outcome::Submitted(r), None);
    assert!(
        text.contains(r#"\"Features?\"=\"(no input)\". \"Name?\"=\"(no input)\"."#),
        "{text}"
    );
    // The multi answer has no selected key when nothing was ticked.
    assert!(
        text.contains(r#"{"questionIndex":1,"question":"Features?","kind":"multi","answer":null}"#),
        "{text}"
    );
}

#[test]
fn notes_only_and_unanswered_notes() {
    let mut r = responses(3);
    r.answers[1] = Some(Answer::Multi {
        ticked: vec![1],
        text: None,
    });
    r.notes[0] = "not sure yet".into();
    r.notes[2] = "  ".into(); // blank notes say nothing
    assert_eq!(
        envelope::outcome(&three(), &Outcome::Submitted(r), None),
        concat!(
            r#"{"content":[{"type":"text","text":"User has answered your questions: note on \"Database?\": not sure yet. \"Features?\"=\"Search\". You can now continue with the user's answers in mind."}],"#,
            r#""details":{"answers":[{"questionIndex":1,"question":"Features?","kind":"multi","answer":null,"selected":["Search"]}],"#,
            r#""cancelled":false,"unansweredNotes":[{"questionIndex":0,"question":"Database?","note":"not sure yet"}]}}"#,
            "\n"
        )
    );
}

#[test]
fn a_single_unanswered_note_alone_is_an_answer() {
    let mut r = responses(1);
    r.notes[0] = "ask me later".into();
    assert_eq!(
        envelope::outcome(&pick(), &Outcome::Submitted(r), None),
        concat!(
            r#"{"content":[{"type":"text","text":"User has answered your questions: note on \"Pick?\": ask me later. You can now continue with the user's answers in mind."}],"#,
            r#""details":{"answers":[],"cancelled":false,"unansweredNotes":[{"questionIndex":0,"question":"Pick?","note":"ask me later"}]}}"#,
            "\n"
        )
    );
}

#[test]
fn a_global_note_alone_is_an_answer() {
    let mut r = responses(3);
    r.global_note = "do what you think".into();
    assert_eq!(
        envelope::outcome(&three(), &Outcome::Submitted(r), None),
        concat!(
            r#"{"content":[{"type":"text","text":"User has answered your questions: global note: do what you think. You can now continue with the user's answers in mind."}],"#,
            r#""details":{"answers":[],"cancelled":false,"globalNote":"do what you think"}}"#,
            "\n"
        )
    );
}

#[test]
fn submitting_nothing_reads_as_the_decline() {
    assert_eq!(
        envelope::outcome(&three(), &Outcome::Submitted(responses(3)), None),
        concat!(
            r#"{"content":[{"type":"text","text":"User declined to answer questions"}],"#,
            r#""details":{"answers":[],"cancelled":true}}"#,
            "\n"
        )
    );
}

#[test]
fn decline_keeps_what_was_left_in_details_only() {
    let mut r = responses(3);
    r.answers[2] = Some(Answer::Option(1));
    r.notes[0] = "hm".into();
    r.global_note = "later".into();
    assert_eq!(
        envelope::outcome(&three(), &Outcome::Declined(r), None),
        concat!(
            r#"{"content":[{"type":"text","text":"User declined to answer questions"}],"#,
            r#""details":{"answers":[{"questionIndex":2,"question":"Name?","kind":"option","answer":"bar"}],"#,
            r#""cancelled":true,"globalNote":"later","unansweredNotes":[{"questionIndex":0,"question":"Database?","note":"hm"}]}}"#,
            "\n"
        )
    );
    assert_eq!(
        envelope::outcome(&pick(), &Outcome::Declined(responses(1)), None),
        "{\"content\":[{\"type\":\"text\",\"text\":\"User declined to answer questions\"}],\"details\":{\"answers\":[],\"cancelled\":true}}\n"
    );
}

#[test]
fn chat_on_the_first_question() {
    assert_eq!(
        envelope::outcome(
            &three(),
            &Outcome::ChatRequested {
                question: 0,
                responses: responses(3)
            },
            None
        ),
        concat!(
            r#"{"content":[{"type":"text","text":"User picked \"Chat about this\" on question 1: \"Database?\"."}],"#,
            r#""details":{"answers":[],"cancelled":true,"chatRequested":{"questionIndex":0,"question":"Database?"}}}"#,
            "\n"
        )
    );
}

#[test]
fn chat_on_a_later_question_carries_the_answers_given() {
    let mut r = responses(3);
    r.answers[0] = Some(Answer::Option(1));
    r.notes[0] = "small app".into();
    r.global_note = "thanks".into();
    let text = envelope::outcome(
        &three(),
        &Outcome::ChatRequested {
            question: 2,
            responses: r,
        },
        None,
    );
    assert_eq!(
        text,
        concat!(
            r#"{"content":[{"type":"text","text":"User picked \"Chat about this\" on question 3: \"Name?\". \"Database?\"=\"SQLite\". user notes: small app. global note: thanks."}],"#,
            r#""details":{"answers":[{"questionIndex":0,"question":"Database?","kind":"option","answer":"SQLite","notes":"small app"}],"#,
            r#""cancelled":true,"globalNote":"thanks","chatRequested":{"questionIndex":2,"question":"Name?"}}}"#,
            "\n"
        )
    );
    // The chat text carries no instruction to the model.
    assert!(!text.contains("end your turn") && !text.contains("NOT a decline"));
}

#[test]
fn timed_out_keeps_partial_answers() {
    let mut r = responses(3);
    r.answers[1] = Some(Answer::Multi {
        ticked: vec![0],
        text: None,
    });
    r.notes[2] = "maybe foo".into();
    assert_eq!(
        envelope::outcome(&three(), &Outcome::TimedOut(r), None),
        concat!(
            r#"{"content":[{"type":"text","text":"Questionnaire timed out, the user did not respond within the configured timeout. The user never saw a decline; do NOT treat this as a rejection. Ask the questions as plain chat text instead or retry."}],"#,
            r#""details":{"answers":[{"questionIndex":1,"question":"Features?","kind":"multi","answer":null,"selected":["Auth"]}],"#,
            r#""cancelled":true,"unansweredNotes":[{"questionIndex":2,"question":"Name?","note":"maybe foo"}],"error":"timed_out"}}"#,
            "\n"
        )
    );
}

#[test]
fn host_outcomes_have_their_codes_and_texts() {
    let cases = [
        (ErrorCode::Dismissed, "dismissed", "The question popup was closed before the user answered. The user never saw a decline; do NOT treat this as a rejection. Ask the questions as plain chat text instead or retry."),
        (ErrorCode::Superseded, "superseded", "This request was replaced by a newer request with the same id; the newer call receives the user's answers. Ignore this result."),
        (ErrorCode::Aborted, "aborted", "The question was withdrawn by the agent before the user answered."),
        (ErrorCode::Busy, "busy", "Too many questions are waiting in the popup right now, so this one was not shown. The user never saw a decline; do NOT treat this as a rejection. Ask the questions as plain chat text instead or retry later."),
    ];
    for (code, name, text) in cases {
        let got = envelope::outcome(
            &pick(),
            &Outcome::Host {
                code,
                responses: responses(1),
            },
            Some("abc"),
        );
        let expected = format!(
            "{{\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}],\"details\":{{\"answers\":[],\"cancelled\":true,\"error\":\"{name}\",\"requestId\":\"abc\"}}}}\n"
        );
        assert_eq!(got, expected);
    }
}

#[test]
fn rejections_carry_the_code_and_text() {
    let e = RequestError::NoQuestions;
    assert_eq!(
        envelope::rejection(&e, None),
        "{\"content\":[{\"type\":\"text\",\"text\":\"Error: At least one question is required\"}],\"details\":{\"answers\":[],\"cancelled\":true,\"error\":\"no_questions\"}}\n"
    );
    let e = parse("{\"questions\":[{\"question\":\"Q?\",\"options\":[\"A\",\"A\"]}]}").unwrap_err();
    assert_eq!(
        envelope::rejection(&e, Some("r1")),
        "{\"content\":[{\"type\":\"text\",\"text\":\"Error: Option labels must be unique within a question\"}],\"details\":{\"answers\":[],\"cancelled\":true,\"error\":\"duplicate_option_label\",\"requestId\":\"r1\"}}\n"
    );
}

/// Every rejection envelope is one line of valid JSON whose details say cancelled, no answers.
#[test]
fn every_rejection_envelope_is_one_json_line() {
    let payloads = [
        "nope",
        "[]",
        "{}",
        "{\"questions\":[]}",
        "{\"questions\":[{\"question\":\"Q\\u001b]0;pwned\\u0007?\",\"options\":[\"Other\",\"B\"]}]}",
    ];
    for p in payloads {
        let line = envelope::rejection(&parse(p).unwrap_err(), None);
        assert!(
            line.ends_with('\n') && line.matches('\n').count() == 1,
            "{line}"
        );
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["details"]["cancelled"], true);
        assert_eq!(v["details"]["answers"], json!([]));
        assert!(v["details"]["error"].is_string());
    }
}
