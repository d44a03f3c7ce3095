//! Keys that are not the person's: Zellij gives the plugin a key with nothing that says where
//! it came from (`zellij action write-chars` from any process, keys typed ahead for another
//! pane). A stream of keys that starts as a request comes on screen (each time it does) is
//! dropped whole, and an approval's `Allow` is picked only by a key that comes after a pause.

mod broker_io;

use ask_popup_plugin::broker::{Broker, Config, Effect, KEY_GUARD_MS};
use ask_popup_plugin::dialog::{Input, Key, Row};
use broker_io::*;

fn key(b: &mut Broker, key: Key) -> Vec<Effect> {
    b.input(Input::Key(key))
}

/// The footer of the frame on screen says `…`: keys that matter do not count yet.
fn settling(b: &mut Broker) -> bool {
    let frame = b.render(14, 70).to_plain();
    let footer = frame
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    footer.trim() == "…"
}

fn focus(b: &Broker) -> Option<Row> {
    b.current_dialog().and_then(|d| d.focused_row())
}

/// An approval of `command` on screen, its key guard over.
fn approval_on_screen(command: &str) -> Broker {
    let mut b = Broker::new(Config::default());
    b.pipe(cli(
        "p1",
        Some(&approval(command)),
        &[("agent", "claude"), ("id", "a1")],
    ));
    tick(&mut b, KEY_GUARD_MS);
    assert!(!settling(&mut b));
    assert_eq!(focus(&b), Some(Row::Option(2)), "the focus starts on Deny");
    b
}

#[test]
fn keys_that_keep_coming_as_a_question_shows_are_dropped_until_they_pause() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("p1", Some(&question("Q?")), &[]));
    // Typed ahead for another pane: a key every 300 ms, from 100 ms after the question showed,
    // for three seconds. Each comes within the guard the one before re-armed.
    b.set_clock(100);
    for i in 0..10 {
        let k = if i % 2 == 0 { Key::Down } else { Key::Enter };
        assert!(key(&mut b, k).is_empty(), "key {i} counted");
        tick(&mut b, 300);
        assert!(
            settling(&mut b),
            "the footer showed its hints after key {i}"
        );
    }
    assert_eq!(focus(&b), Some(Row::Option(0)));
    assert_eq!(b.pending_count(), 1);
    // 400 ms after the last one (its timer): settled, and a key counts.
    let fx = tick(&mut b, KEY_GUARD_MS - 300);
    assert!(fx.contains(&Effect::Render), "{fx:?}");
    assert!(!settling(&mut b));
    assert_eq!(picked(&key(&mut b, Key::Enter)).as_deref(), Some("A"));
}

#[test]
fn while_keys_keep_coming_one_timer_at_a_time_wakes_the_popup() {
    let mut b = Broker::new(Config::default());
    let fx = b.pipe(cli("p1", Some(&question("Q?")), &[]));
    assert!(fx.contains(&Effect::SetTimer(0.4)), "{fx:?}");
    let timers = |fx: &[Effect]| {
        fx.iter()
            .filter(|e| matches!(e, Effect::SetTimer(s) if *s < 1.0))
            .count()
    };
    // A burst of 50 keys sets no timer of its own: the first one fires, and sets the next.
    b.set_clock(10);
    let mut burst = 0;
    for _ in 0..50 {
        burst += timers(&key(&mut b, Key::Char('x')));
    }
    assert_eq!(burst, 0);
    let fx = tick(&mut b, 390);
    assert_eq!(timers(&fx), 1, "{fx:?}");
    assert!(!fx.contains(&Effect::Render));
    let fx = tick(&mut b, 10);
    assert!(fx.contains(&Effect::Render), "{fx:?}");
}

#[test]
fn digits_never_reach_an_approvals_allow_and_its_rows_carry_no_numbers() {
    let mut b = approval_on_screen("rm -rf build");
    let frame = b.render(14, 70).to_plain();
    assert!(frame.contains("❯ Deny"), "{frame}");
    assert!(!frame.contains("1."), "{frame}");
    // `1` then Enter, as `zellij action write-chars '1\r'` sends them.
    assert!(key(&mut b, Key::Char('1')).is_empty());
    assert_eq!(focus(&b), Some(Row::Option(2)));
    assert_eq!(picked(&key(&mut b, Key::Enter)).as_deref(), Some("Deny"));
}

