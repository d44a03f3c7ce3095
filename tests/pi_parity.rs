//! The Pi extension's parity fixture, `integrations/pi/test/parity.json`: payloads with what the
//! validator makes of them, and outcomes with the envelope line the plugin writes for them, all
//! from this library. The extension's own tests (`bash scripts/test-pi-extension.sh`) hold its
//! TypeScript validator and envelope builder to these, so no expected result is retyped there.
//! Fails when the committed fixture is not what the library says; `ASK_POPUP_WRITE_SHARED=1`
//! writes it anew (as for `integrations/pi/src/shared.json`).

use ask_popup_protocol::envelope::{self, Answer, ErrorCode, Outcome, Responses};
use ask_popup_protocol::request::{
    parse, Questionnaire, MAX_HEADER_CHARS, MAX_LABEL_CHARS, RESERVED_LABELS,
};
use serde_json::{json, Value};

fn opt(label: &str) -> Value {
    json!({"label": label, "description": format!("about {label}")})
}

fn question(text: &str, header: &str, labels: &[&str]) -> Value {
    json!({"question": text, "header": header, "options": labels.iter().map(|l| opt(l)).collect::<Vec<_>>()})
}

fn one(q: Value) -> Value {
    json!({ "questions": [q] })
}

fn valid() -> Value {
    question("Which database?", "Database", &["Postgres", "SQLite"])
}

/// `valid()` with one field of its question replaced.
fn valid_with(key: &str, value: Value) -> Value {
    let mut q = valid();
    q[key] = value;
    one(q)
}

/// `valid()` with its first option replaced.
fn first_option(option: Value) -> Value {
    let mut q = valid();
    q["options"][0] = option;
    one(q)
}

