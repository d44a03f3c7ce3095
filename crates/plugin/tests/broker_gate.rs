//! The first question of a session: it loads the plugin, whose instance holds every message
//! until the other instances (one per attached client) have said hello. The question shows at
//! once meanwhile, and is asked (answered, announced, marked) only when the window ends, by
//! whichever instance leads then: one reply, one mark, one blocked pair, whatever the order.

mod broker_io;

use ask_popup_plugin::broker::{Broker, Effect, HELLO_WINDOW_MS};
use ask_popup_plugin::dialog::{Input, Key};
use broker_io::*;

/// An instance loaded by the first question: it holds `held` (blocking each CLI), hears the tab
/// and pane updates Zellij sends with the grant, and is then granted its permissions for client
/// `client`. The effects of the grant.
fn loaded_with(client: u16, held: &[ask_popup_plugin::broker::PipeIn]) -> (Broker, Vec<Effect>) {
    let (mut b, fx) = loaded_unheard(client, held);
    b.application_state_heard(client);
    (b, fx)
}

/// `loaded_with`, but the instance hears nothing that needs the grant.
fn loaded_unheard(client: u16, held: &[ask_popup_plugin::broker::PipeIn]) -> (Broker, Vec<Effect>) {
    let mut b = instance();
    b.pane_titles([(3, "claude".to_owned())]);
    b.await_permission();
    for msg in held {
        let fx = b.pipe(msg.clone());
        assert!(
            !fx.contains(&Effect::Show),
            "nothing shows before the grant: {fx:?}"
        );
    }
    let fx = b.permission(true, client);
    (b, fx)
}

fn ask(pipe: &str, id: &str) -> ask_popup_plugin::broker::PipeIn {
    cli(
        pipe,
        Some(&question("Which one?")),
        &[("pane_id", "3"), ("id", id)],
    )
}

/// How many `ask-popup:blocked` broadcasts among `fx` open a wait, and how many close one.
fn blocked_pairs(fx: &[Effect]) -> (usize, usize) {
    let blocked = broadcasts(fx, "ask-popup:blocked");
    let opened = blocked.iter().filter(|e| e["active"] == true).count();
    (opened, blocked.len() - opened)
}

#[test]
fn the_first_question_shows_as_soon_as_granted_and_is_asked_when_the_hellos_are_in() {
    let (mut b, fx) = loaded_with(1, &[ask("p1", "r1")]);
    // On screen at once, with the question's own title; nobody told yet.
    assert!(fx.contains(&Effect::Show), "{fx:?}");
    assert!(fx.contains(&Effect::SetOwnTitle(
        "ask-popup · claude · 1 of 1".to_owned()
    )));
    assert_eq!(b.pending_count(), 1);
    assert!(replies(&fx).is_empty());
    assert_eq!(blocked_pairs(&fx), (0, 0));
    assert!(renames(&fx).is_empty());
    assert!(broadcasts(&fx, "ask-popup:prompt").is_empty());
    // `status` (asked after the window) lists it once.
    b.pipe(named("s", "status", Some(""), &[]));

    // Keys before the window ends do nothing (the key guard runs from the first show).
    settle(&mut b);
    let fx = b.input(Input::Key(Key::Enter));
    assert!(replies(&fx).is_empty(), "{fx:?}");

    // The window ends: asked, announced and marked once, and still on screen.
    let fx = tick(&mut b, HELLO_WINDOW_MS);
    assert_eq!(blocked_pairs(&fx), (1, 0), "{fx:?}");
    assert_eq!(broadcasts(&fx, "ask-popup:prompt").len(), 1);
    assert_eq!(renames(&fx), [(3, "⏳ claude".to_owned())]);
    assert!(!fx.contains(&Effect::Hide));
    assert_eq!(b.pending_count(), 1);
    let status = replies(&fx);
    assert_eq!(status.len(), 1, "{fx:?}");
    assert_eq!(status[0].1["pending"].as_array().map(Vec::len), Some(1));

    // The key guard already ran while it showed: Enter answers at once.
    let fx = b.input(Input::Key(Key::Enter));
    let r = replies(&fx);
    assert_eq!(r.len(), 1, "{fx:?}");
    assert_eq!(r[0].0, "p1");
    assert_eq!(r[0].1["details"]["requestId"], "r1");
    assert_eq!(blocked_pairs(&fx), (0, 1));
    assert_eq!(renames(&fx), [(3, String::new())]);
}

