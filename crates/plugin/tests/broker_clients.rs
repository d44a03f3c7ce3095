//! Several attached clients: Zellij runs one plugin instance per client and each gets every
//! pipe message. Two brokers stand for two instances here, with their peer messages carried
//! between them as Zellij would: the question shows in both, the first answer wins, the
//! other drops it without replying, and only the leader marks titles and broadcasts.

mod broker_io;

use ask_popup_plugin::broker::{Broker, Effect, Source};
use ask_popup_plugin::dialog::{Input, Key};
use broker_io::*;

/// Both instances past their key guard, then Enter in client 1's (the leader's) or client 2's.
fn enter_in(leader: bool, one: &mut Broker, two: &mut Broker) -> Vec<Effect> {
    settle(one);
    settle(two);
    let answering = if leader { one } else { two };
    answering.input(Input::Key(Key::Enter))
}

#[test]
fn a_newcomer_learns_who_leads_whatever_the_order() {
    let (one, two) = two_clients();
    assert!(one.leads());
    assert!(!two.leads());
    // A third client with a lower id than the others would lead.
    let mut zero = instance();
    let hello = zero.join(0);
    let (mut one, mut two) = (one, two);
    carry(&hello, &mut one, &mut two);
    assert!(!one.leads() && !two.leads());
}

#[test]
fn the_question_shows_on_both_and_an_answer_in_either_releases_the_caller_once() {
    for answer_in_leader in [true, false] {
        let (mut one, mut two) = two_clients();
        one.pane_titles([(3, "claude".to_owned())]);
        two.pane_titles([(3, "claude".to_owned())]);
        let ask = cli(
            "p1",
            Some(&question("Pick?")),
            &[("pane_id", "3"), ("id", "r")],
        );
        let (fx1, fx2) = both(ask, &mut one, &mut two);
        for fx in [&fx1, &fx2] {
            assert!(fx.contains(&Effect::Block("p1".into())));
            assert!(fx.contains(&Effect::Show));
        }
        // Exactly one title mark and one blocked broadcast, from the leader.
        assert_eq!(renames(&fx1), [(3, "⏳ claude".to_owned())]);
        assert!(renames(&fx2).is_empty());
        assert_eq!(broadcasts(&fx1, "ask-popup:blocked").len(), 1);
        assert!(broadcasts(&fx2, "ask-popup:blocked").is_empty());

        let fx = enter_in(answer_in_leader, &mut one, &mut two);
        let r = replies(&fx);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].1["details"]["answers"][0]["answer"], "A");
        // The other instance drops it at once, without replying.
        let (a, b) = carry(&fx, &mut one, &mut two);
        assert!(replies(&a).is_empty() && replies(&b).is_empty());
        assert_eq!(one.pending_count(), 0);
        assert_eq!(two.pending_count(), 0);
        let (leader_fx, follower_fx) = if answer_in_leader {
            ([fx.clone(), a].concat(), b)
        } else {
            (a, [fx.clone(), b].concat())
        };
        assert!(leader_fx.contains(&Effect::Hide) || answer_in_leader);
        assert!(follower_fx.contains(&Effect::Hide));
        // The blocked pair closes once, the title comes back once: by the leader.
        let closed = broadcasts(&leader_fx, "ask-popup:blocked");
        assert_eq!(closed.len(), 1, "{leader_fx:?}");
        assert_eq!(closed[0]["active"], false);
        assert_eq!(broadcasts(&leader_fx, "ask-popup:answered").len(), 1);
        assert!(broadcasts(&follower_fx, "ask-popup:blocked").is_empty());
        assert_eq!(renames(&leader_fx), [(3, String::new())]);
        assert!(renames(&follower_fx).is_empty());
        // The caller's end-of-input message is let go by both.
        let (a, b) = both(cli("p1", None, &[]), &mut one, &mut two);
        assert!(replies(&a).is_empty() && replies(&b).is_empty());
    }
}