#[test]
fn a_burst_onto_an_approval_never_allows_and_a_key_after_a_pause_does() {
    let mut b = approval_on_screen("rm -rf build");
    // ↑ then Enter in one burst (a program's `write-chars "\e[A\r"`, or a shell's last command
    // run again by keys typed ahead): the focus moves, the Enter does not allow.
    assert!(key(&mut b, Key::Up).contains(&Effect::Render));
    assert_eq!(focus(&b), Some(Row::Option(1)));
    assert!(
        settling(&mut b),
        "the footer says … while Enter would not count"
    );
    let fx = key(&mut b, Key::Enter);
    assert!(replies(&fx).is_empty(), "{fx:?}");
    // Nor does Enter pressed again and again, each within 400 ms of the one before.
    for _ in 0..5 {
        b.set_clock(b.now_ms() + KEY_GUARD_MS - 1);
        assert!(replies(&key(&mut b, Key::Enter)).is_empty());
    }
    assert_eq!(b.pending_count(), 1);
    // The person reads, then presses Enter once: allowed.
    let fx = tick(&mut b, KEY_GUARD_MS);
    assert!(fx.contains(&Effect::Render), "the hints come back: {fx:?}");
    assert!(!settling(&mut b));
    assert_eq!(
        picked(&key(&mut b, Key::Enter)).as_deref(),
        Some("Allow always")
    );
}

#[test]
fn keys_typed_ahead_at_a_persons_pace_do_not_allow() {
    let mut b = approval_on_screen("git push --force");
    // ↑ and Enter 250 ms apart, for the shell pane the popup covered.
    key(&mut b, Key::Up);
    key(&mut b, Key::Up);
    assert_eq!(focus(&b), Some(Row::Option(0)));
    b.set_clock(b.now_ms() + 250);
    assert!(replies(&key(&mut b, Key::Enter)).is_empty());
    // A click on `Allow once` right after a key is held back alike.
    b.set_clock(b.now_ms() + 100);
    let frame = b.render(14, 70).to_plain();
    let line = frame
        .lines()
        .position(|l| l.contains("Allow once"))
        .expect("Allow once on screen");
    let fx = b.click(line, 4);
    assert!(replies(&fx).is_empty(), "{fx:?}");
    assert_eq!(b.pending_count(), 1);
    // The same click after a pause allows.
    tick(&mut b, KEY_GUARD_MS);
    assert_eq!(picked(&b.click(line, 4)).as_deref(), Some("Allow once"));
}

#[test]
fn what_does_not_allow_counts_at_once_on_an_approval() {
    let mut b = approval_on_screen("git push --force");
    key(&mut b, Key::Up);
    // ↓ back onto Deny, and Enter at once denies.
    key(&mut b, Key::Down);
    assert_eq!(focus(&b), Some(Row::Option(2)));
    assert!(!settling(&mut b));
    assert_eq!(picked(&key(&mut b, Key::Enter)).as_deref(), Some("Deny"));
}

#[test]
fn a_questionnaire_that_is_no_approval_takes_a_quick_enter() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("p1", Some(&question("Q?")), &[]));
    settle(&mut b);
    key(&mut b, Key::Down);
    assert!(!settling(&mut b));
    assert_eq!(picked(&key(&mut b, Key::Enter)).as_deref(), Some("B"));
}

#[test]
fn a_questionnaire_replaced_under_its_id_is_guarded_anew() {
    let mut b = Broker::new(Config::default());
    let args = [("agent", "claude"), ("id", "x")];
    b.pipe(cli("p1", Some(&question("Deploy to staging?")), &args));
    settle(&mut b);
    assert!(!settling(&mut b));
    // Replaced by another questionnaire under the same id: keys meant for the first one, or
    // sent as the second shows, do not answer it.
    let fx = b.pipe(cli("p2", Some(&question("Drop the database?")), &args));
    assert_eq!(replies(&fx).len(), 1, "the first one is superseded: {fx:?}");
    assert!(fx.contains(&Effect::SetTimer(0.4)), "{fx:?}");
    assert!(settling(&mut b));
    b.set_clock(b.now_ms() + KEY_GUARD_MS - 1);
    let fx = key(&mut b, Key::Enter);
    assert!(replies(&fx).is_empty(), "{fx:?}");
    settle(&mut b);
    let fx = key(&mut b, Key::Enter);
    assert_eq!(replies(&fx)[0].0, "p2");
}

#[test]
fn a_retry_of_the_same_questionnaire_keeps_what_was_given_and_is_guarded_as_it_shows_again() {
    let mut b = Broker::new(Config::default());
    let args = [("agent", "claude"), ("id", "x")];
    b.pipe(cli("p1", Some(&question("Deploy to staging?")), &args));
    settle(&mut b);
    key(&mut b, Key::Down);
    key(&mut b, Key::Hide);
    tick(&mut b, 5000);
    // Zellij dropped the first CLI; the same questionnaire comes again: the same request, the
    // focus where the person left it, brought back on screen with a guard of its own.
    b.pipe(cli("p2", Some(&question("Deploy to staging?")), &args));
    assert!(settling(&mut b));
    assert_eq!(focus(&b), Some(Row::Option(1)));
    assert!(replies(&key(&mut b, Key::Enter)).is_empty());
    settle(&mut b);
    assert_eq!(picked(&key(&mut b, Key::Enter)).as_deref(), Some("B"));
}

