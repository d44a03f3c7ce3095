//! A form's secret-looking field: its value goes into the one reply to its caller, and into
//! nothing else an instance lets out (the events, the messages between the instances, the
//! record, the replies kept for a caller asking again, the trace), here or in another
//! session that shows a copy of the question.

mod broker_io;

use ask_popup_plugin::broker::{Broker, Config, Effect};
use ask_popup_plugin::dialog::{Input, Key};
use ask_popup_plugin::trace;
use broker_io::*;
use serde_json::{json, Value};

const SECRET: &str = "hunter22xyz";
const HIDDEN: &str = "•••";

/// A form of one required text field `name`, with `title` when given.
fn login(name: &str, title: Option<&str>) -> String {
    let mut field = json!({"type": "string"});
    if let Some(title) = title {
        field["title"] = json!(title);
    }
    json!({"form": {
        "server": "vault", "message": "Log in",
        "schema": {"type": "object", "properties": {name: field}, "required": [name]},
    }})
    .to_string()
}

fn with_full_events() -> Broker {
    Broker::new(Config {
        full_events: true,
        ..Config::default()
    })
}

/// Past the key guard, types `text` into the field on screen, and Enter sends the form.
fn type_and_send(b: &mut Broker, text: &str) -> Vec<Effect> {
    settle(b);
    for c in text.chars() {
        b.input(Input::Key(Key::Char(c)));
    }
    b.input(Input::Key(Key::Enter))
}

/// Everything `fx` lets out but the replies to callers, as text: the effects (broadcasts,
/// messages to the other instances, record lines, what is kept across a reload), the lines
/// the trace says of them, and those it says of each message as another instance hears it.
fn told_others(fx: &[Effect]) -> Vec<String> {
    let effects = fx
        .iter()
        .filter(|e| !matches!(e, Effect::Reply { .. }))
        .map(|e| format!("{e:?}"));
    let traced = fx
        .iter()
        .filter(|e| trace::says_effect(e))
        .map(trace::effect);
    let heard = peer_messages(fx).into_iter().map(|msg| trace::pipe(&msg));
    effects.chain(traced).chain(heard).collect()
}

fn assert_kept_from_others(fx: &[Effect]) {
    for told in told_others(fx) {
        assert!(!told.contains(SECRET), "{told}");
    }
}

/// The answers of the one reply among `fx`, for its caller.
fn reply_answer(fx: &[Effect]) -> Value {
    let r = replies(fx);
    assert_eq!(r.len(), 1, "{fx:?}");
    r[0].1["details"]["answers"][0]["answer"].clone()
}

#[test]
fn a_secret_reaches_its_caller_and_nothing_else() {
    let mut b = with_full_events();
    b.pipe(cli(
        "p1",
        Some(&login("api_token", None)),
        &[("pane_id", "3"), ("id", "r")],
    ));
    let fx = type_and_send(&mut b, SECRET);
    assert_eq!(reply_answer(&fx), SECRET);
    assert!(replies(&fx)[0].1["content"][0]["text"]
        .as_str()
        .is_some_and(|t| t.contains(SECRET)));
    assert_kept_from_others(&fx);
    // The event with the result says the field was answered, not with what.
    let answered = broadcasts(&fx, "ask-popup:answered");
    assert_eq!(answered[0]["result"]["answers"][0]["answer"], HIDDEN);
    assert!(!answered[0]["result"]["answers"][0]["question"].is_null());
    let entry = &records(&fx)[0];
    assert!(entry.reply.contains(HIDDEN), "{}", entry.reply);
    let sent = entry.form.as_ref().and_then(|f| f.sent.clone());
    assert_eq!(sent, Some(json!({"api_token": HIDDEN})));
}

#[test]
fn a_secret_answered_in_either_instance_reaches_the_other_hidden() {
    for answer_in_leader in [true, false] {
        let mut one = with_full_events();
        let mut two = with_full_events();
        one.set_plugin_id(PLUGIN_ID);
        two.set_plugin_id(PLUGIN_ID);
        let hellos = [one.join(1), two.join(2)].concat();
        carry(&hellos, &mut one, &mut two);
        let ask = cli(
            "p1",
            Some(&login("password", None)),
            &[("pane_id", "3"), ("id", "r")],
        );
        both(ask, &mut one, &mut two);
        let answering = if answer_in_leader { &mut one } else { &mut two };
        let fx = type_and_send(answering, SECRET);
        assert_eq!(reply_answer(&fx), SECRET);
        assert_eq!(peer_messages(&fx).len(), 1, "{fx:?}");
        let (a, b) = carry(&fx, &mut one, &mut two);
        assert!(replies(&a).is_empty() && replies(&b).is_empty());
        for fx in [&fx, &a, &b] {
            assert_kept_from_others(fx);
        }
        let all = [fx, a, b].concat();
        let answered = broadcasts(&all, "ask-popup:answered");
        assert_eq!(answered.len(), 1, "{all:?}");
        assert_eq!(answered[0]["result"]["answers"][0]["answer"], HIDDEN);
        // Asked again with its id in either instance, it is asked anew: no reply was kept.
        for b in [&mut one, &mut two] {
            let again = b.pipe(cli(
                "p2",
                Some(&login("password", None)),
                &[("pane_id", "3"), ("id", "r")],
            ));
            assert!(replies(&again).is_empty(), "{again:?}");
            assert_kept_from_others(&b.before_close());
        }
    }
}