#[test]
fn a_question_that_comes_while_the_hellos_come_in_shows_at_once() {
    let (mut b, fx) = loaded_with(1, &[]);
    assert!(!fx.contains(&Effect::Show));
    let fx = b.pipe(ask("p1", "r1"));
    assert!(fx.contains(&Effect::Block("p1".into())));
    assert!(fx.contains(&Effect::Show), "{fx:?}");
    assert!(replies(&fx).is_empty());
    assert_eq!(blocked_pairs(&fx), (0, 0));
    let fx = tick(&mut b, HELLO_WINDOW_MS);
    assert_eq!(blocked_pairs(&fx), (1, 0));
    assert_eq!(b.pending_count(), 1);
}

#[test]
fn two_clients_loading_together_show_it_both_and_ask_it_once() {
    let msg = ask("p1", "r1");
    let (mut one, fx1) = loaded_with(1, std::slice::from_ref(&msg));
    let (mut two, fx2) = loaded_with(2, std::slice::from_ref(&msg));
    assert!(fx1.contains(&Effect::Show) && fx2.contains(&Effect::Show));
    let (a, b) = carry(&[fx1.clone(), fx2.clone()].concat(), &mut one, &mut two);
    assert!(one.leads() && !two.leads());
    let one_fx = [fx1, a, tick(&mut one, HELLO_WINDOW_MS)].concat();
    let two_fx = [fx2, b, tick(&mut two, HELLO_WINDOW_MS)].concat();
    // One announcement and one mark, from the leader; the question waits in both.
    assert_eq!(blocked_pairs(&one_fx), (1, 0));
    assert_eq!(blocked_pairs(&two_fx), (0, 0));
    assert_eq!(renames(&one_fx), [(3, "⏳ claude".to_owned())]);
    assert!(renames(&two_fx).is_empty());
    assert_eq!((one.pending_count(), two.pending_count()), (1, 1));

    // Answered in the follower: one reply, one end, the other instance drops it.
    settle(&mut one);
    settle(&mut two);
    let fx = two.input(Input::Key(Key::Enter));
    assert_eq!(replies(&fx).len(), 1);
    let (a, b) = carry(&fx, &mut one, &mut two);
    assert!(replies(&a).is_empty() && replies(&b).is_empty());
    assert_eq!(blocked_pairs(&a), (0, 1));
    assert_eq!(blocked_pairs(&[fx, b].concat()), (0, 0));
    assert_eq!((one.pending_count(), two.pending_count()), (0, 0));
}

#[test]
fn a_newcomer_shows_what_the_leader_asks_and_takes_the_leaders_request_in_its_place() {
    // Client 1's instance serves; client 2's loads as the question comes, and holds it.
    let mut one = instance();
    one.join(1);
    let msg = ask("p1", "r1");
    let first = one.pipe(msg.clone());
    assert_eq!(blocked_pairs(&first), (1, 0));
    let (mut two, hello) = loaded_with(2, std::slice::from_ref(&msg));
    assert!(hello.contains(&Effect::Show));
    // The leader answers the hello with what is pending: the newcomer's shown request gives
    // way to the leader's, and its held message is not asked a second time.
    let (a, b) = carry(&hello, &mut one, &mut two);
    let released = tick(&mut two, HELLO_WINDOW_MS);
    for fx in [&a, &b, &released] {
        assert!(replies(fx).is_empty(), "{fx:?}");
        assert_eq!(blocked_pairs(fx), (0, 0), "{fx:?}");
        assert!(!fx.contains(&Effect::Hide), "{fx:?}");
    }
    assert_eq!((one.pending_count(), two.pending_count()), (1, 1));
    settle(&mut two);
    let fx = two.input(Input::Key(Key::Enter));
    assert_eq!(replies(&fx).len(), 1);
    let (a, _) = carry(&fx, &mut one, &mut two);
    assert_eq!(blocked_pairs(&a), (0, 1));
    assert_eq!((one.pending_count(), two.pending_count()), (0, 0));
}