#[test]
fn asked_again_after_an_answer_in_either_client_the_leader_alone_repeats_it() {
    for answer_in_leader in [true, false] {
        let (mut one, mut two) = two_clients();
        let args = [("pane_id", "3"), ("id", "r")];
        both(
            cli("p1", Some(&question("Pick?")), &args),
            &mut one,
            &mut two,
        );
        let fx = enter_in(answer_in_leader, &mut one, &mut two);
        let answered = replies(&fx);
        assert_eq!(answered.len(), 1);
        carry(&fx, &mut one, &mut two);
        // The caller's CLI was dropped before the reply reached it; it asks again.
        let (a, b) = both(
            cli("p2", Some(&question("Pick?")), &args),
            &mut one,
            &mut two,
        );
        let (ra, rb) = (replies(&a), replies(&b));
        assert_eq!(ra.len(), 1, "the leader repeats the reply: {a:?}");
        assert_eq!(ra[0].0, "p2");
        assert_eq!(ra[0].1, answered[0].1);
        assert!(rb.is_empty(), "{b:?}");
        assert_eq!((one.pending_count(), two.pending_count()), (0, 0));
    }
}

#[test]
fn what_every_instance_decides_alike_is_answered_once_by_the_leader() {
    let (mut one, mut two) = two_clients();
    // A rejection, the status pipe, a withdrawal, a superseded request.
    let (a, b) = both(cli("bad", Some("nope"), &[]), &mut one, &mut two);
    assert_eq!((replies(&a).len(), replies(&b).len()), (1, 0));
    let (a, b) = both(named("s", "status", Some(""), &[]), &mut one, &mut two);
    assert_eq!((replies(&a).len(), replies(&b).len()), (1, 0));
    both(
        cli(
            "p1",
            Some(&question("Q?")),
            &[("pane_id", "4"), ("id", "x")],
        ),
        &mut one,
        &mut two,
    );
    let (a, b) = both(
        cli(
            "p2",
            Some(&question("Q?")),
            &[("pane_id", "4"), ("id", "x")],
        ),
        &mut one,
        &mut two,
    );
    assert_eq!(replies(&a)[0].1["details"]["error"], "superseded");
    assert!(replies(&b).is_empty());
    let (a, b) = both(
        named("c", "cancel", Some(""), &[("pane_id", "4"), ("id", "x")]),
        &mut one,
        &mut two,
    );
    assert_eq!(
        replies(&a).len(),
        2,
        "the aborted request and the cancel caller"
    );
    assert!(replies(&b).is_empty());
    assert_eq!((one.pending_count(), two.pending_count()), (0, 0));
}

#[test]
fn a_key_in_one_client_stops_the_countdown_in_the_other() {
    let (mut one, mut two) = two_clients();
    let payload = serde_json::json!({"questions": [{"question": "Q?", "header": "H", "options": ["A", "B"]}], "timeout": 3000}).to_string();
    both(cli("p", Some(&payload), &[]), &mut one, &mut two);
    settle(&mut one);
    settle(&mut two);
    let fx = two.input(Input::Key(Key::Down));
    carry(&fx, &mut one, &mut two);
    assert!(one.current_dialog().unwrap().countdown().is_none());
    // The leader would have timed it out by now; it is still waiting for the user.
    for _ in 0..5 {
        assert!(replies(&tick(&mut one, 1000)).is_empty());
    }
    assert_eq!(one.pending_count(), 1);
}

#[test]
fn a_timeout_is_decided_by_the_leader_and_the_other_drops_the_request() {
    let (mut one, mut two) = two_clients();
    let payload = serde_json::json!({"questions": [{"question": "Q?", "header": "H", "options": ["A", "B"]}], "timeout": 2000}).to_string();
    both(cli("p", Some(&payload), &[]), &mut one, &mut two);
    let mut replied = 0;
    for _ in 0..3 {
        let a = tick(&mut one, 1000);
        let b = tick(&mut two, 1000);
        replied += replies(&a).len() + replies(&b).len();
        carry(&a, &mut one, &mut two);
    }
    assert_eq!(replied, 1);
    assert_eq!((one.pending_count(), two.pending_count()), (0, 0));
}