#[test]
fn a_retry_of_the_question_on_screen_leaves_it_there_as_it_was_and_takes_the_next_key() {
    let mut b = Broker::new(Config::default());
    let args = [("agent", "claude"), ("id", "x")];
    b.pipe(cli("p1", Some(&question("Deploy to staging?")), &args));
    settle(&mut b);
    key(&mut b, Key::Down);
    // Zellij dropped the first CLI while the person reads the question; the same
    // questionnaire comes again: nothing on screen changes. The popup is not shown again, and
    // the Enter the person presses as it comes counts.
    let fx = b.pipe(cli("p2", Some(&question("Deploy to staging?")), &args));
    assert!(!fx.contains(&Effect::Show), "{fx:?}");
    assert!(!settling(&mut b));
    assert_eq!(focus(&b), Some(Row::Option(1)));
    let fx = key(&mut b, Key::Enter);
    assert_eq!(replies(&fx)[0].0, "p2");
    assert_eq!(picked(&fx).as_deref(), Some("B"));
}

/// An approval on screen, the focus left on `Allow once`, hidden with the hide key; a while
/// later another agent's question brings the popup back, the approval still on screen.
fn approval_hidden_then_brought_back() -> Broker {
    let mut b = approval_on_screen("rm -rf build");
    key(&mut b, Key::Up);
    key(&mut b, Key::Up);
    assert_eq!(focus(&b), Some(Row::Option(0)));
    tick(&mut b, KEY_GUARD_MS);
    assert!(key(&mut b, Key::Hide).contains(&Effect::Hide));
    // Hidden, it takes no key.
    tick(&mut b, 1000);
    assert!(replies(&key(&mut b, Key::Enter)).is_empty());
    assert_eq!(b.pending_count(), 1);
    tick(&mut b, 4000);
    let fx = b.pipe(cli(
        "p2",
        Some(&question("Which one?")),
        &[("agent", "codex"), ("id", "q1")],
    ));
    assert!(fx.contains(&Effect::Show), "{fx:?}");
    assert_eq!(focus(&b), Some(Row::Option(0)), "the approval is back");
    b
}

#[test]
fn an_approval_brought_back_on_screen_takes_no_enter_until_its_guard_is_over() {
    // An Enter typed for another pane 100 ms after the popup came back does nothing...
    let mut b = approval_hidden_then_brought_back();
    assert!(settling(&mut b));
    b.set_clock(b.now_ms() + 100);
    let fx = key(&mut b, Key::Enter);
    assert!(replies(&fx).is_empty(), "{fx:?}");
    assert_eq!(b.pending_count(), 2);
    // ...and holds keys off for as long again: the person reads, then presses Enter.
    b.set_clock(b.now_ms() + KEY_GUARD_MS - 1);
    assert!(replies(&key(&mut b, Key::Enter)).is_empty());
    tick(&mut b, KEY_GUARD_MS);
    assert!(!settling(&mut b));
    assert_eq!(
        picked(&key(&mut b, Key::Enter)).as_deref(),
        Some("Allow once")
    );
    // Once it has been on screen 400 ms, untouched, Enter counts.
    let mut b = approval_hidden_then_brought_back();
    let fx = tick(&mut b, KEY_GUARD_MS);
    assert!(fx.contains(&Effect::Render), "the hints come back: {fx:?}");
    assert!(!settling(&mut b));
    assert_eq!(
        picked(&key(&mut b, Key::Enter)).as_deref(),
        Some("Allow once")
    );
}

/// Two questions waiting, each on screen before: `claude`'s (`p1`, id `r1`) on screen, its
/// guard over, `codex`'s (`p2`, id `r2`) behind it.
fn two_seen_questions() -> Broker {
    let mut b = Broker::new(Config::default());
    b.pipe(cli(
        "p1",
        Some(&question("One?")),
        &[("agent", "claude"), ("id", "r1")],
    ));
    b.pipe(cli(
        "p2",
        Some(&question("Two?")),
        &[("agent", "codex"), ("id", "r2")],
    ));
    settle(&mut b);
    key(&mut b, Key::Char(']'));
    settle(&mut b);
    key(&mut b, Key::Char('['));
    settle(&mut b);
    assert!(!settling(&mut b));
    assert_eq!(
        b.current_dialog()
            .map(|d| d.questionnaire().questions[0].question.clone()),
        Some("One?".to_owned())
    );
    b
}