/// A payload for each rule of the validator, in its order, and for the edges where the extension
/// and the plugin could drift apart: ones Pi's schema check lets through as they are (what the
/// extension's `execute` gets), and ones it stops (the limits the TypeBox schema enforces). Only
/// the tool's own shape and the alias that can pass the schema (`allowMultiple`, an extra
/// property); the other aliases (string options, `title`, a top-level question) never reach the
/// extension.
fn validation_payloads() -> Vec<(String, Value)> {
    let mut cases: Vec<(String, Value)> = vec![
        ("minimal question".into(), one(valid())),
        (
            "four multi-select questions of four options".into(),
            json!({"questions": (1..=4).map(|i| json!({
                "question": format!("Features {i}?"), "header": format!("F{i}"), "multiSelect": true,
                "options": (["Auth", "Search", "Export", "Import"].map(opt)),
            })).collect::<Vec<_>>()}),
        ),
        (
            "multiSelect false".into(),
            valid_with("multiSelect", json!(false)),
        ),
        (
            "line breaks normalised in every string".into(),
            one(json!({
                "question": "Which\r\ndatabase\r?", "header": "D\r\nB",
                "options": [
                    {"label": "Post\r\ngres", "description": "server\r\nside", "preview": "## Postgres\r\n\r\nmature\r"},
                    {"label": "SQLite", "description": "file\rbased"},
                ],
            })),
        ),
        (
            "blank headers become Q<n>".into(),
            json!({"questions": [
                question("First?", "", &["A", "B"]),
                question("Second?", "   ", &["A", "B"]),
                question("Third?", "\u{3000}\u{a0}\t", &["A", "B"]),
                question("Fourth?", "\u{feff}", &["A", "B"]),
            ]}),
        ),
        (
            "blank previews dropped, others kept".into(),
            one(
                json!({"question": "Layout?", "header": "Layout", "options": [
                    {"label": "Grid", "description": "cells", "preview": "  \n\t"},
                    {"label": "List", "description": "rows", "preview": "| a |\n| b |"},
                    {"label": "Cards", "description": "boxes", "preview": "\u{200b}"},
                ]}),
            ),
        ),
        (
            "header of exactly 16 characters, astral ones counted once".into(),
            json!({"questions": [
                question("Plain?", &"h".repeat(MAX_HEADER_CHARS), &["A", "B"]),
                question("Emoji?", &"😀".repeat(MAX_HEADER_CHARS), &["A", "B"]),
            ]}),
        ),
        (
            "label of exactly 60 characters".into(),
            one(question(
                "Long?",
                "Long",
                &[&"l".repeat(MAX_LABEL_CHARS), &"🦀".repeat(MAX_LABEL_CHARS)],
            )),
        ),
        (
            "labels reserved only as written".into(),
            one(question(
                "Near?",
                "Near",
                &["other", "Other ", "Next step", "Chat"],
            )),
        ),
        (
            "the same labels in different questions".into(),
            json!({"questions": [question("One?", "1", &["A", "B"]), question("Two?", "2", &["A", "B"])]}),
        ),
        (
            "labels differing in case".into(),
            one(question("Case?", "Case", &["a", "A"])),
        ),
        (
            "timeout at the minimum".into(),
            json!({"questions": [valid()], "timeout": 1000}),
        ),
        (
            "timeout of a minute".into(),
            json!({"questions": [valid()], "timeout": 60000}),
        ),
        (
            "timeout written as a float without fraction".into(),
            json!({"questions": [valid()], "timeout": 5000.0}),
        ),
        (
            "allowMultiple as multiSelect".into(),
            valid_with("allowMultiple", json!(true)),
        ),
        (
            "multiSelect wins over allowMultiple".into(),
            one(json!({
                "question": "Which?", "header": "Which", "multiSelect": false, "allowMultiple": true,
                "options": [opt("A"), opt("B")],
            })),
        ),
        // Rejections, in the validator's order.
        ("no questions".into(), json!({"questions": []})),
        (
            "five questions".into(),
            json!({"questions": (1..=5).map(|i| question(&format!("Q{i}?"), "H", &["A", "B"])).collect::<Vec<_>>()}),
        ),
        (
            "too many questions before duplicates".into(),
            json!({"questions": (1..=5).map(|_| question("Same?", "H", &["A", "B"])).collect::<Vec<_>>()}),
        ),
        (
            "duplicate question".into(),
            json!({"questions": [question("Same?", "1", &["A", "B"]), question("Same?", "2", &["C", "D"])]}),
        ),
        (
            "duplicate question after line breaks are normalised".into(),
            json!({"questions": [question("Two\r\nlines?", "1", &["A", "B"]), question("Two\nlines?", "2", &["C", "D"])]}),
        ),
        (
            "duplicate question before a reserved label".into(),
            json!({"questions": [question("Same?", "1", &["A", "B"]), question("Same?", "2", &["Other", "D"])]}),
        ),
        ("one option".into(), one(question("Only?", "Only", &["A"]))),
        ("no options".into(), one(question("None?", "None", &[]))),
        (
            "too few options before a reserved label".into(),
            json!({"questions": [question("Reserved?", "1", &["Other", "B"]), question("Few?", "2", &["A"])]}),
        ),
        (
            "five options".into(),
            one(question("Five?", "Five", &["A", "B", "C", "D", "E"])),
        ),
        (
            "reserved label before a duplicate label".into(),
            one(question("Both?", "Both", &["A", "A", "Other"])),
        ),
        (
            "duplicate option label".into(),
            one(question("Twice?", "Twice", &["A", "B", "A"])),
        ),
        (
            "duplicate option label after line breaks are normalised".into(),
            one(question("Twice?", "Twice", &["two\r\nlines", "two\nlines"])),
        ),
        (
            "header of 17 characters".into(),
            one(question(
                "Long?",
                &"h".repeat(MAX_HEADER_CHARS + 1),
                &["A", "B"],
            )),
        ),
        (
            "header of 17 astral characters".into(),
            one(question(
                "Long?",
                &"😀".repeat(MAX_HEADER_CHARS + 1),
                &["A", "B"],
            )),
        ),
        (
            "label of 61 characters".into(),
            one(question(
                "Long?",
                "Long",
                &[&"l".repeat(MAX_LABEL_CHARS + 1), "B"],
            )),
        ),
        (
            "timeout below the minimum".into(),
            json!({"questions": [valid()], "timeout": 999}),
        ),
        (
            "timeout of zero".into(),
            json!({"questions": [valid()], "timeout": 0}),
        ),
        (
            "negative timeout".into(),
            json!({"questions": [valid()], "timeout": -5000}),
        ),
        // Pi's TypeBox Convert cuts the fraction off (1500) before execute.
        (
            "timeout with a fraction".into(),
            json!({"questions": [valid()], "timeout": 1500.5}),
        ),
        // Schema-valid payloads the plugin refuses as invalid_payload (the texts name the
        // field's path), which the extension checks from shared.json's templates.
        (
            "empty question text".into(),
            valid_with("question", json!("")),
        ),
        (
            "blank question text".into(),
            valid_with("question", json!(" \n ")),
        ),
        (
            "empty label".into(),
            first_option(json!({"label": "", "description": "nothing"})),
        ),
        (
            "blank label".into(),
            first_option(json!({"label": "\t ", "description": "nothing"})),
        ),
        (
            "allowMultiple that is not a boolean".into(),
            valid_with("allowMultiple", json!("yes")),
        ),
        (
            "context that is not a string".into(),
            valid_with("context", json!(5)),
        ),
        (
            "allowMultiple of any type beside multiSelect".into(),
            json!({"questions": [{
                "question": "Which?", "header": "Which", "multiSelect": true, "allowMultiple": "yes",
                "options": [opt("A"), opt("B")],
            }]}),
        ),
        // A malformed field is found before any rule is checked, in the order the plugin reads.
        (
            "a blank label beside a reserved one".into(),
            one(question("Reserved?", "R", &["Other", " "])),
        ),
        (
            "a blank question after a blank label".into(),
            json!({"questions": [
                question("First?", "A", &["A", ""]),
                question("", "B", &["A", "B"]),
            ]}),
        ),
        (
            "a blank label in the fifth question".into(),
            json!({"questions": (0..5).map(|i| question(&format!("Q{i}?"), "Q", if i == 4 { &["A", ""] } else { &["A", "B"] })).collect::<Vec<_>>()}),
        ),
    ];
    for label in RESERVED_LABELS {
        cases.push((
            format!("reserved label {label:?}"),
            one(question("Reserved?", "Reserved", &["A", label])),
        ));
    }
    cases
}

