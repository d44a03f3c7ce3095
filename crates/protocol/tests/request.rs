//! The request parser: the canonical shape, the aliases, and every rejection in the SPEC's order.

use ask_popup_protocol::envelope::ErrorCode;
use ask_popup_protocol::request::{parse, parse_bytes, RequestError};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{json, Value};

fn opt(label: &str) -> Value {
    json!({"label": label, "description": format!("about {label}")})
}

fn question(text: &str, header: &str, labels: &[&str]) -> Value {
    json!({"question": text, "header": header, "options": labels.iter().map(|l| opt(l)).collect::<Vec<_>>()})
}

fn one(q: Value) -> String {
    json!({ "questions": [q] }).to_string()
}

fn valid() -> Value {
    question("Which database?", "Database", &["Postgres", "SQLite"])
}

fn rejected(payload: &str) -> RequestError {
    match parse(payload) {
        Ok(q) => panic!("expected a rejection, got {q:?}"),
        Err(e) => e,
    }
}

#[test]
fn canonical_shape_is_parsed() {
    let q = parse(
        &json!({"questions":[{"question":"Pick?","header":"H","options":[
            {"label":"A","description":"first","preview":"# A"},
            {"label":"B","description":"second"}],"multiSelect":false}],"timeout":5000})
        .to_string(),
    )
    .unwrap();
    assert_eq!(q.timeout_ms, Some(5000));
    let first = &q.questions[0];
    assert_eq!(first.question, "Pick?");
    assert_eq!(first.header, "H");
    assert!(!first.multi_select);
    assert_eq!(first.options[0].label, "A");
    assert_eq!(first.options[0].description, "first");
    assert_eq!(first.options[0].preview.as_deref(), Some("# A"));
    assert_eq!(first.options[1].preview, None);
}