#[test]
fn a_shown_question_answered_by_the_leader_meanwhile_leaves_the_newcomers_popup() {
    let mut one = instance();
    one.join(1);
    let msg = ask("p1", "r1");
    one.pipe(msg.clone());
    let (mut two, hello) = loaded_with(2, std::slice::from_ref(&msg));
    // The user answers in client 1 before the newcomer's hello arrives.
    settle(&mut one);
    let fx = one.input(Input::Key(Key::Enter));
    assert_eq!(replies(&fx).len(), 1);
    let (_, b) = carry(&[fx, hello].concat(), &mut one, &mut two);
    let released = tick(&mut two, HELLO_WINDOW_MS);
    let all = [b, released].concat();
    assert!(replies(&all).is_empty(), "{all:?}");
    assert_eq!(blocked_pairs(&all), (0, 0));
    assert!(all.contains(&Effect::Hide), "{all:?}");
    assert_eq!(two.pending_count(), 0);
}

#[test]
fn what_is_answered_at_once_when_the_window_ends_never_shows() {
    let invalid = cli("bad", Some("{\"questions\": []}"), &[("id", "x")]);
    let withdrawn = ask("p2", "gone");
    let cancel = named("c", "cancel", Some(""), &[("pane_id", "3"), ("id", "gone")]);
    let (mut b, fx) = loaded_with(1, &[invalid, cancel, withdrawn]);
    assert!(!fx.contains(&Effect::Show), "{fx:?}");
    assert_eq!(b.pending_count(), 0);
    let fx = tick(&mut b, HELLO_WINDOW_MS);
    let r = replies(&fx);
    assert_eq!(r.len(), 3, "{fx:?}");
    assert_eq!(r[0].1["details"]["error"], "no_questions");
    assert_eq!(r[2].1["details"]["error"], "aborted");
    assert_eq!(blocked_pairs(&fx), (0, 0));
}

#[test]
fn a_question_withdrawn_while_it_shows_leaves_the_popup_at_once() {
    let (mut b, fx) = loaded_with(1, &[ask("p1", "r1")]);
    assert!(fx.contains(&Effect::Show));
    let fx = b.pipe(named(
        "c",
        "cancel",
        Some(""),
        &[("pane_id", "3"), ("id", "r1")],
    ));
    assert!(replies(&fx).is_empty());
    assert!(fx.contains(&Effect::Hide), "{fx:?}");
    assert_eq!(b.pending_count(), 0);
    // Its caller and the withdrawal's are answered when the window ends; nothing was
    // announced.
    let fx = tick(&mut b, HELLO_WINDOW_MS);
    let r = replies(&fx);
    assert_eq!(r.len(), 2, "{fx:?}");
    assert_eq!(r[0].1["details"]["error"], "aborted");
    assert_eq!(r[1].1["withdrawn"], 1);
    assert_eq!(blocked_pairs(&fx), (1, 1));
    assert_eq!(b.pending_count(), 0);
}

#[test]
fn closing_the_popup_while_the_hellos_come_in_answers_every_held_caller_once() {
    let (mut b, _) = loaded_with(1, &[ask("p1", "r1"), named("s", "status", Some(""), &[])]);
    let fx = b.before_close();
    let r = replies(&fx);
    assert_eq!(r.len(), 2, "{fx:?}");
    let dismissed: Vec<_> = r.iter().filter(|(p, _)| p == "p1").collect();
    assert_eq!(dismissed.len(), 1);
    assert_eq!(dismissed[0].1["details"]["error"], "dismissed");
    assert_eq!(blocked_pairs(&fx), (1, 1));
    assert_eq!(b.pending_count(), 0);
}

#[test]
fn a_countdown_runs_from_when_the_question_first_showed() {
    let timed = serde_json::json!({
        "questions": [{"question": "Q?", "header": "H", "options": ["A", "B"]}],
        "timeout": 2000
    })
    .to_string();
    let (mut b, _) = loaded_with(1, &[cli("p1", Some(&timed), &[("id", "t")])]);
    tick(&mut b, HELLO_WINDOW_MS);
    tick(&mut b, 1000 - HELLO_WINDOW_MS);
    let fx = tick(&mut b, 1000);
    let r = replies(&fx);
    assert_eq!(r.len(), 1, "timed out 2 s after it first showed: {fx:?}");
    assert_eq!(r[0].1["details"]["error"], "timed_out");
}

