//! MCP elicitation forms: every schema type and rule, the content sent back, and Claude Code's
//! `Elicitation` hook's input and output as Claude Code 2.1.332 reads and writes them.

use ask_popup_protocol::elicitation::{
    Choice, Form, FormError, HookInput, Kind, Misfit, TextFormat,
};
use serde_json::{json, Value};

/// The form the MCP Python SDK renders for a model with a name, a bounded count, a boolean
/// and an enum (as Claude Code hands it to the hook).
fn prefs() -> Value {
    json!({
        "properties": {
            "name": {"type": "string", "description": "Your name", "title": "Name"},
            "count": {"type": "integer", "minimum": 1, "maximum": 5, "description": "How many (1-5)"},
            "confirm": {"type": "boolean", "default": false, "description": "Really?"},
            "color": {"type": "string", "enum": ["red", "green", "blue"], "default": "red"}
        },
        "required": ["name", "count"],
        "title": "Prefs",
        "type": "object"
    })
}

fn field(schema: Value) -> ask_popup_protocol::elicitation::Field {
    let form =
        Form::parse(&json!({"type": "object", "properties": {"f": schema}, "required": ["f"]}))
            .expect("a form");
    form.fields.into_iter().next().expect("one field")
}

#[test]
fn a_form_reads_each_field_with_its_title_rules_default_and_whether_it_is_required() {
    let form = Form::parse(&prefs()).expect("the form");
    let names: Vec<&str> = form.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["name", "count", "confirm", "color"]);
    let [name, count, confirm, color] = &form.fields[..] else {
        panic!("four fields")
    };
    assert_eq!((name.title.as_str(), name.required), ("Name", true));
    assert_eq!(name.description.as_deref(), Some("Your name"));
    assert_eq!((count.title.as_str(), count.required), ("count", true));
    assert_eq!(
        count.kind,
        Kind::Number {
            integer: true,
            minimum: Some(1.0),
            maximum: Some(5.0),
            default: None
        }
    );
    assert_eq!(
        confirm.kind,
        Kind::Boolean {
            default: Some(false)
        }
    );
    assert!(!confirm.required);
    assert_eq!(confirm.default_value(), Some(json!(false)));
    let titles: Vec<&str> = match &color.kind {
        Kind::Choice { choices, .. } => choices.iter().map(|c| c.title.as_str()).collect(),
        other => panic!("{other:?}"),
    };
    assert_eq!(titles, ["red", "green", "blue"]);
    assert_eq!(color.default_value(), Some(json!("red")));
}

#[test]
fn what_the_popup_cannot_ask_is_refused_with_why() {
    let form =
        |properties: Value| Form::parse(&json!({"type": "object", "properties": properties}));
    assert_eq!(
        Form::parse(&json!({"type": "object"})),
        Err(FormError::NotAnObject)
    );
    assert_eq!(form(json!({})), Err(FormError::NoFields));
    let many: serde_json::Map<String, Value> = (0..33)
        .map(|i| (format!("f{i}"), json!({"type": "boolean"})))
        .collect();
    assert_eq!(form(Value::Object(many)), Err(FormError::TooManyFields));
    for (schema, why) in [
        (
            json!({"type": "object"}),
            "not a string, number, integer, boolean or array of choices",
        ),
        (
            json!({}),
            "not a string, number, integer, boolean or array of choices",
        ),
        (json!({"type": "array"}), "an array without items"),
        (
            json!({"type": "array", "items": {"type": "string"}}),
            "an array whose items are not choices",
        ),
        (
            json!({"type": "string", "enum": []}),
            "an enum without choices",
        ),
        (
            json!({"type": "string", "enum": [1, 2]}),
            "an enum value that is not a string",
        ),
        (
            json!({"type": "string", "oneOf": [{"title": "x"}]}),
            "a choice without a string const",
        ),
    ] {
        assert_eq!(
            form(json!({ "f": schema })),
            Err(FormError::Field("f".into(), why)),
            "{schema}"
        );
    }
}