/// The normalised questionnaire as the extension's `normalise` returns it (the extension does
/// not carry the `context` alias, which none of these payloads use when they are accepted).
fn questionnaire_json(q: &Questionnaire) -> Value {
    let questions: Vec<Value> = q
        .questions
        .iter()
        .map(|question| {
            assert!(
                question.context.is_none(),
                "context is not in the extension's questionnaire"
            );
            let options: Vec<Value> = question
                .options
                .iter()
                .map(|o| {
                    let mut option = json!({"label": o.label, "description": o.description});
                    if let Some(preview) = &o.preview {
                        option["preview"] = json!(preview);
                    }
                    option
                })
                .collect();
            json!({
                "question": question.question,
                "header": question.header,
                "options": options,
                "multiSelect": question.multi_select,
            })
        })
        .collect();
    let mut value = json!({ "questions": questions });
    if let Some(timeout) = q.timeout_ms {
        value["timeout"] = json!(timeout);
    }
    value
}

fn validation_cases() -> Vec<Value> {
    validation_payloads()
        .into_iter()
        .map(|(name, payload)| match parse(&payload.to_string()) {
            Ok(q) => json!({"name": name, "payload": payload, "accepted": questionnaire_json(&q)}),
            Err(e) => json!({"name": name, "payload": payload, "rejected": {
                "code": e.code().as_str(),
                "text": e.to_string(),
                "line": envelope::rejection(&e, None),
            }}),
        })
        .collect()
}

/// An answer as the extension's `Answer` type writes it.
fn answer_json(answer: &Option<Answer>) -> Value {
    match answer {
        None => Value::Null,
        Some(Answer::Option(option)) => json!({"kind": "option", "option": option}),
        Some(Answer::Custom(text)) => json!({"kind": "custom", "text": text}),
        Some(Answer::Multi { ticked, text: None }) => json!({"kind": "multi", "ticked": ticked}),
        Some(Answer::Multi {
            ticked,
            text: Some(text),
        }) => json!({"kind": "multi", "ticked": ticked, "text": text}),
    }
}

