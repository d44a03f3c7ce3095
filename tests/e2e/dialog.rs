//! End to end: one agent asks, the user answers through the real dialog.
//!
//! Each test drives the built plugin only the way an agent and a person do: the agent's
//! `zellij pipe`, the person's keys (`send-keys` / `write-chars` to the popup), and what the
//! terminal shows. Replies are compared byte for byte with what the core computes for the same
//! answers, and the model-facing text is pinned literally where it is short.

use crate::harness::{PipeCall, Zellij, FIRST};
use crate::{assert_reply, details, rejected, ANSWER, AT_ONCE, ONE_QUESTION};
use ask_popup_protocol::envelope::ErrorCode;
use ask_popup_protocol::envelope::{self, Answer, Outcome, Responses};
use ask_popup_protocol::request::{self, MAX_PAYLOAD_BYTES};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::process::Output;
use std::thread;
use std::time::{Duration, Instant};

/// Every frame of the dialog shows this row; an empty session never does.
const DIALOG_MARK: &str = "Chat about this";

const DATABASE: &str = "Which database should the new service use?";
const ERRORS: &str = "How should errors be reported?";
const SHIP: &str = "When should it ship?";

/// A question object with one description per label.
fn question(text: &str, header: &str, labels: &[&str]) -> Value {
    let options: Vec<Value> = labels
        .iter()
        .map(|l| json!({"label": l, "description": format!("About {l}.")}))
        .collect();
    json!({"question": text, "header": header, "options": options})
}

fn database() -> Value {
    question(DATABASE, "Database", &["Postgres", "SQLite"])
}

fn errors() -> Value {
    question(ERRORS, "Errors", &["Sentry", "Logs only"])
}

fn ship() -> Value {
    question(SHIP, "Ship date", &["This week", "Next month"])
}

fn payload(questions: &[Value]) -> String {
    json!({ "questions": questions }).to_string()
}

/// The reply the plugin owes for `payload` ended by `outcome`.
fn reply(payload: &str, outcome: &Outcome, id: Option<&str>) -> String {
    let questionnaire = request::parse(payload).expect("test payload is valid");
    envelope::outcome(&questionnaire, outcome, id)
}

fn responses(answers: Vec<Option<Answer>>, notes: &[&str], global_note: &str) -> Responses {
    let mut r = Responses::empty(answers.len());
    for (slot, note) in r.notes.iter_mut().zip(notes) {
        *slot = (*note).to_owned();
    }
    r.answers = answers;
    r.global_note = global_note.to_owned();
    r
}

/// `content[0].text` of a reply.
fn text_of(out: &Output) -> String {
    let envelope: Value = serde_json::from_slice(&out.stdout).expect("the reply is JSON");
    envelope["content"][0]["text"]
        .as_str()
        .expect("content[0].text is a string")
        .to_owned()
}

fn wait_for(zellij: &Zellij, what: &str, pred: impl Fn(&str) -> bool) -> String {
    zellij.wait_for_screen(what, ANSWER, pred)
}

fn wait_for_text(zellij: &Zellij, text: &str) -> String {
    wait_for(zellij, &format!("{text:?}"), |s| s.contains(text))
}

fn wait_until_hidden(zellij: &Zellij) {
    wait_for(zellij, "no dialog", |s| !s.contains(DIALOG_MARK));
}

/// Asks as a careful agent does, with an `id`, and returns the waiting CLI once `shown` holds
/// for the screen.
///
/// Zellij 0.45.1 reuses client ids, and removes a closed CLI connection twice: a removal that
/// comes after a new connection took the id disconnects the newcomer (`Exit`, so the CLI exits
/// 0 having printed nothing), its request already sent. The CLI is then started again, and the
/// second request, with the same id, replaces the orphaned first one. A `list-panes` round trip
/// after the dialog shows goes through the server's queue behind any such removal, so a CLI
/// still waiting after it is safe.
pub(crate) fn ask(
    zellij: &Zellij,
    payload: &str,
    args: &[(&str, &str)],
    shown: impl Fn(&str) -> bool,
) -> PipeCall {
    assert!(
        args.iter().any(|(k, _)| *k == "id"),
        "ask() needs an id to ask again"
    );
    ask_with(zellij, zellij.pipe(payload, args), shown)
}

/// `ask`, for a CLI already started (with an `id`).
pub(crate) fn ask_with(zellij: &Zellij, call: PipeCall, shown: impl Fn(&str) -> bool) -> PipeCall {
    let call = RefCell::new(call);
    for _ in 0..4 {
        wait_for(zellij, "the dialog", |s| {
            shown(s) || !call.borrow_mut().is_running()
        });
        if call.borrow_mut().is_running() {
            zellij.panes();
            if call.borrow_mut().is_running() {
                return call.into_inner();
            }
        }
        if !call.borrow_mut().retry_if_dropped() {
            let out = call.into_inner().wait(AT_ONCE);
            panic!("`zellij pipe` ended before the dialog showed: {out:?}");
        }
        eprintln!("Zellij dropped the `zellij pipe`; asked again with the same id");
    }
    panic!("`zellij pipe` was dropped four times in a row")
}

/// A request answered without the user (a rejection, a timeout): asking again is harmless, so
/// the harness does when Zellij drops the CLI.
pub(crate) fn reply_without_user(zellij: &Zellij, payload: &str, args: &[(&str, &str)]) -> Output {
    zellij
        .pipe_to("ask-popup", "ask", args, payload)
        .wait(ANSWER)
}