#[test]
fn messages_wait_for_the_permission_and_the_hellos_and_their_clis_with_them() {
    let mut b = instance();
    b.await_permission();
    let fx = b.pipe(cli("p1", Some(&question("Q?")), &[("id", "a")]));
    assert_eq!(fx, [Effect::Block("p1".into())]);
    let fx = b.pipe(named("s", "status", Some(""), &[]));
    assert_eq!(fx, [Effect::Block("s".into())]);
    assert_eq!(b.pending_count(), 0);

    // Granted: hello, and a moment to hear the others'.
    let fx = b.permission(true, 2);
    assert_eq!(peer_messages(&fx).len(), 1);
    assert!(fx.contains(&Effect::SetTimer(0.3)));
    assert!(replies(&fx).is_empty());
    // Client 1's instance answers meanwhile (a hello is never held): it leads.
    let mut one = instance();
    let hello = one.join(1);
    for msg in peer_messages(&hello) {
        b.pipe(msg);
    }
    assert!(!b.leads());
    // The window ends: the question is asked, and the status reply is the leader's to give.
    let fx = tick(&mut b, 300);
    assert!(fx.contains(&Effect::Block("p1".into())));
    assert!(replies(&fx).is_empty());
    assert_eq!(b.pending_count(), 1);
}

#[test]
fn a_denied_permission_answers_what_it_can_at_once() {
    let mut b = instance();
    b.await_permission();
    b.pipe(cli("bad", Some("nope"), &[]));
    let fx = b.permission(false, 1);
    assert!(peer_messages(&fx).is_empty());
    assert_eq!(replies(&fx).len(), 1);
    assert!(
        !fx.contains(&Effect::Hide),
        "the popup shows why nothing works"
    );
}

#[test]
fn a_client_that_attaches_later_is_told_what_is_pending_and_shows_it_without_hiding_the_popup() {
    // Client 1's instance serves alone, a question with a countdown waits, a second one too.
    let mut one = instance();
    one.join(1);
    one.pane_titles([(3, "claude".to_owned())]);
    let timed = serde_json::json!({"questions": [{"question": "Q?", "header": "H", "options": ["A", "B"]}], "timeout": 5000}).to_string();
    one.pipe(cli("p1", Some(&timed), &[("pane_id", "3"), ("id", "r1")]));
    one.pipe(cli(
        "p2",
        Some(&question("Other?")),
        &[("agent", "codex"), ("id", "r2")],
    ));
    tick(&mut one, 1000);
    tick(&mut one, 1000);
    let remaining = one.current_dialog().unwrap().countdown().unwrap();

    // Client 2 attaches: its instance loads with nothing, hears the tab updates, is granted,
    // and says hello.
    let mut two = instance();
    two.await_permission();
    two.application_state_heard(2);
    let hello = two.permission(true, 2);
    let (from_one, in_two) = carry(&hello, &mut one, &mut two);
    assert!(replies(&from_one).is_empty() && replies(&in_two).is_empty());
    assert!(
        !in_two.iter().any(|e| matches!(e, Effect::Block(_))),
        "the callers are held already: {in_two:?}"
    );
    assert_eq!(two.pending_count(), 2);
    // Shown where client 1's instance placed the pane (its client's id is the lower).
    assert!(in_two.contains(&Effect::ShowAsPlaced), "{in_two:?}");
    assert!(!in_two.contains(&Effect::Show), "{in_two:?}");
    assert_eq!(two.current_dialog().unwrap().countdown(), Some(remaining));
    assert_eq!(
        two.current_dialog().unwrap().questionnaire(),
        one.current_dialog().unwrap().questionnaire()
    );
    // Its hello window ends: the popup stays (an instance with nothing to show would hide it
    // for every client).
    let fx = tick(&mut two, 300);
    assert!(!fx.contains(&Effect::Hide), "{fx:?}");
    assert!(one.leads() && !two.leads());

    // The user answers in the new client: its caller gets one reply, with its id.
    settle(&mut two);
    let fx = two.input(Input::Key(Key::Enter));
    let r = replies(&fx);
    assert_eq!(r.len(), 1, "{fx:?}");
    assert_eq!(
        (r[0].0.as_str(), &r[0].1["details"]["requestId"]),
        ("p1", &serde_json::json!("r1"))
    );
    let (a, b) = carry(&fx, &mut one, &mut two);
    assert!(replies(&a).is_empty() && replies(&b).is_empty());
    assert_eq!((one.pending_count(), two.pending_count()), (1, 1));
    // The leader marks and restores the title it marked.
    assert_eq!(renames(&a), [(3, String::new())]);

    // What is left is the same request in both, answered once, by the pipe it came on.
    let (a, b) = both(cli("p2", None, &[]), &mut one, &mut two);
    assert!(replies(&a).is_empty() && replies(&b).is_empty());
    let fx = one.pipe(named(
        "c",
        "cancel",
        Some("x"),
        &[("agent", "codex"), ("id", "r2")],
    ));
    let fx2 = two.pipe(named(
        "c",
        "cancel",
        Some("x"),
        &[("agent", "codex"), ("id", "r2")],
    ));
    let r: Vec<_> = replies(&fx).into_iter().chain(replies(&fx2)).collect();
    assert_eq!(r.iter().filter(|(p, _)| p == "p2").count(), 1, "{r:?}");
    assert_eq!((one.pending_count(), two.pending_count()), (0, 0));
}

