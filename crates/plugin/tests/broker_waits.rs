//! Waits in dialogs that are not ours (the `blocked` pipe, `ask-popup blocked`): the caller's
//! pane is marked and the blocked pair said as for a question, and both end with the wait,
//! whoever leads by then.

mod broker_io;

use ask_popup_plugin::broker::{Broker, Config, Effect, MAX_WAITS};
use ask_popup_plugin::dialog::{Input, Key};
use broker_io::*;
use serde_json::json;

fn blocked(pipe: &str, id: &str, active: bool) -> ask_popup_plugin::broker::PipeIn {
    let active = if active { "true" } else { "false" };
    named(
        pipe,
        "blocked",
        Some("wait"),
        &[
            ("pane_id", "3"),
            ("agent", "pi"),
            ("id", id),
            ("active", active),
        ],
    )
}

fn opened_closed(fx: &[Effect]) -> (usize, usize) {
    let all = broadcasts(fx, "ask-popup:blocked");
    let opened = all.iter().filter(|e| e["active"] == true).count();
    (opened, all.len() - opened)
}

fn titled() -> Broker {
    let mut b = Broker::new(Config::default());
    b.pane_titles([(3, "pi".to_owned())]);
    b
}

#[test]
fn a_wait_marks_its_pane_says_the_blocked_pair_and_is_answered_at_once() {
    let mut b = titled();
    let fx = b.pipe(blocked("w1", "confirm-1", true));
    let r = replies(&fx);
    assert_eq!(r.len(), 1, "{fx:?}");
    assert_eq!(r[0].1, json!({"active": true, "waiting": 1}));
    assert!(fx.contains(&Effect::RenamePane {
        pane: 3,
        title: "⏳ pi".into()
    }));
    let opened = broadcasts(&fx, "ask-popup:blocked");
    assert_eq!(
        opened,
        vec![
            json!({"active": true, "label": "Waiting for user response", "paneId": 3,
            "agent": "pi", "pending": 1, "requestId": "confirm-1"})
        ]
    );
    assert_eq!(broadcasts(&fx, "herdr:blocked"), opened);
    // Nothing shows: the dialog is the agent's own.
    assert!(!fx.contains(&Effect::Show));
    assert_eq!(b.pending_count(), 0);

    // Said again: nothing new.
    let fx = b.pipe(blocked("w2", "confirm-1", true));
    assert_eq!(opened_closed(&fx), (0, 0));
    assert!(renames(&fx).is_empty());

    let fx = b.pipe(blocked("w3", "confirm-1", false));
    assert_eq!(replies(&fx)[0].1, json!({"active": false, "waiting": 0}));
    assert_eq!(opened_closed(&fx), (0, 1));
    assert_eq!(broadcasts(&fx, "ask-popup:blocked")[0]["pending"], 0);
    assert!(fx.contains(&Effect::RenamePane {
        pane: 3,
        title: String::new()
    }));
    // An end said twice, or of a wait never started: nothing.
    let fx = b.pipe(blocked("w4", "confirm-1", false));
    assert_eq!(opened_closed(&fx), (0, 0));
    assert!(renames(&fx).is_empty());
}