#[test]
fn a_questionnaire_on_one_line_of_stdin_shows_at_once_one_of_several_lines_when_asked() {
    // `ask-popup ask` sends the questionnaire as one line of stdin, then its end.
    let line = format!("{}\n", question("One line?"));
    let (mut b, fx) = loaded_with(1, &[cli("p1", Some(&line), &[("id", "a")])]);
    assert!(fx.contains(&Effect::Show), "{fx:?}");
    let fx = tick(&mut b, HELLO_WINDOW_MS);
    assert_eq!(blocked_pairs(&fx), (1, 0));
    assert_eq!(b.pending_count(), 1);

    // A pretty-printed questionnaire comes a line at a time: nothing to show from its first
    // line, nor from a later one alone; it shows once the window ends and it is whole.
    let pretty = serde_json::to_string_pretty(&serde_json::json!({
        "questions": [{"question": "Pretty?", "header": "H", "options": ["A", "B"]}]
    }))
    .unwrap();
    let lines: Vec<String> = pretty.lines().map(|l| format!("{l}\n")).collect();
    let held: Vec<_> = lines
        .iter()
        .map(|l| cli("p2", Some(l), &[("id", "b")]))
        .collect();
    let (mut b, fx) = loaded_with(1, &held);
    assert!(!fx.contains(&Effect::Show), "{fx:?}");
    assert_eq!(b.pending_count(), 0);
    let fx = tick(&mut b, HELLO_WINDOW_MS);
    assert!(fx.contains(&Effect::Show), "{fx:?}");
    assert_eq!(b.pending_count(), 1);
    assert!(replies(&fx).is_empty());
}

#[test]
fn while_the_hellos_come_in_the_lowest_clients_instance_alone_fits_the_shared_pane() {
    // Both instances load with the question; the tab updates before the grant list both
    // clients. The pane is one for every client: client 1's instance fits it, client 2's
    // shows it as placed.
    let msg = ask("p1", "r1");
    let mut fx = Vec::new();
    for (client, others) in [(1, [2]), (2, [1])] {
        let mut b = instance();
        b.await_permission();
        b.pipe(msg.clone());
        assert!(b.attached(&others).is_empty());
        fx.push(b.permission(true, client));
    }
    assert!(fx[0].contains(&Effect::Show), "{:?}", fx[0]);
    assert!(!fx[0].contains(&Effect::ShowAsPlaced));
    assert!(fx[1].contains(&Effect::ShowAsPlaced), "{:?}", fx[1]);
    assert!(!fx[1].contains(&Effect::Show));
}

/// An instance that served its first question past the hello window, granted at load but
/// having heard no event that needs the grant since.
fn granted_in_doubt() -> Broker {
    let (mut b, _) = loaded_unheard(2, &[ask("p1", "r1")]);
    tick(&mut b, HELLO_WINDOW_MS);
    settle(&mut b);
    b
}

fn asks_again(fx: &[Effect]) -> usize {
    fx.iter()
        .filter(|e| matches!(e, Effect::RequestPermission))
        .count()
}

#[test]
fn keys_while_the_grant_is_in_doubt_wait_for_asking_again_and_count_once_it_is_answered() {
    // Two clients when the user grants the permissions: Zellij tells both instances, but may
    // give the grant to one only. This one heard no tab, pane or mode update since.
    let mut b = granted_in_doubt();
    let fx = b.input(Input::Key(Key::Down));
    assert_eq!(asks_again(&fx), 1, "{fx:?}");
    assert!(!fx.contains(&Effect::Render));
    let fx = b.input(Input::Key(Key::Enter));
    assert_eq!(asks_again(&fx), 0, "asked once: {fx:?}");
    assert!(replies(&fx).is_empty(), "{fx:?}");
    // Zellij answers from the grant it remembered: the keys count now, in their order (Down
    // then Enter picks the second option).
    let fx = b.permission(true, 2);
    let r = replies(&fx);
    assert_eq!(r.len(), 1, "{fx:?}");
    assert_eq!(r[0].1["details"]["answers"][0]["answer"], "B");
    // And later keys go straight through.
    assert_eq!(b.pending_count(), 0);
}