/// One row per error code: the payload, the code, and the exact text the agent reads.
#[test]
fn every_error_code_has_its_text() {
    let five: Vec<Value> = (0..5)
        .map(|i| question(&format!("Q{i}?"), "H", &["A", "B"]))
        .collect();
    let long_header = "H".repeat(17);
    let long_label = "L".repeat(61);
    let cases: Vec<(String, &str, &str)> = vec![
        (
            "not json".into(),
            "invalid_payload",
            "Error: the questionnaire is not valid JSON (syntax error at line 1 column 2). Send one JSON object such as {\"questions\":[{\"question\":\"…?\",\"header\":\"…\",\"options\":[{\"label\":\"…\",\"description\":\"…\"},{\"label\":\"…\",\"description\":\"…\"}]}]}.",
        ),
        (
            "[1,2]".into(),
            "invalid_payload",
            "Error: the questionnaire must be a JSON object with a \"questions\" array, got an array.",
        ),
        (
            "{}".into(),
            "invalid_payload",
            "Error: questions is required: an array of 1 to 4 question objects.",
        ),
        (
            json!({"questions": "x"}).to_string(),
            "invalid_payload",
            "Error: questions must be an array, got a string.",
        ),
        (
            json!({"questions": [{"question": 3, "options": []}]}).to_string(),
            "invalid_payload",
            "Error: questions[0].question must be a string, got a number.",
        ),
        (
            json!({"questions": [{"question": "Q?", "options": ["A", {"label": ["x"]}]}]}).to_string(),
            "invalid_payload",
            "Error: questions[0].options[1].label must be a string, got an array.",
        ),
        (
            json!({"questions": [{"question": "Q?", "options": ["A", {"description": "d"}]}]}).to_string(),
            "invalid_payload",
            "Error: questions[0].options[1].label is required: a short label of 1 to 5 words.",
        ),
        (
            json!({"questions": [{"question": "Q?", "options": ["A", "B"], "multiSelect": "yes"}]}).to_string(),
            "invalid_payload",
            "Error: questions[0].multiSelect must be true or false, got a string.",
        ),
        (
            json!({"questions": [{"question": "  ", "options": ["A", "B"]}]}).to_string(),
            "invalid_payload",
            "Error: questions[0].question must not be empty.",
        ),
        (
            format!("{{\"questions\":[],\"pad\":\"{}\"}}", "x".repeat(1024 * 1024)),
            "payload_too_large",
            "Error: the questionnaire is 1048601 bytes; at most 1048576 bytes (1 MiB) are allowed. Shorten the previews, descriptions or context.",
        ),
        (
            json!({"questions": []}).to_string(),
            "no_questions",
            "Error: At least one question is required",
        ),
        (
            json!({ "questions": five }).to_string(),
            "too_many_questions",
            "Error: At most 4 questions are allowed per invocation",
        ),
        (
            json!({"questions": [valid(), valid()]}).to_string(),
            "duplicate_question",
            "Error: Question text must be unique within an invocation",
        ),
        (
            one(question("Q?", "H", &["Only"])),
            "empty_options",
            "Error: Each question requires at least 2 options",
        ),
        (
            one(json!({"question": "Q?", "header": "H"})),
            "empty_options",
            "Error: Each question requires at least 2 options",
        ),
        (
            one(question("Q?", "H", &["A", "B", "C", "D", "E"])),
            "too_many_options",
            "Error: At most 4 options are allowed per question (question 1 has 5); the dialog adds \"Type something.\" and \"Chat about this\" itself",
        ),
        (
            one(question("Q?", "H", &["A", "Other"])),
            "reserved_label",
            "Error: Option label is reserved (Other, Type something., Chat about this, Next)",
        ),
        (
            one(question("Q?", "H", &["A", "A"])),
            "duplicate_option_label",
            "Error: Option labels must be unique within a question",
        ),
        (
            one(question("Q?", &long_header, &["A", "B"])),
            "header_too_long",
            "Error: Header \"HHHHHHHHHHHHHHHHH\" of question 1 is 17 characters long; at most 16 are allowed",
        ),
        (
            one(question("Q?", "H", &["A", &long_label])),
            "label_too_long",
            "Error: Option label \"LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL…\" in question 1 is 61 characters long; at most 60 are allowed (1 to 5 words; put details in the description)",
        ),
        (
            json!({"questions": [valid()], "timeout": 999}).to_string(),
            "invalid_timeout",
            "Error: timeout must be an integer number of milliseconds, at least 1000 (got 999). Leave it out to wait until the user answers.",
        ),
        (
            json!({"questions": [valid()], "timeout": "5000"}).to_string(),
            "invalid_timeout",
            "Error: timeout must be an integer number of milliseconds, at least 1000 (got \"5000\"). Leave it out to wait until the user answers.",
        ),
        (
            json!({"questions": [valid()], "timeout": 1500.5}).to_string(),
            "invalid_timeout",
            "Error: timeout must be an integer number of milliseconds, at least 1000 (got 1500.5). Leave it out to wait until the user answers.",
        ),
    ];
    for (payload, code, text) in cases {
        let e = rejected(&payload);
        let shown: String = payload.chars().take(80).collect();
        assert_eq!(e.code().as_str(), code, "code for {shown}");
        assert_eq!(e.to_string(), text, "text for {shown}");
    }
}

#[test]
fn invalid_utf8_is_rejected_with_its_offset() {
    let e = parse_bytes(b"{\"questions\": \"\xff\"}").unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidPayload);
    assert_eq!(
        e.to_string(),
        "Error: the questionnaire is not valid UTF-8 (invalid byte at offset 15). Send one JSON object encoded as UTF-8."
    );
}

#[test]
fn reserved_label_wins_over_duplicate_option_label() {
    let e = rejected(&one(question("Q?", "H", &["Next", "Next"])));
    assert_eq!(e.code(), ErrorCode::ReservedLabel);
}