#[test]
fn switching_between_requests_guards_each_anew() {
    let mut b = two_seen_questions();
    // Each comes on screen again, seen before: an Enter typed on with the switch does nothing.
    key(&mut b, Key::Char(']'));
    assert!(settling(&mut b));
    assert!(replies(&key(&mut b, Key::Enter)).is_empty());
    settle(&mut b);
    key(&mut b, Key::Char('['));
    assert!(settling(&mut b));
    assert!(replies(&key(&mut b, Key::Enter)).is_empty());
    assert_eq!(b.pending_count(), 2);
    settle(&mut b);
    assert_eq!(replies(&key(&mut b, Key::Enter))[0].0, "p1");
}

#[test]
fn the_request_that_comes_forward_when_the_one_on_screen_ends_elsewhere_is_guarded_anew() {
    // Withdrawn by its caller.
    let mut b = two_seen_questions();
    let fx = b.pipe(named(
        "c",
        "cancel",
        Some(""),
        &[("agent", "claude"), ("id", "r1")],
    ));
    assert_eq!(b.pending_count(), 1, "{fx:?}");
    assert!(settling(&mut b));
    assert!(replies(&key(&mut b, Key::Enter)).is_empty());
    settle(&mut b);
    assert_eq!(replies(&key(&mut b, Key::Enter))[0].0, "p2");

    // Answered in another client's instance.
    let (mut one, mut two) = two_clients();
    let ask = |pipe: &str, text: &str, agent: &str| {
        cli(
            pipe,
            Some(&question(text)),
            &[("agent", agent), ("id", pipe)],
        )
    };
    both(ask("p1", "One?", "claude"), &mut one, &mut two);
    both(ask("p2", "Two?", "codex"), &mut one, &mut two);
    for b in [&mut one, &mut two] {
        settle(b);
        key(b, Key::Char(']'));
        settle(b);
        key(b, Key::Char('['));
        settle(b);
    }
    let answered = key(&mut two, Key::Enter);
    assert_eq!(replies(&answered)[0].0, "p1");
    carry(&answered, &mut one, &mut two);
    assert_eq!(one.pending_count(), 1);
    assert!(settling(&mut one));
    assert!(replies(&key(&mut one, Key::Enter)).is_empty());
    settle(&mut one);
    assert_eq!(replies(&key(&mut one, Key::Enter))[0].0, "p2");
}

#[test]
fn a_client_attaching_while_a_question_shows_guards_it_anew() {
    // Zellij hides the floating panes for every client as a web client attaches, and the
    // popup shows again: keys typed meanwhile were meant for another pane.
    let mut b = instance();
    b.join(1);
    b.attached(&[]);
    b.pipe(cli("p1", Some(&question("Q?")), &[("id", "r1")]));
    settle(&mut b);
    assert!(!settling(&mut b));
    let fx = b.attached(&[2]);
    assert!(fx.contains(&Effect::Show), "{fx:?}");
    assert!(settling(&mut b));
    assert!(replies(&key(&mut b, Key::Enter)).is_empty());
    settle(&mut b);
    assert_eq!(replies(&key(&mut b, Key::Enter))[0].0, "p1");
}

#[test]
fn an_approval_asked_again_is_asked_never_answered_with_a_kept_reply() {
    // A hook asks again with the same id when Zellij dropped its pipe: for a question the reply
    // kept is repeated, but an `Allow` is only ever the person's key on the approval on screen,
    // never a repeat (whatever asked again under that id, with whatever command): the person
    // is asked again.
    let mut b = approval_on_screen("rm -rf build");
    key(&mut b, Key::Up);
    key(&mut b, Key::Up);
    tick(&mut b, KEY_GUARD_MS);
    let allowed = replies(&key(&mut b, Key::Enter));
    assert_eq!(
        allowed[0].1["details"]["answers"][0]["answer"],
        "Allow once"
    );
    tick(&mut b, 1000);
    let args = [("agent", "claude"), ("id", "a1")];
    let fx = b.pipe(cli("p2", Some(&approval("rm -rf build")), &args));
    assert!(replies(&fx).is_empty(), "{fx:?}");
    assert_eq!(b.pending_count(), 1);
    // Nor is anything kept for an approval across a reload of the popup.
    let closing = b.before_close();
    assert!(
        !closing
            .iter()
            .any(|e| matches!(e, Effect::KeepAcrossReload(_))),
        "{closing:?}"
    );
}