#[test]
fn a_form_with_a_secret_keeps_no_reply_for_its_caller_asking_again() {
    let mut b = with_full_events();
    let ask = |pipe| cli(pipe, Some(&login("passphrase", None)), &[("id", "r")]);
    b.pipe(ask("p1"));
    let fx = type_and_send(&mut b, SECRET);
    assert_eq!(reply_answer(&fx), SECRET);
    // Asked again with the same id (its reply lost on the way): asked again, not answered
    // from memory.
    let again = b.pipe(ask("p2"));
    assert!(replies(&again).is_empty(), "{again:?}");
    assert_eq!(b.pending_count(), 1);
    // Nor is anything of it kept across a reload.
    let closed = b.before_close();
    assert!(!closed
        .iter()
        .any(|e| matches!(e, Effect::KeepAcrossReload(_))));
    assert_kept_from_others(&closed);

    // A form without a secret keeps its reply, as a question does.
    let mut b = with_full_events();
    let ask = |pipe| cli(pipe, Some(&login("name", None)), &[("id", "r")]);
    b.pipe(ask("p1"));
    let fx = type_and_send(&mut b, "Bob");
    let again = b.pipe(ask("p2"));
    assert_eq!(replies(&again)[0].1, replies(&fx)[0].1, "{again:?}");
}

#[test]
fn a_secret_typed_but_not_sent_is_hidden_from_others_too() {
    let mut b = with_full_events();
    b.pipe(cli(
        "p1",
        Some(&login("client_secret", None)),
        &[("id", "r")],
    ));
    settle(&mut b);
    for c in SECRET.chars() {
        b.input(Input::Key(Key::Char(c)));
    }
    // The popup closes before it is sent: its caller gets what was typed, as for any question.
    let fx = b.before_close();
    assert_eq!(reply_answer(&fx), SECRET);
    assert_kept_from_others(&fx);
    let cancelled = broadcasts(&fx, "ask-popup:cancelled");
    assert_eq!(cancelled[0]["result"]["answers"][0]["answer"], HIDDEN);
}

#[test]
fn another_sessions_copy_of_a_form_tells_nobody_its_secret() {
    // The question of session `api`, shown here too: answered here, the answer goes back to
    // the command that asked, which hands it to its caller; this session keeps it from the rest.
    let mut b = with_full_events();
    let asked = b.pipe(cli(
        "p1",
        Some(&login("access_token", None)),
        &[
            ("pane_id", ""),
            ("agent", "claude in api"),
            ("id", "r"),
            ("from_session", "api"),
            ("from_pane", "7"),
        ],
    ));
    assert_kept_from_others(&asked);
    let fx = type_and_send(&mut b, "123456");
    assert_eq!(reply_answer(&fx), "123456");
    for told in told_others(&fx) {
        assert!(!told.contains("123456"), "{told}");
    }
    let entry = &records(&fx)[0];
    assert_eq!(entry.session.as_deref(), Some("api"));
    assert!(entry.reply.contains(HIDDEN), "{}", entry.reply);
}

#[test]
fn a_field_whose_title_names_a_secret_is_one() {
    let mut b = with_full_events();
    b.pipe(cli("p1", Some(&login("code", Some("Card PIN"))), &[]));
    let fx = type_and_send(&mut b, "4321");
    assert_eq!(reply_answer(&fx), "4321");
    for told in told_others(&fx) {
        assert!(!told.contains("4321"), "{told}");
    }
    // A name and title that only hold such a word inside another are none.
    let mut b = with_full_events();
    b.pipe(cli(
        "p1",
        Some(&login("spinner", Some("Pinned version"))),
        &[],
    ));
    let fx = type_and_send(&mut b, "4321");
    let answered = broadcasts(&fx, "ask-popup:answered");
    assert_eq!(answered[0]["result"]["answers"][0]["answer"], "4321");
}