fn responses_json(r: &Responses) -> Value {
    json!({
        "answers": r.answers.iter().map(answer_json).collect::<Vec<_>>(),
        "notes": r.notes,
        "globalNote": r.global_note,
    })
}

/// An outcome as the extension's `Outcome` type writes it (it has no host endings: those come
/// from the command).
fn outcome_json(outcome: &Outcome) -> Value {
    match outcome {
        Outcome::Submitted(r) => json!({"type": "submitted", "responses": responses_json(r)}),
        Outcome::Declined(r) => json!({"type": "declined", "responses": responses_json(r)}),
        Outcome::ChatRequested {
            question,
            responses,
        } => json!({"type": "chat", "question": question, "responses": responses_json(responses)}),
        Outcome::TimedOut(r) => json!({"type": "timedOut", "responses": responses_json(r)}),
        Outcome::Host { .. } => panic!("the extension builds no host endings"),
    }
}

fn pick() -> Value {
    one(question("Pick?", "Pick", &["A", "B"]))
}

/// A question of each kind: single-select with a preview, multi-select, single-select.
fn three() -> Value {
    json!({"questions": [
        {"question": "Database?", "header": "DB", "options": [
            {"label": "Postgres", "description": "server", "preview": "## Postgres\n\nmature"},
            {"label": "SQLite", "description": "file"}]},
        {"question": "Features?", "header": "Features", "multiSelect": true,
         "options": (["Auth", "Search", "Export"].map(opt))},
        {"question": "Name?", "header": "Name", "options": (["foo", "bar"].map(opt))},
    ]})
}

/// Responses for `n` questions, changed by `fill`.
fn responses(n: usize, fill: impl FnOnce(&mut Responses)) -> Responses {
    let mut r = Responses::empty(n);
    fill(&mut r);
    r
}

