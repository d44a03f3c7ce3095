//! End-to-end tests: the built plugin in a real Zellij 0.45.1 with a client attached in tmux,
//! reached only through `zellij pipe` and `zellij action`, as agents and users reach it.
//!
//! Needs zellij 0.45.1, tmux and `target/wasm32-wasip1/plugin/ask-popup.wasm`; the harness
//! fails (never skips) with how to get whichever is missing.

mod agents;
mod browser;
mod claude;
mod command;
mod desktop;
mod dialog;
mod faults;
mod harness;
mod history;
mod hosting;
mod http;
mod install;
mod mcp;
mod model;
mod opencode;
mod phone;
mod pi;
mod release;
mod remote;
mod sessions;
mod soak;
mod tabs;
mod web;

use ask_popup_protocol::envelope::{self, Outcome, Responses};
use ask_popup_protocol::request;
use harness::Zellij;
use std::process::Output;
use std::time::Duration;

/// A rejection or an immediate answer: no user involved, so it comes at once.
const AT_ONCE: Duration = Duration::from_secs(20);

const ONE_QUESTION: &str = r#"{"questions":[{"question":"Which database?","header":"DB","options":[{"label":"Postgres","description":"Relational"},{"label":"SQLite","description":"Embedded"}]}]}"#;

/// The envelope the current plugin answers a valid questionnaire with.
fn declined(payload: &str, request_id: Option<&str>) -> String {
    let questionnaire = request::parse(payload).expect("test payload is valid");
    let responses = Responses::empty(questionnaire.questions.len());
    envelope::outcome(&questionnaire, &Outcome::Declined(responses), request_id)
}

/// The envelope an invalid payload is rejected with.
fn rejected(payload: &str, request_id: Option<&str>) -> String {
    let error = request::parse(payload).expect_err("test payload is invalid");
    envelope::rejection(&error, request_id)
}

/// Asserts the CLI exited 0 and printed exactly `expected`.
fn assert_reply(out: &Output, expected: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "`zellij pipe` exited with {}; stdout {stdout:?}, stderr {:?}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout, expected, "stdout of `zellij pipe`");
}

fn details(out: &Output) -> serde_json::Value {
    let envelope: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {:?}", out.stdout));
    envelope["details"].clone()
}

/// A person's time to answer: generous, since Zellij and the interpreter run on 2 busy cores.
const ANSWER: Duration = Duration::from_secs(30);

// Every request that waits for the user carries an `id` and goes through `dialog::ask`:
// Zellij 0.45.1 now and then drops a `zellij pipe` as it connects, and asking again with the
// same id is how an agent (and the `ask-popup` command) recovers. Requests answered at once go through
// `dialog::reply_without_user`, which simply asks again.

#[test]
fn a_single_question_is_answered_with_the_picked_option() {
    let zellij = Zellij::start();
    let call = dialog::ask(
        &zellij,
        ONE_QUESTION,
        &[("agent", "claude"), ("id", "single-1")],
        |s| s.contains("Which database?") && s.contains("2. SQLite"),
    );
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen("the focus on SQLite", ANSWER, |s| s.contains("❯ 2. SQLite"));
    zellij.send_keys(&["Enter"]);
    let out = call.wait(ANSWER);
    let questionnaire = request::parse(ONE_QUESTION).unwrap();
    let mut responses = Responses::empty(1);
    responses.answers[0] = Some(ask_popup_protocol::envelope::Answer::Option(1));
    assert_reply(
        &out,
        &envelope::outcome(
            &questionnaire,
            &Outcome::Submitted(responses),
            Some("single-1"),
        ),
    );
    // The popup hides once nothing is pending.
    zellij.wait_for_screen("the popup gone", ANSWER, |s| !s.contains("Which database?"));
}

#[test]
fn invalid_payloads_are_rejected_at_once_with_their_error_code() {
    let reserved = r#"{"questions":[{"question":"Pick one?","header":"Pick","options":[{"label":"Other","description":"x"},{"label":"B","description":"y"}]}]}"#;
    let cases = [
        ("not JSON", "this is not json", "invalid_payload"),
        ("no questions", r#"{"questions":[]}"#, "no_questions"),
        ("reserved label", reserved, "reserved_label"),
    ];
    let zellij = Zellij::start();
    for (what, payload, code) in cases {
        let out = dialog::reply_without_user(&zellij, payload, &[]);
        assert_reply(&out, &rejected(payload, None));
        let details = details(&out);
        assert_eq!(details["error"], code, "{what}");
        assert_eq!(details["cancelled"], true, "{what}");
        assert_eq!(details["answers"], serde_json::json!([]), "{what}");
    }
}

#[test]
fn id_arg_is_echoed_as_request_id() {
    let zellij = Zellij::start();
    let call = dialog::ask(
        &zellij,
        ONE_QUESTION,
        &[("id", "req-42"), ("agent", "claude")],
        |s| s.contains("Which database?"),
    );
    zellij.send_keys(&["Esc"]);
    let out = call.wait(ANSWER);
    assert_reply(&out, &declined(ONE_QUESTION, Some("req-42")));
    assert_eq!(details(&out)["requestId"], "req-42");

    let out = dialog::reply_without_user(&zellij, "{", &[("id", "bad-1")]);
    assert_reply(&out, &rejected("{", Some("bad-1")));
    assert_eq!(details(&out)["requestId"], "bad-1");
}

#[test]
fn one_line_payload_on_stdin_is_answered() {
    let zellij = Zellij::start();
    let args = [("id", "stdin-1")];
    let call = dialog::ask_with(
        &zellij,
        zellij.pipe_stdin(&format!("{ONE_QUESTION}\n"), &args),
        |s| s.contains("Which database?"),
    );
    zellij.send_keys(&["Esc"]);
    assert_reply(&call.wait(ANSWER), &declined(ONE_QUESTION, Some("stdin-1")));
}