#[test]
fn every_reserved_label_is_rejected_and_only_on_exact_match() {
    for label in ["Other", "Type something.", "Chat about this", "Next"] {
        let e = rejected(&one(question("Q?", "H", &["A", label])));
        assert_eq!(e.code(), ErrorCode::ReservedLabel, "{label}");
    }
    for label in ["other", "Type something", "Next step", "Others"] {
        assert!(
            parse(&one(question("Q?", "H", &["A", label]))).is_ok(),
            "{label}"
        );
    }
}

/// Faults are reported in the SPEC's order across the whole questionnaire: a later check never
/// wins over an earlier one, whichever question carries it.
#[test]
fn checks_run_in_spec_order_across_questions() {
    let long_header = "H".repeat(20);
    // Question 1 has a long header, question 2 too few options: empty_options comes first.
    let payload = json!({"questions": [
        question("One?", &long_header, &["A", "B"]),
        question("Two?", "H", &["A"]),
    ]})
    .to_string();
    assert_eq!(rejected(&payload).code(), ErrorCode::EmptyOptions);
    // A duplicate question beats empty options.
    let payload =
        json!({"questions": [question("Same?", "H", &["A"]), question("Same?", "H", &["A", "B"])]})
            .to_string();
    assert_eq!(rejected(&payload).code(), ErrorCode::DuplicateQuestion);
    // A bad timeout is the last check.
    let payload =
        json!({"questions": [question("Q?", &long_header, &["A", "B"])], "timeout": 1}).to_string();
    assert_eq!(rejected(&payload).code(), ErrorCode::HeaderTooLong);
    // A wrong type anywhere is reported before counting.
    let mut many: Vec<Value> = (0..10)
        .map(|i| question(&format!("Q{i}?"), "H", &["A", "B"]))
        .collect();
    many.push(json!(42));
    let e = rejected(&json!({ "questions": many }).to_string());
    assert_eq!(
        e.to_string(),
        "Error: questions[10] must be an object, got a number."
    );
}

#[test]
fn header_and_label_limits_count_characters_not_bytes() {
    // 16 CJK characters are 48 bytes but within the limit.
    let header = "数".repeat(16);
    let label = "é".repeat(60);
    assert!(parse(&one(question("Q?", &header, &["A", &label]))).is_ok());
}

#[test]
fn aliases_are_normalised() {
    // pi-ask-user's single question at the top level, options keyed title/text/value/name/option
    // or plain strings, allowMultiple, context, and no header.
    let payload = json!({
        "question": "Which files?",
        "context": "Some **context**",
        "allowMultiple": true,
        "options": [
            {"title": "T", "description": "by title"},
            {"text": "X"},
            {"value": "V"},
            "plain",
        ],
        "timeout": 2000,
    })
    .to_string();
    let q = parse(&payload).unwrap();
    assert_eq!(q.timeout_ms, Some(2000));
    let first = &q.questions[0];
    assert_eq!(first.question, "Which files?");
    assert_eq!(first.header, "Q1");
    assert!(first.multi_select);
    assert_eq!(first.context.as_deref(), Some("Some **context**"));
    let labels: Vec<&str> = first.options.iter().map(|o| o.label.as_str()).collect();
    assert_eq!(labels, ["T", "X", "V", "plain"]);
    assert_eq!(first.options[0].description, "by title");
    assert_eq!(first.options[3].description, "");

    let q = parse(&json!({"questions": [
        {"question": "A?", "options": [{"name": "N"}, {"option": "O"}]},
        {"question": "B?", "header": "", "options": ["x", "y"], "multiSelect": false, "allowMultiple": true},
    ]})
    .to_string())
    .unwrap();
    assert_eq!(q.questions[0].options[0].label, "N");
    assert_eq!(q.questions[0].options[1].label, "O");
    // An empty header falls back too, and multiSelect wins over allowMultiple.
    assert_eq!(q.questions[1].header, "Q2");
    assert!(!q.questions[1].multi_select);
}