#[test]
fn a_newcomer_is_told_nothing_by_an_instance_that_does_not_lead() {
    let (mut one, mut two) = two_clients();
    both(cli("p1", Some(&question("Q?")), &[]), &mut one, &mut two);
    let mut three = instance();
    three.await_permission();
    let hello = three.permission(true, 3);
    // Delivered to two alone: it answers hello, and leaves the pending requests to the leader.
    let fx = two.pipe(peer_messages(&hello).remove(0));
    assert_eq!(peer_messages(&fx).len(), 1);
    let told = three.pipe(peer_messages(&fx).remove(0));
    assert_eq!(three.pending_count(), 0, "{told:?}");
    let fx = one.pipe(peer_messages(&hello).remove(0));
    for msg in peer_messages(&fx) {
        three.pipe(msg);
    }
    assert_eq!(three.pending_count(), 1);
}

#[test]
fn a_question_answered_while_a_newcomer_loaded_is_not_asked_there() {
    let mut one = instance();
    one.join(1);
    let mut two = instance();
    two.await_permission();
    // The question reaches both; two holds it (it is still loading); one's user answers it.
    one.pipe(cli("p1", Some(&question("Q?")), &[("id", "r")]));
    two.pipe(cli("p1", Some(&question("Q?")), &[("id", "r")]));
    settle(&mut one);
    let fx = one.input(Input::Key(Key::Enter));
    assert_eq!(replies(&fx).len(), 1);
    for msg in peer_messages(&fx) {
        two.pipe(msg);
    }
    let hello = two.permission(true, 2);
    carry(&hello, &mut one, &mut two);
    let fx = tick(&mut two, 300);
    assert_eq!(two.pending_count(), 0, "{fx:?}");
    assert!(replies(&fx).is_empty());
}

#[test]
fn a_second_grant_changes_nothing_in_an_instance_that_serves() {
    let mut one = instance();
    one.await_permission();
    one.application_state_heard(1);
    one.permission(true, 1);
    tick(&mut one, 300);
    one.pipe(cli("p1", Some(&question("Q?")), &[]));
    // Zellij tells every instance of a grant given without a client.
    assert!(one.permission(true, 1).is_empty());
    // Messages are still answered at once.
    let fx = one.pipe(named("s", "status", Some("x"), &[]));
    assert_eq!(replies(&fx).len(), 1);
    assert_eq!(one.pending_count(), 1);
}

#[test]
fn an_instance_that_announced_a_request_as_leader_tells_its_end_though_it_no_longer_leads() {
    // Client 2's instance loads while client 1's serves; a question reaches both, and client
    // 2's holds it. Its hello window ends before client 1's hello comes back (a busy host): it
    // takes itself for the leader and announces the request.
    let mut one = instance();
    one.join(1);
    let mut two = instance();
    two.await_permission();
    let ask = cli(
        "p1",
        Some(&question("Q?")),
        &[("pane_id", "3"), ("id", "r")],
    );
    let first = one.pipe(ask.clone());
    two.pipe(ask);
    let hello = two.permission(true, 2);
    let released = tick(&mut two, 300);
    assert_eq!(
        broadcasts(&released, "ask-popup:blocked")[0]["active"],
        true
    );
    carry(&hello, &mut one, &mut two);
    assert!(one.leads() && !two.leads());

    // The user answers in client 1: each instance that said the agent waits says it no
    // longer does, so every `active:true` has its `active:false`.
    settle(&mut one);
    let fx = one.input(Input::Key(Key::Enter));
    let (a, b) = carry(&fx, &mut one, &mut two);
    let all_one = [first, fx, a].concat();
    let all_two = [released, b.clone()].concat();
    for fx in [&all_one, &all_two] {
        let blocked = broadcasts(fx, "ask-popup:blocked");
        let opened = blocked.iter().filter(|e| e["active"] == true).count();
        let closed = blocked.iter().filter(|e| e["active"] == false).count();
        assert_eq!((opened, closed), (1, 1), "{fx:?}");
    }
    assert_eq!(broadcasts(&b, "ask-popup:answered").len(), 1);
    assert_eq!((one.pending_count(), two.pending_count()), (0, 0));
}