#[test]
fn several_questions_with_notes_and_a_global_note_are_submitted() {
    let payload = payload(&[database(), errors(), ship()]);
    let zellij = Zellij::start();
    let call = ask(
        &zellij,
        &payload,
        &[("agent", "claude"), ("id", "notes-1")],
        |s| s.contains(DATABASE) && s.contains("□ Errors") && s.contains("✓ Submit"),
    );

    // A note on the first question, then its second option.
    zellij.send_keys(&["n"]);
    wait_for_text(&zellij, "Enter save note");
    zellij.write_chars("ask ops first");
    wait_for_text(&zellij, "ask ops first");
    zellij.send_keys(&["Enter"]);
    wait_for_text(&zellij, "notes: ask ops first");
    zellij.send_keys(&["Down"]);
    zellij.send_keys(&["Enter"]);

    // A note on the second question, left unanswered.
    wait_for_text(&zellij, ERRORS);
    zellij.send_keys(&["n"]);
    wait_for_text(&zellij, "Enter save note");
    zellij.write_chars("no idea yet");
    zellij.send_keys(&["Enter"]);
    wait_for_text(&zellij, "notes: no idea yet");
    zellij.send_keys(&["Tab"]);

    // The third question's first option leads to the Submit tab.
    wait_for_text(&zellij, SHIP);
    zellij.send_keys(&["Enter"]);
    wait_for(&zellij, "the review naming the unanswered question", |s| {
        s.contains("Review your answers") && s.contains("⚠ Not answered: Errors")
    });
    zellij.send_keys(&["n"]);
    wait_for_text(&zellij, "Global note:");
    zellij.write_chars("thanks, ship it");
    zellij.send_keys(&["Enter"]);
    wait_for_text(&zellij, "→ thanks, ship it");
    zellij.send_keys(&["Enter"]);

    let out = call.wait(ANSWER);
    let given = responses(
        vec![Some(Answer::Option(1)), None, Some(Answer::Option(0))],
        &["ask ops first", "no idea yet", ""],
        "thanks, ship it",
    );
    assert_reply(
        &out,
        &reply(&payload, &Outcome::Submitted(given), Some("notes-1")),
    );
    assert_eq!(
        text_of(&out),
        format!(
            "User has answered your questions: \"{DATABASE}\"=\"SQLite\". user notes: ask ops \
             first. note on \"{ERRORS}\": no idea yet. \"{SHIP}\"=\"This week\". global note: \
             thanks, ship it. You can now continue with the user's answers in mind."
        )
    );
    let details = details(&out);
    assert_eq!(details["cancelled"], false);
    assert_eq!(details["globalNote"], "thanks, ship it");
    assert_eq!(
        details["unansweredNotes"],
        json!([{"questionIndex": 1, "question": ERRORS, "note": "no idea yet"}])
    );
    assert_eq!(details["answers"][0]["notes"], "ask ops first");
    wait_until_hidden(&zellij);
}

#[test]
fn multi_select_ticks_with_space_and_submits_from_the_submit_tab() {
    const CHECKS: &str = "Which checks should run on every push?";
    const RUNNER: &str = "Where should the checks run?";
    let mut checks = question(CHECKS, "CI checks", &["Unit tests", "Lint", "E2E"]);
    checks["multiSelect"] = json!(true);
    let payload = payload(&[
        checks,
        question(RUNNER, "Runner", &["GitHub Actions", "Self-hosted"]),
    ]);
    let zellij = Zellij::start();
    let call = ask(
        &zellij,
        &payload,
        &[("agent", "codex"), ("id", "multi-1")],
        |s| s.contains(CHECKS) && s.contains("[ ] Unit tests") && s.contains("Next"),
    );

    zellij.send_keys(&["Space"]);
    wait_for_text(&zellij, "[✔] Unit tests");
    zellij.send_keys(&["Down"]);
    zellij.send_keys(&["Down"]);
    zellij.send_keys(&["Space"]);
    wait_for(&zellij, "two ticks", |s| {
        s.contains("[✔] Unit tests") && s.contains("[ ] Lint") && s.contains("[✔] E2E")
    });
    // The free-form row of a multi-select question adds typed text to the ticks.
    zellij.send_keys(&["Down"]);
    wait_for_text(&zellij, "Esc stop typing");
    zellij.write_chars("fuzzing");
    wait_for_text(&zellij, "fuzzing");
    // Enter there moves on to `Next`, and Enter on `Next` to the next question.
    zellij.send_keys(&["Enter"]);
    wait_for_text(&zellij, "❯ Next");
    zellij.send_keys(&["Enter"]);
    wait_for_text(&zellij, RUNNER);
    zellij.send_keys(&["Enter"]);
    wait_for(&zellij, "the review", |s| {
        s.contains("Review your answers")
            && s.contains("→ Unit tests, E2E, fuzzing")
            && s.contains("❯ 1. Submit answers")
    });
    zellij.send_keys(&["Enter"]);

    let out = call.wait(ANSWER);
    let given = responses(
        vec![
            Some(Answer::Multi {
                ticked: vec![0, 2],
                text: Some("fuzzing".to_owned()),
            }),
            Some(Answer::Option(0)),
        ],
        &[],
        "",
    );
    assert_reply(
        &out,
        &reply(&payload, &Outcome::Submitted(given), Some("multi-1")),
    );
    assert_eq!(
        text_of(&out),
        format!(
            "User has answered your questions: \"{CHECKS}\"=\"Unit tests, E2E, fuzzing\". \
             \"{RUNNER}\"=\"GitHub Actions\". You can now continue with the user's answers in mind."
        )
    );
    let details = details(&out);
    assert_eq!(details["answers"][0]["kind"], "multi");
    assert_eq!(
        details["answers"][0]["selected"],
        json!(["Unit tests", "E2E", "fuzzing"])
    );
    wait_until_hidden(&zellij);
}