#[test]
fn label_key_preference_is_label_first() {
    let q = parse(&one(json!({"question": "Q?", "options": [
        {"title": "T", "label": "L"}, {"name": "N", "value": "V"}]})))
    .unwrap();
    assert_eq!(q.questions[0].options[0].label, "L");
    assert_eq!(q.questions[0].options[1].label, "V");
}

#[test]
fn crlf_and_lone_cr_become_lf_everywhere() {
    let payload = json!({"questions": [{
        "question": "Line one\r\nline two\rthree?",
        "header": "H\r",
        "context": "c\r\nd",
        "options": [
            {"label": "A\r\nB", "description": "x\ry", "preview": "# P\r\n\r\nbody"},
            "B\r"
        ]
    }]})
    .to_string();
    let q = parse(&payload).unwrap();
    let first = &q.questions[0];
    assert_eq!(first.question, "Line one\nline two\nthree?");
    assert_eq!(first.header, "H\n");
    assert_eq!(first.context.as_deref(), Some("c\nd"));
    assert_eq!(first.options[0].label, "A\nB");
    assert_eq!(first.options[0].description, "x\ny");
    assert_eq!(first.options[0].preview.as_deref(), Some("# P\n\nbody"));
    assert_eq!(first.options[1].label, "B\n");
}

#[test]
fn crlf_normalisation_happens_before_uniqueness_checks() {
    let payload = json!({"questions": [question("Q?", "H", &["A\r\n", "A\n"])]}).to_string();
    assert_eq!(rejected(&payload).code(), ErrorCode::DuplicateOptionLabel);
}

#[test]
fn timeout_accepts_whole_numbers_and_null() {
    let with = |t: Value| parse(&json!({"questions": [valid()], "timeout": t}).to_string());
    assert_eq!(with(json!(1000)).unwrap().timeout_ms, Some(1000));
    assert_eq!(with(json!(60000.0)).unwrap().timeout_ms, Some(60000));
    assert_eq!(with(Value::Null).unwrap().timeout_ms, None);
    for bad in [
        json!(-5000),
        json!(0),
        json!(true),
        json!([1000]),
        json!(1e30),
    ] {
        assert_eq!(
            with(bad.clone()).unwrap_err().code(),
            ErrorCode::InvalidTimeout,
            "{bad}"
        );
    }
}

#[test]
fn ten_thousand_questions_are_rejected_without_trouble() {
    let many: Vec<Value> = (0..10_000)
        .map(|i| json!({"question": format!("Q{i}?"), "options": ["A", "B"]}))
        .collect();
    let payload = json!({ "questions": many }).to_string();
    assert!(payload.len() < 1024 * 1024);
    assert_eq!(rejected(&payload).code(), ErrorCode::TooManyQuestions);
}

#[test]
fn huge_strings_are_rejected_as_too_large() {
    let payload =
        json!({"questions": [{"question": "x".repeat(2 * 1024 * 1024), "options": ["a", "b"]}]})
            .to_string();
    assert_eq!(rejected(&payload).code(), ErrorCode::PayloadTooLarge);
    // Just under the limit is fine.
    let preview = "y".repeat(1024 * 1024 - 200);
    let payload =
        one(json!({"question": "Q?", "options": [{"label": "A", "preview": preview}, "B"]}));
    assert!(payload.len() <= 1024 * 1024);
    assert!(parse(&payload).is_ok());
}