/// How many `ask-popup:blocked` broadcasts among `fx` open a wait, and how many close one.
fn blocked_pairs(fx: &[Effect]) -> (usize, usize) {
    let blocked = broadcasts(fx, "ask-popup:blocked");
    let opened = blocked.iter().filter(|e| e["active"] == true).count();
    (opened, blocked.len() - opened)
}

/// Client 1 detaches: client 2's instance, which saw client 1 listed in a tab update before,
/// no longer sees it there. Every effect of client 2's instance, and those of client 1's.
fn client_one_leaves(one: &mut Broker, two: &mut Broker) -> (Vec<Effect>, Vec<Effect>) {
    let listed = two.attached(&[1]);
    assert!(peer_messages(&listed).is_empty(), "{listed:?}");
    let left = two.attached(&[]);
    let (a, b) = carry(&left, one, two);
    ([left, b].concat(), a)
}

#[test]
fn an_instance_whose_client_left_says_bye_and_the_next_one_answers_for_everyone() {
    let (mut one, mut two) = two_clients();
    // Never listed: perhaps not listed yet, or a mirrored session. Nothing happens.
    let fx = two.attached(&[]);
    assert!(peer_messages(&fx).is_empty() && one.leads());
    // Listed, then no longer: client 1 has left. Client 2's instance leads and tells client
    // 1's, which says bye and no longer leads.
    let (b, a) = client_one_leaves(&mut one, &mut two);
    assert_eq!(peer_messages(&a).len(), 1, "{a:?}");
    assert!(!one.leads() && two.leads(), "{b:?}");
    // What every instance decides alike is now answered by client 2's instance.
    let (a, b) = both(named("s", "status", Some("x"), &[]), &mut one, &mut two);
    assert!(replies(&a).is_empty());
    assert_eq!(replies(&b).len(), 1);
    let (a, b) = both(cli("bad", Some("[1]"), &[]), &mut one, &mut two);
    assert!(replies(&a).is_empty());
    assert_eq!(replies(&b)[0].1["details"]["error"], "invalid_payload");
}

#[test]
fn in_a_session_whose_tab_updates_list_no_other_client_nobody_is_taken_for_gone() {
    // A mirrored session: every tab update lists no other client.
    let (mut one, mut two) = two_clients();
    for _ in 0..3 {
        assert!(peer_messages(&one.attached(&[])).is_empty());
        assert!(peer_messages(&two.attached(&[])).is_empty());
    }
    assert!(one.leads() && !two.leads());
}