#[test]
fn keys_held_while_the_grant_is_in_doubt_are_never_replayed_onto_an_approval() {
    let approval_of_ls = cli(
        "p1",
        Some(&approval("ls")),
        &[("pane_id", "3"), ("id", "r1")],
    );
    let (mut b, _) = loaded_unheard(2, &[approval_of_ls]);
    tick(&mut b, HELLO_WINDOW_MS);
    settle(&mut b);
    // ↑ and Enter while in doubt: held, then dropped, not a burst that allows.
    let fx = b.input(Input::Key(Key::Up));
    assert_eq!(asks_again(&fx), 1, "{fx:?}");
    b.input(Input::Key(Key::Enter));
    settle(&mut b);
    let fx = b.permission(true, 2);
    assert!(replies(&fx).is_empty(), "{fx:?}");
    let d = b.current_dialog().expect("still asked");
    assert_eq!(
        d.focused_row(),
        Some(ask_popup_plugin::dialog::Row::Option(2))
    );
    // Keys now go straight to it.
    assert_eq!(
        picked(&b.input(Input::Key(Key::Enter))).as_deref(),
        Some("Deny")
    );
}

#[test]
fn keys_held_while_the_grant_is_in_doubt_go_only_to_the_request_they_were_typed_at() {
    let mut b = granted_in_doubt();
    b.input(Input::Key(Key::Down));
    b.input(Input::Key(Key::Enter));
    // Meanwhile the question is withdrawn and another one shows.
    let fx = b.pipe(named(
        "c",
        "cancel",
        Some(""),
        &[("pane_id", "3"), ("id", "r1")],
    ));
    assert_eq!(replies(&fx).len(), 2, "withdrawn: {fx:?}");
    b.pipe(ask("p2", "r2"));
    settle(&mut b);
    let fx = b.permission(true, 2);
    assert!(replies(&fx).is_empty(), "{fx:?}");
    assert_eq!(b.pending_count(), 1);
    assert_eq!(
        picked(&b.input(Input::Key(Key::Enter))).as_deref(),
        Some("A")
    );
}

#[test]
fn the_hide_key_waits_for_the_grant_too() {
    let mut b = granted_in_doubt();
    let fx = b.input(Input::Key(Key::Hide));
    assert_eq!(asks_again(&fx), 1);
    assert!(!fx.contains(&Effect::Hide));
    let fx = b.permission(true, 2);
    assert!(fx.contains(&Effect::Hide), "{fx:?}");
}

#[test]
fn an_instance_that_hears_what_needs_the_grant_never_asks_again() {
    let mut b = granted_in_doubt();
    b.application_state_heard(2);
    let fx = b.input(Input::Key(Key::Enter));
    assert_eq!(asks_again(&fx), 0);
    assert_eq!(replies(&fx).len(), 1);
    let fx = tick(&mut b, 5000);
    assert_eq!(asks_again(&fx), 0);
}

#[test]
fn an_instance_left_in_doubt_asks_again_once_after_a_silence() {
    let mut b = granted_in_doubt();
    // Granted at 0 ms: the window and the key guard passed (700 ms), not yet the silence.
    let silence = ask_popup_plugin::broker::GRANT_SILENCE_MS;
    let before_silence = silence - b.now_ms() - 1;
    let fx = tick(&mut b, before_silence);
    assert_eq!(asks_again(&fx), 0, "{fx:?}");
    let fx = tick(&mut b, 1);
    assert_eq!(asks_again(&fx), 1, "{fx:?}");
    let fx = tick(&mut b, 1000);
    assert_eq!(asks_again(&fx), 0);
    // Still in doubt (no answer yet): a key waits, without asking a second time.
    let fx = b.input(Input::Key(Key::Enter));
    assert_eq!(asks_again(&fx), 0);
    assert!(replies(&fx).is_empty());
    assert_eq!(replies(&b.permission(true, 2)).len(), 1);
}

#[test]
fn a_denied_instance_says_so_and_a_later_grant_serves() {
    let (mut b, fx) = {
        let mut b = instance();
        b.await_permission();
        b.pipe(ask("p1", "r1"));
        let fx = b.permission(false, 1);
        (b, fx)
    };
    assert!(b.permission_denied());
    assert!(peer_messages(&fx).is_empty(), "{fx:?}");
    let fx = b.permission(true, 1);
    assert!(!b.permission_denied());
    assert_eq!(
        peer_messages(&fx).len(),
        1,
        "granted after all: hello, {fx:?}"
    );
}