#[test]
fn free_text_typed_on_the_free_form_row_is_the_answer() {
    let zellij = Zellij::start();
    let call = ask(
        &zellij,
        ONE_QUESTION,
        &[("agent", "pi"), ("id", "free-1")],
        |s| s.contains("Which database?") && s.contains("3. Type something."),
    );
    // A digit focuses that row; on `Type something.` typing starts at once.
    zellij.send_keys(&["3"]);
    wait_for_text(&zellij, "Esc stop typing");
    zellij.write_chars("MySQL, because the team knows it");
    wait_for_text(&zellij, "MySQL, because the team knows it");
    zellij.send_keys(&["Enter"]);

    let out = call.wait(ANSWER);
    assert_reply(
        &out,
        "{\"content\":[{\"type\":\"text\",\"text\":\"User has answered your questions: \
         \\\"Which database?\\\"=\\\"MySQL, because the team knows it\\\". You can now continue \
         with the user's answers in mind.\"}],\"details\":{\"answers\":[{\"questionIndex\":0,\
         \"question\":\"Which database?\",\"kind\":\"custom\",\"answer\":\"MySQL, because the \
         team knows it\"}],\"cancelled\":false,\"requestId\":\"free-1\"}}\n",
    );
    assert_reply(
        &out,
        &reply(
            ONE_QUESTION,
            &Outcome::Submitted(responses(
                vec![Some(Answer::Custom(
                    "MySQL, because the team knows it".to_owned(),
                ))],
                &[],
                "",
            )),
            Some("free-1"),
        ),
    );
    wait_until_hidden(&zellij);
}

#[test]
fn chat_about_this_on_a_later_question_carries_the_earlier_answer() {
    let payload = payload(&[database(), errors()]);
    let zellij = Zellij::start();
    let call = ask(
        &zellij,
        &payload,
        &[("agent", "claude"), ("id", "chat-7")],
        |s| s.contains(DATABASE),
    );
    zellij.send_keys(&["Enter"]);
    wait_for_text(&zellij, ERRORS);
    zellij.send_keys(&["4"]);
    wait_for_text(&zellij, "❯ 4. Chat about this");
    zellij.send_keys(&["Enter"]);

    let out = call.wait(ANSWER);
    let outcome = Outcome::ChatRequested {
        question: 1,
        responses: responses(vec![Some(Answer::Option(0)), None], &[], ""),
    };
    assert_reply(&out, &reply(&payload, &outcome, Some("chat-7")));
    assert_eq!(
        text_of(&out),
        format!(
            "User picked \"Chat about this\" on question 2: \"{ERRORS}\". \
             \"{DATABASE}\"=\"Postgres\"."
        )
    );
    let details = details(&out);
    assert_eq!(details["cancelled"], true);
    assert_eq!(
        details["chatRequested"],
        json!({"questionIndex": 1, "question": ERRORS})
    );
    assert_eq!(details["answers"][0]["answer"], "Postgres");
    wait_until_hidden(&zellij);
}

#[test]
fn esc_declines_at_once_when_nothing_was_given() {
    let payload = payload(&[database(), errors()]);
    let zellij = Zellij::start();
    let call = ask(&zellij, &payload, &[("id", "esc-1")], |s| {
        s.contains(DATABASE)
    });
    zellij.send_keys(&["Esc"]);
    let out = call.wait(ANSWER);
    assert_reply(
        &out,
        "{\"content\":[{\"type\":\"text\",\"text\":\"User declined to answer questions\"}],\
         \"details\":{\"answers\":[],\"cancelled\":true,\"requestId\":\"esc-1\"}}\n",
    );
    wait_until_hidden(&zellij);
}

#[test]
fn esc_asks_again_before_discarding_answers_and_the_details_keep_them() {
    let payload = payload(&[database(), errors()]);
    let zellij = Zellij::start();
    let mut call = ask(&zellij, &payload, &[("id", "esc-2")], |s| {
        s.contains(DATABASE)
    });
    zellij.send_keys(&["Down"]);
    zellij.send_keys(&["Enter"]);
    wait_for(&zellij, "the second question, the first answered", |s| {
        s.contains(ERRORS) && s.contains("■ Database")
    });

    zellij.send_keys(&["Esc"]);
    wait_for_text(&zellij, "Press Esc again to discard");
    assert!(call.is_running(), "the first Esc must not answer");
    zellij.send_keys(&["Esc"]);

    let out = call.wait(ANSWER);
    let given = responses(vec![Some(Answer::Option(1)), None], &[], "");
    assert_reply(
        &out,
        &reply(&payload, &Outcome::Declined(given), Some("esc-2")),
    );
    assert_eq!(text_of(&out), "User declined to answer questions");
    let details = details(&out);
    assert_eq!(details["cancelled"], true);
    assert_eq!(
        details["answers"],
        json!([{"questionIndex": 0, "question": DATABASE, "kind": "option", "answer": "SQLite"}])
    );
    wait_until_hidden(&zellij);
}