#[test]
fn a_wait_without_an_id_is_refused_clearly() {
    let mut b = titled();
    let fx = b.pipe(named("w", "blocked", Some("wait"), &[("pane_id", "3")]));
    let r = replies(&fx);
    assert_eq!(r[0].1["details"]["error"], "invalid_payload", "{fx:?}");
    assert!(r[0].1["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("id"));
    assert_eq!(opened_closed(&fx), (0, 0));
    assert!(renames(&fx).is_empty());
}

#[test]
fn the_mark_stays_while_a_question_or_a_wait_of_the_pane_stands() {
    let mut b = titled();
    b.pipe(blocked("w1", "confirm", true));
    let fx = b.pipe(cli(
        "p1",
        Some(&question("Q?")),
        &[("pane_id", "3"), ("id", "q")],
    ));
    assert_eq!(broadcasts(&fx, "ask-popup:blocked")[0]["pending"], 2);
    // Marked once only.
    assert!(renames(&fx).is_empty(), "{fx:?}");
    // The question answered: the wait still stands, the mark stays.
    settle(&mut b);
    let fx = b.input(Input::Key(Key::Enter));
    assert_eq!(replies(&fx).len(), 1);
    assert!(renames(&fx).is_empty(), "{fx:?}");
    // The wait ends: the mark comes off.
    let fx = b.pipe(blocked("w2", "confirm", false));
    assert_eq!(renames(&fx), vec![(3, String::new())]);

    // The other way round.
    b.pipe(cli(
        "p2",
        Some(&question("Q?")),
        &[("pane_id", "3"), ("id", "q2")],
    ));
    b.pipe(blocked("w3", "confirm2", true));
    let fx = b.pipe(blocked("w4", "confirm2", false));
    assert!(renames(&fx).is_empty(), "{fx:?}");
}

#[test]
fn the_waits_count_in_the_status_line() {
    let mut b = Broker::new(Config {
        zjstatus: true,
        ..Config::default()
    });
    let fx = b.pipe(blocked("w1", "a", true));
    let line = fx.iter().find_map(|e| match e {
        Effect::Broadcast { name, payload } if name == "zjstatus" => Some(payload.clone()),
        _ => None,
    });
    assert_eq!(
        line.as_deref(),
        Some("zjstatus::pipe::pipe_ask::⏳ 1 waiting")
    );
}

#[test]
fn a_closed_pane_or_a_closing_popup_ends_its_waits() {
    let mut b = titled();
    b.pipe(blocked("w1", "a", true));
    let fx = b.pane_closed(3);
    assert_eq!(opened_closed(&fx), (0, 1));
    // Named by the title the pane had.
    assert_eq!(broadcasts(&fx, "ask-popup:blocked")[0]["agent"], "pi");
    assert!(
        renames(&fx).is_empty(),
        "a closed pane is not renamed: {fx:?}"
    );

    let mut b = titled();
    b.pipe(blocked("w1", "a", true));
    b.pipe(blocked("w2", "b", true));
    let fx = b.before_close();
    assert_eq!(opened_closed(&fx), (0, 2));
    assert_eq!(renames(&fx), vec![(3, String::new())]);
}

#[test]
fn waits_beyond_the_limit_are_busy() {
    let mut b = titled();
    for i in 0..MAX_WAITS {
        let fx = b.pipe(blocked(&format!("w{i}"), &format!("id{i}"), true));
        assert_eq!(replies(&fx)[0].1["active"], true);
    }
    let fx = b.pipe(blocked("over", "one-more", true));
    assert_eq!(replies(&fx)[0].1["details"]["error"], "busy", "{fx:?}");
    assert_eq!(opened_closed(&fx), (0, 0));
}

#[test]
fn two_instances_keep_the_waits_alike_and_the_leader_alone_says_and_renames() {
    let (mut one, mut two) = two_clients();
    one.pane_titles([(3, "pi".to_owned())]);
    two.pane_titles([(3, "pi".to_owned())]);
    let (a, b) = both(blocked("w1", "c", true), &mut one, &mut two);
    assert_eq!(opened_closed(&a), (1, 0));
    assert_eq!(opened_closed(&b), (0, 0));
    assert_eq!(renames(&a).len(), 1);
    assert!(renames(&b).is_empty());
    assert_eq!(replies(&a).len(), 1);
    assert!(replies(&b).is_empty());
    let (a, b) = both(blocked("w2", "c", false), &mut one, &mut two);
    assert_eq!(opened_closed(&a), (0, 1));
    assert_eq!(opened_closed(&b), (0, 0));
    assert_eq!(renames(&a), vec![(3, String::new())]);
}

#[test]
fn a_leader_that_leaves_hands_its_waits_over_and_the_next_one_ends_them() {
    let (mut one, mut two) = two_clients();
    one.pane_titles([(3, "pi".to_owned())]);
    two.pane_titles([(3, "pi".to_owned())]);
    let (opened, _) = both(blocked("w1", "c", true), &mut one, &mut two);
    assert_eq!(opened_closed(&opened), (1, 0));
    // Client 1 leaves: client 2's instance leads and owes the end.
    let listed = two.attached(&[1]);
    assert!(peer_messages(&listed).is_empty());
    let left = two.attached(&[]);
    let (from_one, from_two) = carry(&left, &mut one, &mut two);
    assert_eq!(opened_closed(&from_one), (0, 0), "{from_one:?}");
    assert_eq!(opened_closed(&from_two), (0, 0), "{from_two:?}");
    assert!(two.leads());
    let fx = two.pipe(blocked("w2", "c", false));
    assert_eq!(opened_closed(&fx), (0, 1), "{fx:?}");
    assert_eq!(renames(&fx), vec![(3, String::new())]);

    // Ended before the hand-over reached the next leader: it says the end at once.
    let (mut one, mut two) = two_clients();
    both(blocked("w1", "c", true), &mut one, &mut two);
    two.pipe(blocked("w2", "c", false));
    two.attached(&[1]);
    let left = two.attached(&[]);
    let (_, from_two) = carry(&left, &mut one, &mut two);
    assert_eq!(opened_closed(&from_two), (0, 1), "{from_two:?}");
}

#[test]
fn a_newcomer_learns_the_waits_and_takes_the_mark_off_when_it_leads() {
    let mut one = instance();
    one.pane_titles([(3, "pi".to_owned())]);
    let hello = one.join(1);
    let mut two = instance();
    two.pane_titles([(3, "⏳ pi".to_owned())]);
    carry(&hello, &mut one, &mut two);
    one.pipe(blocked("w1", "c", true));
    // Client 2 attaches after the wait started: the leader tells it.
    let hello_two = two.join(2);
    carry(&hello_two, &mut one, &mut two);
    // Client 1 leaves; client 2's instance leads, and the wait's end takes the mark off.
    two.attached(&[1]);
    let left = two.attached(&[]);
    carry(&left, &mut one, &mut two);
    assert!(two.leads());
    let fx = two.pipe(blocked("w2", "c", false));
    assert_eq!(opened_closed(&fx), (0, 1), "{fx:?}");
    assert_eq!(renames(&fx), vec![(3, String::new())], "{fx:?}");
}
