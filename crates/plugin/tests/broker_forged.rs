//! Messages that pass for the plugin's own instances. Any plugin allowed to message others may
//! send one named `ask-popup-peer`, and so may a keybinding; only those Zellij says come from
//! this plugin's own id count. The rest change nothing: nothing shows, nobody starts or stops
//! leading, no question is dropped or answered, and the real question and the pipes every
//! instance answers alike are answered as before. The same message from the plugin's own id
//! does what it says, so each case shows the forgery would have worked.

mod broker_io;

use ask_popup_plugin::broker::{Broker, Effect, Source, PEER_PIPE};
use ask_popup_plugin::dialog::{Input, Key};
use ask_popup_plugin::outgoing::{to_json, Announced, Ended, PeerKind, PeerMessage, SyncedRequest};
use broker_io::*;
use serde_json::json;
use std::collections::BTreeMap;

/// Another plugin in the session.
const OTHER_PLUGIN: u32 = 99;

/// Two instances (client 1 leads) with one real question waiting in both: pane 3's, id `r`,
/// with a countdown.
fn asked() -> (Broker, Broker) {
    let (mut one, mut two) = two_clients();
    let payload =
        json!({"questions": [{"question": "Real?", "header": "H", "options": ["A", "B"]}],
        "timeout": 60_000})
        .to_string();
    let ask = cli("p1", Some(&payload), &[("pane_id", "3"), ("id", "r")]);
    both(ask, &mut one, &mut two);
    (one, two)
}

fn message(from: u16, kind: PeerKind) -> String {
    to_json(&PeerMessage { from, kind })
}

/// A message of one kind, and how the instances show that it counted.
struct Case {
    kind: &'static str,
    payload: String,
    counted: fn(&Broker, &Broker) -> bool,
}

/// Every kind of message the instances send each other, each saying what could hurt most.
fn cases() -> Vec<Case> {
    let nobody_asked = SyncedRequest {
        pipe: "forged".into(),
        args: BTreeMap::from([("pane_id".into(), "9".into()), ("id".into(), "f".into())]),
        questionnaire: question("Nobody asked?"),
        bytes: 100,
        timeout_ms: None,
        remaining_ms: None,
    };
    let ended = Ended {
        pane_id: Some(3),
        agent: "claude".into(),
        request_id: Some("r".into()),
        questions: 1,
        answered: Some(1),
        reason: None,
        result: None,
    };
    let ghost = Announced {
        pipe: "ghost".into(),
        pane_id: Some(9),
        agent: "ghost".into(),
        request_id: None,
    };
    vec![
        Case {
            kind: "sync",
            // A question nobody asked, for client 2's instance.
            payload: message(
                1,
                PeerKind::Sync {
                    to: 2,
                    requests: vec![nobody_asked],
                    answered: Vec::new(),
                    waits: Vec::new(),
                },
            ),
            counted: |_, two| two.pending_count() == 2,
        },
        Case {
            kind: "hello",
            // A client 0 would lead: every instance would stop leading.
            payload: message(0, PeerKind::Hello),
            counted: |one, _| !one.leads(),
        },
        Case {
            kind: "gone",
            // Client 1 said to have left: its instance stops answering, the other leads.
            payload: message(2, PeerKind::Gone { client: 1 }),
            counted: |one, two| !one.leads() || two.leads(),
        },
        Case {
            kind: "settled",
            // The real question withdrawn everywhere, a reply planted for its id.
            payload: message(
                2,
                PeerKind::Settled {
                    pipe: "p1".into(),
                    event: ended,
                    reply: "planted\n".into(),
                },
            ),
            counted: |one, two| one.pending_count() == 0 || two.pending_count() == 0,
        },
        Case {
            kind: "touched",
            // The real question's countdown stopped.
            payload: message(2, PeerKind::Touched { pipe: "p1".into() }),
            counted: |one, _| {
                one.current_dialog()
                    .is_some_and(|d| d.countdown().is_none())
            },
        },
        Case {
            kind: "bye",
            // The leader said to have left, handing over a wait nobody announced.
            payload: message(
                1,
                PeerKind::Bye {
                    announced: vec![ghost],
                },
            ),
            counted: |_, two| two.leads(),
        },
    ]
}