#[test]
fn enums_show_their_titles_and_return_their_values() {
    let legacy =
        field(json!({"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]}));
    let titled = field(json!({"type": "string", "oneOf": [
        {"const": "s", "title": "Small"}, {"const": "m", "title": "Medium"}]}));
    let expected = vec![
        Choice {
            value: "s".into(),
            title: "Small".into(),
        },
        Choice {
            value: "m".into(),
            title: "Medium".into(),
        },
    ];
    for f in [&legacy, &titled] {
        assert_eq!(
            f.kind,
            Kind::Choice {
                choices: expected.clone(),
                default: None
            }
        );
        assert_eq!(f.check_value(&json!("m")), Ok(()));
        assert_eq!(f.check_value(&json!("Medium")), Err(Misfit::NotAChoice));
    }
    // A default that is no choice is not one.
    let f = field(json!({"type": "string", "enum": ["a", "b"], "default": "c"}));
    assert_eq!(f.default_value(), None);
}

#[test]
fn multi_select_enums_check_what_is_picked_and_how_many() {
    for items in [
        json!({"type": "string", "enum": ["a", "b", "c"]}),
        json!({"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}, {"const": "c", "title": "C"}]}),
    ] {
        let f = field(
            json!({"type": "array", "items": items, "minItems": 1, "maxItems": 2, "default": ["a"]}),
        );
        assert_eq!(f.default_value(), Some(json!(["a"])));
        assert_eq!(f.check_value(&json!(["a", "c"])), Ok(()));
        assert_eq!(f.check_value(&json!([])), Err(Misfit::TooFewPicked(1)));
        assert_eq!(
            f.check_value(&json!(["a", "b", "c"])),
            Err(Misfit::TooManyPicked(2))
        );
        assert_eq!(f.check_value(&json!(["d"])), Err(Misfit::NotAChoice));
        assert_eq!(f.check_value(&json!("a")), Err(Misfit::NotAChoice));
    }
}

#[test]
fn text_is_checked_as_it_is_typed() {
    let f = field(json!({"type": "string", "minLength": 2, "maxLength": 4}));
    assert_eq!(f.typed(""), Err(Misfit::Required));
    assert_eq!(f.typed("a"), Err(Misfit::TooShort(2)));
    assert_eq!(f.typed("ab"), Ok(Some(json!("ab"))));
    // Characters, not bytes.
    assert_eq!(f.typed("éééé"), Ok(Some(json!("éééé"))));
    assert_eq!(f.typed("abcde"), Err(Misfit::TooLong(4)));
    assert_eq!(Misfit::TooShort(2).to_string(), "At least 2 characters");
    // Optional: empty is no value.
    let optional = Form::parse(&json!({"properties": {"f": {"type": "string"}}}))
        .unwrap()
        .fields
        .remove(0);
    assert_eq!(optional.typed(""), Ok(None));
}

#[test]
fn each_string_format_takes_what_it_names_and_refuses_the_rest() {
    // (format, its kind, texts it takes, texts it refuses, why)
    type Case = (
        &'static str,
        TextFormat,
        &'static [&'static str],
        &'static [&'static str],
        Misfit,
    );
    let table: [Case; 4] = [
        (
            "email",
            TextFormat::Email,
            &["ann@example.com", "a.b+c@mail.example.org"],
            &[
                "ann",
                "ann@",
                "@example.com",
                "ann@example",
                "ann @example.com",
                "ann@example..com",
            ],
            Misfit::NotEmail,
        ),
        (
            "uri",
            TextFormat::Uri,
            &[
                "https://example.com/a?b=c",
                "mailto:ann@example.com",
                "urn:isbn:0451450523",
            ],
            &[
                "example.com",
                "https://exa mple.com",
                "1http://x",
                "https:",
                "://x",
            ],
            Misfit::NotUri,
        ),
        (
            "date",
            TextFormat::Date,
            &["2026-12-06", "2024-02-29", "2000-02-29"],
            &[
                "2026-13-01",
                "2026-02-29",
                "1900-02-29",
                "2026-1-01",
                "2026-12-32",
                "06/12/2026",
                "2026-12-06T10:00:00Z",
            ],
            Misfit::NotDate,
        ),
        (
            "date-time",
            TextFormat::DateTime,
            &[
                "2026-12-06T10:00:00Z",
                "2026-12-06T10:00:00.123+01:00",
                "2026-12-06t23:59:60z",
            ],
            &[
                "2026-12-06",
                "2026-12-06T10:00Z",
                "2026-12-06T24:00:00Z",
                "2026-12-06T10:00:00",
                "2026-12-06T10:00:00+1:00",
                "2026-12-06T10:00:00.Z",
            ],
            Misfit::NotDateTime,
        ),
    ];
    for (name, format, good, bad, misfit) in table {
        let f = field(json!({"type": "string", "format": name}));
        assert!(
            matches!(f.kind, Kind::Text { format: Some(x), .. } if x == format),
            "{name}"
        );
        for text in good {
            assert_eq!(f.typed(text), Ok(Some(json!(text))), "{name}: {text}");
        }
        for text in bad {
            assert_eq!(f.typed(text), Err(misfit.clone()), "{name}: {text}");
        }
    }
    // A format with no rule here checks nothing, and is kept as written.
    let f = field(json!({"type": "string", "format": "hostname"}));
    assert_eq!(f.typed("any thing"), Ok(Some(json!("any thing"))));
    assert_eq!(f.format.as_deref(), Some("hostname"));
}

#[test]
fn numbers_are_checked_against_their_type_and_bounds_as_they_are_typed() {
    let count = field(json!({"type": "integer", "minimum": 1, "maximum": 5}));
    assert_eq!(count.typed("3"), Ok(Some(json!(3))));
    assert_eq!(count.typed(" 5 "), Ok(Some(json!(5))));
    assert_eq!(count.typed("0"), Err(Misfit::BelowMinimum("1".into())));
    assert_eq!(count.typed("6"), Err(Misfit::AboveMaximum("5".into())));
    assert_eq!(count.typed("2.5"), Err(Misfit::NotInteger));
    assert_eq!(count.typed("three"), Err(Misfit::NotNumber));
    assert_eq!(count.typed(""), Err(Misfit::Required));
    assert_eq!(Misfit::AboveMaximum("5".into()).to_string(), "At most 5");
    let ratio = field(json!({"type": "number", "minimum": -1.5, "maximum": 0.5}));
    assert_eq!(ratio.typed("-1.5"), Ok(Some(json!(-1.5))));
    assert_eq!(ratio.typed("0"), Ok(Some(json!(0))));
    assert_eq!(ratio.typed("0.25"), Ok(Some(json!(0.25))));
    assert_eq!(ratio.typed("-2"), Err(Misfit::BelowMinimum("-1.5".into())));
    for not_a_number in ["NaN", "inf", "-infinity", "1e400", "0x10"] {
        assert_eq!(
            ratio.typed(not_a_number),
            Err(Misfit::NotNumber),
            "{not_a_number}"
        );
    }
    // A default that breaks a bound is not offered.
    let f = field(json!({"type": "integer", "minimum": 1, "default": 0}));
    assert_eq!(f.default_value(), None);
    let f = field(json!({"type": "integer", "minimum": 1, "default": 2}));
    assert_eq!(f.default_value(), Some(json!(2)));
}

#[test]
fn the_content_holds_what_fits_and_nothing_the_schema_refuses() {
    let form = Form::parse(&prefs()).unwrap();
    let content = form
        .content(&[
            Some(json!("Bob")),
            Some(json!(3)),
            Some(json!(true)),
            Some(json!("blue")),
        ])
        .unwrap();
    assert_eq!(
        Value::Object(content),
        json!({"name": "Bob", "count": 3, "confirm": true, "color": "blue"})
    );
    // Optional fields left empty are left out.
    let content = form
        .content(&[Some(json!("Bob")), Some(json!(1)), None, None])
        .unwrap();
    assert_eq!(Value::Object(content), json!({"name": "Bob", "count": 1}));
    // A required field left empty, a value out of bounds, a value of another type: refused,
    // naming the field.
    assert_eq!(
        form.content(&[None, Some(json!(1))]),
        Err((0, Misfit::Required))
    );
    assert_eq!(
        form.content(&[Some(json!("Bob")), Some(json!(9))]),
        Err((1, Misfit::AboveMaximum("5".into())))
    );
    assert_eq!(
        form.content(&[Some(json!("Bob")), Some(json!(1.5))]),
        Err((1, Misfit::NotInteger))
    );
    assert_eq!(
        form.content(&[Some(json!("Bob")), Some(json!(1)), Some(json!("yes"))]),
        Err((2, Misfit::NotAChoice))
    );
}

#[test]
fn secret_looking_fields_are_known_by_their_format_or_name() {
    let secret = |name: &str, schema: Value| {
        Form::parse(&json!({"properties": { name: schema }}))
            .unwrap()
            .fields[0]
            .is_secret()
    };
    let text = json!({"type": "string"});
    for name in [
        "password",
        "Password",
        "db_password",
        "apiKey",
        "api_key",
        "GITHUB_TOKEN",
        "client_secret",
        "passphrase",
        "credentials",
    ] {
        assert!(secret(name, text.clone()), "{name}");
    }
    assert!(secret(
        "value",
        json!({"type": "string", "format": "password"})
    ));
    for name in ["name", "email", "count", "path", "tokenizer_kind_x"] {
        // (A name that merely contains a secret's word counts: safer to leave it out.)
        assert_eq!(secret(name, text.clone()), name.contains("token"), "{name}");
    }
}

#[test]
fn secret_looking_fields_are_known_by_the_words_of_their_name_or_title() {
    let secret = |name: &str, title: Option<&str>| {
        let mut property = json!({"type": "string"});
        if let Some(title) = title {
            property["title"] = json!(title);
        }
        Form::parse(&json!({"properties": { name: property }}))
            .unwrap()
            .fields[0]
            .is_secret()
    };
    // The short words count as words of their own (split at `_`, `-`, spaces, camelCase and
    // digits), alone or plural; the long ones inside a word too; `api key` and `private key`
    // as two words.
    for name in [
        "pin",
        "PIN",
        "card_pin",
        "pinCode",
        "PINCode",
        "user-pin",
        "pin2",
        "PINs",
        "otp",
        "OTP_CODE",
        "pwd",
        "dbPwd",
        "passcode",
        "private_key",
        "privateKey",
        "PRIVATE_KEY",
        "sshPrivateKey",
        "APIKey",
        "openai-api-key",
    ] {
        assert!(secret(name, None), "{name}");
    }
    for title in [
        "PIN code",
        "Your PIN",
        "Bank card PIN",
        "One-time password (OTP)",
        "Private key",
        "API key",
        "Passcode",
        "Secret",
        "Access token",
    ] {
        assert!(secret("value", Some(title)), "{title}");
    }
    for name in [
        "spinner",
        "pinned_version",
        "opinion",
        "shipping",
        "hotpot",
        "api_url",
        "keyboard",
    ] {
        assert!(!secret(name, None), "{name}");
    }
    for title in [
        "Spinner speed",
        "Pinned version",
        "Pick an option",
        "API endpoint",
        "Private notes",
        "Keyboard layout",
        "Send to Ken",
    ] {
        assert!(!secret("value", Some(title)), "{title}");
    }
}

#[test]
fn others_are_shown_a_reply_with_each_secret_hidden_and_the_rest_as_it_came() {
    use ask_popup_protocol::elicitation::answers::{shown_to_others, HIDDEN};
    use ask_popup_protocol::envelope::{outcome, Answer, Outcome, Responses};
    let form = json!({"form": {"server": "s", "message": "m", "schema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name"},
            "secret_scopes": {"type": "array", "items": {"enum": ["Read", "Write"]}},
        },
    }}});
    let asked = ask_popup_protocol::request::parse(&form.to_string()).expect("a form");
    let mut responses = Responses::empty(2);
    responses.answers = vec![
        Some(Answer::Custom("Bob".into())),
        Some(Answer::Multi {
            ticked: vec![0, 1],
            text: None,
        }),
    ];
    let reply = outcome(&asked, &Outcome::Submitted(responses), Some("r"));
    assert!(reply.contains("Read, Write"), "the caller gets it: {reply}");
    let shown = shown_to_others(&asked, &reply);
    assert!(
        !shown.contains("Read") && !shown.contains("Write"),
        "{shown}"
    );
    let shown: Value = serde_json::from_str(&shown).unwrap();
    let answers = &shown["details"]["answers"];
    assert_eq!(answers[0]["answer"], "Bob");
    assert_eq!(answers[1]["selected"], json!([HIDDEN]));
    let text = shown["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(&format!("=\"{HIDDEN}\"")), "{text}");
    assert_eq!(shown["details"]["requestId"], "r");
    // A questionnaire with no secret in it: the reply as it came.
    let plain = ask_popup_protocol::request::parse(
        r#"{"questions":[{"question":"Pick?","header":"H","options":["A","B"]}]}"#,
    )
    .unwrap();
    assert!(matches!(
        shown_to_others(&plain, &reply),
        std::borrow::Cow::Borrowed(r) if r == reply
    ));
}