#[test]
fn unknown_keys_are_ignored() {
    let payload =
        json!({"questions": [valid()], "displayMode": "overlay", "allowComment": true}).to_string();
    assert!(parse(&payload).is_ok());
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        "\\PC{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("Other"),
            Just("Next"),
            Just("A"),
            Just("B"),
            Just("Q?"),
            Just("\r\n")
        ]
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        let key = prop_oneof![
            Just("questions"),
            Just("question"),
            Just("header"),
            Just("options"),
            Just("label"),
            Just("title"),
            Just("description"),
            Just("preview"),
            Just("multiSelect"),
            Just("allowMultiple"),
            Just("context"),
            Just("timeout"),
            Just("other"),
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..6).prop_map(|kvs| {
                Value::Object(kvs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Random JSON never panics the parser; every answer is a questionnaire or a typed
    /// rejection whose text starts with "Error: ".
    #[test]
    fn random_json_never_panics(value in arb_json()) {
        match parse(&value.to_string()) {
            Ok(q) => {
                prop_assert!((1..=4).contains(&q.questions.len()));
                for question in &q.questions {
                    prop_assert!((2..=4).contains(&question.options.len()));
                }
            }
            Err(e) => prop_assert!(e.to_string().starts_with("Error: ")),
        }
    }

    /// Random bytes never panic the parser either.
    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = parse_bytes(&bytes);
    }

    /// A valid questionnaire wrapped in random questions around it stays parseable or is
    /// rejected, never panics.
    #[test]
    fn random_questions_never_panic(qs in prop::collection::vec(arb_json(), 0..6)) {
        let _ = parse(&json!({ "questions": qs }).to_string());
    }
}

/// A questionnaire in any of the shapes agents send: aliases, missing headers, CR LF, blank
/// contexts and previews.
fn arb_request() -> impl Strategy<Value = Value> {
    let text = prop::sample::select(vec![
        "Which?",
        "A\r\nB?",
        "x",
        "  spaced  ",
        "é ✓ 漢字?",
        "",
        " ",
        "Other",
        "Chat about this",
    ]);
    let option = (
        text.clone(),
        prop::option::of(text.clone()),
        prop::option::of(text.clone()),
        prop::sample::select(vec!["label", "title", "value"]),
        any::<bool>(),
    )
        .prop_map(|(label, description, preview, key, bare)| {
            (label, description, preview, key, bare)
        });
    // Labels are made distinct (with their place), as a valid request's are.
    let options = prop::collection::vec(option, 2..5).prop_map(|options| {
        options
            .into_iter()
            .enumerate()
            .map(|(i, (label, description, preview, key, bare))| {
                let label = format!("{}{label}", i + 1);
                if bare {
                    json!(label)
                } else {
                    json!({key: label, "description": description, "preview": preview})
                }
            })
            .collect::<Vec<_>>()
    });
    let question = (
        text.clone(),
        prop::option::of(text.clone()),
        options,
        prop::option::of(any::<bool>()),
        any::<bool>(),
        prop::option::of(text),
    )
        .prop_map(|(q, header, options, multi, alias, context)| {
            let multi_key = if alias { "allowMultiple" } else { "multiSelect" };
            json!({"question": format!("{q} {}?", options.len()), "header": header, "options": options, multi_key: multi, "context": context})
        });
    (
        prop::collection::vec(question, 1..5),
        prop::option::of(1000u64..100_000),
    )
        .prop_map(|(questions, timeout)| json!({"questions": questions, "timeout": timeout}))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// A questionnaire written out as JSON (how one instance hands a pending request to a
    /// client that attached later) reads back as itself, its timeout aside.
    #[test]
    fn a_questionnaire_written_out_reads_back_the_same(request in arb_request()) {
        if let Ok(q) = parse(&request.to_string()) {
            let mut back = parse(&serde_json::to_string(&q).unwrap()).expect("reads back");
            prop_assert_eq!(back.timeout_ms, None);
            back.timeout_ms = q.timeout_ms;
            prop_assert_eq!(back, q);
        }
    }
}

#[test]
fn the_questionnaires_written_out_are_mostly_valid() {
    // The round trip above is only worth something if most generated requests parse.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = arb_request();
    let valid = (0..200)
        .filter(|_| {
            let request = strategy.new_tree(&mut runner).unwrap().current();
            parse(&request.to_string()).is_ok()
        })
        .count();
    assert!(valid > 100, "only {valid} of 200 generated requests parse");
}