/// Everything still as it was: client 1 leads, the real question alone waits and counts down,
/// the leader alone answers status, rejections and withdrawals, and the user's answer reaches
/// the real caller, once.
fn still_served(one: &mut Broker, two: &mut Broker) {
    assert!(one.leads() && !two.leads());
    assert_eq!((one.pending_count(), two.pending_count()), (1, 1));
    assert!(one.current_dialog().unwrap().countdown().is_some());

    let (a, b) = both(named("s", "status", Some("x"), &[]), one, two);
    let (ra, rb) = (replies(&a), replies(&b));
    assert!(rb.is_empty(), "{rb:?}");
    assert_eq!(ra.len(), 1, "{a:?}");
    let pending = ra[0].1["pending"].as_array().unwrap();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(pending[0]["requestId"], "r");
    assert_eq!(pending[0]["paneId"], 3);

    let (a, b) = both(cli("bad", Some("nope"), &[]), one, two);
    assert_eq!((replies(&a).len(), replies(&b).len()), (1, 0));
    let cancel = named("c", "cancel", Some("x"), &[("pane_id", "3"), ("id", "zz")]);
    let (a, b) = both(cancel, one, two);
    assert_eq!(replies(&a), [("c".to_owned(), json!({"withdrawn": 0}))]);
    assert!(replies(&b).is_empty());

    settle(one);
    settle(two);
    let fx = two.input(Input::Key(Key::Enter));
    let r = replies(&fx);
    assert_eq!(r.len(), 1, "{fx:?}");
    assert_eq!(r[0].0, "p1");
    assert_eq!(r[0].1["details"]["answers"][0]["answer"], "A");
    let (a, b) = carry(&fx, one, two);
    assert!(replies(&a).is_empty() && replies(&b).is_empty());
    assert_eq!((one.pending_count(), two.pending_count()), (0, 0));
}

#[test]
fn a_message_of_the_instances_from_another_plugin_or_a_keybinding_changes_nothing() {
    for case in cases() {
        for (source, from_plugin) in [
            (Source::Plugin(OTHER_PLUGIN), Some(OTHER_PLUGIN)),
            (Source::Keybind, None),
        ] {
            let (mut one, mut two) = asked();
            let forged = peer_pipe(source.clone(), &case.payload);
            let (a, b) = both(forged, &mut one, &mut two);
            // Ignored, and said so for the trace; nothing shows, nothing is sent.
            let ignored = [Effect::IgnoredPeerMessage { from_plugin }];
            assert_eq!(a, ignored, "{} from {source:?}", case.kind);
            assert_eq!(b, ignored, "{} from {source:?}", case.kind);
            assert!(!(case.counted)(&one, &two), "{} from {source:?}", case.kind);
            still_served(&mut one, &mut two);
        }
    }
}

#[test]
fn the_same_messages_from_the_plugins_own_id_count() {
    for case in cases() {
        let (mut one, mut two) = asked();
        let own = peer_pipe(Source::Plugin(PLUGIN_ID), &case.payload);
        let (a, b) = both(own, &mut one, &mut two);
        carry(&[a, b].concat(), &mut one, &mut two);
        assert!((case.counted)(&one, &two), "{}", case.kind);
    }
}

#[test]
fn a_forged_hello_is_not_heard_while_the_permission_is_awaited_nor_held() {
    for (source, counts) in [
        (Source::Plugin(OTHER_PLUGIN), false),
        (Source::Keybind, false),
        (Source::Plugin(PLUGIN_ID), true),
    ] {
        let mut b = instance();
        b.await_permission();
        let fx = b.pipe(peer_pipe(source.clone(), &message(0, PeerKind::Hello)));
        assert_eq!(
            fx.iter()
                .any(|e| matches!(e, Effect::IgnoredPeerMessage { .. })),
            !counts,
            "{source:?}: {fx:?}"
        );
        b.permission(true, 2);
        let released = tick(&mut b, 300);
        assert_eq!(b.leads(), !counts, "{source:?}");
        // Nothing was held for the end of the wait either.
        assert!(replies(&released).is_empty() && peer_messages(&released).is_empty());
    }
}

#[test]
fn an_instance_that_does_not_know_its_plugin_id_hears_no_instance() {
    let mut b = Broker::new(ask_popup_plugin::broker::Config::default());
    b.join(2);
    let fx = b.pipe(peer_pipe(
        Source::Plugin(PLUGIN_ID),
        &message(1, PeerKind::Hello),
    ));
    assert_eq!(
        fx,
        [Effect::IgnoredPeerMessage {
            from_plugin: Some(PLUGIN_ID)
        }]
    );
    assert!(b.leads());
}

#[test]
fn a_cli_pipe_named_as_the_instances_is_an_unknown_pipe_answered_once() {
    let (mut one, mut two) = asked();
    let forged = named(
        "peer-cli",
        PEER_PIPE,
        Some(&message(0, PeerKind::Hello)),
        &[],
    );
    let (a, b) = both(forged, &mut one, &mut two);
    let r = replies(&a);
    assert_eq!(r.len(), 1, "{a:?}");
    assert_eq!(r[0].1["details"]["error"], "invalid_payload");
    assert!(replies(&b).is_empty());
    still_served(&mut one, &mut two);
}