#[test]
fn the_hook_reads_claude_codes_input_for_a_form_and_for_a_url() {
    // As Claude Code 2.1.332 writes it (the common fields, then the event's).
    let form = json!({
        "session_id": "3c72", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp/p", "prompt_id": "6e8f",
        "hook_event_name": "Elicitation", "mcp_server_name": "prefs", "message": "Please fill in your preferences",
        "mode": "form", "requested_schema": prefs()
    });
    assert_eq!(
        HookInput::parse(&form.to_string()),
        Some(HookInput {
            server: "prefs".into(),
            message: "Please fill in your preferences".into(),
            schema: Some(prefs()),
            url: None,
        })
    );
    let url = json!({
        "session_id": "3c72", "hook_event_name": "Elicitation", "mcp_server_name": "auth",
        "message": "Sign in", "mode": "url", "url": "https://example.com/auth", "elicitation_id": "el-1"
    });
    assert_eq!(
        HookInput::parse(&url.to_string()),
        Some(HookInput {
            server: "auth".into(),
            message: "Sign in".into(),
            schema: None,
            url: Some("https://example.com/auth".into()),
        })
    );
    // (Without a mode, a form: MCP's default.)
    let mut no_mode = form.clone();
    no_mode.as_object_mut().unwrap().remove("mode");
    assert!(HookInput::parse(&no_mode.to_string())
        .unwrap()
        .schema
        .is_some());
    assert_eq!(
        HookInput::parse(r#"{"hook_event_name":"PreToolUse"}"#),
        None
    );
    assert_eq!(HookInput::parse("not json"), None);
}