#[test]
fn the_replies_kept_across_a_reload_are_deleted_once_the_leader_has_read_them() {
    // The popup closed with a question waiting: its reply is kept for the caller that asks
    // again, in a file that holds answers.
    let mut closing = instance();
    closing.join(1);
    closing.pipe(ask("p1", "r1"));
    let kept = kept_across_reload(&closing.before_close());
    // The next instance reads it as it loads, asks no one, and once it leads and has answered
    // what waited, the file goes.
    let mut b = instance();
    b.await_permission();
    b.recall(&kept);
    let again = b.pipe(ask("p2", "r1"));
    assert!(
        replies(&again).is_empty(),
        "held until the grant: {again:?}"
    );
    let mut fx = b.permission(true, 1);
    assert!(!fx.contains(&Effect::ForgetKeptAcrossReload), "{fx:?}");
    fx.extend(tick(&mut b, HELLO_WINDOW_MS));
    assert!(b.leads());
    let r = replies(&fx);
    assert_eq!(r.len(), 1, "{fx:?}");
    assert_eq!(r[0].1["details"]["error"], "dismissed");
    let forgotten = fx
        .iter()
        .filter(|e| **e == Effect::ForgetKeptAcrossReload)
        .count();
    assert_eq!(forgotten, 1, "{fx:?}");
    // Nothing was read back: nothing to delete.
    let (mut fresh, fx) = loaded_with(1, &[]);
    let mut fx = fx;
    fx.extend(tick(&mut fresh, HELLO_WINDOW_MS));
    assert!(!fx.contains(&Effect::ForgetKeptAcrossReload), "{fx:?}");
}

#[test]
fn an_instance_whose_grant_went_to_another_takes_the_events_that_need_it_for_the_grant() {
    use ask_popup_plugin::broker::GRANT_SILENCE_MS;
    let mut b = instance();
    b.await_permission();
    let fx = b.pipe(ask("p1", "r1"));
    assert!(!fx.contains(&Effect::Block("p1".into())) || replies(&fx).is_empty());
    // Tab updates come (Zellij sends them only with the grant), the answer does not.
    let fx = b.application_state_heard(3);
    assert!(
        fx.iter().any(|e| matches!(e, Effect::SetTimer(_))),
        "{fx:?}"
    );
    assert!(b.awaits_permission());
    b.set_clock(b.now_ms() + GRANT_SILENCE_MS / 2);
    assert!(b.application_state_heard(3).is_empty());
    assert!(b.awaits_permission());
    // Still no answer: the grant holds, and the instance says hello as client 3.
    let fx = tick(&mut b, GRANT_SILENCE_MS);
    assert!(!b.awaits_permission());
    assert!(
        peer_messages(&fx)
            .iter()
            .any(|m| m.payload.as_deref() == Some("{\"from\":3,\"kind\":\"hello\"}")),
        "{fx:?}"
    );
    // Then, after the hellos, the question it held is asked, and shows.
    let fx = tick(&mut b, 300);
    assert!(fx.contains(&Effect::Block("p1".into())), "{fx:?}");
    assert!(b.is_visible() && b.pending_count() == 1);
    // The answer coming late changes nothing.
    assert!(replies(&b.permission(true, 3)).is_empty());
    // An instance answered in time never takes the events for the grant.
    let mut answered = instance();
    answered.await_permission();
    answered.application_state_heard(1);
    answered.permission(true, 1);
    assert!(!answered.awaits_permission());
    assert!(peer_messages(&tick(&mut answered, GRANT_SILENCE_MS)).is_empty());
}

#[test]
fn before_its_grant_an_instance_says_it_is_starting_not_that_nothing_waits() {
    // The instance of a client other than the first asks for its permissions a moment after
    // it loads, its pane on screen already (the first instance showed it): what it holds is not
    // asked yet.
    let theme = ask_popup_plugin::view::Theme::default();
    let mut b = instance();
    b.await_permission();
    let _ = b.pipe(ask("p1", "r1"));
    assert_eq!(b.screen_text(20, 80, &theme, &[]), "ask-popup: starting…\n");
    let (mut idle, _) = loaded_with(2, &[]);
    assert_eq!(
        idle.screen_text(20, 80, &theme, &[]),
        "ask-popup: no questions waiting.\n"
    );
}