#[test]
fn a_request_with_a_timeout_and_no_key_press_times_out() {
    let mut q: Value = serde_json::from_str(ONE_QUESTION).unwrap();
    q["timeout"] = json!(2000);
    let payload = q.to_string();
    let zellij = Zellij::start();
    let out = reply_without_user(&zellij, &payload, &[("id", "t-1")]);
    assert_reply(
        &out,
        &reply(
            &payload,
            &Outcome::TimedOut(Responses::empty(1)),
            Some("t-1"),
        ),
    );
    let details = details(&out);
    assert_eq!(details["error"], "timed_out");
    assert_eq!(details["cancelled"], true);
    assert!(text_of(&out).starts_with("Questionnaire timed out"));
    wait_until_hidden(&zellij);
}

#[test]
fn a_key_press_stops_the_countdown_for_good() {
    // Long enough that the popup surely shows and takes the key before it runs out on a busy
    // machine; the wait after the key is longer still.
    const TIMEOUT_MS: u64 = 4000;
    let mut q: Value = serde_json::from_str(ONE_QUESTION).unwrap();
    q["timeout"] = json!(TIMEOUT_MS);
    let payload = q.to_string();
    let zellij = Zellij::start();
    let mut call = ask(&zellij, &payload, &[("id", "t-2")], |s| {
        s.contains("Which database?") && s.contains("⏱ 0:0")
    });
    zellij.send_keys(&["Down"]);
    let pressed = Instant::now();
    wait_for(&zellij, "the focus moved and no countdown", |s| {
        s.contains("❯ 2. SQLite") && !s.contains("⏱")
    });

    // Wait well past the timeout: the request stays pending.
    let past = Duration::from_millis(TIMEOUT_MS) + Duration::from_secs(2);
    thread::sleep(past.saturating_sub(pressed.elapsed()));
    let screen = zellij.screen();
    assert!(
        screen.contains("Which database?") && screen.contains("❯ 2. SQLite"),
        "the question left the screen after the timeout had been stopped:\n{screen}"
    );
    assert!(!screen.contains("⏱"), "the countdown came back:\n{screen}");
    assert!(
        call.is_running(),
        "the request ended although a key stopped its countdown"
    );

    zellij.send_keys(&["Enter"]);
    let out = call.wait(ANSWER);
    assert_reply(
        &out,
        &reply(
            &payload,
            &Outcome::Submitted(responses(vec![Some(Answer::Option(1))], &[], "")),
            Some("t-2"),
        ),
    );
    wait_until_hidden(&zellij);
}