#[test]
fn the_waits_a_leaving_instance_announced_are_closed_once_by_the_next_leader() {
    for ended_before_the_bye in [false, true] {
        let (mut one, mut two) = two_clients();
        let ask = cli(
            "p1",
            Some(&question("Q?")),
            &[("pane_id", "3"), ("id", "r")],
        );
        let (asked_one, asked_two) = both(ask, &mut one, &mut two);
        assert_eq!(blocked_pairs(&asked_one), (1, 0));
        settle(&mut two);
        let mut all_two = asked_two;
        if ended_before_the_bye {
            // Answered in client 2, whose `settled` never reached client 1's instance (Zellij
            // keeps it from an instance whose client has left while another one loads).
            all_two.extend(two.input(Input::Key(Key::Enter)));
        }
        let (b, bye) = client_one_leaves(&mut one, &mut two);
        all_two.extend(b);
        if !ended_before_the_bye {
            settle(&mut two);
            let fx = two.input(Input::Key(Key::Enter));
            let (c, d) = carry(&fx, &mut one, &mut two);
            all_two.extend(fx);
            all_two.extend(d);
            assert_eq!(blocked_pairs(&c), (0, 0), "{c:?}");
        }
        // Client 1's instance opened the wait; client 2's closes it, once, and says how it
        // ended, once.
        let one_said = [asked_one, bye].concat();
        assert_eq!(blocked_pairs(&one_said), (1, 0));
        assert_eq!(blocked_pairs(&all_two), (0, 1), "{all_two:?}");
        assert_eq!(broadcasts(&one_said, "ask-popup:answered").len(), 0);
        assert_eq!(
            broadcasts(&all_two, "ask-popup:answered").len(),
            1,
            "{all_two:?}"
        );
        assert_eq!(two.pending_count(), 0);
    }
}

#[test]
fn an_instance_whose_client_left_holds_no_caller_that_the_leader_answers_at_once() {
    let (mut one, mut two) = two_clients();
    let ask = || {
        cli(
            "p1",
            Some(&question("Q?")),
            &[("pane_id", "3"), ("id", "r")],
        )
    };
    both(ask(), &mut one, &mut two);
    client_one_leaves(&mut one, &mut two);
    settle(&mut two);
    let fx = two.input(Input::Key(Key::Enter));
    assert_eq!(replies(&fx).len(), 1);
    carry(&fx, &mut one, &mut two);
    // The caller missed the reply and asks again with the same id: the leader repeats it at
    // once. Client 1's instance, which never heard the answer, must not hold that CLI: its
    // hold could come after the reply and keep the caller waiting for good.
    let mut again = ask();
    again.source = Source::Cli("p2".to_owned());
    let (a, b) = both(again, &mut one, &mut two);
    assert_eq!(replies(&b).len(), 1, "{b:?}");
    assert!(!a.iter().any(|e| matches!(e, Effect::Block(_))), "{a:?}");
    assert!(replies(&a).is_empty());
    // Nor does it take part in what the others answer at once.
    let (a, b) = both(named("s", "status", Some("x"), &[]), &mut one, &mut two);
    assert!(a.is_empty() && replies(&b).len() == 1, "{a:?}");
}

#[test]
fn an_instance_whose_client_comes_back_joins_again_and_drops_what_ended_meanwhile() {
    let (mut one, mut two) = two_clients();
    client_one_leaves(&mut one, &mut two);
    both(
        cli("p1", Some(&question("Q?")), &[("pane_id", "3")]),
        &mut one,
        &mut two,
    );
    both(
        cli("p2", Some(&question("R?")), &[("pane_id", "4")]),
        &mut one,
        &mut two,
    );
    // Client 1's instance took neither (it holds no caller while its client is away); p1
    // is answered in client 2.
    settle(&mut two);
    two.input(Input::Key(Key::Enter));
    assert_eq!((one.pending_count(), two.pending_count()), (0, 1));
    // A client attaches with id 1: the instance is back, says hello, and the leader tells it
    // what is pending; it leads again once it has heard.
    let back = one.attached(&[2]);
    let (a, _) = carry(&back, &mut one, &mut two);
    assert_eq!(one.pending_count(), 1);
    assert!(one.leads() && !two.leads());
    let released = tick(&mut one, 300);
    assert!(replies(&[a, released].concat()).is_empty());
    let fx = one.pipe(named("s", "status", Some("x"), &[]));
    assert_eq!(
        replies(&fx)[0].1["pending"].as_array().map(Vec::len),
        Some(1)
    );
}

#[test]
fn a_client_attaching_while_a_question_shows_shows_it_again_and_only_then() {
    // Zellij hides the floating panes of the tab a web client attaches to, for every client.
    let mut one = instance();
    one.join(1);
    assert!(one.attached(&[]).is_empty());
    one.pipe(cli("p1", Some(&question("Q?")), &[("id", "r1")]));
    assert!(one.is_visible());
    let fx = one.attached(&[2]);
    assert!(fx.contains(&Effect::Show), "{fx:?}");
    // The same clients again (a tab changed): nothing to show again.
    let fx = one.attached(&[2]);
    assert!(!fx.contains(&Effect::Show), "{fx:?}");
    // Nothing pending: a client attaching shows nothing.
    let mut idle = instance();
    idle.join(1);
    let fx = idle.attached(&[2]);
    assert!(!fx.contains(&Effect::Show), "{fx:?}");
}