fn envelope_outcomes() -> Vec<(&'static str, Value, Outcome, Option<&'static str>)> {
    let partial = |r: &mut Responses| {
        r.answers[0] = Some(Answer::Option(1));
        r.notes[2] = "later".into();
    };
    vec![
        (
            "one pick",
            pick(),
            Outcome::Submitted(responses(1, |r| r.answers[0] = Some(Answer::Option(1)))),
            None,
        ),
        (
            "a pick with its preview",
            three(),
            Outcome::Submitted(responses(3, |r| r.answers[0] = Some(Answer::Option(0)))),
            Some("call_1"),
        ),
        (
            "every question answered, one of each kind",
            three(),
            Outcome::Submitted(responses(3, |r| {
                r.answers[0] = Some(Answer::Option(1));
                r.answers[1] = Some(Answer::Multi {
                    ticked: vec![0, 2],
                    text: None,
                });
                r.answers[2] = Some(Answer::Custom("bazz".into()));
            })),
            Some("toolu_01"),
        ),
        (
            "multi-select ticks and typed text",
            three(),
            Outcome::Submitted(responses(3, |r| {
                r.answers[1] = Some(Answer::Multi {
                    ticked: vec![1],
                    text: Some("CSV too".into()),
                })
            })),
            None,
        ),
        (
            "multi-select with only typed text",
            three(),
            Outcome::Submitted(responses(3, |r| {
                r.answers[1] = Some(Answer::Multi {
                    ticked: vec![],
                    text: Some("none of these".into()),
                })
            })),
            None,
        ),
        (
            "multi-select with nothing ticked and blank text",
            three(),
            Outcome::Submitted(responses(3, |r| {
                r.answers[1] = Some(Answer::Multi {
                    ticked: vec![],
                    text: Some("  ".into()),
                })
            })),
            None,
        ),
        (
            "typed free text",
            pick(),
            Outcome::Submitted(responses(1, |r| {
                r.answers[0] = Some(Answer::Custom(
                    "MySQL, \"we have it\" already\nfor now".into(),
                ))
            })),
            None,
        ),
        (
            "empty typed text",
            pick(),
            Outcome::Submitted(responses(1, |r| {
                r.answers[0] = Some(Answer::Custom("".into()))
            })),
            None,
        ),
        (
            "notes on answered questions",
            three(),
            Outcome::Submitted(responses(3, |r| {
                r.answers[0] = Some(Answer::Option(0));
                r.answers[1] = Some(Answer::Multi {
                    ticked: vec![2],
                    text: None,
                });
                r.notes[0] = "keep it small".into();
                r.notes[1] = "and fast".into();
            })),
            None,
        ),
        (
            "a global note with a line break",
            pick(),
            Outcome::Submitted(responses(1, |r| {
                r.answers[0] = Some(Answer::Option(0));
                r.global_note = "ship it\nFriday".into();
            })),
            None,
        ),
        (
            "a note on an unanswered question",
            three(),
            Outcome::Submitted(responses(3, |r| {
                r.answers[0] = Some(Answer::Option(1));
                r.notes[1] = "ask me later".into();
            })),
            None,
        ),
        (
            "only a global note",
            pick(),
            Outcome::Submitted(responses(1, |r| r.global_note = "no opinion".into())),
            None,
        ),
        (
            "notes of every Unicode space read as nothing",
            pick(),
            Outcome::Submitted(responses(1, |r| {
                r.notes[0] = "\t\n\u{b}\u{c}\r \u{85}\u{a0}\u{1680}\u{2000}\u{200a}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}".into();
                r.global_note = " \u{a0}\n".into();
            })),
            None,
        ),
        (
            "a zero-width note is not blank",
            pick(),
            Outcome::Submitted(responses(1, |r| r.notes[0] = "\u{feff}\u{200b}".into())),
            None,
        ),
        (
            "characters JSON escapes",
            one(
                json!({"question": "Tab\there \"quoted\" back\\slash?", "header": "Esc", "options": [
                {"label": "bell\u{7}esc\u{1b}", "description": "d"},
                {"label": "del\u{7f} ls\u{2028}ps\u{2029} 🦀 é", "description": "d"}]}),
            ),
            Outcome::Submitted(responses(1, |r| {
                r.answers[0] = Some(Answer::Option(1));
                r.notes[0] = "nul\u{0} bs\u{8} ff\u{c} cr\r".into();
            })),
            Some("id \"with\" quotes"),
        ),
        (
            "line breaks normalised from the payload",
            one(
                json!({"question": "Which\r\ndatabase?", "header": "DB", "options": [
                {"label": "Post\r\ngres", "description": "d", "preview": "a\r\nb"},
                {"label": "SQLite", "description": "d"}]}),
            ),
            Outcome::Submitted(responses(1, |r| r.answers[0] = Some(Answer::Option(0)))),
            None,
        ),
        (
            "declined, answers kept in the details",
            three(),
            Outcome::Declined(responses(3, |r| {
                r.answers[0] = Some(Answer::Option(0));
                r.notes[0] = "maybe".into();
                r.notes[2] = "unsure".into();
                r.global_note = "not now".into();
            })),
            Some("call_2"),
        ),
        (
            "declined with nothing",
            three(),
            Outcome::Declined(Responses::empty(3)),
            None,
        ),
        (
            "submitted with nothing reads as declined",
            three(),
            Outcome::Submitted(Responses::empty(3)),
            Some("call_3"),
        ),
        (
            "chat requested with partial answers",
            three(),
            Outcome::ChatRequested {
                question: 1,
                responses: responses(3, |r| {
                    partial(r);
                    r.global_note = "see chat".into();
                }),
            },
            Some("call_4"),
        ),
        (
            "chat requested with nothing else",
            pick(),
            Outcome::ChatRequested {
                question: 0,
                responses: Responses::empty(1),
            },
            None,
        ),
        (
            "timed out with partial answers",
            three(),
            Outcome::TimedOut(responses(3, partial)),
            Some("call_5"),
        ),
        (
            "timed out with nothing",
            json!({"questions": [question("Pick?", "Pick", &["A", "B"])], "timeout": 1000}),
            Outcome::TimedOut(Responses::empty(1)),
            None,
        ),
    ]
}