/// One invalid payload per validation error code, in the SPEC's order of checks.
fn invalid_payloads() -> Vec<(&'static str, String)> {
    let q = |text: &str| question(text, "Q", &["A", "B"]);
    let five_questions: Vec<Value> = (1..=5).map(|i| q(&format!("Question {i}?"))).collect();
    let mut timeout = json!({ "questions": [q("Soon?")] });
    timeout["timeout"] = json!(999);
    vec![
        ("invalid_payload", "this is not json".to_owned()),
        ("invalid_payload", r#"{"questions":"one"}"#.to_owned()),
        ("invalid_payload", "[1,2,3]".to_owned()),
        ("no_questions", r#"{"questions":[]}"#.to_owned()),
        ("too_many_questions", payload(&five_questions)),
        ("duplicate_question", payload(&[q("Same?"), q("Same?")])),
        (
            "empty_options",
            payload(&[question("One option?", "One", &["Only"])]),
        ),
        (
            "too_many_options",
            payload(&[question("Five?", "Five", &["A", "B", "C", "D", "E"])]),
        ),
        (
            "reserved_label",
            payload(&[question("Reserved?", "R", &["A", "Chat about this"])]),
        ),
        (
            "duplicate_option_label",
            payload(&[question("Twice?", "T", &["A", "A"])]),
        ),
        (
            "header_too_long",
            payload(&[question("Header?", &"h".repeat(17), &["A", "B"])]),
        ),
        (
            "label_too_long",
            payload(&[question("Label?", "L", &["A", &"l".repeat(61)])]),
        ),
        ("invalid_timeout", timeout.to_string()),
    ]
}

#[test]
fn every_validation_error_is_answered_at_once_without_showing_the_popup() {
    let zellij = Zellij::start();
    for (code, payload) in invalid_payloads() {
        let out = reply_without_user(&zellij, &payload, &[("id", code)]);
        assert_reply(&out, &rejected(&payload, Some(code)));
        let details = details(&out);
        assert_eq!(details["error"], code, "payload {payload}");
        assert_eq!(details["cancelled"], true, "{code}");
        assert_eq!(details["answers"], json!([]), "{code}");
        assert_eq!(details["requestId"], code, "{code}");
        let screen = zellij.screen();
        assert!(
            !screen.contains(DIALOG_MARK),
            "{code}: a rejected request showed the dialog:\n{screen}"
        );
    }
}

/// More than 1 MiB: a questionnaire no argument can carry, so it goes on stdin.
fn oversized_questionnaire() -> Value {
    let options: Vec<Value> = (0..1100)
        .map(|i| json!(format!("{i:04}{}", "x".repeat(1000))))
        .collect();
    json!({"questions": [{"question": "Too big?", "header": "Big", "options": options}]})
}

/// Pretty-printed, so no stdin line is large: the plugin counts the lines as they come and
/// answers when they pass 1 MiB. (One line that large is `a_single_stdin_line_over_1_mib…`.)
#[test]
fn a_payload_over_1_mib_on_stdin_is_answered_payload_too_large() {
    let text = serde_json::to_string_pretty(&oversized_questionnaire()).expect("serialise") + "\n";
    assert!(text.len() > MAX_PAYLOAD_BYTES + 64 * 1024);
    // The plugin stops reading where the lines received so far pass the limit.
    let mut received = 0;
    for line in text.split_inclusive('\n') {
        received += line.len();
        if received > MAX_PAYLOAD_BYTES {
            break;
        }
    }
    let zellij = Zellij::start();
    let out = zellij
        .pipe_stdin(&text, &[("id", "big-2")])
        .answered_at_once()
        .wait(ANSWER);
    assert_reply(&out, &rejected(&text[..received], Some("big-2")));
    assert_eq!(details(&out)["error"], ErrorCode::PayloadTooLarge.as_str());
    assert!(
        text_of(&out).contains(&format!("the questionnaire is {received} bytes")),
        "{}",
        text_of(&out)
    );
    let screen = zellij.screen();
    assert!(
        !screen.contains(DIALOG_MARK),
        "payload_too_large showed the dialog:\n{screen}"
    );
    still_serves(&zellij, "after-big");
}

/// The plugin is still there for the next question (whatever came before must not have
/// killed it).
fn still_serves(zellij: &Zellij, id: &str) {
    let call = ask(zellij, ONE_QUESTION, &[("id", id)], |s| {
        s.contains("Which database?")
    });
    zellij.send_keys(&["Esc"]);
    assert_reply(&call.wait(ANSWER), &crate::declined(ONE_QUESTION, Some(id)));
}

/// One stdin line of more than 1 MiB: Zellij 0.45.1 hands a pipe message to the plugin as a
/// JSON array of byte values, about 4 bytes of text per payload byte. zellij-tile's own `pipe`
/// export read that whole line into memory and ran out of the 16 MiB Zellij gives a plugin,
/// killing it for every waiting caller; ours reads it in bounded memory (`ask_popup_plugin::wire`).
/// The caller gets `payload_too_large`, and the plugin keeps serving.
#[test]
fn a_single_stdin_line_over_1_mib_is_answered_payload_too_large() {
    let line = oversized_questionnaire().to_string() + "\n";
    let zellij = Zellij::start();
    let out = zellij
        .pipe_stdin(&line, &[("id", "big-3")])
        .answered_at_once()
        .wait(ANSWER);
    assert_reply(&out, &rejected(&line, Some("big-3")));
    still_serves(&zellij, "after-big");
}

#[test]
fn closing_the_popup_pane_answers_the_pending_request_as_dismissed() {
    let payload = payload(&[database(), errors()]);
    let zellij = Zellij::start();
    let call = ask(&zellij, &payload, &[("id", "close-1")], |s| {
        s.contains(DATABASE)
    });
    zellij.send_keys(&["Enter"]);
    wait_for_text(&zellij, ERRORS);

    let pane = zellij.plugin_pane(ANSWER);
    let out = zellij.action(&["close-pane", "--pane-id", &pane]);
    assert!(
        out.status.success(),
        "close-pane --pane-id {pane} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = call.wait(ANSWER);
    let outcome = Outcome::Host {
        code: ErrorCode::Dismissed,
        responses: responses(vec![Some(Answer::Option(0)), None], &[], ""),
    };
    assert_reply(&out, &reply(&payload, &outcome, Some("close-1")));
    assert_eq!(details(&out)["error"], "dismissed");
    assert!(text_of(&out).starts_with("The question popup was closed before the user answered."));
    wait_until_hidden(&zellij);

    // The next question gets a working popup again.
    still_serves(&zellij, "close-2");
}

#[test]
fn the_hide_key_hides_the_popup_and_the_show_pipe_brings_it_back() {
    let zellij = Zellij::start();
    let mut call = ask(
        &zellij,
        ONE_QUESTION,
        &[("agent", "claude"), ("id", "hide-1")],
        |s| s.contains("Which database?") && s.contains("Ctrl+] hide"),
    );
    zellij.send_keys(&["Down"]);
    wait_for_text(&zellij, "❯ 2. SQLite");

    // `send-keys` sends Ctrl+] as a legacy terminal does, the byte 0x1d.
    zellij.send_keys(&["Ctrl ]"]);
    wait_for(&zellij, "the popup hidden", |s| {
        !s.contains("Which database?")
    });
    assert!(call.is_running(), "hiding the popup answered the request");

    let out = zellij.pipe_to("ask-popup", "show", &[], "x").wait(AT_ONCE);
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "the show pipe: {out:?}"
    );
    // It comes back as it was left.
    wait_for(&zellij, "the popup back", |s| {
        s.contains("Which database?") && s.contains("❯ 2. SQLite")
    });
    assert!(call.is_running(), "showing the popup answered the request");
    zellij.send_keys(&["Enter"]);
    assert_reply(
        &call.wait(ANSWER),
        &reply(
            ONE_QUESTION,
            &Outcome::Submitted(responses(vec![Some(Answer::Option(1))], &[], "")),
            Some("hide-1"),
        ),
    );
    wait_until_hidden(&zellij);
}

/// What the terminal around the dialog shows of itself: the tmux pane title, the terminal
/// panes' titles, and tmux's paste buffers (OSC 52 lands there with `set-clipboard on`).
#[derive(Debug, PartialEq, Eq)]
struct Surroundings {
    tmux_title: String,
    pane_titles: Vec<(u64, String)>,
    buffers: String,
}

fn surroundings(zellij: &Zellij) -> Surroundings {
    let tmux = |args: &[&str]| {
        let out = zellij.tmux_run(args);
        assert!(out.status.success(), "tmux {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let pane_titles = zellij
        .panes()
        .iter()
        .filter(|p| p["is_plugin"] == false)
        .map(|p| {
            (
                p["id"].as_u64().unwrap_or(u64::MAX),
                p["title"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    Surroundings {
        tmux_title: tmux(&["display-message", "-p", "-t", "apz", "#{pane_title}"]),
        pane_titles,
        buffers: tmux(&["list-buffers"]),
    }
}

#[test]
fn escape_sequences_in_the_payload_change_nothing_outside_the_dialog() {
    const OSC_TITLE: &str = "\u{1b}]0;pwned-title\u{7}";
    const OSC_TITLE_2: &str = "\u{1b}]2;pwned-title-2\u{1b}\\";
    const OSC_CLIPBOARD: &str = "\u{1b}]52;c;cHduZWQtY2xpcA==\u{7}";
    const CLEAR: &str = "\u{1b}[2J\u{1b}[H";
    const C1: &str = "\u{9b}2J\u{9d}0;pwned-c1\u{9c}\u{90}q\u{9c}";
    let all = format!("{OSC_TITLE}{OSC_TITLE_2}{OSC_CLIPBOARD}{CLEAR}\u{7}{C1}");
    // Headers are short (16 characters at most).
    let payload = json!({
        "questions": [{
            "question": format!("Deploy{all} now?"),
            "header": "Go\u{1b}]0;x\u{7}",
            "options": [
                {
                    "label": format!("Yes{OSC_CLIPBOARD}"),
                    "description": format!("Ship it{all}."),
                    "preview": format!("# Plan{OSC_TITLE}\n\n- step {OSC_CLIPBOARD}one\n- {C1}two\n\n```\n{all}\n```\n"),
                },
                {
                    "label": format!("No{CLEAR}\u{7}{C1}"),
                    "description": format!("Wait{OSC_TITLE_2}."),
                    "preview": format!("**Later**{all}"),
                },
            ],
        }, {
            "question": format!("Anything{OSC_TITLE} else?"),
            "header": "M\u{9b}2J\u{9d}0;x\u{9c}",
            "options": [
                {"label": "Nothing", "description": format!("{OSC_TITLE}Done.")},
                {"label": "Later", "description": "Another time."},
            ],
        }],
    })
    .to_string();
    assert!(request::parse(&payload).is_ok(), "the payload is valid");
    let zellij = Zellij::start();
    // A leaked OSC 52 would then become a tmux paste buffer.
    let out = zellij.tmux_run(&["set-option", "-g", "set-clipboard", "on"]);
    assert!(out.status.success(), "tmux set-clipboard: {out:?}");
    let before = surroundings(&zellij);
    assert!(!before.tmux_title.contains("pwned"), "{before:?}");

    let agent = format!("evil{OSC_TITLE}");
    let call = ask(
        &zellij,
        &payload,
        &[("agent", &agent), ("id", "esc-seq")],
        |s| s.contains("Deploy") && s.contains("now?") && s.contains("Plan") && s.contains("step"),
    );
    // While the dialog shows, the terminal's title is Zellij's (the session and the focused
    // pane's title), the popup's title is its own (the agent's escape shows only as text), no
    // paste buffer appeared and no terminal pane was renamed. A terminal pane printing the
    // same OSC 0 / OSC 52 sequences changes the first two and adds a buffer.
    let during = surroundings(&zellij);
    let popup_title = zellij
        .panes()
        .iter()
        .find(|p| p["is_plugin"] == true && p["title"].as_str().is_some_and(|t| t.contains("evil")))
        .and_then(|p| p["title"].as_str().map(str::to_owned))
        .unwrap_or_default();
    assert!(
        popup_title.starts_with("ask-popup · evil") && popup_title.ends_with(" · 1 of 1"),
        "the popup's title: {popup_title:?}"
    );
    assert_eq!(
        during.tmux_title,
        format!("{} | {popup_title}\n", zellij.session()),
        "the terminal's title while the dialog shows"
    );
    assert_eq!(during.buffers, before.buffers, "paste buffers");
    assert_eq!(
        during.pane_titles, before.pane_titles,
        "terminal pane titles"
    );

    // Through the second option's preview, then answer both questions.
    zellij.send_keys(&["Down"]);
    wait_for_text(&zellij, "Later");
    zellij.send_keys(&["Up"]);
    zellij.send_keys(&["Enter"]);
    wait_for_text(&zellij, "Another time.");
    zellij.send_keys(&["Enter"]);
    wait_for_text(&zellij, "Review your answers");
    zellij.send_keys(&["Enter"]);
    let out = call.wait(ANSWER);
    assert_reply(
        &out,
        &reply(
            &payload,
            &Outcome::Submitted(responses(
                vec![Some(Answer::Option(0)), Some(Answer::Option(0))],
                &[],
                "",
            )),
            Some("esc-seq"),
        ),
    );
    wait_until_hidden(&zellij);

    // Zellij retitles the terminal while the popup has focus: wait for it to settle back.
    let until = Instant::now() + ANSWER;
    let after = loop {
        let now = surroundings(&zellij);
        if now == before || Instant::now() >= until {
            break now;
        }
        thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(after, before, "the terminal around the dialog changed");
}

/// Several hundred KiB of markdown previews: far more than an argument may carry.
fn big_questionnaire() -> String {
    let section = |q: usize, o: usize, n: usize| {
        format!(
            "## Part {n} of plan {o} for question {q}\n\n\
             Some **bold** words, some *italic* ones and `inline code` in a paragraph that is \
             long enough to wrap across several lines of the preview box on any width.\n\n\
             - first point of part {n}\n- second point, with [a link](https://example.com)\n\n\
             > a quote in part {n}\n\n```rust\nfn part_{n}() -> usize {{ {n} }}\n```\n\n---\n\n"
        )
    };
    let questions: Vec<Value> = (1..=4)
        .map(|q| {
            let options: Vec<Value> = (1..=3)
                .map(|o| {
                    let body: String = (1..=90).map(|n| section(q, o, n)).collect();
                    json!({
                        "label": format!("Plan {o}"),
                        "description": format!("Plan {o} for question {q}."),
                        "preview": format!("# Plan {o} of question {q}\n\n{body}"),
                    })
                })
                .collect();
            json!({
                "question": format!("Which plan for part {q}?"),
                "header": format!("Part {q}"),
                "options": options,
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({ "questions": questions })).expect("serialise")
}

#[test]
fn a_pretty_printed_payload_of_several_hundred_kib_on_stdin_is_answered() {
    let payload = big_questionnaire();
    assert!(
        (300 * 1024..600 * 1024).contains(&payload.len()),
        "the payload is {} bytes",
        payload.len()
    );
    assert!(payload.lines().count() > 50);
    let zellij = Zellij::start();
    let stdin = format!("{payload}\n");
    let args = [("id", "big-1")];
    let call = ask_with(&zellij, zellij.pipe_stdin(&stdin, &args), |s| {
        s.contains("Which plan for part 1?") && s.contains("Plan 1 of question 1")
    });
    // Each question's first plan, the second, the first, the third.
    let picks = [0, 1, 0, 2];
    for (q, pick) in picks.iter().enumerate() {
        let q = q + 1;
        wait_for(&zellij, &format!("question {q} with its preview"), |s| {
            s.contains(&format!("Which plan for part {q}?"))
                && s.contains(&format!("Plan 1 of question {q}"))
        });
        for _ in 0..*pick {
            zellij.send_keys(&["Down"]);
        }
        let plan = pick + 1;
        wait_for_text(&zellij, &format!("Plan {plan} of question {q}"));
        zellij.send_keys(&["Enter"]);
    }
    wait_for(&zellij, "the review", |s| {
        s.contains("Review your answers") && s.contains("Ready to submit")
    });
    zellij.send_keys(&["Enter"]);

    let out = call.wait(ANSWER);
    let answers = picks.iter().map(|&o| Some(Answer::Option(o))).collect();
    assert_reply(
        &out,
        &reply(
            &payload,
            &Outcome::Submitted(responses(answers, &[], "")),
            Some("big-1"),
        ),
    );
    wait_until_hidden(&zellij);
}

#[test]
fn the_recommended_option_is_focused_marked_and_accepted_with_one_key() {
    const DB_Q: &str = "Which database should the new service use?";
    const LICENCE: &str = "Which licence?";
    let payload = payload(&[
        question(DB_Q, "Database", &["Postgres", "SQLite (Recommended)"]),
        question(LICENCE, "Licence", &["MIT (Recommended)", "Apache-2.0"]),
    ]);
    let zellij = Zellij::start();
    let call = ask(
        &zellij,
        &payload,
        &[("agent", "claude"), ("id", "rec-1")],
        |s| s.contains(DB_Q) && s.contains("❯ 2. SQLite (Recommended)"),
    );
    zellij.wait_until_keys_count();
    // Straight to the Submit tab: one key takes every recommendation.
    zellij.send_keys(&["Shift Tab"]);
    wait_for(&zellij, "the Submit tab's accept key", |s| {
        s.contains("Review your answers") && s.contains("a accept recommended")
    });
    zellij.write_chars("a");
    wait_for(&zellij, "the recommendations taken", |s| {
        s.contains("→ SQLite (Recommended)")
            && s.contains("→ MIT (Recommended)")
            && !s.contains("a accept recommended")
    });
    zellij.send_keys(&["Enter"]);
    let out = call.wait(ANSWER);
    // The labels as the agent wrote them.
    let given = responses(
        vec![Some(Answer::Option(1)), Some(Answer::Option(0))],
        &[],
        "",
    );
    assert_reply(
        &out,
        &reply(&payload, &Outcome::Submitted(given), Some("rec-1")),
    );
}

/// An agent's permission prompt for `command`, as the hooks ask it (`"approval": true`).
fn approval(command: &str) -> String {
    json!({"approval": true, "questions": [question(
        &format!("Allow claude to use Bash: {command}?"),
        "Approval",
        &["Allow once", "Allow always", "Deny"],
    )]})
    .to_string()
}

/// Whether `screen` shows the focus (`❯`) on the row `label`, numbered or not.
fn focused(screen: &str, label: &str) -> bool {
    screen
        .lines()
        .any(|line| line.contains('❯') && line.contains(label))
}

/// The requests the `status` pipe lists as waiting.
fn waiting(zellij: &Zellij) -> usize {
    let out = zellij
        .pipe_to("ask-popup", "status", &[], "x")
        .answered_at_once()
        .wait(AT_ONCE);
    let status: Value = serde_json::from_slice(&out.stdout).expect("status is JSON");
    status["pending"].as_array().map_or(0, Vec::len)
}

#[test]
fn keys_written_in_a_burst_by_another_process_never_allow_an_approval() {
    let zellij = Zellij::start();
    // `1` then Enter, written by another process in one `write-chars` once keys count: Zellij
    // hands them to the plugin as the person's own. The digit reaches no row, and Enter picks
    // Deny, where the focus starts.
    let call = ask(
        &zellij,
        &approval("rm -rf build"),
        &[("agent", "claude"), ("id", "burst-1")],
        |s| s.contains("rm -rf build") && focused(s, "Deny"),
    );
    zellij.write_chars("1\r");
    let out = call.wait(ANSWER);
    assert_eq!(details(&out)["answers"][0]["answer"], "Deny", "{out:?}");

    // ↑ then Enter in one burst: the focus moves to `Allow always`, and the Enter, come
    // without a pause, does not allow.
    let mut call = ask(
        &zellij,
        &approval("git push --force"),
        &[("agent", "claude"), ("id", "burst-2")],
        |s| s.contains("git push --force") && focused(s, "Deny"),
    );
    zellij.write_chars("\u{1b}[A\r");
    zellij.wait_for_screen("Allow always focused, or the approval gone", ANSWER, |s| {
        focused(s, "Allow always") || !s.contains("git push --force")
    });
    // Both keys came in one event batch; once the popup has settled (the hints back), the
    // status pipe, handled after them, still lists the approval.
    zellij.wait_until_keys_count();
    assert_eq!(waiting(&zellij), 1, "the burst answered the approval");
    assert!(call.is_running(), "{}", zellij.screen());
    // The person, having read it, presses Enter once: allowed.
    zellij.send_keys(&["Enter"]);
    let out = call.wait(ANSWER);
    assert_eq!(
        details(&out)["answers"][0]["answer"],
        "Allow always",
        "{out:?}"
    );
}

#[test]
fn an_approval_brought_back_by_another_question_takes_no_enter_typed_as_it_comes_back() {
    let zellij = Zellij::start();
    // An approval, the focus left on `Allow once`, hidden with the hide key.
    let mut call = ask(
        &zellij,
        &approval("rm -rf build"),
        &[("agent", "claude"), ("id", "back-1")],
        |s| s.contains("rm -rf build") && focused(s, "Deny"),
    );
    zellij.send_keys(&["Up", "Up"]);
    wait_for(&zellij, "Allow once focused", |s| focused(s, "Allow once"));
    zellij.send_keys(&["Ctrl ]"]);
    wait_for(&zellij, "the approval hidden", |s| {
        !s.contains("rm -rf build")
    });
    // The person works in the shell a while...
    thread::sleep(Duration::from_millis(800));
    // ...pressing Enter there, as another agent's question brings the popup back with the
    // approval on screen, its focus where it was left: the Enter that lands in the popup comes
    // within moments of it.
    let mut other = zellij.pipe(ONE_QUESTION, &[("agent", "codex"), ("id", "back-2")]);
    let until = Instant::now() + ANSWER;
    loop {
        zellij.type_into(FIRST, &["Enter"]);
        if zellij.screen().contains("rm -rf build") || !call.is_running() {
            break;
        }
        if !other.is_running() {
            other.retry_if_dropped();
        }
        assert!(
            Instant::now() < until,
            "the popup never came back; screen:\n{}",
            zellij.screen()
        );
        thread::sleep(Duration::from_millis(150));
    }
    zellij.type_into(FIRST, &["Enter"]);
    zellij.wait_until_keys_count();
    if !call.is_running() {
        let out = call.wait(AT_ONCE);
        panic!(
            "an Enter typed as the approval came back answered it: {:?}",
            details(&out)
        );
    }
    assert_eq!(waiting(&zellij), 2);
    // Read, then Enter once: allowed.
    zellij.send_keys(&["Enter"]);
    let out = call.wait(ANSWER);
    assert_eq!(
        details(&out)["answers"][0]["answer"],
        "Allow once",
        "{out:?}"
    );
    // The other question comes forward, guarded as it does.
    zellij.send_keys(&["Enter"]);
    let out = other.wait(ANSWER);
    assert_eq!(details(&out)["answers"][0]["answer"], "Postgres", "{out:?}");
}