#[test]
fn a_question_found_hidden_just_after_a_client_attached_shows_again_a_few_times_and_only_then() {
    use ask_popup_plugin::broker::RESHOW_WINDOW_MS;
    let shows = |fx: &[Effect]| fx.iter().filter(|e| **e == Effect::Show).count();
    let mut one = instance();
    one.join(1);
    one.attached(&[]);
    one.pipe(cli("p1", Some(&question("Q?")), &[("id", "r1")]));
    // Hidden before any client attached (the person toggled the floating panes): it stays.
    assert!(one.popup_seen(false).is_empty());
    one.attached(&[2]);
    // On screen: nothing to do.
    assert!(one.popup_seen(true).is_empty());
    // Hidden by another hand while the new client's instance loads: shown again. Updates sent
    // before it showed again say it is hidden still: nothing more until one says it shows.
    // Five times at most.
    for _ in 0..5 {
        assert_eq!(shows(&one.popup_seen(false)), 1);
        assert!(one.popup_seen(false).is_empty());
        assert!(one.popup_seen(true).is_empty());
    }
    assert!(one.popup_seen(false).is_empty());
    // Another client attaches: a new moment, which ends.
    one.attached(&[2, 3]);
    assert_eq!(shows(&one.popup_seen(false)), 1);
    one.set_clock(one.now_ms() + RESHOW_WINDOW_MS + 1);
    assert!(one.popup_seen(false).is_empty());
    // Hidden by the person (the hide key) just after a client attached: it stays hidden.
    let mut two = instance();
    two.join(1);
    two.attached(&[]);
    two.pipe(cli("p2", Some(&question("Q?")), &[("id", "r2")]));
    two.attached(&[2]);
    settle(&mut two);
    let fx = two.input(Input::Key(Key::Hide));
    assert!(fx.contains(&Effect::Hide), "{fx:?}");
    assert!(two.popup_seen(false).is_empty());
    // Nothing pending: nothing shows.
    let mut idle = instance();
    idle.join(1);
    idle.attached(&[2]);
    assert!(idle.popup_seen(false).is_empty());
}

#[test]
fn a_newcomer_that_says_hello_while_the_leader_still_listens_is_told_what_it_missed_later() {
    use ask_popup_plugin::broker::HELLO_WINDOW_MS;
    // The first question loaded the plugin: its instance shows it and listens for hellos.
    let mut one = instance();
    one.await_permission();
    one.pipe(cli("p1", Some(&question("Q?")), &[("id", "r1")]));
    let hello_one = one.permission(true, 1);
    // A second client attaches meanwhile; each hears the other's hello.
    let mut two = instance();
    two.await_permission();
    let hello_two = two.permission(true, 2);
    let (answer, _) = carry(&hello_two, &mut one, &mut two);
    let sync = |fx: &[Effect]| {
        peer_messages(fx)
            .iter()
            .any(|m| m.payload.as_deref().unwrap_or("").contains("\"sync\""))
    };
    assert!(!sync(&answer), "{answer:?}");
    carry(&hello_one, &mut one, &mut two);
    // The newcomer's window ends first: nothing there yet.
    let fx = tick(&mut two, HELLO_WINDOW_MS);
    assert!(fx.contains(&Effect::Hide), "{fx:?}");
    // The leader's ends: it asks its question and tells the newcomer, which shows it.
    let fx = tick(&mut one, HELLO_WINDOW_MS);
    assert!(fx.contains(&Effect::Block("p1".into())), "{fx:?}");
    assert!(sync(&fx), "{fx:?}");
    let (_, shown) = carry(&fx, &mut one, &mut two);
    assert!(
        shown.contains(&Effect::ShowAsPlaced) || shown.contains(&Effect::Show),
        "{shown:?}"
    );
    assert_eq!(two.pending_count(), 1);
}