fn envelope_cases() -> Vec<Value> {
    envelope_outcomes()
        .into_iter()
        .map(|(name, payload, outcome, request_id)| {
            let q = parse(&payload.to_string()).expect("the envelope cases' payloads are valid");
            let mut case =
                json!({"name": name, "payload": payload, "outcome": outcome_json(&outcome)});
            if let Some(id) = request_id {
                case["requestId"] = json!(id);
            }
            case["line"] = json!(envelope::outcome(&q, &outcome, request_id));
            case
        })
        .collect()
}

/// The endings the extension writes without a questionnaire (`rejection(shared.errors.…)`),
/// as the command writes them for a caller that gave no id.
fn error_cases() -> Vec<Value> {
    [ErrorCode::NoUi, ErrorCode::NoCustomUi]
        .into_iter()
        .map(|code| json!({"code": code.as_str(), "line": envelope::host_error(code, None)}))
        .collect()
}

/// Lines `ask-popup ask --id call_9` prints for endings other than answers: the extension hands
/// them on as they are (or asks in Pi's own dialogs after the popup-unavailable ones).
fn command_lines() -> Vec<Value> {
    let id = Some("call_9");
    let mut lines: Vec<Value> = [
        ErrorCode::Dismissed,
        ErrorCode::Busy,
        ErrorCode::NoReply,
        ErrorCode::ZellijNotFound,
        ErrorCode::NoUi,
        ErrorCode::Aborted,
        ErrorCode::Superseded,
    ]
    .into_iter()
    .map(|code| json!({"name": code.as_str(), "line": envelope::host_error(code, id)}))
    .collect();
    let invalid = parse(&valid_with("question", json!("")).to_string())
        .expect_err("an empty question is rejected");
    lines.push(json!({"name": "invalid_payload", "line": envelope::rejection(&invalid, id)}));
    lines
}

fn fixture() -> String {
    let fixture = json!({
        "about": "GENERATED by tests/pi_parity.rs from the Rust library; write it anew with `ASK_POPUP_WRITE_SHARED=1 cargo test --test pi_parity`",
        "validation": validation_cases(),
        "envelopes": envelope_cases(),
        "errors": error_cases(),
        "commandLines": command_lines(),
    });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&fixture).expect("the fixture is JSON")
    )
}

#[test]
fn the_pi_extensions_parity_fixture_is_current() {
    let current = ask_popup_protocol::tool::generated_file_is_current(
        "integrations/pi/test/parity.json",
        &fixture(),
        "cargo test --test pi_parity",
    );
    assert_eq!(current, Ok(()));
}

#[test]
fn every_rule_the_extension_is_held_to_has_a_case() {
    let codes: Vec<String> = validation_cases()
        .iter()
        .map(|case| match case["rejected"]["code"].as_str() {
            Some(code) => code.to_owned(),
            None => "accepted".to_owned(),
        })
        .collect();
    for code in [
        "accepted",
        "no_questions",
        "too_many_questions",
        "duplicate_question",
        "empty_options",
        "too_many_options",
        "reserved_label",
        "duplicate_option_label",
        "header_too_long",
        "label_too_long",
        "invalid_timeout",
        "invalid_payload",
    ] {
        assert!(codes.iter().any(|c| c == code), "no case ends in {code}");
    }
}

/// The readers' side of the fixture: every envelope line the Pi extension's reader hands on
/// unchanged (`integrations/pi/test/command.test.ts`) reads back through the library's one
/// envelope type, and writes out again byte for byte.
#[test]
fn every_envelope_of_the_fixture_reads_back_as_itself() {
    let cases = [envelope_cases(), error_cases(), command_lines()].concat();
    assert!(cases.len() > 20);
    for case in cases {
        let line = case["line"].as_str().expect("a line");
        let read = envelope::Envelope::read(line).unwrap_or_else(|| panic!("not read: {line}"));
        let written = format!("{}\n", serde_json::to_string(&read).expect("JSON"));
        assert_eq!(written, line, "{}", case["name"]);
    }
}
